"""Search the greedy bot's solo weights with Optuna, against the mastermind.

Run: ``.venv/bin/python tools/tune_solo.py [--trials N] [--games N] [--objective win|points|both]
[--seed S] [--validate N] [--top K] [--start SPEC ...] [--finesse] [--difficulty D]``.

Optuna's TPE sampler proposes settings of the weights greedy plays solo with (``deny``,
``lookahead``, ``black_bias``, ``reward``, ``risk``, ``horizon``, ``min_held``, ``build``); each
setting plays the same ``--games`` deals (seeds spawned from ``--seed``). The first trial is
today's defaults, then each ``--start`` spec (a setting found before). Objectives: ``win``: the win
rate, the mean margin over the mastermind breaking ties (a margin point counts 0.5% of wins);
``points``: the mean score plus 30 points per unit of win rate; ``both``: the win rate and the
mean score as two objectives (Optuna's multi-objective TPE), for the settings no other beats on
both (the Pareto front). Then the ``--top`` best settings (``both``: ``--top`` settings spread
along the front, from the highest score to the highest win rate) and today's defaults play
``--validate`` fresh deals (seeds spawned from ``--seed + 1``, none of them seen by the search),
printed with the win rate's Wilson 95% interval, the mean score and the mean margin: a setting is
chosen on the validation deals, never on the deals it was found on.
``bots/greedy.py``'s ``SOLO_WEIGHTS`` and ``SOLO_PARAMS`` defaults come from this search (their
comment has the command).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
import optuna  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules, play_game  # noqa: E402
from projectl_sim.analysis.stats import wilson  # noqa: E402

# the searched weights and their ranges (the bot's own ranges are wider)
SPACE: dict[str, tuple[str, float, float]] = {
    "deny": ("float", 0.0, 3.0),
    "lookahead": ("int", 1, 10),
    "black_bias": ("float", 0.3, 4.0),
    "reward": ("float", 0.0, 1.0),
    "risk": ("float", 0.2, 1.5),
    "horizon": ("int", 0, 45),
    "min_held": ("int", 0, 3),
    "build": ("float", 0.0, 1.0),
}


def deal_seeds(root: int, n: int) -> list[int]:
    """Return ``n`` game seeds spawned from ``root``."""
    return [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(root).spawn(n)]


def play(rules: Rules, spec: str, seeds: list[int]) -> dict[str, float]:
    """Return a spec's results over the deals: games, wins, mean score, mean margin."""
    wins = score = margin = 0.0
    for seed in seeds:
        state = play_game(rules, [make_bot(spec)], seed, record=False).state
        mine, theirs = state.final_scores()[0], state.opponent_score()
        wins += bool(state.winners())  # a tie goes to the mastermind: no winner
        score += mine
        margin += mine - theirs
    n = len(seeds)
    return {"games": n, "wins": wins, "score": score / n, "margin": margin / n}


def objective_value(name: str, r: dict[str, float]) -> float:
    """Return the value the search makes large."""
    rate = r["wins"] / r["games"]
    return rate + r["margin"] / 200 if name == "win" else r["score"] + 30 * rate


def along_front(front: list[optuna.trial.FrozenTrial], k: int) -> list[optuna.trial.FrozenTrial]:
    """Return ``k`` trials spread evenly along a (win rate, score) front, highest score first."""
    ordered = sorted(front, key=lambda t: (-t.values[1], -t.values[0]))
    if len(ordered) <= k:
        return ordered
    if k <= 1:
        return ordered[:k]
    picks = sorted({round(i * (len(ordered) - 1) / (k - 1)) for i in range(k)})
    return [ordered[i] for i in picks]


def spec_of(weights: dict[str, Any]) -> str:
    return "greedy:" + ",".join(
        f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in weights.items()
    )


def line(label: str, spec: str, r: dict[str, float]) -> str:
    lo, hi = wilson(r["wins"], int(r["games"]))
    return (
        f"{label:10s} {int(r['games']):5d} games  wins {r['wins'] / r['games']:6.1%} "
        f"[{lo:5.1%}, {hi:5.1%}]  score {r['score']:5.2f}  margin {r['margin']:+6.2f}  {spec}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=150)
    parser.add_argument("--games", type=int, default=600, help="deals per trial")
    parser.add_argument("--objective", choices=["win", "points", "both"], default="win")
    parser.add_argument("--seed", type=int, default=1000, help="root seed of the search deals")
    parser.add_argument("--validate", type=int, default=1000, help="fresh deals to validate on")
    parser.add_argument("--top", type=int, default=5, help="best settings validated")
    parser.add_argument(
        "--start", action="append", default=[], help="a greedy spec to try early (repeatable)"
    )
    parser.add_argument("--finesse", action="store_true", help="Finesse Solo")
    parser.add_argument("--difficulty", default="normal")
    args = parser.parse_args()
    expansions = {"finesse"} if args.finesse else set()
    rules = Rules(players=1, variant="solo", difficulty=args.difficulty, expansions=expansions)
    search = deal_seeds(args.seed, args.games)
    start = time.process_time()

    def trial(t: optuna.Trial) -> float | tuple[float, float]:
        weights: dict[str, Any] = {}
        for k, (kind, lo, hi) in SPACE.items():
            weights[k] = (
                t.suggest_int(k, int(lo), int(hi)) if kind == "int" else t.suggest_float(k, lo, hi)
            )
        spec = spec_of(weights)
        t.set_user_attr("spec", spec)
        r = play(rules, spec, search)
        if args.objective == "both":
            return r["wins"] / r["games"], r["score"]
        return objective_value(args.objective, r)

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        directions=["maximize"] * (2 if args.objective == "both" else 1),
        sampler=optuna.samplers.TPESampler(seed=1),
    )
    for spec in ["greedy", *args.start]:  # today's defaults first, then the given settings
        given = make_bot(spec)
        solo = given.solo_weights  # the weights it plays solo with (options hold the base game's)
        study.enqueue_trial({k: getattr(solo, k, given.options[k]) for k in SPACE})
    study.optimize(trial, n_trials=args.trials)
    done = [t for t in study.trials if t.values is not None]
    if args.objective == "both":
        best = along_front(study.best_trials, args.top)
    else:
        best = sorted(done, key=lambda t: -float(t.values[0]))[: args.top]
    fresh = deal_seeds(args.seed + 1, args.validate)
    print(
        f"{'solo' if not expansions else 'finesse-solo'} {args.difficulty}: {len(done)} trials "
        f"of {args.games} deals (root seed {args.seed}), objective {args.objective}; "
        f"validated on {args.validate} fresh deals (root seed {args.seed + 1})"
    )
    print(line("defaults", "greedy", play(rules, "greedy", fresh)))
    for rank, t in enumerate(best, 1):
        spec = str(t.user_attrs["spec"])
        print(line(f"best {rank}", spec, play(rules, spec, fresh)))
    print(f"{time.process_time() - start:.0f} s CPU")


if __name__ == "__main__":
    main()
