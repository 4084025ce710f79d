"""The ``puzzle`` command group: ``check`` a drawn puzzle's cost, ``try`` it in paired games."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from projectl_sim.cli.options import drawn_puzzles, game_options
from projectl_sim.errors import UsageError

CHECK_HELP = """\
Say what a drawn puzzle costs: fillable or not with the level 1-4 pieces, its tilings, the
cheapest piece multisets, the actions to finish it from the starting supply, and where it ranks
among the printed puzzles of its colour by points per action. FILE is a TOML puzzle file (a
drawing of five rows of '#' and '.', with colour, points and reward) or a catalogue-style JSON
file; a picture of each puzzle goes beside it (FILE.png) or to --out.
"""

TRY_HELP = """\
Play paired games with and without a drawn puzzle: the same seeds deal the same games, the new
puzzle in the place of --replaces ID (or, without it, dealt in among the others), and report how
often it is taken and completed, by which bot, its points per action, and what it changes in
seat advantage, margin, length and the bots' win rates, with 95% intervals.
"""


def _png_paths(file: Path, ids: list[str], out: str | None) -> list[Path]:
    if out is None:
        stem = file.with_suffix("")
        if len(ids) == 1:
            return [Path(f"{stem}.png")]
        return [Path(f"{stem}-{pid}.png") for pid in ids]
    target = Path(out)
    if len(ids) == 1 and target.suffix == ".png":
        return [target]
    target.mkdir(parents=True, exist_ok=True)
    return [target / f"{pid}.png" for pid in ids]


def cmd_check(args: argparse.Namespace) -> int:
    """Print each puzzle's check and write its picture."""
    from projectl_sim.cli.puzzles import refuse_empty
    from projectl_sim.puzzles.puzzle_check import check_puzzle, write_check_png
    from projectl_sim.tiling.atlas import atlas_rows

    refuse_empty(args, "--expansions")
    if args.no_picture and args.out is not None:
        raise UsageError(f"--out {args.out}: names the picture's file; --no-picture draws none")
    cat, drawn = drawn_puzzles(args)
    printed = atlas_rows(cat)
    checks = [check_puzzle(cat, p, printed) for p in drawn]
    paths: list[Path] = []
    if not args.no_picture:
        try:
            paths = [
                write_check_png(c, path)
                for c, path in zip(
                    checks,
                    _png_paths(Path(args.file), [p.id for p in drawn], args.out),
                    strict=True,
                )
            ]
        except OSError as exc:
            raise UsageError(f"cannot write the picture: {exc.strerror} ({exc.filename})") from None
    if args.json:
        docs = [
            c.to_json() | ({"picture": str(p)} if paths else {})
            for c, p in zip(checks, paths or [None] * len(checks), strict=True)
        ]
        print(json.dumps(docs[0] if len(docs) == 1 else docs))
        return 0
    for i, c in enumerate(checks):
        if i:
            print()
        print(c.text())
        if paths:
            print(f"picture: {paths[i]}")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``puzzle`` group (``check``, ``try``) to the command line's subparsers."""
    group = subparsers.add_parser(
        "puzzle", help="a designer's new puzzle: what it costs, what it does to the game"
    )
    sub = group.add_subparsers(dest="puzzle_command", required=True, metavar="{check,try}")
    check = sub.add_parser("check", help="what a drawn puzzle costs", description=CHECK_HELP)
    check.add_argument("file", metavar="FILE", help="a puzzle file (.toml, or .json)")
    check.add_argument(
        "--out", metavar="PATH", help="the picture's file (.png), or a folder for several puzzles"
    )
    check.add_argument("--no-picture", action="store_true", help="write no picture")
    check.add_argument("--json", action="store_true", help="print the check as JSON")
    game_options(
        check,
        catalogue="rank against this catalogue file (default: the base game)",
        expansions="expansion puzzle sets to rank against too (ghost_piece, ...)",
        tiles=None,
    )
    check.set_defaults(func=cmd_check)

    from projectl_sim.cli import puzzle_try

    puzzle_try.register(sub, TRY_HELP)
