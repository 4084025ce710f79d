"""Every field a record states is checked against its replay, and the doors to a run's games
(``play --from``, ``view --from``) and to puzzle points refuse what they cannot honour.

A record whose ``rounds``, ``end_reason``, ``seed`` or seats disagree with its replay is refused
by ``replay`` and ``view`` in one line (exit 1 for a disagreement, 2 for a malformed field); a
record of its seed alone replays the game its seed dealt in ``play``. ``play --from RUN`` refuses
the flags that choose a new game's rules, bots and seed, ``--game`` needs ``--from``, a game id
no table can hold is one line, and a puzzle's points beyond 99 are refused by ``play`` and
``run`` alike.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from bots import make_bot
from projectl_sim import Rules
from projectl_sim.cli import main
from projectl_sim.engine.record import RecordMismatchError, replay, write_record
from projectl_sim.errors import RecordError
from projectl_sim.sim.play import play_game

SEED = 12


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """Return the record of a finished greedy game (its setup dealt from ``SEED``)."""
    outcome = play_game(Rules(players=2), [make_bot("greedy")] * 2, SEED)
    rec = outcome.record_json()
    assert {"rounds", "end_reason"} <= set(rec["result"])
    return rec


def edited(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    for key, value in changes.items():
        if key in out["result"]:
            out["result"][key] = value
        else:
            out[key] = value
    return out


def test_a_record_replays_as_it_is(record: dict[str, Any]) -> None:
    rep = replay(record)
    assert rep.warnings == []
    assert rep.state.final_scores() == record["result"]["scores"]


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("rounds", 99, "result disagrees with the replay: rounds 99 recorded, {rounds} replayed"),
        (
            "end_reason",
            "max_rounds",
            "result disagrees with the replay: end_reason 'max_rounds' recorded, 'rules' replayed",
        ),
        ("seed", SEED + 1, f"seed {SEED + 1} does not deal the record's setup (its "),
    ],
)
def test_a_stated_field_the_replay_disagrees_with_is_refused(
    record: dict[str, Any], field: str, value: Any, why: str
) -> None:
    with pytest.raises(RecordMismatchError) as e:
        replay(edited(record, **{field: value}))
    assert str(e.value).startswith(why.format(rounds=record["result"]["rounds"]))


@pytest.mark.parametrize(
    ("seats", "why"),
    [
        (["greedy"], "seats names 1 seat for a game of 2 players"),
        (["greedy"] * 3, "seats names 3 seats for a game of 2 players"),
        ("greedy,greedy", "seats must be a list of names, one per player"),
    ],
)
def test_seats_must_be_one_name_per_player(record: dict[str, Any], seats: Any, why: str) -> None:
    with pytest.raises(RecordError, match=why):
        replay(edited(record, seats=seats))


def test_a_record_of_its_seed_alone_replays_the_game_play_dealt(record: dict[str, Any]) -> None:
    alone = {k: v for k, v in record.items() if k != "setup"}
    rep = replay(alone)
    assert rep.state.final_scores() == record["result"]["scores"]
    assert rep.state.piles == replay(record).state.piles


def test_an_unknown_result_key_or_another_catalogue_is_said(record: dict[str, Any]) -> None:
    rep = replay(edited(record, result=record["result"] | {"bonus": 3}, catalogue="mine"))
    assert rep.warnings == [
        "result key 'bonus' is not one this game's replay gives: unchecked",
        "the record was played on catalogue 'mine', replayed on 'base'",
    ]


def test_replay_and_view_refuse_a_record_that_disagrees_in_one_line(
    record: dict[str, Any], tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "game.json"
    write_record(edited(record, rounds=record["result"]["rounds"] + 1), path)
    for command in (["replay", str(path)], ["view", str(path), "-o", str(tmp_path / "g.html")]):
        assert main(command) == 1
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "result disagrees with the replay: rounds" in lines[0], lines
    assert not (tmp_path / "g.html").exists()


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (
            ["play", "--from", "{run}", "--game", "0", "--bots", "random", "--seed", "5"],
            "--from plays game 0 of {run} with the run's own rules, bots and seed: --seed, "
            "--bots cannot change them (play a new game without --from)",
        ),
        (["play", "--from", "{run}", "--game", "0", "--seed", "0"], ": --seed cannot change"),
        (["play", "--from", "{run}", "--game", "0", "--ambassador"], ": --ambassador cannot"),
        (["play", "--game", "0"], "--game goes with --from RUN (a game of a run's tables)"),
        (
            ["play", "--from", "{run}", "--game", str(10**22)],
            f"--game {10**22}: {{run}} has no such game (its game ids count from 0)",
        ),
        (["view", "--from", "{run}", "--game", str(2**63)], f"--game {2**63}: {{run}} has no"),
        (["view", "--from", "{run}", "--game", "-1"], "--game -1: {run} has no such game"),
        (
            ["play", "--bots", "random,random", "--rule", "points.W01=99999999999999999999"],
            "points.W01 must be a whole number 0-99, got 99999999999999999999",
        ),
        (
            [
                "run",
                "--bots",
                "random",
                "--players",
                "2",
                "--games",
                "1",
                "--rule",
                f"points.W01=3,{10**20}",
            ],
            f"points.W01 must be a whole number 0-99, got {10**20}",
        ),
    ],
)
def test_what_a_game_door_cannot_honour_is_one_line(
    tmp_path: Path, capsys: Any, args: list[str], why: str
) -> None:
    run = str(tmp_path / "run")
    given = [a.format(run=run) for a in args]
    if given[0] == "run":
        given += ["--out", run, "--quiet"]
    assert main(given) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert why.format(run=run) in lines[0]
    assert not Path(run).exists()


def test_play_from_a_run_replays_its_game_with_the_flags_it_allows(
    tmp_path: Path, capsys: Any
) -> None:
    run = tmp_path / "run"
    assert main(["run", "--bots", "greedy", "--players", "2", "--games", "1", "--seed", "3",
                 "--jobs", "1", "--quiet", "--out", str(run)]) == 0  # fmt: skip
    capsys.readouterr()
    path = tmp_path / "again.json"
    assert main(["play", "--from", str(run), "--game", "0", "--json", "--record", str(path)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["scores"] == replay(json.loads(path.read_text())).state.final_scores()
