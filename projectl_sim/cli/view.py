"""The ``view`` subcommand: a game record as one HTML page that steps through the game."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from projectl_sim.cli.options import (
    PROG,
    catalogue_of,
    finesse_options,
    game_options,
    refuse_empty,
)
from projectl_sim.errors import UsageError


def cmd_view(args: argparse.Namespace) -> int:
    from projectl_sim.cli.game import game_id
    from projectl_sim.engine.record import read_record
    from projectl_sim.view import write_view

    refuse_empty(args, "--expansions")
    if args.from_run is not None:
        from projectl_sim.sim.runner import record_from_run

        if args.record is not None:
            raise UsageError("give a record file or --from RUN --game ID, not both")
        if args.game is None:
            raise UsageError("--from needs --game ID (a game_id of the run's tables)")
        game_id(args.game, args.from_run)
        record, rules, written = record_from_run(args.from_run, args.game)
        if not written:
            print(
                f"{PROG}: the run wrote no record of game {args.game}: played it again from its "
                "row (rules, seats, seed)",
                file=sys.stderr,
            )
        name = f"game-{args.game:08d}.html"
        folder = Path(args.from_run) / ("records" if written else "")
        out = Path(args.output) if args.output else folder / name
        cat, tiles = rules.catalogue, rules.finesse_tiles
    else:
        if args.record is None:
            raise UsageError("give a record file, or --from RUN --game ID")
        if args.game is not None:
            raise UsageError("--game goes with --from RUN")
        record = read_record(args.record)
        played: Any = record.get("rules", {}).get("expansions")
        played = played if isinstance(played, list) else []
        cat = catalogue_of(args, [n for n in played if isinstance(n, str)])
        tiles = finesse_options(args, cat).get("finesse_tiles")
        out = Path(args.output) if args.output else Path(args.record).with_suffix(".html")
    data = write_view(record, out, cat, finesse_tiles=tiles)
    print(f"wrote {out} ({len(data['steps'])} actions): open it in a browser")
    return 0


def register(sub: Any) -> None:
    """Add ``view`` to the command line's subparsers."""
    view = sub.add_parser(
        "view", help="write a game record as one HTML page that steps through the game"
    )
    view.add_argument("record", nargs="?", help="record JSON file")
    view.add_argument(
        "-o", "--output", metavar="FILE", help="the page to write (default: the record's, .html)"
    )
    view.add_argument(
        "--from",
        dest="from_run",
        metavar="RUN",
        help="a game of a run folder (with --game): its record, else played again from its row",
    )
    view.add_argument("--game", type=int, metavar="ID", help="with --from: the game_id to view")
    game_options(
        view,
        expansions="view with your own puzzle file for an expansion set the record plays",
        expansions_metavar="NAME=FILE",
    )
    view.set_defaults(func=cmd_view)
