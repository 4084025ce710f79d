"""The ``fill`` and ``puzzles`` subcommands: ask the fillability module, write the puzzle atlas."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from projectl_sim import rules
from projectl_sim.catalogue import EXPANSIONS, Catalogue
from projectl_sim.cli.options import game_options, refuse_empty
from projectl_sim.errors import UsageError
from projectl_sim.loading import load_catalogue
from projectl_sim.tiling.fill import FillResult, fill_region, puzzle_empty, why_not

# Labels drawn for the 1st, 2nd, ... placement of a plan with --show.
_PLAN_LABELS = "123456789abcdefghijklmnopqrstuvwxyz"

_EXPANSIONS_HELP = (
    f"add expansion puzzle sets, comma-separated: {', '.join(EXPANSIONS)} or all; "
    "NAME=FILE replaces a set's shipped (provisional) data with your own file"
)


def parse_expansions(text: str | None) -> tuple[tuple[str, ...], dict[str, str]]:
    """Return the puzzle-set names and replacement files of ``"ghost_piece=FILE,phoenix"``."""
    return rules.parse_expansions(text, EXPANSIONS)


def _load(args: argparse.Namespace) -> Catalogue:
    refuse_empty(args, "--expansions")
    names, files = parse_expansions(args.expansions)
    # a CatalogueError is reported by the CLI
    return load_catalogue(args.catalogue, expansions=names, overrides=files)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``fill`` and ``puzzles`` to the command line's subparsers."""
    p = subparsers.add_parser(
        "fill",
        help="can a puzzle be completed with these pieces, and how",
        description="Say whether a puzzle's recess (minus filled cells) can be completed with the "
        "given pieces, the cheapest multiset (fewest pieces) and a placement plan.",
    )
    p.add_argument("--puzzle", required=True, help="puzzle id, e.g. B03")
    p.add_argument(
        "--pieces",
        help="owned pieces as id=count pairs, e.g. tet_L=2,tri_I=1,mono=3 (a bare id counts 1); "
        "default: every copy in the catalogue",
    )
    p.add_argument(
        "--filled",
        default="",
        help='cells already covered, as "row,col" pairs separated by spaces, e.g. "2,0 2,1"',
    )
    p.add_argument("--solver", choices=("index", "cpsat"), default="index")
    p.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    p.add_argument("--show", action="store_true", help="draw the plan on the puzzle grid")
    game_options(
        p,
        catalogue="catalogue JSON (default: the base game)",
        expansions=_EXPANSIONS_HELP,
        tiles=None,
    )
    p.set_defaults(func=run_fill)

    p = subparsers.add_parser(
        "puzzles",
        help="write the puzzle atlas (CSV, Parquet and a PNG of every puzzle)",
        description="Write one row per puzzle: points, reward, cells, tilings, multisets, minimum "
        "pieces, cheapest multiset and the actions to complete it from the starting supply.",
    )
    p.add_argument("--out", default="results/atlas", metavar="DIR", help="output directory")
    game_options(
        p,
        catalogue="catalogue JSON (default: the base game)",
        expansions=_EXPANSIONS_HELP,
        tiles=None,
    )
    p.set_defaults(func=run_puzzles)


def parse_pieces(cat: Catalogue, text: str | None) -> tuple[int, ...]:
    """Return per-piece counts from ``"tet_L=2,tri_I=1,mono"``; None means every copy."""
    if text is None:
        return tuple(p.copies for p in cat.pieces)
    counts = [0] * len(cat.pieces)
    for item in text.replace(" ", "").split(","):
        if not item:
            continue
        piece_id, eq, n_text = item.partition("=")
        try:
            piece = cat.piece_index(piece_id)
        except KeyError as exc:
            raise UsageError(f"--pieces: {exc.args[0]}") from None
        try:
            n = int(n_text) if eq else 1
        except ValueError:
            n = -1
        if n < 0:
            raise UsageError(f"--pieces: {piece_id} count must be a whole number, not {n_text!r}")
        counts[piece] += n
    return tuple(counts)


def parse_cells(text: str) -> list[tuple[int, int]]:
    """Return ``(row, col)`` cells from ``"2,0 2,1"``."""
    cells = []
    for item in text.replace(";", " ").split():
        r_text, comma, c_text = item.partition(",")
        try:
            cell = (int(r_text), int(c_text))
        except ValueError:
            raise UsageError(f'--filled: {item!r} is not a "row,col" cell') from None
        if not comma or not all(0 <= v < 5 for v in cell):
            raise UsageError(f"--filled: {item!r} is not a cell of the 5x5 grid (rows, cols 0-4)")
        cells.append(cell)
    return cells


def draw_plan(recess: int, result: FillResult) -> list[str]:
    """Return the puzzle grid, placements labelled 1, 2, ...; '#' filled, '.' not in the recess."""
    grid = [["#" if recess >> (r * 5 + c) & 1 else "." for c in range(5)] for r in range(5)]
    for label, (_, mask) in zip(_PLAN_LABELS, result.plan, strict=False):
        for cell in range(25):
            if mask >> cell & 1:
                grid[cell // 5][cell % 5] = label
    return ["".join(row) for row in grid]


def run_fill(args: argparse.Namespace) -> int:
    """Answer ``projectl-sim fill``."""
    cat = _load(args)
    try:
        puzzle = cat.puzzle(args.puzzle)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
    recess = puzzle.recess
    counts = parse_pieces(cat, args.pieces)
    try:
        empty = puzzle_empty(cat, args.puzzle, parse_cells(args.filled))
    except ValueError as exc:
        raise UsageError(f"--filled: {exc}") from None
    result = fill_region(cat, empty, counts, solver=args.solver)
    why = "" if result.fillable else why_not(cat, empty, counts)
    if args.json:
        doc = result.to_json(cat)
        if why:
            doc["why"] = why  # a negative says why; the base game's answers keep their keys
        if puzzle.provisional:
            doc["provisional"] = True  # the base game's answers keep their four keys
        print(json.dumps(doc))
        return 0
    cells = empty.bit_count()
    name = args.puzzle + (f" (provisional, {puzzle.expansion})" if puzzle.provisional else "")
    if not result.fillable:
        print(f"{name}: not fillable ({cells} empty cells) with these pieces: {why}")
        return 0
    multiset = ", ".join(f"{piece}={n}" for piece, n in result.pieces(cat).items()) or "nothing"
    print(f"{name}: fillable, {result.min_pieces} pieces minimum ({cells} empty cells)")
    print(f"cheapest: {multiset}")
    for label, (piece, mask) in zip(_PLAN_LABELS, result.plan, strict=False):
        where = " ".join(f"{cell // 5},{cell % 5}" for cell in range(25) if mask >> cell & 1)
        print(f"  {label}. {cat.pieces[piece].id:<7} {where}")
    if args.show:
        for row in draw_plan(recess, result):
            print("  " + row)
    return 0


def run_puzzles(args: argparse.Namespace) -> int:
    """Write the atlas for ``projectl-sim puzzles``."""
    from projectl_sim.tiling.atlas import atlas_table, write_atlas  # lazy: pandas and matplotlib

    cat = _load(args)
    if Path(args.out).exists() and not Path(args.out).is_dir():  # before the atlas is computed
        raise UsageError(f"--out {args.out}: not a folder")
    try:
        paths = write_atlas(atlas_table(cat), Path(args.out))
    except OSError as exc:
        raise UsageError(f"--out {args.out}: cannot write ({exc.strerror})") from None
    for path in paths:
        print(path)
    if cat.provisional_sets:
        print(f"provisional data: {', '.join(cat.provisional_sets)} (column 'provisional')")
    return 0
