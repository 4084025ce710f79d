"""Writing a run's tables from its parts, window by window of game ids: the same tables whatever
the windows, one line and a resumable run when it fails, and a kill in the middle resumed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from paths import ROOT
from table_util import without_timing

from projectl_sim.cli import main
from projectl_sim.errors import RunInterrupted
from projectl_sim.sim import runner, tables
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec

SETTINGS = {"bots": ["random"], "players": [2, 3], "games": 12, "seed": 17}


def play(out: Path, jobs: int = 1, **settings: Any) -> runner.RunResult:
    spec = RunSpec.from_mapping(SETTINGS | settings)
    return runner.run(spec, out, options=RunOptions(jobs=jobs, quiet=True, chunk=5))


def assert_same(one: Path, two: Path) -> None:
    first, second = without_timing(one), without_timing(two)
    for name in tables.TABLES:
        assert first[name].equals(second[name], check_metadata=True), name


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run written in windows larger than it (one row group a table)."""
    out = tmp_path_factory.mktemp("consolidation") / "whole"
    play(out)
    return out


def test_small_windows_write_the_same_tables_in_many_row_groups(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert pq.ParquetFile(whole / "events.parquet").num_row_groups == 1
    # a few games a window (one for events), and parts of 5 games from two workers: parts
    # straddle windows and hold games out of order
    monkeypatch.setattr(tables, "WINDOW_CELLS", 400)
    monkeypatch.setattr(tables, "GROUP_CELLS", 1)  # a row group a window
    play(tmp_path / "windows", jobs=2)
    assert_same(whole, tmp_path / "windows")
    for name in tables.TABLES:
        assert pq.ParquetFile(tmp_path / "windows" / f"{name}.parquet").num_row_groups > 1, name
    play(tmp_path / "csv", jobs=2, format="csv")  # one header, rows window after window
    text = (tmp_path / "csv" / "seats.csv").read_text()
    assert text.count('"game_id"') == 1
    seats = tables.read_table(tmp_path / "csv", "seats")
    assert seats.drop_columns(["decision_time_mean", "decision_cpu_mean"]).equals(
        without_timing(whole)["seats"]
    )
    assert pacsv.read_csv(tmp_path / "csv" / "games.csv").num_rows == 24


def test_windows_are_gathered_into_row_groups_of_a_bounded_size(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a parquet writer keeps metadata per row group until it closes: the events table's small
    # windows (here a game each) are gathered, up to GROUP_CELLS cells or WINDOW_GAMES games
    monkeypatch.setattr(tables, "WINDOW_CELLS", 400)
    monkeypatch.setattr(tables, "GROUP_CELLS", 40_000)
    play(tmp_path / "gathered", jobs=2)
    assert_same(whole, tmp_path / "gathered")
    events = pq.ParquetFile(tmp_path / "gathered" / "events.parquet")
    columns = events.metadata.num_columns
    sizes = [events.metadata.row_group(i).num_rows for i in range(events.num_row_groups)]
    assert 1 < len(sizes) < 24 / 3  # 24 games, a window each
    # every group but the last reaches the cap, and stops at the window that does
    assert all(40_000 <= n * columns < 40_000 + 600 * columns for n in sizes[:-1]), sizes
    monkeypatch.setattr(tables, "WINDOW_GAMES", 2)  # and at most this many games' ids
    play(tmp_path / "few", jobs=2)
    assert_same(whole, tmp_path / "few")
    games = pq.ParquetFile(tmp_path / "few" / "games.parquet")
    assert [games.metadata.row_group(i).num_rows for i in range(games.num_row_groups)] == [2] * 12


def test_every_reader_reads_a_table_of_many_row_groups(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    import duckdb
    import polars as pl

    monkeypatch.setattr(tables, "WINDOW_CELLS", 400)
    monkeypatch.setattr(tables, "GROUP_CELLS", 1)
    out = tmp_path / "windows"
    play(out, jobs=2)
    assert pq.ParquetFile(out / "seats.parquet").num_row_groups > 1
    seats = without_timing(whole)["seats"]
    path = out / "seats.parquet"
    rows = duckdb.sql(f"select game_id, seat, score from read_parquet('{path}')").fetchall()
    expected = list(zip(*(seats[c].to_pylist() for c in ("game_id", "seat", "score")), strict=True))
    assert rows == expected  # in the file's order: sorted by game and seat
    frame = pl.read_parquet(path).drop(list(tables.TIMING_COLUMNS["seats"]))
    assert frame.to_arrow().cast(seats.schema).equals(seats)
    monkeypatch.undo()
    for command in ("summary", "cards"):  # the same answers as the run of one row group
        answers = []
        for run_dir in (whole, out):
            assert main([command, str(run_dir)]) == 0
            answers.append(capsys.readouterr().out)
        if command == "cards":
            assert answers[0] == answers[1]


def test_growing_a_run_written_in_windows_keeps_its_games(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tables, "WINDOW_CELLS", 400)
    out = tmp_path / "grown"
    play(out)
    spec = RunSpec.from_mapping(SETTINGS | {"games": 15})
    result = runner.run(spec, out, resume=True, options=RunOptions(jobs=2, quiet=True))
    assert result.complete and result.played == 6
    grown, before = without_timing(out), without_timing(whole)
    for name in tables.TABLES:  # the first 24 games are the run's own, rows and order
        first = grown[name].filter(pa.compute.less(grown[name]["game_id"], 24))
        assert first.equals(before[name]), name
    assert grown["games"]["game_id"].to_pylist() == list(range(30))


def _group_rows(path: Path) -> list[int]:
    meta = pq.read_metadata(path)
    return [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_grown_run_reopens_its_tables_in_the_row_groups_a_merge_writes(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    # small windows gathered into groups of a few games: the part a grown run starts from keeps
    # the consolidated table's groups (parquet: the file itself), or gathers them as a merge
    # does (csv), never a group a batch
    monkeypatch.setattr(tables, "WINDOW_CELLS", 400)
    monkeypatch.setattr(tables, "GROUP_CELLS", 1_000)
    monkeypatch.setattr(tables, "CSV_BLOCK", 4_096)  # csv batches of a few rows
    out = tmp_path / fmt
    play(out, format=fmt)
    groups = (
        {name: _group_rows(out / f"{name}.parquet") for name in tables.TABLES}
        if (fmt == "parquet")
        else {}
    )
    before = {name: tables.read_table(out, name) for name in tables.TABLES}
    tables.reopen(out, fmt)
    for name in tables.TABLES:
        part = out / "parts" / name / "part-00000.parquet"
        assert pq.read_table(part).equals(before[name]), name
        rows = _group_rows(part)
        if fmt == "parquet":
            assert rows == groups[name], name
            assert os.path.samefile(part, out / f"{name}.parquet"), name  # not copied
        else:  # every group but the last reaches the cap or spans WINDOW_GAMES game ids
            columns = pq.read_metadata(part).num_columns
            assert sum(rows) == before[name].num_rows, name
            assert len(rows) > 1 or before[name].num_rows * columns < 1_000, name
            ids = pq.read_table(part, columns=["game_id"]).column(0).to_pylist()
            at = 0
            for n in rows[:-1]:
                assert n * columns >= 1_000 or ids[at + n - 1] - ids[at] + 1 >= 1_000, name
                at += n
    # a merge reads the part as any other: the same tables as the run written whole
    tables.drop_tables(out)
    monkeypatch.setattr(tables, "GROUP_CELLS", 1)  # a row group a window
    tables.consolidate(out, "parquet", 24)
    tables.remove_parts(out)
    assert_same(out, whole)


def test_a_failure_while_the_tables_are_written_is_one_line_and_resume_writes_them(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    out = tmp_path / "failed"

    def write(self: Any, data: pa.Table, games: int = 0) -> None:
        raise pa.ArrowMemoryError("malloc of size 4194304 failed")

    monkeypatch.setattr(tables._TableWriter, "write", write)
    args = ["run", "--bots", "random", "--players", "2,3", "--games", "12", "--seed", "17"]
    assert main([*args, "--out", str(out), "--quiet", "--jobs", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(
        "projectl-sim: error: writing the tables from the parts failed (ArrowMemoryError: malloc "
        "of size 4194304 failed); the parts are kept (24/24 games saved in "
    )
    manifest = tables.read_manifest(out)
    assert manifest["status"].startswith("failed: writing the tables from the parts failed")
    assert manifest["games_done"] == 24 and manifest["sessions"][-1]["status"] != "running"
    assert not list(out.glob("*.parquet")) and not list(out.glob(".*.tmp"))
    assert tables.read_table(out, "games").num_rows == 24  # the parts are the tables
    monkeypatch.undo()
    assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 0
    assert tables.read_manifest(out)["status"] == "complete" and not (out / "parts").exists()
    assert_same(out, whole)


def test_a_stop_while_the_tables_are_written_is_an_interruption_resume_finishes(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "stopped"

    def write(self: Any, data: pa.Table, games: int = 0) -> None:
        raise KeyboardInterrupt  # SIGTERM, as the run treats it, while a long run writes

    monkeypatch.setattr(tables._TableWriter, "write", write)
    with pytest.raises(RunInterrupted, match="interrupted: 24/24 games saved in "):
        play(out)
    assert tables.read_manifest(out)["status"] == "interrupted"
    assert not list(out.glob("*.parquet")) and not list(out.glob(".*.tmp"))
    monkeypatch.undo()
    assert runner.run(None, out, resume=True, options=RunOptions(jobs=1, quiet=True)).complete
    assert_same(out, whole)


_KILLED_WHILE_WRITING = """
import os, signal, sys
from pathlib import Path
from projectl_sim.sim import runner, tables
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec

tables.WINDOW_CELLS = 400
write = tables._TableWriter.write
calls = []
def killed(self, data, games=0):
    write(self, data, games)
    calls.append(1)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.SIGKILL)
tables._TableWriter.write = killed
spec = RunSpec.from_mapping(__import__("json").loads(sys.argv[2]))
runner.run(spec, Path(sys.argv[1]), options=RunOptions(jobs=1, quiet=True, chunk=5))
"""


def test_a_kill_while_the_tables_are_written_resumes_to_the_same_tables(
    whole: Path, tmp_path: Path
) -> None:
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    child = subprocess.run(
        [sys.executable, "-c", _KILLED_WHILE_WRITING, str(out), json.dumps(SETTINGS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == -9, child.stderr
    assert tables.read_manifest(out)["status"] == "running"
    assert list(out.glob(".*.tmp")) and not list(out.glob("*.parquet"))  # cut short, unseen
    assert tables.read_table(out, "games").num_rows == 24  # the parts are the tables
    result = runner.run(None, out, resume=True, options=RunOptions(jobs=1, quiet=True))
    assert result.complete and result.played == 0
    manifest = tables.read_manifest(out)
    assert [s["status"] for s in manifest["sessions"]] == ["killed", "complete"]
    assert not list(out.glob(".*.tmp"))
    assert_same(out, whole)


def _checked_whole(run_dir: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The sample a resume checks, taken from the whole tables: the games at evenly spaced
    places of the id order, and their seats."""
    import numpy as np

    from projectl_sim.sim import manifest

    games = tables.read_table(run_dir, "games")
    ids = games.column("game_id").to_numpy()
    places = np.unique(np.linspace(0, len(ids) - 1, min(manifest.SAMPLE, len(ids))).astype(int))
    picked = games.take(pa.array(np.argsort(ids, kind="stable")[places]))
    seats = tables.read_table(run_dir, "seats")
    wanted = set(picked.column("game_id").to_pylist())
    rows = [r for r in seats.to_pylist() if r["game_id"] in wanted]
    keys = ("game_id", "seed", "deal", "rotation", "seats", "replicate")
    return (
        [{k: r[k] for k in keys} for r in picked.to_pylist()],
        [{k: r[k] for k in ("game_id", "seat", "bot", "bot_spec")} for r in rows],
    )


@pytest.mark.parametrize("where", ["parquet", "csv", "parts"])
def test_a_resume_checks_a_run_window_by_window_as_a_whole(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    from projectl_sim.sim import manifest

    out = tmp_path / where
    play(out, format="csv" if where == "csv" else "parquet")
    if where == "parts":  # a complete run grown: its tables back to parts, read from those
        tables.reopen(out, "parquet")
        tables.drop_tables(out)
    games, seats = _checked_whole(whole)
    monkeypatch.setattr(manifest, "SAMPLE", 5)
    few, few_seats = _checked_whole(whole)
    assert len(few) == 5 and len(few_seats) == sum(int(g["seats"].count(",")) + 1 for g in few)
    # windows of a few games, batches of 3 rows: a game's seats straddle batches
    monkeypatch.setattr(tables, "WINDOW_GAMES", 3)
    monkeypatch.setattr(tables, "WINDOW_CELLS", 40)
    for sample, expected, expected_seats in ((5, few, few_seats), (200, games, seats)):
        monkeypatch.setattr(manifest, "SAMPLE", sample)
        written = manifest.read_written(out, 24)
        assert written is not None
        assert written.sample.to_pylist() == expected
        assert written.sample_seats.to_pylist() == expected_seats
        run_id = tables.read_manifest(whole)["run_id"]  # the same settings and seed
        assert (written.first, written.last, written.run_ids) == (0, 23, {run_id})
        assert [c["players"] for c in written.configs] == [2, 3]
        assert written.tally.problems() == [] and written.tally.rows == 24
    assert manifest.read_written(out, 30).tally.problems() == ["6 of 30 planned games missing"]


@pytest.mark.parametrize("where", ["parquet", "parts"])
def test_the_summary_reads_the_flow_tables_window_by_window_as_a_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    import pandas as pd

    from projectl_sim.analysis import failures, game_flow
    from projectl_sim.analysis.data import load_run

    out = tmp_path / where
    play(out, jobs=2)
    if where == "parts":  # a stopped run is read from its parts
        tables.reopen(out, "parquet")
        tables.drop_tables(out)
    whole = load_run(out)
    expected = game_flow.game_flow(whole.rounds, whole.games)
    events = whole.events
    taken = sorted(set(events.loc[events["event"] == "taken", "card"].dropna()))
    # a card no game took, beside those taken; and a pass in the first game
    cards = pd.DataFrame({"card": [*taken, "never"]})
    monkeypatch.setattr(failures, "catalogue_cards", lambda manifest: cards)
    events.loc[events.index[5], "event"] = "pass"
    states = failures.failure_states(whole)  # from the events read whole
    assert {"never taken", "no legal action"} <= {f.state for f in states}
    monkeypatch.setattr(tables, "WINDOW_GAMES", 3)
    # parts: windows of a game or so; a consolidated file: batches of about a game's rounds
    # (40 rows a game or more) and a third of its events, which still split games (a batch of a
    # row, as 40 cells give, took minutes on a loaded machine)
    monkeypatch.setattr(tables, "WINDOW_CELLS", 40 if where == "parts" else 2_400)
    run = load_run(out)
    windows = list(run.scan("rounds", game_flow.ROUND_COLUMNS))
    assert len(windows) > 3 and "rounds" not in run.__dict__  # never read whole
    assert len(list(run.scan("events", ["event"]))) > 3
    assert [w["game_id"].min() for w in windows] == sorted(w["game_id"].min() for w in windows)
    pd.testing.assert_frame_equal(game_flow.run_flow(run), expected)
    scanned = failures.failure_states(run)
    assert "events" not in run.__dict__  # never read whole
    assert scanned[-1] == states[-1]  # the card never taken
    assert [f for f in scanned if f.state != "no legal action"] == [
        f for f in states if f.state != "no legal action"
    ]  # (the pass was made in memory only)
    run.events.loc[run.events.index[5], "event"] = "pass"  # read whole: then read from it
    assert failures.failure_states(run) == states
