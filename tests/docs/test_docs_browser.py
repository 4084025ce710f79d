"""The docs site in headless Chromium: a console block's copy button copies its commands only
(no ``$ `` prompt, no output line), and no block's text runs under the copy button, on a wide
window and on a narrow one. The site is the one the README's test line built (``site/``) when it
is newer than its sources, else it is built once here; each tutorial page is screenshot.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them); skipped without
them on a workstation, a failure under CI. ``PROJECTL_SCREENSHOTS=DIR`` keeps the screenshots
there (``docs-<page>-<width>.png``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_util import _chromium, chrome
from paths import ROOT

PAGES = ["tutorials/designer", "tutorials/player", "tutorials/analyst", "getting-started"]
WIDTHS = [1280, 700]  # the desktop column, and a narrow window where the navigation folds away

# The commands the copy button of each block on the page copies, and the block's own source
# lines (the fenced ``console`` blocks of the page's Markdown), in page order.
_BLOCKS = """
return Array.from(document.querySelectorAll('div.highlight')).map((div, i) => {
  const code = div.querySelector('code');
  const button = div.querySelector('button.md-code__button[data-md-type="copy"]');
  return {i: i, prompts: code.querySelectorAll('.gp').length, copy: code.dataset.copy ?? null,
          button: button !== null};
});
"""

# Listen for the copy of the copy button of block ``i`` and return the button: ClipboardJS puts
# the text in a hidden textarea, selects it and runs the copy command, which the event sees.
_LISTEN = """
const div = document.querySelectorAll('div.highlight')[arguments[0]];
window.__copied = null;
document.addEventListener('copy', () => {
  const t = document.activeElement;
  window.__copied = t && 'selectionStart' in t
    ? t.value.substring(t.selectionStart, t.selectionEnd) : String(document.getSelection());
}, {once: true, capture: true});
div.scrollIntoView({block: 'center'});
return div.querySelector('button.md-code__button[data-md-type="copy"]');
"""


def _click_copy(driver: Any, i: int) -> str | None:
    """Return what the copy button of block ``i`` copies, clicked as a person clicks it."""
    from selenium.webdriver.common.action_chains import ActionChains

    button = driver.execute_script(_LISTEN, i)
    ActionChains(driver).move_to_element(button).click().perform()
    return driver.execute_script("return window.__copied")


# The rectangles of block ``i``'s text that can be seen (clipped to the code's visible box, so
# text scrolled out of view does not count) which meet the copy button's corner.
_OVERLAP = """
return Array.from(document.querySelectorAll('div.highlight')).map(div => {
const code = div.querySelector('code');
const nav = div.querySelector('.md-code__nav');
const box = code.getBoundingClientRect();
const left = box.left + code.clientLeft, top = box.top + code.clientTop;
const view = {left: left, top: top,
              right: left + code.clientWidth, bottom: top + code.clientHeight};
const b = nav.getBoundingClientRect();
const hits = [];
const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const range = document.createRange();
  range.selectNodeContents(node);
  for (const r of range.getClientRects()) {
    const x0 = Math.max(r.left, view.left), x1 = Math.min(r.right, view.right);
    const y0 = Math.max(r.top, view.top), y1 = Math.min(r.bottom, view.bottom);
    if (x1 - x0 < 1 || y1 - y0 < 1 || !node.textContent.trim()) continue;
    if (x0 < b.right && x1 > b.left && y0 < b.bottom && y1 > b.top) {
      hits.push(node.textContent.trim().slice(0, 40));
    }
  }
}
return {hits: hits, nav: [b.left, b.top, b.right, b.bottom], width: b.width};
});
"""


def _console_commands(markdown: str) -> list[list[str]]:
    """Return the commands of each fenced ``console`` block of a page's Markdown source."""
    out, block = [], None
    for line in markdown.splitlines():
        if block is None and line.strip() == "```console":
            block = []
        elif block is not None and line.strip() == "```":
            out.append(block)
            block = None
        elif block is not None and line.startswith("$ "):
            block.append(line[2:])
    return out


def _fresh_site() -> Path | None:
    """Return the site the README's test line built (``site/``) when no page source, hook or
    stylesheet changed since, else None."""
    built = ROOT / "site" / "index.html"
    if not built.is_file():
        return None
    sources = [ROOT / "mkdocs.yml", *(p for p in (ROOT / "docs").rglob("*") if p.is_file())]
    newest = max(p.stat().st_mtime for p in sources)
    return built.parent if built.stat().st_mtime > newest else None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _chromium()  # skip (or fail under CI) before building anything
    fresh = _fresh_site()
    if fresh is not None:
        return fresh
    folder = tmp_path_factory.mktemp("site")
    mkdocs = Path(sys.executable).parent / "mkdocs"
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [str(mkdocs), "build", "--strict", "-q", "--site-dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return folder


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    # the theme's web fonts and anything else off the machine fail at once (no network here)
    offline = "--host-resolver-rules=MAP * ~NOTFOUND"
    d = chrome(tmp_path_factory.mktemp("profile"), 1280, 900, offline)
    d.set_script_timeout(10)
    yield d
    d.quit()


def _shots() -> Path | None:
    folder = os.environ.get("PROJECTL_SCREENSHOTS")
    return Path(folder) if folder else None


def _open(driver: Any, site: Path, page: str, width: int) -> list[dict[str, Any]]:
    driver.set_window_size(width, 900)
    driver.get((site / page / "index.html").as_uri())
    blocks = driver.execute_script(_BLOCKS)
    assert blocks and all(b["button"] for b in blocks), f"{page}: a code block has no copy button"
    return list(blocks)


@pytest.mark.parametrize("page", PAGES)
def test_copy_buttons_copy_the_commands_only(page: str, site: Path, driver: Any) -> None:
    blocks = _open(driver, site, page, WIDTHS[0])
    expected = _console_commands((ROOT / "docs" / f"{page}.md").read_text())
    consoles = [b for b in blocks if b["prompts"]]
    assert len(consoles) == len(expected), page
    for block, commands in zip(consoles, expected, strict=True):
        copied = _click_copy(driver, block["i"])
        assert copied == "\n".join(commands), (page, block["i"])
        assert not any(line.startswith("$") for line in copied.splitlines())


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", PAGES)
def test_no_code_runs_under_the_copy_button_or_off_the_page(
    page: str, width: int, site: Path, driver: Any, tmp_path: Path
) -> None:
    blocks = _open(driver, site, page, width)
    for block, found in zip(blocks, driver.execute_script(_OVERLAP), strict=True):
        assert found["width"] > 0, (page, block["i"])
        assert not found["hits"], f"{page} at {width} px: text under the copy button: {found}"
    # a page no wider than the window: nothing runs off the column
    overflow = driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, f"{page} at {width} px scrolls sideways by {overflow} px"
    folder = _shots() or tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    time.sleep(0.3)  # the header's title settles
    name = page.replace("/", "-")
    assert driver.save_screenshot(str(folder / f"docs-{name}-{width}.png"))
