"""The viewer's win-chance graph in headless Chromium: its cursor and legend follow the slider
and the keys, a click on the graph moves the game to that step, and the page loads nothing.

Needs Debian's ``chromium`` and ``chromium-driver`` (as ``test_view_browser``); skipped without
them on a workstation, a failure under CI.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from browser_util import chrome

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.board.position import position_of
from projectl_sim.board.winprob import evaluate_record, view_chances
from projectl_sim.view import write_view


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    seats = [make_bot("greedy"), make_bot("random"), make_bot("greedy")]
    record = play_game(Rules(players=3), seats, 4).record_json()
    _, rows, cal = evaluate_record(record)
    chances = view_chances(rows, cal, turning=[5], record=record)
    path = tmp_path_factory.mktemp("board") / "game.html"
    write_view(record, path, chances=chances)
    return path, chances


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    d = chrome(tmp_path_factory.mktemp("profile"), 1200, 900, logs=True)
    yield d
    d.quit()


def _legend(driver: Any) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#chances .legend .item'))"
        ".map(e => e.textContent)"
    )


def _cursor(driver: Any) -> float:
    return float(
        driver.execute_script(
            "return document.querySelector('#chance-graph .cursor').getAttribute('x1')"
        )
    )


def _expected(chances: dict[str, Any], k: int) -> list[str]:
    return [f"{round(100 * series[k])}%" for series in chances["seats"]]


def test_the_graph_follows_the_slider_and_a_click_moves_the_game(
    page: tuple[Path, dict[str, Any]], driver: Any
) -> None:
    from selenium.webdriver.common.keys import Keys

    path, chances = page
    last = len(chances["seats"][0]) - 1
    driver.get(path.resolve().as_uri())
    assert driver.find_element("id", "counter").text == f"step 0 / {last}"
    lines = driver.find_elements("css selector", "#chance-graph polyline.seat")
    assert len(lines) == 3  # one a seat
    legend = _legend(driver)
    assert [t.rsplit(" ", 1)[1] for t in legend] == _expected(chances, 0)
    assert legend[0].startswith("seat 0 (greedy")
    start = _cursor(driver)

    # the slider moves the cursor to the right and the legend to that step's chances
    k = last // 2
    driver.execute_script(
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        " s.dispatchEvent(new Event('input'));",
        k,
    )
    assert [t.rsplit(" ", 1)[1] for t in _legend(driver)] == _expected(chances, k)
    middle = _cursor(driver)
    assert middle > start
    driver.find_element("tag name", "body").send_keys(Keys.END)
    assert _cursor(driver) > middle
    assert [t.rsplit(" ", 1)[1] for t in _legend(driver)] == _expected(chances, last)

    # a click a quarter of the way along the graph shows that step
    driver.execute_script(
        "const g = document.getElementById('chance-graph'); const r = g.getBoundingClientRect();"
        " g.dispatchEvent(new MouseEvent('mousedown', {clientX: r.left + r.width / 4,"
        " clientY: r.top + r.height / 2, buttons: 1, bubbles: true}));"
    )
    shown = int(driver.find_element("id", "counter").text.split()[1])
    assert abs(shown - round(last / 4)) <= 1

    # the link saves the step shown as a position file that loads as that step of the record
    href = driver.find_element("id", "save-position").get_attribute("href")
    assert href.startswith("data:application/json")
    position = position_of(json.loads(unquote(href.split(",", 1)[1])))
    assert position.step == shown
    assert position.record["actions"] == chances["record"]["actions"][:shown]

    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
