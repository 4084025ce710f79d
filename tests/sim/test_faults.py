"""Fault injection: kills, Ctrl-C, a full disk, hanging and raising bots, bots from files, two
writers. Each case ends with the tables of an uninterrupted run (timing columns aside), or a clear
one-line refusal, and never a game missing or twice."""

from __future__ import annotations

import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fault_bots import VandalBot, WholeViewVandalBot
from paths import TESTS
from table_util import without_timing

import bots
from bots.random_bot import RandomBot
from projectl_sim import Rules
from projectl_sim.cli import main
from projectl_sim.errors import RunFailed, RunInterrupted, UsageError
from projectl_sim.sim import runner, tables, workers
from projectl_sim.sim import spec as run_spec
from projectl_sim.sim.play import play_game
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec, plan

FAULT_BOTS = str(TESTS / "fault_bots.py")
CLI = [sys.executable, "-m", "projectl_sim", "run"]


def settings(**changes: Any) -> dict[str, Any]:
    return {"bots": ["random"], "players": [2, 3], "games": 20, "seed": 11} | changes


def run(out: Path, given: dict[str, Any] | None, jobs: int = 2, **options: Any) -> Any:
    spec = RunSpec.from_mapping(given) if given is not None else None
    return runner.run(
        spec, out, resume=given is None, options=RunOptions(jobs=jobs, quiet=True, **options)
    )


_REFERENCES: dict[str, Path] = {}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Return the folder of an uninterrupted run of some settings (each played once)."""

    def get(given: dict[str, Any], **options: Any) -> Path:
        key = json.dumps([given, options], sort_keys=True)
        if key not in _REFERENCES:
            out = tmp_path_factory.mktemp("reference") / "run"
            run(out, given, **options)
            _REFERENCES[key] = out
        return _REFERENCES[key]

    return get


def assert_same_tables(a: Path, b: Path) -> None:
    one, two = without_timing(a), without_timing(b)
    for name in tables.TABLES:
        if not one[name].equals(two[name]):  # say which games differ, and how
            x, y = one[name].to_pandas(), two[name].to_pandas()
            if len(x) != len(y):
                raise AssertionError(f"{name}: {len(x)} rows against {len(y)}")
            differ = ((x != y) & ~(x.isna() & y.isna())).any(axis=1)
            columns = [c for c in x if ((x[c] != y[c]) & ~(x[c].isna() & y[c].isna())).any()]
            shown = x.loc[differ, ["game_id", *columns]].head(3).to_dict("records")
            raise AssertionError(f"{name}: columns {columns} differ, e.g. {shown}")
    ids = one["games"].column("game_id").to_pylist()
    assert ids == list(range(len(ids)))  # every game once


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def start(args: list[str], **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a kill reaches its workers too
        env=os.environ | env,
    )


def wait_for_parts(out: Path, proc: subprocess.Popen[str] | None, parts: int) -> None:
    deadline = time.monotonic() + 60
    while len(list((out / "parts" / "games").glob("part-*.parquet"))) < parts:
        assert proc is None or proc.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < deadline, "no parts appeared"
        time.sleep(0.02)


def children(pid: int) -> list[int]:
    """Return the ids of the processes whose parent is ``pid``."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def gone(pids: list[int], timeout: float = 10) -> bool:
    """Wait until none of ``pids`` is a live process; return whether that happened."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
        if not alive:
            return True
        time.sleep(0.05)
    return False


def wait_for_session(out: Path, proc: subprocess.Popen[str], n: int) -> None:
    """Wait until the run's manifest lists ``n`` sessions."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if len(tables.read_manifest(out)["sessions"]) >= n:
                return
        except UsageError:
            pass
        assert proc.poll() is None, "the run ended before it could be stopped"
        assert time.monotonic() < deadline, "the session did not start"
        time.sleep(0.02)


def stop(proc: subprocess.Popen[str], sig: int, timeout: float = 30) -> tuple[str, str]:
    try:
        os.killpg(proc.pid, sig)
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def cli_args(given: dict[str, Any], out: Path, *more: str) -> list[str]:
    args = [
        *("--bots", *given["bots"]),
        *("--players", ",".join(map(str, given["players"]))),
        *("--games", str(given["games"]), "--seed", str(given["seed"]), "--out", str(out)),
    ]
    return [*args, *more]


# -- kills, Ctrl-C, two writers ----------------------------------------------------------------
def test_kill_9_of_the_parent_at_random_moments_then_resume(reference: Any, tmp_path: Path) -> None:
    given = settings(games=100)
    out = tmp_path / "killed"
    moments = random.Random(16).sample([0.0, 0.1, 0.2, 0.4], 2)
    for i, delay in enumerate(moments):
        args = cli_args(given, out, "--jobs", "2", "--chunk", "4", "--quiet")
        proc = start([*args, *(["--resume"] if i else [])])
        wait_for_session(out, proc, i + 1)
        wait_for_parts(out, proc, 1 + i)
        time.sleep(delay)
        playing = children(proc.pid)
        stop(proc, signal.SIGKILL)
        assert proc.returncode == -signal.SIGKILL
        assert playing and gone(playing)  # its workers end with it (their own session)
    manifest = tables.read_manifest(out)
    assert manifest["status"] == "running"  # nobody could say otherwise...
    assert tables.lock_holder(out) is None  # ...but no one holds the run: the lock died too
    result = run(out, None)
    assert result.complete
    assert_same_tables(out, reference(given))
    sessions = tables.read_manifest(out)["sessions"]
    assert [s["status"] for s in sessions] == ["killed", "killed", "complete"]


def test_workers_killed_at_random_moments_are_replaced(
    reference: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # enough games that the run outlasts the killer's waits however fast the bots are
    given = settings(games=300, bots=["random,greedy"])
    killed: list[int] = []
    done = threading.Event()

    def killer() -> None:
        rng = random.Random(7)
        while not done.wait(rng.uniform(0.02, 0.2)) and len(killed) < 2:  # < DEATHS_PER_GAME
            pids = workers.worker_pids(playing=True)
            if pids:
                pid = rng.choice(pids)
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        result = run(tmp_path / "run", given)
    finally:
        done.set()
        thread.join()
    assert killed and result.complete
    assert_same_tables(tmp_path / "run", reference(given))


def test_ctrl_c_before_the_first_game_then_resume(reference: Any, tmp_path: Path) -> None:
    given = settings(bots=[f"{FAULT_BOTS}:SlowBot:delay=0.5,first=1"], players=[2], games=2)
    out = tmp_path / "early"
    proc = start(cli_args(given, out, "--jobs", "1", "--quiet"))
    deadline = time.monotonic() + 30
    while not (out / tables.MANIFEST).exists():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    started = time.monotonic()
    _, err = stop(proc, signal.SIGINT)
    assert time.monotonic() - started < 10
    assert proc.returncode == 130, err
    line = one_line(err)
    assert line.startswith("projectl-sim: interrupted: 0/2 games saved in")
    assert f"finish with: projectl-sim run --out {out} --resume" in line
    manifest = tables.read_manifest(out)
    assert manifest["status"] == "interrupted" and manifest["games_done"] == 0
    assert [s["status"] for s in manifest["sessions"]] == ["interrupted"]
    assert main(["summary", str(out)]) == 0  # no TypeError on an empty run
    assert run(out, None).complete
    assert_same_tables(out, reference(given))


def test_two_writers_on_one_folder(reference: Any, tmp_path: Path, capsys: Any) -> None:
    given = settings(bots=[f"{FAULT_BOTS}:SlowBot:delay=0.004,random"], players=[2], games=6)
    out = tmp_path / "shared"
    proc = start(cli_args(given, out, "--jobs", "1", "--chunk", "2", "--quiet"))
    try:
        wait_for_parts(out, proc, 1)
        assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 2
        line = one_line(capsys.readouterr().err)
        assert f"{out} is being written by pid {proc.pid} on " in line
        assert "one run folder has one writer" in line
        assert main(["run", *cli_args(given, out), "--quiet"]) == 2  # a fresh run there
        assert f"is being written by pid {proc.pid}" in one_line(capsys.readouterr().err)
        assert proc.poll() is None  # the first writer never noticed
    finally:
        stop(proc, signal.SIGKILL)
    assert run(out, None).complete
    assert_same_tables(out, reference(given))


def interrupt_after(monkeypatch: pytest.MonkeyPatch, part: int) -> None:
    """Make the run stop as at Ctrl-C once it has written part number ``part``; parts are
    written by the chunk's size alone (a slow start would flush a short part on time)."""
    monkeypatch.setattr(runner, "FLUSH_SECONDS", 1e9)
    real = tables.write_part
    raised: list[bool] = []

    def write_part(run_dir: Path, number: int, *rows: Any) -> None:
        real(run_dir, number, *rows)
        if number == part and not raised:
            raised.append(True)
            raise KeyboardInterrupt

    monkeypatch.setattr(tables, "write_part", write_part)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_manifest_turns_running_is_closed_up_like_any_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    # the signal arrives as the manifest says "running", before the games' loop (a Ctrl-C
    # there used to leave a "running" manifest and an empty message)
    out = tmp_path / "stopped"
    real = tables.write_manifest
    sent: list[bool] = []

    def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
        real(run_dir, manifest)
        if manifest.get("status") == "running" and not sent:
            sent.append(True)
            os.kill(os.getpid(), signum)

    monkeypatch.setattr(tables, "write_manifest", write_manifest)
    with pytest.raises(RunInterrupted) as info:
        run(out, settings(), jobs=1)
    assert str(info.value) == (
        f"interrupted: 0/40 games saved in {out}; finish with: projectl-sim run --out {out} "
        "--resume"
    )
    assert tables.read_manifest(out)["status"] == "interrupted"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handlers put back
    monkeypatch.setattr(tables, "write_manifest", real)
    assert run(out, None, jobs=1).complete


def test_consolidation_refuses_a_game_held_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    out = tmp_path / "twice"
    interrupt_after(monkeypatch, 1)
    with pytest.raises(RunInterrupted, match="interrupted: 10/40 games saved"):
        run(out, settings(), chunk=5)
    parts = out / "parts"
    for table in ("seats", "games"):  # what two writers did: a part written twice
        shutil.copy(parts / table / "part-00000.parquet", parts / table / "part-00007.parquet")
    # the workers' games come as they finish, so any five can be in the first part
    twice = pq.read_table(parts / "games" / "part-00000.parquet")["game_id"].to_pylist()
    assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 2
    line = one_line(capsys.readouterr().err)
    assert (
        f"its parts are inconsistent (5 game(s) appear more than once (game {min(twice)} first)"
        in line
    )
    games = tables.read_parts(out, "games")
    assert tables.check_games(games, tables.read_parts(out, "seats"), 40)[0].startswith("5 game")
    assert tables.check_games(games, tables.read_parts(out, "seats"), 40)[-1] == (
        "30 of 40 planned games missing"
    )


# -- a full disk -------------------------------------------------------------------------------
def test_a_full_disk_is_one_line_and_resume_finishes(
    reference: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given = settings(games=30)
    out = tmp_path / "full"
    real = tables.write_part
    calls = []

    def write_part(run_dir: Path, number: int, *rows: Any) -> None:
        calls.append(number)
        if len(calls) == 3:  # the third part meets a full disk
            path = run_dir / "parts" / "seats" / f"part-{number:05d}.parquet"
            raise tables.WriteError(path, OSError(errno.ENOSPC, "No space left on device"))
        real(run_dir, number, *rows)

    monkeypatch.setattr(tables, "write_part", write_part)
    with pytest.raises(RunFailed) as info:
        run(out, given, chunk=6)
    message = str(info.value)
    assert message.startswith("no space left on ") and "\n" not in message
    assert f"while writing {out}/parts/seats/part-00002.parquet; free space and --resume" in message
    assert "12/60 games saved" in message
    manifest = tables.read_manifest(out)
    assert manifest["status"].startswith("failed: no space left on ")
    assert manifest["games_done"] == 12 and manifest["sessions"][0]["status"] != "running"
    assert not (out / "seats.parquet").exists()  # the parts are the tables
    assert tables.read_table(out, "games").num_rows == 12
    monkeypatch.setattr(tables, "write_part", real)
    assert run(out, None).complete
    assert_same_tables(out, reference(given))


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"], capture_output=True
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and unshare to mount a tmpfs")
def test_a_real_full_disk_on_a_small_tmpfs(reference: Any, tmp_path: Path) -> None:
    given = settings(games=60)
    disk, saved = tmp_path / "disk", tmp_path / "saved"
    disk.mkdir()
    out = disk / "run"
    run_cmd = " ".join([*CLI, *cli_args(given, out, "--jobs", "1", "--chunk", "2", "--quiet")])
    # In a mount namespace of its own (gone when the script ends): a 2 MB tmpfs, a run on it,
    # and, once it has saved a few parts, another program filling the disk.
    script = f"""
        mount -t tmpfs -o size=2m tmpfs {disk}
        {run_cmd} 2> {tmp_path}/err &
        while [ "$(ls {out}/parts/games 2>/dev/null | wc -l)" -lt 2 ]; do sleep 0.02; done
        dd if=/dev/zero of={disk}/filler bs=64k 2>/dev/null
        wait $!; echo $? > {tmp_path}/rc
        cp -a {out} {saved}
    """
    subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        check=True,
        timeout=120,
    )
    assert (tmp_path / "rc").read_text().strip() == "1"
    line = one_line((tmp_path / "err").read_text())
    assert line.startswith("projectl-sim: error: no space left on tmpfs (")
    assert "; free space and --resume (" in line
    manifest = tables.read_manifest(saved)
    assert manifest["status"].startswith("failed: no space left on tmpfs")
    assert run(saved, None).complete
    assert_same_tables(saved, reference(given))


# -- hanging, raising and user bots ------------------------------------------------------------
def test_a_hanging_bot_costs_its_game_not_the_run(reference: Any, tmp_path: Path) -> None:
    # a busy loop (seat 0) and a sleep (seat 1), at --jobs 1, where a hang used to stop it all
    spin, asleep = f"{FAULT_BOTS}:HangBot:p=0.003", f"{FAULT_BOTS}:HangBot:p=0.003,how=sleep"
    given = settings(bots=[f"{spin},{asleep}"], players=[2], games=3, seed=1)  # 2 hang
    limits = {"decision_timeout": 0.3}
    out = tmp_path / "hang"
    result = run(out, given, jobs=1, **limits)
    assert result.complete
    games = tables.read_table(out, "games").to_pandas()
    hung = games[games["error"].notna()]
    assert 0 < len(hung) < len(games)
    assert hung["error"].str.contains(r"timed out after 0\.3 s: a decision went over").all()
    assert hung["error"].str.contains("HangBot").all() and hung["error_seat"].notna().all()
    bots_hung = {e.split(" (seat")[0] for e in hung["error"]}
    assert bots_hung == {f"bot {spin}", f"bot {asleep}"}  # both kinds of hang were stopped
    first = hung.iloc[0]
    assert f"game seed {first['seed']}" in first["error"]
    assert tables.read_manifest(out)["limits"] == {"decision_timeout": 0.3, "game_timeout": 3600}
    assert_same_tables(out, reference(given, jobs=2, **limits))


def test_a_game_over_its_time_limit_is_an_error_row(tmp_path: Path) -> None:
    given = settings(bots=[f"{FAULT_BOTS}:SlowBot:delay=0.02"], players=[2], games=2)
    out = tmp_path / "slow"
    result = run(out, given, jobs=2, game_timeout=0.4)
    assert result.complete and result.failed == 2
    errors = tables.read_table(out, "games").column("error").to_pylist()
    assert all("timed out after 0.4 s: the game went over --game-timeout 0.4" in e for e in errors)


def test_a_game_that_crashes_its_worker_is_an_error_row_after_three_tries(tmp_path: Path) -> None:
    crash = f"{FAULT_BOTS}:CrashBot:p=0.003"
    given = settings(bots=[f"{crash},random"], players=[2], games=2, seed=7)  # 1 of 2 crashes
    result = run(tmp_path / "crash", given, jobs=2)
    assert result.complete and result.failed == 1
    error = tables.read_table(tmp_path / "crash", "games").column("error").drop_null()[0]
    times = workers.DEATHS_PER_GAME
    assert str(error).startswith(
        f"the game's worker died {times} times while playing it (killed by SIGSEGV)"
    )


def test_a_raising_bot_is_an_error_row_for_any_jobs(reference: Any, tmp_path: Path) -> None:
    given = settings(bots=[f"{FAULT_BOTS}:RaiseBot,random"], players=[2], games=24)
    run(tmp_path / "one", given, jobs=1)
    games = tables.read_table(tmp_path / "one", "games").to_pandas()
    assert 0 < games["error"].notna().sum() < len(games)
    assert games["error"].dropna().str.contains("raised RuntimeError: boom").all()
    assert_same_tables(tmp_path / "one", reference(given))


def test_bots_from_a_file_a_module_and_a_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    plugin = tmp_path / "plugins"
    (plugin / "probot-1.0.dist-info").mkdir(parents=True)
    (plugin / "probot-1.0.dist-info" / "METADATA").write_text("Name: probot\nVersion: 1.0\n")
    (plugin / "probot-1.0.dist-info" / "entry_points.txt").write_text(
        "[projectl_sim.bots]\nslowpoke = fault_bots:SlowBot\n"
    )
    monkeypatch.syspath_prepend(str(plugin))
    monkeypatch.syspath_prepend(str(Path(FAULT_BOTS).parent))
    relative = os.path.relpath(FAULT_BOTS)
    lineups = {
        "file": (f"{relative}:SlowBot:delay=0", f"{FAULT_BOTS}:SlowBot:delay=0.0"),
        "module": ("fault_bots:SlowBot,delay=0", "fault_bots:SlowBot:delay=0.0"),
        "plugin": ("slowpoke:delay=0", "slowpoke:delay=0.0"),
    }
    for kind, (given, shown) in lineups.items():
        out = tmp_path / kind
        assert (
            main(
                [
                    "run",
                    "--bots",
                    f"{given},random",
                    "--players",
                    "2",
                    "--games",
                    "4",
                    "--seed",
                    "5",
                    "--out",
                    str(out),
                    "--jobs",
                    "2",
                    "--quiet",
                ]
            )
            == 0
        ), kind
        seats = tables.read_table(out, "seats").to_pandas()
        assert set(seats["bot_spec"]) == {shown, "random"}, kind
        named = shown if kind == "plugin" else "slow:delay=0.0"  # the name the class declares
        assert set(seats["bot"]) == {named, "random"}, kind
        assert seats["error"].isna().all()
        _, seat_bots, _ = runner.game_from_run(out, 0)  # the table's spec builds it again
        assert repr(seat_bots[0]) in (shown, "random")
    capsys.readouterr()
    bad = {
        f"{tmp_path}/nowhere.py:Bot": f"bot file {tmp_path}/nowhere.py: no such file",
        f"{FAULT_BOTS}:Missing": f"bot file {FAULT_BOTS} has no class 'Missing'",
        f"{FAULT_BOTS}:NotABot": "is not a bot class (a subclass of bots.Bot)",
        "no_such_module:Bot": "bot no_such_module:Bot: no module named 'no_such_module'",
        "fault_bots:Missing": "module 'fault_bots' has no class 'Missing'",
        f"{FAULT_BOTS}:HangBot:p=2": "HangBot: p=2.0 is out of range (valid: a finite number",
    }
    for spec, message in bad.items():
        args = ["run", "--bots", spec, "--players", "2", "--out", str(tmp_path / "x")]
        assert main(args) == 2, spec
        assert message in one_line(capsys.readouterr().err), spec
        assert not (tmp_path / "x").exists()


def test_a_bot_registered_in_the_parent_reaches_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Local(RandomBot):  # defined here, not importable: the workers get it by value
        name = "local"

    monkeypatch.setitem(bots.REGISTRY, "local", Local)
    result = run(tmp_path / "local", settings(bots=["local,random"], players=[2], games=4))
    assert result.complete and result.failed == 0


def test_a_worker_error_before_the_first_game_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("FAULT_PARENT_PID", str(os.getpid()))
    out = tmp_path / "licence"
    args = ["run", "--bots", f"{FAULT_BOTS}:ParentOnlyBot", "--players", "2", "--games", "4"]
    assert main([*args, "--out", str(out), "--jobs", "2", "--quiet"]) == 1
    line = one_line(capsys.readouterr().err)
    assert line.startswith("projectl-sim: error: a worker cannot start the run: RuntimeError: ")
    assert "only the parent can reach (0/4 games saved in" in line
    manifest = tables.read_manifest(out)
    assert manifest["status"].startswith("failed: a worker cannot start the run")
    assert [s["status"] for s in manifest["sessions"]] == [manifest["status"]]
    assert main(["summary", str(out)]) == 0
    assert "0 games, 0 failed" in capsys.readouterr().out


# -- huge and growing runs ---------------------------------------------------------------------
def test_a_huge_run_plans_its_seeds_as_it_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    huge = RunSpec.from_mapping(settings(games=10**11))
    _, tasks = plan(huge, 11)
    assert len(tasks) == 2 * 10**11  # identical bots: one rotation at 2 and at 3 players
    _, small = plan(RunSpec.from_mapping(settings(games=5)), 11)
    assert tasks[:5] == small[:5]  # the same seeds as before, the first games first
    assert tasks[10**11].config_id == 1 and tasks[10**11].seed == small[5].seed
    # refused at once, in one line, against the disk's free space
    args = ["run", "--bots", "random", "--players", "2", "--games", "100000000000"]
    assert main([*args, "--out", str(tmp_path / "huge")]) == 2
    line = one_line(capsys.readouterr().err)
    assert "100000000000 games need about " in line and " free: play fewer games" in line
    assert not (tmp_path / "huge").exists()
    # with the room for it, it starts writing at once
    monkeypatch.setattr(tables, "free_bytes", lambda path: 10**18)
    interrupt_after(monkeypatch, 1)
    with pytest.raises(RunInterrupted, match="interrupted: 10/200000000000 games saved"):
        run(tmp_path / "huge", settings(games=10**11), chunk=5)
    manifest = tables.read_manifest(tmp_path / "huge")
    assert manifest["games_planned"] == 2 * 10**11 and manifest["status"] == "interrupted"


def test_a_run_grows_without_renumbering_its_games(
    reference: Any, tmp_path: Path, capsys: Any
) -> None:
    small, large = settings(games=6, records="sample:2"), settings(games=10, records="sample:2")
    out = tmp_path / "grown"
    run(out, small)
    before = tables.read_table(out, "games").to_pandas()
    assert main(["run", "--out", str(out), "--resume", "--games", "10", "--quiet"]) == 0
    capsys.readouterr()
    grown = tables.read_table(out, "games").to_pandas()
    manifest = tables.read_manifest(out)
    assert manifest["games_history"] == [6, 10] and manifest["config"]["games"] == 10
    assert manifest["status"] == "complete" and manifest["games_done"] == len(grown) == 20
    # the first games keep their ids and seeds; the new ones come after all of them
    key = ["config_id", "deal", "rotation", "seed"]
    assert grown.iloc[: len(before)][["game_id", *key]].equals(before[["game_id", *key]])
    assert grown["game_id"].tolist() == list(range(20))
    # the games are those a run of 10 from the start plays (numbered differently)
    fresh = tables.read_table(reference(large), "games").to_pandas()
    assert sorted(map(tuple, grown[key].values)) == sorted(map(tuple, fresh[key].values))
    # ...and have its run id: the id names the grid and the seed, not the size
    assert set(grown["run_id"]) == set(fresh["run_id"]) == {manifest["run_id"]}
    drop = ["game_id", "duration"]
    mine = grown.drop(columns=drop).sort_values(key).reset_index(drop=True)
    theirs = fresh.drop(columns=drop).sort_values(key).reset_index(drop=True)
    assert mine.equals(theirs)
    # and it can grow again, from an interrupted state too
    assert run(out, None).complete  # nothing to grow: already complete
    more = RunSpec.from_mapping(settings(games=14, records="sample:2"))
    assert runner.run(more, out, resume=True, options=RunOptions(jobs=2, quiet=True)).complete
    assert tables.read_manifest(out)["games_history"] == [6, 10, 14]
    assert len(list((out / tables.RECORDS).glob("*.json"))) == 6  # 2 per growth


# -- the manifest, checked ---------------------------------------------------------------------
def _partial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return a run stopped after 10 of its 40 games (two parts written)."""
    out = tmp_path / "partial"
    interrupt_after(monkeypatch, 1)
    with pytest.raises(RunInterrupted, match="10/40 games saved"):
        run(out, settings(), chunk=5)
    monkeypatch.undo()
    return out


def _edited(src: Path, dst: Path, edit: Any) -> Path:
    shutil.copytree(src, dst)
    manifest = tables.read_manifest(dst)
    edit(manifest)
    tables.write_manifest(dst, manifest)
    return dst


def _folder(run_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}


def test_resume_refuses_a_manifest_that_does_not_describe_its_run(
    reference: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    partial = _partial(tmp_path, monkeypatch)
    other = RunSpec.from_mapping(settings(seed=12))
    bots = RunSpec.from_mapping(settings(bots=["random,greedy"]))

    def seed(m: dict[str, Any]) -> None:  # what a hand edit of the seed has to change...
        m["root_seed"] = m["config"]["seed"] = 12

    def bots_too(m: dict[str, Any]) -> None:  # ...and of the line-ups
        m["config"]["bots"] = ["random,greedy"]
        m["configs"] = [c.to_json() for c in run_spec.configurations(bots)]

    edits: list[tuple[Any, str]] = [
        (lambda m: m.update(root_seed=12), "names root seed 12 but its settings seed 11"),
        (seed, "not the id of its settings and seed"),
        (
            lambda m: (seed(m), m.update(run_id=run_spec.run_id_of(other, 12))),
            "its tables hold games of",
        ),
        (lambda m: m["config"].update(bots=["random,greedy"]), "configurations its settings"),
        (bots_too, "not the id of its settings and seed"),
        (lambda m: m["config"].update(games=30), "which does not grow to games 30"),
        (lambda m: m["configs"][0].update(players=4), "configurations its settings"),
        (lambda m: m.update(format="projectl-run/2"), "is of format 'projectl-run/2'"),
        (lambda m: m.pop("format"), "is of format None"),
    ]
    for i, (edit, why) in enumerate(edits):
        out = _edited(partial, tmp_path / f"edit{i}", edit)
        before = _folder(out)
        assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 2, why
        line = one_line(capsys.readouterr().err)
        assert line.startswith(f"projectl-sim: error: --resume: {out / tables.MANIFEST} "), line
        assert why in line, line
        assert _folder(out) == before  # nothing written, nothing removed
    # a forged id too: the games written say what they are
    forged = RunSpec.from_mapping(settings(seed=12, bots=["random,greedy"]))

    def everything(m: dict[str, Any]) -> None:
        seed(m)
        bots_too(m)
        m["run_id"] = run_spec.run_id_of(forged, 12)
        m["games_planned"] = len(run_spec.plan(forged, 12)[1])

    out = _edited(partial, tmp_path / "forged", everything)
    assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 2
    assert "its tables hold games of" in one_line(capsys.readouterr().err)
    # the manifest as written resumes, to the tables of an uninterrupted run
    assert run(partial, None).complete
    assert_same_tables(partial, reference(settings()))


def test_a_run_written_before_ids_left_out_the_size_resumes(
    reference: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _partial(tmp_path, monkeypatch)
    manifest = tables.read_manifest(out)
    old = run_spec.run_id_v1(RunSpec.from_mapping(settings()), 11, 20)
    assert old != manifest["run_id"]
    manifest["run_id"] = old
    tables.write_manifest(out, manifest)
    for table in tables.TABLES:  # its parts, and the tables consolidated from them
        for part in [*(out / "parts" / table).glob("part-*.parquet"), out / f"{table}.parquet"]:
            data = pq.read_table(part)
            column = pa.array([old] * data.num_rows, pa.string())
            pq.write_table(data.set_column(0, "run_id", column), part)
    assert run(out, None).complete
    games = tables.read_table(out, "games")
    assert set(games.column("run_id").to_pylist()) == {old}  # it keeps its id
    expected = without_timing(reference(settings()))["games"].drop_columns(["run_id"])
    assert without_timing(out)["games"].drop_columns(["run_id"]).equals(expected)


def test_a_complete_manifest_without_its_counts_is_counted_from_its_tables(
    reference: Any, tmp_path: Path, capsys: Any
) -> None:
    out = _edited(
        reference(settings()), tmp_path / "done", lambda m: [m.pop(k) for k in ("games_done",)]
    )
    assert main(["run", "--out", str(out), "--resume"]) == 0
    assert "is already complete" in capsys.readouterr().err.splitlines()[0]
    result = run(out, None)
    assert result.complete and result.games == 40 and result.failed == 0


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_an_unreadable_part_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, damage: str
) -> None:
    out = _partial(tmp_path, monkeypatch)
    part = out / "parts" / "games" / "part-00001.parquet"
    table = out / "games.parquet"  # consolidated when it stopped
    for path in (part, table):
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"garbage" * 40)
    # both files are damaged: the resume opens the parts; the summary names whichever of the
    # two it reads first (a window at a time, the parts of a stopped run among them)
    for command, paths in (
        (["run", "--out", str(out), "--resume"], (part,)),
        (["summary", str(out)], (table, part)),
    ):
        assert main(command) == 2
        line = one_line(capsys.readouterr().err)
        assert any(f"{path}: not a readable table (" in line for path in paths), line
    part.unlink()  # as the line says: its games are played again
    (out / "parts" / "seats" / part.name).unlink()
    assert run(out, None).complete
    assert main(["summary", str(out)]) == 0


def test_a_finished_run_leaves_no_lock_file(reference: Any, tmp_path: Path) -> None:
    out = reference(settings())
    assert not (out / tables.LOCK).exists()
    with tables.writer_lock(tmp_path):
        assert (tables.lock_holder(tmp_path) or "").startswith(f"pid {os.getpid()} on ")
    assert not (tmp_path / tables.LOCK).exists() and tables.lock_holder(tmp_path) is None


# -- bots cannot change the game ---------------------------------------------------------------
@pytest.mark.parametrize("expansions", [(), ("ghost_piece", "finesse", "ambassador_pack")])
def test_a_bot_cannot_change_the_tables_or_catalogue_it_is_shown(
    expansions: tuple[str, ...],
) -> None:
    rules = Rules(players=2, expansions=frozenset(expansions))
    honest = play_game(rules, [RandomBot(), RandomBot()], 5, seat_names=["a", "b"])
    vandal = VandalBot()
    played = play_game(rules, [vandal, RandomBot()], 5, seat_names=["a", "b"])
    assert vandal.writes == [] and vandal.tried > 1000, (vandal.tried, vandal.writes[:5])
    # every write was refused, so the game is the honest one, move for move, and so are the
    # games after it in this process
    assert played.record_json() == honest.record_json()
    after = play_game(rules, [RandomBot(), RandomBot()], 6, seat_names=["a", "b"]).record_json()
    assert (
        after
        == play_game(rules, [RandomBot(), RandomBot()], 6, seat_names=["a", "b"]).record_json()
    )


@pytest.mark.parametrize(
    ("variant", "players", "expansions"),
    [
        ("standard", 2, ("ghost_piece", "finesse", "ambassador_pack", "phoenix")),
        ("solo", 1, ("ghost_piece", "finesse")),
        ("line_clear", 5, ("ghost_piece",)),
    ],
)
def test_a_bot_that_writes_through_its_whole_view_changes_only_its_copy(
    variant: str, players: int, expansions: tuple[str, ...]
) -> None:
    # a view's copy holds the hooks of its rules, the expansions they play and the tables they
    # built, shared by every game of those rules in the process: once a bot wrote
    # ``view.hooks.slots`` or an expansion's ``rules``, the games after it were changed or crashed
    rules = Rules(players=players, variant=variant, expansions=frozenset(expansions))
    names = [str(seat) for seat in range(players)]

    def game(seed: int, first: Any) -> Any:
        return play_game(rules, [first, *[RandomBot() for _ in names[1:]]], seed, seat_names=names)

    honest = [game(seed, RandomBot()).record_json() for seed in (5, 6)]
    vandal = WholeViewVandalBot()
    assert game(5, vandal).record_json() == honest[0]
    assert game(6, RandomBot()).record_json() == honest[1]
    assert vandal.writes is not None and vandal.tried > 1000, vandal.tried
    # the walk reached what is shared, and only the copy's own fields took a write
    shared = (".hooks.", ".tables.", ".tileset.", ".piece_index", ".rules.")
    assert [w for w in vandal.writes if any(s in w for s in shared)] == []
    assert "copy.blocks.clear()" in vandal.writes
    assert {"Hooks", "GhostPiece", "GhostTables", "Tables", "ReadOnlyDict"} <= vandal.visited


def test_a_bot_that_rewrites_the_points_is_an_error_row_naming_it(tmp_path: Path) -> None:
    given = settings(bots=[f"{FAULT_BOTS}:RewriteBot,random"], players=[2], games=2)
    result = run(tmp_path / "rewrite", given, jobs=1)
    games = tables.read_table(tmp_path / "rewrite", "games").to_pylist()
    assert result.failed == 2 and {g["error_seat"] for g in games} == {0, 1}
    for g in games:
        assert g["error"].startswith(f"bot {FAULT_BOTS}:RewriteBot (seat {g['error_seat']}"), g
        assert "Tables.points is read-only" in g["error"]
    seats = tables.read_table(tmp_path / "rewrite", "seats").column("score").to_pylist()
    assert all(s is None or s < 100 for s in seats)


def test_a_run_folder_named_like_a_package_does_not_hide_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a worker once put the current folder first on its import path: `--out bots` made a
    # namespace package of the run's folder and every worker failed to import the bots
    monkeypatch.chdir(tmp_path)
    for name in ("bots", "projectl_sim"):
        assert run(Path(name), settings(players=[2], games=4)).complete, name
        assert len(tables.read_table(Path(name), "games")) == 4


# -- smaller holes -----------------------------------------------------------------------------
def test_a_bad_scheduler_address_is_one_line_and_leaves_no_folder(
    tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "dask"
    args = ["run", "--bots", "random", "--players", "2", "--backend", "dask"]
    assert main([*args, "--scheduler", "garbage::::", "--out", str(out)]) == 2
    assert "--scheduler 'garbage::::' is not a scheduler address" in one_line(
        capsys.readouterr().err
    )
    assert not out.exists()


def test_time_limits_must_be_positive(tmp_path: Path, capsys: Any) -> None:
    for flag in ("--decision-timeout", "--game-timeout"):
        for value in ("0", "-1", "nan"):
            args = ["run", "--bots", "random", "--players", "2", flag, value]
            assert main([*args, "--out", str(tmp_path / "x")]) == 2
            assert f"{flag} must be a number of seconds above 0" in one_line(
                capsys.readouterr().err
            )


def _catalogue(tmp_path: Path, keep: Any) -> Path:
    data = json.loads(
        (Path(runner.__file__).parent.parent / "data" / "base_catalogue.json").read_text("utf-8")
    )
    data["puzzles"] = [p for p in data["puzzles"] if keep(p)]
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("keep", "players", "message"),
    [
        (lambda p: p["id"].startswith("W"), "2", "has 0 black puzzles; 2 players need at least 12"),
        (lambda p: p["id"] < "B11" or p["id"].startswith("W"), "4", "4 players need at least 16"),
        (lambda p: p["id"].startswith("B"), "2", "has 0 white puzzles; 2 players need at least 4"),
    ],
)
def test_a_degenerate_catalogue_is_refused(
    keep: Any, players: str, message: str, tmp_path: Path, capsys: Any
) -> None:
    path = _catalogue(tmp_path, keep)
    args = ["run", "--bots", "random", "--players", players, "--catalogue", str(path)]
    assert main([*args, "--out", str(tmp_path / "x")]) == 2
    assert message in one_line(capsys.readouterr().err)
    with pytest.raises(UsageError, match=r"(black|white) puzzles"):
        run_spec.configurations(
            RunSpec.from_mapping(
                {"bots": ["random"], "players": [int(players)], "catalogue": str(path)}
            )
        )


def test_a_malformed_record_exits_2_in_one_line(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "game.json"
    assert main(["play", "--seed", "7", "--bots", "random,random", "--record", str(path)]) == 0
    capsys.readouterr()
    record = json.loads(path.read_text())
    cases = {
        "seat": (lambda r: r["actions"][0].update(player=7), "player 7 is not a seat of 2"),
        "scores": (lambda r: r["result"].update(scores=["a", "b"]), "result scores must be 2"),
        "winners": (lambda r: r["result"].update(winners=[5]), "result winners must be seats"),
    }
    for name, (change, message) in cases.items():
        bad = json.loads(json.dumps(record))
        change(bad)
        (tmp_path / f"{name}.json").write_text(json.dumps(bad))
        assert main(["replay", str(tmp_path / f"{name}.json")]) == 2, name
        assert message in one_line(capsys.readouterr().err), name
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "projectl-record/1", "actions": ' + "[" * 5000 + "]" * 5000 + "}")
    assert main(["replay", str(deep)]) == 2
    assert "malformed JSON (nested too deeply)" in one_line(capsys.readouterr().err)
    nested: dict[str, Any] = {"type": "take_basic"}
    for _ in range(3000):
        nested = {"type": "insert", "action": nested}
    inserts = json.loads(json.dumps(record)) | {"actions": [{"player": 0, **nested}]}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # to write it
    try:
        (tmp_path / "inserts.json").write_text(json.dumps(inserts))
    finally:
        sys.setrecursionlimit(limit)
    assert main(["replay", str(tmp_path / "inserts.json")]) == 2
    assert "nested too deeply" in one_line(capsys.readouterr().err)


def test_a_worker_idle_longer_than_the_start_limit_is_reused(tmp_path: Path) -> None:
    """A worker kept between runs was spawned long ago: its start limit counts from its new job
    (a run six minutes after the last one in the same process failed: "did not start")."""
    given = settings(players=[2], games=2)
    run(tmp_path / "first", given, jobs=1)
    idle = [w for w in workers._IDLE if w.alive()]
    assert idle
    for worker in idle:
        worker.spawned -= 10 * workers.START_SECONDS
        os.kill(worker.proc.pid, signal.SIGSTOP)  # slow to take up the new job, as under load
    wake = threading.Timer(0.5, lambda: [os.kill(w.proc.pid, signal.SIGCONT) for w in idle])
    wake.start()
    try:
        result = run(tmp_path / "second", given, jobs=1)
    finally:
        wake.join()
    assert result.complete and result.failed == 0


# -- smaller holes: hangs, empty values, tracebacks, silent accepts, Ctrl-C ----------
def test_play_and_view_from_a_run_stop_a_game_that_hung_in_it(
    reference: Any, tmp_path: Path, capsys: Any
) -> None:
    spin, asleep = f"{FAULT_BOTS}:HangBot:p=0.003", f"{FAULT_BOTS}:HangBot:p=0.003,how=sleep"
    given = settings(bots=[f"{spin},{asleep}"], players=[2], games=3, seed=1)
    out = reference(given, jobs=2, decision_timeout=0.3)  # the hanging bots' run above
    games = tables.read_table(out, "games").to_pylist()
    hung = next(g["game_id"] for g in games if g["error"])
    start = time.monotonic()
    # played again under the run's limits: it stops as it did in the run, in one line
    for command in (
        ["play", "--from", str(out), "--game", str(hung)],
        ["view", "--from", str(out), "--game", str(hung), "-o", str(tmp_path / "v.html")],
    ):
        assert main(command) == 1
        line = one_line(capsys.readouterr().err)
        assert f"game {hung} of {out}: bot " in line and "timed out after 0.3 s" in line, line
    assert time.monotonic() - start < 30
    fine = next(g["game_id"] for g in games if not g["error"])
    assert main(["play", "--from", str(out), "--game", str(fine)]) == 0
    assert f"seed {games[fine]['seed']}, 2 players" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "max_rounds="], "rules: max_rounds has an empty value"),
        (["--expansions", ""], "expansions: '' names no expansion set"),
        (["--variant", ""], "variant: '' names no variant"),
        (["--out", ""], "--out '' names no folder"),
        (["--out", " "], "--out ' ' names no folder"),
    ],
)
def test_an_empty_value_is_refused_not_an_empty_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    command = ["run", "--bots", "random", "--players", "2", "--games", "2", "--quiet"]
    if "--out" not in args:
        command += ["--out", "x"]
    assert main([*command, *args]) == 2
    assert message in one_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []  # no run written here (nor in the current folder)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "--bots", "random,random", "--expansions", ""], "'' names no expansion set"),
        (["play", "--bots", "random,random", "--record", ""], "--record '' names no file"),
        (["view", "game.json", "-o", " "], "--output ' ' names no file"),
        (["summary", ""], "RUN '' names no folder"),
        (["report", "", "-o", "r.html"], "RUN '' names no folder"),
    ],
)
def test_an_empty_file_or_set_is_refused_by_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, args: list[str], message: str
) -> None:
    # an empty value once meant "not given" (no record written, the page beside the record,
    # the base game) where run refuses it
    monkeypatch.chdir(tmp_path)
    assert main(["play", "--bots", "random,random", "--seed", "3", "--record", "game.json"]) == 0
    capsys.readouterr()
    assert main(args) == 2
    assert message in one_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_what_used_to_be_a_traceback_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    config = tmp_path / "run.toml"
    config.write_bytes('bots = ["random"]\n# caf\xe9\n'.encode("latin-1"))
    assert main(["run", "--config", str(config), "--out", str(tmp_path / "c")]) == 2
    assert f"config {config}: not UTF-8 text (byte 23 is 0xe9)" in one_line(capsys.readouterr().err)
    # a bot whose __init__ raises
    args = ["run", "--bots", f"{FAULT_BOTS}:InitRaiseBot,random", "--out", str(tmp_path / "b")]
    assert main(args) == 2
    line = one_line(capsys.readouterr().err)
    assert line.endswith(":InitRaiseBot: building it raised ValueError: no model file here"), line
    # a page written into a read-only file system
    record = tmp_path / "game.json"
    assert main(["play", "--bots", "random,random", "--seed", "3", "--record", str(record)]) == 0
    capsys.readouterr()
    page = tmp_path / "ro" / "game.html"

    def read_only(self: Path, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "write_text", read_only)
    assert main(["view", str(record), "-o", str(page)]) == 2
    assert one_line(capsys.readouterr().err) == (
        f"projectl-sim: error: {page}: Read-only file system"
    )


def test_what_used_to_be_accepted_silently_is_refused(tmp_path: Path, capsys: Any) -> None:
    whites = _catalogue(tmp_path, lambda p: p["id"].startswith("W"))
    assert main(["play", "--bots", "random,random", "--catalogue", str(whites)]) == 2
    assert "has 0 black puzzles; 2 players need at least 1" in one_line(capsys.readouterr().err)
    record = tmp_path / "game.json"
    assert main(["play", "--bots", "random,random", "--seed", "3", "--record", str(record)]) == 0
    capsys.readouterr()
    text = record.read_text()
    record.write_text(text.replace('"seed": 3,', '"seed": NaN,'))
    assert '"seed": NaN' in record.read_text()
    assert main(["replay", str(record)]) == 2
    assert "seed must be an integer (or null), got nan" in one_line(capsys.readouterr().err)


def _interrupted_while_loading(args: list[str]) -> tuple[int, str]:
    """Send a Ctrl-C once the command is importing the package: numpy, which the package
    imports first, is mapped (a fixed delay once landed in the interpreter's own start-up on
    a busy machine, before any of the program runs)."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    maps = Path(f"/proc/{proc.pid}/maps")
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if "numpy" in maps.read_text():
                break
        except OSError:
            pass
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps (Linux)")
def test_ctrl_c_while_the_command_loads_is_one_line(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("projectl-sim")
    command = [str(script), "run", "--bots", "random", "--players", "2", "--games", "2"]
    code, err = _interrupted_while_loading([*command, "--out", str(tmp_path / "r")])
    assert code == 130 and "Traceback" not in err, err
    assert one_line(err).startswith("projectl-sim: interrupted"), err


LOADING_INTERRUPTED = """
import builtins, os, signal, sys, time
import projectl_sim_launch
real = builtins.__import__
def load(name, *args, **kwargs):
    if name == "projectl_sim.cli":
        try:
            if INTERRUPT:
                os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        # as numpy's C extension does with a Ctrl-C inside its own imports
        raise ImportError('PyCapsule_Import could not import module "datetime"')
    return real(name, *args, **kwargs)
builtins.__import__ = load
sys.exit(projectl_sim_launch.main())
"""


@pytest.mark.parametrize("interrupt", [True, False])
def test_a_ctrl_c_that_a_library_turns_into_an_import_error_is_one_line(interrupt: bool) -> None:
    """A Ctrl-C while numpy loads its C extension surfaces as an ImportError (seen once, in a
    CI run of the test above): it is still one line and 130; an ImportError with no Ctrl-C stays
    a traceback (a broken install must show)."""
    code = f"INTERRUPT = {interrupt}\n" + LOADING_INTERRUPTED
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    if interrupt:
        assert out.returncode == 130 and "Traceback" not in out.stderr, out.stderr
        assert one_line(out.stderr).startswith("projectl-sim: interrupted")
    else:
        assert out.returncode == 1 and "ImportError: PyCapsule_Import" in out.stderr


def test_a_process_that_ignores_ctrl_c_keeps_ignoring_it_while_the_command_loads() -> None:
    """A background job starts with SIGINT ignored: the launcher's note of a Ctrl-C while the
    package loads must not take that over, nor leave Python's handler in its place."""
    code = (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nINTERRUPT = True\n"
        + LOADING_INTERRUPTED.replace(
            "sys.exit(projectl_sim_launch.main())",
            "try:\n    projectl_sim_launch.main()\nexcept ImportError:\n"
            "    print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)\n    sys.exit(3)",
        )
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    # the Ctrl-C was ignored, not noted: the loader's ImportError is the library's own
    assert out.returncode == 3, out.stderr
    assert out.stdout.strip() == "True"


def test_ctrl_c_during_the_final_answers_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "done"
    code = (
        "import os, signal, sys, time\n"
        "import projectl_sim.analysis.answers as answers\n"
        "from projectl_sim.cli import main\n"
        "def slow(run):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(30)\n"
        "answers.summary_text = answers.verdicts_text = slow\n"
        f"sys.exit(main(['run', '--bots', 'random', '--players', '2', '--games', '2', "
        f"'--quiet', '--out', {str(out)!r}]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=90)
    assert proc.returncode == 130, proc.stderr
    line = one_line(proc.stderr)
    assert line == (
        f"projectl-sim: interrupted: the run in {out} is complete; its answers: "
        f"projectl-sim summary {out}"
    )
    assert tables.read_manifest(out)["status"] == "complete"
