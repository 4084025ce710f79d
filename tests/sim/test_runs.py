"""Several runs side by side (``load_runs``), and a run's tables read by DuckDB and polars."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pytest

from projectl_sim import analysis as pa
from projectl_sim.errors import UsageError
from projectl_sim.sim import runner
from projectl_sim.sim import spec as run_spec


def _seeded(config: dict, seed: int) -> run_spec.RunSpec:
    return run_spec.RunSpec.from_mapping(
        {"bots": ["greedy,random"], "games": 4} | config | {"seed": seed}
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A results folder of two small runs (``a``: 2 players, ``b``: 3) and a folder of notes."""
    root = tmp_path_factory.mktemp("results")
    runner.run(_seeded({}, 1), root / "a", options=runner.RunOptions(jobs=1, quiet=True))
    runner.run(
        _seeded({"bots": ["greedy,random,random"]}, 2),
        root / "b",
        options=runner.RunOptions(jobs=1, quiet=True),
    )
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("not a run\n")
    return root


def test_load_runs_gives_one_table_with_a_run_column(results: Path) -> None:
    runs = pa.load_runs([results / "a", results / "b"])
    a, b = pa.load_run(results / "a"), pa.load_run(results / "b")
    assert runs.names == ["a", "b"]
    for table in ("seats", "games"):
        both = getattr(runs, table)
        assert both.columns[0] == "run"
        assert list(both.columns[1:]) == list(getattr(a, table).columns)
        assert both["run"].value_counts().to_dict() == {
            "a": len(getattr(a, table)),
            "b": len(getattr(b, table)),
        }
    # one run back on its own is the run as load_run reads it
    pd.testing.assert_frame_equal(runs.run("b").seats, b.seats)
    pd.testing.assert_frame_equal(runs.run("a").games, a.games)
    assert runs.manifests["b"] == b.manifest
    with pytest.raises(UsageError, match="no run named 'c'"):
        runs.run("c")


def test_a_glob_names_the_run_folders_it_matches_sorted(results: Path) -> None:
    runs = pa.load_runs(str(results / "*"))  # notes/ holds no run: left out
    assert runs.names == ["a", "b"]
    assert pa.load_runs([results / "b", str(results / "[a]")]).names == ["b", "a"]  # as given


def test_load_runs_rejects_what_is_not_a_run(results: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no run folder given"):
        pa.load_runs([])
    with pytest.raises(UsageError, match="no run folder matches"):
        pa.load_runs(str(results / "zz*"))
    with pytest.raises(UsageError, match="notes"):
        pa.load_runs([results / "a", results / "notes"])
    with pytest.raises(UsageError, match="no such run folder"):
        pa.load_runs([tmp_path / "missing"])
    with pytest.raises(UsageError, match="given twice"):
        pa.load_runs([results / "a", results / "a"])
    with pytest.raises(UsageError, match="given twice"):
        pa.load_runs([str(results / "b"), str(results / "?")])  # the glob matches b again


def test_two_runs_of_one_name_are_named_by_their_paths(results: Path, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "a"
    shutil.copytree(results / "a", copy)
    runs = pa.load_runs([results / "a", copy])
    assert runs.names == [str(results / "a"), str(copy)]


def test_analysis_keeps_the_games_of_two_runs_apart(results: Path, tmp_path: Path) -> None:
    """Two copies of a run share every game_id: the tables must not merge their games."""
    copy = tmp_path / "again" / "a"
    shutil.copytree(results / "a", copy)
    one = pa.load_run(results / "a")
    twice = pa.load_runs([results / "a", copy])
    # a game of each run pairs its own two seats: twice the pairs, not four times
    assert len(pa.pairwise(twice.seats)) == 2 * len(pa.pairwise(one.seats))
    h2h = pa.head_to_head(twice.seats).set_index(["bot", "opponent"])
    single = pa.head_to_head(one.seats).set_index(["bot", "opponent"])
    assert (h2h["matches"] == 2 * single["matches"]).all()
    assert (h2h["win_rate"] == single["win_rate"]).all()
    pairs = pa.pair_results(twice.seats).set_index(["bot", "opponent"])
    assert (
        pairs["games"] == 2 * pa.pair_results(one.seats).set_index(["bot", "opponent"])["games"]
    ).all()
    # per-run figures: pass run in by
    rates = pa.win_rates(twice.seats, ["run", "bot"])
    assert set(rates["run"]) == set(twice.names)
    alone = pa.win_rates(one.seats, ["bot"]).set_index("bot")["win_rate"]
    for _, rows in rates.groupby("run"):
        assert rows.set_index("bot")["win_rate"].to_dict() == alone.to_dict()
    # the puzzles taken count each run's games
    taken = pa.puzzle_stats(twice.seats)
    assert taken["taken"].sum() == 2 * pa.puzzle_stats(one.seats)["taken"].sum()


def test_duckdb_and_polars_read_the_tables_like_pandas(results: Path) -> None:
    runs = pa.load_runs(str(results / "*"))
    seats = runs.seats
    by_pandas = seats.groupby("run")["score"].sum().to_dict()
    # the files on disk: plain Parquet, one glob over the runs
    pattern = str(results / "*" / "seats.parquet")
    rows = duckdb.sql(
        "select parse_filename(parse_dirpath(filename)) as run, sum(score), count(*) "
        f"from read_parquet('{pattern}', filename = true) group by run order by run"
    ).fetchall()
    assert [(r, s) for r, s, _ in rows] == sorted(by_pandas.items())
    assert [n for *_, n in rows] == [len(runs.run(r).seats) for r in runs.names]
    lazy = pl.scan_parquet(pattern, include_file_paths="file")
    counted = lazy.group_by("file").agg(pl.col("score").sum()).collect()
    assert {Path(f).parent.name: s for f, s in counted.iter_rows()} == by_pandas
    # the frame load_runs returns, handed over as it is
    frame = pl.from_pandas(seats)
    assert frame.columns == list(seats.columns)
    assert dict(frame.group_by("run").agg(pl.col("score").sum()).iter_rows()) == by_pandas
    names = [None if pd.isna(x) else x for x in seats["puzzles_completed"]]  # nulls stay null
    assert frame["puzzles_completed"].to_list() == names
    sql = duckdb.sql("select run, sum(score) from seats group by run order by run").fetchall()
    assert sql == sorted(by_pandas.items())
    games = runs.games  # noqa: F841 (read by name below)
    [(n,)] = duckdb.sql("select count(distinct (run, game_id)) from games").fetchall()
    assert n == len(runs.games)
