"""How often the deal share's 95% interval (``analysis.deals.icc_oneway``) covers the true share.

Synthetic runs with a known answer: each deal has its own win chance drawn from a beta
distribution of mean ``--rate`` whose intraclass correlation is ``--share`` (a beta-binomial:
share = 1 / (a + b + 1)), and each of its ``--per-deal`` games is won with that chance. Prints,
per true share, the mean estimate and the share of ``--datasets`` runs whose interval covers it
(nominal: 95%). Usage::

    python benchmarks/deal_share_coverage.py --deals 50 --per-deal 8 --datasets 300
"""

from __future__ import annotations

import argparse

import numpy as np

from projectl_sim.analysis.deals import icc_oneway


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--per-deal", type=int, default=8)
    ap.add_argument("--datasets", type=int, default=300)
    ap.add_argument("--rate", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    groups = np.repeat(np.arange(args.deals), args.per_deal)
    print(f"{args.deals} deals x {args.per_deal} games, {args.datasets} runs per share")
    print("true share  mean estimate  coverage of the 95% interval  mean width")
    for share in (0.05, 0.2, 0.5, 0.8):
        total = 1 / share - 1  # a + b
        a, b = args.rate * total, (1 - args.rate) * total
        hits, est, width = 0, [], []
        for _ in range(args.datasets):
            p = rng.beta(a, b, args.deals)
            y = (rng.random(len(groups)) < p[groups]).astype(float)
            icc, low, high, _, _ = icc_oneway(y, groups, resamples=1000, rng=rng)
            est.append(icc)
            width.append(high - low)
            hits += low <= share <= high
        print(
            f"{share:10.2f}  {np.mean(est):13.3f}  {hits / args.datasets:28.1%}  "
            f"{np.mean(width):10.3f}"
        )


if __name__ == "__main__":
    main()
