"""run --until-precision: the loop stops at the width, respects its maximum, resumes after Ctrl-C,
and grows the tables a run of the same final size has (the coverage of the sequences themselves
is tested in test_sequential.py)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from projectl_sim.analysis.data import load_run
from projectl_sim.analysis.sequential import PrecisionCheck
from projectl_sim.cli import main
from projectl_sim.errors import UsageError
from projectl_sim.experiments.precision import (
    GROWTH_MAX,
    GROWTH_MIN,
    PrecisionRequest,
    next_games,
    parse_request,
)
from projectl_sim.sim import runner, tables
from projectl_sim.sim.spec import RunSpec

# identical random bots at 2 and 3 players: the first player's rate per configuration
GRID = ["--bots", "random", "--players", "2,3", "--seed", "11", "--jobs", "1"]


def comparable(out: Path, name: str) -> pd.DataFrame:
    """Return a table without its timing columns, game ids and run id (a hash of the first
    ``games``), in (configuration, deal, rotation, seat) order."""
    t = tables.read_table(out, name).drop_columns(list(tables.TIMING_COLUMNS[name])).to_pandas()
    order = ["config_id", "deal", "rotation"] if name == "games" else ["config_id", "deal", "seed"]
    if name == "seats":
        t = t.merge(
            tables.read_table(out, "games").to_pandas()[["game_id", "rotation"]], on="game_id"
        )
        order = ["config_id", "deal", "rotation", "seat"]
    return t.drop(columns=["game_id", "run_id"]).sort_values(order, ignore_index=True)


def games_before(run_dir: Path, history: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return the tables of a grown run as they were before its last growth (its first games)."""
    run = load_run(run_dir)
    spec = RunSpec.from_mapping(run.manifest["config"] | {"games": history[-2]})
    from projectl_sim.sim.spec import plan

    _, tasks = plan(spec, run.manifest["root_seed"], history[:-1])
    keep = run.games["game_id"] < len(tasks)
    games = run.games[keep]
    return run.seats[run.seats["game_id"].isin(games["game_id"])], games


def test_the_loop_stops_at_the_first_batch_that_meets_the_width(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "precise"
    assert main(["run", *GRID, "--games", "10", "--until-precision", "0.3", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    manifest = tables.read_manifest(out)
    asked = manifest["precision"]
    assert asked["width"] == 0.3 and asked["quantities"] == ["first_player", "win_rate"]
    request = PrecisionRequest.from_json(asked)
    run = load_run(out)
    check = request.check(run.seats, run.games)
    assert check.stop and check.intervals["done"].all()
    assert (check.intervals["width"] <= 0.3).all() and len(check.intervals) == 2
    history = manifest["games_history"]
    assert history[0] == 10 and len(history) >= 3  # it took a few batches
    # one batch earlier it was not done: the loop stopped at the first look that was
    before = request.check(*games_before(out, history))
    assert not before.stop
    # a line per batch with the widest interval, and the summary shows the sequences
    batches = [line for line in captured.err.splitlines() if line.startswith("batch ")]
    assert len(batches) == len(history)
    assert "widest interval" in batches[0] and "first player's win rate" in batches[0]
    assert batches[-1].endswith("every interval at most its target wide")
    assert "== Precision on demand ==" in captured.out
    assert "stopped: every interval at most its target wide" in captured.out
    # growth: between GROWTH_MIN and GROWTH_MAX per batch
    for a, b in itertools.pairwise(history):
        assert a * GROWTH_MIN <= b <= a * GROWTH_MAX


def test_the_loop_stops_at_the_maximum_and_the_tables_equal_a_fixed_size_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "capped"
    argv = ["run", *GRID, "--games", "8", "--until-precision", "0.02", "--max-games", "30"]
    assert main([*argv, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "or 30 games per configuration (--max-games)" in err.splitlines()[0]
    manifest = tables.read_manifest(out)
    assert manifest["games_history"][-1] == 30 and manifest["status"] == "complete"
    assert "maximum of 30 games per configuration reached" in err
    games = tables.read_table(out, "games").to_pandas()
    assert games.groupby("config_id").size().tolist() == [30, 30]
    fixed = tmp_path / "fixed"
    assert main(["run", *GRID, "--games", "30", "--out", str(fixed), "--quiet"]) == 0
    for name in tables.TABLES:
        pd.testing.assert_frame_equal(comparable(out, name), comparable(fixed, name))


def test_a_precision_run_stopped_by_ctrl_c_goes_on_with_resume(tmp_path: Path) -> None:
    out = tmp_path / "stopped"
    argv = [*GRID, "--games", "40", "--until-precision", "0.2", "--chunk", "5", "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "projectl_sim", "run", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:  # stop it while it plays its second batch
            assert proc.poll() is None, "the run ended before it could be stopped"
            assert time.monotonic() < deadline, "the second batch did not start"
            try:
                manifest = json.loads((out / tables.MANIFEST).read_text())
            except (OSError, ValueError):
                manifest = {}
            parts = list((out / "parts" / "games").glob("part-*.parquet"))
            if len(manifest.get("games_history", [])) >= 2 and parts:
                break
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    assert f"finish with: projectl-sim run --out {out} --resume" in err
    manifest = tables.read_manifest(out)
    assert manifest["status"] == "interrupted" and "precision" in manifest
    # a plain --resume goes on with the loop: the request is in the manifest
    assert main(["run", "--out", str(out), "--resume", "--jobs", "1", "--quiet"]) == 0
    manifest = tables.read_manifest(out)
    assert manifest["status"] == "complete" and len(manifest["games_history"]) >= 2
    run = load_run(out)
    assert PrecisionRequest.from_json(manifest["precision"]).check(run.seats, run.games).stop
    fixed = tmp_path / "fixed"
    games = manifest["games_history"][-1]
    assert main(["run", *GRID, "--games", str(games), "--out", str(fixed), "--quiet"]) == 0
    for name in tables.TABLES:
        pd.testing.assert_frame_equal(comparable(out, name), comparable(fixed, name))


def test_a_resume_may_raise_the_maximum_and_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "raised"
    argv = ["run", *GRID, "--games", "6", "--until-precision", "0.05", "--max-games", "6"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    assert tables.read_manifest(out)["games_history"] == [6]
    resume = ["run", "--out", str(out), "--resume", "--quiet"]
    assert main([*resume, "--until-precision", "0.1"]) == 2
    assert "was asked for intervals at most 0.05 wide (first_player, win_rate)" in (
        capsys.readouterr().err
    )
    assert main([*resume, "--max-games", "12"]) == 0
    manifest = tables.read_manifest(out)
    assert manifest["games_history"][-1] == 12 and manifest["precision"]["max_games"] == 12


def test_next_games_grows_by_what_the_widest_interval_needs() -> None:
    def check(widths: list[float], target: float = 0.1) -> PrecisionCheck:
        t = pd.DataFrame({"width": widths, "target": [target] * len(widths)})
        return PrecisionCheck(False, "", t)

    assert next_games(100, check([0.105, 0.09]), 10_000) == 125  # at least a quarter more
    assert next_games(100, check([0.13]), 10_000) == 149  # (1.3 ** 1.5) x
    assert next_games(100, check([0.5]), 10_000) == 200  # at most twice
    assert next_games(100, check([float("nan"), 0.05]), 10_000) == 200  # not measured yet
    assert next_games(100, check([0.5]), 150) == 150  # never past the maximum
    assert next_games(1, check([0.105]), 10_000) == 2  # at least one more


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0.0,), "above 0 and at most 1"),
        ((0.05, "margin"), "margin: a mean in its own units needs its width"),
        ((0.05, "first_playr"), "unknown quantity 'first_playr' (did you mean 'first_player'?"),
        ((0.05, "rounds=-1"), "a width above 0"),
        ((0.05, None, 0), "--max-games must be at least 1"),
    ],
)
def test_a_bad_request_is_one_line(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_request(*args)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_a_request_reads_back_and_defaults_to_a_finite_maximum() -> None:
    request = parse_request(0.03, "first_player,margin=2,effects")
    assert request.quantities == ("first_player", "margin", "effects")
    assert request.widths == {"margin": 2.0}
    assert request.planned_deals == 8538 and request.max_games == 2 * 8538
    assert PrecisionRequest.from_json(json.loads(json.dumps(request.to_json()))) == request
    assert "or 17076 games per configuration (--max-games)" in request.describe()


def test_precision_flags_without_until_precision_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", *GRID, "--max-games", "40"]) == 2
    assert "go with --until-precision" in capsys.readouterr().err


def test_a_first_batch_above_the_maximum_is_refused(tmp_path: Path) -> None:
    spec = RunSpec.from_mapping({"bots": ["random"], "players": [2], "games": 50, "seed": 1})
    from projectl_sim.experiments.precision import grow_until_precise

    with pytest.raises(UsageError, match="the first batch"):
        grow_until_precise(
            spec,
            tmp_path / "x",
            parse_request(0.1, None, 20),
            options=runner.RunOptions(jobs=1, quiet=True),
        )
    assert not (tmp_path / "x").exists()
