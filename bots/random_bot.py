"""The baseline ``random`` bot: sensible random play.

Uniform over action kinds, then over instances of the chosen kind, so that Place (often hundreds
of instances) doesn't drown the rest. Two pieces of sense keep games finishing by the rules:
it always takes a Place that completes a puzzle when there is one, and it never places a piece
that leaves a hole no owned-or-obtainable piece (supply plus reserve) can fill.

Finesse: with 2 active Credits, Insert is one more kind beside the six (its inner action drawn
the same way), and a completing Place is always inserted. Finishing Touches are paid with Credits
first.

Ambassador Pack: while the player holds an Ambassador, Ambassador is one more kind, drawn as a
Master is (two pieces or more, none stranding a hole).

Ghost Piece: holding a ghost, the Ghost action is one more kind (``sample_ghost``, keeping only the
placements that strand no hole); Level Up steps (or declining one) are drawn uniformly.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from bots.base import Bot
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action, Finish, Master, Place, TakeBasic
from projectl_sim.engine.moves import shuffle
from projectl_sim.engine.state import Slot
from projectl_sim.expansions.ambassador_pack import Ambassador, ambassadors, sample_ambassador
from projectl_sim.expansions.finesse import Insert, credits, finish_paying, paid_credits
from projectl_sim.expansions.ghost_piece import Ghost, ghosts, sample_ghost
from projectl_sim.tiling.fill import TilingIndex, fewest_pieces, tiling_index

Owned = tuple[int, int, int]  # counts packed by TilingIndex.owned
FitGroups = tuple[tuple[int, tuple[int, ...]], ...]  # Tables.fit_groups: (piece, masks) in order
TAKE_BASIC: Final = TakeBasic()  # an immutable action: one object serves every decision


def _pick(rand: Callable[[], float], n: int) -> int:
    # uniform index in range(n): random() is ~20x cheaper than randrange() in the hot loop;
    # ``rand`` is the rng's bound ``random``, looked up once a decision (compiled, a method
    # call by name looks it up each time: several hundred instructions)
    return int(rand() * n)


def _count(pieces: list[int]) -> int:
    """Return how many pieces a supply holds (``sum``: compiled, a call into the interpreter)."""
    n = 0
    for c in pieces:
        n += c
    return n


def _filled(slots: list[Slot], card: int) -> int:
    """Return the filled cells of the unfinished puzzle ``card`` among a player's slots."""
    for c, filled, _ in slots:
        if c == card:
            return filled
    raise KeyError(card)


def _nth(fits: list[FitGroups], supply: list[int], r: int) -> tuple[int, int, int]:
    """Return the ``r``-th placement of an owned piece in the puzzles' fit groups (puzzles in
    order, then piece order, then mask order), as (slot, piece, mask): the order a list of every
    such placement would have."""
    for i in range(len(fits)):
        for piece, masks in fits[i]:
            if supply[piece]:
                n = len(masks)
                if r < n:
                    return i, piece, masks[r]
                r -= n
    raise IndexError(r)


def _leaves_fillable(
    view: GameState, index: TilingIndex, card: int, filled: int, mask: int, avail: Owned
) -> bool:
    rest = view.tables.recess[card] & ~filled & ~mask
    return not rest or index.exists_owned(rest, avail)


def _obtainable(view: GameState, index: TilingIndex) -> Owned:
    """Return the pieces owned or obtainable (supply plus reserve), packed for the index."""
    p = view.current
    supply = view.placeable_supply(p)
    reserve = view.reserve
    # an index loop: compiled, zip(strict=True) is a call into the interpreter's zip
    n = len(supply)
    avail = [0] * n  # filled by index: compiled, a comprehension appends item by item
    for i in range(n):
        avail[i] = supply[i] + reserve[i]
    # Level-1 pieces are the scarcest resource of random play (every stranded single cell
    # eats one): only monos already owned count as obtainable for the holes a piece leaves.
    mono = view.tables.mono
    avail[mono] = view.supply[p][mono]
    gs = ghosts(view)
    if gs is not None:  # Ghost Piece: a ghost comes only as a reward
        for g in gs.tables.ghosts:
            avail[g] = supply[g]
    return index.owned(avail)


def completing_places(view: GameState) -> list[Place]:
    """Return the Place actions that complete a puzzle of the player to move."""
    t = view.tables
    p = view.current
    out: list[Place] = []
    # Asked at every decision of the random bot, and mostly no empty region is a piece's shape:
    # a region of more cells than the largest piece is skipped without the look-up (boxing the
    # mask and hashing it cost ten times counting its cells), and the placeable supply is read
    # only for a region that is a shape.
    most = t.max_cells
    for card, filled, _ in view.slots[p]:
        empty = t.recess[card] & ~filled
        rest = empty
        for _cell in range(most):  # (not ``_``: typed as the slot's third item above, boxed)
            rest &= rest - 1  # drop the lowest cell
        if rest:
            continue  # more cells than any piece
        pieces = t.piece_of_mask.get(empty)
        if pieces is not None:
            supply = view.placeable_supply(p)
            for piece in pieces:
                if supply[piece]:
                    out.append(t.place(card, piece, empty))
    return out


def with_credits(view: GameState, action: Finish) -> Finish:
    """Return ``action`` paying as many placements with Credits as it can (Finesse).

    At the end Credits only break ties, and a point always outweighs a tie-break, so paying with
    Credits never loses.
    """
    fin = credits(view)
    if fin is None or not action.placements:
        return action
    paid = min(len(action.placements), fin.active[view.current])
    return finish_paying(action, paid)


def finish_gain(view: GameState, action: Finish) -> int:
    """Return the points a Finish gains: completed puzzles (and penalties avoided) minus the
    pieces not paid with Credits."""
    t = view.tables
    p = view.current
    filled = {card: f for card, f, _ in view.slots[p]}
    for card, _, mask in action.placements:
        filled[card] |= mask
    per_puzzle = 2 if view.rules.unfinished_penalty else 1
    gain = sum(per_puzzle * t.points[c] for c, f in filled.items() if f == t.recess[c])
    return gain - len(action.placements) + paid_credits(with_credits(view, action))


def best_finish(view: GameState) -> Finish:
    """Return the Finishing Touches of the most ``finish_gain`` among ``finish_options``, the
    first of them on a tie (paid with Credits as ``with_credits`` pays), or ``Finish(())`` when
    none gains a point: the choice of ``max(finish_options(view), key=...)`` without listing the
    options. Each puzzle's cheapest vector and each subset's gain come from counts
    (``TilingIndex.cheapest``, by a search: a region met once at a game's end is not indexed);
    only the chosen subset's placements are made.

    A subset is planned only if it could gain more than the best so far: its points less the
    fewest pieces its puzzles need (beyond what Credits pay) bound its gain, since a puzzle's plan
    with what the earlier puzzles leave has at least the pieces of its plan with the whole supply,
    which has at least ``fewest_pieces``. A puzzle's plan with the whole supply is made when a
    subset first needs it, and a plan with what is left once per puzzle and counts."""
    t = view.tables
    p = view.current
    supply = view.placeable_supply(p)
    index = tiling_index(t.cat)
    slots = view.slots[p]
    n = len(slots)
    empties = [t.recess[card] & ~filled for card, filled, _ in slots]
    per_puzzle = 2 if view.rules.unfinished_penalty else 1
    fin = credits(view)
    paying = fin.active[p] if fin is not None else 0
    already = 0  # a puzzle with no empty cell counts in every option's gain, Finish(()) too
    points = [0] * n  # the points a subset gains by completing each puzzle
    for i in range(n):
        if empties[i]:
            points[i] = t.points[slots[i][0]]
        else:
            already += per_puzzle * t.points[slots[i][0]]
    # each puzzle's cheapest plan with the whole supply (None: none), as finish_options plans it,
    # made when first needed; until then ``fewest`` bounds its pieces
    whole: list[int | None] = [None] * n
    planned = [False] * n
    fewest = [fewest_pieces(index, empty, supply) for empty in empties]
    owned = index.owned(supply)  # packed once for every plan with the whole supply
    replans: dict[tuple[int, ...], int | None] = {}
    best_gain = already
    best: list[tuple[int, int]] = []  # (slot, vector) of the best option so far
    n_pieces = len(supply)
    for size in range(n, 0, -1):
        for subset in itertools.combinations(range(n), size):
            gained = 0
            least = 0
            for i in subset:
                gained += points[i]
                least += fewest[i]
            if already + per_puzzle * gained - max(0, least - paying) <= best_gain:
                continue  # cannot gain more than the best so far (nor the same and come first)
            left = supply[:]
            chosen: list[tuple[int, int]] = []
            pieces = 0
            ok = True
            for i in subset:
                if not planned[i]:
                    planned[i] = True
                    whole[i] = index.cheapest_owned(empties[i], owned)
                    w = whole[i]
                    if w is None:
                        fewest[i] = 26  # more than any plan: every subset with it is passed
                    else:
                        least += index.size(w) - fewest[i]
                        fewest[i] = index.size(w)
                v = whole[i]
                if v is None:
                    ok = False
                    break
                need = index.unpack(v)
                for k in range(n_pieces):
                    if need[k] > left[k]:
                        # the whole supply's plan needs what an earlier puzzle took: plan again,
                        # unless the subset cannot beat the best even with the fewest pieces
                        if already + per_puzzle * gained - max(0, least - paying) <= best_gain:
                            ok = False
                            break
                        key = (i, *left)
                        if key in replans:
                            v = replans[key]
                        else:
                            v = replans[key] = index.cheapest_owned(empties[i], index.owned(left))
                        if v is None:
                            ok = False
                        else:
                            need = index.unpack(v)
                        break
                if not ok or v is None:
                    ok = False
                    break
                for k in range(n_pieces):
                    left[k] -= need[k]
                chosen.append((i, v))
                pieces += index.size(v)
                least += index.size(v) - fewest[i]
            if not ok:
                continue
            gain = already + per_puzzle * gained - pieces + min(pieces, paying)
            if gain > best_gain:
                best_gain = gain
                best = chosen
    if best_gain <= 0 or not best:
        return Finish(())
    placements = []
    for i, v in best:
        card = slots[i][0]
        for piece, mask in index.placements_searched(empties[i], v):
            placements.append((card, piece, mask))
    return with_credits(view, Finish(tuple(placements)))


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, and still a base for users' bots
class RandomBot(Bot):
    name = "random"
    summary = (
        "sensible random: uniform over action kinds then instances; completes puzzles when it "
        "can and never strands an unfillable hole"
    )
    params: ClassVar[dict[str, tuple[Any, ...]]] = {}

    def act(self, view: GameState, rng: random.Random) -> Action:
        fin = credits(view)
        if fin is not None and fin.active[view.current] >= view.rules.insert_cost:
            # Finesse: a completing Place is always inserted (it saves an action); otherwise
            # Insert is one more kind beside the six, its inner action drawn the same way.
            done = completing_places(view)
            if done:
                return Insert(rng.choice(done))
            if not _pick(rng.random, 7):
                inner = self._play(view, rng)
                free = isinstance(inner, Ghost) and view.rules.ghost_action == "free"
                if isinstance(inner, Insert) or free:
                    return inner  # a free Ghost action is not inserted
                return Insert(inner)
        return self._play(view, rng)

    def draws_legal_actions(self) -> bool:
        # every answer is one the engine listed or sampled (its Place from the placements that
        # fit, its Master and Ghost placements a subset of the engine's draw): this class only
        return type(self) is RandomBot

    def _play(self, view: GameState, rng: random.Random) -> Action:
        done = completing_places(view)
        if done:
            return rng.choice(done)
        kinds = [0, 1, 2, 3, 4, 5]  # take, recycle, take_basic, upgrade, place, master
        amb = ambassadors(view)
        if amb is not None and amb.held[view.current]:
            kinds.append(6)  # ambassador (only when held: other games draw as before)
        gs = ghosts(view)
        if gs is not None and any(view.supply[view.current][g] for g in gs.tables.ghosts):
            kinds.append(7)  # Ghost Piece: the Ghost action (only when a ghost is held)
        rand = rng.random
        while kinds:
            kind = kinds.pop(int(rand() * len(kinds)))  # uniform over the kinds left (_pick)
            action: Action | None
            if kind == 0:
                acts: list[Action] = view.take_actions()
            elif kind == 1:
                recycle = view.sample_recycle(rng)  # uniform over rows' orders, none listed
                acts = [recycle] if recycle is not None else []
            elif kind == 2:
                acts = [TAKE_BASIC] if view.basic_piece() is not None else []
            elif kind == 3:
                acts = view.upgrade_actions()
            else:
                if kind == 4:
                    action = self._place(view, rng)
                elif kind == 5:
                    action = self._master(view, rng)
                elif kind == 6:
                    action = self._ambassador(view, rng)
                else:
                    action = self._ghost(view, rng)
                if action is not None:
                    return action
                continue
            if acts:
                return acts[int(rand() * len(acts))]
        # Everything left strands a hole: any legal action is still better than none.
        return rng.choice(view.legal_actions(master="none"))

    def _place(self, view: GameState, rng: random.Random) -> Place | None:
        p = view.current
        supply = view.placeable_supply(p)
        # With no level-1 piece left in the reserve, placing the last piece of the supply leaves
        # nothing to upgrade or take: only the supply itself is obtainable then.
        if _count(supply) == 1 and view.basic_piece() is None:
            return None
        t = view.tables
        recess = t.recess
        slots = view.slots[p]
        # Each puzzle's fitting pieces with their placements (``fit_groups``: cached, shared),
        # kept per puzzle; the owned pieces' placements are counted, and a draw walks them again
        # (``_nth``) rather than listing a tuple per piece (made and freed each decision). A
        # Place is looked up only for the one chosen (``Tables.place``: shared objects).
        fits = []
        total = 0
        for card, filled, placed in slots:
            empty = recess[card] & ~filled
            # the region before the puzzle's last placement: a new region is filtered from it
            groups = t.fit_groups(card, empty, empty | placed[-1][1] if placed else 0)
            fits.append(groups)
            for piece, masks in groups:
                if supply[piece]:
                    total += len(masks)
        if not total:
            return None
        index = tiling_index(t.cat)  # its method called on it: a native call once compiled
        avail = _obtainable(view, index)
        # A few uniform draws (without listing every placement) find a good one almost always;
        # then scan them all in a random order so that "no good placement" is exact.
        rand = rng.random
        for _draw in range(6):
            i, piece, mask = _nth(fits, supply, int(rand() * total))
            card, filled, _ = slots[i]
            rest = recess[card] & ~filled & ~mask  # what the placement leaves empty: fillable?
            if not rest or index.exists_owned(rest, avail):
                return t.place(card, piece, mask)
        places = []
        for i in range(len(fits)):
            card, filled, _ = slots[i]
            empty = recess[card] & ~filled
            for piece, masks in fits[i]:
                if supply[piece]:
                    for m in masks:
                        places.append((empty, card, piece, m))
        shuffle(rng, places)
        for empty, card, piece, mask in places:
            rest = empty & ~mask
            if not rest or index.exists_owned(rest, avail):
                return t.place(card, piece, mask)
        return None

    def _master(self, view: GameState, rng: random.Random) -> Master | None:
        if len(view.slots[view.current]) < 2 or _count(view.supply[view.current]) < 2:
            return None  # no Master of two pieces or more: don't sample one
        m = view.sample_master(rng)
        return m if m is not None and self._sensible(view, m) else None

    def _ambassador(self, view: GameState, rng: random.Random) -> Ambassador | None:
        if len(view.slots[view.current]) < 2 or _count(view.supply[view.current]) < 2:
            return None  # as for Master: two pieces or more
        m = sample_ambassador(view, rng)
        return m if m is not None and self._sensible(view, m) else None

    def _sensible(self, view: GameState, m: Master | Ambassador) -> bool:
        """Return whether a sampled Master or Ambassador places 2+ pieces, stranding no hole."""
        placements = m.placements
        if len(placements) < 2:
            return False  # a one-piece Master is a Place that wastes the Master
        if _count(view.supply[view.current]) == len(placements) and view.basic_piece() is None:
            return False  # would empty the supply with nothing left to take
        index = tiling_index(view.tables.cat)
        avail = _obtainable(view, index)
        slots = view.slots[view.current]
        for card, _, mask in placements:
            if not _leaves_fillable(view, index, card, _filled(slots, card), mask, avail):
                return False
        return True

    def _ghost(self, view: GameState, rng: random.Random) -> Ghost | None:
        g = sample_ghost(view, rng)
        if g is None or not g.placements:
            return g
        slots = view.slots[view.current]
        index = tiling_index(view.tables.cat)
        avail = _obtainable(view, index)
        kept = tuple(
            [
                pl
                for pl in g.placements
                if _leaves_fillable(view, index, pl[0], _filled(slots, pl[0]), pl[2], avail)
            ]
        )
        return Ghost(g.ghost, g.take, kept)

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        return best_finish(view)
