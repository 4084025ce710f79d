"""Per-catalogue tables the engine (and the bots) read: built once per catalogue object.

``Tables`` holds facts derived from the catalogue (levels, points, recesses, rewards, the Upgrade
targets and the reserve shortage candidates of every piece) and the caches of the action objects
the hot loops hand out (Take, Upgrade, Place and Recycle objects, the placements that fit an empty
region). Everything is read-only for its users, and enforced so (every game, copy and bot's
view of a catalogue shares its tables): a ``Tables`` takes no assignment once built, its
dictionaries are ``frozen.ReadOnlyDict`` (the caches grow lazily through ``frozen.put``, and are
capped), the rest tuples.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import cast

from projectl_sim.catalogue import SPECIAL_REWARD_CODES, SPECIAL_REWARD_LEVELS, Catalogue, Mask25
from projectl_sim.engine.actions import Place, Recycle, Reward, Take, TakeDeck, Upgrade
from projectl_sim.engine.sealed import Sealed
from projectl_sim.frozen import ReadOnlyDict, put, wipe
from projectl_sim.tiling.fill import trim as trim_index


class Tables(Sealed):
    """Derived tables and caches of one catalogue, shared by every game in the process.

    Public, read-only: ``cat``, ``n_pieces``, ``levels`` (per piece), ``by_level`` (level -> the
    pieces of it), ``max_level``, ``mono`` (the level-1 piece of Upgrade A), ``piece_of_mask``
    (the catalogue's: placement mask -> the pieces of that shape), and per puzzle
    ``recess`` (its cells), ``points``, ``is_black``, ``reward`` (a piece index, or a special
    reward's negative code: ``special_reward``) and ``reward_level`` (what the reward is worth
    in piece levels, for evaluations); per piece ``upgradable``, whether the Upgrade action may
    take it.
    """

    def __init__(self, cat: Catalogue) -> None:
        self.cat = cat
        self.n_pieces = len(cat.pieces)
        self.levels = tuple(p.level for p in cat.pieces)
        by_level: dict[int, tuple[int, ...]] = {}
        for p in cat.pieces:
            by_level[p.level] = (*by_level.get(p.level, ()), p.index)
        self.by_level: dict[int, tuple[int, ...]] = ReadOnlyDict(by_level)
        self.max_level = max(self.by_level)
        self.recess = tuple(p.recess for p in cat.puzzles)
        self.points = tuple(p.points for p in cat.puzzles)
        self.is_black = tuple(p.is_black for p in cat.puzzles)
        # a puzzle's reward: a piece index, or the negative code of a special reward
        self.reward = tuple(
            SPECIAL_REWARD_CODES[p.reward]
            if p.reward in SPECIAL_REWARD_CODES
            else cat.piece_index(p.reward)
            for p in cat.puzzles
        )
        # code -> the special reward's catalogue name (its expansion resolves it)
        self.special_reward: dict[int, str] = ReadOnlyDict(
            {code: name for name, code in SPECIAL_REWARD_CODES.items()}
        )
        self.reward_level = tuple(
            self.levels[r] if r >= 0 else SPECIAL_REWARD_LEVELS[pz.reward]
            for pz, r in zip(cat.puzzles, self.reward, strict=True)
        )
        self.mono = cat.piece_index("mono")
        # the catalogue's mask -> pieces of that shape, read in hot loops: a native field here
        # rather than an attribute of the (plain Python) catalogue
        self.piece_of_mask: dict[Mask25, tuple[int, ...]] = cat.piece_of_mask
        # the most cells of a piece: a region with more is no piece's shape (no look-up needed)
        self.max_cells = max(len(p.cells) for p in cat.pieces)
        self.take_actions = tuple(Take(c) for c in range(len(cat.puzzles)))
        # blind takes by deck (white, black, the solo puzzle deck)
        self.take_deck_actions = tuple(TakeDeck(colour) for colour in range(3))
        self.upgrade_actions: dict[tuple[int, int], Upgrade] = ReadOnlyDict(
            {(g, t): Upgrade(g, t) for g in range(self.n_pieces) for t in range(self.n_pieces)}
        )
        # the same objects by piece given, then piece taken (no tuple key to hash in hot loops)
        self.upgrade_by_give: tuple[tuple[Upgrade, ...], ...] = tuple(
            tuple(self.upgrade_actions[g, t] for t in range(self.n_pieces))
            for g in range(self.n_pieces)
        )
        self.reward_actions = tuple(Reward(p) for p in range(self.n_pieces))
        # rulings: Upgrade B = same level (another shape), any lower level, or exactly one level
        # higher; reserve shortage: if that higher level is empty, one level above it. Per piece
        # given: the level above it, and the candidate targets (in piece order) without and with
        # the shortage, so that a query only filters on the reserve. The Upgrade action never
        # takes a piece the reserve gives only as a reward (``Piece.reward_only``), though it may
        # give one.
        levels = self.levels
        upgradable = self.upgradable = tuple(not p.reward_only for p in cat.pieces)
        self.upgrade_up: tuple[tuple[int, ...], ...] = tuple(
            tuple(p for p in self.by_level.get(levels[g] + 1, ()) if upgradable[p])
            for g in range(self.n_pieces)
        )

        def targets(g: int, step: int) -> tuple[int, ...]:
            return tuple(
                p
                for p in range(self.n_pieces)
                if p != g
                and upgradable[p]
                and (levels[p] <= levels[g] or levels[p] == levels[g] + step)
            )

        self.upgrade_targets: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
            (targets(g, 1), targets(g, 2)) for g in range(self.n_pieces)
        )
        # rulings, reserve shortage: per wanted piece, the other shapes of its level, then the
        # shapes one level higher or of any lower level (each in piece order)
        self.shortage_candidates: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
            (
                tuple(p for p in self.by_level[levels[w]] if p != w),
                tuple(
                    p
                    for p in range(self.n_pieces)
                    if levels[p] == levels[w] + 1 or levels[p] < levels[w]
                ),
            )
            for w in range(self.n_pieces)
        )
        # per piece given, its Upgrade actions while no piece of the reserve is out (the usual
        # case): no shortage then, unless no level lies above the piece given
        self.upgrade_full: tuple[tuple[Upgrade, ...], ...] = tuple(
            tuple(
                self.upgrade_actions[g, get]
                for get in self.upgrade_targets[g][0 if self.upgrade_up[g] else 1]
            )
            for g in range(self.n_pieces)
        )
        # (colour, row) -> every Recycle of that row, one per drawing order
        self.recycle_cache: dict[tuple[int, tuple[int, ...]], tuple[Recycle, ...]] = ReadOnlyDict()
        # (card, empty mask) -> per piece, the Place actions that fit
        self.place_cache: dict[tuple[int, Mask25], tuple[tuple[Place, ...], ...]] = ReadOnlyDict()
        # card -> per piece, mask -> its Place action (every placement inside the recess)
        self.place_objects: dict[int, tuple[dict[Mask25, Place], ...]] = ReadOnlyDict()
        # empty mask -> the pieces that fit in it, each with its placements there
        self.group_cache: dict[Mask25, tuple[tuple[int, tuple[Mask25, ...]], ...]] = ReadOnlyDict()
        self.seal()  # shared by every game and view of the catalogue: read-only from here

    def fit_groups(
        self, card: int, empty: Mask25, parent: Mask25 = 0
    ) -> tuple[tuple[int, tuple[Mask25, ...]], ...]:
        """Return the pieces that fit in a puzzle's empty cells, each with its placements there,
        in piece order (``Catalogue.fits_in`` less the pieces that don't fit; cached: the hot
        loops of play then skip those pieces). ``parent``, a region holding ``empty`` (the
        puzzle's empty cells before its last placement), is a hint: a region not cached yet is
        found by filtering the parent's groups when they are cached, else the recess's."""
        hit = self.group_cache.get(empty)
        if hit is None:
            hit = self._fit_groups_new(card, empty, parent)
        return hit

    def _fit_groups_new(
        self, card: int, empty: Mask25, parent: Mask25
    ) -> tuple[tuple[int, tuple[Mask25, ...]], ...]:
        """``fit_groups`` for a region not cached (a random game meets about fifteen new regions,
        each asked about again at later decisions): a superset's groups filtered, the parent's
        (a few dozen placements) when cached, else the recess's (a few hundred)."""
        whole = None
        if parent and parent & empty == empty:
            whole = self.group_cache.get(parent)
        if whole is None:
            whole = self._recess_groups(card)
            if empty == self.recess[card]:
                return whole
        groups = []
        for piece, masks in whole:
            # the masks kept as the objects the superset's tuple holds (``boxed``, the same
            # tuple typed as objects): compiled, a mask read as an int and listed is boxed
            # again, an allocation each; a piece whose every placement fits shares the tuple
            boxed: tuple[object, ...] = masks
            kept: list[object] = []
            for j in range(len(masks)):
                m = masks[j]
                if m & empty == m:
                    kept.append(boxed[j])
            if len(kept) == len(masks):
                groups.append((piece, masks))
            elif kept:
                groups.append((piece, cast(tuple[Mask25, ...], tuple(kept))))
        hit = tuple(groups)
        if len(self.group_cache) > 300_000:
            wipe(self.group_cache)
        put(self.group_cache, empty, hit)
        return hit

    def _recess_groups(self, card: int) -> tuple[tuple[int, tuple[Mask25, ...]], ...]:
        """Return ``fit_groups`` of a puzzle's whole recess (cached)."""
        recess = self.recess[card]
        whole = self.group_cache.get(recess)
        if whole is None:
            # the puzzle's own placements (cached per recess by the catalogue), once per recess
            made = []
            for piece, masks in enumerate(self.cat.fits(recess)):
                if masks:
                    made.append((piece, masks))
            whole = tuple(made)
            if len(self.group_cache) > 300_000:
                wipe(self.group_cache)
            put(self.group_cache, recess, whole)
        return whole

    def recycle_actions(self, colour: int, row: tuple[int, ...]) -> tuple[Recycle, ...]:
        """Return every Recycle of a row: one per drawing order (cached)."""
        hit = self.recycle_cache.get((colour, row))
        if hit is None:
            hit = tuple(Recycle(colour, order) for order in itertools.permutations(row))
            if len(self.recycle_cache) > 100_000:
                wipe(self.recycle_cache)
            put(self.recycle_cache, (colour, row), hit)
        return hit

    def _place_objects(self, card: int) -> tuple[dict[Mask25, Place], ...]:
        """Return, per piece, mask -> the Place action of every placement inside a puzzle's
        recess (made once per puzzle: a frozen dataclass costs about a microsecond to make)."""
        objects = self.place_objects.get(card)
        if objects is None:
            objects = tuple(
                ReadOnlyDict({m: Place(card, piece, m) for m in masks})
                for piece, masks in enumerate(self.cat.fits(self.recess[card]))
            )
            put(self.place_objects, card, objects)
        return objects

    def place(self, card: int, piece: int, mask: Mask25) -> Place:
        """Return the Place action of ``piece`` on ``mask`` in puzzle ``card`` (shared; a
        placement outside the recess gets a new one)."""
        found = self._place_objects(card)[piece].get(mask)
        return found if found is not None else Place(card, piece, mask)

    def place_actions(self, card: int, empty: Mask25) -> tuple[tuple[Place, ...], ...]:
        """Return, per piece, the Place actions into a puzzle's empty cells (cached)."""
        key = (card, empty)
        hit = self.place_cache.get(key)
        if hit is None:
            # the Place objects are made once per puzzle (for its whole recess) and shared by
            # every empty region of it: a miss only looks them up (~10x cheaper than making them)
            objects = self._place_objects(card)
            fits = self.cat.fits_in(self.recess[card], empty)
            hit = tuple(
                tuple([by_mask[m] for m in masks]) if masks else ()
                for by_mask, masks in zip(objects, fits, strict=True)
            )
            if len(self.place_cache) > 300_000:
                wipe(self.place_cache)
            put(self.place_cache, key, hit)
        return hit


_TABLES: dict[int, Tables] = {}
# Between games (``trim``) each cache keeps at most this many entries, else it is emptied: the
# caps in ``Tables`` bound one game's search, these a worker playing games for hours (its
# fit_groups grew by about ten regions a random game, with the tiling memo to 456 MB a worker
# after 50,000 games).
GAME_MAX_ENTRIES = 50_000


def trim() -> None:
    """Between games: empty the caches of every catalogue's tables that hold more than
    ``GAME_MAX_ENTRIES`` entries, and bound its tiling index (``fill.trim``). Answers stay the
    same; what was dropped is rebuilt when asked for again."""
    for t in _TABLES.values():
        if len(t.group_cache) > GAME_MAX_ENTRIES:
            wipe(t.group_cache)
        if len(t.place_cache) > GAME_MAX_ENTRIES:
            wipe(t.place_cache)
        if len(t.recycle_cache) > GAME_MAX_ENTRIES:
            wipe(t.recycle_cache)
        trim_index(t.cat)


def tables_of(cat: Catalogue) -> Tables:
    """Return the derived tables of a catalogue (built once per catalogue object)."""
    t = _TABLES.get(id(cat))
    if t is None or t.cat is not cat:
        t = _TABLES[id(cat)] = Tables(cat)
    return t


def shortage_options(reserve: Sequence[int], wanted: int, t: Tables) -> tuple[int, ...]:
    """Return the shapes a player may take when asking the reserve for ``wanted``.

    Rulings, reserve shortage: the wanted shape if there is one; else any other shape of the same
    level; if that level is empty, a shape one level higher or of any lower level; else nothing.
    """
    if reserve[wanted] > 0:
        return (wanted,)
    same, fallback = t.shortage_candidates[wanted]
    found = tuple([p for p in same if reserve[p] > 0])
    if found:
        return found
    return tuple([p for p in fallback if reserve[p] > 0])
