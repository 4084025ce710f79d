"""The flow tables (events, rounds): consistent with the seats and games, deterministic for any
number of jobs, kept through resume and growth, left out by ``--tables core``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pandas as pd
import pytest

from bots import make_bot
from projectl_sim import Expansion, GameState, Rules, play_game
from projectl_sim.analysis.data import load_run
from projectl_sim.cli import main
from projectl_sim.errors import UsageError
from projectl_sim.options import Column
from projectl_sim.registry import register_expansion, unregister_expansion
from projectl_sim.sim import runner, tables
from projectl_sim.sim.flow import FlowRecorder
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec


def spec(**settings: Any) -> RunSpec:
    base = {"bots": ["greedy,random"], "players": [2, 3], "games": 6, "seed": 5}
    return RunSpec.from_mapping(base | settings)


def play(out: Path, run_spec: RunSpec | None, jobs: int = 1, **kw: Any) -> runner.RunResult:
    return runner.run(run_spec, out, options=RunOptions(jobs=jobs, quiet=True, **kw), **{})


@pytest.fixture(scope="module")
def flow_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("flow") / "run"
    play(out, spec(), jobs=1)
    return out


def frames(run_dir: Path) -> dict[str, pd.DataFrame]:
    return {name: tables.read_table(run_dir, name).to_pandas() for name in tables.TABLES}


def ids(cell: object) -> list[str]:
    return cell.split() if isinstance(cell, str) else []


def test_events_match_the_seat_rows(flow_run: Path) -> None:
    t = frames(flow_run)
    seats, events, rounds = t["seats"], t["events"], t["rounds"]
    assert len(events) and len(rounds)
    for (game, seat), row in seats.set_index(["game_id", "seat"]).iterrows():
        mine = events[(events["game_id"] == game) & (events["seat"] == seat)]
        done = mine.loc[mine["event"] == "completed", "card"].tolist()
        left = mine.loc[mine["event"] == "unfinished", "card"].tolist()
        assert done == ids(row["puzzles_completed"]), (game, seat)
        assert sorted(left) == sorted(ids(row["puzzles_unfinished"])), (game, seat)
        taken = mine.loc[mine["event"] == "taken", "card"].tolist()
        assert sorted(taken) == sorted(
            done + left + mine.loc[mine["event"] == "discarded", "card"].tolist()
        )
        assert len(done) == row["completed_white"] + row["completed_black"]
        # one reward per completion (the base game: every puzzle shows a piece)
        assert (mine["event"] == "reward").sum() == len(done)
        recycled = (mine["event"] == "recycled").sum()
        assert recycled >= row["actions_recycle"]  # a row of one card or more per Recycle
    done = events[events["event"] == "completed"]
    assert (done["actions"] >= 1).all() and (done["taken_round"] <= done["round"]).all()
    assert (
        events.groupby("game_id")["event_index"].apply(lambda s: list(s) == list(range(len(s))))
    ).all()


def test_rounds_end_on_the_final_scores(flow_run: Path) -> None:
    t = frames(flow_run)
    seats, rounds, games = t["seats"], t["rounds"], t["games"]
    final = rounds[rounds["final"]].set_index(["game_id", "seat"]).sort_index()
    by_seat = seats.set_index(["game_id", "seat"]).sort_index()
    assert final["score"].equals(by_seat["score"])
    assert final["points"].equals(by_seat["points_from_puzzles"])
    assert final["pieces"].equals(by_seat["pieces_final"])
    # one row per seat and round: rounds 1..games.rounds
    count = rounds.groupby("game_id").size()
    expected = games.set_index("game_id").eval("rounds * players")
    assert count.sort_index().equals(expected.sort_index())
    # a seat's victory-pile points never go down from one round to the next
    assert (
        rounds.sort_values(["game_id", "seat", "round"])
        .groupby(["game_id", "seat"])["points"]
        .diff()
        .fillna(0)
        >= 0
    ).all()


def test_flow_tables_are_the_same_for_two_jobs(flow_run: Path, tmp_path: Path) -> None:
    play(tmp_path / "j2", spec(), jobs=2)
    one, two = frames(flow_run), frames(tmp_path / "j2")
    for name in tables.FLOW_TABLES:
        assert one[name].equals(two[name]), name


def test_flow_tables_survive_resume_and_growth(flow_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "grown"
    play(out, spec(games=3))
    assert main(["run", "--out", str(out), "--resume", "--games", "6", "--quiet"]) == 0
    grown, whole = frames(out), frames(flow_run)
    key = ["config_id", "deal", "rotation"]
    ids = grown["games"].set_index("game_id")[key]
    ref = whole["games"].set_index("game_id")[key]
    to_ref = {g: ref.index[(ref == ids.loc[g]).all(axis=1)][0] for g in ids.index}
    for name in tables.FLOW_TABLES:
        mine = grown[name].assign(game_id=grown[name]["game_id"].map(to_ref))
        sort = tables.SORT_KEYS[name]
        mine = mine.sort_values([k for k, _ in sort]).reset_index(drop=True)
        assert mine.equals(whole[name]), name


def test_tables_core_writes_no_flow_table(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "core"
    play(out, spec(tables="core", games=2))
    assert not list(out.glob("events.*")) and not list(out.glob("rounds.*"))
    assert load_run(out).events is None and load_run(out).rounds is None
    with pytest.raises(UsageError, match="--tables core"):
        tables.read_table(out, "events")
    # the choice is the run's: a resume keeps it
    assert main(["run", "--out", str(out), "--resume", "--games", "3", "--quiet"]) == 0
    assert not list(out.glob("events.*"))
    assert main(["run", "--bots", "random", "--tables", "some", "--out", str(tmp_path / "x")]) == 2
    assert "tables" in capsys.readouterr().err


class Kinds(Expansion):
    """Declares a rounds column: how many piece kinds the seat holds at a round's end."""

    name: ClassVar[str] = "piece_kinds"
    columns: ClassVar[tuple[Column, ...]] = (
        Column("piece_kinds", "int", "piece kinds in supply", table="rounds"),
    )

    def round_columns(self, state: GameState, player: int) -> dict[str, Any]:
        return {"piece_kinds": sum(1 for k in state.supply[player] if k)}


def _flow_of(rules: Rules, seed: int) -> tuple[GameState, FlowRecorder]:
    recorder: list[FlowRecorder] = []
    outcome = play_game(
        rules,
        [make_bot("greedy")] * rules.players,
        seed,
        record=False,
        on_start=lambda state: recorder.append(FlowRecorder(state)),
        on_step=lambda state, seat, action: recorder[0].step(state, seat, action),
    )
    recorder[0].finish(outcome.state)
    return outcome.state, recorder[0]


def test_a_declared_rounds_column_is_filled() -> None:
    register_expansion(Kinds)
    try:
        assert "piece_kinds" in tables.schema("rounds").names
        state, recorder = _flow_of(Rules(players=2, expansions={"piece_kinds"}), 1)
        _, rounds = recorder.rows({"game_id": 0}, ["a", "b"])
        last = [r for r in rounds if r["final"]]
        assert [r["piece_kinds"] for r in last] == [
            sum(1 for k in state.supply[p] if k) for p in range(2)
        ]
        # a game without the expansion leaves its column null
        _, recorder = _flow_of(Rules(players=2), 1)
        assert {r["piece_kinds"] for r in recorder.rows({}, ["a", "b"])[1]} == {None}
    finally:
        unregister_expansion(Kinds.name)
