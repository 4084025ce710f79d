"""Engine speed: random 2-player games per second on one core, and the cost of the primitives.

With the compiled build (setup.py), the same games are also played on the pure Python source
(``PROJECTL_SIM_PURE=1``, a fresh process) and the ratio printed; ``--no-pure`` skips that.

Run: ``.venv/bin/python benchmarks/engine.py [--games N] [--jobs J] [--warm W]``. Seeds are
fresh every run (reused seeds would make every cache hit and inflate the figures); the root seed
is printed. ``--warm W`` also times N games on new deals after W games on other deals.
The one-core figures are the CPU time of one process (other processes don't count; on a shared
virtual machine a busy host still slows it, see docs/benchmarks.md); the machine figure is
``J`` processes (default 2, this machine's cores) playing fresh games at once, by wall time, so it
is only meaningful on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
# so that ``import bots`` finds the package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules, new_game, play_game  # noqa: E402
from projectl_sim._native import compiled  # noqa: E402
from projectl_sim.engine import OVER  # noqa: E402


def _play(seeds: np.ndarray) -> tuple[Counter[str], int, float, float, float]:
    """Play random 2-player games; return end reasons, actions, CPU time and wall start/end."""
    rules = Rules(players=2)
    bots = [make_bot("random")] * 2
    reasons: Counter[str] = Counter()
    actions = 0
    start = time.time()
    cpu = time.process_time()
    for seed in seeds:
        outcome = play_game(rules, bots, int(seed), record=True)
        reasons[outcome.state.end_reason] += 1
        actions += len(outcome.record.moves)  # type: ignore[union-attr]
    cpu = time.process_time() - cpu  # CPU time of this one process: one core, load-independent
    return reasons, actions, cpu, start, time.time()


def bench_games(n_games: int, root: int, warm: int = 0) -> float:
    """Print the one-core figures; return the actions per second (of the first games).

    The first ``n_games`` of a process pay for the tables its engine fills as it meets new
    positions (the tiling index above all). With ``warm``, the process then plays ``warm`` games
    on other deals and ``n_games`` more on deals new to it: a study's worker past its first
    games, whose deals are all new too (no game is played twice, so no cache answers a whole
    game)."""
    seeds = np.random.SeedSequence(root).generate_state(n_games)
    reasons, actions, cpu, start, end = _play(seeds)
    elapsed = end - start
    print(
        f"games:        {n_games / cpu:8.1f} random 2-player games/s on one core "
        f"({n_games} games, {n_games / elapsed:.1f}/s wall)"
    )
    if warm:
        later = np.random.SeedSequence(root).spawn(1)[0].generate_state(warm + n_games)
        _play(later[:warm])
        _, _, warm_cpu, _, _ = _play(later[warm:])
        print(
            f"warm:         {n_games / warm_cpu:8.1f} random 2-player games/s on one core "
            f"({n_games} new games after {warm} on other deals)"
        )
    print(f"actions:      {actions / cpu:8.0f} actions/s ({actions / n_games:.0f} per game)")
    share = reasons["rules"] / n_games
    print(f"ended by the rules: {share:.1%} ({dict(reasons)})")
    return actions / cpu


def bench_pure(n_games: int, root: int, compiled_rate: float) -> None:
    """The same games on the pure Python source (PROJECTL_SIM_PURE=1), in a fresh process."""
    env = {**os.environ, "PROJECTL_SIM_PURE": "1"}
    args = [sys.executable, __file__, "--games", str(n_games), "--seed", str(root), "--jobs", "0"]
    out = subprocess.run([*args, "--games-only"], env=env, capture_output=True, text=True)
    if out.returncode:
        print(f"pure Python:  failed ({out.stderr.strip().splitlines()[-1:]})")
        return
    games = next(line for line in out.stdout.splitlines() if line.startswith("games:"))
    rate = float(
        next(line for line in out.stdout.splitlines() if line.startswith("actions:")).split()[1]
    )
    print(
        f"pure Python:  {games.split()[1]:>8} games/s, {rate:.0f} actions/s on one core "
        f"(the same games); compiled/pure: {compiled_rate / rate:.2f}x"
    )


def bench_machine(n_games: int, root: int, jobs: int) -> None:
    """The whole machine: ``jobs`` processes each play their share of fresh games at once."""
    from joblib import Parallel, delayed

    seeds = np.random.SeedSequence([root, 1]).generate_state(n_games)
    parts = Parallel(n_jobs=jobs)(delayed(_play)(chunk) for chunk in np.array_split(seeds, jobs))
    actions = sum(p[1] for p in parts)
    wall = max(p[4] for p in parts) - min(p[3] for p in parts)  # the games, not process startup
    print(
        f"machine:      {n_games / wall:8.1f} games/s, {actions / wall:.0f} actions/s with {jobs} "
        f"processes at once ({n_games} games, wall time; one core each)"
    )


def _per_call(fn, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1e6


def bench_primitives(root: int) -> None:
    """Time copy, legal-action listing and apply on mid-game states of random play."""
    rules = Rules(players=2)
    bot = make_bot("random")
    rng = np.random.default_rng(root)
    import random

    prng = random.Random(root)
    states = []
    for seed in rng.integers(0, 2**31, size=40):
        state = new_game(rules, seed=int(seed))
        steps = int(rng.integers(20, 120))
        for _ in range(steps):
            if state.phase == OVER:
                break
            state.step(state.current, bot(state.view(state.current), prng))
        if state.phase == "play":
            states.append(state)
    # First listing of each state, as play meets it (row and placement caches not yet filled
    # for it), then the same states again and again (caches warm).
    first = []
    for s in states:
        start = time.perf_counter()
        s.legal_actions(master="none")
        first.append((time.perf_counter() - start) * 1e6)
    reps = 2000
    copy_us = np.mean([_per_call(s.copy, reps) for s in states])
    legal_us = np.mean(
        [_per_call(lambda s=s: s.legal_actions(master="none"), reps // 4) for s in states]
    )
    applies = []
    for s in states:
        acts = s.legal_actions(master="none")
        pairs = [(s.copy(), acts[i % len(acts)]) for i in range(200)]
        start = time.perf_counter()
        for g, a in pairs:
            g.apply(a)
        applies.append((time.perf_counter() - start) / len(pairs) * 1e6)
    print(f"state copy:   {copy_us:8.2f} us")
    print(
        f"legal list:   {legal_us:8.2f} us (without Master combinations; caches warm), "
        f"{np.median(first):.2f} us (median) the first time for a state"
    )
    print(f"apply:        {np.mean(applies):8.2f} us (unchecked)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--jobs", type=int, default=2, help="processes for the machine figure (0: skip it)"
    )
    parser.add_argument("--no-pure", action="store_true", help="skip the pure Python comparison")
    parser.add_argument(
        "--warm", type=int, default=0, metavar="W", help="also time new games after W others"
    )
    parser.add_argument("--games-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    root = args.seed if args.seed is not None else secrets.randbelow(2**63)
    print(f"root seed {root}")
    built = compiled()
    print(f"build:        {'compiled hot loop (mypyc)' if built else 'pure Python'}")
    rate = bench_games(args.games, root, args.warm)
    if args.games_only:
        return
    if built and not args.no_pure:
        bench_pure(args.games, root, rate)
    if args.jobs:
        bench_machine(args.games, root, args.jobs)
    bench_primitives(root)


if __name__ == "__main__":
    main()
