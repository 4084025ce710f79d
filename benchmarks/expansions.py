"""Every expansion combination: engine speed and the heuristic's strength, one line each.

Run: ``.venv/bin/python benchmarks/expansions.py [--games N] [--speed-games M] [--players LIST]
[--expansions SETS] [--endless] [--ambassador] [--seed S] [--jobs J]``.

For each legal combination (expansion subset x variant x player count; ``--endless`` adds the
Endless White Deck to every one, ``--ambassador`` the Finesse Ambassador Pack's tiles to every
Finesse one), on one core per job:

- speed: ``--speed-games`` games of random bots in every seat (games/s and actions/s of CPU
  time, as benchmarks/engine.py measures the base game, and the share of games the rules ended);
- strength: ``--games`` games of ``greedy`` against ``random`` bots in the other seats, greedy's
  seat rotating over the games: greedy's win rate (a shared win counts its share) with a Wilson
  95% interval. Solo has no other seat: the line is greedy's win rate against the mastermind.

Game seeds are spawned from one root seed (fresh each run unless ``--seed``; printed), so every
combination meets its own fresh deals and a rerun with the seed reproduces the win rates.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from dataclasses import replace
from pathlib import Path

# This script lives beside a folder named like the ``bots`` package: keep ``import bots`` on it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.analysis.stats import wilson  # noqa: E402
from projectl_sim.rules import EXPANSIONS, every_combination, parse_expansions  # noqa: E402
from projectl_sim.sim.spec import game_seed  # noqa: E402


def name(rules: Rules) -> str:
    """Return a combination's short name: variant, players, expansions (+ endless)."""
    names = "+".join(n for n in EXPANSIONS if n in rules.expansions) or "none"  # as tables do
    return (
        f"{rules.variant:<10} {rules.players}p {names}"
        + (" +endless" if rules.endless_white_deck else "")
        + (" +pack" if rules.finesse_ambassador else "")
    )


def measure(rules: Rules, speed_games: int, games: int, root: int, index: int) -> str:
    """Play one combination's games and return its table line."""
    # one int seed per game, as the runner draws them (play_game takes an int: compiled, it
    # refuses a SeedSequence)
    seeds = [
        game_seed(ss) for ss in np.random.SeedSequence([root, index]).spawn(speed_games + games)
    ]
    n = rules.players
    rand = make_bot("random")
    actions, by_rules = 0, 0
    start = time.process_time()
    for seed in seeds[:speed_games]:
        outcome = play_game(rules, [rand] * n, seed)  # the record keeps action values: cheap
        actions += len(outcome.record.moves)  # type: ignore[union-attr]
        by_rules += outcome.state.end_reason == "rules"
    speed_cpu = time.process_time() - start
    greedy = make_bot("greedy")
    share = 0.0
    for k, seed in enumerate(seeds[speed_games:]):
        seat = k % n
        bots = [greedy if p == seat else rand for p in range(n)]
        winners = play_game(rules, bots, seed, record=False).state.winners()
        share += (1 / len(winners)) if seat in winners else 0.0
    low, high = wilson(share, games)
    games_s = speed_games / speed_cpu
    interval = f"[{float(low):5.1%}, {float(high):5.1%}]"
    return (
        f"{name(rules):<58} {games_s:8.1f} {actions / speed_cpu:9.0f} "
        f"{by_rules / speed_games:6.1%}   {share / games:6.1%} {interval}"
    )


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="greedy-vs-random games each")
    parser.add_argument("--speed-games", type=int, default=100, help="random games each")
    parser.add_argument("--players", default="1,2,3,4,5,6", help="player counts to include")
    parser.add_argument(
        "--expansions",
        help="only these expansion sets, comma separated (e.g. none,ghost+finesse)",
    )
    parser.add_argument("--endless", action="store_true", help="with the Endless White Deck")
    parser.add_argument(
        "--ambassador", action="store_true", help="Finesse with the Ambassador Pack tiles"
    )
    parser.add_argument("--seed", type=int, help="root seed (fresh and printed if absent)")
    parser.add_argument("--jobs", type=int, default=1, help="combinations played in parallel")
    args = parser.parse_args()
    counts = {int(p) for p in args.players.split(",")}
    switches = {"endless_white_deck": True} if args.endless else {}
    combos = [r for r in every_combination(**switches) if r.players in counts]
    if args.expansions:
        wanted = {frozenset(parse_expansions(s)[0]) for s in args.expansions.split(",")}
        combos = [r for r in combos if r.expansions in wanted]
    if args.ambassador:
        combos = [replace(r, finesse_ambassador=True) if r.finesse else r for r in combos]
    root = args.seed if args.seed is not None else secrets.randbits(62)
    print(f"root seed {root}; {len(combos)} combinations; one core per job")
    print(
        f"{'combination':<58} {'games/s':>8} {'actions/s':>9} {'rules':>6}   greedy wins [95% CI]"
    )
    lines = Parallel(n_jobs=args.jobs, return_as="generator")(
        delayed(measure)(rules, args.speed_games, args.games, root, i)
        for i, rules in enumerate(combos)
    )
    for line in lines:
        print(line, flush=True)


if __name__ == "__main__":
    main()
