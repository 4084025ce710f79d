"""How far solo play can go: a planner that sees the deck order, against the mastermind.

Run: ``.venv/bin/python tools/solo_ceiling.py [--games N] [--spec MCTS-PARAMS] [--seed S]
[--finesse] [--difficulty D]``.

For analysis only, never a registered bot: it cheats. ``Clairvoyant`` is the ``mcts`` bot whose
every world is the true game (the deck order, hence every refill of the grid and every blind
draw, is known), so its search needs no guess and its rollouts play the very game to come. The
mastermind is deterministic, so with the deck known the solo game is a one-player planning
problem: what this planner scores bounds what the same search reaches without seeing the deck
(a player who knows less can only do as well in expectation), and the gap between the two is what
hidden information costs. It is a lower bound of the clairvoyant optimum (the search is not
exhaustive), so read it as "at least this much is possible with the deck known".

The games use the same deals (seeds spawned from ``--seed``) as ``benchmarks/solo.py`` and
``benchmarks/bots.py --sections solo`` with the same root seed. Prints the mean score, the
mastermind's mean score and the win rate with its Wilson interval, and the mean action mix.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim.analysis.stats import wilson  # noqa: E402


def _solo_benchmark() -> Any:
    """Return ``benchmarks/solo.py`` as a module: its ``Clairvoyant`` and ``play_seen`` are the
    ones this tool plays (one cheating search, one game loop, for both)."""
    path = _HERE.parent / "benchmarks" / "solo.py"
    spec = importlib.util.spec_from_file_location("solo_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spec", default="iterations=200,horizon=0", help="MCTS parameters")
    parser.add_argument("--seed", type=int, default=1, help="root seed of the deals")
    parser.add_argument("--difficulty", default="normal")
    parser.add_argument("--finesse", action="store_true", help="Finesse Solo")
    parser.add_argument("--honest", action="store_true", help="the same search, deck unseen")
    args = parser.parse_args()
    expansions = {"finesse"} if args.finesse else set()
    rules = Rules(players=1, variant="solo", difficulty=args.difficulty, expansions=expansions)
    seeds = np.random.SeedSequence(args.seed).spawn(args.games)
    spec = "mcts:" + args.spec
    template = make_bot(spec)  # parses and checks the parameters
    solo = _solo_benchmark()
    scores, opponent, wins = [], [], 0
    start = time.process_time()
    for s in seeds:
        given = {k: template.options[k] for k in template.given}  # defaults stay defaults
        bot = solo.Clairvoyant(**given) if not args.honest else make_bot(spec)
        state = solo.play_seen(rules, s, bot, not args.honest)[0]
        scores.append(state.final_scores()[0])
        opponent.append(state.opponent_score())
        wins += bool(state.winners())
    n = len(seeds)
    lo, hi = wilson(wins, n)
    cpu = time.process_time() - start
    who = "the same search, deck unseen" if args.honest else "clairvoyant (sees the deck)"
    print(
        f"{'finesse-solo' if args.finesse else 'solo'} {args.difficulty} {spec} {who}: "
        f"{n} games, score {np.mean(scores):.1f}, mastermind {np.mean(opponent):.1f}, "
        f"wins {wins / n:.1%} [{float(lo):.1%}, {float(hi):.1%}], {cpu / n:.1f} s CPU a game"
    )


if __name__ == "__main__":
    main()
