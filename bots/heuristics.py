"""Heuristic knowledge shared by the greedy family and the MCTS bot.

- ``CostModel.cost``: how many actions a puzzle still needs (placements plus the upgrades or
  takes to get missing pieces), from the tiling index.
- ``Weights``: the greedy family's named weights.
- ``remaining_actions``: how many actions a player has left, once the end is triggered.
- ``candidate_actions``: the few actions worth considering (a plan's placements instead of every
  placement, one order per Recycle, upgrades that climb, a Master built from one plan step per
  puzzle, and the same placements as an Ambassador action while the player holds one).

Compiled with mypyc (``setup.py: NATIVE``): this is the planner's hot loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bots._state import (
    OVER,
    ROW_LENGTH,
    TAKE_BASIC,
    Tables,
    ambassadors_held,
    line_clear_remaining,
    plays_finesse,
    plays_line_clear,
    solo_table,
    tables,
)
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import (
    Action,
    Master,
    Placement,
    Recycle,
    Take,
    TakeDeck,
    Upgrade,
)
from projectl_sim.expansions.ambassador_pack import Ambassador
from projectl_sim.tiling.fill import TilingIndex, tiling_index

# How many of a recess's tilings (cheapest first) the cost estimate looks at.
_BLACK: Final = 1  # projectl_sim.engine.actions.BLACK: the black deck's colour
# solo: the cards the player takes from the deck or the grid per round, besides the mastermind's
# (measured: greedy's solo games empty the 16-card deck in 10.0 rounds, 1.60 cards a round)
_SOLO_PLAYER_TAKES: Final = 0.6
_SCAN: Final = 24
_CACHE_CAP: Final = 200_000
UNREACHABLE: Final = 99

Cost = tuple[int, tuple[int, ...]]
# a tiling as the acquisition estimate reads it: (placements, per-piece counts, the pieces it
# uses in piece order, their counts)
Tiling = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]
# a region's tilings as ``CostModel._first`` scans them: (the index's vectors, the same packed 6
# bits a piece, how many use at most k pieces, the region's cells)
Vectors = tuple[tuple[int, ...], list[int], list[int], int]


@dataclass(frozen=True)
class Weights:
    """The greedy family's named weights (all in victory points)."""

    points: float = 1.0  # per point of a completed puzzle
    reward: float = 0.5  # per level of a puzzle's reward piece
    black_bias: float = 1.0  # multiplier on black puzzles' points
    white_only: bool = False  # never take a black puzzle
    risk: float = 1.0  # safety factor on the actions a new puzzle needs before the end
    horizon: int = 6  # fewest actions assumed left before the end is triggered
    min_held: int = 2  # keep at least this many puzzles in progress
    build: float = 0.0  # rate (points per action) below which spare pieces are upgraded first


# The planner's own packing of piece counts: 6 bits per piece (a count up to 31, with the top bit as
# the guard of the borrow test, as in ``tiling.fill``), so that with up to 10 pieces a whole
# vector fits a machine word: compiled, the scan for the cheapest covered tiling is native integer
# arithmetic instead of the index's multi-word ints (10x fewer instructions per vector). A tiling
# of 25 cells uses at most 25 of a piece, so clamping owned counts at 31 changes no answer.
# Catalogues with more pieces (Ghost Piece: 12) use the index's own queries.
_BITS: Final = 6
_GUARD: Final = 1 << (_BITS - 1)
_COUNT_MAX: Final = _GUARD - 1
_FAST_PIECES: Final = 10
_PLAN_CAP: Final = 200_000
# The completion-cost cache's key: the empty cells (25 bits) and the supply, 3 bits a count above
# them. With up to 10 pieces that is 55 bits, a machine word: compiled, the key is built and
# hashed natively, where the 6-bit packing above made an 85-bit int (a multi-word int built,
# hashed and compared on every query: about a tenth of ``value``'s instructions). A supply with a
# count above 7 (rare: a player holds about 3 of a piece at most) is keyed the old way, in a
# cache of its own.
_KEY_BITS: Final = 3
_KEY_MAX: Final = (1 << _KEY_BITS) - 1
_NO_CODE: Final = -1


class CostModel:
    """Cached completion costs and plans for one catalogue."""

    def __init__(self, index: TilingIndex, tab: Tables) -> None:
        self.index = index
        self.tab = tab
        self.levels: tuple[int, ...] = tab.levels
        self.n = tab.n_pieces
        self.max_level = tab.max_level
        # Ghost Piece: a ghost comes only as a reward, never from an action
        self.ghosts: tuple[int, ...] = tab.ghosts
        self.zero: tuple[int, ...] = (0,) * self.n
        self.fast = self.n <= _FAST_PIECES
        self._guards = sum(_GUARD << (_BITS * i) for i in range(self.n))
        # (empty | supply code, ``code``) -> (cost, need); a supply without a code (a count
        # above 7, or more than 10 pieces): (empty | packed supply << 25) -> (cost, need)
        self._cache: dict[int, Cost] = {}
        self._wide: dict[int, Cost] = {}
        # mask -> (its tilings as the index packs them, the same packed 6 bits per piece, ends,
        # its cells) where ends[k] is how many of them use at most k pieces (they are sorted by
        # size)
        self._vecs: dict[int, Vectors] = {}
        # mask -> the first _SCAN tilings of it as (pieces, per-piece counts, the pieces it uses
        # in piece order, their counts), for the estimate of regions the supply can't fill
        # (unpacked once, not on every miss)
        self._scan: dict[int, list[Tiling]] = {}
        # per piece: whether it is a ghost (never had by an action)
        self._is_ghost: tuple[bool, ...] = tuple(i in tab.ghosts for i in range(self.n))
        # (index vector << 25 | empty) -> the placements of that plan (the index's answer, kept)
        self._plans: dict[int, list[tuple[int, int]]] = {}
        # the planner's work: every ``cost`` and ``first`` query, cached or not (the unit of
        # ``mcts``'s work budget: counted, not timed, so a search stops at the same point on any
        # machine; a search reads the difference over its own queries)
        self.queries = 0

    # -- the tiling index, asked the fast way --------------------------------------------------
    def pack(self, supply: list[int]) -> int:
        """Return ``supply`` packed 6 bits per piece with the guard bits set."""
        out = 0
        shift = 0
        for c in supply:
            if c > _COUNT_MAX:
                c = _COUNT_MAX
            elif c < 0:
                c = 0
            out |= (c | _GUARD) << shift
            shift += _BITS
        return out

    def _load(self, empty: int) -> Vectors:
        index = self.index
        vecs = index.vectors(empty)
        packed = []
        ends = [0]
        for v in vecs:
            w = 0
            for i, c in enumerate(index.unpack(v)):
                w |= c << (_BITS * i)
            packed.append(w)
            size = index.size(v)
            while len(ends) <= size:
                ends.append(ends[-1])
            ends[size] += 1
        for k in range(1, len(ends)):
            ends[k] = max(ends[k], ends[k - 1])
        entry = (vecs, packed, ends, empty.bit_count())
        if len(self._vecs) > _CACHE_CAP:
            self._vecs.clear()
        self._vecs[empty] = entry
        return entry

    def first(self, empty: int, supply: list[int]) -> int | None:
        """Return the cheapest tiling vector of ``empty`` within ``supply`` (``index.first``)."""
        self.queries += 1
        if not self.fast:
            return self.index.first(empty, supply)
        if not empty:
            return 0
        return self._first(empty, supply, self.pack(supply))

    def _first(self, empty: int, supply: list[int], packed: int) -> int | None:
        levels = self.levels
        cells = 0
        pieces = 0
        for i in range(self.n):
            c = supply[i]
            cells += c * levels[i]
            pieces += c
        # the region's cells: kept with its tilings (compiled, ``int.bit_count`` is a method call
        # by name, about 500 instructions)
        entry = self._vecs.get(empty)
        if entry is None:
            if cells < empty.bit_count():
                return None
            entry = self._load(empty)
        vecs, fast, ends, size = entry
        if cells < size:
            return None
        stop = ends[pieces] if pieces < len(ends) else len(fast)
        guards = self._guards
        for j in range(stop):
            if (packed - fast[j]) & guards == guards:
                return vecs[j]
        return None

    def placements(self, empty: int, v: int) -> list[tuple[int, int]]:
        """Return the placements of the plan ``v`` of ``empty`` (the index's, cached; the list is
        shared: do not mutate it)."""
        key = v << 25 | empty
        hit = self._plans.get(key)
        if hit is None:
            hit = self.index.plan_placements(empty, v)
            if len(self._plans) > _PLAN_CAP:
                self._plans.clear()
            self._plans[key] = hit
        return hit

    # -- costs ---------------------------------------------------------------------------------
    def code(self, supply: list[int]) -> int:
        """Return ``supply``'s part of a cost key (3 bits a count, above the 25 cells), or -1
        when a count is outside 0..7 or the catalogue has more than 10 pieces: a caller asking
        the cost of several regions with one supply computes it once (``cost_with``)."""
        if not self.fast:
            return _NO_CODE
        out = 0
        shift = 25
        for c in supply:
            if c > _KEY_MAX or c < 0:
                return _NO_CODE
            out |= c << shift
            shift += _KEY_BITS
        return out

    def cost(self, empty: int, supply: list[int]) -> Cost:
        """Return (actions to complete ``empty``, the pieces of the tiling it plans with)."""
        return self.cost_with(empty, supply, self.code(supply))

    def cost_with(self, empty: int, supply: list[int], code: int) -> Cost:
        """Return ``cost(empty, supply)``, ``code`` being ``code(supply)``."""
        self.queries += 1
        if not empty:
            return 0, self.zero
        if code >= 0:
            key = empty | code
            cache = self._cache
        else:
            cache = self._wide
            if self.fast:
                key = empty | self.pack(supply) << 25
            else:
                try:
                    key = empty | int.from_bytes(bytes(supply), "little") << 25
                except ValueError:  # a count outside 0..255 (never in play): clamped
                    clamped = bytes([min(255, max(0, c)) for c in supply])
                    key = empty | int.from_bytes(clamped, "little") << 25
        hit = cache.get(key)
        if hit is not None:
            return hit
        result = self._solve(empty, supply)
        if len(cache) > _CACHE_CAP:
            cache.clear()
        cache[key] = result
        return result

    def _solve(self, empty: int, supply: list[int]) -> Cost:
        """Return ``cost(empty, supply)`` computed (not cached)."""
        index = self.index
        if self.fast:
            v = self._first(empty, supply, self.pack(supply))
        else:
            v = index.first_owned(empty, index.owned(supply))
        if v is not None:
            return index.size(v), index.unpack(v)
        return self._with_acquisitions(empty, supply)

    def _with_acquisitions(self, empty: int, supply: list[int]) -> Cost:
        # Each missing piece of level L costs one Upgrade from a spare piece one level below (or
        # an exchange at the same level), more from lower spares, and L actions from nothing
        # (take a level-1 piece, then upgrade it L-1 times). The spares are handed out highest
        # level first, to the missing pieces in piece order.
        # A tiling uses a few of the pieces: each is read through the pieces it uses, and the
        # spares of a level are the supply's pieces of it less what the tiling takes of them
        # (the same figures as a pass over every piece, in about a third of the instructions).
        levels = self.levels
        n = self.n
        top_level = self.max_level
        is_ghost = self._is_ghost
        best = UNREACHABLE
        best_need = self.zero
        scan = self._scan.get(empty)
        if scan is None:
            scan = self._load_scan(empty)
        held = [0] * (top_level + 1)  # the supply's pieces by level
        for i in range(n):
            s = supply[i]
            if s > 0:
                held[levels[i]] += s
        spare = [0] * (top_level + 1)  # spare pieces by level, for the tiling at hand
        for placements, need, used, counts in scan:
            # every tiling here lacks a piece (none fits the supply, or ``cost`` would not ask):
            # each missing piece costs at least one action, so a tiling whose placements and
            # missing pieces reach the best total can't beat it (the scan is by size: stop)
            if placements + 1 >= best:
                break
            lacking = 0
            lacks_ghost = False
            for k in range(len(used)):
                i = used[k]
                d = counts[k] - supply[i]
                if d > 0:
                    lacking += d
                    if is_ghost[i]:
                        lacks_ghost = True  # a ghost it lacks can't be had by an action
            if placements + lacking >= best or lacks_ghost:
                continue
            for lv in range(top_level + 1):
                spare[lv] = held[lv]
            for k in range(len(used)):
                i = used[k]
                s = supply[i]
                if s > 0:
                    c = counts[k]
                    spare[levels[i]] -= s if s < c else c
            extra = 0
            lv_top = top_level
            for k in range(len(used)):
                i = used[k]
                missing = counts[k] - supply[i]
                if missing <= 0:
                    continue
                lv = levels[i]
                for _ in range(missing):
                    while lv_top > 0 and spare[lv_top] == 0:
                        lv_top -= 1
                    if lv_top > 0:
                        spare[lv_top] -= 1
                        extra += lv - lv_top if lv - lv_top > 1 else 1
                    else:
                        extra += lv
            total = placements + extra
            if total < best:
                best = total
                best_need = need
        return best, best_need

    def _load_scan(self, empty: int) -> list[Tiling]:
        """Return the first ``_SCAN`` tilings of ``empty`` as the acquisition estimate reads
        them (kept)."""
        index = self.index
        scan: list[Tiling] = []
        for v in index.vectors(empty)[:_SCAN]:
            need = index.unpack(v)
            used = tuple(i for i in range(len(need)) if need[i] > 0)
            scan.append((index.size(v), need, used, tuple(need[i] for i in used)))
        if len(self._scan) > _CACHE_CAP:
            self._scan.clear()
        self._scan[empty] = scan
        return scan


_MODELS: Final[dict[int, CostModel]] = {}


def cost_model(state: GameState) -> CostModel:
    """Return the cost model of a state's catalogue (one per catalogue)."""
    cat = state.rules.catalogue
    model = _MODELS.get(id(cat))
    if model is None or model.index.cat is not cat:
        model = _MODELS[id(cat)] = CostModel(tiling_index(cat), tables(state))
    return model


def remaining_actions(state: GameState, player: int) -> int | None:
    """Return the actions ``player`` has left before the game ends, or None before the trigger."""
    if state.phase == OVER:
        return 0
    if plays_line_clear(state):  # the markers' schedule decides (Finesse: round 10 too)
        return line_clear_remaining(state, player)
    last = state.trigger_round + 1 if state.trigger_round else 0
    if plays_finesse(state):  # rulings, Finesse: the game also ends after round 10
        last = ROW_LENGTH if not last else min(last, ROW_LENGTH)
    if not last:
        return None
    n = state.n
    rounds_after = last - state.round
    pos = (player - state.first_player) % n
    cur = (state.current - state.first_player) % n
    if pos == cur:
        return state.actions_left + 3 * rounds_after
    if pos > cur:
        return 3 * (rounds_after + 1)
    return 3 * rounds_after


def actions_left_estimate(state: GameState, player: int, w: Weights) -> int:
    """Return the actions ``player`` has left: exact after the trigger, estimated before."""
    left = remaining_actions(state, player)
    if left is not None:
        return left
    # Before the trigger, estimate the rounds until it from the cards left in the deck that
    # triggers it: greedy play draws about 0.35 black cards per player per round; in solo the
    # mastermind takes one each round and the player about 0.6.
    per_round = 0.35 * state.n
    if solo_table(state) is not None:
        # solo: every take refills the grid from the deck or is the deck's top card; the
        # mastermind takes one a round (Finesse Solo: two)
        per_round = (2.0 if plays_finesse(state) else 1.0) + _SOLO_PLAYER_TAKES
    estimate = int(3 * (state.cards_to_trigger() / per_round + 1))
    return max(w.horizon, estimate)


def plan_places(state: GameState, model: CostModel) -> list[Action]:
    """Return the placements of each puzzle's cheapest plan with the current supply.

    A puzzle the supply can't complete offers the placements that keep it completable with the
    pieces owned or left in the reserve.
    """
    t = model.tab
    p = state.current
    supply = state.placeable_supply(p)
    index = model.index
    out: list[Action] = []
    seen: set[Action] = set()
    avail: tuple[int, int, int] | None = None  # owned or in the reserve, packed for the index
    for card, filled, _ in state.slots[p]:
        empty = t.recess[card] & ~filled
        v = model.first(empty, supply)
        if v is not None:
            for piece, mask in model.placements(empty, v):
                a = t.place(card, piece, mask)
                if a not in seen:
                    seen.add(a)
                    out.append(a)
            continue
        if avail is None:
            avail = index.owned([s + r for s, r in zip(supply, state.reserve, strict=True)])
        for piece, masks in enumerate(t.cat.fits_in(t.recess[card], empty)):
            if not supply[piece]:
                continue
            for mask in masks:
                rest = empty ^ mask
                # exists, not first: one tiling answers, without indexing every tiling of a
                # region that is asked once (most of the search's cost before)
                if not rest or index.exists_owned(rest, avail):
                    out.append(t.place(card, piece, mask))
    return out


def largest_step(model: CostModel, empty: int, v: int) -> tuple[int, int]:
    """Return the step of a plan's placements with the largest piece (the first such)."""
    levels = model.levels
    steps = model.placements(empty, v)
    best = steps[0]
    for s in steps:
        if levels[s[0]] > levels[best[0]]:
            best = s
    return best


def plan_master(state: GameState, model: CostModel) -> Master | None:
    """Return a Master of one plan placement per puzzle (largest piece first), if 2+ fit."""
    t = model.tab
    p = state.current
    left = list(state.placeable_supply(p))
    chosen: list[Placement] = []
    for card, filled, _ in state.slots[p]:
        empty = t.recess[card] & ~filled
        v = model.first(empty, left)
        if v is None:
            continue
        piece, mask = largest_step(model, empty, v)
        left[piece] -= 1
        chosen.append((card, piece, mask))
    return Master(tuple(chosen)) if len(chosen) >= 2 else None


def candidate_actions(state: GameState, w: Weights, model: CostModel) -> list[Action]:
    """Return the actions worth considering now (a narrowing of the legal Play actions)."""
    t = model.tab
    acts: list[Action] = []
    blind: list[Action] = []
    for a in state.take_actions():
        if isinstance(a, TakeDeck):
            if not (w.white_only and a.colour == _BLACK):
                blind.append(a)
        elif isinstance(a, Take) and not (w.white_only and t.is_black[a.card]):
            acts.append(a)
    if not acts or solo_table(state) is not None:
        # a blind draw only when no face-up puzzle is wanted; in solo always (it moves no lock
        # and leaves the grid to the mastermind as it is: sometimes the better take)
        acts.extend(blind[:1])
    if state.may_recycle():
        for colour in (0, 1):
            row = state.rows[colour]
            if row:
                acts.append(Recycle(colour, row))
    if state.basic_piece() is not None:
        acts.append(TAKE_BASIC)
    # Upgrades that climb a level (or two, by the shortage ruling): exchanges and downgrades are
    # rarely the best action (under 5% of searched positions), and the greedy plan that needs
    # one proposes it itself.
    levels = t.levels
    for a in state.upgrade_actions():
        if isinstance(a, Upgrade) and levels[a.get] > levels[a.give]:
            acts.append(a)
    acts.extend(plan_places(state, model))
    held = ambassadors_held(state, state.current) > 0
    if not state.master_used or held:
        m = plan_master(state, model)
        if m is not None:
            if not state.master_used:
                acts.append(m)
            if held:
                acts.append(Ambassador(m.placements))  # Ambassador Pack: the same placements
    return acts
