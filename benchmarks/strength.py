"""Head-to-head strength on shared deals: does a search gain with budget, does a model beat another.

Run: ``.venv/bin/python benchmarks/strength.py --out DIR [--games N] [--seed S] [--jobs J]
(--pair A B)... | --scaling TEMPLATE --budgets 8,32,128``.

Each pair plays ``--games`` 2-player games, every deal under both seatings (the runner's round
robin, resumable: ``DIR/NN``), and prints bot A's score share with its 95% interval over deals
(a deal's two seatings averaged first: ``learn.expit.match``) and each bot's CPU per decision,
measured in the same run. ``--scaling`` makes the pairs of a bot spec at 4x a budget against
itself at that budget (``TEMPLATE`` holds ``{it}``; e.g. ``"mcts:leaf=value,tree=turn,width=0,
iterations={it}"``): the issue asks 55% at each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def main() -> int:
    from projectl_sim.learn.expit import match
    from projectl_sim.sim.runner import RunOptions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--pair", nargs=2, action="append", default=[], metavar=("A", "B"))
    ap.add_argument("--scaling", metavar="TEMPLATE")
    ap.add_argument("--budgets", default="8,32")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=53)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
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


if __name__ == "__main__":
    raise SystemExit(main())
