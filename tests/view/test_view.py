"""The replay viewer's data and page (without a browser), the ``view`` command, decision times in
records, and taking back actions in ``play_game``."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records_util import load, prefix

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.cli import main
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action, TakeBasic, TakeDeck
from projectl_sim.engine.record import read_record, replay, state_json, summary_json, write_record
from projectl_sim.errors import RecordError
from projectl_sim.sim import runner
from projectl_sim.sim.play import TAKE_BACK, BotError, TakeBacks
from projectl_sim.sim.spec import RunSpec
from projectl_sim.view import page_html, view_data


def rebuild(packed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rebuild the full states from the page's first state and deltas (as viewer.js does)."""
    states = [packed[0]]
    for change in packed[1:]:
        prev = states[-1]
        nxt = {k: v for k, v in prev.items() if k != "players"}
        for k, v in change.items():
            if k != "players":
                if v is None:
                    nxt.pop(k, None)
                else:
                    nxt[k] = v
        players = []
        for seat, row in enumerate(prev["players"]):
            row = dict(row)
            for k, v in (change.get("players") or [{}] * len(prev["players"]))[seat].items():
                if v is None:
                    row.pop(k, None)
                else:
                    row[k] = v
            players.append(row)
        nxt["players"] = players
        states.append(nxt)
    return states


def states_of(record: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    replay(record, on_step=lambda state, player, action: out.append(state_json(state)))
    return out


def without_nulls(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if v is not None}


GOLDEN = ["master", "reward_choice", "solo_end", "finesse_tile_X04", "finesse_solo_mastermind"]


@pytest.mark.parametrize("name", [*GOLDEN, "ghost/level_up_order", "line_clear/markers"])
def test_the_pages_states_are_the_engines_after_every_action(name: str) -> None:
    record = load(name)
    data = view_data(record)
    full = states_of(record)
    assert len(data["steps"]) == len(record["actions"]) == len(full) - 1
    assert rebuild(data["states"]) == [without_nulls(s) for s in full]
    final = summary_json(replay(record))
    assert full[-1]["players"] == final["players"]
    assert [s["player"] for s in data["steps"]] == [a["player"] for a in record["actions"]]


def test_a_game_left_unfinished_is_viewed_up_to_its_last_action() -> None:
    record = prefix(load("master"), 9)  # no result: a game a person left
    data = view_data(record)
    assert len(data["steps"]) == 9 and len(data["states"]) == 10
    assert data["game"]["result"] is None
    assert rebuild(data["states"])[-1]["phase"] != "over"


def test_a_state_shows_placed_pieces_rows_decks_and_the_reserve() -> None:
    record = load("master")
    states = states_of(record)
    placed = [p for s in states for row in s["players"] for p in row["placed"].values() if p]
    assert placed and all({"piece", "cells"} <= set(p[0]) for p in placed)
    first = states[0]
    assert len(first["rows"]) == 1 and len(first["rows"][0]["white"]) == 4
    assert first["decks"]["white"] == len(record["setup"]["white_deck"]) - 4
    assert sum(first["reserve"].values()) == 135 - 2 * 2
    lc = states_of(load("line_clear/markers"))
    assert len(lc[0]["rows"]) == 2 and len(lc[0]["rows"][1]["black"]) == 3


def test_steps_say_what_happened_beyond_the_action() -> None:
    data = view_data(load("solo_end"))
    words = " ".join(e for s in data["steps"] for e in s["events"])
    assert "the mastermind takes" in words and "the game ends" in words
    assert all(s["text"] for s in data["steps"])
    base = view_data(load("place_and_complete"))
    assert any(e.startswith("seat 0 completes") for s in base["steps"] for e in s["events"])
    record = load("endless/reshuffle")
    said = [e for s in view_data(record)["steps"] for e in s["events"] if "noted" in e]
    noted = "the completed white puzzles are noted and shuffled into a new white deck"
    assert said == [noted] * record["result"]["reshuffles"]


@pytest.mark.parametrize("name", ["recycle", "finesse_tile_X01", "ghost/level_up_order", "master"])
def test_every_action_is_told_in_words_not_a_record_token(name: str) -> None:
    record = load(name)
    texts = [s["text"] for s in view_data(record)["steps"]]
    tokens = [t for text in texts for t in re.findall(r"\b[a-z]+_[a-z_]+\b", text)]
    assert tokens == [], tokens  # (piece ids read tri_L: a capital after the underscore)
    basic = [t for a, t in zip(record["actions"], texts, strict=True) if a["type"] == "take_basic"]
    assert all(t == "take a level-1 piece" for t in basic)
    assert basic or name != "recycle"


def test_the_page_is_one_file_with_its_data_escaped() -> None:
    record = load("master")
    record["seats"] = ["</script><b>x", "random"]
    page = page_html(view_data(record))
    assert page.count("</script>") == 2  # the data's own "</" is escaped
    assert "http" not in page.lower()
    blob = page.split('type="application/json">', 1)[1].split("</script>", 1)[0]
    assert json.loads(blob)["game"]["seats"][0] == "</script><b>x"


def test_timed_records_carry_each_decisions_seconds_and_replay() -> None:
    bots = [make_bot("random"), make_bot("random")]
    timed = play_game(Rules(players=2), bots, 5, timed=True).record_json()
    plain = play_game(Rules(players=2), bots, 5).record_json()
    assert all(isinstance(a["seconds"], float) and a["seconds"] >= 0 for a in timed["actions"])
    assert not any("seconds" in a for a in plain["actions"])
    assert [{k: v for k, v in a.items() if k != "seconds"} for a in timed["actions"]] == plain[
        "actions"
    ]
    data = view_data(timed)
    assert all("seconds" in s for s in data["steps"])
    for bad in (-1, "fast", True, float("nan")):
        broken = json.loads(json.dumps(timed))
        broken["actions"][3]["seconds"] = bad
        with pytest.raises(RecordError, match="action 3: seconds must be a number"):
            replay(broken)


def test_view_command_writes_a_page_and_errors_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "game.json"
    write_record(load("master"), rec)
    assert main(["view", str(rec)]) == 0
    assert "game.html" in capsys.readouterr().out
    assert (tmp_path / "game.html").read_text().startswith("<!DOCTYPE html>")
    assert main(["view", str(rec), "-o", str(tmp_path / "other.html")]) == 0
    assert (tmp_path / "other.html").exists()
    capsys.readouterr()
    bad = load("master")
    bad["actions"][2]["puzzle"] = "B01"
    write_record(bad, tmp_path / "bad.json")
    for argv, code in (
        (["view", str(tmp_path / "bad.json")], 1),
        (["view"], 2),
        (["view", str(tmp_path / "missing.json")], 2),
        (["view", str(rec), "--game", "3"], 2),
    ):
        assert main(argv) == code, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("projectl-sim: error: "), err


def test_view_from_a_run_uses_its_record_or_plays_the_row_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = RunSpec.from_mapping(
        {"bots": ["greedy,random"], "players": [2], "games": 2, "seed": 4, "records": "sample:1"}
    )
    out = tmp_path / "run"
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    written = sorted((out / "records").glob("game-*.json"))
    assert [f.name for f in written] == ["game-00000000.json"]
    assert all("seconds" in a for a in read_record(written[0])["actions"])
    assert main(["view", "--from", str(out), "--game", "0"]) == 0
    assert (out / "records" / "game-00000000.html").exists()
    captured = capsys.readouterr()
    assert "played it again" not in captured.err
    assert main(["view", "--from", str(out), "--game", "1", "-o", str(tmp_path / "g1.html")]) == 0
    assert "played it again from its row" in capsys.readouterr().err
    page = (tmp_path / "g1.html").read_text()
    data = json.loads(page.split('type="application/json">', 1)[1].split("</script>", 1)[0])
    record, _, _ = runner.record_from_run(out, 1)
    assert data["game"]["result"]["scores"] == record["result"]["scores"]
    assert main(["view", "--from", str(out)]) == 2
    assert main(["view", "--from", str(out), "--game", "99"]) == 2


# -- taking actions back ------------------------------------------------------------------------
class Scripted:
    """A seat that answers from a script of functions of its view, then plays randomly."""

    def __init__(self, script: list[Callable[[GameState], Action]]) -> None:
        self.script = list(script)
        self.random = make_bot("random")

    def __call__(self, view: GameState, rng: random.Random) -> Action:
        if self.script:
            return self.script.pop(0)(view)
        return self.random(view, rng)


def test_a_seat_takes_back_its_last_actions_of_a_turn() -> None:
    rules = Rules(players=2)
    seen: list[list[str]] = []
    backs = TakeBacks([0, 1])

    def note(view: GameState) -> Action:
        seen.append(backs.available(view.current))
        return TAKE_BACK

    # seed 11: seat 0 starts; Upgrade A twice, both taken back, then a blind take (a card seen)
    script: list[Callable[[GameState], Action]] = [
        lambda v: TakeBasic(),
        lambda v: TakeBasic(),
        note,
        note,
        lambda v: TakeDeck(0),
        lambda v: TakeBasic(),
        lambda v: TakeBasic(),
    ]
    game = play_game(rules, [Scripted(script), make_bot("random")], 11, take_backs=backs)
    record = game.record_json()
    assert record["actions"][0]["player"] == 0
    assert [a["type"] for a in record["actions"][:3]] == ["take", "take_basic", "take_basic"]
    assert seen == [["take a level-1 piece"] * 2, ["take a level-1 piece"]]
    # the taken-back actions left no trace: the record replays to the game played
    assert replay(record).state.final_scores() == game.state.final_scores()


def test_nothing_is_taken_back_past_a_drawn_card_or_another_seats_move() -> None:
    rules = Rules(players=2)
    backs = TakeBacks([0, 1])
    script: list[Callable[[GameState], Action]] = [lambda v: TakeDeck(0), lambda v: TAKE_BACK]
    with pytest.raises(BotError, match="cannot take back: a card was drawn since"):
        play_game(rules, [Scripted(script), Scripted(script)], 11, take_backs=backs)
    with pytest.raises(BotError, match="cannot take back: no seat may here"):
        play_game(rules, [Scripted([lambda v: TAKE_BACK])] * 2, 11)
    # Line Clear: the white holder acts, the black holder acts, then the white holder asks
    five = Rules(players=5, variant="line_clear")
    seats = [Scripted([lambda v: TakeBasic(), lambda v: TAKE_BACK]) for _ in range(5)]
    with pytest.raises(BotError, match=r"\(seat 3\) cannot take back: seat 0 moved since"):
        play_game(five, seats, 11, take_backs=TakeBacks(range(5)))
