"""What timing each decision costs: ``play_game`` with no clock, the wall clock, and both clocks.

Run: ``.venv/bin/python benchmarks/decision_clock.py [--games N] [--repeats R] [--bots A,B]``.
The runner passes ``seconds`` (wall clock, ``perf_counter``, every decision) and ``cpu_seconds``
(CPU, ``thread_time``, every ``CPU_EVERY``-th decision of a seat) to every game; this plays the
same seeded games three ways in one process, in turn, and keeps each way's best CPU time of
``--repeats`` (other work on the machine only slows a loop down), then prints games per CPU
second and the cost per decision of each clock against no clock. The random bot's decisions
are the cheapest there are, so its games show the largest share.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from bots import make_bot  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim._native import compiled  # noqa: E402
from projectl_sim.sim.play import play_game  # noqa: E402
from projectl_sim.sim.spec import split_lineup  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bots", default="random,random")
    args = parser.parse_args()
    specs = split_lineup(args.bots)  # a spec's parameters stay with their bot
    rules = Rules(players=len(specs))
    bots = [make_bot(s) for s in specs]
    count = [0]

    def tally(*_: object) -> None:
        count[0] += 1

    for seed in range(args.games):
        play_game(rules, bots, seed, record=False, on_step=tally)
    decisions = count[0]

    def once(clocks: str) -> float:
        start = time.process_time()  # CPU: a shared machine's load inflates wall time
        for seed in range(args.games):
            wall = [0.0] * len(bots) if clocks != "none" else None
            cpu = [0.0] * len(bots) if clocks == "both" else None
            play_game(rules, bots, seed, record=False, seconds=wall, cpu_seconds=cpu)
        return time.process_time() - start

    modes = ("none", "wall", "both")
    best = dict.fromkeys(modes, float("inf"))
    for _ in range(args.repeats):  # the three ways in turn, so that a warm-up or a busy spell
        for mode in modes:  # falls on all of them alike
            best[mode] = min(best[mode], once(mode))
    build = "compiled" if compiled() else "pure"
    print(
        f"{args.games} games of {args.bots} ({decisions} decisions), {build} build, best of "
        f"{args.repeats}"
    )
    base = best["none"]
    print(f"no clock:      {args.games / base:8.1f} games/s")
    for mode, label in (("wall", "wall clock:   "), ("both", "wall and CPU: ")):
        t = best[mode]
        per = (t - base) / decisions * 1e6
        print(
            f"{label}{args.games / t:8.1f} games/s, {per:+.2f} µs per decision "
            f"({(t / base - 1) * 100:+.1f}% time)"
        )


if __name__ == "__main__":
    main()
