"""Two builds side by side: the same random games on this checkout and on another one.

Run: ``.venv/bin/python benchmarks/builds.py --against /path/to/other/checkout [--games N]
[--rounds R] [--combinations base|all] [--callgrind]``.

A refactor is proven by what does not change. This plays the same seeded random games (every
seat ``random``) with this checkout's build and with the other checkout's (its own ``.venv``,
e.g. a worktree of the commit before the change), alternating the two ``--rounds`` times in
fresh processes, and prints per combination the CPU time per game of each (the best round: other
work on a shared machine only ever slows a round down) and their ratio. A digest of the games'
final states is compared too: the two builds must play the very same games. With ``--callgrind``
the base game's workload (or each ``--only`` combination's) also runs under ``valgrind
--tool=callgrind`` in each build, whose instruction counts don't move with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ALL = ("ghost_piece", "ambassador_pack", "finesse", "phoenix")

# the worker: plays the games of each combination and prints one JSON line per combination
WORKER = r"""
import hashlib, json, sys, time
from projectl_sim import Rules, play_game
from projectl_sim.rules import every_combination
from bots import make_bot

games, which, only = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
combos = [Rules(players=2)] if which == "base" else every_combination()
for rules in combos:
    name = f"{rules.variant:<10} {rules.players}p " + ("+".join(sorted(rules.expansions)) or "none")
    if only and name.split() not in [o.split() for o in only]:
        continue
    bots = [make_bot("random")] * rules.players
    digest = hashlib.sha256()
    cpu = time.process_time()
    for seed in range(games):
        state = play_game(rules, bots, 7919 * seed + 11, record=False).state
        end = (state.final_scores(), state.piles, state.slots, state.round, state.turn)
        digest.update(repr(end).encode())
    cpu = time.process_time() - cpu
    print(json.dumps({"name": name, "cpu": cpu, "digest": digest.hexdigest()[:16]}), flush=True)
"""


def _python(checkout: Path) -> Path:
    python = checkout / ".venv" / "bin" / "python"
    if not python.exists():
        sys.exit(f"builds.py: {checkout} has no .venv (python3 -m venv .venv && pip install -e .)")
    return python


def _run(
    checkout: Path, games: int, which: str, only: list[str], prefix: list[str] | None = None
) -> list[dict]:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(WORKER)
    # a fixed hash seed: the same dict and set orders in every process, so that instruction
    # counts repeat exactly
    env = dict(os.environ, PYTHONPATH=str(checkout), PYTHONHASHSEED="0")
    cmd = [*(prefix or []), str(_python(checkout)), f.name, str(games), which, *only]
    out = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True, check=True)
    os.unlink(f.name)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def _callgrind(checkout: Path, games: int, which: str, only: list[str]) -> int:
    """Return the instructions a workload runs under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        _run(checkout, games, which, only, valgrind)
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals")


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, type=Path, help="the other checkout")
    parser.add_argument("--games", type=int, default=200, help="random games per combination")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the two builds")
    parser.add_argument("--combinations", choices=("base", "all"), default="base")
    parser.add_argument(
        "--only",
        nargs="*",
        default=[],
        metavar="COMBINATION",
        help='combinations as printed, e.g. "solo 1p ghost_piece+phoenix"',
    )
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    args = parser.parse_args()
    builds = {"this": HERE, "other": args.against.resolve()}
    best: dict[str, dict[str, float]] = {"this": {}, "other": {}}
    digests: dict[str, dict[str, str]] = {"this": {}, "other": {}}
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"this: {builds['this']}  other: {builds['other']}  load average {load}")
    start = time.time()
    for _ in range(args.rounds):
        for label, checkout in builds.items():
            for row in _run(checkout, args.games, args.combinations, args.only):
                old = best[label].get(row["name"])
                best[label][row["name"]] = row["cpu"] if old is None else min(old, row["cpu"])
                digests[label][row["name"]] = row["digest"]
    if not best["this"]:
        parser.error(f"--only names no combination of --combinations {args.combinations}")
    print(
        f"{'combination':<60} {'this ms/game':>12} {'other ms/game':>13} {'this/other':>10}  "
        f"same games  (best of {args.rounds}, {args.games} games, {time.time() - start:.0f} s)"
    )
    worst = 0.0
    for name, cpu in best["this"].items():
        other = best["other"].get(name)
        if other is None:
            print(f"{name:<60} {1000 * cpu / args.games:12.3f} {'-':>13}")
            continue
        ratio = cpu / other
        worst = max(worst, ratio)
        same = "yes" if digests["this"][name] == digests["other"].get(name) else "NO"
        print(
            f"{name:<60} {1000 * cpu / args.games:12.3f} {1000 * other / args.games:13.3f} "
            f"{ratio:10.3f}  {same}"
        )
    print(f"slowest ratio: {worst:.3f}")
    if args.callgrind:
        # n games and none of each combination: the difference is n games' instructions,
        # without the start-up
        n = max(10, args.games // 4)
        for name in best["this"] if args.only or args.combinations == "base" else []:
            which = [name]
            per = {
                label: (
                    _callgrind(checkout, n, args.combinations, which)
                    - _callgrind(checkout, 0, args.combinations, which)
                )
                / n
                for label, checkout in builds.items()
            }
            print(
                f"callgrind {name}: this {per['this'] / 1e6:.3f}M instructions/game, other "
                f"{per['other'] / 1e6:.3f}M: this/other {per['this'] / per['other']:.4f} "
                f"({n} games, start-up left out)"
            )


if __name__ == "__main__":
    main()
