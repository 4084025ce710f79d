"""The web seat (``projectl-sim play --web``): a session's undo and refusals, the server's
loopback rules, and a whole short game played by clicks in headless Chromium.

The browser test plays seat 0 against ``random`` with a black deck of one card (the end is
triggered at once: two rounds, then Finishing Touches) by clicking only: a puzzle of a row to
take it, a piece and then a cell of one of its puzzles to place it (turning and flipping the
piece until its first square lands there), Master made the same way, and the buttons; a wrong
cell is refused with a message and nothing is played; undo takes back a placement; a hint is
asked; the record written at the end replays in the engine with its result.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them); skipped without
them on a workstation, a failure under CI. ``PROJECTL_SCREENSHOTS=DIR`` keeps a screenshot.
"""

from __future__ import annotations

import json
import os
import random
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_util import chrome
from paths import ROOT

import projectl_sim.cli.human  # noqa: F401  (registers the human seat)
from bots import make_bot
from bots.heuristics import cost_model
from bots.value import candidates, turn_after
from projectl_sim import Rules
from projectl_sim.board.position import read_position
from projectl_sim.board.winprob import evaluate_record
from projectl_sim.cli import main
from projectl_sim.engine.record import read_record, replay, state_json
from projectl_sim.engine.state_data import put
from projectl_sim.errors import BotError, IllegalActionError, RecordError
from projectl_sim.expansions.finesse import credits
from projectl_sim.web import SeatServer, Session
from projectl_sim.web.page import seat_page

SHORT = {"black_deck_2p": 1}  # the black deck is empty once dealt: the end is triggered at once


def session(path: Path, seed: int = 5) -> Session:
    rules = Rules(players=2, **SHORT)
    return Session(rules, [make_bot("human"), make_bot("random")], seed, [0], path)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[SeatServer]:
    server = SeatServer("127.0.0.1", 0)
    server.session = session(tmp_path / "game.json")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def request(url: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url.rstrip("/") + path, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


# -- the session ---------------------------------------------------------------------------------
def test_undo_replays_the_record_to_before_the_persons_last_decision(tmp_path: Path) -> None:
    s = session(tmp_path / "game.json")
    before = state_json(s.state)
    choices = s.choices()
    take = next(b for b in choices["buttons"] if b["group"] == "take")
    s.act(take["action"])
    assert state_json(s.state) != before
    assert s.undo() == take["text"]
    assert state_json(s.state) == before  # the same deal: nothing dealt again
    assert read_record(tmp_path / "game.json")["actions"] == s.record()["actions"]
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        s.undo()


def test_the_hint_is_the_value_bots_playable_choice_and_its_ranked_candidates(
    tmp_path: Path,
) -> None:
    s = session(tmp_path / "game.json")
    hint = s.hint()
    assert hint["bot"].startswith("value:")
    values = [a["value"] for a in hint["alternatives"]]
    assert 2 <= len(values) <= 6 and values == sorted(values, reverse=True)
    assert sum(a["greedy"] for a in hint["alternatives"]) <= 1
    assert s.act(hint["action"]) == hint["choice"]  # the hint is a move the page can play


def test_the_hint_scores_a_candidate_at_the_state_the_value_bot_does(tmp_path: Path) -> None:
    s = session(tmp_path / "game.json")
    bot = make_bot("value")
    view = s.state.view(s.seat)
    world = view.determinize(random.Random(3))
    for action in candidates(view, bot.greedy, cost_model(view))[:5]:
        mine = turn_after(world, action, bot.greedy, random.Random(4), bool(bot.finish))
        its = bot.after(world, action, random.Random(4))  # the bot's own
        assert state_json(mine) == state_json(its)


def test_a_saved_position_is_the_record_so_far_and_the_state_it_reaches(tmp_path: Path) -> None:
    s = session(tmp_path / "game.json")
    s.act(next(b for b in s.choices()["buttons"] if b["group"] == "take")["action"])
    path = s.save_position()
    position = json.loads(path.read_text())
    assert position["format"] == "projectl-position/1"
    assert position["step"] == len(position["record"]["actions"]) == len(s.writer.moves)
    assert state_json(replay(position["record"]).state) == position["state"]
    assert read_position(path).step == position["step"]  # the study's reader takes it


def test_the_win_chances_follow_the_steps_played_and_taken_back(tmp_path: Path) -> None:
    s = session(tmp_path / "game.json")
    s.act(next(b for b in s.choices()["buttons"] if b["group"] == "take")["action"])
    graph = s.chances()
    steps = len(s.writer.moves) + 1  # the deal, then each action
    assert [len(series) for series in graph["seats"]] == [steps, steps]
    assert all(sum(c) == pytest.approx(1.0, abs=1e-3) for c in zip(*graph["seats"], strict=True))
    # nothing is face down yet (the decks' order is not read): the seat's worlds value each
    # step as the board's evaluation of the record so far does
    _, rows, _ = evaluate_record(s.record())
    assert graph["seats"][0] == [r["win_chance"] for r in rows if r["seat"] == 0]
    s.undo()
    assert [len(series) for series in s.chances()["seats"]] == [len(s.writer.moves) + 1] * 2
    assert 'id="chance-graph"' in seat_page(s, "token")


# -- what the page may show while the game runs ----------------------------------------------------
def played_until_seat_1_completes(rules: Rules, path: Path) -> Session:
    """A session of ``rules`` (seat 0 a person choosing at random, seat 1 ``greedy``) played
    until seat 1 has a completed puzzle in its pile and the game still runs."""
    rng = random.Random(2)
    s = Session(rules, [make_bot("human"), make_bot("greedy")], 7, [0], path)
    for _ in range(200):
        if s.state.piles[1] or s.over:
            break
        c = s.choices()
        offered = [b["action"] for b in c["buttons"]]
        offered += [
            {"type": "place", "puzzle": card, **p} for card, ps in c["places"].items() for p in ps
        ]
        s.act(rng.choice(offered))
    assert s.state.piles[1] and not s.over, "seat 1 completed nothing while the game ran"
    return s


def page_states(page: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return the viewer's data a page embeds and its states rebuilt from their changes."""
    start = page.index('<script id="game" type="application/json">')
    blob = page[page.index(">", start) + 1 : page.index("</script>", start)]
    data = json.loads(blob.replace("<\\/", "</"))
    states = [data["states"][0]]
    for change in data["states"][1:]:
        state = {**states[-1], **{k: v for k, v in change.items() if k != "players"}}
        if "players" in change:
            state["players"] = [
                {**old, **new}
                for old, new in zip(states[-1]["players"], change["players"], strict=True)
            ]
        states.append(state)
    return data, states


@pytest.fixture(scope="module")
def hidden_game(tmp_path_factory: pytest.TempPathFactory) -> Session:
    rules = Rules(players=2, expansions=frozenset({"finesse"}))
    return played_until_seat_1_completes(rules, tmp_path_factory.mktemp("hidden") / "g.json")


def test_the_running_page_hides_the_rivals_piles_points_the_deal_and_face_down_tiles(
    hidden_game: Session,
) -> None:
    s = hidden_game
    page = seat_page(s, "token")
    data, states = page_states(page)
    assert '"setup"' not in page  # the record's deal (the decks' order) is not embedded
    assert data["game"]["seed"] is None  # the seed deals the decks again: their whole order
    cat = s.rules.catalogue
    last = states[-1]["players"]
    assert last[1]["completed"] == ["?"] * len(s.state.piles[1])
    assert last[0]["completed"] == [cat.puzzles[c].id for c in s.state.piles[0]]
    for state in states:
        rival = state["players"][1]
        assert rival["score"] == "?"
        assert set(rival["completed"]) <= {"?"}
        assert all(isinstance(n, int) for n in state["decks"].values())
        assert state["finesse"]["tiles"][:2] == [None, None]  # Finesse's face-down tiles
    face_down = credits(s.state).row_ids()[:2]
    assert not set(face_down) & set(data["tiles"])  # only the face-up tiles are explained
    assert set(data["tiles"]) == {t for t in states[-1]["finesse"]["tiles"] if t is not None}


def test_known_victory_points_show_the_rivals_piles_and_points(tmp_path: Path) -> None:
    s = played_until_seat_1_completes(Rules(players=2, known_victory_points=True), tmp_path / "g")
    _, states = page_states(seat_page(s, "token"))
    rival = states[-1]["players"][1]
    assert rival["completed"] == [s.rules.catalogue.puzzles[c].id for c in s.state.piles[1]]
    assert rival["score"] == s.state.scores[1]


def test_the_win_chances_of_a_running_game_do_not_move_with_the_rivals_hidden_points(
    hidden_game: Session,
) -> None:
    s = hidden_game
    before = s.chances()["seats"]
    for step in s.steps:
        # what seat 0 cannot see
        step.state.scores = put(step.state.scores, 1, step.state.scores[1] + 30)
    try:
        assert s.chances()["seats"] == before
    finally:
        for step in s.steps:
            step.state.scores = put(step.state.scores, 1, step.state.scores[1] - 30)


def test_the_record_is_served_only_once_the_game_is_over(served: SeatServer) -> None:
    s = served.session
    status, answer = request(served.url, "/record")
    assert status == 409 and "over" in answer["error"]
    assert 'href="/record"' not in seat_page(s, served.token)
    rng = random.Random(1)
    while not s.over:  # the short game: two rounds, then Finishing Touches
        c = s.choices()
        offered = [b["action"] for b in c["buttons"]]
        offered += [
            {"type": "place", "puzzle": card, **p} for card, ps in c["places"].items() for p in ps
        ]
        s.act(rng.choice(offered))
    status, answer = request(served.url, "/record")
    assert status == 200 and answer["setup"] == s.record()["setup"]
    data, states = page_states(seat_page(s, served.token))
    assert 'href="/record"' in seat_page(s, served.token)
    assert data["game"]["seed"] == s.seed  # over: everything, as the viewer shows a record
    assert states[-1]["players"][1]["score"] == s.state.final_scores()[1]


def test_an_illegal_or_malformed_action_is_refused_and_nothing_is_played(tmp_path: Path) -> None:
    s = session(tmp_path / "game.json")
    n = len(s.writer.moves)
    with pytest.raises(IllegalActionError, match="not an own unfinished puzzle"):
        s.act({"type": "place", "puzzle": "W01", "piece": "mono", "cells": [[0, 0]]})
    with pytest.raises(RecordError, match="unknown puzzle 'W99'"):
        s.act({"type": "take", "puzzle": "W99"})
    with pytest.raises(IllegalActionError, match="seat 1 is not yours"):
        s.act({"type": "take_basic", "player": 1})
    assert len(s.writer.moves) == n


EVERY = frozenset({"ghost_piece", "ambassador_pack", "finesse", "phoenix"})


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2),
        Rules(players=1, variant="solo"),
        Rules(players=5, variant="line_clear", black_deck_5p=4),
        Rules(players=3, expansions=EVERY),
    ],
    ids=["base", "solo", "line_clear", "every_expansion"],
)
def test_every_option_the_page_offers_is_played(rules: Rules, tmp_path: Path) -> None:
    """A person choosing at random among the page's options (a button, a placement, a Master
    of one placement per puzzle) plays a whole game: the page offers nothing the game refuses,
    and the saved record replays."""
    rng = random.Random(3)
    bots = [make_bot("human"), *[make_bot("random") for _ in range(rules.players - 1)]]
    s = Session(rules, bots, 11, [0], tmp_path / "game.json")
    kinds: set[str] = set()
    for _ in range(400):
        if s.over:
            break
        c = s.choices()
        offered = [b["action"] for b in c["buttons"]]
        offered += [
            {"type": "place", "puzzle": card, **p} for card, ps in c["places"].items() for p in ps
        ]
        for kind in c["multi"]:
            card, ps = rng.choice(list(c["places"].items()))
            offered.append({"type": kind, "placements": [{"puzzle": card, **rng.choice(ps)}]})
        action = rng.choice(offered)
        if c["inserts"] and rng.random() < 0.5:  # Finesse: the page's "as an Insert"
            action = {"type": "insert", "action": action}
        kinds.add(action["type"])
        s.act(action)
    assert s.over, "the game did not end in 400 of the person's decisions"
    assert {"take", "place"} <= kinds
    record = read_record(tmp_path / "game.json")
    assert replay(record, rules.catalogue).state.final_scores() == s.state.final_scores()


def test_a_bot_that_fails_stops_the_game_in_one_line_and_keeps_the_record(tmp_path: Path) -> None:
    def broken(view: Any, rng: Any) -> Any:
        raise RuntimeError("out of ideas")

    s = Session(
        Rules(players=2), [make_bot("human"), make_bot("random")], 5, [0], tmp_path / "g.json"
    )
    s.bots[1] = broken
    with pytest.raises(BotError, match="out of ideas"):
        for _ in range(4):  # the person's turn: its actions, then the bot fails
            s.act(s.choices()["buttons"][-1]["action"])
    assert s.failed.startswith("bot random (seat 1) failed: RuntimeError: out of ideas")
    assert not s.choices()["yours"]
    with pytest.raises(BotError, match="out of ideas"):
        s.act({"type": "take_basic"})
    saved = read_record(tmp_path / "g.json")["actions"]
    assert len(saved) == len(s.writer.moves) and saved[-1]["player"] == 0


def test_the_server_refuses_other_hosts_requests_without_the_token_and_bad_actions(
    served: SeatServer,
) -> None:
    token = {"X-Seat-Token": served.token}
    bad = {"action": {"type": "take", "puzzle": "W99"}}
    status, answer = request(served.url, "/act", bad, **token)
    assert status == 400 and "unknown puzzle 'W99'" in answer["error"]
    assert "\n" not in answer["error"]
    status, answer = request(served.url, "/act", {"action": {"type": "take_basic"}})
    assert status == 403 and "token" in answer["error"]
    status, answer = request(served.url, "/choices", Host="attacker.example:80")
    assert status == 403
    status, answer = request(served.url, "/choices")
    assert status == 200 and answer["yours"]


def test_play_web_refuses_a_port_in_use_and_other_hosts_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["play", "--web", "--no-browser", "--port", str(port), "--record"]
        assert main([*args, str(tmp_path / "g.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"--port {port}: the port is in use" in err
    assert not (tmp_path / "g.json").exists()  # refused before any game was dealt
    assert main(["play", "--web", "--no-browser", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "loopback interface only" in err
    assert main(["play", "--web", "--no-browser", "--bots", "random,random"]) == 2
    assert "name a human seat" in capsys.readouterr().err


def test_play_web_serves_a_game_to_its_end_then_leave_prints_the_summary(tmp_path: Path) -> None:
    """The command itself: the address printed, a game played over HTTP, leave, exit 0."""
    import re
    import subprocess
    import sys

    record = tmp_path / "g.json"
    line = "play --web --no-browser --port 0 --seed 4 --rule black_deck_2p=1 --record"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "projectl_sim", *line.split(), str(record)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        printed = [proc.stdout.readline() for _ in range(3)]
        url = re.search(r"open (http://127\.0\.0\.1:\d+/) in a browser", printed[1])
        assert url, printed
        page = urllib.request.urlopen(url.group(1), timeout=30).read().decode()
        token = re.search(r'"token":"([^"]+)"', page)
        assert token
        base, seat = url.group(1), {"X-Seat-Token": token.group(1)}
        for _ in range(30):
            choices = request(base, "/choices")[1]
            if choices["over"]:
                break
            act = {"action": choices["buttons"][-1]["action"]}
            assert request(base, "/act", act, **seat)[0] == 200
        assert choices["over"]
        assert request(base, "/leave", {}, **seat)[0] == 200
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "winners:" in out and f"record written to {record}" in out
    assert replay(read_record(record)).state.is_over


# -- in the browser --------------------------------------------------------------------------------
@pytest.fixture
def driver(tmp_path: Path) -> Iterator[Any]:
    d = chrome(tmp_path / "profile", 1400, 1000)
    d.set_page_load_timeout(30)
    yield d
    d.quit()


def seat_data(driver: Any) -> dict[str, Any]:
    return json.loads(driver.find_element("id", "seat-data").get_attribute("textContent"))


# what a click did: "played" once the page has loaded again (a new window object, without the
# mark set before the click), "error" while the old page shows an error message, "" meanwhile
_OUTCOME = """
if (window.seatMark !== true) return window.seatReady === true ? "played" : "";
return document.getElementById("seat-message").classList.contains("error") ? "error" : "";
"""


def click(driver: Any, element: Any) -> str:
    """Click ``element``; return "played" (the page loaded again) or "error" (refused)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def outcome(d: Any) -> str:
        try:
            return str(d.execute_script(_OUTCOME))
        except WebDriverException:  # between two pages
            return ""

    driver.execute_script(
        "window.seatMark = true; document.getElementById('seat-message').className = '';"
    )
    element.click()
    return str(WebDriverWait(driver, 30).until(outcome))


def click_and_reload(driver: Any, element: Any) -> None:
    """Click what plays an action and wait for the page to load again."""
    assert click(driver, element) == "played", message(driver)


def message(driver: Any) -> tuple[str, bool]:
    box = driver.find_element("id", "seat-message")
    return box.text, "error" in (box.get_attribute("class") or "")


def choose_piece(driver: Any, piece: str) -> None:
    driver.find_element("css selector", f'#seat-pieces button[data-piece="{piece}"]').click()


def place_by_clicks(driver: Any, served: SeatServer, card: str, target: dict[str, Any]) -> None:
    """Choose the piece, then click the cell of its first square, turning and flipping it until
    the page plays it (each wrong orientation is refused with a message, nothing played)."""
    seat = seat_data(driver)["choices"]["seat"]
    driver.find_element(
        "css selector", f'#seat-pieces button[data-piece="{target["piece"]}"]'
    ).click()
    r, c = min(tuple(x) for x in target["cells"])
    cell_css = (
        f'.players .panel.player[data-seat="{seat}"] .card[data-puzzle="{card}"] '
        f'.seat-cell[data-r="{r}"][data-c="{c}"]'
    )
    for k in range(8):
        n = len(served.session.writer.moves)
        if click(driver, driver.find_element("css selector", cell_css)) == "played":
            return
        text, _ = message(driver)
        assert "does not fit" in text, text
        assert len(served.session.writer.moves) == n
        driver.find_element("id", "seat-flip" if k == 3 else "seat-rotate").click()
    raise AssertionError(f"no orientation of {target['piece']} played at {card} ({r}, {c})")


def master_by_clicks(driver: Any, card: str, target: dict[str, Any]) -> None:
    """Play Master with one placement, made by clicks as a placement is, then its button."""
    driver.find_element("css selector", '#seat-multi button[data-multi="master"]').click()
    choose_piece(driver, target["piece"])
    r, c = min(tuple(x) for x in target["cells"])
    cell_css = (
        f'.players .panel.player[data-seat="0"] .card[data-puzzle="{card}"] '
        f'.seat-cell[data-r="{r}"][data-c="{c}"]'
    )
    for k in range(8):
        driver.find_element("css selector", cell_css).click()  # in Master: nothing played yet
        play = driver.find_element("id", "seat-multi-play")
        if "(1 placed)" in play.text:
            click_and_reload(driver, play)
            return
        assert "does not fit" in message(driver)[0]
        driver.find_element("id", "seat-flip" if k == 3 else "seat-rotate").click()
    raise AssertionError(f"no orientation of {target['piece']} fits {card} at ({r}, {c})")


# buttons in the order the test prefers them (a placement or a take comes first)
PREFERRED = ("take_basic", "upgrade", "take_deck", "reward", "finish", "recycle")


def test_a_whole_game_is_played_by_clicks_and_its_record_replays(
    driver: Any, served: SeatServer, tmp_path: Path
) -> None:
    driver.get(served.url)
    assert driver.execute_script("return window.seatReady === true")
    assert "Your move, seat 0" in driver.find_element("id", "seat-status").text

    # a hint from the value bot
    driver.find_element("id", "seat-hint").click()
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20).until(
        lambda d: "value would play" in d.find_element("id", "seat-hint-box").text
    )

    placed = taken = undone = wrong = mastered = 0
    for _ in range(80):
        data = seat_data(driver)
        choices = data["choices"]
        if choices["over"]:
            break
        assert choices["yours"] and choices["seat"] == 0
        mine = driver.find_elements("css selector", '.players .panel.player[data-seat="0"] .card')
        if choices["places"]:
            card, options = next(iter(choices["places"].items()))
            if not wrong:
                # a cell outside the puzzle's recess: refused with a message, nothing played
                n = len(served.session.writer.moves)
                piece = options[0]["piece"]
                choose_piece(driver, piece)
                holes = {tuple(x) for o in options for x in o["cells"]}
                r, c = next((r, c) for r in range(5) for c in range(5) if (r, c) not in holes)
                driver.find_element(
                    "css selector",
                    f'.players .panel.player[data-seat="0"] .card[data-puzzle="{card}"] '
                    f'.seat-cell[data-r="{r}"][data-c="{c}"]',
                ).click()
                text, error = message(driver)
                assert error and "does not fit" in text, text
                assert len(served.session.writer.moves) == n
                wrong += 1
            if placed == 1 and "master" in choices["multi"]:
                n = len(served.session.writer.moves)
                master_by_clicks(driver, card, options[0])
                assert served.session.writer.moves[n][1].kind == "master"
                mastered += 1
                continue
            place_by_clicks(driver, served, card, options[0])
            placed += 1
            if not undone:
                n = len(served.session.writer.moves)
                click_and_reload(driver, driver.find_element("id", "seat-undo"))
                assert len(served.session.writer.moves) < n
                assert "taken back" in message(driver)[0]
                undone += 1
            continue
        takes = choices.get("takes") or {}
        white = [card for card in takes if card.startswith("W")]
        if white and len(mine) < 2:
            css = f'.table .card.seat-take[data-puzzle="{white[0]}"]'
            click_and_reload(driver, driver.find_element("css selector", css))
            taken += 1
            continue
        buttons = driver.find_elements("css selector", "#seat-buttons button.seat-action")
        assert buttons, choices
        rank = {g: k for k, g in enumerate(PREFERRED)}
        buttons.sort(key=lambda b: rank.get(b.get_attribute("data-group"), len(PREFERRED)))
        click_and_reload(driver, buttons[0])
    else:
        raise AssertionError("the game did not end in 80 decisions")

    assert "Game over" in driver.find_element("id", "seat-status").text
    assert placed and taken and undone and wrong and mastered
    # the win-chance graph of the whole game: a line per seat through every step
    lines = driver.find_elements("css selector", "#chance-graph polyline.step")
    steps = len(read_record(tmp_path / "game.json")["actions"]) + 1
    assert len(lines) == 2
    assert all(len(line.get_attribute("points").split()) == steps for line in lines)
    shots = Path(os.environ.get("PROJECTL_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(shots / "web-seat-over.png"))

    record = read_record(tmp_path / "game.json")
    rep = replay(record)
    assert rep.state.is_over and record["result"]["scores"] == rep.state.final_scores()
    assert record["seats"][0] == "human"
    people = [a for a in record["actions"] if a["player"] == 0]
    assert any(a["type"] == "place" for a in people)
