"""How fast the MCTS root values settle: the loss of picking by k deals instead of many.

Run: ``.venv/bin/python benchmarks/mcts_settle.py [--positions N] [--deals D] [--seed S]``.

Positions come from 2-player greedy self-play (seeded). At each, every root candidate of the
``mcts`` bot is played in the same ``--deals`` worlds (the bot's determinization, common to all
candidates), then by greedy rollouts to the bot's horizon and scored by its leaf evaluation:
the flat estimate the search starts from. For k = 1, 2, 4, ... a line gives the mean loss (in
the mover's win chance, by the all-deals estimate) of picking the candidate best on k deals
(averaged over disjoint blocks of k deals), and the mean gap between the two best candidates.
When the loss at k is far below the gap, more than k visits per candidate re-average the same
estimate: this is why the default budget is small (see ``bots/mcts.py``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

# this folder holds bots.py, named like the ``bots`` package: drop it from the import path
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from bots import MCTSBot, make_bot  # noqa: E402
from bots._state import determinize  # noqa: E402
from bots.heuristics import cost_model  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim.engine import OVER, PLAY, GameState, new_game  # noqa: E402


def positions(count: int, seed: int) -> list[GameState]:
    """Return ``count`` views of the player to move, after some greedy self-play each."""
    greedy = make_bot("greedy")
    out: list[GameState] = []
    k = 0
    while len(out) < count:
        k += 1
        state = new_game(Rules(players=2), seed=seed + k)
        rng = random.Random(seed + k)
        for _ in range(5 + (7 * k) % 60):
            if state.phase == OVER:
                break
            state.step(state.current, greedy(state.view(state.current), rng))
        if state.phase == PLAY:
            out.append(state.view(state.current))
    return out


def flat_values(view: GameState, deals: int, rng: random.Random) -> list[list[float]]:
    """Return each root candidate's value for the mover in each of ``deals`` common worlds."""
    bot = MCTSBot()
    model = cost_model(view)
    stop = view.turn + int(bot.options["horizon"]) * view.n
    worlds = [determinize(view, rng) for _ in range(deals)]
    me = view.current
    values = []
    for action in bot._candidates(view, model):
        row = []
        for world in worlds:
            state = world.copy()
            state.apply(action)
            row.append(bot._rollout(state, rng, model, stop)[me])
        values.append(row)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--deals", type=int, default=48, help="worlds per position")
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()
    ks = [k for k in (1, 2, 4, 8, 16) if 2 * k <= args.deals]
    loss: dict[int, list[float]] = {k: [] for k in ks}
    gaps, counts = [], []
    for i, view in enumerate(positions(args.positions, args.seed)):
        values = flat_values(view, args.deals, random.Random(args.seed + i))
        full = [statistics.fmean(v) for v in values]
        ranked = sorted(full, reverse=True)
        gaps.append(ranked[0] - ranked[1] if len(ranked) > 1 else 0.0)
        counts.append(len(values))
        for k in ks:
            picks = []
            for start in range(0, args.deals - k + 1, k):
                est = [statistics.fmean(v[start : start + k]) for v in values]
                picks.append(ranked[0] - full[max(range(len(est)), key=est.__getitem__)])
            loss[k].append(statistics.fmean(picks))
    print(
        f"{len(counts)} positions, {statistics.fmean(counts):.1f} candidates on average, "
        f"{args.deals} deals; gap between the two best {statistics.fmean(gaps):.4f}"
    )
    for k in ks:
        print(f"picking by {k:2d} deals: mean loss {statistics.fmean(loss[k]):.4f}")


if __name__ == "__main__":
    main()
