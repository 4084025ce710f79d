"""The report of a 48-configuration run, rendered in headless Chromium: every chart loads, none is
wider than the page, the page does not scroll sideways; a screenshot is taken.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them). Without them the
test is skipped on a workstation and fails under CI (``CI=true``), so CI cannot pass it silently.
``PROJECTL_SCREENSHOTS=DIR`` keeps the screenshot there (``report.png``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from projectl_sim.analysis.report import write_report
from projectl_sim.sim import runner
from projectl_sim.sim import spec as run_spec

# headless, and nothing that reaches for the network (it is closed here: Chromium would wait)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WINDOW = (1280, 900)


def _chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser and driver:
        try:
            import selenium  # noqa: F401
        except ImportError:
            pass
        else:
            return browser, driver
    why = "headless Chromium tests need chromium, chromium-driver and selenium"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{why} (.ci/run installs them)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "run48"
    spec = run_spec.RunSpec.from_mapping(
        {
            "bots": ["random"],
            "players": [2, 3, 4],
            "expansions": ["all-subsets"],
            "games": 2,
            "seed": 18,
        }
    )
    result = runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    assert len(result.manifest["configs"]) == 48
    return write_report(out)


def test_the_report_renders_in_chromium_with_every_chart_loaded_and_in_the_page(
    report: Path, tmp_path: Path
) -> None:
    browser, driver_path = _chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    window = f"--window-size={WINDOW[0]},{WINDOW[1]}"
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'profile'}", window]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.get(report.resolve().as_uri())
        images = driver.execute_script(
            "return Array.from(document.images).map(i => ({alt: i.alt, complete: i.complete,"
            " natural: i.naturalWidth, width: i.getBoundingClientRect().width}))"
        )
        page = driver.execute_script(
            "const d = document.documentElement;"
            " return {client: d.clientWidth, scroll: d.scrollWidth, height: d.scrollHeight}"
        )
        alts = [i["alt"] for i in images]
        for expected in ("seat advantage per configuration", "effects against the base game"):
            assert expected in alts
        for image in images:
            assert image["complete"] and image["natural"] > 0, image["alt"]
            assert image["width"] <= page["client"], image["alt"]
        assert page["scroll"] <= page["client"]  # no sideways scrolling: tables scroll inside
        text = driver.find_element("tag name", "body").text
        assert (
            "0 of 48 configurations reject equal shares" in text or "of 48 configurations" in text
        )
        driver.set_window_size(WINDOW[0], min(page["height"] + 200, 20000))
        shot = Path(os.environ.get("PROJECTL_SCREENSHOTS") or tmp_path) / "report.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        driver.quit()
