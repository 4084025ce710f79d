"""A peer, side by side: OpenSpiel's own MCTS against projectl-sim's mcts and greedy.

Run: ``.venv/bin/python benchmarks/peers.py [--games N] [--iterations K] [--seed S]
[--matchup NAME ...]``.

Every game is played through the registered OpenSpiel game ``python_project_l`` (2 players,
``known_victory_points=true``: perfect information with chance, so neither search peeks at
anything hidden) by OpenSpiel's ``evaluate_bots``, chance sampled by its rng. OpenSpiel's
``mcts.MCTSBot`` (UCT c=2, no solver) searches with random rollouts (``RandomRolloutEvaluator``)
or with rollouts played by projectl-sim's greedy bot (``GreedyEvaluator``); projectl-sim's bots
sit through ``EngineBot`` (they decide an engine action from their view and answer its tokens).
The two seats swap every game, so each configuration plays both seats equally often.

Matchups: at equal iterations, OpenSpiel's MCTS with K simulations a decision (a decision is
one token: an engine action takes about 3) against ``mcts:iterations=K`` (K iterations an
engine action) and against greedy; at equal CPU time, projectl-sim's mcts gets per engine
action the CPU time OpenSpiel's MCTS was measured to take per engine action in the
equal-iterations games (``mcts:time=T``).

Printed per matchup: OpenSpiel's MCTS's win rate (a shared win counts half) with its 95%
Wilson interval, and each side's iterations per CPU second (``time.process_time``) and CPU
seconds per engine action.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402

from projectl_sim.rl.openspiel import EngineBot, GreedyEvaluator  # noqa: E402


class TimedMCTS(mcts.MCTSBot):
    """OpenSpiel's MCTSBot, counting its CPU time, decisions and the engine actions it made."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cpu = 0.0
        self.steps = 0
        self.actions = 0

    def step(self, state: pyspiel.State) -> int:
        start = time.process_time()
        token = super().step(state)
        self.cpu += time.process_time() - start
        self.steps += 1
        if state.decision is not None:  # does this token complete an engine action?
            self.actions += state.decision.copy().push(token) is not None
        return token


def wilson(wins: float, n: int) -> tuple[float, float]:
    """Return the 95% Wilson interval of a rate ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play(
    game: pyspiel.Game, evaluator: str, sims: int, opponent: str, games: int, seed: int
) -> dict[str, float]:
    """Play OpenSpiel's MCTS against ``opponent`` (a bot spec); return the figures."""
    wins = 0.0
    os_cpu = os_sims = os_actions = our_cpu = our_actions = 0.0
    for k in range(games):
        rng = np.random.RandomState(seed + k)
        if evaluator == "random":
            ev: Any = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed + 1000 + k))
        else:
            ev = GreedyEvaluator(1, seed + 1000 + k)
        ours = TimedMCTS(
            game, 2.0, sims, ev, random_state=np.random.RandomState(seed + k), solve=False
        )
        seat = k % 2
        theirs = EngineBot(opponent, 1 - seat, seed + 2000 + k)
        bots = [ours, theirs] if seat == 0 else [theirs, ours]
        returns = evaluate_bots(game.new_initial_state(), bots, rng)
        wins += returns[seat]
        os_cpu += ours.cpu
        os_sims += sims * ours.steps
        os_actions += ours.actions
        our_cpu += theirs.cpu
        our_actions += theirs.decisions
    low, high = wilson(wins, games)
    return {
        "rate": wins / games,
        "low": low,
        "high": high,
        "os_ips": os_sims / os_cpu if os_cpu else 0.0,
        "os_cpu_action": os_cpu / max(os_actions, 1),
        "our_cpu_action": our_cpu / max(our_actions, 1),
        "our_cpu": our_cpu,
        "our_actions": our_actions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per matchup")
    parser.add_argument("--iterations", type=int, default=20, help="K, iterations a decision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--evaluator", nargs="*", choices=("random", "greedy"), default=["greedy", "random"]
    )
    args = parser.parse_args()
    game = pyspiel.load_game("python_project_l", {"players": 2, "known_victory_points": True})
    k = args.iterations
    print(
        f"python_project_l, 2 players, known victory points; {args.games} games a matchup, "
        "seats alternating; CPU time (process_time)"
    )
    for evaluator in args.evaluator:
        name = f"OpenSpiel MCTS ({evaluator} rollouts, {k} sims/token)"
        # equal iterations: projectl-sim's mcts at K iterations an engine action, and greedy
        eq = play(game, evaluator, k, f"mcts:iterations={k}", args.games, args.seed)
        ours_ips = _our_ips(k, eq)
        _line(f"{name} vs mcts:iterations={k}", eq, args.games, ours_ips)
        gr = play(game, evaluator, k, "greedy", args.games, args.seed)
        _line(f"{name} vs greedy", gr, args.games, None)
        # equal CPU: projectl-sim's mcts gets OpenSpiel's measured CPU per engine action
        budget = eq["os_cpu_action"]
        cpu = play(game, evaluator, k, f"mcts:time={budget:.4f}", args.games, args.seed)
        _line(f"{name} vs mcts:time={budget:.4f} (equal CPU/action)", cpu, args.games, None)


def _our_ips(k: int, figures: dict[str, float]) -> float:
    return k * figures["our_actions"] / figures["our_cpu"] if figures["our_cpu"] else 0.0


def _line(label: str, f: dict[str, float], games: int, ours_ips: float | None) -> None:
    ips = f" | projectl-sim mcts {ours_ips:,.0f} iterations/CPU s" if ours_ips else ""
    print(
        f"{label}: OpenSpiel wins {f['rate']:.1%} [{f['low']:.1%}, {f['high']:.1%}] of {games}"
        f" | OpenSpiel {f['os_ips']:,.0f} sims/CPU s, {f['os_cpu_action']:.3f} s/action; "
        f"projectl-sim {f['our_cpu_action']:.4f} s/action{ips}",
        flush=True,
    )


if __name__ == "__main__":
    main()
