"""The ``train-value`` subcommand: self-play positions, a fitted value model, its accuracy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from projectl_sim.errors import UsageError

TRAIN_HELP = """\
Train the value bots' learned evaluation: play --games self-play games (greedy and its presets,
the four policies and MCTS, at 1-4 players and Line Clear's 5, with and without each expansion),
note every --every-th Play position (on average) from each seat's public view with the game's
final result (and MCTS's root value), fit a small neural network (scikit-learn, the `train`
extra) on the training games, and write OUT/model.json (play it: value:model=OUT/model.json),
OUT/positions.npz (reuse it with --positions), OUT/accuracy.csv (the model on the held-out
games, beside the old fitted evaluation) and, with --curve, OUT/learning_curve.csv. The same
--seed gives the same positions and model for any --jobs."""


def cmd_train_value(args: argparse.Namespace) -> int:
    """Train, export and score a value model."""
    from projectl_sim.learn.value import train

    for name, value in (("--games", args.games), ("--every", args.every)):
        if value < 1:
            raise UsageError(f"{name} {value}: must be at least 1")
    if not 0 < args.test_share < 1:
        raise UsageError(f"--test-share {args.test_share}: must be between 0 and 1")
    try:
        hidden = tuple(int(h) for h in args.hidden.split(",") if h.strip())
    except ValueError:
        raise UsageError(f"--hidden {args.hidden!r}: unit counts, e.g. 32 or 32,16") from None
    if not hidden or min(hidden) < 1:
        raise UsageError(f"--hidden {args.hidden!r}: at least one layer of at least one unit")
    positions = Path(args.positions) if args.positions else None
    if positions is not None and not positions.is_file():
        raise UsageError(f"--positions {positions}: no such file")
    if args.extra_weight < 1:
        raise UsageError(f"--extra-weight {args.extra_weight}: must be at least 1")
    extra = [Path(name) for name in args.extra_positions or ()]
    for path in extra:
        if not path.is_file():
            raise UsageError(f"--extra-positions {path}: no such file")
    echo = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = train(
        Path(args.out),
        games=args.games,
        seed=args.seed,
        every=args.every,
        jobs=args.jobs,
        mcts_share=args.mcts_share,
        hidden=hidden,
        test_share=args.test_share,
        curve=args.curve,
        positions=positions,
        extra=extra,
        extra_weight=args.extra_weight,
        echo=echo,
    )
    print(
        f"model {result['model']} (hash {result['hash']}): play it as value:model={result['model']}"
    )
    return 0


def register(subparsers: Any) -> None:
    """Add ``train-value`` to the command line's subparsers."""
    tv = subparsers.add_parser(
        "train-value", help="train the value bots' evaluation on self-play", description=TRAIN_HELP
    )
    tv.add_argument("--out", required=True, metavar="DIR", help="folder for the model and tables")
    tv.add_argument("--games", type=int, default=2000, metavar="N", help="self-play games")
    tv.add_argument("--seed", type=int, default=1, metavar="S", help="root seed (default 1)")
    tv.add_argument(
        "--every", type=int, default=4, metavar="K", help="note one Play position in K (default 4)"
    )
    tv.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes")
    tv.add_argument(
        "--mcts-share",
        type=float,
        default=0.04,
        metavar="X",
        help="share of seats played by MCTS (40 iterations; default 0.04)",
    )
    tv.add_argument(
        "--hidden", default="32", metavar="UNITS", help="hidden layer sizes, e.g. 32 or 32,16"
    )
    tv.add_argument(
        "--test-share",
        type=float,
        default=0.2,
        metavar="X",
        help="share of the games held out to score the model (default 0.2)",
    )
    tv.add_argument(
        "--curve", action="store_true", help="also fit on growing shares (a learning curve)"
    )
    tv.add_argument("--positions", metavar="FILE", help="fit on the positions of an earlier run")
    tv.add_argument(
        "--extra-positions",
        metavar="FILE",
        action="append",
        help="more training rows (tools/value_oracle.py --out: rollout-labelled), never held "
        "out; give it again for more files, joined in the order given",
    )
    tv.add_argument(
        "--extra-weight",
        type=int,
        default=1,
        metavar="K",
        help="each extra row counts K times in the fit (default 1)",
    )
    tv.add_argument("--quiet", action="store_true", help="no progress lines")
    tv.set_defaults(func=cmd_train_value)
