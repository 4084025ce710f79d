"""Pieces, puzzles and their placements: immutable tables built once per catalogue.

Cells of the 5x5 grid are numbered ``row * 5 + col`` (row 0 on top, as printed), and a set of
cells is a 25-bit int (``Mask25``). Every table here is built when the catalogue is loaded; the
lazily filled caches (placements that fit a given empty region) live on the catalogue too, so
that every game in a process shares them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from projectl_sim.errors import ProjectLError
from projectl_sim.jsonfile import read_json

Mask25 = int
PieceId = str
PuzzleId = str

SIZE = 5
FULL_MASK: Mask25 = (1 << (SIZE * SIZE)) - 1
CATALOGUE_FORMAT = "projectl-catalogue/1"
COLOURS = ("white", "black")

# Cap on the lazily filled "placements that fit this empty region" cache (entries, not bytes).
_FIT_CACHE_CAP = 200_000


class CatalogueError(ProjectLError, ValueError):
    """A catalogue file is malformed; the message names the entry and the problem."""


def cell_mask(cells: Iterable[tuple[int, int]]) -> Mask25:
    """Return the mask of ``(row, col)`` cells on the 5x5 grid."""
    mask = 0
    for r, c in cells:
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            raise ValueError(f"cell ({r},{c}) is outside the 5x5 grid")
        mask |= 1 << (r * SIZE + c)
    return mask


def mask_cells(mask: Mask25) -> list[tuple[int, int]]:
    """Return the ``(row, col)`` cells of a mask in reading order."""
    return [divmod(i, SIZE) for i in range(SIZE * SIZE) if mask >> i & 1]


def popcount(mask: Mask25) -> int:
    """Return the number of cells in a mask."""
    return mask.bit_count()


def _normalise(cells: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    cells = list(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))


def orientations(cells: Iterable[tuple[int, int]]) -> list[tuple[tuple[int, int], ...]]:
    """Return the distinct orientations (rotations and flips) of a shape, normalised."""
    shape = list(cells)
    seen: list[tuple[tuple[int, int], ...]] = []
    for flip in (False, True):
        cur = [(r, -c) for r, c in shape] if flip else shape
        for _ in range(4):
            norm = _normalise(cur)
            if norm not in seen:
                seen.append(norm)
            cur = [(c, -r) for r, c in cur]
    return seen


def placements_on_grid(cells: Iterable[tuple[int, int]]) -> tuple[Mask25, ...]:
    """Return every placement of a shape on the 5x5 grid (all orientations and positions)."""
    masks: set[Mask25] = set()
    for orient in orientations(cells):
        height = max(r for r, _ in orient) + 1
        width = max(c for _, c in orient) + 1
        for dr in range(SIZE - height + 1):
            for dc in range(SIZE - width + 1):
                masks.add(cell_mask((r + dr, c + dc) for r, c in orient))
    return tuple(sorted(masks))


@dataclass(frozen=True)
class Piece:
    """One piece shape: its id, level (number of cells), shape and number of copies."""

    id: PieceId
    index: int
    level: int
    cells: tuple[tuple[int, int], ...]
    copies: int
    colour: str = "#888888"


@dataclass(frozen=True)
class Puzzle:
    """One puzzle card: its recess (a 25-bit mask in the printed grid), points and reward."""

    id: PuzzleId
    index: int
    colour: str
    points: int
    reward: PieceId
    recess: Mask25
    provisional: bool = False

    @property
    def is_black(self) -> bool:
        return self.colour == "black"

    @property
    def cells(self) -> int:
        return self.recess.bit_count()


@dataclass(eq=False)
class Catalogue:
    """The pieces and puzzles of a game, with their placement tables (built once)."""

    pieces: tuple[Piece, ...]
    puzzles: tuple[Puzzle, ...]
    name: str = "base"
    source: str = "builtin"
    provisional: bool = False
    # piece index -> every placement mask of that piece on the 5x5 grid
    placements: tuple[tuple[Mask25, ...], ...] = field(init=False, repr=False)
    # placement mask -> piece indices with that exact placement (only level decides, in base)
    piece_of_mask: dict[Mask25, tuple[int, ...]] = field(init=False, repr=False)
    # cell -> piece index -> placements covering that cell
    placements_at: tuple[tuple[tuple[Mask25, ...], ...], ...] = field(init=False, repr=False)
    _piece_index: dict[PieceId, int] = field(init=False, repr=False)
    _puzzle_index: dict[PuzzleId, int] = field(init=False, repr=False)
    _fit_cache: dict[Mask25, tuple[tuple[Mask25, ...], ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.placements = tuple(placements_on_grid(p.cells) for p in self.pieces)
        by_mask: dict[Mask25, list[int]] = {}
        for i, masks in enumerate(self.placements):
            for m in masks:
                by_mask.setdefault(m, []).append(i)
        self.piece_of_mask = {m: tuple(v) for m, v in by_mask.items()}
        self.placements_at = tuple(
            tuple(tuple(m for m in masks if m >> cell & 1) for masks in self.placements)
            for cell in range(SIZE * SIZE)
        )
        self._piece_index = {p.id: p.index for p in self.pieces}
        self._puzzle_index = {p.id: p.index for p in self.puzzles}
        self._fit_cache = {}

    # -- lookups -------------------------------------------------------------------------------
    @property
    def piece_ids(self) -> tuple[PieceId, ...]:
        return tuple(p.id for p in self.pieces)

    @property
    def levels(self) -> tuple[int, ...]:
        return tuple(p.level for p in self.pieces)

    def piece_index(self, piece_id: PieceId) -> int:
        """Return the index of a piece id, or raise ``KeyError`` naming the valid ids."""
        try:
            return self._piece_index[piece_id]
        except (KeyError, TypeError):
            raise KeyError(
                f"unknown piece {piece_id!r} (valid: {', '.join(self.piece_ids)})"
            ) from None

    def puzzle_index(self, puzzle_id: PuzzleId) -> int:
        """Return the index of a puzzle id, or raise ``KeyError``."""
        try:
            return self._puzzle_index[puzzle_id]
        except (KeyError, TypeError):
            raise KeyError(f"unknown puzzle {puzzle_id!r}") from None

    def puzzle(self, puzzle_id: PuzzleId) -> Puzzle:
        """Return a puzzle by id."""
        return self.puzzles[self.puzzle_index(puzzle_id)]

    def of_colour(self, colour: str) -> list[int]:
        """Return the indices of the puzzles of one colour, in catalogue order."""
        return [p.index for p in self.puzzles if p.colour == colour]

    # -- placement tables ----------------------------------------------------------------------
    def fits(self, empty: Mask25) -> tuple[tuple[Mask25, ...], ...]:
        """Return, per piece index, the placements lying entirely inside ``empty`` (cached)."""
        hit = self._fit_cache.get(empty)
        if hit is not None:
            return hit
        result = tuple(tuple(m for m in masks if m & empty == m) for masks in self.placements)
        if len(self._fit_cache) >= _FIT_CACHE_CAP:
            self._fit_cache.clear()
        self._fit_cache[empty] = result
        return result

    def fits_after(
        self, empty: Mask25, parent: tuple[tuple[Mask25, ...], ...]
    ) -> tuple[tuple[Mask25, ...], ...]:
        """Return ``fits(empty)``, filtering ``parent`` (the fits of a superset) on a miss."""
        hit = self._fit_cache.get(empty)
        if hit is not None:
            return hit
        result = tuple(tuple(m for m in masks if m & empty == m) for masks in parent)
        if len(self._fit_cache) >= _FIT_CACHE_CAP:
            self._fit_cache.clear()
        self._fit_cache[empty] = result
        return result

    def fits_in(self, recess: Mask25, empty: Mask25) -> tuple[tuple[Mask25, ...], ...]:
        """Return ``fits(empty)`` for the empty cells of a puzzle whose recess is ``recess``."""
        hit = self._fit_cache.get(empty)
        if hit is not None:
            return hit
        # A miss filters the recess's own placements (a few dozen) instead of all of them:
        # play reaches thousands of distinct empty regions, each asked about once or twice.
        return self.fits_after(empty, self.fits(recess))

    def shape_of(self, piece: int, mask: Mask25) -> bool:
        """Return whether ``mask`` is a placement of piece ``piece``."""
        return piece in self.piece_of_mask.get(mask, ())


# -- loading -----------------------------------------------------------------------------------
def _fail(where: str, problem: str) -> CatalogueError:
    return CatalogueError(f"{where}: {problem}")


def _parse_pieces(raw: Any) -> tuple[Piece, ...]:
    if not isinstance(raw, dict) or not raw:
        raise _fail("pieces", "must be a non-empty object of piece id -> piece")
    pieces = []
    for i, (pid, spec) in enumerate(raw.items()):
        where = f"piece {pid}"
        if not isinstance(spec, dict):
            raise _fail(where, "must be an object")
        cells_raw = spec.get("cells")
        try:
            cells = tuple((int(r), int(c)) for r, c in cells_raw)
        except (TypeError, ValueError):
            raise _fail(where, "cells must be a list of [row, col] pairs") from None
        if not cells or len(set(cells)) != len(cells):
            raise _fail(where, "cells must be distinct and non-empty")
        if any(not (0 <= r < SIZE and 0 <= c < SIZE) for r, c in cells):
            raise _fail(where, "cells must lie within a 5x5 grid")
        level = spec.get("level", len(cells))
        if not isinstance(level, int) or level != len(cells):
            raise _fail(where, f"level {level!r} does not equal its {len(cells)} cells")
        copies = spec.get("copies", 15)
        if not isinstance(copies, int) or copies < 0:
            raise _fail(where, f"copies must be a whole number >= 0, got {copies!r}")
        n_orient = spec.get("orientations")
        if n_orient is not None and n_orient != len(orientations(cells)):
            raise _fail(
                where, f"says {n_orient} orientations but its shape has {len(orientations(cells))}"
            )
        pieces.append(
            Piece(pid, i, level, cells, copies, str(spec.get("hex", spec.get("colour", "#888888"))))
        )
    return tuple(pieces)


def _parse_rows(where: str, rows: Any) -> Mask25:
    if not isinstance(rows, list) or len(rows) != SIZE:
        raise _fail(where, f"rows must be a list of {SIZE} strings")
    mask = 0
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != SIZE:
            raise _fail(where, f"row {r} {row!r} must be {SIZE} characters of '#' and '.'")
        for c, ch in enumerate(row):
            if ch == "#":
                mask |= 1 << (r * SIZE + c)
            elif ch != ".":
                raise _fail(where, f"row {r} {row!r} has {ch!r}; use '#' and '.' only")
    if not mask:
        raise _fail(where, "empty recess (no '#' cell)")
    return mask


def catalogue_from_dict(
    data: Any, *, source: str = "<dict>", check_fillable: bool = True
) -> Catalogue:
    """Build and validate a catalogue from its parsed JSON form."""
    if not isinstance(data, dict):
        raise _fail("catalogue", "must be a JSON object with 'pieces' and 'puzzles'")
    fmt = data.get("format", CATALOGUE_FORMAT)
    if fmt != CATALOGUE_FORMAT:
        raise _fail("catalogue", f"unknown format {fmt!r} (expected {CATALOGUE_FORMAT!r})")
    pieces = _parse_pieces(data.get("pieces"))
    piece_ids = {p.id for p in pieces}
    raw_puzzles = data.get("puzzles")
    if not isinstance(raw_puzzles, list) or not raw_puzzles:
        raise _fail("puzzles", "must be a non-empty list")
    puzzles: list[Puzzle] = []
    seen: set[str] = set()
    for i, spec in enumerate(raw_puzzles):
        if not isinstance(spec, dict):
            raise _fail(f"puzzle #{i}", "must be an object")
        pid = spec.get("id")
        if not isinstance(pid, str) or not pid:
            raise _fail(f"puzzle #{i}", "missing id")
        where = f"puzzle {pid}"
        if pid in seen:
            raise _fail(where, "duplicate id")
        seen.add(pid)
        colour = spec.get("colour")
        if colour not in COLOURS:
            raise _fail(where, f"colour {colour!r} must be 'white' or 'black'")
        points = spec.get("points")
        if not isinstance(points, int) or isinstance(points, bool) or points < 0:
            raise _fail(where, f"points {points!r} must be a whole number >= 0")
        reward = spec.get("reward")
        if reward not in piece_ids:
            raise _fail(where, f"unknown reward piece {reward!r}")
        recess = _parse_rows(where, spec.get("rows"))
        provisional = bool(spec.get("provisional", False))
        puzzles.append(Puzzle(pid, i, colour, points, reward, recess, provisional))
    cat = Catalogue(
        pieces,
        tuple(puzzles),
        name=str(data.get("name", "custom" if source != "builtin" else "base")),
        source=source,
        provisional=bool(data.get("provisional", False)) or any(p.provisional for p in puzzles),
    )
    if check_fillable:
        from projectl_sim.fill import can_tile  # the fillability module owns tiling questions

        counts = tuple(p.copies for p in pieces)
        for puzzle in cat.puzzles:
            if not can_tile(cat, puzzle.recess, counts):
                raise _fail(f"puzzle {puzzle.id}", "no combination of pieces can fill its recess")
    return cat


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Load a catalogue file (the shipped base catalogue when ``path`` is None)."""
    if path is None:
        return base_catalogue()
    p = Path(path)
    data = read_json(p, "catalogue", CatalogueError)
    try:
        return catalogue_from_dict(data, source=str(p))
    except CatalogueError as exc:
        raise CatalogueError(f"catalogue {p}: {exc}") from None


_BASE: list[Catalogue] = []


def base_catalogue() -> Catalogue:
    """Return the shipped base catalogue (9 pieces, 52 puzzles), loaded once per process."""
    if not _BASE:
        text = (
            resources.files("projectl_sim").joinpath("data/base_catalogue.json").read_text("utf-8")
        )
        _BASE.append(catalogue_from_dict(json.loads(text), source="builtin"))
    return _BASE[0]


def render_mask(mask: Mask25, recess: Mask25 = FULL_MASK) -> list[str]:
    """Return 5 strings drawing ``mask`` ('#') inside ``recess`` ('.') and outside (' ')."""
    rows = []
    for r in range(SIZE):
        row = ""
        for c in range(SIZE):
            bit = 1 << (r * SIZE + c)
            row += "#" if mask & bit else ("." if recess & bit else " ")
        rows.append(row)
    return rows


def cells_to_mask(cells: Sequence[Sequence[int]]) -> Mask25:
    """Return the mask of a JSON list of ``[row, col]`` pairs; raise ``ValueError`` if malformed."""
    if not isinstance(cells, list | tuple):
        raise ValueError("cells must be a list of [row, col] pairs")
    pairs = []
    for cell in cells:
        if (
            not isinstance(cell, list | tuple)
            or len(cell) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
        ):
            raise ValueError(f"cell {cell!r} is not a [row, col] pair")
        pairs.append((cell[0], cell[1]))
    mask = cell_mask(pairs)
    if mask.bit_count() != len(pairs):
        raise ValueError("cells repeat")
    return mask
