"""The runner: grid and seat rotations, seeds, identical tables for any jobs, resume, errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa
import pytest
from paths import TESTS

import bots
from bots.random_bot import RandomBot
from projectl_sim.cli import main
from projectl_sim.engine.record import read_record, replay
from projectl_sim.errors import ProjectLError
from projectl_sim.sim import runner, tables, workers
from projectl_sim.sim import spec as run_spec
from projectl_sim.sim import task as run_task
from projectl_sim.sim.play import play_game
from projectl_sim.sim.runner import RunOptions, game_from_run
from projectl_sim.sim.spec import RunSpec, plan
from projectl_sim_launch import ONE_THREAD


def spec(**settings: Any) -> RunSpec:
    return RunSpec.from_mapping(
        {"bots": ["random"], "players": [2], "games": 10, "seed": 3} | settings
    )


def play(out: Path, run_spec: RunSpec, jobs: int = 1, **options: Any) -> runner.RunResult:
    return runner.run(run_spec, out, options=RunOptions(jobs=jobs, quiet=True, **options))


def without_timing(run_dir: Path) -> dict[str, pa.Table]:
    return {
        name: tables.read_table(run_dir, name).drop_columns(list(tables.TIMING_COLUMNS[name]))
        for name in tables.TABLES
    }


class OtherBot(RandomBot):
    name = "other"


class CrashyBot(RandomBot):
    """Raises now and then (deterministically, from its rng): games of it fail, others not."""

    name = "crashy"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {}

    def act(self, view, rng):  # type: ignore[no-untyped-def]
        if rng.random() < 0.01:
            raise RuntimeError("boom")
        return super().act(view, rng)


@pytest.fixture
def extra_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    # registered in this process: the runner hands them to its workers
    monkeypatch.setitem(bots.REGISTRY, "other", OtherBot)
    monkeypatch.setitem(bots.REGISTRY, "crashy", CrashyBot)


# -- grid, rotations, seeds --------------------------------------------------------------------
def test_split_lineup_keeps_bot_parameters_together() -> None:
    assert run_spec.split_lineup("greedy:a=1,b=2,random") == ["greedy:a=1,b=2", "random"]
    assert run_spec.split_lineup("random, random") == ["random", "random"]
    assert run_spec.split_lineup("mcts,iterations=50") == ["mcts:iterations=50"]


def test_every_bot_plays_every_seat_equally_often_on_the_same_deals(extra_bots: None) -> None:
    configs, tasks = plan(spec(bots=["random,other"], players=[2, 3], games=10), 1)
    assert [c.lineup for c in configs] == [("random", "other"), ("random", "other", "random")]
    for config in configs:
        games = [t for t in tasks if t.config_id == config.config_id]
        rotations = config.rotations
        assert len(games) % len(rotations) == 0 and len(games) >= 10  # whole rotation groups
        seats = Counter(
            (config.seated(t.rotation)[s], s) for t in games for s in range(config.players)
        )
        assert len({seats[("other", s)] for s in range(config.players)}) == 1
        by_deal: dict[int, set[int]] = {}
        for t in games:
            by_deal.setdefault(t.deal, set()).add(t.seed)
            assert len(by_deal[t.deal]) == 1  # one seed per deal, whatever the rotation
        assert len({next(iter(s)) for s in by_deal.values()}) == len(by_deal)
    assert [t.game_id for t in tasks] == list(range(len(tasks)))


def test_identical_bots_need_one_rotation_and_more_games_keep_the_first_seeds() -> None:
    configs, small = plan(spec(players=[3], games=5), 8)
    assert configs[0].rotations == (0,) and len(small) == 5
    _, large = plan(spec(players=[3], games=9), 8)
    assert [t.seed for t in large[:5]] == [t.seed for t in small]
    _, other_root = plan(spec(players=[3], games=5), 9)
    assert [t.seed for t in other_root] != [t.seed for t in small]


def test_presets_are_valid_runs() -> None:
    for name in run_spec.PRESETS:
        preset = RunSpec.from_mapping(run_spec.preset(name))
        assert run_spec.configurations(preset)


def test_config_files_and_flags_give_the_same_plan(tmp_path: Path) -> None:
    toml = tmp_path / "run.toml"
    toml.write_text(
        'bots = ["random"]\nplayers = [2, 3]\ngames = 4\nseed = 5\n'
        "[rules]\nunfinished_penalty = [true, false]\n"
    )
    yaml = tmp_path / "run.yaml"
    yaml.write_text(
        "bots: random\nplayers: 2,3\ngames: 4\nseed: 5\n"
        "rules:\n  unfinished_penalty: [true, false]\n"
    )
    flags = {"bots": ["random"], "players": "2,3", "games": 4, "seed": 5}
    flags["rules"] = {"unfinished_penalty": "true,false"}
    plans = [
        plan(RunSpec.from_mapping(run_spec.read_config_file(path)), 5) for path in (toml, yaml)
    ] + [plan(RunSpec.from_mapping(flags), 5)]
    assert plans[0] == plans[1] == plans[2]
    configs = plans[0][0]
    assert [c.columns()["switches"] for c in configs] == ["default", "unfinished_penalty=false"] * 2


# -- the tables --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "small"
    play(out, spec(players=[2, 3], games=12, records="sample:3"), jobs=1)
    return out


def test_tables_are_identical_for_any_number_of_jobs(small_run: Path, tmp_path: Path) -> None:
    play(tmp_path / "j2", spec(players=[2, 3], games=12, records="sample:3"), jobs=2)
    one, two = without_timing(small_run), without_timing(tmp_path / "j2")
    for name in tables.TABLES:
        assert one[name].equals(two[name], check_metadata=True), name
    assert one["games"].num_rows == 24 and one["seats"].num_rows == 12 * 2 + 12 * 3


def test_a_worker_starts_without_the_table_libraries_and_with_one_blas_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker only plays games and sends their rows (``sim.rows``): pyarrow, pandas and
    matplotlib are not loaded in it, and numpy's BLAS has one thread there unless the user set a
    count. Read from outside, as the kernel sees each live worker: its memory map and its
    environment."""
    for name in ONE_THREAD:
        monkeypatch.delenv(name, raising=False)  # the suite sets them for all it starts
    while workers._IDLE:  # workers an earlier test started: this run starts its own
        workers._IDLE.pop().kill()
    play(tmp_path / "r", spec(games=4), jobs=2)
    pids = workers.worker_pids()
    assert pids, "the run's workers wait, idle, for the next run of this process"
    for pid in pids:
        libraries = Path(f"/proc/{pid}/maps").read_text()
        assert "numpy" in libraries  # what a worker does load is seen
        for library in ("pyarrow", "pandas", "matplotlib"):
            assert f"/{library}/" not in libraries, f"worker {pid} loaded {library}"
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert b"OPENBLAS_NUM_THREADS=1" in environ and b"OMP_NUM_THREADS=1" in environ


def _workers_started(given: RunSpec) -> int:
    """Play ``given`` in a pool of 2 workers of its own; return how many it started."""
    configs, tasks = plan(given, 1)
    job = workers.Job(
        {c.config_id: c for c in configs},
        "test",
        workers.Limits(),
        workers.job_bots(),
        tuple(sys.path),
    )
    kept: list[Any] = []  # the pool's workers go here when it is done (none other to take up)
    try:
        assert len(list(workers.Pool(2, job, idle=kept).play(tasks))) == len(tasks)
        return len(kept)
    finally:
        for worker in kept:
            worker.kill()


def test_a_run_of_a_fraction_of_a_second_starts_one_worker_a_longer_one_every_job() -> None:
    """A second worker would find no games left in a run of a few quick games: it starts only
    when games still wait ``GROW_SECONDS`` after the first worker could play."""
    assert _workers_started(spec(games=4)) == 1
    slow = str(TESTS / "fault_bots.py") + ":SlowBot:delay=0.1,first=2"
    assert _workers_started(spec(bots=[f"{slow},random"], games=8)) == 2  # 0.2 s a game


def test_rows_add_up(small_run: Path) -> None:
    seats = tables.read_table(small_run, "seats").to_pandas()
    games = tables.read_table(small_run, "games").to_pandas()
    assert (
        seats["score"]
        == seats["points_from_puzzles"] - seats["unfinished_penalty"] - seats["finishing_pieces"]
    ).all()
    assert (seats.groupby("game_id")["win_share"].sum().round(9) == 1).all()
    actions = seats[[f"actions_{k}" for k in tables.ACTION_KINDS]].sum(axis=1)
    assert (actions == seats["decisions"]).all()
    assert (
        seats.groupby("game_id")["decisions"].sum() == games.set_index("game_id")["decisions"]
    ).all()
    for game in games.itertuples():
        rows = seats[seats["game_id"] == game.game_id]
        winners = [int(w) for w in game.winners.split(",")]
        assert sorted(rows.loc[rows["won"], "seat"]) == winners
        assert set(rows.loc[rows["won"], "rank"]) == {1}
        assert (rows["turn_order"] == (rows["seat"] - game.first_player) % game.players).all()
        best_loser = rows.loc[~rows["won"], "score"].max()
        assert game.margin == (rows["score"].max() - best_loser if len(rows) > len(winners) else 0)
    manifest = tables.read_manifest(small_run)
    assert manifest["status"] == "complete" and manifest["games_done"] == 24
    assert manifest["root_seed"] == 3 and manifest["versions"]["pyarrow"]
    from projectl_sim._native import compiled

    assert manifest["versions"]["projectl-sim build"] == ("compiled" if compiled() else "pure")
    assert not (small_run / tables.PARTS).exists()


def test_a_row_replays_its_game(small_run: Path) -> None:
    seats = tables.read_table(small_run, "seats").to_pandas()
    for game_id in (0, 13, 23):
        rules, seat_bots, seed = game_from_run(small_run, game_id)
        state = play_game(rules, seat_bots, seed, record=False).state
        rows = seats[seats["game_id"] == game_id].sort_values("seat")
        assert state.final_scores() == rows["score"].tolist()
        assert [repr(b) for b in seat_bots] == rows["bot"].tolist()
    with pytest.raises(runner.UsageError, match="no game 999"):
        game_from_run(small_run, 999)


def test_sampled_records_replay_to_their_rows(small_run: Path) -> None:
    files = sorted((small_run / tables.RECORDS).glob("game-*.json"))
    assert [f.name for f in files] == [
        "game-00000000.json",
        "game-00000008.json",
        "game-00000016.json",
    ]
    games = tables.read_table(small_run, "games").to_pandas().set_index("game_id")
    for f in files:
        record = read_record(f)
        state = replay(record).state
        game = games.loc[int(f.stem.split("-")[1])]
        assert record["seed"] == game["seed"]
        assert ",".join(map(str, state.winners())) == game["winners"]


def test_csv_output_reads_back_like_parquet(small_run: Path, tmp_path: Path) -> None:
    play(tmp_path / "csv", spec(players=[2, 3], games=12, records="sample:3", format="csv"))
    assert (tmp_path / "csv" / "seats.csv").exists() and not (
        tmp_path / "csv" / "seats.parquet"
    ).exists()
    csv, parquet = without_timing(tmp_path / "csv"), without_timing(small_run)
    for name in tables.TABLES:
        assert csv[name].equals(parquet[name]), name


def test_a_failing_bot_is_an_error_row_and_the_run_goes_on(
    extra_bots: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "crash"
    result = play(out, spec(bots=["crashy,random"], games=16, seed=4))
    games = tables.read_table(out, "games").to_pandas()
    seats = tables.read_table(out, "seats").to_pandas()
    failed = games[games["error"].notna()]
    assert 0 < len(failed) < len(games) == 16 and result.failed == len(failed)
    assert failed["error"].str.startswith("bot crashy (seat").all()
    assert failed["error"].str.contains("RuntimeError: boom").all()
    assert (seats.loc[seats["game_id"].isin(failed["game_id"]), "score"].isna()).all()
    assert tables.read_manifest(out)["games_failed"] == len(failed)
    assert main(["summary", str(out)]) == 0
    assert f"16 games, {len(failed)} failed" in capsys.readouterr().out


def test_an_engine_failure_is_an_error_row_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("engine bug")

    # what a worker does with each game (workers are other processes: patch it here)
    monkeypatch.setattr(run_task, "play_game", broken)
    configs, tasks = plan(spec(games=2), 3)
    games = [run_task.play_task(t, configs[t.config_id], "run").game for t in tasks]
    assert len(games) == 2
    assert all(g["error"].startswith("RuntimeError: engine bug") for g in games)
    assert games[0]["error_seat"] is None and games[0]["first_player"] in (0, 1)


def test_solo_and_standard_share_a_grid_by_player_count(tmp_path: Path) -> None:
    run_spec = spec(
        bots=["random"], players=[1, 2], variant="standard,solo", difficulty="normal,hard"
    )
    configs, _ = plan(run_spec, 1)
    labels = [(c.players, c.variant, c.columns()["switches"]) for c in configs]
    assert labels == [
        (1, "solo", "difficulty=normal"),
        (1, "solo", "difficulty=hard"),
        (2, "standard", "default"),
    ]
    out = tmp_path / "solo"
    play(out, replace(run_spec, games=6))
    games = tables.read_table(out, "games").to_pandas()
    seats = tables.read_table(out, "seats").to_pandas()
    solo = seats[seats["players"] == 1].merge(games, on="game_id", suffixes=("", "_game"))
    assert (solo["margin"] == solo["score"] - solo["opponent_score"]).all()
    assert (solo["won"] == (solo["margin"] > 0)).all()
    assert (solo["rank"] == solo["won"].map({True: 1, False: 2})).all()
    assert games.loc[games["players"] == 2, "opponent_score"].isna().all()
    rules, seat_bots, seed = game_from_run(out, 7)
    assert rules.solo and rules.difficulty == "hard"
    replayed = play_game(rules, seat_bots, seed, record=False).state
    assert replayed.final_scores() == [solo.loc[solo["game_id"] == 7, "score"].item()]


# -- resume ------------------------------------------------------------------------------------
CLI = [sys.executable, "-m", "projectl_sim", "run"]


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the kill reaches the workers too
    )


def _wait_for_parts(out: Path, proc: subprocess.Popen[str], parts: int) -> None:
    deadline = time.monotonic() + 60
    while len(list((out / "parts" / "games").glob("part-*.parquet"))) < parts:
        assert proc.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < deadline, "no parts appeared"
        time.sleep(0.02)


GRID = ["--bots", "random", "--players", "2,3", "--games", "60", "--seed", "21"]


def test_a_killed_run_resumes_to_the_same_tables(tmp_path: Path) -> None:
    out = tmp_path / "killed"
    proc = _start([*GRID, "--jobs", "2", "--chunk", "3", "--out", str(out), "--quiet"])
    try:
        _wait_for_parts(out, proc, 2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    partial = tables.read_table(out, "games").num_rows  # the parts read as they are
    assert 0 < partial < 120 and not (out / "games.parquet").exists()
    result = runner.run(None, out, resume=True, options=RunOptions(jobs=2, quiet=True))
    assert result.complete and result.played == 120 - partial
    play(
        tmp_path / "whole",
        RunSpec.from_mapping({"bots": ["random"], "players": [2, 3], "games": 60, "seed": 21}),
    )
    resumed, whole = without_timing(out), without_timing(tmp_path / "whole")
    for name in tables.TABLES:
        assert resumed[name].equals(whole[name]), name


def test_ctrl_c_leaves_valid_tables_and_resume_finishes(tmp_path: Path) -> None:
    out = tmp_path / "stopped"
    proc = _start([*GRID, "--jobs", "2", "--chunk", "3", "--out", str(out)])
    try:
        _wait_for_parts(out, proc, 1)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    assert "--resume" in err
    manifest = tables.read_manifest(out)
    assert manifest["status"] == "interrupted"
    saved = tables.read_table(out, "seats").to_pandas()  # the consolidated file
    assert (out / "seats.parquet").exists() and 0 < saved["game_id"].nunique() < 120
    assert main(["run", "--out", str(out), "--resume", "--jobs", "1", "--quiet"]) == 0
    manifest = tables.read_manifest(out)
    assert manifest["status"] == "complete" and manifest["games_done"] == 120
    assert [s["status"] for s in manifest["sessions"]] == ["interrupted", "complete"]


def test_resume_checks_its_settings_and_a_run_folder_is_not_reused(
    small_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--bots", "random", "--players", "2", "--out", str(small_run)]) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert main(["run", "--out", str(small_run), "--resume", "--players", "4"]) == 2
    assert "settings differ" in capsys.readouterr().err
    assert main(["run", "--out", str(small_run), "--resume", "--games", "5"]) == 2
    assert "a run can grow, not shrink" in capsys.readouterr().err
    result = runner.run(None, small_run, resume=True, options=RunOptions(jobs=1, quiet=True))
    assert result.complete and result.played == 0


# -- bad configurations ------------------------------------------------------------------------
BAD = {
    "unknown bot": (["--bots", "random,genius"], "unknown bot 'genius'"),
    "5 players": (["--bots", "random", "--players", "5"], "needs the line_clear variant"),
    "negative games": (
        ["--bots", "random", "--players", "2", "--games", "-3"],
        "games must be at least 1",
    ),
    "missing expansion file": (
        ["--bots", "random", "--players", "2", "--expansion-file", "phoenix=/no/such.json"],
        "/no/such.json",
    ),
    "unknown expansion": (
        ["--bots", "random", "--players", "2", "--expansions", "shiny"],
        "unknown expansion 'shiny'",
    ),
    "an expansion played by its switch": (
        ["--bots", "random", "--players", "2", "--expansions", "endless"],
        "endless is not played by name but by the rules switch endless_white_deck",
    ),
    "6 players without 24 black puzzles": (
        ["--bots", "random", "--players", "6", "--variant", "line_clear"],
        "6 players need 24 black puzzles, the catalogue has 20: add the ghost_piece or phoenix",
    ),
    "solo at 2": (
        ["--bots", "random", "--players", "2", "--variant", "solo"],
        "2 players needs the standard variant (--variant standard); solo is for 1 player",
    ),
    "unknown variant": (
        ["--bots", "random", "--players", "2", "--variant", "coop"],
        "unknown variant 'coop'",
    ),
    "difficulty": (
        ["--bots", "random", "--players", "2", "--difficulty", "hard"],
        "solo variant only",
    ),
    "too many bots": (
        ["--bots", "random,random,random", "--players", "2"],
        "has 3 bots for 2 players",
    ),
    "one bot": (["--bots", "random"], "give --players"),
    "bad rule": (
        ["--bots", "random", "--players", "2", "--rule", "tie_break=coin"],
        "unknown value 'coin'",
    ),
    "bad records": (
        ["--bots", "random", "--players", "2", "--records", "some"],
        "--records 'some'",
    ),
    "dask without scheduler": (
        ["--bots", "random", "--players", "2", "--backend", "dask"],
        "needs --scheduler",
    ),
    "unknown preset": (["--preset", "marathon"], "unknown preset 'marathon'"),
    "jobs": (["--bots", "random", "--players", "2", "--jobs", "0"], "--jobs must be at least 1"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_configuration_is_one_line_exit_2_before_any_game(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, message = BAD[case]
    out = tmp_path / "out"
    assert main(["run", *args, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("projectl-sim: error: ") and err.count("\n") == 1, err
    assert message in err
    assert not out.exists()


def test_an_unwritable_folder_or_a_bad_config_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["run", "--bots", "random", "--players", "2", "--out", str(blocker / "x")]) == 2
    assert "cannot write to output folder" in capsys.readouterr().err
    for name, text, message in [
        ("a.toml", "bots = [", "malformed TOML"),
        ("b.yaml", "bots: [random\n", "malformed YAML"),
        ("c.toml", 'bots = "random"\nplayers = 2\nspeed = 3\n', "unknown setting 'speed'"),
        ("d.json", "{}", "use a .toml, .yaml or .yml file"),
    ]:
        (tmp_path / name).write_text(text)
        assert main(["run", "--config", str(tmp_path / name), "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def test_the_cli_runs_a_preset_and_prints_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "smoke"
    assert main(["run", "--preset", "smoke", "--out", str(out), "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    assert "by bot" in captured.out and "20 games, 0 failed" in captured.out
    assert "root seed 1" in captured.err
    assert json.loads((out / "manifest.json").read_text())["config"]["games"] == 20
    after = captured.err.split("next:\n")[1]  # the answers, then what to try next
    assert f"projectl-sim summary {out}" in after and f"projectl-sim report {out}" in after


def rules_catalogue_name(path: Path) -> str:
    """The name a catalogue file's provisional data goes by in result rows."""
    from projectl_sim.loading import load_catalogue

    return load_catalogue(path).name


def test_a_custom_catalogue_is_played_and_marks_provisional_rows(tmp_path: Path) -> None:
    data = json.loads(
        (Path(runner.__file__).parent.parent / "data" / "base_catalogue.json").read_text("utf-8")
    )
    data["puzzles"] = [p for p in data["puzzles"] if p["id"] not in ("B01", "B02", "B03")]
    data["puzzles"][0]["provisional"] = True
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "run"
    play(out, spec(catalogue=str(path), games=6))
    seats = tables.read_table(out, "seats").to_pandas()
    assert seats["provisional_data"].all()
    # the row names the provisional data: this catalogue (no tiles: not a Finesse game)
    assert (seats["provisional_sets"] == rules_catalogue_name(path)).all()
    manifest = tables.read_manifest(out)
    assert manifest["config"]["catalogue"] == str(path.resolve())
    rules, _, _ = game_from_run(out, int(seats["game_id"].iloc[0]))
    assert len(rules.catalogue.puzzles) == 49
    # a base-catalogue run is not provisional
    base = tmp_path / "base"
    play(base, spec(games=2))
    base_seats = tables.read_table(base, "seats").to_pandas()
    assert not base_seats["provisional_data"].any() and base_seats["provisional_sets"].isna().all()
    # a malformed catalogue stops the run before any game
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ProjectLError, match="catalogue"):
        spec(catalogue=str(bad))


def test_finesse_rows_carry_the_credit_columns(tmp_path: Path) -> None:
    run_spec = spec(
        bots=["greedy", "random"],
        players=[1, 2],
        variant="standard,solo",
        expansions="none,finesse",
    )
    out = tmp_path / "finesse"
    play(out, replace(run_spec, games=4))
    seats = tables.read_table(out, "seats").to_pandas()
    fin = seats[seats["expansions"] == "finesse"]
    base = seats[seats["expansions"] == "none"]
    assert len(fin) and len(base)
    from projectl_sim.expansions.finesse import Finesse

    assert [c.name for c in Finesse.columns] == [
        "credits_final", "credits_earned", "credits_spent", "inserts", "finishing_credits"
    ]  # fmt: skip
    for column in (c.name for c in Finesse.columns):
        assert base[column].isna().all() and fin[column].notna().all()
    # Credits held at the end = earned - spent - given back to an empty bank (never more)
    assert (fin["credits_final"] <= fin["credits_earned"] - fin["credits_spent"]).all()
    assert (fin["inserts"] == fin["actions_insert"]).all()
    assert (fin["credits_spent"] >= 2 * fin["inserts"] + fin["finishing_credits"]).all()
    # the shipped Set A/B tiles are provisional: every Finesse row says so
    assert fin["provisional_data"].all() and not base["provisional_data"].any()
    assert (fin["provisional_sets"] == "finesse_tiles").all()
    # Finesse Solo keeps its own rows in the solo win-rate table (by expansions and difficulty)
    solo = fin[fin["players"] == 1]
    assert (solo["variant"] == "solo").all() and len(solo)


def test_finesse_switch_and_tiles_file_in_a_grid(tmp_path: Path) -> None:
    from records_util import TEST_TILES_FILE

    run_spec = spec(
        bots=["random"],
        players=[2],
        expansions="finesse",
        rules={"finesse_ambassador": "false,true"},
        tiles=str(TEST_TILES_FILE),
    )
    configs, _ = plan(run_spec, 1)
    assert [c.columns()["switches"] for c in configs] == ["default", "finesse_ambassador=true"]
    assert all(c.rules().finesse_tiles.name == "test" for c in configs)
    assert configs[1].rules().finesse_ambassador
    with pytest.raises(ProjectLError, match="add finesse to --expansions"):
        plan(spec(bots=["random"], players=[2], tiles=str(TEST_TILES_FILE)), 1)
    with pytest.raises(ProjectLError, match="finesse_ambassador applies to the finesse"):
        plan(spec(bots=["random"], players=[2], rules={"finesse_ambassador": "true"}), 1)


def test_solo_unlock_is_swept_and_named_in_the_switches_column(tmp_path: Path) -> None:
    run_spec = spec(
        bots=["greedy"],
        players=[1],
        variant="solo",
        rules={"solo_unlock": "take,pass"},
        games=4,
    )
    configs, _ = plan(run_spec, 1)
    assert [c.columns()["switches"] for c in configs] == [
        "difficulty=normal",
        "difficulty=normal,solo_unlock=pass",
    ]
    assert [c.rules().solo_unlock for c in configs] == ["take", "pass"]
    out = tmp_path / "unlock"
    play(out, run_spec)
    games = tables.read_table(out, "games").to_pandas()
    assert sorted(games["switches"].unique()) == [
        "difficulty=normal",
        "difficulty=normal,solo_unlock=pass",
    ]
    passing = games.loc[games["switches"].str.contains("solo_unlock=pass"), "game_id"]
    rules, _, _ = game_from_run(out, int(passing.iloc[0]))
    assert rules.solo_unlock == "pass"
    with pytest.raises(ProjectLError, match="solo_unlock applies to the solo variant only"):
        plan(spec(bots=["random"], players=[2], rules={"solo_unlock": "pass"}), 1)


def test_expansion_columns_ambassadors_and_reshuffles(tmp_path: Path) -> None:
    # a catalogue with only 8 white puzzles, so that the Endless White Deck reshuffles
    data = json.loads(
        (Path(runner.__file__).parent.parent / "data" / "base_catalogue.json").read_text("utf-8")
    )
    whites = [p for p in data["puzzles"] if p["id"].startswith("W")][:8]
    data["puzzles"] = whites + [p for p in data["puzzles"] if p["id"].startswith("B")]
    path = tmp_path / "few_whites.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "run"
    run_spec = spec(
        bots=["greedy,random"],
        expansions="none,ambassador_pack",
        rules={"endless_white_deck": [False, True]},
        catalogue=str(path),
        games=6,
    )
    play(out, run_spec)
    seats = tables.read_table(out, "seats").to_pandas()
    games = tables.read_table(out, "games").to_pandas()
    amb = seats["expansions"] == "ambassador_pack"
    assert seats.loc[amb, "ambassadors_unused"].notna().all()
    assert seats.loc[~amb, "ambassadors_unused"].isna().all()
    endless = games["switches"].str.contains("endless_white_deck=true")
    assert games.loc[~endless, "reshuffles"].isna().all()
    assert games.loc[endless, "reshuffles"].sum() > 0
    # the completed puzzles listed (noted ones included) are exactly the points scored
    from projectl_sim.loading import load_catalogue

    cat = load_catalogue(path, expansions=["ambassador_pack"])
    points = {p.id: p.points for p in cat.puzzles}
    listed = seats["puzzles_completed"].fillna("").str.split()
    assert (
        listed.map(lambda ids: sum(points[i] for i in ids)) == seats["points_from_puzzles"]
    ).all()
    assert (listed.map(len) == seats["completed_white"] + seats["completed_black"]).all()


class SleepyBot(RandomBot):
    """Random play that sleeps 2 ms over every decision: wall-clock time, next to no CPU."""

    name = "sleepy"

    def act(self, view, rng):  # type: ignore[no-untyped-def]
        time.sleep(0.002)
        return super().act(view, rng)


class BusyBot(RandomBot):
    """Random play that spins 2 ms of CPU over every decision."""

    name = "busy"

    def act(self, view, rng):  # type: ignore[no-untyped-def]
        end = time.thread_time() + 0.002
        while time.thread_time() < end:
            pass
        return super().act(view, rng)


def test_play_game_gathers_cpu_seconds_apart_from_wall_clock() -> None:
    from projectl_sim import Rules

    wall, cpu = [0.0, 0.0], [0.0, 0.0]
    outcome = play_game(
        Rules(players=2), [SleepyBot(), BusyBot()], 5, seconds=wall, cpu_seconds=cpu
    )
    assert outcome.state.is_over
    # the sleeper waited: its wall clock ran, its CPU hardly did; the spinner used its CPU
    assert wall[0] > 5 * cpu[0] and wall[0] > 0.02
    assert cpu[1] > 0.02 and cpu[1] <= wall[1] * 1.05 + 0.005
    assert cpu[1] > 5 * cpu[0]


def test_the_runner_writes_cpu_seconds_per_decision_and_summary_says_cpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from projectl_sim.analysis.answers import summary_text

    monkeypatch.setitem(bots.REGISTRY, "sleepy", SleepyBot)
    out = tmp_path / "run"
    play(out, spec(bots=["sleepy,random"], games=2))
    seats = tables.read_table(out, "seats").to_pandas()
    sleepy = seats[seats["bot"] == "sleepy"]
    assert seats["decision_cpu_mean"].notna().all()
    assert (sleepy["decision_time_mean"] > 0.002).all()
    # the 2 ms sleep is in the wall time and not in the CPU time (a loaded machine stretches
    # the wall time of the work around it, so the CPU is not compared with a share of the wall)
    assert (sleepy["decision_time_mean"] - sleepy["decision_cpu_mean"] > 0.0015).all()
    assert (sleepy["decision_cpu_mean"] < 0.002).all()
    text = summary_text(out)
    assert "CPU seconds per decision" in text[text.index("== Time per decision") :]


@pytest.mark.parametrize(
    ("games", "seconds", "said"),
    [
        (4, 41.6, "10.4 s per game"),  # mcts at 4 players: the issue saw "0 games/s" here
        (5, 2.0, "2.5 games/s"),
        (120, 1.2, "100 games/s"),
        (0, 0.0, "no games timed"),
    ],
)
def test_a_runs_speed_is_readable_for_slow_bots(games: int, seconds: float, said: str) -> None:
    assert runner.speed(games, seconds) == said


def test_a_slow_run_says_seconds_per_game(tmp_path: Path) -> None:
    lines: list[str] = []
    bot = f"{(TESTS / 'fault_bots.py')}:SlowBot:delay=0.1,first=15"  # 1.5 s a game
    options = RunOptions(jobs=1, echo=lines.append)
    runner.run(spec(bots=[f"{bot},random"], games=2), tmp_path / "run", options=options)
    assert re.search(r"2 games played in [\d.]+ s \([\d.]+ s per game\)", "\n".join(lines))
