"""Win rates against the mastermind: solo and Finesse Solo, by bot and difficulty (a small table).

Run: ``.venv/bin/python benchmarks/solo.py [--games N] [--mcts-games M] [--iterations K]
[--seed S]``.

Each cell plays its games on the same deals (game seeds spawned from one root seed, so every bot
and difficulty of a variant meets the same decks). A line gives the win rate (rulings: a tie goes
to the mastermind) with its Wilson 95% interval, the mean score of the player and of the
mastermind, and the mean Credits spent on Inserts (Finesse Solo). MCTS budgets stay modest (the
machine is shared): ``--iterations`` per decision, ``--mcts-games`` games per cell.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# This script lives beside a folder named like the ``bots`` package: keep ``import bots`` on it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.rules import DIFFICULTIES  # noqa: E402
from projectl_sim.sim.summary import wilson  # noqa: E402

VARIANTS = {"solo": frozenset(), "finesse-solo": frozenset({"finesse"})}


def cell(variant: str, difficulty: str, spec: str, seeds: list[np.random.SeedSequence]) -> str:
    """Play one cell and return its table line."""
    rules = Rules(players=1, variant="solo", difficulty=difficulty, expansions=VARIANTS[variant])
    wins, scores, opponent, inserts = 0, [], [], []
    start = time.process_time()
    for seed in seeds:
        state = play_game(rules, [make_bot(spec)], seed, record=False).state
        wins += bool(state.winners())
        scores.append(state.final_scores()[0])
        opponent.append(state.opponent_score())
        inserts.append(state.finesse.inserts[0] if state.finesse is not None else 0)
    n = len(seeds)
    low, high = wilson(wins, n)
    cpu = time.process_time() - start
    return (
        f"{variant:<13}{difficulty:<11}{spec:<22}{n:>5}  {wins / n:6.1%} "
        f"[{float(low):6.1%}, {float(high):6.1%}]  {np.mean(scores):6.1f} {np.mean(opponent):6.1f}"
        f"  {np.mean(inserts):5.2f}  {1000 * cpu / n:7.1f} ms"
    )


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per greedy cell")
    parser.add_argument("--mcts-games", type=int, default=20, help="games per mcts cell")
    parser.add_argument("--iterations", type=int, default=30, help="mcts iterations per decision")
    parser.add_argument("--seed", type=int, default=1, help="root seed")
    args = parser.parse_args()
    root = np.random.SeedSequence(args.seed)
    seeds = root.spawn(max(args.games, args.mcts_games))
    print(f"root seed {args.seed}")
    print(
        f"{'variant':<13}{'difficulty':<11}{'bot':<22}{'games':>5}  win rate [95% CI]"
        "         score  mmind  inserts  cpu/game"
    )
    for variant in VARIANTS:
        for difficulty in DIFFICULTIES:
            print(cell(variant, difficulty, "greedy", seeds[: args.games]), flush=True)
            mcts = f"mcts:iterations={args.iterations}"
            print(cell(variant, difficulty, mcts, seeds[: args.mcts_games]), flush=True)


if __name__ == "__main__":
    main()
