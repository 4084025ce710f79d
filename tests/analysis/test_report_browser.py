"""The report of a small round robin of bots with long names, rendered in headless Chromium at
1280 and 700 px wide: every chart loads and lies inside its container, the page does not scroll
sideways (the head-to-head table scrolls in its own box), a run where every game ended by the
rules says so in a sentence instead of drawing an empty "How games ended" frame; a screenshot is
taken at each width. The charts themselves (long names included) are checked by test_charts.py.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them). Without them the
test is skipped on a workstation and fails under CI (``CI=true``), so CI cannot pass it silently.
``PROJECTL_SCREENSHOTS=DIR`` keeps the screenshots there (``report-1280.png``, ``report-700.png``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_util import chrome

from projectl_sim.analysis.report import write_report
from projectl_sim.sim import runner
from projectl_sim.sim import spec as run_spec

# headless, and nothing that reaches for the network (it is closed here: Chromium would wait)
WIDTHS = (1280, 700)  # a laptop's window, and a narrow one (half a screen, a tablet)
HEIGHT = 900
LONG = "greedy:preset=rush_black"  # a bot spec as long as a user's


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "robin"
    spec = run_spec.RunSpec.from_mapping(
        {
            "round_robin": f"random,{LONG},rusher",
            "players": [2, 3],
            "expansions": ["none", "ghost_piece"],
            "games": 2,
            "seed": 18,
        }
    )
    result = runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    assert len(result.manifest["configs"]) == 8  # 3 pairs and 1 trio, each with and without GP
    return write_report(out)


# each image's box and its container's, and the page's widths (what the user scrolls)
_MEASURE = """
const d = document.documentElement;
return {
  inner: window.innerWidth, scroll: d.scrollWidth, height: d.scrollHeight,
  images: Array.from(document.images).map(i => {
    const r = i.getBoundingClientRect(), c = i.parentElement.getBoundingClientRect();
    return {alt: i.alt, complete: i.complete, natural: i.naturalWidth,
            left: r.left, right: r.right, box_left: c.left, box_right: c.right};
  }),
  tables: Array.from(document.querySelectorAll("table")).map(t => {
    const r = t.getBoundingClientRect(), c = t.parentElement.getBoundingClientRect();
    return {wider: r.width > c.width + 0.5, scrolls: getComputedStyle(t.parentElement).overflowX};
  }),
};
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_report_fits_the_window_with_every_chart_loaded_and_inside_its_box(
    report: Path, tmp_path: Path, width: int
) -> None:
    driver = chrome(tmp_path / "profile", width, HEIGHT)
    try:
        driver.get(report.resolve().as_uri())
        page = driver.execute_script(_MEASURE)
        assert page["inner"] == width
        alts = [i["alt"] for i in page["images"]]
        for expected in ("ratings", "head to head", "seat advantage per configuration"):
            assert expected in alts
        assert "end reasons" not in alts  # every game ended by the rules: a sentence, no frame
        for image in page["images"]:
            assert image["complete"] and image["natural"] > 0, image["alt"]
            inside = (
                image["left"] >= image["box_left"] - 0.5
                and image["right"] <= image["box_right"] + 0.5
            )
            assert inside, image
        for table in page["tables"]:  # a table wider than its box scrolls inside it
            assert not table["wider"] or table["scrolls"] == "auto", table
        assert page["scroll"] <= page["inner"], page["scroll"]  # the page never scrolls sideways
        text = driver.find_element("tag name", "body").text
        assert "How games ended: all" in text and "ended by the rules" in text
        assert LONG in text
        driver.set_window_size(width, min(page["height"] + 200, 20000))
        shots = Path(os.environ.get("PROJECTL_SCREENSHOTS") or tmp_path)
        shot = shots / f"report-{width}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert driver.save_screenshot(str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        driver.quit()
