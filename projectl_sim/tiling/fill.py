"""Fillability: can an empty region be tiled with owned pieces, with which, and in how few.

The hot path is a tiling index: for each empty-cell mask, the piece-count vectors of all its
tilings, sorted cheapest first. It is built lazily by recursion on the lowest empty cell (every
tiling covers that cell with exactly one placement) and memoised per mask, globally across
puzzles since masks are absolute cells. The whole base catalogue takes ~50 ms to index; a warm
query is a scan of at most a few hundred ints.

A count vector is packed into one int, ``_FIELD_BITS`` bits per piece type, so adding a piece is
int addition and "the owned pieces cover this vector" is one subtraction and one mask test
(the SWAR borrow test in ``TilingIndex.first``).

``tiling.cpsat`` answers the same questions with OR-Tools CP-SAT; the tests hold the two to
the same answers.

Nothing here is specific to the base pieces: a catalogue with the Ghost Piece expansion has its
three level-5 pieces in the same tables and gets an index of its own (twelve fields per vector);
the base catalogue's index is unchanged. ``can_tile_using`` asks for a tiling that uses one of
some pieces (a ghost, say), and ``Catalogue.without_ghosts`` restricts owned counts to levels 1-4.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from projectl_sim.catalogue import Catalogue, Mask25, PieceId, mask_cells

Placement = tuple[int, Mask25]  # (piece index, placement mask)
Vector = int  # a packed piece-count vector, _FIELD_BITS bits per piece index
Solver = Literal["index", "cpsat"]

# Six bits per piece type: five for the count (a tiling of at most 25 cells uses at most 25 of a
# piece) and the top bit as the guard of the borrow test. Nine base pieces take 54 bits, and the
# sort key's number of pieces (``_build``) sits above them: every vector and key of the base
# game fits a machine word, which compiled code adds and compares inline (mypyc's short ints
# hold 62 bits; a byte per field made them 72-bit longs, every operation a call and an
# allocation). Owned counts above 31 are clamped, which changes no answer.
# (Final: compiled, the hot loops read them as constants, not from the module's namespace)
_FIELD_BITS: Final = 6
_FIELD: Final = (1 << _FIELD_BITS) - 1
_GUARD: Final = 1 << (_FIELD_BITS - 1)
_COUNT_MAX: Final = _GUARD - 1
# The base-64 digits of a vector sum to its number of pieces, and a digit sum is congruent to the
# number modulo 63 (casting out nines, in base 64); at most 25 pieces < 63 makes it exact.
_DIGIT_SUM_MOD: Final = _FIELD

# Memo bound, in stored vectors (about 50 bytes each, measured 48 with their tuples: 250 MB),
# for one index and for all the indexes of a process together (a worker of a run over many
# expansion sets holds a catalogue, and its index, per set). Every subset of a 16-cell recess
# takes ~1.7M; a base game touches far fewer. Phoenix's 17-18-cell puzzles with Ghost Piece's 12
# pieces need about 4M: at 1M the memo was dropped and rebuilt within one mcts decision, again and
# again (the slowest game measured: 76 s of CPU, largest decision 5.8 s; at 5M, 33 s and 2.6 s).
# On overflow a memo is dropped whole and refills on demand (the whole catalogue re-indexes in
# ~50 ms), which is cheaper than tracking recency on every hit: first the other indexes' memos,
# least recently started first, then the index's own.
DEFAULT_MAX_VECTORS = 5_000_000
# Bound on the owned counts remembered packed by ``TilingIndex.owned``.
_PACKED_CAP: Final = 20_000
# Bound on the regions remembered with one tiling each by ``TilingIndex.exists``.
_WITNESS_CAP = 500_000
# Between games (``trim``, which ``play_game`` calls) an index keeps at most this many vectors
# and witnesses, else it starts the next game empty: the bounds above are for one game's
# search (an mcts decision must not drop what it builds), these for a worker playing games
# for hours, whose memos otherwise filled to the bounds above (456 MB a worker after 50,000
# random games). A random game adds a few hundred vectors once the common regions are in.
GAME_MAX_VECTORS = 1_000_000
# ``cheapest`` searches regions of at most this many cells and indexes larger ones: the search's
# nodes grow fast with the cells (the random bot's Finishing Touches after 300 games, nodes a
# region: a median of 21 for 8 cells, 73 for 12, 110 for 14, 1,000 for a whole 16-cell recess),
# and the regions of 16 cells are mostly a puzzle's whole recess, the same few again and again,
# which the index builds once, where one of 13-15 cells is a partly filled puzzle met once, whose
# building cost several times its search. (At most 15: the search's keys count in 4-bit fields.)
SEARCH_MAX_CELLS = 15
# ... and gives a region up after this many nodes (the index builds it once, and keeps it, where
# the search would go again at every meeting; after 300 games, none of 2,000 regions took more)
SEARCH_MAX_NODES = 1024
GAME_MAX_WITNESSES = 100_000


def _lowest_cell(mask: Mask25) -> int:
    return (mask & -mask).bit_length() - 1


def _cells(mask: Mask25) -> int:
    """Return the number of cells of a mask (of at most 32 cells): ``mask.bit_count()``, which
    compiled is a method call by name (about 290 instructions), in a dozen native operations."""
    m = mask - (mask >> 1 & 0x55555555)
    m = (m & 0x33333333) + (m >> 2 & 0x33333333)
    m = (m + (m >> 4)) & 0x0F0F0F0F
    return (m * 0x01010101) >> 24 & 0xFF


_LEFT_COLUMN: Final = 1 | 1 << 5 | 1 << 10 | 1 << 15 | 1 << 20  # the first cell of each row
_RIGHT_COLUMN: Final = _LEFT_COLUMN << 4


def isolated_cells(mask: Mask25) -> Mask25:
    """Return the cells of ``mask`` with no orthogonal neighbour in ``mask``."""
    near = mask << 5 | mask >> 5 | (mask & ~_RIGHT_COLUMN) << 1 | (mask & ~_LEFT_COLUMN) >> 1
    return mask & ~near


class _Budget:
    """The bound that every tiling index of a process shares (``DEFAULT_MAX_VECTORS``)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0  # vectors held by every index's memo, beyond its empty region
        # the indexes holding vectors, least recently started first (held, so that what they
        # count is given back by ``clear``, never lost with a catalogue)
        self.holders: list[TilingIndex] = []

    def make_room(self, keep: TilingIndex) -> None:
        """Drop other indexes' memos, oldest first, then ``keep``'s, until within the bound."""
        for index in list(self.holders):
            if self.used <= self.limit:
                return
            if index is not keep:
                index.clear()
        if self.used > self.limit:
            keep.clear()


PROCESS_BUDGET = _Budget(DEFAULT_MAX_VECTORS)


class TilingIndex:
    """For each empty mask, the piece-count vectors of all its tilings, cheapest first."""

    def __init__(self, cat: Catalogue, *, max_vectors: int = DEFAULT_MAX_VECTORS) -> None:
        self.cat = cat
        self.max_vectors = max_vectors
        n = len(cat.pieces)
        self._shifts = tuple(_FIELD_BITS * i for i in range(n))
        self._units = tuple(1 << s for s in self._shifts)
        self._guards = sum(_GUARD << s for s in self._shifts)
        self._levels = cat.levels
        # Level-1 pieces are the only ones that fit a cell with no empty neighbour.
        self._single_shifts = tuple(
            s for s, lv in zip(self._shifts, cat.levels, strict=True) if lv == 1
        )
        # Sort key shift: the number of pieces sits above every field of the vector.
        self._key_shift = _FIELD_BITS * n
        # cell -> ((piece, unit vector, placements covering the cell), ...), empty tables dropped
        self._at = tuple(
            tuple(
                (piece, self._units[piece], masks)
                for piece, masks in enumerate(cat.placements_at[cell])
                if masks
            )
            for cell in range(25)
        )
        self._memo: dict[Mask25, tuple[Vector, ...]] = {}
        # mask -> ends[k] = how many of its vectors use at most k pieces (built on first query)
        self._ends: dict[Mask25, tuple[int, ...]] = {}
        # mask -> its vectors as a set, for exact membership (built on first plan through it)
        self._sets: dict[Mask25, frozenset[Vector]] = {}
        self._stored = 0
        self._best = 0  # the branch-and-bound of ``cheapest``: the least key found so far
        self._nodes = 0  # and the nodes it may still visit
        # pieces by level, largest first, and the level-1 pieces (the bounds of ``_least``)
        self._largest_first = tuple(sorted(range(n), key=lambda i: -cat.levels[i]))
        self._singles = tuple(i for i in range(n) if cat.levels[i] == 1)
        # the search of ``cheapest``: its key's field width and its table (``_search_table``)
        self._key_bits = _search_key_bits(n)
        self._at_largest = _search_table(cat, self._key_bits)
        self.clear()

    def clear(self) -> None:
        """Drop every memoised mask."""
        budget = PROCESS_BUDGET
        if self._stored > 1:
            budget.used -= self._stored - 1
            budget.holders.remove(self)
        self._memo = {0: (0,)}
        self._witness: dict[Mask25, Vector] = {}
        self._packed: dict[tuple[int, ...], tuple[Vector, int, int]] = {}
        self._ends = {}
        self._sets = {}
        self._stored = 1

    def trim(self) -> None:
        """Drop the memo when it holds more than ``GAME_MAX_VECTORS`` vectors, and the
        witnesses when more than ``GAME_MAX_WITNESSES`` (between games: answers are the same,
        only rebuilt)."""
        if self._stored > GAME_MAX_VECTORS:
            self.clear()
        elif len(self._witness) > GAME_MAX_WITNESSES:
            self._witness = {}

    @property
    def stored_masks(self) -> int:
        return len(self._memo)

    @property
    def stored_vectors(self) -> int:
        return self._stored

    # -- packing -------------------------------------------------------------------------------
    def pack(self, counts: Sequence[int]) -> Vector:
        """Return the packed vector of per-piece counts (each must be 0..31)."""
        v = 0
        for c, s in zip(counts, self._shifts, strict=True):
            if not 0 <= c <= _COUNT_MAX:
                raise ValueError(f"count {c} outside 0..{_COUNT_MAX}")
            v |= c << s
        return v

    def unpack(self, v: Vector) -> tuple[int, ...]:
        """Return the per-piece counts of a packed vector."""
        return tuple(v >> s & _FIELD for s in self._shifts)

    @staticmethod
    def size(v: Vector) -> int:
        """Return the number of pieces in a packed vector."""
        return v % _DIGIT_SUM_MOD

    def _owned(self, counts: Sequence[int]) -> tuple[Vector, int, int]:
        """Return the owned counts packed with their guard bits, and how many pieces and cells."""
        # Each field holds the clamped count with its guard bit set, so subtracting a vector never
        # borrows across fields, and a field's guard survives exactly when owned >= needed.
        levels = self._levels
        shifts = self._shifts
        if len(counts) != len(levels):
            raise ValueError(f"expected {len(levels)} counts, got {len(counts)}")
        raw = 0
        pieces = 0
        cells = 0  # a loop, not sum(map(mul, ...)) nor zip: compiled, it is native arithmetic
        for i in range(len(levels)):
            c = counts[i]
            if c < 0:
                c = 0
            elif c > _COUNT_MAX:
                c = _COUNT_MAX
            raw |= c << shifts[i]
            pieces += c
            cells += c * levels[i]
        return raw | self._guards, pieces, cells

    def _counts(self, packed: Vector) -> list[int]:
        """Return the counts of a packed vector as small ints, guard bits dropped (a search tests
        them at every step, where a test of the packed int costs a shift and a mask)."""
        return [packed >> s & _COUNT_MAX for s in self._shifts]

    # -- the index -----------------------------------------------------------------------------
    def vectors(self, empty: Mask25) -> tuple[Vector, ...]:
        """Return the vectors of every tiling of ``empty``, by (pieces, packed value)."""
        hit = self._memo.get(empty)
        if hit is not None:
            return hit
        budget = PROCESS_BUDGET
        if self._stored > self.max_vectors:
            self.clear()
        elif budget.used > budget.limit:
            budget.make_room(self)
        return self._build(empty)

    def _build(self, empty: Mask25) -> tuple[Vector, ...]:
        memo = self._memo
        cell = _lowest_cell(empty)
        found: set[Vector] = set()
        for _, unit, masks in self._at[cell]:
            for m in masks:
                if m & empty == m:
                    rest = empty ^ m
                    sub = memo.get(rest)
                    if sub is None:
                        sub = self._build(rest)
                    found.update([v + unit for v in sub])
        shift = self._key_shift
        # Fewest pieces first; ties go to the smaller packed value, i.e. fewer copies of the
        # later (higher-level) pieces in catalogue order. Total level cannot break ties: in an
        # exact cover it always equals the number of cells.
        vecs = tuple(sorted(found, key=lambda v: (v % _DIGIT_SUM_MOD) << shift | v))
        memo[empty] = vecs
        self._count(len(vecs))
        return vecs

    def _count(self, n: int) -> None:
        """Count ``n`` vectors more in this memo and in the process's bound."""
        if n:
            budget = PROCESS_BUDGET
            if self._stored == 1:  # the first since the memo was dropped
                budget.holders.append(self)
            self._stored += n
            budget.used += n

    def _ends_of(self, empty: Mask25, vecs: tuple[Vector, ...]) -> tuple[int, ...]:
        ends = self._ends.get(empty)
        if ends is None:
            most = self.size(vecs[-1]) if vecs else 0
            sizes = [self.size(v) for v in vecs]
            ends = tuple(bisect_left(sizes, k + 1) for k in range(most + 1))
            self._ends[empty] = ends
        return ends

    def _candidates(
        self, empty: Mask25, counts: Sequence[int]
    ) -> tuple[tuple[Vector, ...], Vector]:
        """Return the vectors of ``empty`` that could fit ``counts`` by size, and owned packed."""
        vecs = self._memo.get(empty)
        if vecs is None:
            vecs = self.vectors(empty)
        owned, pieces, cells = self._owned(counts)
        if cells < _cells(empty) or not vecs:
            return (), owned
        ends = self._ends.get(empty)
        if ends is None:
            ends = self._ends_of(empty, vecs)
        if pieces < len(ends) - 1:
            vecs = vecs[: ends[pieces]]  # sorted by size: only these use few enough pieces
        return vecs, owned

    def owned(self, counts: Sequence[int]) -> tuple[Vector, int, int]:
        """Return owned counts packed for ``first_owned`` (pack once, ask many regions).

        Remembered by counts: a game's players own the same few counts again and again, and a
        look-up costs a fraction of the packing (long-integer operations and calls).
        """
        key = tuple(counts)
        hit = self._packed.get(key)
        if hit is None:
            hit = self._owned(counts)
            if len(self._packed) >= _PACKED_CAP:
                self._packed = {}
            self._packed[key] = hit
        return hit

    def first_owned(self, empty: Mask25, owned: tuple[Vector, int, int]) -> Vector | None:
        """Return ``first(empty, counts)`` for counts already packed by ``owned``."""
        if not empty:
            return 0
        packed, pieces, cells = owned
        if cells < _cells(empty):
            return None
        vecs = self._memo.get(empty)
        if vecs is None:
            vecs = self.vectors(empty)
        ends = self._ends.get(empty)
        if ends is None:
            ends = self._ends_of(empty, vecs)
        if pieces < len(ends) - 1:
            vecs = vecs[: ends[pieces]]
        guards = self._guards
        for v in vecs:
            if (packed - v) & guards == guards:
                return v
        return None

    def exists(self, empty: Mask25, counts: Sequence[int]) -> bool:
        """Return whether some tiling of ``empty`` fits ``counts``.

        For one-off regions in a hot loop: a region already indexed is answered from the index;
        a new one by the last tiling found for it (a witness) when the counts cover it, else by
        a depth-first search for one tiling, largest pieces first, on the packed counts. The
        index itself is left alone: building a region's full vector set costs far more than
        finding one tiling.
        """
        return self.exists_owned(empty, self._owned(counts))

    def exists_owned(self, empty: Mask25, owned: tuple[Vector, int, int]) -> bool:
        """Return ``exists(empty, counts)`` for counts already packed by ``owned``."""
        packed, _, cells = owned
        if cells < _cells(empty):
            return False
        # Almost every region that fails in play fails here: more lone cells than level-1 pieces
        # (isolated_cells, inlined: this runs several times per random Place). Far cheaper than
        # the search, which may tile everything before the lone cell first.
        lone = empty & ~(
            empty << 5 | empty >> 5 | (empty & ~_RIGHT_COLUMN) << 1 | (empty & ~_LEFT_COLUMN) >> 1
        )
        if lone:
            singles = 0
            for shift in self._single_shifts:
                singles += packed >> shift & _COUNT_MAX
            if _cells(lone) > singles:
                return False
        if self._memo.get(empty) is not None:
            return self.first_owned(empty, owned) is not None
        guards = self._guards
        witness = self._witness.get(empty)
        if witness is not None and (packed - witness) & guards == guards:
            return True
        counts = self._counts(packed)
        rest = self._search(empty, packed, set(), counts)
        if rest is None:
            return False
        if len(self._witness) > _WITNESS_CAP:
            self._witness.clear()
        self._witness[empty] = packed - rest  # the pieces of the tiling found
        return True

    def _search(
        self, mask: Mask25, left: Vector, failed: set[tuple[Mask25, Vector]], counts: list[int]
    ) -> Vector | None:
        """Return what is left of ``left`` after one tiling of ``mask`` (largest pieces first),
        or None; ``failed`` gathers the (mask, left) pairs known to fail; ``counts`` holds
        ``left``'s counts, one int per piece, kept equal to it. (A method, not a closure:
        compiled, the recursion is then a direct call.)"""
        if not mask:
            return left
        if (mask, left) in failed:
            return None
        for piece, unit, masks in reversed(self._at[(mask & -mask).bit_length() - 1]):
            if counts[piece]:
                for m in masks:
                    if m & mask == m:
                        counts[piece] -= 1
                        found = self._search(mask ^ m, left - unit, failed, counts)
                        counts[piece] += 1
                        if found is not None:
                            return found
        failed.add((mask, left))
        return None

    def cheapest(self, empty: Mask25, counts: Sequence[int]) -> Vector | None:
        """Return ``first(empty, counts)``, the region's vector set left unbuilt when it is not
        indexed yet: a branch-and-bound search on the key ``first`` sorts by (pieces, then
        packed value; the key of a sum is the sum of the keys), bounded from the start by the
        witness of ``exists``. For regions met once (a puzzle's last holes at the end of a
        game), where building the vector set costs many times the search."""
        return self.cheapest_owned(empty, self._owned(counts))

    def cheapest_owned(self, empty: Mask25, owned: tuple[Vector, int, int]) -> Vector | None:
        """Return ``cheapest(empty, counts)`` for counts already packed by ``owned``."""
        if not empty:
            return 0
        if self._memo.get(empty) is not None or _cells(empty) > SEARCH_MAX_CELLS:
            return self.first_owned(empty, owned)
        if not self.exists_owned(empty, owned):
            return None
        packed = owned[0]
        guards = self._guards
        witness = self._witness.get(empty)
        n = len(self._shifts)
        bits = self._key_bits
        # the pieces' field (a shift: compiled, a product with a factor above 2**30 is a boxed
        # long operation even when it fits a machine word)
        shift = bits * n
        one = 1 << shift
        if witness is not None and (packed - witness) & guards == guards:
            best = 0
            pieces = 0
            wanted = self._counts(witness)  # the witness's key
            for i in range(n):
                c = wanted[i]
                best += c << bits * i
                pieces += c
            self._best = best + (pieces << shift)
        else:  # (unreachable: exists_owned has just remembered a witness within the counts)
            self._best = 26 << shift
        left = self._counts(packed)
        self._nodes = SEARCH_MAX_NODES
        self._least(empty, 0, left, one, shift)
        if self._nodes < 0:  # past its budget: the index answers (and keeps the region)
            return self.first_owned(empty, owned)
        best = self._best
        if best >= 26 << shift:
            return None
        field = (1 << bits) - 1
        shifts = self._shifts
        v = 0
        for i in range(n):
            v |= (best >> bits * i & field) << shifts[i]
        return v

    def _least(self, mask: Mask25, key: int, left: list[int], one: int, shift: int) -> None:
        """Lower ``self._best`` to the least key of ``key`` plus a tiling of ``mask`` within
        ``left``, largest pieces first (``_at_largest``; keys in ``_search_key_bits`` fields, a
        piece adds ``one``, ``1 << shift``). A branch stops once it cannot go below the best: the
        rest needs a level-1 piece for each of its cells with no empty neighbour, and for its
        other cells at least the pieces that cover them taking the largest other pieces first."""
        if not mask:
            if key < self._best:
                self._best = key
            return
        self._nodes -= 1
        if self._nodes < 0:
            return
        lone = mask & ~(
            mask << 5 | mask >> 5 | (mask & ~_RIGHT_COLUMN) << 1 | (mask & ~_LEFT_COLUMN) >> 1
        )
        need = _cells(mask)
        pieces = 0
        spare = 0  # the level-1 pieces the lone cells take
        if lone:
            singles = 0
            for piece in self._singles:
                singles += left[piece]
            pieces = _cells(lone)
            if pieces > singles:
                return
            # a piece on a lone cell covers nothing else: the other cells take other pieces
            need -= pieces
            spare = pieces
        levels = self._levels
        for piece in self._largest_first:
            if need <= 0:
                break
            have = left[piece]
            level = levels[piece]
            if level == 1 and spare:
                kept = have if have < spare else spare
                have -= kept
                spare -= kept
            if have:
                take = (need + level - 1) // level
                if take > have:
                    take = have
                pieces += take
                need -= take * level
        if need > 0 or key + (pieces << shift) >= self._best:
            return
        for piece, unit, masks in self._at_largest[(mask & -mask).bit_length() - 1]:
            have = left[piece]
            if have:
                step = key + unit + one
                for m in masks:
                    if m & mask == m:
                        # (assigned, not ``-=``: compiled, an augmented item is a generic op)
                        left[piece] = have - 1
                        self._least(mask ^ m, step, left, one, shift)
                        left[piece] = have
                        if self._nodes < 0:
                            return

    def placements_searched(self, empty: Mask25, v: Vector) -> list[Placement]:
        """Return ``_placements(empty, v)`` (the same placements: lowest cell first, the first
        piece and mask whose rest still tiles with the rest of ``v``), each rest tested by the
        depth-first search of ``exists`` on exact counts instead of the rest's vector set."""
        out: list[Placement] = []
        failed: set[tuple[Mask25, Vector]] = set()
        mask = empty
        while mask:
            step = self._step_searched(mask, v, failed)
            out.append(step)
            mask ^= step[1]
            v -= self._units[step[0]]
        return out

    def _step_searched(
        self, mask: Mask25, v: Vector, failed: set[tuple[Mask25, Vector]]
    ) -> Placement:
        shifts = self._shifts
        for piece, unit, masks in self._at[(mask & -mask).bit_length() - 1]:
            if not v >> shifts[piece] & _FIELD:
                continue
            rest = v - unit
            # the rest's cells equal the rest of the mask's: any tiling within it uses it all
            counts = [rest >> s & _FIELD for s in shifts]
            for m in masks:
                if m & mask == m and self._search(mask ^ m, rest, failed, counts) is not None:
                    return piece, m
        raise AssertionError("tiling index is inconsistent")  # unreachable: v tiles the mask

    def first(self, empty: Mask25, counts: Sequence[int]) -> Vector | None:
        """Return the cheapest vector of ``empty`` that ``counts`` covers, or None."""
        vecs, owned = self._candidates(empty, counts)
        guards = self._guards
        for v in vecs:
            if (owned - v) & guards == guards:
                return v
        return None

    def first_using(
        self, empty: Mask25, counts: Sequence[int], pieces: Collection[int]
    ) -> Vector | None:
        """Return the cheapest vector of ``empty`` within ``counts`` using one of ``pieces``."""
        vecs, owned = self._candidates(empty, counts)
        guards = self._guards
        wanted = sum(_FIELD << self._shifts[piece] for piece in set(pieces))
        for v in vecs:
            if v & wanted and (owned - v) & guards == guards:
                return v
        return None

    def covered(self, empty: Mask25, counts: Sequence[int]) -> list[Vector]:
        """Return every vector of ``empty`` that ``counts`` covers, cheapest first."""
        vecs, owned = self._candidates(empty, counts)
        guards = self._guards
        return [v for v in vecs if (owned - v) & guards == guards]

    def contains(self, empty: Mask25, v: Vector) -> bool:
        """Return whether some tiling of ``empty`` uses exactly the pieces of ``v``."""
        found = self._sets.get(empty)
        if found is None:
            # Only plans ask this, on the few masks along their way: a set per such mask is worth
            # its memory (it counts towards the bound) next to a bisect per question.
            found = self._sets[empty] = frozenset(self.vectors(empty))
            self._count(len(found))
        return v in found

    def plan_for(self, empty: Mask25, v: Vector) -> list[Placement] | None:
        """Return placements tiling ``empty`` with exactly the pieces of ``v``, or None."""
        if not self.contains(empty, v):
            return None
        return self._placements(empty, v)

    def plan_placements(self, empty: Mask25, v: Vector) -> list[Placement]:
        """Return the placements ``(piece, mask)`` of one way to fill ``empty`` with the pieces
        of the plan ``v`` (the public query bots plan with; ``_placements`` does the work)."""
        return self._placements(empty, v)

    def _placements(self, empty: Mask25, v: Vector) -> list[Placement]:
        out: list[Placement] = []
        mask = empty
        while mask:
            # The index says the rest is tileable with exactly the rest of the pieces, so some
            # placement on the lowest cell keeps that true: the search never backtracks.
            step = self._step(mask, v)
            out.append(step)
            mask ^= step[1]
            v -= self._units[step[0]]
        return out

    def _step(self, mask: Mask25, v: Vector) -> Placement:
        for piece, unit, masks in self._at[_lowest_cell(mask)]:
            if not v >> self._shifts[piece] & _FIELD:
                continue
            rest = v - unit
            for m in masks:
                if m & mask == m and self.contains(mask ^ m, rest):
                    return piece, m
        raise AssertionError("tiling index is inconsistent")  # unreachable if the index is right

    def tiling_counts(self, empty: Mask25) -> dict[Vector, int]:
        """Return, per vector, how many distinct tilings of ``empty`` use exactly those pieces."""
        memo: dict[Mask25, dict[Vector, int]] = {0: {0: 1}}

        def count(mask: Mask25) -> dict[Vector, int]:
            hit = memo.get(mask)
            if hit is not None:
                return hit
            out: dict[Vector, int] = {}
            for _, unit, masks in self._at[_lowest_cell(mask)]:
                for m in masks:
                    if m & mask == m:
                        for v, n in count(mask ^ m).items():
                            out[v + unit] = out.get(v + unit, 0) + n
            memo[mask] = out
            return out

        return count(empty)

    def count_tilings(self, empty: Mask25, counts: Sequence[int]) -> int:
        """Return how many distinct tilings of ``empty`` fit within ``counts``."""
        owned = self._owned(counts)[0]
        guards = self._guards
        return sum(
            n for v, n in self.tiling_counts(empty).items() if (owned - v) & guards == guards
        )


def tiling_index(cat: Catalogue) -> TilingIndex:
    """Return the catalogue's tiling index (one per catalogue, shared by every game).

    It lives on the catalogue object (a plain attribute: a weak-keyed table cost ~3 us a look-up
    in the hot loop), so it goes when the catalogue goes.
    """
    index = cat.__dict__.get("_tiling_index")
    if index is None:
        index = cat.__dict__["_tiling_index"] = TilingIndex(cat)
    return index


def trim(cat: Catalogue) -> None:
    """Between games: bound the catalogue's tiling index, if it has one (``TilingIndex.trim``)."""
    index = cat.__dict__.get("_tiling_index")
    if index is not None:
        index.trim()


# -- the questions, on an empty mask and owned counts (per piece index) --------------------------
def can_tile(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> bool:
    """Return whether ``empty`` can be tiled exactly using at most ``counts[i]`` of piece i."""
    if not empty:
        return True
    return tiling_index(cat).first(empty, counts) is not None


def can_tile_using(
    cat: Catalogue, empty: Mask25, counts: Sequence[int], pieces: Collection[int]
) -> bool:
    """Return whether some tiling of ``empty`` within ``counts`` uses one of ``pieces``."""
    if not empty:
        return False
    return tiling_index(cat).first_using(empty, counts, pieces) is not None


def admits_ghost(cat: Catalogue, empty: Mask25, counts: Sequence[int] | None = None) -> bool:
    """Return whether ``empty`` can be tiled with a ghost piece in it (default: every copy)."""
    owned = tuple(p.copies for p in cat.pieces) if counts is None else counts
    return can_tile_using(cat, empty, owned, cat.ghost_pieces)


def plan(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> list[Placement] | None:
    """Return placements ``(piece, mask)`` exactly tiling ``empty`` within ``counts``, or None.

    The plan uses the cheapest multiset (fewest pieces), lowest empty cell first.
    """
    index = tiling_index(cat)
    v = index.first(empty, counts) if empty else 0
    return None if v is None else index._placements(empty, v)  # v is known to tile empty


def cheapest_completion(
    cat: Catalogue, empty: Mask25, counts: Sequence[int]
) -> tuple[int, ...] | None:
    """Return the per-piece counts of the cheapest tiling of ``empty`` within ``counts``."""
    index = tiling_index(cat)
    v = index.first(empty, counts) if empty else 0
    return None if v is None else index.unpack(v)


def min_pieces(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> int | None:
    """Return the fewest placements that complete ``empty`` within ``counts``, or None."""
    best = cheapest_completion(cat, empty, counts)
    return None if best is None else sum(best)


def all_completions(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> list[tuple[int, ...]]:
    """Return the per-piece counts of every distinct tiling multiset within ``counts``."""
    index = tiling_index(cat)
    return [index.unpack(v) for v in index.covered(empty, counts)]


def count_tilings(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> int:
    """Return how many distinct tilings (sets of placed pieces) of ``empty`` fit ``counts``."""
    return tiling_index(cat).count_tilings(empty, counts)


# -- convenience: puzzles, piece names, one result object ---------------------------------------
def counts_of(cat: Catalogue, pieces: Mapping[PieceId, int] | Sequence[int]) -> tuple[int, ...]:
    """Return per-piece-index counts from ``{piece id: count}`` (or pass a sequence through)."""
    if isinstance(pieces, Mapping):
        by_index = [0] * len(cat.pieces)
        for piece_id, n in pieces.items():
            by_index[cat.piece_index(piece_id)] += n
        return tuple(by_index)
    counts = tuple(pieces)
    if len(counts) != len(cat.pieces):
        raise ValueError(f"expected {len(cat.pieces)} counts, got {len(counts)}")
    return counts


def puzzle_empty(cat: Catalogue, puzzle_id: str, filled: Iterable[tuple[int, int]] = ()) -> Mask25:
    """Return the still-empty cells of a puzzle's recess; ``filled`` are (row, col) cells.

    Raise ``KeyError`` for an unknown puzzle and ``ValueError`` for a filled cell outside it.
    """
    recess = cat.puzzle(puzzle_id).recess
    empty = recess
    for r, c in filled:
        if not (0 <= r < 5 and 0 <= c < 5) or not recess >> (r * 5 + c) & 1:
            raise ValueError(f"cell ({r},{c}) is not in the recess of puzzle {puzzle_id}")
        empty &= ~(1 << (r * 5 + c))
    return empty


@dataclass(frozen=True)
class FillResult:
    """The answer for one empty region: the cheapest multiset and a plan placing it."""

    empty: Mask25
    counts: tuple[int, ...] | None  # per piece index; None when no owned pieces fill it
    plan: tuple[Placement, ...] = ()

    @property
    def fillable(self) -> bool:
        return self.counts is not None

    @property
    def min_pieces(self) -> int | None:
        return None if self.counts is None else sum(self.counts)

    def pieces(self, cat: Catalogue) -> dict[PieceId, int]:
        """Return the multiset as ``{piece id: count}``, catalogue order, zeros left out."""
        if self.counts is None:
            return {}
        return {p.id: n for p, n in zip(cat.pieces, self.counts, strict=True) if n}

    def to_json(self, cat: Catalogue) -> dict[str, Any]:
        """Return the CLI's JSON form; cells are ``[row, col]`` in the printed grid."""
        return {
            "fillable": self.fillable,
            "min_pieces": self.min_pieces,
            "pieces": self.pieces(cat),
            "plan": [
                {"piece": cat.pieces[piece].id, "cells": [[r, c] for r, c in mask_cells(mask)]}
                for piece, mask in self.plan
            ],
        }


def fill_region(
    cat: Catalogue,
    empty: Mask25,
    counts: Mapping[PieceId, int] | Sequence[int],
    *,
    solver: Solver = "index",
) -> FillResult:
    """Return the cheapest way to tile ``empty`` with the owned pieces, by either solver."""
    owned = counts_of(cat, counts)
    if solver == "index":
        steps = plan(cat, empty, owned)
    elif solver == "cpsat":
        from projectl_sim.tiling import cpsat  # lazy: OR-Tools is a heavy import

        steps = cpsat.solve(cat, empty, owned)
        if steps is not None:
            steps.sort(key=lambda step: _lowest_cell(step[1]))
    else:
        raise ValueError(f"unknown solver {solver!r} (use 'index' or 'cpsat')")
    if steps is None:
        return FillResult(empty, None)
    used = [0] * len(cat.pieces)
    for piece, _ in steps:
        used[piece] += 1
    return FillResult(empty, tuple(used), tuple(steps))


def fill_puzzle(
    cat: Catalogue,
    puzzle_id: str,
    counts: Mapping[PieceId, int] | Sequence[int],
    filled: Iterable[tuple[int, int]] = (),
    *,
    solver: Solver = "index",
) -> FillResult:
    """Return the cheapest way to complete a puzzle whose ``filled`` cells are already covered."""
    return fill_region(cat, puzzle_empty(cat, puzzle_id, filled), counts, solver=solver)


# -- why not: a negative answer explained --------------------------------------------------------
def regions(empty: Mask25) -> list[Mask25]:
    """Return the orthogonally connected parts of ``empty``, lowest cell first."""
    out = []
    left = empty
    while left:
        part = left & -left
        while True:
            near = (
                part << 5 | part >> 5 | (part & ~_RIGHT_COLUMN) << 1 | (part & ~_LEFT_COLUMN) >> 1
            )
            grown = part | (near & left)
            if grown == part:
                break
            part = grown
        out.append(part)
        left &= ~part
    return out


def _cells_text(mask: Mask25) -> str:
    return " ".join(f"{r},{c}" for r, c in mask_cells(mask))


def _closest_tiling(
    cat: Catalogue, empty: Mask25, counts: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Return the tiling of ``empty`` that lacks the fewest owned pieces (the fewest pieces on a
    tie), as (its counts, the counts it lacks); None when ``empty`` has no tiling at all."""
    index = tiling_index(cat)
    best: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None
    for v in index.vectors(empty):  # cheapest first: the first of the fewest lacking wins ties
        need = index.unpack(v)
        lack = tuple(max(0, n - have) for n, have in zip(need, counts, strict=True))
        short = sum(lack)
        if best is None or short < best[0]:
            best = (short, need, lack)
    return None if best is None else (best[1], best[2])


def _named(cat: Catalogue, counts: Sequence[int]) -> str:
    return ", ".join(f"{p.id}={n}" for p, n in zip(cat.pieces, counts, strict=True) if n)


def why_not(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> str:
    """Return why the owned ``counts`` cannot tile ``empty``, in one sentence ("" if they can).

    The first reason that holds: the pieces cover too few cells; more cells without an empty
    neighbour than level-1 pieces; a connected region that no owned pieces tile; regions each
    tileable alone but not together; else the tiling that lacks the fewest pieces.
    """
    counts = tuple(counts)
    if can_tile(cat, empty, counts):
        return ""
    cells = empty.bit_count()
    covered = sum(n * p.level for n, p in zip(counts, cat.pieces, strict=True))
    if covered < cells:
        return f"the pieces cover {covered} of the {cells} empty cells"
    lone = isolated_cells(empty)
    singles = sum(n for n, p in zip(counts, cat.pieces, strict=True) if p.level == 1)
    if lone.bit_count() > singles:
        return (
            f"{lone.bit_count()} empty cells ({_cells_text(lone)}) have no empty neighbour and "
            f"need a level-1 piece each; there {'is' if singles == 1 else 'are'} {singles}"
        )
    parts = regions(empty)
    for part in parts if len(parts) > 1 else ():
        if not can_tile(cat, part, counts):
            closest = _closest_tiling(cat, part, counts)
            lacks = f": it lacks {_named(cat, closest[1])}" if closest else ""
            return (
                f"the region of {part.bit_count()} cells at {_cells_text(part)} cannot be tiled "
                f"with these pieces{lacks}"
            )
    closest = _closest_tiling(cat, empty, counts)
    if closest is None:
        return f"no tiling of the {cells} empty cells exists with any pieces of the catalogue"
    need, lack = closest
    start = (
        f"each of the {len(parts)} regions can be tiled alone, but not all at once"
        if len(parts) > 1
        else "no tiling fits these pieces"
    )
    return f"{start}: the closest, {_named(cat, need)}, lacks {_named(cat, lack)}"


# -- the search of ``TilingIndex.cheapest`` -----------------------------------------------------
def _search_key_bits(n: int) -> int:
    """Return the bits of a field of ``cheapest``'s search key for ``n`` piece types.

    The key is ``first``'s sort key (the pieces above the counts, each piece's count in a field
    of its own) in narrower fields: a tiling of at most ``SEARCH_MAX_CELLS`` cells holds fewer than
    ``2**bits`` of any piece, and fewer pieces in all, so no field overflows and keys order and add
    as the packed vectors do. Narrow, a key fits a machine word (compiled, a short int, below
    2**62) where the packed one is a boxed long at every step of the search.
    """
    bits = SEARCH_MAX_CELLS.bit_length()
    return bits if bits * (n + 1) <= 60 else _FIELD_BITS


def _search_table(
    cat: Catalogue, bits: int
) -> tuple[tuple[tuple[int, int, tuple[Mask25, ...]], ...], ...]:
    """Return, per cell, ``((piece, its unit in the search key, placements), ...)`` for the search
    of ``cheapest``: only the placements whose lowest cell is that cell (the search places on the
    lowest empty cell, where any other placement covers a filled cell), largest pieces first and a
    level's pieces in catalogue order: the search meets the fewest pieces first, and among those
    the least packed value (fewest copies of the later pieces), so that its bound is tight early."""
    table = []
    for cell in range(25):
        entries = []
        for piece, masks in enumerate(cat.placements_at[cell]):
            lowest = tuple(m for m in masks if _lowest_cell(m) == cell)
            if lowest:
                entries.append((piece, 1 << bits * piece, lowest))
        entries.sort(key=lambda e: (-cat.levels[e[0]], e[0]))
        table.append(tuple(entries))
    return tuple(table)


def fewest_pieces(index: TilingIndex, empty: Mask25, counts: Sequence[int]) -> int:
    """Return a lower bound on the pieces of any tiling of ``empty`` within ``counts``: the fewest
    that cover as many cells, largest first (26, more than any tiling has, when all of them cover
    too few)."""
    need = _cells(empty)
    pieces = 0
    levels = index._levels
    for piece in index._largest_first:
        if need <= 0:
            break
        have = counts[piece]
        if have > 0:
            level = levels[piece]
            take = (need + level - 1) // level
            if take > have:
                take = have
            pieces += take
            need -= take * level
    return pieces if need <= 0 else 26
