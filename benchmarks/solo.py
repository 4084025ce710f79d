"""Win rates against the mastermind: solo and Finesse Solo, by bot and difficulty (a small table).

Run: ``.venv/bin/python benchmarks/solo.py [--games N] [--mcts-games M] [--iterations K]
[--seed S] [--variants solo,finesse-solo] [--unlock take,pass] [--ambassador]``.

Each cell plays its games on the same deals (game seeds spawned from one root seed, so every bot
and difficulty of a variant meets the same decks). A line gives the win rate (rulings: a tie goes
to the mastermind) with its Wilson 95% interval, the mean score of the player and of the
mastermind, and the mean number of Inserts (Finesse Solo; each spends 2 Credits). MCTS budgets
stay modest (the machine is shared): ``--iterations`` per decision, ``--mcts-games`` games per
cell.
``--unlock`` lists the ``solo_unlock`` readings to play (a column of the table), ``--ambassador``
deals Finesse Solo's tiles with the Finesse Ambassador Pack's (``finesse_ambassador``).
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
from projectl_sim.analysis.stats import wilson  # noqa: E402
from projectl_sim.expansions.finesse import credits  # noqa: E402
from projectl_sim.rules import DIFFICULTIES  # noqa: E402
from projectl_sim.sim.spec import game_seed  # noqa: E402

VARIANTS = {"solo": frozenset(), "finesse-solo": frozenset({"finesse"})}


def cell(
    variant: str,
    difficulty: str,
    spec: str,
    seeds: list[int],
    unlock: str = "take",
    ambassador: bool = False,
) -> str:
    """Play one cell and return its table line."""
    expansions = VARIANTS[variant]
    pack = {"finesse_ambassador": True} if ambassador and expansions else {}
    rules = Rules(
        players=1,
        variant="solo",
        difficulty=difficulty,
        expansions=expansions,
        solo_unlock=unlock,
        **pack,
    )
    wins, scores, opponent, inserts = 0, [], [], []
    start = time.process_time()
    for seed in seeds:
        state = play_game(rules, [make_bot(spec)], seed, record=False).state
        wins += bool(state.winners())
        scores.append(state.final_scores()[0])
        opponent.append(state.opponent_score())
        fin = credits(state)
        inserts.append(fin.inserts[0] if fin is not None else 0)
    n = len(seeds)
    low, high = wilson(wins, n)
    cpu = time.process_time() - start
    label = variant + ("+pack" if pack else "")
    return (
        f"{label:<18}{unlock:<7}{difficulty:<11}{spec:<22}{n:>5}  {wins / n:6.1%} "
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
    parser.add_argument("--variants", default=",".join(VARIANTS), help="variants to play")
    parser.add_argument("--unlock", default="take", help="solo_unlock readings (take,pass)")
    parser.add_argument(
        "--ambassador", action="store_true", help="Finesse Solo with the Ambassador Pack tiles"
    )
    args = parser.parse_args()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r} (valid: {', '.join(VARIANTS)})")
    readings = [u.strip() for u in args.unlock.split(",") if u.strip()]
    root = np.random.SeedSequence(args.seed)
    # one int seed per game, as the runner draws them (play_game takes an int: compiled, it
    # refuses a SeedSequence)
    seeds = [game_seed(ss) for ss in root.spawn(max(args.games, args.mcts_games))]
    print(f"root seed {args.seed}")
    print(
        f"{'variant':<18}{'unlock':<7}{'difficulty':<11}{'bot':<22}{'games':>5}  win rate [95% CI]"
        "         score  mmind  inserts  cpu/game"
    )
    for variant in variants:
        for unlock in readings:
            for difficulty in DIFFICULTIES:
                line = cell(
                    variant, difficulty, "greedy", seeds[: args.games], unlock, args.ambassador
                )
                print(line, flush=True)
                mcts = f"mcts:iterations={args.iterations}"
                mseeds = seeds[: args.mcts_games]
                print(cell(variant, difficulty, mcts, mseeds, unlock, args.ambassador), flush=True)


if __name__ == "__main__":
    main()
