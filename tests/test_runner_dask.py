"""The Dask backend: a scheduler and two workers on loopback give the tables of a local run."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start ``dask scheduler`` and two one-thread ``dask worker`` processes; stop them after."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    local = str(tmp_path_factory.mktemp("dask"))
    procs = [
        _start(
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            port,
            "--no-dashboard",
        )
    ]
    try:
        worker = ["distributed.cli.dask_worker", address, "--host", "127.0.0.1", "--nthreads", "1"]
        worker += ["--no-nanny", "--no-dashboard", "--local-directory", local]
        procs += [_start(*worker), _start(*worker)]
        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


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
