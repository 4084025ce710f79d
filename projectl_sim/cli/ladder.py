"""The ``ladder`` subcommand: every bot and budget rated on one scale, CPU per decision beside."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from projectl_sim.errors import UsageError

LADDER_HELP = """\
Rate bots on one scale: a round robin (every pair on the same deals, both seatings; resumable:
run it again with the same OUT to finish or grow it with more --games), one joint Plackett-Luce
fit over all its games (at 2 players the same as Bradley-Terry), Elo-scaled with greedy at 0 and
95% profile-likelihood intervals, each bot's CPU time per decision beside. Writes OUT/ladder.csv,
OUT/ladder.png and the run in OUT/run. Default bots: every shipped bot and the budgets of the
docs' "which players to simulate" page."""


def cmd_ladder(args: argparse.Namespace) -> int:
    """Play the round robin and print the ladder."""
    from projectl_sim.experiments.ladder import LADDER_BOTS, format_ladder, ladder
    from projectl_sim.sim import runner
    from projectl_sim.sim.spec import split_lineup

    bots = tuple(split_lineup(args.bots)) if args.bots is not None else LADDER_BOTS
    if len(bots) < 2:
        raise UsageError(f"--bots {args.bots!r}: rate two or more bots (comma separated specs)")
    if args.games < 1:
        raise UsageError(f"--games {args.games}: play at least one game a pair")
    options = runner.RunOptions(jobs=args.jobs, quiet=args.quiet)
    table = ladder(
        Path(args.out),
        bots,
        games=args.games,
        seed=args.seed,
        players=args.players,
        options=options,
    )
    print(format_ladder(table))
    failed, played, first = table.attrs.get("failed", (0, 0, ""))
    if failed:
        print(f"note: {failed} of {played} games are error rows, left out of the ratings ({first})")
    print(f"written: {Path(args.out) / 'ladder.csv'}, {Path(args.out) / 'ladder.png'}")
    return 0


def register(subparsers: Any) -> None:
    """Add ``ladder`` to the command line's subparsers."""
    la = subparsers.add_parser(
        "ladder", help="rate every bot and budget on one scale, CPU beside", description=LADDER_HELP
    )
    la.add_argument("--out", required=True, metavar="DIR", help="folder for the run and ladder")
    la.add_argument("--bots", metavar="SPECS", help="comma separated bot specs (default: shipped)")
    la.add_argument(
        "--games", type=int, default=40, metavar="N", help="games per pair (default 40)"
    )
    la.add_argument("--players", type=int, default=2, metavar="N", help="players (default 2)")
    la.add_argument("--seed", type=int, default=1, metavar="S", help="root seed (default 1)")
    la.add_argument("--jobs", type=int, metavar="J", help="worker processes (default: all cores)")
    la.add_argument("--quiet", action="store_true", help="no progress bar")
    la.set_defaults(func=cmd_ladder)
