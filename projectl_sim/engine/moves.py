"""Legal actions listed and sampled, and a seat's view of a game and its determinizations.

Functions of the state's data (``StateData``; ``GameState`` delegates its methods to them, and
this module does not import it back): the Master and Recycle enumerations and their uniform
samples, the Upgrade and Place listings, a seat's view (what it may know), the re-deal of what a
view hides and the full determinization the search bots use (``determinize``: hidden piles, each
expansion's hidden cards, then the decks).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from typing import Any, Final

from projectl_sim.engine.actions import (
    BLACK,
    COLOURS,
    WHITE,
    Action,
    Master,
    Placement,
    Recycle,
)
from projectl_sim.engine.phases import HIDDEN, PLAY, hide
from projectl_sim.engine.state_data import StateData, put
from projectl_sim.rules import ROW_SIZE, Rules

# Every order of the positions of a row of n cards (n <= ROW_SIZE, the rulebook's row), for
# sampling a Recycle (a longer row, a parameter of the rules, is shuffled instead).
_ORDERS: Final = tuple(tuple(itertools.permutations(range(n))) for n in range(ROW_SIZE + 1))


def _recycle(colour: int, order: tuple[int, ...]) -> Recycle:
    """Return ``Recycle(colour, order)``, its fields set as its frozen dataclass ``__init__``
    sets them (``object.__setattr__``) without running that interpreted ``__init__``: from the
    compiled build it costs about 4,000 instructions, these three calls a fifth of it (a
    sampled Recycle or Master is made at most decisions of a random game)."""
    made = object.__new__(Recycle)
    object.__setattr__(made, "colour", colour)
    object.__setattr__(made, "order", order)
    return made


def _master(placements: tuple[Placement, ...]) -> Master:
    """Return ``Master(placements)``, made as ``_recycle`` makes a Recycle."""
    made = object.__new__(Master)
    object.__setattr__(made, "placements", placements)
    return made


def _factorial(n: int) -> int:
    # a row's orders: the rulebook's rows from the table, a longer one (a rules parameter) computed
    return len(_ORDERS[n]) if n < len(_ORDERS) else math.factorial(n)


def sample_recycle(state: StateData, rng: random.Random) -> Recycle | None:
    """Return a uniformly random legal Recycle without listing them all (None: none)."""
    if not state.may_recycle():
        return None
    white, black = state.rows[WHITE], state.rows[BLACK]
    weight = _factorial(len(white)) if white else 0
    total = weight + (_factorial(len(black)) if black else 0)
    if not total:
        return None
    rand = rng.random  # looked up once (compiled, a call by name looks it up each time)
    colour = WHITE if rand() * total < weight else BLACK
    row = white if colour == WHITE else black
    if len(row) >= len(_ORDERS):  # a row longer than the rulebook's (a rules parameter)
        shuffled = list(row)
        rng.shuffle(shuffled)
        return Recycle(colour, tuple(shuffled))
    orders = _ORDERS[len(row)]
    order = orders[int(rand() * len(orders))]  # uniform: cheaper than a shuffle
    return _recycle(colour, tuple([row[i] for i in order]))


def master_actions(state: StateData) -> Iterator[Master]:
    """Yield every Master action (one or more placements, at most one per puzzle)."""
    if state.master_used or state.phase != PLAY:
        return
    for chosen in placement_sets(state, state.placeable_supply(state.current)):
        yield Master(chosen)


def placement_sets(state: StateData, pieces: Sequence[int]) -> Iterator[tuple[Placement, ...]]:
    """Yield every non-empty set of placements into the mover's unfinished puzzles, at most
    one per puzzle, using at most ``pieces[p]`` of each piece ``p`` (puzzles in the order
    taken; in each, nothing first, then every placement in piece and mask order)."""
    t = state.tables
    left = list(pieces)
    per_slot = []
    for card, filled, _ in state.slots[state.current]:
        groups = t.fit_groups(card, t.recess[card] & ~filled)
        per_slot.append([(card, piece, m) for piece, masks in groups if left[piece] for m in masks])

    def go(i: int, chosen: list[Placement]) -> Iterator[tuple[Placement, ...]]:
        if i == len(per_slot):
            if chosen:
                yield tuple(chosen)
            return
        yield from go(i + 1, chosen)
        for pl in per_slot[i]:
            piece = pl[1]
            if left[piece]:
                left[piece] -= 1
                chosen.append(pl)
                yield from go(i + 1, chosen)
                chosen.pop()
                left[piece] += 1

    yield from go(0, [])


def sample_master(state: StateData, rng: random.Random, p_each: float = 0.75) -> Master | None:
    """Return a random legal Master (each puzzle gets a piece with probability ``p_each``)."""
    if state.master_used or state.phase != PLAY or not state.slots[state.current]:
        return None
    chosen = sample_placements(state, rng, p_each)
    return _master(chosen) if chosen else None


def sample_placements(state: StateData, rng: random.Random, p_each: float) -> tuple[Placement, ...]:
    """Return random placements of Master's kind (empty when none was drawn)."""
    t = state.tables
    left: list[int] = state.placeable_supply(state.current)[:]  # typed: native arithmetic
    chosen: list[Placement] = []
    rand = rng.random  # looked up once (compiled, a call by name looks it up each time)
    for card, filled, placed in state.slots[state.current]:
        if rand() >= p_each and chosen:
            continue
        empty = t.recess[card] & ~filled
        # the region before the puzzle's last placement: a new region is filtered from it
        groups = t.fit_groups(card, empty, empty | placed[-1][1] if placed else 0)
        # uniform over this puzzle's placements of the pieces left, without listing them
        total = 0
        for piece, masks in groups:
            if left[piece]:
                total += len(masks)
        if not total:
            continue
        r = int(rand() * total)  # cheaper than randrange in hot loops
        for piece, masks in groups:
            if left[piece]:
                if r < len(masks):
                    left[piece] -= 1
                    chosen.append((card, piece, masks[r]))
                    break
                r -= len(masks)
    return tuple(chosen)


def determinize(state: StateData, rng: random.Random) -> StateData:
    """Return a full state consistent with this view, what it hides drawn at random.

    The other seats' face-down victory piles get cards (each hidden card white or black so
    that the unseen whites and blacks add up, then drawn among the unseen cards of its
    colour), each expansion draws what it hides that counts in scores (``resample_hidden``:
    the Endless White Deck's noted puzzles), the seats' scores follow their new cards, and
    the unseen deck cards are re-dealt (as ``redeal`` deals them, the same draws). The
    engine's public determinization: search bots call it instead of filling a state's
    internals themselves.
    """
    hidden = [q for q in range(state.n) if HIDDEN in state.piles[q]]
    g = state.copy()
    if hidden or state.hooks.resample_hidden:
        # The cards nobody can see are the hidden deck cards and the hidden pile cards, so the
        # number of white cards in the hidden piles is the unseen whites less the hidden white
        # deck cards.
        pools = [unseen_cards(state, colour) for colour in (0, 1)]
        in_decks = [len(d) - kb for d, kb in zip(state.decks, state.known_bottom, strict=True)]
        slots = [q for q in hidden for _ in state.piles[q]]
        whites = min(len(slots), max(0, len(pools[0]) - in_decks[0]))
        colours = [0] * whites + [1] * (len(slots) - whites)
        shuffle(rng, colours)
        drawn = [
            sample(rng, pools[colour], min(colours.count(colour), len(pools[colour])))
            for colour in (0, 1)
        ]
        piles: dict[int, list[int]] = {q: [] for q in hidden}
        for q, colour in zip(slots, colours, strict=True):
            if drawn[colour]:
                piles[q].append(drawn[colour].pop())
        for q, cards in piles.items():
            g.piles = put(g.piles, q, tuple(cards))
        changed = set(hidden)
        for x in state.hooks.resample_hidden:
            changed.update(x.resample_hidden(g, rng))
        points = state.tables.points
        for q in changed:
            g.scores = put(
                g.scores, q, sum(points[c] for c in g.piles[q] + g.completed_elsewhere(q))
            )
    # the decks re-dealt as ``redeal`` re-deals them, in ``g`` itself (a copy already: a second
    # one would change nothing), among each colour's cards unseen now that the piles are dealt
    decks = []
    for colour, (d, kb) in enumerate(zip(g.decks, g.known_bottom, strict=True)):
        n_hidden = len(d) - kb
        decks.append(tuple(sample(rng, unseen_cards(g, colour), n_hidden)) + d[n_hidden:])
    g.decks = tuple(decks)
    for x in g.hooks.redeal_block:
        g.blocks[x.slot] = x.redeal_block(g, g.blocks[x.slot], rng)
    return g


def redeal(state: StateData, rng: random.Random) -> StateData:
    """Return a copy whose unseen deck cards are re-dealt at random (determinization).

    Works on a view (fills its ``HIDDEN`` cards) and on a full state alike. Each colour is
    re-dealt among its own unseen cards, so the counts of each stay as they are.
    """
    g = state.copy()
    decks = []
    for colour, (d, kb) in enumerate(zip(state.decks, state.known_bottom, strict=True)):
        hidden = len(d) - kb
        pool = unseen_cards(state, colour)
        decks.append(tuple(rng.sample(pool, hidden)) + d[hidden:])
    g.decks = tuple(decks)
    for x in state.hooks.redeal_block:
        g.blocks[x.slot] = x.redeal_block(g, g.blocks[x.slot], rng)
    return g


class _Hidden:
    """What the last views hid, by the tuples they hid it from: each decision's view of a game
    hides the same decks until a card is drawn, and the same piles until a puzzle is completed.
    An entry holds the tuples it was made from, so an identity test is an equality test (a tuple
    cannot change, and one held cannot be freed for another to take its id). Each entry is one
    tuple, replaced whole."""

    def __init__(self) -> None:
        # (rules, whether they hide the piles): a frozen Rules' field read once, not per view
        self.rules: tuple[Rules | None, bool] = (None, True)
        # (decks, known bottoms, the decks hidden)
        self.decks: tuple[object, object, tuple[tuple[int, ...], ...]] = ((), (), ())
        # per viewing seat: (piles, scores, the piles hidden, the scores hidden)
        self.piles: list[tuple[object, object, tuple[tuple[int, ...], ...], tuple[int, ...]]] = []

    def piles_hidden(self, rules: Rules) -> bool:
        """Return whether ``rules`` hide the others' victory piles (``known_victory_points``)."""
        entry = self.rules
        if entry[0] is rules:
            return entry[1]
        hidden = not rules.known_victory_points
        self.rules = (rules, hidden)
        return hidden

    def hidden_decks(
        self, decks: tuple[tuple[int, ...], ...], known: tuple[int, ...]
    ) -> tuple[tuple[int, ...], ...]:
        """Return ``decks`` with all but each one's known bottom ``HIDDEN``."""
        entry = self.decks  # read once: a thread replacing it replaces it whole
        if entry[0] is decks and entry[1] is known:
            return entry[2]
        # white, black (compiled, zip(strict=True) is a call into the interpreter's zip)
        hidden = (hide(decks[0], known[0]), hide(decks[1], known[1]))
        self.decks = (decks, known, hidden)
        return hidden

    def hidden_piles(
        self, piles: tuple[tuple[int, ...], ...], scores: tuple[int, ...], player: int
    ) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
        """Return the piles and scores ``player`` sees: the others' piles ``HIDDEN``, their
        scores 0."""
        entries = self.piles
        if player < len(entries):
            entry = entries[player]
            if entry[0] is piles and entry[1] is scores:
                return entry[2], entry[3]
        seen = tuple([pile if q == player else hide(pile, 0) for q, pile in enumerate(piles)])
        points = tuple([score if q == player else 0 for q, score in enumerate(scores)])
        while len(entries) <= player:
            entries.append(((), (), (), ()))
        entries[player] = (piles, scores, seen, points)
        return seen, points


# one per process, shared by every game's views (each entry checked against the state's own
# tuples before it is used)
_HIDDEN: Final = _Hidden()


def view(state: StateData, player: int) -> StateData:
    """Return what ``player`` may know: a copy whose unseen deck cards are ``HIDDEN``.

    The order of the cards recycled to the bottom of a deck is public (the recycling player
    chose it in the open), so those stay visible. Unless the rules say victory points are
    known, the other players' piles are ``HIDDEN`` cards and their scores read 0.
    """
    g = state.copy()
    g.viewer = player
    if _HIDDEN.piles_hidden(state.rules):
        # rulings: victory piles are face down unless "known victory points" is played;
        # the viewer sees how many cards the others completed, not which, nor their points.
        g.piles, g.scores = _HIDDEN.hidden_piles(state.piles, state.scores, player)
    g.decks = _HIDDEN.hidden_decks(state.decks, state.known_bottom)
    for x in state.hooks.view_block:
        g.blocks[x.slot] = x.view_block(g, g.blocks[x.slot], player)
    return g


def upgrade_actions(state: StateData) -> list[Action]:
    """Return every Upgrade B (give, get) pair the reserve allows."""
    t = state.tables
    reserve = state.reserve
    supply = state.supply[state.current]
    acts: list[Action] = []
    # loops, not all() nor a list per piece given: compiled, all() of a list is a call into the
    # interpreter, and this runs at a third of a random game's decisions
    full = True
    for count in reserve:
        if not count:
            full = False
            break
    if full:  # nothing out: the targets are fixed per piece given
        fixed = t.upgrade_full
        for give in range(len(supply)):
            if supply[give]:
                acts.extend(fixed[give])
        return acts
    for give in range(t.n_pieces):
        if supply[give]:
            # upgrade_targets, inlined
            by_get = t.upgrade_by_give[give]
            shortage = 1
            for p in t.upgrade_up[give]:
                if reserve[p]:
                    shortage = 0
                    break
            for get in t.upgrade_targets[give][shortage]:
                if reserve[get]:
                    acts.append(by_get[get])
    return acts


def upgrade_targets(state: StateData, give: int, reserve: Sequence[int]) -> list[int]:
    """Return the pieces an Upgrade B giving ``give`` may take from ``reserve``."""
    # rulings: Upgrade B and the reserve shortage (see Tables.upgrade_targets)
    t = state.tables
    shortage = 1
    for p in t.upgrade_up[give]:
        if reserve[p]:
            shortage = 0
            break
    return [p for p in t.upgrade_targets[give][shortage] if reserve[p]]


def place_actions(state: StateData) -> list[Action]:
    """Return every Place of an owned piece into an own unfinished puzzle."""
    t = state.tables
    supply = state.placeable_supply(state.current)
    acts: list[Action] = []
    for card, filled, _ in state.slots[state.current]:
        per_piece = t.place_actions(card, t.recess[card] & ~filled)
        for piece, places in enumerate(per_piece):
            if supply[piece] and places:
                acts.extend(places)
    return acts


# catalogue id -> (the catalogue, its cards of each colour in catalogue order): ``unseen_cards``
_COLOUR_CARDS: Final[dict[int, tuple[object, tuple[tuple[int, ...], ...]]]] = {}


def unseen_cards(state: StateData, colour: int) -> list[int]:
    """Return the cards of a colour that are not visible anywhere (candidates for the deck)."""
    # the cards seen as bits of one int (compiled: native arithmetic for up to 62 cards, where a
    # set cost an allocation and a hashed insert a card)
    seen = _bits(state.rows[colour], 0)
    seen = _bits(state.shown_cards(), seen)
    decks = state.decks
    known = state.known_bottom
    for k in range(len(decks)):
        kb = known[k]
        if kb:
            d = decks[k]
            seen = _bits(d[len(d) - kb :], seen)
    for slots in state.slots:
        for s in slots:
            if s[0] >= 0:
                seen |= 1 << s[0]
    for pile in state.piles:
        seen = _bits(pile, seen)
    # the catalogue's cards of each colour, listed once per catalogue (``Catalogue.of_colour``
    # is interpreted code building its list on every call: a determinization asks 4-6 times)
    cat = state.tables.cat
    hit = _COLOUR_CARDS.get(id(cat))
    if hit is None or hit[0] is not cat:
        hit = _COLOUR_CARDS[id(cat)] = (cat, tuple(tuple(cat.of_colour(c)) for c in COLOURS))
    return [c for c in hit[1][colour] if not seen >> c & 1]


def _bits(cards: Sequence[int], seen: int) -> int:
    """Return ``seen`` with the bit of each card of ``cards`` set (``HIDDEN`` cards skipped)."""
    for c in cards:
        if c >= 0:
            seen |= 1 << c
    return seen


def _randbelow(rng: random.Random, n: int) -> int:
    """Return ``rng._randbelow(n)`` (``Random``'s draw by ``getrandbits``; ``n`` > 0)."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """Shuffle ``items`` as ``rng.shuffle(items)`` does: the same permutation from the same
    draws, compiled (the interpreted loop costs several hundred instructions an item). A
    subclass of ``Random`` may draw otherwise: it shuffles itself."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    for i in range(len(items) - 1, 0, -1):
        j = _randbelow(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def sample(rng: random.Random, population: list[Any], k: int) -> list[Any]:
    """Return ``rng.sample(population, k)``: the same cards from the same draws (both branches of
    ``Random.sample``: a pool for small populations, a set of taken places for large ones; the
    tests compare them on this interpreter), compiled; a subclass of ``Random`` samples itself.
    (Interpreted, a determinization's samples cost about a twentieth of a ``value`` decision.)"""
    if type(rng) is not random.Random:
        return rng.sample(population, k)
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    result = [0] * k
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            j = _randbelow(rng, n - i)
            result[i] = pool[j]
            pool[j] = pool[n - i - 1]
    else:
        selected: set[int] = set()
        for i in range(k):
            j = _randbelow(rng, n)
            while j in selected:
                j = _randbelow(rng, n)
            selected.add(j)
            result[i] = population[j]
    return result
