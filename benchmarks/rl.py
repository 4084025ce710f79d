"""Speed of the learning environments: a random masked agent in the PettingZoo environment.

Run: ``.venv/bin/python benchmarks/rl.py [--steps N] [--seed S] [--game NAME ...]``.

For each game (the base game for 2 players, solo, Line Clear at 5 players, every expansion at
3 players), a random agent plays ``--steps`` environment steps (one token each), choosing
uniformly among the tokens its action mask allows, with ``env.last()`` read at every step as a
learner would; a finished game is reset with the next seed. Printed: steps per CPU second
(``time.process_time``), engine actions per CPU second, tokens per engine action, and games
finished. Every step is checked by the environment (an illegal token raises), so the run is
also the issue's 10,000 steps "without an error".
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from projectl_sim.rl import raw_env  # noqa: E402

GAMES = {
    "base": dict(players=2),
    "solo": dict(players=1, variant="solo"),
    "line_clear_5": dict(players=5, variant="line_clear"),
    "all_expansions": dict(players=3, expansions="all"),
}


def run(kwargs: dict, steps: int, seed: int) -> tuple[float, int, int, int]:
    """Return (CPU seconds, steps, engine actions, games finished) of a random masked agent."""
    e = raw_env(**kwargs)
    rng = random.Random(seed)
    e.reset(seed=seed)
    done = actions = 0
    start = time.process_time()
    for _ in range(steps):
        if not e.agents:
            actions += len(e.writer.moves)
            done += 1
            e.reset()
        obs, _reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    cpu = time.process_time() - start
    actions += len(e.writer.moves)
    return cpu, steps, actions, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--game", nargs="*", choices=list(GAMES), default=list(GAMES))
    args = parser.parse_args()
    print(f"random masked agent, {args.steps} steps per game kind (one token a step), CPU time")
    for name in args.game:
        cpu, steps, actions, done = run(GAMES[name], args.steps, args.seed)
        print(
            f"{name:15s} {steps / cpu:8.0f} steps/s  {actions / cpu:7.0f} engine actions/s  "
            f"{steps / max(actions, 1):4.2f} tokens/action  {done} games finished"
        )


if __name__ == "__main__":
    main()
