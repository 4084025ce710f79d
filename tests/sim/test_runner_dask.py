"""The Dask backend: a scheduler and two workers on loopback give the tables of a local run."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from paths import ROOT, TESTS

from projectl_sim.errors import RunFailed
from projectl_sim.sim import runner, tables
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec

distributed = pytest.importorskip("distributed")

SPEC = {"bots": ["random"], "players": [2, 3], "games": 12, "seed": 17}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


DASK_HOW_TO = ROOT / "docs" / "how-to" / "dask.md"


def documented_cluster(scheduler_port: int, dashboard_port: int) -> list[list[str]]:
    """Return the how-to's ``dask scheduler`` and ``dask worker`` commands, as it writes them
    for this machine's loopback (on free ports)."""
    text = DASK_HOW_TO.read_text(encoding="utf-8")
    lines = [line.removeprefix("$ ") for line in text.splitlines() if line.startswith("$ ")]
    env = dict(v.split("=", 1) for v in lines[0].split())  # SCHEDULER=127.0.0.1 HOST=...
    commands = []
    for line in lines:
        if line.startswith(("dask scheduler", "dask worker")):
            for name, value in env.items():
                line = line.replace(f"${name}", value)
            line = re.sub(r"\b8786\b", str(scheduler_port), line)
            line = re.sub(r"\b8787\b", str(dashboard_port), line)
            words = line.removesuffix("&").split()
            commands.append([str(Path(sys.executable).with_name("dask")), *words[1:]])
    assert [c[1] for c in commands] == ["scheduler", "worker"], lines
    return commands


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[int]]]:
    """Start the how-to's scheduler and worker (two one-thread worker processes); stop them
    after. Yield the scheduler's address and the two commands' process ids."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    commands = documented_cluster(port, _free_port())
    where = tmp_path_factory.mktemp("dask")  # the workers' scratch space

    def start(command: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            command, cwd=where, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    procs = [start(commands[0])]
    try:
        procs.append(start(commands[1]))
        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, [p.pid for p in procs]
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="module")
def scheduler(cluster: tuple[str, list[int]]) -> str:
    return cluster[0]


def test_the_documented_cluster_listens_on_loopback_only(cluster: tuple[str, list[int]]) -> None:
    listening: dict[str, set[str]] = {}
    for pid in cluster[1]:
        top = psutil.Process(pid)
        for proc in [top, *top.children(recursive=True)]:
            for conn in proc.net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN:
                    listening.setdefault(conn.laddr.ip, set()).add(f"{proc.pid}:{conn.laddr.port}")
    # the scheduler and its dashboard, the nanny and each worker process with its own
    assert sum(len(v) for v in listening.values()) >= 6, listening
    assert set(listening) == {"127.0.0.1"}, listening


def test_a_dask_run_gives_the_tables_of_a_local_run(scheduler: str, tmp_path: Path) -> None:
    spec = RunSpec.from_mapping(SPEC)
    quiet = {"quiet": True}
    runner.run(spec, tmp_path / "local", options=RunOptions(jobs=1, **quiet))
    started = time.monotonic()
    result = runner.run(
        spec,
        tmp_path / "dask",
        options=RunOptions(backend="dask", scheduler=scheduler, **quiet),
    )
    assert result.complete and result.played == 24
    assert time.monotonic() - started < 120
    for name in tables.TABLES:
        timing = list(tables.TIMING_COLUMNS[name])
        local = tables.read_table(tmp_path / "local", name).drop_columns(timing)
        remote = tables.read_table(tmp_path / "dask", name).drop_columns(timing)
        assert local.equals(remote, check_metadata=True), name
    sessions = tables.read_manifest(tmp_path / "dask")["sessions"]
    assert sessions[0]["backend"] == "dask"


# -- faults on a cluster -------------------------------------------------------------------------
FAULT_BOTS = str(TESTS / "fault_bots.py")


def _same_tables(a: Path, b: Path) -> None:
    for name in tables.TABLES:
        timing = list(tables.TIMING_COLUMNS[name])
        one = tables.read_table(a, name).drop_columns(timing)
        two = tables.read_table(b, name).drop_columns(timing)
        assert one.equals(two), name
    ids = tables.read_table(a, "games").column("game_id").to_pylist()
    assert ids == list(range(len(ids)))


def test_a_hanging_bot_on_a_cluster_costs_its_game(scheduler: str, tmp_path: Path) -> None:
    spin, asleep = f"{FAULT_BOTS}:HangBot:p=0.003", f"{FAULT_BOTS}:HangBot:p=0.003,how=sleep"
    spec = RunSpec.from_mapping(
        {"bots": [f"{spin},{asleep}"], "players": [2], "games": 3, "seed": 1}
    )
    limits = {"quiet": True, "decision_timeout": 0.3}
    runner.run(spec, tmp_path / "local", options=RunOptions(jobs=2, **limits))
    result = runner.run(
        spec, tmp_path / "dask", options=RunOptions(backend="dask", scheduler=scheduler, **limits)
    )
    assert result.complete and result.failed == 2  # one of each kind of hang
    errors = tables.read_table(tmp_path / "dask", "games").column("error").to_pylist()
    assert sum("timed out after 0.3 s" in (e or "") for e in errors) == 2
    _same_tables(tmp_path / "dask", tmp_path / "local")


def test_a_dask_worker_killed_mid_run_loses_nothing(scheduler: str, tmp_path: Path) -> None:
    spec = RunSpec.from_mapping(
        {
            "bots": [f"{FAULT_BOTS}:SlowBot:delay=0.002,random"],
            "players": [2],
            "games": 24,
            "seed": 5,
        }
    )
    quiet = {"quiet": True}
    runner.run(spec, tmp_path / "local", options=RunOptions(jobs=2, **quiet))
    port = _free_port()
    extra = _start(
        *("distributed.cli.dask_worker", scheduler, "--host", "127.0.0.1", "--nthreads", "1"),
        *("--worker-port", str(port), "--no-nanny", "--no-dashboard"),
        *("--local-directory", str(tmp_path / "extra")),
    )
    address = f"tcp://127.0.0.1:{port}"
    try:
        with distributed.Client(scheduler, timeout="30s") as client:
            client.wait_for_workers(3, timeout=60)

        def kill_when_busy() -> None:  # kill -9 the extra worker while it plays a batch
            with distributed.Client(scheduler, timeout="30s") as client:
                deadline = time.monotonic() + 60
                while not client.processing().get(address) and time.monotonic() < deadline:
                    time.sleep(0.02)
            extra.kill()

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        options = RunOptions(backend="dask", scheduler=scheduler, **quiet)
        result = runner.run(spec, tmp_path / "dask", options=options)
        killer.join()
    finally:
        extra.kill()
        extra.wait()
    assert extra.returncode == -9
    assert result.complete
    _same_tables(tmp_path / "dask", tmp_path / "local")


def test_ctrl_c_stops_a_dask_run_within_seconds(scheduler: str, tmp_path: Path) -> None:
    out = tmp_path / "stopped"
    settings = {"bots": ["random"], "players": [2], "games": 400, "seed": 9}
    args = ["--bots", "random", "--players", "2", "--games", "400", "--seed", "9", "--quiet"]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "projectl_sim",
            "run",
            *args,
            "--out",
            str(out),
            "--chunk",
            "5",
            "--backend",
            "dask",
            "--scheduler",
            scheduler,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not list((out / "parts" / "games").glob("part-*.parquet")):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert time.monotonic() - started < 8
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("projectl-sim: interrupted: "), err
    manifest = tables.read_manifest(out)
    assert manifest["status"] == "interrupted"
    assert [s["status"] for s in manifest["sessions"]] == ["interrupted"]
    options = RunOptions(backend="dask", scheduler=scheduler, quiet=True)
    assert runner.run(None, out, resume=True, options=options).complete
    runner.run(RunSpec.from_mapping(settings), tmp_path / "local", options=RunOptions(quiet=True))
    _same_tables(out, tmp_path / "local")


def test_a_bot_the_dask_workers_cannot_build_is_one_line(
    scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULT_PARENT_PID", str(os.getpid()))
    spec = RunSpec.from_mapping(
        {"bots": [f"{FAULT_BOTS}:ParentOnlyBot"], "players": [2], "games": 2, "seed": 1}
    )
    options = RunOptions(backend="dask", scheduler=scheduler, quiet=True)
    with pytest.raises(RunFailed) as info:
        runner.run(spec, tmp_path / "licence", options=options)
    assert "a worker cannot start the run: RuntimeError: this bot needs a licence" in str(
        info.value
    )
    assert "\n" not in str(info.value)
    manifest = tables.read_manifest(tmp_path / "licence")
    assert manifest["status"].startswith("failed: a worker cannot start the run")


def test_tune_on_dask_gives_the_search_and_confirmation_of_a_local_tune(
    scheduler: str, tmp_path: Path
) -> None:
    from projectl_sim.experiments.tune import parse_param, tune

    kwargs = {
        "objective_name": "rounds",
        "bots": ["random,random"],
        "budget": 12,
        "games_per_trial": 4,
        "confirm": 1,
        "seed": 3,
    }
    params = [parse_param("row_size=3..5")]
    local = tune(params, tmp_path / "local", options=RunOptions(jobs=1, quiet=True), **kwargs)
    options = RunOptions(backend="dask", scheduler=scheduler, quiet=True)
    dask = tune(params, tmp_path / "dask", options=options, **kwargs)
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(local.trials, dask.trials)
    pd_testing.assert_frame_equal(local.confirmed, dask.confirmed)


def test_a_scheduler_killed_mid_run_is_one_line(tmp_path: Path) -> None:
    # a scheduler of its own, with no worker: the run waits on it until it is killed
    port = _free_port()
    scheduler = _start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port))
    out = tmp_path / "lost"
    try:
        with distributed.Client(f"tcp://127.0.0.1:{port}", timeout="60s"):
            pass  # it is up
        args = ["run", "--bots", "random", "--players", "2", "--games", "4", "--quiet"]
        args += ["--backend", "dask", "--scheduler", f"tcp://127.0.0.1:{port}", "--out", str(out)]
        run = subprocess.Popen(
            [sys.executable, "-m", "projectl_sim", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            # the client gives up reconnecting sooner (what it says then is the same)
            env=os.environ | {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"},
        )
        deadline = time.monotonic() + 60
        while not (out / tables.MANIFEST).exists() or tables.read_manifest(out)["status"] != (
            "running"
        ):
            assert run.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # its batches are submitted
    finally:
        scheduler.kill()
        scheduler.wait()
    _, err = run.communicate(timeout=60)
    assert run.returncode == 1, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err  # none of Dask's logs and tracebacks
    assert lines[0].startswith(
        f"projectl-sim: error: lost the connection to the dask scheduler at tcp://127.0.0.1:{port}"
    ), lines[0]
    assert tables.read_manifest(out)["status"].startswith("failed: lost the connection")
