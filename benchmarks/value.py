"""The learned evaluation's costs, compiled against pure Python in the same run.

Run: ``.venv/bin/python benchmarks/value.py [--games N] [--seed S]``.

Replays the Play positions of ``--games`` 2-player greedy games and times, in each build's own
process (CPU time, ``time.process_time``): one feature vector (``bots.features``), one
evaluation of the shipped model (``bots.value_net``), and one decision of ``value``,
``value:ply=2`` and ``mcts:leaf=value`` (every 5th position). Prints microseconds per call and
the compiled/pure ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

WORKER = r"""
import json, random, sys, time
from bots import make_bot
from bots.features import hidden_piles, mean_unseen_points, position_features
from bots.value_model import load_model
from projectl_sim import Rules, play_game
from projectl_sim._native import compiled

games, seed = int(sys.argv[1]), int(sys.argv[2])
views = []
def note(state, seat, action):
    if state.phase == "play":
        views.append(state.view(state.current))
for s in range(games):
    play_game(Rules(players=2), [make_bot("greedy"), make_bot("greedy")], seed + s,
              record=False, on_step=note)
model = load_model()
out = {"build": "compiled" if compiled() else "pure", "positions": len(views)}
hidden = [hidden_piles(v) for v in views]
per = [mean_unseen_points(v) if h else 0.0 for v, h in zip(views, hidden)]
t = time.process_time()
xs = [position_features(v, v.current, h, p) for v, h, p in zip(views, hidden, per)]
out["features_us"] = (time.process_time() - t) / len(views) * 1e6
t = time.process_time()
for _ in range(5):
    for x in xs:
        model.net.evaluate(x)
out["eval_us"] = (time.process_time() - t) / (5 * len(xs)) * 1e6
for spec in ("value", "value:ply=2", "mcts:leaf=value"):
    bot, rng = make_bot(spec), random.Random(1)
    chosen = views[::5]
    t = time.process_time()
    for v in chosen:
        bot(v, rng)
    out[spec] = (time.process_time() - t) / len(chosen) * 1e6
print(json.dumps(out))
"""


def measure(pure: bool, games: int, seed: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PROJECTL_SIM_PURE"}
    if pure:
        env["PROJECTL_SIM_PURE"] = "1"
    env["OPENBLAS_NUM_THREADS"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(games), str(seed)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    fast, slow = measure(False, args.games, args.seed), measure(True, args.games, args.seed)
    print(f"{fast['positions']} positions of {args.games} greedy games; {fast['build']} vs pure")
    for key, label in (
        ("features_us", "features (one seat's vector)"),
        ("eval_us", "model evaluation"),
        ("value", "value decision"),
        ("value:ply=2", "value:ply=2 decision"),
        ("mcts:leaf=value", "mcts:leaf=value decision"),
    ):
        print(
            f"{label:30s} {fast[key]:10.2f} us   pure {slow[key]:10.2f} us   "
            f"x{slow[key] / fast[key]:5.2f}"
        )


if __name__ == "__main__":
    main()
