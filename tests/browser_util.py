"""Headless Chromium for the browser tests: its flags, and the browser and driver found (a
skip where they are missing, a failure in CI, which installs them)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

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


def chrome(profile: Path, width: int, height: int, *extra: str, logs: bool = False) -> Any:
    """Return a headless Chromium of ``width`` x ``height`` px with its own profile folder
    (``extra``: more flags; ``logs``: keep the page's console for ``get_log("browser")``); a page
    load times out after 60 s. The caller quits it."""
    browser, driver_path = _chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in [*FLAGS, f"--user-data-dir={profile}", *extra, f"--window-size={width},{height}"]:
        options.add_argument(flag)
    if logs:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    return driver
