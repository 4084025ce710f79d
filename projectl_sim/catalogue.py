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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from projectl_sim.errors import ProjectLError, id_ranges, unknown_name
from projectl_sim.frozen import ReadOnlyDict, put, wipe

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
# The engine's code for each special reward (piece rewards are piece indices, >= 0), and what one
# is worth in piece levels for the bots' evaluations: a Level Up its steps, an Ambassador (a free
# Master) as much as a level-2 piece.
SPECIAL_REWARD_CODES = {LEVEL_UP_1: -1, LEVEL_UP_2: -2, AMBASSADOR: -3}
SPECIAL_REWARD_LEVELS = {LEVEL_UP_1: 1, LEVEL_UP_2: 2, AMBASSADOR: 2}

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


def normalise(cells: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
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
            norm = normalise(cur)
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

    @property
    def reward_only(self) -> bool:
        """Return whether the reserve gives this piece only as a reward: the Upgrade action
        never takes it, nor is it dealt as a random piece (the ghost pieces: rulings, Ghost
        Piece)."""
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


@dataclass(eq=False, frozen=True)
class Catalogue:
    """The pieces and puzzles of a game, with their placement tables (built once).

    Immutable, as every game and every bot's view of one share it: its fields cannot be
    assigned, and its dictionaries are read-only (``frozen.ReadOnlyDict``).
    """

    pieces: tuple[Piece, ...]
    puzzles: tuple[Puzzle, ...]
    name: str = "base"
    source: str = "builtin"
    provisional: bool = False
    # the expansion puzzle sets combined with the base, and those of them (or this catalogue's own
    # name) whose data is provisional
    expansions: tuple[str, ...] = ()
    provisional_sets: tuple[str, ...] = ()
    # the catalogue as loaded, when this one is it with some puzzles' points or rewards changed
    # by a rules' parameters (``loading.with_puzzle_changes``); None for a catalogue as loaded
    original: Catalogue | None = field(default=None, repr=False)
    # piece index -> every placement mask of that piece on the 5x5 grid
    placements: tuple[tuple[Mask25, ...], ...] = field(init=False, repr=False)
    # placement mask -> piece indices with that exact placement (only level decides, in base)
    piece_of_mask: dict[Mask25, tuple[int, ...]] = field(init=False, repr=False)
    # cell -> piece index -> placements covering that cell
    placements_at: tuple[tuple[tuple[Mask25, ...], ...], ...] = field(init=False, repr=False)
    _piece_index: dict[PieceId, int] = field(init=False, repr=False)
    _puzzle_index: dict[PuzzleId, int] = field(init=False, repr=False)
    _fit_cache: dict[Mask25, tuple[tuple[Mask25, ...], ...]] = field(init=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        # a pickled catalogue (a Dask task, a test) leaves behind the indexes games cached on it
        # (``fill``'s tiling index, Ghost Piece's tables): they are built again where needed,
        # and a compiled build cannot pickle them
        kept = {f.name for f in fields(self)}
        return {k: v for k, v in self.__dict__.items() if k in kept}

    def __post_init__(self) -> None:
        placements = tuple(placements_on_grid(p.cells) for p in self.pieces)
        by_mask: dict[Mask25, list[int]] = {}
        for i, masks in enumerate(placements):
            for m in masks:
                by_mask.setdefault(m, []).append(i)
        derived = {
            "placements": placements,
            "piece_of_mask": ReadOnlyDict({m: tuple(v) for m, v in by_mask.items()}),
            "placements_at": tuple(
                tuple(tuple(m for m in masks if m >> cell & 1) for masks in placements)
                for cell in range(SIZE * SIZE)
            ),
            "_piece_index": ReadOnlyDict({p.id: p.index for p in self.pieces}),
            "_puzzle_index": ReadOnlyDict({p.id: p.index for p in self.puzzles}),
            "_fit_cache": ReadOnlyDict(),
        }
        for name, value in derived.items():  # (a frozen dataclass sets its own fields so)
            object.__setattr__(self, name, value)

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

    def piece_index(self, piece_id: PieceId) -> int:
        """Return the index of a piece id, or raise ``KeyError`` naming the valid ids."""
        try:
            return self._piece_index[piece_id]
        except (KeyError, TypeError):
            raise KeyError(unknown_name("piece", piece_id, self.piece_ids)) from None

    def puzzle_index(self, puzzle_id: PuzzleId) -> int:
        """Return the index of a puzzle id, or raise ``KeyError``."""
        try:
            return self._puzzle_index[puzzle_id]
        except (KeyError, TypeError):
            ids = [p.id for p in self.puzzles]
            raise KeyError(unknown_name("puzzle", puzzle_id, ids, listing=id_ranges(ids))) from None

    def has_puzzle(self, puzzle_id: PuzzleId) -> bool:
        """Return whether the catalogue holds a puzzle of that id."""
        return isinstance(puzzle_id, str) and puzzle_id in self._puzzle_index

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
            wipe(self._fit_cache)
        put(self._fit_cache, empty, result)
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
            wipe(self._fit_cache)
        put(self._fit_cache, empty, result)
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
