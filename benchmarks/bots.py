"""Bot strength and speed: head-to-head pairings with seats swapped, one line per pairing.

Run: ``.venv/bin/python benchmarks/bots.py [--games N] [--jobs J] [--pairings NAME ...]``.

Each pairing plays ``--games`` 2-player games: every game seed twice, once with each bot in seat
0. Game seeds come from one root seed (``--seed``; printed), spawned in the parent, so the
results are the same for any ``--jobs``. A line gives the first bot's win rate (a shared win
counts as a share) with its Wilson 95% interval, the mean final scores, games per second on one
core (the games' own CPU time) and with the jobs used (wall time), each bot's mean CPU time per
decision (every call the engine makes to it, Play, reward and Finishing Touches decisions alike,
including those a bot answers without searching), and for MCTS its simulations per CPU second.
CPU time (``time.process_time``) because the machine is shared: wall time measures the others.

The default pairings: ``greedy`` against ``random``; the greedy presets against each other (the
best one is the one ``mcts`` must beat); the default ``mcts`` against ``greedy`` and
``greedy:preset=rush_black``; ``mcts`` with 4x its default iterations against the default.
``--write FILE`` also writes one CSV row per game; ``--read FILE`` prints the table of such a file
again without playing.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# This script is named like the ``bots`` package: drop its folder from the import path so that
# ``import bots`` finds the package (here and in the worker processes, which inherit the path).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

from bots import MCTSBot, make_bot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.engine import GameState  # noqa: E402
from projectl_sim.engine.actions import Action  # noqa: E402

_ITER = MCTSBot.params["iterations"][0]
PAIRINGS: dict[str, tuple[str, str]] = {
    "greedy-random": ("greedy", "random"),
    "greedy-rush_black": ("greedy", "greedy:preset=rush_black"),
    "greedy-engine": ("greedy", "greedy:preset=engine"),
    "greedy-cautious": ("greedy", "greedy:preset=cautious"),
    "mcts-greedy": ("mcts", "greedy"),
    "mcts-rush_black": ("mcts", "greedy:preset=rush_black"),
    "mcts4x-mcts": (f"mcts:iterations={4 * _ITER}", "mcts"),
}


@dataclass
class _Seat:
    """One bot in one game: its decisions, their CPU time, and MCTS simulations."""

    spec: str
    decisions: int = 0
    cpu: float = 0.0
    simulations: int = 0
    bot: Any = field(default=None, repr=False)

    def player(self) -> Callable[[GameState, random.Random], Action]:
        self.bot = make_bot(self.spec)

        def decide(view: GameState, rng: random.Random) -> Action:
            start = time.process_time()
            action = self.bot(view, rng)
            self.cpu += time.process_time() - start
            self.decisions += 1
            return action

        return decide


def play_pair(a: str, b: str, seed: int, a_seat: int) -> dict[str, Any]:
    """Play one game of ``a`` against ``b`` (``a`` in seat ``a_seat``); return its result row."""
    seats = [_Seat(a), _Seat(b)]
    order = seats if a_seat == 0 else seats[::-1]
    start = time.process_time()
    outcome = play_game(Rules(players=2), [s.player() for s in order], seed, record=False)
    cpu = time.process_time() - start
    state = outcome.state
    winners = state.winners()
    scores = state.final_scores()
    b_seat = 1 - a_seat
    return {
        "seed": seed,
        "a_seat": a_seat,
        "a_win": (a_seat in winners) / len(winners) if winners else 0.0,
        "a_score": scores[a_seat],
        "b_score": scores[b_seat],
        "cpu": cpu,
        "end_reason": state.end_reason,
        **{
            f"{k}_{attr}": getattr(s, attr)
            for k, s in (("a", seats[0]), ("b", seats[1]))
            for attr in ("decisions", "cpu")
        },
        "a_sims": getattr(seats[0].bot, "simulations", 0),
        "b_sims": getattr(seats[1].bot, "simulations", 0),
    }


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval of a win rate (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def summarise(name: str, a: str, b: str, rows: list[dict[str, Any]], wall: float | None) -> str:
    """Return the table line of one pairing from its game rows (``wall``: None if unknown)."""
    n = len(rows)
    wins = sum(r["a_win"] for r in rows)
    lo, hi = wilson(wins, n)
    cpu = sum(r["cpu"] for r in rows)

    def per_decision(k: str) -> float:
        return sum(r[f"{k}_cpu"] for r in rows) / max(1, sum(r[f"{k}_decisions"] for r in rows))

    def sims(k: str) -> str:
        total = sum(r[f"{k}_sims"] for r in rows)
        return f"{total / sum(r[f'{k}_cpu'] for r in rows):7.0f}" if total else "      -"

    return (
        f"{name:18s} {a:22s} {b:26s} {n:5d} {wins / n:6.1%} [{lo:5.1%}, {hi:5.1%}] "
        f"{sum(r['a_score'] for r in rows) / n:5.1f} {sum(r['b_score'] for r in rows) / n:5.1f}"
        f"{n / cpu:8.2f} {f'{n / wall:8.2f}' if wall else '       -'} "
        f"{1000 * per_decision('a'):9.2f} {1000 * per_decision('b'):9.2f} "
        f"{sims('a')} {sims('b')}"
    )


HEADER = (
    f"{'pairing':18s} {'bot A':22s} {'bot B':26s} {'games':>5s} {'A wins':>6s} "
    f"{'95% interval':>16s} {'A pts':>5s} {'B pts':>5s}{'games/s':>8s} {'(wall)':>8s} "
    f"{'A ms/dec':>9s} {'B ms/dec':>9s} {'A sim/s':>7s} {'B sim/s':>7s}"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games per pairing (made even)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (joblib)")
    parser.add_argument("--seed", type=int, default=None, help="root seed (default: fresh)")
    parser.add_argument(
        "--pairings",
        nargs="*",
        default=None,
        help=f"pairings (default: all; none when --pair is given): {', '.join(PAIRINGS)}",
    )
    parser.add_argument(
        "--pair",
        nargs=2,
        action="append",
        default=[],
        metavar=("A", "B"),
        help="an extra pairing of two bot specs (repeatable)",
    )
    parser.add_argument("--write", default=None, help="CSV file of one row per game")
    parser.add_argument("--read", default=None, help="print the table of a CSV written before")
    args = parser.parse_args()
    if args.read:
        print(HEADER)
        for name, rows in read_rows(args.read).items():
            r0 = rows[0]
            print(summarise(name, r0["a"], r0["b"], rows, r0.get("wall")))
        return
    root = args.seed if args.seed is not None else secrets.randbelow(2**63)
    # --pair alone plays just its pairs; --pairings names some (none with an empty list)
    names = args.pairings if args.pairings is not None else [] if args.pair else list(PAIRINGS)
    unknown = [n for n in names if n not in PAIRINGS]
    if unknown:
        parser.error(f"unknown pairing {unknown[0]!r} (valid: {', '.join(PAIRINGS)})")
    chosen = {k: PAIRINGS[k] for k in names}
    for i, (a, b) in enumerate(args.pair):
        chosen[f"extra{i + 1}"] = (a, b)
    n_seeds = (args.games + 1) // 2
    seeds = [int(s) for s in np.random.SeedSequence(root).generate_state(n_seeds, dtype=np.uint32)]
    print(f"root seed {root}; {2 * n_seeds} games per pairing; {args.jobs} jobs")
    print(HEADER)
    writer = None
    out = open(args.write, "w", newline="") if args.write else None  # noqa: SIM115
    with Parallel(n_jobs=args.jobs) as parallel:
        for name, (a, b) in chosen.items():
            start = time.perf_counter()
            rows = parallel(
                delayed(play_pair)(a, b, seed, a_seat) for seed in seeds for a_seat in (0, 1)
            )
            wall = time.perf_counter() - start
            print(summarise(name, a, b, rows, wall), flush=True)
            if out is not None:  # written pairing by pairing: a long run keeps what it played
                rows = [{"pairing": name, "a": a, "b": b, "wall": wall, **r} for r in rows]
                if writer is None:
                    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
                    writer.writeheader()
                writer.writerows(rows)
                out.flush()
    if out is not None:
        out.close()


def read_rows(path: str) -> dict[str, list[dict[str, Any]]]:
    """Return the game rows of a CSV written by ``--write``, by pairing, numbers as numbers."""
    by_pairing: dict[str, list[dict[str, Any]]] = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            parsed: dict[str, Any] = {}
            for k, v in row.items():
                try:
                    parsed[k] = float(v) if k not in ("pairing", "a", "b", "end_reason") else v
                except ValueError:
                    parsed[k] = v
            by_pairing.setdefault(row["pairing"], []).append(parsed)
    return by_pairing


if __name__ == "__main__":
    main()
