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
import random
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots import MCTSBot, make_bot  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim.analysis.stats import wilson  # noqa: E402
from projectl_sim.engine import OVER, GameState, deal, new_game  # noqa: E402
from projectl_sim.sim.play import game_seeds  # noqa: E402


class Clairvoyant(MCTSBot):
    """MCTS whose worlds are the true game: it sees the deck (analysis only)."""

    name = "clairvoyant"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.truth: GameState | None = None

    def _world(self, view: GameState, rng: random.Random) -> GameState:
        assert self.truth is not None
        return self.truth.copy()


def play(rules: Rules, seed: np.random.SeedSequence, bot: Any, clairvoyant: bool) -> GameState:
    """Play one solo game, as ``play_game`` deals it, the bot seeing the true state if asked."""
    deal_rng, (rng,) = game_seeds(seed, 1)
    state = new_game(rules, setup=deal(rules, deal_rng))
    while state.phase != OVER:
        if clairvoyant:
            bot.truth = state
        state.step(0, bot(state.view(0), rng))
    return state


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
    scores, opponent, wins = [], [], 0
    start = time.process_time()
    for s in seeds:
        given = {k: template.options[k] for k in template.given}  # defaults stay defaults
        bot = Clairvoyant(**given) if not args.honest else make_bot(spec)
        state = play(rules, s, bot, not args.honest)
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
