"""Fit the MCTS leaf evaluation: a linear estimate of each player's final score from a position.

Run: ``.venv/bin/python tools/fit_leaf.py [--games N] [--spec SPEC] [--every K] [--seed S]``.

Plays ``--games`` 2-player self-play games of ``--spec`` and, at every ``--every``-th Play
decision, notes both players' ``bots.mcts.leaf_features``; at the end, each position's final score
margin. The least-squares fit of the margins on the feature differences (no intercept: the
"to move" term carries the asymmetry) gives the weights ``score_estimate`` uses; printed with the
fit's correlation, and beside the weights in use for comparison (their correlation on the same
positions).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots import make_bot  # noqa: E402
from bots.heuristics import cost_model  # noqa: E402
from bots.mcts import LEAF_FEATURES, leaf_features, score_estimate  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim.engine import OVER, PLAY, deal, new_game  # noqa: E402
from projectl_sim.sim.play import game_seeds  # noqa: E402


def positions(
    games: int, spec: str, every: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the feature differences, the current weights' estimate differences, and margins."""
    rules = Rules(players=2)
    xs, old, ys = [], [], []
    seeds = np.random.SeedSequence(seed).spawn(games)
    for ss in seeds:
        deal_rng, rngs = game_seeds(ss, 2)
        state = new_game(rules, setup=deal(rules, deal_rng))
        bots = [make_bot(spec), make_bot(spec)]
        here: list[tuple[list[float], float, int]] = []
        k = 0
        while state.phase != OVER:
            p = state.current
            if state.phase == PLAY:
                k += 1
                if k % every == 0:
                    model = cost_model(state)
                    f = [
                        a - b
                        for a, b in zip(
                            leaf_features(state, 0, model),
                            leaf_features(state, 1, model),
                            strict=True,
                        )
                    ]
                    e = score_estimate(state, 0, model) - score_estimate(state, 1, model)
                    here.append((f, e, 0))
            state.step(p, bots[p](state.view(p), rngs[p]))
        final = state.final_scores()
        for f, e, _ in here:
            xs.append(f)
            old.append(e)
            ys.append(final[0] - final[1])
    return np.array(xs), np.array(old), np.array(ys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--spec", default="mcts")
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    x, old, y = positions(args.games, args.spec, args.every, args.seed)
    w, *_ = np.linalg.lstsq(x, y, rcond=None)
    fit = x @ w
    print(f"{len(y)} positions from {args.games} games of {args.spec} self-play")
    print(
        f"correlation with the final margin: fitted {np.corrcoef(fit, y)[0, 1]:.3f}, "
        f"weights in use {np.corrcoef(old, y)[0, 1]:.3f}"
    )
    for name, v in zip(LEAF_FEATURES, w, strict=True):
        print(f"    {name:22s} {v:8.3f}")


if __name__ == "__main__":
    main()
