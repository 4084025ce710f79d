"""Headless Chromium for the browser tests: its flags, and the browser and driver found (a
skip where they are missing, a failure in CI, which installs them)."""

from __future__ import annotations

import os
import shutil

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
