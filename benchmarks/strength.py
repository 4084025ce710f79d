"""Head-to-head strength on shared deals: does a search gain with budget, does a model beat another.

Run: ``.venv/bin/python benchmarks/strength.py --out DIR [--games N] [--seed S] [--jobs J]
(--pair A B)... | --scaling TEMPLATE --budgets 8,32,128``.

Each pair plays ``--games`` 2-player games, every deal under both seatings (the runner's round
robin, resumable: ``DIR/NN``), and prints bot A's score share with its 95% interval over deals
(a deal's two seatings averaged first: ``learn.expit.match``) and each bot's CPU per decision,
measured in the same run. ``--scaling`` makes the pairs of a bot spec at 4x a budget against
itself at that budget (``TEMPLATE`` holds ``{it}``; e.g. ``"mcts:leaf=value,tree=turn,width=0,
iterations={it}"``): the issue asks 55% at each.

``--bias TEMPLATE --budgets 32,128`` asks why a search does or does not gain: it plays
``--games`` 2-player games of the spec against itself at each budget and compares, decision by
decision, the chosen candidate's mean value in the search (``root_value``) with what the game
then gave the mover (the same scale: half the win share, half the logistic of the final margin).
A search that maximises over noisy values overrates its choice, and more so the more lines it
compares; the printed bias is that overrating, with its 95% interval clustered by game.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def main() -> int:
    from projectl_sim.learn.expit import match
    from projectl_sim.sim.runner import RunOptions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="the runs' folder (not with --bias)")
    ap.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A", "B"))
    ap.add_argument("--scaling", metavar="TEMPLATE")
    ap.add_argument("--bias", metavar="TEMPLATE")
    ap.add_argument("--budgets", default="8,32")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=53)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    if args.games < 2:
        ap.error("--games must be at least 2")
    if args.bias:
        return _bias(args.bias, [int(b) for b in args.budgets.split(",")], args.games, args.seed)
    if args.out is None:
        ap.error("give --out DIR")
    pairs = [tuple(p) for p in args.pair]
    if args.scaling:
        for it in (int(b) for b in args.budgets.split(",")):
            pairs.append((args.scaling.format(it=4 * it), args.scaling.format(it=it)))
    if not pairs:
        ap.error("give --pair A B or --scaling TEMPLATE")
    options = RunOptions(jobs=args.jobs, quiet=True)
    print(f"{'bot A':58s} {'bot B':58s} games  A share [95%]          A ms/dec")
    for k, (a, b) in enumerate(pairs):
        r = match(a, b, args.out / f"{k:02d}", args.games, args.seed, options)
        print(
            f"{a:58s} {b:58s} {r['games']:5d}  {r['share']:6.1%} [{r['ci_low']:.1%}, "
            f"{r['ci_high']:.1%}]  {r['ms_per_decision']:8.2f}",
            flush=True,
        )
    return 0


class _Noting:
    """A seat that notes, at each searched decision, the chosen candidate's search value."""

    def __init__(self, bot: Any, seat: int, noted: list[tuple[int, float]]) -> None:
        self.bot, self.seat, self.noted = bot, seat, noted
        self.cpu = 0.0
        self.calls = 0

    def __call__(self, view: Any, rng: Any) -> Any:
        self.bot.root_value = -1.0
        start = time.process_time()
        action = self.bot(view, rng)
        self.cpu += time.process_time() - start
        self.calls += 1
        if self.bot.root_value >= 0:
            self.noted.append((self.seat, self.bot.root_value))
        return action


def _bias(template: str, budgets: list[int], games: int, seed: int) -> int:
    """Print each budget's search value of its choices against the outcomes the games gave."""
    import numpy as np

    from bots import make_bot
    from bots.heuristics import cost_model
    from projectl_sim.analysis.stats.clusters import clustered_mean
    from projectl_sim.rules import Rules
    from projectl_sim.sim.play import play_game

    rules = Rules(players=2)
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(games)]
    print(f"{'search':58s} decisions  value   outcome  bias [95%]             ms/dec")
    for it in budgets:
        spec = template.format(it=it)
        values: list[float] = []
        outcomes: list[float] = []
        game_of: list[int] = []
        cpu = calls = 0.0
        for g, game_seed in enumerate(seeds):
            noted: list[tuple[int, float]] = []
            seats = [_Noting(make_bot(spec), k, noted) for k in range(2)]
            end = play_game(rules, seats, game_seed, record=False).state
            # what the game gave each seat, on the search's own scale (its value of a finished
            # game: half the win share, half the logistic of the margin)
            final = seats[0].bot._values(end, cost_model(end))
            for k, v in noted:
                values.append(v)
                outcomes.append(final[k])
                game_of.append(g)
            cpu += sum(t.cpu for t in seats)
            calls += sum(t.calls for t in seats)
        mean, se, n, _ = clustered_mean(np.asarray(values) - np.asarray(outcomes), game_of)
        half = 1.96 * se
        print(
            f"{spec:58s} {n:9d}  {np.mean(values):.3f}   {np.mean(outcomes):.3f}   "
            f"{mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]  "
            f"{1000 * cpu / max(1.0, calls):8.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
