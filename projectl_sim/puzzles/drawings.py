"""Puzzles as drawings: a designer's file of new puzzles, and catalogues that hold them.

A puzzle file is TOML (or JSON) holding one puzzle at its top level, or several as ``[[puzzle]]``
tables (JSON: a ``puzzles`` list, as a catalogue file has). A puzzle is its ``id``, ``colour``
(``white`` or ``black``), ``points``, ``reward`` (a piece id, or a reward name of an expansion) and
its recess as a ``drawing``: five rows of five cells, ``#`` to fill and ``.`` not (spaces and
indentation are ignored), or as ``rows``, a catalogue file's list of five strings::

    id = "N01"
    colour = "white"
    points = 3
    reward = "tet_O"
    drawing = '''
    ##...
    ###..
    .....
    .....
    .....
    '''

A one-puzzle file may leave out ``id`` (the file's name, upper-cased, stands for it). Every mistake
is one ``DrawingError`` line naming the file, the puzzle and the row: a wrong number of rows or
cells, a stray character, no cell to fill, a recess in several parts (every printed puzzle's is
one piece; ``allow_disconnected = true`` keeps such a drawing), an unknown key.

``with_puzzle`` returns a catalogue holding a new puzzle, added after the others or in the place
(the catalogue index) of the one it replaces, so that a seed deals it where it dealt that one;
``catalogue_dict`` writes a catalogue back in the ``projectl-catalogue/1`` form.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from projectl_sim.catalogue import (
    CATALOGUE_FORMAT,
    COLOURS,
    SIZE,
    SPECIAL_REWARDS,
    Catalogue,
    CatalogueError,
    Mask25,
    Puzzle,
    render_mask,
)
from projectl_sim.jsonfile import read_text
from projectl_sim.tiling.fill import can_tile

FILL, EMPTY = "#", "."
PUZZLE_KEYS = ("id", "colour", "points", "reward", "drawing", "rows", "allow_disconnected")
# ids go into run grids (``points.N01=3``) and space-separated table cells
_ID = re.compile(r"^[A-Za-z0-9_-]+$")


class DrawingError(CatalogueError):
    """A puzzle file or drawing is malformed; the message names the file, puzzle and row."""


@dataclass(frozen=True)
class DrawnPuzzle:
    """A puzzle read from a designer's file (not yet in a catalogue)."""

    id: str
    colour: str
    points: int
    reward: str
    recess: Mask25
    source: str = ""

    @property
    def cells(self) -> int:
        return self.recess.bit_count()

    def rows(self) -> list[str]:
        """Return the recess as five rows of ``#`` and ``.``."""
        return render_mask(self.recess)

    def as_puzzle(self, index: int) -> Puzzle:
        """Return the catalogue card of this puzzle at catalogue index ``index``."""
        return Puzzle(self.id, index, self.colour, self.points, self.reward, self.recess)


def parts(mask: Mask25) -> list[Mask25]:
    """Return the edge-connected parts of a set of cells, in reading order of their first cell."""
    left = mask
    out = []
    while left:
        seed = left & -left
        part = 0
        frontier = seed
        while frontier:
            part |= frontier
            grow = 0
            for cell in range(SIZE * SIZE):
                if frontier >> cell & 1:
                    r, c = divmod(cell, SIZE)
                    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                        if 0 <= rr < SIZE and 0 <= cc < SIZE:
                            grow |= 1 << (rr * SIZE + cc)
            frontier = grow & left & ~part
        out.append(part)
        left &= ~part
    return out


def parse_drawing(
    drawing: str | Sequence[str], where: str = "drawing", *, allow_disconnected: bool = False
) -> Mask25:
    """Return the recess mask of a drawing (a multi-line string or five row strings).

    Raise ``DrawingError`` (one line, prefixed with ``where``) for a malformed drawing.
    """
    if isinstance(drawing, str):
        lines = drawing.splitlines()
    elif isinstance(drawing, (list, tuple)) and all(isinstance(r, str) for r in drawing):
        lines = list(drawing)
    else:
        raise DrawingError(f"{where}: a drawing is a multi-line string of '#' and '.'")
    rows = ["".join(line.split()) for line in lines]
    rows = [r for r in rows if r]
    if len(rows) != SIZE:
        raise DrawingError(
            f"{where}: {len(rows)} row{'s' if len(rows) != 1 else ''}; a puzzle is {SIZE} rows "
            f"of {SIZE} cells ('#' to fill, '.' not)"
        )
    mask = 0
    for r, row in enumerate(rows):
        for ch in row:
            if ch not in (FILL, EMPTY):
                raise DrawingError(
                    f"{where}: row {r + 1} {row!r} has {ch!r}; use '#' to fill and '.' not"
                )
        if len(row) != SIZE:
            raise DrawingError(
                f"{where}: row {r + 1} {row!r} has {len(row)} cells; a puzzle is {SIZE} rows of "
                f"{SIZE} cells"
            )
        for c, ch in enumerate(row):
            if ch == FILL:
                mask |= 1 << (r * SIZE + c)
    if not mask:
        raise DrawingError(f"{where}: no '#' cell to fill")
    pieces = parts(mask)
    if len(pieces) > 1 and not allow_disconnected:
        sizes = "+".join(str(p.bit_count()) for p in pieces)
        raise DrawingError(
            f"{where}: the recess is in {len(pieces)} parts ({sizes} cells); every printed "
            "puzzle's is one: set allow_disconnected = true to try it anyway"
        )
    return mask


def _puzzle(
    spec: Any, where: str, default_id: str | None, piece_ids: Sequence[str], source: str
) -> DrawnPuzzle:
    if not isinstance(spec, Mapping):
        raise DrawingError(f"{where}: a puzzle is a table of {', '.join(PUZZLE_KEYS)}")
    unknown = sorted(k for k in spec if k not in PUZZLE_KEYS and k != "color")
    if unknown:
        raise DrawingError(
            f"{where}: unknown key {unknown[0]!r} (a puzzle has {', '.join(PUZZLE_KEYS)})"
        )
    pid = spec.get("id", default_id)
    if not isinstance(pid, str) or not _ID.match(pid):
        raise DrawingError(
            f"{where}: id {pid!r} must be letters, digits, '_' or '-' (such as \"N01\")"
        )
    where = f"{where}: puzzle {pid}"
    colour = spec.get("colour", spec.get("color"))
    if colour not in COLOURS:
        raise DrawingError(f"{where}: colour {colour!r} must be 'white' or 'black'")
    points = spec.get("points")
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        raise DrawingError(f"{where}: points {points!r} must be a whole number >= 0")
    reward = spec.get("reward")
    if reward not in piece_ids and reward not in SPECIAL_REWARDS:
        raise DrawingError(
            f"{where}: reward {reward!r} must be a piece ({', '.join(piece_ids)}) or one of "
            f"{', '.join(SPECIAL_REWARDS)}"
        )
    allow = spec.get("allow_disconnected", False)
    if not isinstance(allow, bool):
        raise DrawingError(f"{where}: allow_disconnected must be true or false")
    if ("drawing" in spec) == ("rows" in spec):
        raise DrawingError(f"{where}: give the recess as a drawing (or as rows), once")
    drawing = spec["drawing"] if "drawing" in spec else spec["rows"]
    key = "drawing" if "drawing" in spec else "rows"
    if key == "rows" and not isinstance(drawing, list):
        raise DrawingError(f"{where}: rows must be a list of {SIZE} strings")
    recess = parse_drawing(drawing, f"{where}: {key}", allow_disconnected=allow)
    return DrawnPuzzle(pid, colour, points, reward, recess, source)


def puzzles_from_data(
    data: Any, where: str, piece_ids: Sequence[str], default_id: str | None = None
) -> list[DrawnPuzzle]:
    """Return the puzzles of a parsed puzzle file (TOML or JSON form), checked."""
    if not isinstance(data, Mapping):
        raise DrawingError(f"{where}: expected a table (one puzzle) or a list of puzzles")
    fmt = data.get("format")
    if fmt is not None and fmt != CATALOGUE_FORMAT:
        raise DrawingError(f"{where}: unknown format {fmt!r} (expected {CATALOGUE_FORMAT!r})")
    listed = data.get("puzzle", data.get("puzzles"))
    if listed is not None:
        if not isinstance(listed, list) or not listed:
            raise DrawingError(f"{where}: puzzles must be a non-empty list of puzzle tables")
        out = [
            _puzzle(spec, f"{where}: puzzle #{i + 1}", None, piece_ids, where)
            for i, spec in enumerate(listed)
        ]
    elif "drawing" in data or "rows" in data:
        keep = {k: v for k, v in data.items() if k != "format"}
        out = [_puzzle(keep, where, default_id, piece_ids, where)]
    else:
        raise DrawingError(
            f"{where}: no puzzle: give a drawing (five rows of '#' and '.') or [[puzzle]] tables"
        )
    seen: set[str] = set()
    for p in out:
        if p.id in seen:
            raise DrawingError(f"{where}: puzzle {p.id}: duplicate id")
        seen.add(p.id)
    return out


def read_puzzles(path: str | Path, piece_ids: Sequence[str]) -> list[DrawnPuzzle]:
    """Read a designer's puzzle file (``.toml``, or ``.json`` as catalogue files are), checked
    against the catalogue's ``piece_ids`` (rewards)."""
    p = Path(path)
    text = read_text(p, str(p), DrawingError)
    try:
        data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise DrawingError(f"{p}: malformed JSON ({exc.msg}, line {exc.lineno})") from None
    except tomllib.TOMLDecodeError as exc:
        raise DrawingError(f"{p}: malformed TOML ({' '.join(str(exc).split())})") from None
    return puzzles_from_data(data, str(p), piece_ids, default_id=p.stem.upper())


def with_puzzle(cat: Catalogue, new: DrawnPuzzle, replaces: str | None = None) -> Catalogue:
    """Return ``cat`` with ``new`` added after its puzzles, or in the place of ``replaces``.

    A replaced puzzle's catalogue index goes to the new one, so every seed deals the new card
    exactly where it dealt the old one (the decks are dealt from catalogue order). The new card
    must be fillable with the catalogue's pieces, of the replaced card's colour, and its id new
    (or the replaced card's own).
    """
    counts = tuple(p.copies for p in cat.pieces)
    if not can_tile(cat, new.recess, counts):
        raise DrawingError(f"puzzle {new.id}: no combination of pieces can fill its recess")
    puzzles = list(cat.puzzles)
    if replaces is None:
        if cat.has_puzzle(new.id):
            raise DrawingError(
                f"puzzle {new.id}: the catalogue already has a puzzle {new.id} (give the new one "
                f"its own id, or replace it with --replaces {new.id})"
            )
        puzzles.append(new.as_puzzle(len(puzzles)))
        name = f"{cat.name}+{new.id}"
    else:
        if not cat.has_puzzle(replaces):
            raise DrawingError(f"--replaces {replaces}: the catalogue has no puzzle {replaces!r}")
        old = cat.puzzle(replaces)
        if old.colour != new.colour:
            raise DrawingError(
                f"puzzle {new.id} is {new.colour} and {replaces} is {old.colour}: replace a "
                f"puzzle of the same colour (the decks keep their sizes)"
            )
        if new.id != replaces and cat.has_puzzle(new.id):
            raise DrawingError(f"puzzle {new.id}: the catalogue already has a puzzle {new.id}")
        puzzles[old.index] = replace(new.as_puzzle(old.index), expansion=old.expansion)
        name = f"{cat.name}+{new.id}-for-{replaces}"
    return Catalogue(
        cat.pieces,
        tuple(puzzles),
        name=name,
        source=new.source or "drawing",
        provisional=cat.provisional,
        expansions=cat.expansions,
        provisional_sets=cat.provisional_sets,
    )


def catalogue_dict(cat: Catalogue) -> dict[str, Any]:
    """Return a catalogue (without expansion sets) in the ``projectl-catalogue/1`` file form."""
    if cat.expansions:
        raise ValueError("a catalogue with expansion sets is written as its base and its sets")
    return {
        "format": CATALOGUE_FORMAT,
        "name": cat.name,
        "pieces": {
            p.id: {
                "level": p.level,
                "cells": [list(c) for c in p.cells],
                "copies": p.copies,
                "hex": p.colour,
            }
            for p in cat.pieces
        },
        "puzzles": [
            {
                "id": p.id,
                "colour": p.colour,
                "points": p.points,
                "reward": p.reward,
                "rows": render_mask(p.recess),
                **({"provisional": True} if p.provisional else {}),
            }
            for p in cat.puzzles
        ],
    }
