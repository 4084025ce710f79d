"""What a run's worker and a command of the command line cost to start: each saving against
what it replaced, side by side in one run.

Run: ``.venv/bin/python benchmarks/startup.py [--repeats N]``.

Each line is the mean CPU time (user + system, of the process and of every child it waited for)
of ``--repeats`` fresh processes, the two variants of a pair alternating so that other work on
a shared machine weighs on both alike:

- a worker's imports (``projectl_sim.sim.workers``) against the same with the table module
  (``projectl_sim.sim.tables``, pyarrow) a worker loaded before it played without it;
- the same worker imports with numpy's BLAS at one thread (what a worker now gets) against the
  thread pool numpy starts by default (one thread per core);
- ``projectl-sim summary`` of a small run through the script (one BLAS thread unless the user
  set a count) against the thread counts set to the number of cores (numpy's default).

A run of a few quick games also starts one worker, not ``--jobs`` (``sim.workers.GROW_SECONDS``):
it saves one worker's start, the first line's cost.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from projectl_sim_launch import ONE_THREAD

BIN = Path(sys.executable).parent
CORES = str(os.cpu_count() or 1)
THREADS = ONE_THREAD  # the variables the script and the workers set to 1


def cpu_of(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Return the CPU seconds of one process (and the children it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, cwd=cwd, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pair(
    name: str,
    a: tuple[list[str], dict[str, str]],
    b: tuple[list[str], dict[str, str]],
    cwd: Path,
    repeats: int,
) -> None:
    one, two = [], []
    for _ in range(repeats):
        one.append(cpu_of(*a, cwd))
        two.append(cpu_of(*b, cwd))
    ma, mb = sum(one) / repeats, sum(two) / repeats
    print(f"{name:<48} {ma:6.3f} s  against {mb:6.3f} s  ({ma / mb:.2f}x, {mb - ma:+.3f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    plain = {k: v for k, v in os.environ.items() if k not in THREADS}
    one = plain | dict.fromkeys(THREADS, "1")
    many = plain | dict.fromkeys(THREADS, CORES)
    py = [sys.executable, "-P", "-c"]
    load = os.getloadavg()[0]
    print(f"{args.repeats} processes a line, alternating; {CORES} cores, load {load:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        worker = "import projectl_sim.sim.workers"
        pair(
            "worker imports: without pyarrow / with",
            ([*py, worker], one),
            ([*py, worker + ", projectl_sim.sim.tables"], one),
            cwd,
            args.repeats,
        )
        pair(
            "worker imports: 1 BLAS thread / numpy's default",
            ([*py, worker], one),
            ([*py, worker], plain),
            cwd,
            args.repeats,
        )
        script = str(BIN / "projectl-sim")
        small = ["run", "--bots", "greedy", "--players", "2", "--seed", "1", "--quiet"]
        subprocess.run(
            [script, *small, "--games", "40", "--out", "r"],
            cwd=cwd,
            check=True,
            capture_output=True,
        )
        pair(
            "summary: 1 BLAS thread (script) / one per core",
            ([script, "summary", "r"], plain),
            ([script, "summary", "r"], many),
            cwd,
            args.repeats,
        )


if __name__ == "__main__":
    main()
