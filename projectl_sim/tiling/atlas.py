"""The puzzle atlas: one row per puzzle of what it takes to fill it, and a picture of them all.

Every figure counts against the catalogue's full supply (each piece's ``copies``).

Cost to complete (``acquire_actions``, ``total_actions``) is an estimate for one puzzle taken on
alone from the starting supply (one ``mono``, one ``domino``), with the base actions only: a new
piece of level L costs L actions (take a mono, then L-1 upgrades of one level each); a starting
piece turned into a target costs the levels it climbs, 0 if it already is the target, or 1 for a
swap to the same or a lower level. Each target multiset is costed with the best use of the
starting pieces, plus one placement action per piece, and the cheapest multiset in total actions
is reported. It ignores the three-action turn, Master actions and rewards from other puzzles.

With the Ghost Piece expansion, tilings, multisets and the cheapest multiset count the ghost
pieces like any piece, ``admits_ghost`` says whether some tiling uses one, and the cost to complete
is over tilings without ghosts (rulings: Ghost Piece, ghosts come only as rewards). ``expansion``
and ``provisional`` say which puzzle set a row comes from and whether its data is provisional.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectl_sim.catalogue import FULL_MASK, Catalogue, PieceId, Puzzle, render_mask
from projectl_sim.tiling.fill import tiling_index

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

# rulings: setup, each player starts with one mono and one domino.
STARTING_SUPPLY: Mapping[PieceId, int] = {"mono": 1, "domino": 1}

ATLAS_COLUMNS = (
    "id",
    "colour",
    "points",
    "reward",
    "cells",
    "tilings",
    "multisets",
    "min_pieces",
    "cheapest",
    "points_per_cell",
    "acquire_actions",
    "total_actions",
    "rows",
    "admits_ghost",
    "expansion",
    "provisional",
)


def acquire_actions(
    cat: Catalogue, target: Sequence[int], start: Mapping[PieceId, int] = STARTING_SUPPLY
) -> int:
    """Return the take and upgrade actions turning ``start`` into a supply holding ``target``."""
    levels = cat.levels
    fresh = sum(n * level for n, level in zip(target, levels, strict=True))
    owned = [cat.piece_index(p) for p, n in start.items() for _ in range(n) if p in cat.piece_ids]

    def saving(have: int, want: int) -> int:
        if have == want:
            return levels[want]
        climb = levels[want] - levels[have]
        return levels[want] - (climb if climb > 0 else 1)

    # Each starting piece either stays unused or becomes one target piece; supplies are tiny.
    best = 0
    wanted = [i for i, n in enumerate(target) if n]
    for choice in itertools.product([None, *wanted], repeat=len(owned)):
        used = [0] * len(target)
        total = 0
        for have, want in zip(owned, choice, strict=True):
            if want is None:
                continue
            used[want] += 1
            total += saving(have, want)
        if all(u <= n for u, n in zip(used, target, strict=True)):
            best = max(best, total)
    return fresh - best


def multiset_text(cat: Catalogue, counts: Sequence[int]) -> str:
    """Return piece counts as ``tet_O=2,mono=1`` (pieces in catalogue order, zeros left out)."""
    return ",".join(f"{p.id}={n}" for p, n in zip(cat.pieces, counts, strict=True) if n)


def atlas_rows(cat: Catalogue) -> list[dict[str, Any]]:
    """Return one dict per puzzle with the columns of ``ATLAS_COLUMNS``."""
    return [atlas_row(cat, puzzle) for puzzle in cat.puzzles]


def atlas_row(cat: Catalogue, puzzle: Puzzle) -> dict[str, Any]:
    """Return the atlas row of one puzzle (a card of ``cat``, or a new one on its pieces)."""
    index = tiling_index(cat)
    supply = tuple(p.copies for p in cat.pieces)
    ghosts = cat.ghost_pieces
    vectors = index.covered(puzzle.recess, supply)
    cheapest = index.unpack(vectors[0]) if vectors else None
    acquire, total = None, None
    admits_ghost = False
    for v in vectors:
        counts = index.unpack(v)
        if any(counts[g] for g in ghosts):
            admits_ghost = True
            continue  # a ghost is never bought with actions
        a = acquire_actions(cat, counts)
        if total is None or a + sum(counts) < total:
            acquire, total = a, a + sum(counts)
    return {
        "id": puzzle.id,
        "colour": puzzle.colour,
        "points": puzzle.points,
        "reward": puzzle.reward,
        "cells": puzzle.cells,
        "tilings": index.count_tilings(puzzle.recess, supply),
        "multisets": len(vectors),
        "min_pieces": None if cheapest is None else sum(cheapest),
        "cheapest": "" if cheapest is None else multiset_text(cat, cheapest),
        "points_per_cell": puzzle.points / puzzle.cells,
        "acquire_actions": acquire,
        "total_actions": total,
        # the recess as printed ('#' to fill), rows joined by '/': plots need only the table
        "rows": "/".join(render_mask(puzzle.recess, FULL_MASK)),
        "admits_ghost": admits_ghost,
        "expansion": puzzle.expansion,
        "provisional": puzzle.provisional,
    }


def atlas_table(cat: Catalogue) -> pd.DataFrame:
    """Return the atlas as a table, one row per puzzle in catalogue order."""
    import pandas as pd

    table = pd.DataFrame(atlas_rows(cat), columns=list(ATLAS_COLUMNS))
    for column in ("min_pieces", "acquire_actions", "total_actions"):
        table[column] = table[column].astype("Int64")  # missing only for an unfillable puzzle
    return table


def plot_atlas(table: pd.DataFrame, ax: Axes | None = None, *, columns: int = 8) -> Axes:
    """Draw every puzzle of an atlas table with its points, reward and minimum pieces."""
    import pandas as pd
    from matplotlib.patches import Rectangle

    n_rows = (len(table) + columns - 1) // columns
    unit = 0.2  # inches per cell: the figure has the tiles' own shape, so nothing is margin
    if ax is None:
        from projectl_sim.figures import ChartFigure  # not pyplot: no global figure state

        width, height = columns * 7 * unit, (n_rows * 8.5 + 1.0) * unit + 0.35
        fig = ChartFigure(figsize=(width, height))
        ax = fig.add_axes((0.01, 0.01, 0.98, 1 - 0.02 - 0.35 / height))
    for i, row in enumerate(table.itertuples(index=False)):
        x0 = (i % columns) * 7
        y0 = -(i // columns) * 8.5
        black = row.colour == "black"
        face = "#333333" if black else "#c8c8c8"
        for r, line in enumerate(row.rows.split("/")):
            for c, ch in enumerate(line):
                cell = Rectangle((x0 + c, y0 - r - 1), 1, 1, linewidth=0.3, edgecolor="#999999")
                cell.set_facecolor(face if ch == "#" else "none")
                cell.set_edgecolor("#999999" if ch == "#" else "#e0e0e0")
                ax.add_patch(cell)
        mark = "  (prov.)" if row.provisional else ""
        ax.text(x0, y0 + 0.4, f"{row.id}  {row.points} pt{mark}", fontsize=8, weight="bold")
        least = "-" if pd.isna(row.min_pieces) else int(row.min_pieces)
        ax.text(x0, y0 - 5.3, f"reward {row.reward}\nmin {least} pieces", fontsize=7, va="top")
    ax.set_xlim(-0.5, columns * 7 - 1.5)
    ax.set_ylim(-n_rows * 8.5 + 1.0, 1.5)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title("Puzzles: points, reward and minimum pieces to fill", fontsize=10)
    return ax


def write_atlas(table: pd.DataFrame, out: Path) -> list[Path]:
    """Write the atlas as ``puzzles.csv``, ``puzzles.parquet`` and ``puzzles.png`` in ``out``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "puzzles.csv", out / "puzzles.parquet", out / "puzzles.png"]
    table.to_csv(paths[0], index=False)
    table.to_parquet(paths[1], index=False)
    ax = plot_atlas(table)
    FigureCanvasAgg(ax.figure)  # the Agg canvas renders without any GUI backend
    ax.figure.savefig(paths[2], dpi=100, bbox_inches="tight", pad_inches=0.05)
    return paths
