"""Pieces, puzzles and their placements: immutable tables built once per catalogue.

Cells of the 5x5 grid are numbered ``row * 5 + col`` (row 0 on top, as printed), and a set of
cells is a 25-bit int (``Mask25``). Every table here is built when the catalogue is loaded; the
lazily filled caches (placements that fit a given empty region) live on the catalogue too, so
that every game in a process shares them.

Expansions add pieces and puzzles as sets of their own (``projectl_sim/data/<name>.json``, the
same format with an ``"expansion"`` key); ``load_catalogue(expansions=...)`` combines them with
the base game. A puzzle's reward is a piece id, or one of the rewards that are not a piece:
``level_up_1`` (↑), ``level_up_2`` (⇈) and ``ambassador``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
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

# rulings: Ghost Piece, the ghost pieces are the level-5 pieces (P, U and L pentominoes).
GHOST_LEVEL = 5
# Rewards that are not a piece (rulings: Ghost Piece Level Up ↑ and ⇈; Ambassador Pack). A
# puzzle's ``reward`` is a piece id or one of these names, which no piece may take.
LEVEL_UP_1 = "level_up_1"
LEVEL_UP_2 = "level_up_2"
AMBASSADOR = "ambassador"
SPECIAL_REWARDS = (LEVEL_UP_1, LEVEL_UP_2, AMBASSADOR)

# Expansion puzzle sets shipped as package data, in the order they are appended to the base game.
EXPANSION_FILES: Mapping[str, str] = {
    "ghost_piece": "data/ghost_piece.json",
    "ambassador_pack": "data/ambassador_pack.json",
    "phoenix": "data/phoenix.json",
}
EXPANSIONS = tuple(EXPANSION_FILES)

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

    @property
    def is_ghost(self) -> bool:
        return self.level == GHOST_LEVEL


@dataclass(frozen=True)
class Puzzle:
    """One puzzle card: its recess (a 25-bit mask in the printed grid), points and reward."""

    id: PuzzleId
    index: int
    colour: str
    points: int
    reward: str  # a piece id, or one of SPECIAL_REWARDS
    recess: Mask25
    provisional: bool = False
    expansion: str = "base"  # the puzzle set it comes from

    @property
    def is_black(self) -> bool:
        return self.colour == "black"

    @property
    def reward_piece(self) -> PieceId | None:
        """The piece the reward gives, or None for a Level Up or Ambassador reward."""
        return None if self.reward in SPECIAL_REWARDS else self.reward

    @property
    def level_ups(self) -> int:
        """The upgrades a Level Up reward gives: 1 for ↑, 2 for ⇈, else 0."""
        return {LEVEL_UP_1: 1, LEVEL_UP_2: 2}.get(self.reward, 0)

    @property
    def gives_ambassador(self) -> bool:
        return self.reward == AMBASSADOR

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
    # the expansion puzzle sets combined with the base, and those of them (or this catalogue's own
    # name) whose data is provisional
    expansions: tuple[str, ...] = ()
    provisional_sets: tuple[str, ...] = ()
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

    @property
    def ghost_pieces(self) -> tuple[int, ...]:
        """The indices of the ghost (level-5) pieces; empty without the Ghost Piece expansion."""
        return tuple(p.index for p in self.pieces if p.is_ghost)

    def without_ghosts(self, counts: Sequence[int]) -> tuple[int, ...]:
        """Return per-piece counts with every ghost piece's count set to 0 (levels 1-4 only)."""
        return tuple(0 if p.is_ghost else n for p, n in zip(self.pieces, counts, strict=True))

    def expansion_features(self) -> tuple[str, ...]:
        """Name what this catalogue holds beyond the base game: ghost pieces, special rewards."""
        found = []
        if self.ghost_pieces:
            found.append("ghost pieces")
        rewards = {p.reward for p in self.puzzles}
        found += [f"{name} rewards" for name in SPECIAL_REWARDS if name in rewards]
        return tuple(found)

    def combine(self, *sets: PuzzleSet) -> Catalogue:
        """Return this catalogue with expansion puzzle sets added (see ``combine``)."""
        return combine(self, sets)

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
        # list comprehensions, and no filtering of a piece with no placement: a miss is on the
        # hot path of play (a new empty region after nearly every placement)
        result = tuple(
            [tuple([m for m in masks if m & empty == m]) if masks else masks for masks in parent]
        )
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


def _parse_pieces(raw: Any, *, allow_empty: bool = False) -> tuple[Piece, ...]:
    if raw is None and allow_empty:
        return ()
    if not isinstance(raw, dict) or not (raw or allow_empty):
        raise _fail("pieces", "must be a non-empty object of piece id -> piece")
    pieces = []
    for i, (pid, spec) in enumerate(raw.items()):
        where = f"piece {pid}"
        if pid in SPECIAL_REWARDS:
            raise _fail(where, "the name is reserved for a reward that is not a piece")
        if not isinstance(spec, dict):
            raise _fail(where, "must be an object")
        cells_raw = spec.get("cells")
        if not isinstance(cells_raw, list | tuple):
            raise _fail(where, "cells must be a list of [row, col] pairs")
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


def _flag(where: str, value: Any, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise _fail(where, f"provisional must be true or false, got {value!r}")
    return value


def _check_reward(where: str, reward: Any, piece_ids: Collection[str]) -> None:
    if reward not in piece_ids and reward not in SPECIAL_REWARDS:
        raise _fail(
            where,
            f"unknown reward piece {reward!r} (a piece id or one of {', '.join(SPECIAL_REWARDS)})",
        )


def _parse_puzzles(
    raw: Any, piece_ids: Collection[str] | None, *, provisional: bool, expansion: str
) -> tuple[Puzzle, ...]:
    """Parse a puzzle list; rewards are checked against ``piece_ids`` unless it is None."""
    if not isinstance(raw, list) or not raw:
        raise _fail("puzzles", "must be a non-empty list")
    puzzles: list[Puzzle] = []
    seen: set[str] = set()
    for i, spec in enumerate(raw):
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
        if not isinstance(reward, str):
            raise _fail(where, f"reward {reward!r} must be a piece id or a reward name")
        if piece_ids is not None:
            _check_reward(where, reward, piece_ids)
        recess = _parse_rows(where, spec.get("rows"))
        # A puzzle of a provisional file is provisional unless it says otherwise.
        is_provisional = _flag(where, spec.get("provisional"), provisional)
        puzzles.append(Puzzle(pid, i, colour, points, reward, recess, is_provisional, expansion))
    return tuple(puzzles)


def _check_format(data: Any) -> None:
    if not isinstance(data, dict):
        raise _fail("catalogue", "must be a JSON object with 'pieces' and 'puzzles'")
    fmt = data.get("format", CATALOGUE_FORMAT)
    if fmt != CATALOGUE_FORMAT:
        raise _fail("catalogue", f"unknown format {fmt!r} (expected {CATALOGUE_FORMAT!r})")


def catalogue_from_dict(
    data: Any, *, source: str = "<dict>", check_fillable: bool = True
) -> Catalogue:
    """Build and validate a whole catalogue from its parsed JSON form."""
    _check_format(data)
    if "expansion" in data:
        raise _fail(
            "catalogue",
            f"is the expansion puzzle set {data['expansion']!r}, not a whole catalogue "
            f"(load it as an expansion: --expansions {data['expansion']}=FILE)",
        )
    pieces = _parse_pieces(data.get("pieces"))
    file_provisional = _flag("catalogue", data.get("provisional"), False)
    puzzles = _parse_puzzles(
        data.get("puzzles"), {p.id for p in pieces}, provisional=False, expansion="base"
    )
    name = str(data.get("name", "custom" if source != "builtin" else "base"))
    provisional = file_provisional or any(p.provisional for p in puzzles)
    cat = Catalogue(
        pieces,
        puzzles,
        name=name,
        source=source,
        provisional=provisional,
        provisional_sets=(name,) if provisional else (),
    )
    if check_fillable:
        from projectl_sim.fill import can_tile  # the fillability module owns tiling questions

        counts = tuple(p.copies for p in pieces)
        for puzzle in cat.puzzles:
            if not can_tile(cat, puzzle.recess, counts):
                raise _fail(f"puzzle {puzzle.id}", "no combination of pieces can fill its recess")
    return cat


@dataclass(frozen=True)
class PuzzleSet:
    """An expansion's pieces and puzzles as read from its file, before they join a catalogue.

    Rewards are checked when the set is combined: they may name pieces of the base game.
    """

    name: str
    pieces: tuple[Piece, ...]
    puzzles: tuple[Puzzle, ...]
    provisional: bool = False
    design: str = ""
    source: str = "builtin"


def puzzle_set_from_dict(data: Any, name: str, *, source: str = "<dict>") -> PuzzleSet:
    """Build and validate one expansion puzzle set from its parsed JSON form."""
    _check_format(data)
    declared = data.get("expansion", name)
    if declared != name:
        raise _fail("catalogue", f"is the expansion puzzle set {declared!r}, not {name!r}")
    design = data.get("design", "")
    if not isinstance(design, str):
        raise _fail("catalogue", "design must be a string")
    provisional = _flag("catalogue", data.get("provisional"), False)
    return PuzzleSet(
        name,
        _parse_pieces(data.get("pieces"), allow_empty=True),
        _parse_puzzles(data.get("puzzles"), None, provisional=provisional, expansion=name),
        provisional,
        design,
        source,
    )


def _same_piece(a: Piece, b: Piece) -> bool:
    return (
        a.level == b.level and a.copies == b.copies and _normalise(b.cells) in orientations(a.cells)
    )


def combine(
    base: Catalogue, sets: Iterable[PuzzleSet], *, check_fillable: bool = True
) -> Catalogue:
    """Return ``base`` with the sets' new pieces and puzzles appended, validated together."""
    sets = tuple(sets)
    pieces = list(base.pieces)
    by_id = {p.id: p for p in pieces}
    puzzles = list(base.puzzles)
    seen = {p.id: base.name for p in puzzles}
    names: list[str] = []
    for s in sets:
        if s.name in names or s.name in base.expansions:
            raise _fail(f"expansion {s.name}", "is added twice")
        names.append(s.name)
        for piece in s.pieces:
            known = by_id.get(piece.id)
            if known is None:
                by_id[piece.id] = replace(piece, index=len(pieces))
                pieces.append(by_id[piece.id])
            elif not _same_piece(known, piece):
                raise _fail(f"{s.name}: piece {piece.id}", "differs from the piece of that id")
    for s in sets:
        for puzzle in s.puzzles:
            where = f"{s.name}: puzzle {puzzle.id}"
            if puzzle.id in seen:
                raise _fail(where, f"duplicate id (also in {seen[puzzle.id]})")
            seen[puzzle.id] = s.name
            _check_reward(where, puzzle.reward, by_id)
            puzzles.append(replace(puzzle, index=len(puzzles)))
    provisional_sets = base.provisional_sets + tuple(
        s.name for s in sets if s.provisional or any(p.provisional for p in s.puzzles)
    )
    sources = [base.source, *(s.source for s in sets)]
    cat = Catalogue(
        tuple(pieces),
        tuple(puzzles),
        name="+".join((base.name, *names)),
        source="builtin" if set(sources) == {"builtin"} else "+".join(sources),
        provisional=base.provisional or bool(provisional_sets),
        expansions=base.expansions + tuple(names),
        provisional_sets=provisional_sets,
    )
    if check_fillable:
        from projectl_sim.fill import can_tile  # the fillability module owns tiling questions

        counts = tuple(p.copies for p in cat.pieces)
        for puzzle in cat.puzzles[len(base.puzzles) :]:
            if not can_tile(cat, puzzle.recess, counts):
                raise _fail(
                    f"{puzzle.expansion}: puzzle {puzzle.id}",
                    "no combination of pieces can fill its recess",
                )
    return cat


def with_shipped_sets(base: Catalogue, names: Iterable[str]) -> Catalogue:
    """Return ``base`` (a catalogue without expansion sets) with the shipped sets ``names``."""
    sets = expansion_names(names)
    if base is base_catalogue():
        return load_catalogue(expansions=sets)  # one object per combination
    return combine(base, [_read_puzzle_set(n, None) for n in sets])


def _read_puzzle_set(name: str, path: str | Path | None) -> PuzzleSet:
    if path is None:
        text = resources.files("projectl_sim").joinpath(EXPANSION_FILES[name]).read_text("utf-8")
        return puzzle_set_from_dict(json.loads(text), name, source="builtin")
    p = Path(path)
    data = read_json(p, f"expansion {name} file", CatalogueError)
    try:
        return puzzle_set_from_dict(data, name, source=str(p))
    except CatalogueError as exc:
        raise CatalogueError(f"expansion {name} file {p}: {exc}") from None


def expansion_names(expansions: Iterable[str]) -> tuple[str, ...]:
    """Return expansion names checked and in their canonical order; raise for an unknown one."""
    wanted = {expansions} if isinstance(expansions, str) else set(expansions)
    unknown = sorted(wanted - set(EXPANSIONS))
    if unknown:
        raise CatalogueError(
            f"unknown expansion {unknown[0]!r} (puzzle sets: {', '.join(EXPANSIONS)})"
        )
    return tuple(name for name in EXPANSIONS if name in wanted)


def load_catalogue(
    path: str | Path | None = None,
    *,
    expansions: Iterable[str] = (),
    overrides: Mapping[str, str | Path] | None = None,
) -> Catalogue:
    """Load a catalogue (the shipped base when ``path`` is None) with expansion puzzle sets.

    ``expansions`` names the sets to add (``EXPANSIONS``); ``overrides`` maps some of them to
    files of the user's own that replace the shipped (provisional) data.
    """
    names = expansion_names(expansions)
    overrides = dict(overrides or {})
    stray = sorted(set(overrides) - set(names))
    if stray:
        raise CatalogueError(f"a file replaces expansion {stray[0]!r}, which is not switched on")
    if path is None:
        base = base_catalogue()
    else:
        p = Path(path)
        data = read_json(p, "catalogue", CatalogueError)
        try:
            base = catalogue_from_dict(data, source=str(p))
        except CatalogueError as exc:
            raise CatalogueError(f"catalogue {p}: {exc}") from None
    if not names:
        return base
    shipped = path is None and not overrides
    if shipped and names in _COMBINED:
        return _COMBINED[names]
    cat = combine(base, [_read_puzzle_set(n, overrides.get(n)) for n in names])
    if shipped:
        _COMBINED[names] = cat  # one object per combination: the engine and index cache on it
    return cat


_BASE: list[Catalogue] = []
# shipped expansion names -> the base game with them, loaded once per process
_COMBINED: dict[tuple[str, ...], Catalogue] = {}


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
