"""The replay viewer in headless Chromium: a base, a solo, a Line Clear and an all-expansions game,
each stepped to its end with the keys, the buttons and the slider; the scores shown must be the
record's, the page must load nothing, and a screenshot of each is taken. The action list keeps
the current step in view (in the list and in the window), and a past Finesse tile stays readable.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them); skipped without
them on a workstation, a failure under CI. ``PROJECTL_SCREENSHOTS=DIR`` keeps the screenshots
there (``viewer-<game>.png``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_util import chrome

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.view import write_view

EVERY = ("ghost_piece", "ambassador_pack", "finesse", "phoenix")

GAMES: dict[str, tuple[Rules, list[str], int]] = {
    "base": (Rules(players=2), ["greedy", "random"], 7),
    "solo": (Rules(players=1, variant="solo", difficulty="hard"), ["greedy"], 3),
    "line_clear": (Rules(players=5, variant="line_clear"), ["greedy", "random", "greedy"], 2),
    "all": (Rules(players=3, expansions=frozenset(EVERY)), ["greedy", "random", "greedy"], 3),
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("viewer")
    out = {}
    for name, (rules, bots, seed) in GAMES.items():
        seats = [make_bot(bots[p % len(bots)]) for p in range(rules.players)]
        record = play_game(rules, seats, seed, timed=True).record_json()
        path = folder / f"{name}.html"
        write_view(record, path, rules.catalogue)
        out[name] = (path, record)
    return out


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    d = chrome(tmp_path_factory.mktemp("profile"), 1400, 1000, logs=True)
    yield d
    d.quit()


def _text(driver: Any, element_id: str) -> str:
    return str(driver.find_element("id", element_id).text)


def _scores(driver: Any) -> dict[str, int]:
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('.score[data-seat]'))"
        ".map(e => [e.dataset.seat, e.textContent])"
    )
    return {seat: int(text) for seat, text in shown}


@pytest.mark.parametrize("name", list(GAMES))
def test_the_viewer_steps_to_the_end_and_shows_the_records_scores(
    name: str, pages: dict[str, tuple[Path, dict[str, Any]]], driver: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys

    path, record = pages[name]
    page = path.read_text(encoding="utf-8")
    assert "http" not in page.lower()  # nothing to fetch: no URL at all
    assert " src=" not in page and " href=" not in page
    driver.get(path.resolve().as_uri())
    n = len(record["actions"])
    assert _text(driver, "counter") == f"step 0 / {n}"
    assert "The setup" in _text(driver, "caption")
    body = driver.find_element("tag name", "body")

    # the arrow keys step one action; the buttons and the slider move too
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert _text(driver, "counter") == f"step 2 / {n}"
    driver.find_element("id", "prev").click()
    assert _text(driver, "counter") == f"step 1 / {n}"
    driver.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        " s.dispatchEvent(new Event('input'));",
        n // 2,
    )
    assert _text(driver, "counter") == f"step {n // 2} / {n}"
    shot_dir = Path(os.environ.get("PROJECTL_SCREENSHOTS") or tmp_path)
    shot_dir.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(shot_dir / f"viewer-{name}.png"))

    body.send_keys(Keys.END)
    assert _text(driver, "counter") == f"step {n} / {n}"
    caption = _text(driver, "caption")
    result = record["result"]
    scores = _scores(driver)
    assert [scores[str(p)] for p in range(len(result["scores"]))] == result["scores"]
    if name == "solo":
        assert scores["opponent"] == result["opponent"]["score"]
        assert ("mastermind wins" in caption) == (result["winners"] == [])
    else:
        assert f"seat {result['winners'][0]} (" in caption
    driver.find_element("id", "next").click()  # past the end: stays there
    assert _text(driver, "counter") == f"step {n} / {n}"
    driver.find_element("id", "first").click()
    assert _text(driver, "counter") == f"step 0 / {n}"
    driver.find_element("id", "last").click()
    assert _scores(driver) == scores

    board = _text(driver, "board")
    shown = {
        "solo": ["Solo grid", "locks above the columns", "the mastermind"],
        "line_clear": ["white marker", "black marker", "right"],
        "all": ["Finesse", "bank:", "Credits", "Ambassadors", "Ghost actions"],
        "base": ["white row", "black row", "victory pile", "Reserve"],
    }[name]
    for words in shown:
        assert words in board, words
    # the page fetched nothing and logged no error
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


# where the current step of the action list is, against the list's box and the window
_CURRENT_IN_VIEW = """
const li = document.querySelector('#actions li.current');
if (!li) return null;
const r = li.getBoundingClientRect(), box = document.getElementById('log').getBoundingClientRect();
return {inPane: r.top >= box.top && r.bottom <= box.bottom,
        inWindow: r.top >= 0 && r.bottom <= window.innerHeight, text: li.textContent};
"""

# each past Finesse tile: its opacity with its ancestors', and its text's contrast with its
# background (WCAG's ratio of relative luminances)
_PAST_TILES = """
function rgb(c) { return c.match(/[\\d.]+/g).slice(0, 3).map(Number); }
function lum(c) {
  const v = rgb(c).map(x => {
    x /= 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}
return Array.from(document.querySelectorAll('.tile.gone')).map(t => {
  let opacity = 1;
  for (let e = t; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
  const s = getComputedStyle(t);
  const [a, b] = [lum(s.color), lum(s.backgroundColor)].sort((x, y) => y - x);
  return {opacity: opacity, contrast: (a + 0.05) / (b + 0.05), text: t.textContent};
});
"""


def test_the_action_list_follows_the_step_and_past_tiles_stay_readable(
    pages: dict[str, tuple[Path, dict[str, Any]]], driver: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.keys import Keys

    path, record = pages["all"]
    n = len(record["actions"])
    driver.set_window_size(1400, 800)
    driver.get(path.resolve().as_uri())
    body = driver.find_element("tag name", "body")
    for at in (n // 3, n // 2, n - 5, n):  # jumps, keys and the slider: the step is in view
        driver.execute_script(
            "const s = document.getElementById('slider'); s.value = arguments[0];"
            " s.dispatchEvent(new Event('input'));",
            at,
        )
        body.send_keys(Keys.ARROW_LEFT)
        body.send_keys(Keys.ARROW_RIGHT)
        where = driver.execute_script(_CURRENT_IN_VIEW)
        assert where and where["inPane"] and where["inWindow"], (at, where)
    body.send_keys(Keys.END)
    tiles = driver.execute_script(_PAST_TILES)
    assert tiles, "a finished Finesse game has past tiles"
    for tile in tiles:
        assert tile["opacity"] >= 0.9 and tile["contrast"] >= 4.5, tile
        assert "past" in tile["text"], tile  # told apart from the coming ones in words
    shot_dir = Path(os.environ.get("PROJECTL_SCREENSHOTS") or tmp_path)
    shot_dir.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(shot_dir / "viewer-all-end.png"))


# the caption's box against the toolbar's and the window, and the step shown
_CAPTION = """
const c = document.getElementById('caption').getBoundingClientRect();
const bar = document.getElementById('controls').getBoundingClientRect();
return {below: c.top >= bar.bottom - 1, inWindow: c.bottom <= window.innerHeight,
        counter: document.getElementById('counter').textContent};
"""


@pytest.mark.parametrize("size", [(1400, 800), (700, 900)], ids=["wide", "narrow"])
def test_the_address_names_the_step_on_opening_and_when_it_changes(
    size: tuple[int, int], pages: dict[str, tuple[Path, dict[str, Any]]], driver: Any
) -> None:
    path, record = pages["base"]
    n = len(record["actions"])
    far = n - 10  # a step near the end: its line is low in the action list
    uri = path.resolve().as_uri()
    driver.set_window_size(*size)
    driver.get("about:blank")
    driver.get(f"{uri}#{far}")
    where = driver.execute_script(_CAPTION)
    assert where["counter"] == f"step {far} / {n}"
    assert where["below"] and where["inWindow"], where  # the caption is not under the toolbar
    # a new address on the open page moves to its step (typed, a link): forward and back
    driver.execute_script("location.hash = '#10'")
    assert driver.execute_script(_CAPTION)["counter"] == f"step 10 / {n}"
    driver.get(f"{uri}#50")
    assert driver.execute_script(_CAPTION)["counter"] == f"step 50 / {n}"
    driver.back()
    assert driver.execute_script(_CAPTION)["counter"] == f"step 10 / {n}"
    body = driver.find_element("tag name", "body")
    from selenium.webdriver.common.keys import Keys

    body.send_keys(Keys.ARROW_RIGHT)  # the address follows the step
    assert driver.current_url.endswith("#11")
    driver.execute_script("location.hash = '#nonsense'")  # not a step: stays
    assert driver.execute_script(_CAPTION)["counter"] == f"step 11 / {n}"
