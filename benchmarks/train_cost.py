"""The CPU one generation of expert iteration costs, stage by stage.

Run: ``.venv/bin/python benchmarks/train_cost.py [TRAIN-VALUE FLAGS ...]``, e.g.
``benchmarks/train_cost.py --out /tmp/g1 --generations 1 --jobs 1 --seed 58``: the flags are
``projectl-sim train-value``'s and need ``--generations``. The command runs in this process;
each of a generation's four steps (self-play, labelling, fit, gate) is timed as the CPU of the
whole process tree (this process, its finished children, and its live run workers read from
``/proc``: the runner keeps its workers between runs, so their CPU is counted while they live),
beside its wall time. A step already done in ``--out`` (a resumed training) costs nothing.
Prints one line a step and the total, in CPU seconds and CPU-hours; Linux only (``/proc``).
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from projectl_sim.learn import expit, value  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
STEPS = ((expit, "self_play", "self-play"), (expit, "positions", "labelling"))
STEPS += ((expit, "fine_tune", "fit"), (value, "fit", "fit"), (expit, "gate", "gate"))


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
            kids.setdefault(parent, []).append(int(name))
    return kids


def tree_cpu() -> float:
    """Return the CPU seconds of this process, its waited-for children and its live descendants."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        use = resource.getrusage(who)
        total += use.ru_utime + use.ru_stime
    kids = _children()
    todo = list(kids.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo += kids.get(pid, [])
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK  # its utime and stime
        except (OSError, ValueError, IndexError):
            pass
    return total


def main() -> int:
    if not Path("/proc/self/stat").exists():
        print("train_cost.py: needs Linux's /proc to count the workers' CPU", file=sys.stderr)
        return 2
    if "--generations" not in sys.argv[1:]:
        print("train_cost.py: give train-value's flags with --generations G", file=sys.stderr)
        return 2
    spent: dict[str, list[float]] = {}

    def timed(module: Any, name: str, step: str) -> None:
        inner = getattr(module, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            cpu, wall = tree_cpu(), time.monotonic()
            try:
                return inner(*args, **kwargs)
            finally:
                done = spent.setdefault(step, [0.0, 0.0])
                done[0] += tree_cpu() - cpu
                done[1] += time.monotonic() - wall

        setattr(module, name, wrapper)

    for module, name, step in STEPS:
        timed(module, name, step)
    from projectl_sim.cli import main as cli

    start, wall = tree_cpu(), time.monotonic()
    code = cli(["train-value", *sys.argv[1:]])
    total = tree_cpu() - start
    load = os.getloadavg()[0]
    for step, (cpu, seconds) in spent.items():
        print(f"{step:<10} {cpu:8.1f} CPU s  {100 * cpu / total:5.1f}%  {seconds:8.1f} s wall")
    print(
        f"{'all':<10} {total:8.1f} CPU s  {total / 3600:.4f} CPU-hours  "
        f"{time.monotonic() - wall:8.1f} s wall (load {load:.1f}; the rest: start-up, tables)"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
