"""The result check (``engine.result_check``): every configuration's honest games pass it, and
the bots that bend a game past their view (the rules object it shares, the real state found
through ``gc``) are found by it, in a run as error rows naming their seat, never as numbers."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from fault_bots import GcPiecesBot, GcScoreBot, GcTakeBot, RulesWriterBot
from paths import TESTS
from test_combinations import COMBINATIONS, _name

from bots import make_bot
from bots.random_bot import RandomBot
from projectl_sim import Rules
from projectl_sim.cli import main
from projectl_sim.engine.result_check import (
    ResultError,
    check_result,
    rules_digest,
    rules_print,
)
from projectl_sim.sim import play, runner, tables, workers
from projectl_sim.sim import task as run_task
from projectl_sim.sim.play import play_game
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec, plan

FAULT_BOTS = str(TESTS / "fault_bots.py")


@pytest.mark.parametrize("rules", COMBINATIONS, ids=_name)
def test_honest_games_of_every_combination_pass(rules: Rules) -> None:
    expected = rules_print(rules)
    for seed in (1, 2):
        outcome = play_game(rules, [make_bot("random")] * rules.players, seed)
        run_task.checked(outcome, rules, expected)


def test_a_game_cut_off_at_the_decision_cap_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play, "MAX_DECISIONS", 30)
    rules = Rules(players=2)
    expected = rules_print(rules)
    outcome = play_game(rules, [RandomBot(), RandomBot()], 4)
    assert outcome.state.end_reason == "max_decisions"
    run_task.checked(outcome, rules, expected)


def bent(cheat: Any, rules: Rules, seed: int = 3) -> tuple[Any, str]:
    """Play ``cheat`` in seat 0 (random bots in the others); return the outcome and what the
    check says."""
    expected = rules_print(rules)
    outcome = play_game(rules, [cheat] + [RandomBot() for _ in range(rules.players - 1)], seed)
    with pytest.raises(ResultError) as caught:
        run_task.checked(outcome, rules, expected)
    return outcome, str(caught.value)


def test_the_check_finds_what_each_cheat_bent() -> None:
    # each cheat changed the game (the state or the rules it shows), and the check says how
    outcome, why = bent(RulesWriterBot(), Rules(players=2))
    assert outcome.state.rules.actions_per_turn == 5
    assert why == "the rules changed during the game: rules.actions_per_turn was 3, is 5"
    outcome, why = bent(GcScoreBot(), Rules(players=2))
    pile = sum(outcome.state.tables.points[c] for c in outcome.state.piles[0])
    assert outcome.state.scores[0] > pile + 100
    assert why.startswith("the final state breaks an invariant: player 0: score ")
    outcome, why = bent(GcPiecesBot(), Rules(players=2, expansions={"finesse"}))
    assert why.startswith("the final state breaks an invariant: mono: ")
    assert why.endswith(" copies accounted for, not 15")
    # a piece moved from the reserve keeps every count conserved: only the replay shows it
    outcome, why = bent(GcTakeBot(), Rules(players=1, variant="solo"), seed=5)
    assert why.startswith("replaying its recorded actions gives other "), why


def test_a_changed_table_or_catalogue_is_a_changed_rule() -> None:
    rules = Rules(players=2)
    expected = rules_print(rules)
    outcome = play_game(rules, [RandomBot(), RandomBot()], 2)
    piece = rules.catalogue.pieces[0]
    object.__setattr__(piece, "copies", piece.copies + 1)
    try:
        with pytest.raises(ResultError, match=r"rules changed during the game: catalogue\.pieces"):
            check_result(outcome.state, rules, expected, outcome.record.setup, outcome.record.moves)
        assert rules_digest(rules) != rules_digest(Rules(players=3))
    finally:
        object.__setattr__(piece, "copies", piece.copies - 1)
    assert expected.changed(rules) is None
    # the compiled tables refuse even ``object.__setattr__``; from the source it goes through
    tables = outcome.state.tables
    points = tables.points
    try:
        object.__setattr__(tables, "points", (100,) * len(points))
    except (AttributeError, TypeError):
        return
    try:
        assert (expected.changed(rules) or "").startswith("tables.points was (")
    finally:
        object.__setattr__(tables, "points", points)


@pytest.mark.parametrize(
    ("cheat", "what", "records"),
    [
        ("RulesWriterBot", "the rules changed during the game", False),
        ("GcScoreBot", "is not its completed puzzles' points", False),
        ("GcPiecesBot", "copies accounted for", False),
        # every count conserved: found by the replay of the record the run writes
        ("GcTakeBot", "replaying its recorded actions", True),
    ],
)
def test_a_bent_game_is_an_error_row_naming_the_seat_that_bent_it(
    cheat: str, what: str, records: bool
) -> None:
    # what a worker sends back: no score, the seat found by playing the game again
    spec = RunSpec.from_mapping(
        {"bots": [f"random,{FAULT_BOTS}:{cheat}"], "players": [2], "games": 2, "seed": 1}
    )
    configs, tasks = plan(spec, 1)
    try:
        for t in tasks:
            config = configs[t.config_id]
            task = dataclasses.replace(t, record=records)
            result = run_task.play_task(task, config, "test", flow=False)
            seat = config.seated(t.rotation).index(f"{FAULT_BOTS}:{cheat}")
            assert result.replace_worker
            assert result.game["error_seat"] == seat
            error = result.game["error"]
            assert error.startswith(f"bot {FAULT_BOTS}:{cheat} (seat {seat}, game seed {t.seed})")
            assert what in error and error.endswith("; its worker was replaced")
            assert [row["score"] for row in result.seats] == [None, None]
            assert result.game["winners"] is None and result.game["rounds"] == 1
            if records:  # its actions are kept, without the bent game's result
                assert result.record is not None and "result" not in result.record
                assert result.record["actions"]
    finally:
        # the rules writer bent this process's rules of the configuration: built again
        run_task.rules_of.cache_clear()
        run_task.first_print.cache_clear()


def test_a_rules_writer_in_a_run_is_error_rows_and_the_honest_games_keep_their_numbers(
    tmp_path: Path,
) -> None:
    # the writer bends the rules object its worker shares between games: each game it plays is
    # an error row, and the worker it bent is replaced, so the games after it are played under
    # the rules their rows name (those of the other configuration are the games played here)
    cheat = f"{FAULT_BOTS}:RulesWriterBot"
    spec = RunSpec.from_mapping(
        {"bots": [f"{cheat},random", "random,random"], "players": [2], "games": 1, "seed": 5}
    )
    out = tmp_path / "run"
    result = runner.run(spec, out, options=RunOptions(jobs=1, quiet=True))
    games = tables.read_table(out, "games").to_pylist()
    assert result.complete and result.failed == sum(cheat in g["seats"] for g in games) > 0
    seats = tables.read_table(out, "seats").to_pylist()
    configs, tasks = plan(spec, tables.read_manifest(out)["root_seed"])
    for g, t in zip(games, tasks, strict=True):
        lineup = g["seats"].split(",")
        if cheat not in lineup:
            assert g["error"] is None
            mine = run_task.play_task(t, configs[t.config_id], "x", flow=False)
            theirs = sorted((s for s in seats if s["game_id"] == g["game_id"]), key=seat_of)
            assert [s["score"] for s in theirs] == [s["score"] for s in mine.seats]
            continue
        seat = lineup.index(cheat)
        assert g["error_seat"] == seat and g["winners"] is None and g["margin"] is None
        assert g["error"].startswith(f"bot {cheat} (seat {seat}, game seed {g['seed']}) bent")
        assert "rules.actions_per_turn was 3, is 5; its worker was replaced" in g["error"]
    assert all(s["score"] is None for s in seats if s["error"] is not None)


def seat_of(row: dict[str, Any]) -> int:
    return int(row["seat"])


def test_the_worker_that_played_a_bent_game_is_replaced() -> None:
    # the writer's two games (one a seat): each bends its worker's rules, so each is played by
    # a worker of its own, and the one that played the first is gone
    spec = RunSpec.from_mapping(
        {"bots": [f"{FAULT_BOTS}:RulesWriterBot,random"], "players": [2], "games": 2, "seed": 2}
    )
    configs, tasks = plan(spec, 1)
    job = workers.Job({c.config_id: c for c in configs}, "test", workers.Limits())
    kept: list[Any] = []
    pool = workers.Pool(1, job, idle=kept)
    played_by = []
    try:
        for result in pool.play(tasks):
            assert result.game["error"] is not None and result.replace_worker
            played_by.append(pool.workers[0].proc)
        assert len(played_by) == 2 and played_by[0].pid != played_by[1].pid
        assert played_by[0].poll() is not None  # the first retired: its process ended
        assert [w.proc.pid for w in kept] != [played_by[1].pid]  # and so did the second's
    finally:
        for worker in kept:
            worker.kill()


def test_a_worker_whose_rules_differ_from_the_parents_refuses_the_run() -> None:
    spec = RunSpec.from_mapping({"bots": ["random"], "players": [2], "games": 1, "seed": 1})
    configs, tasks = plan(spec, 1)
    job = workers.Job(
        {c.config_id: c for c in configs}, "test", workers.Limits(), digests={0: "0" * 16}
    )
    with pytest.raises(workers.WorkerError, match="the rules of configuration 0 built in a worker"):
        list(workers.Pool(1, job, idle=[]).play(tasks))


def test_play_refuses_a_bent_game_in_one_line(capsys: Any) -> None:
    code = main(["play", "--bots", f"{FAULT_BOTS}:GcScoreBot,random", "--seed", "3"])
    err = capsys.readouterr().err
    assert code == 1
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    # play checks the invariants after every decision: the cheat is caught at the seat's own
    assert "broke its invariants" in lines[0] and "after seat 0's decision" in lines[0]
    assert "a bot that reached into the game's state" in lines[0]


def test_a_rules_print_is_a_tuple_of_named_fields() -> None:
    # every field of Rules is in the print: a new one cannot be left out of the check
    names = set(rules_print(Rules(players=2)).names())
    assert {f"rules.{f.name}" for f in dataclasses.fields(Rules)} <= names
