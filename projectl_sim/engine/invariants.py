"""A checker every state must pass: pieces, cards and scores conserved and consistent.

The base game's invariants are checked here; the variant adds its own (``check_variant_invariants``:
the solo grid and locks, Line Clear's rows and markers) and each expansion in play its own (its
``check_invariants`` hook: Credits, Ambassadors, Level Up steps, noted cards). The random-play
tests run it after every action of every combination.
"""

from __future__ import annotations

from collections import Counter
from operator import add, attrgetter

from projectl_sim.engine.actions import BLACK, WHITE
from projectl_sim.engine.state import BASE_PHASES, FINISHING, HIDDEN, PLAY, REWARD, GameState

_copies_of = attrgetter("copies")


class InvariantError(AssertionError):
    """A state broke an invariant; the message says which."""


def check_invariants(state: GameState) -> None:
    """Raise ``InvariantError`` unless every invariant of the game holds in ``state``."""
    t = state.tables
    cat = t.cat
    n = state.n
    # Pieces: every copy is in the reserve, a supply, placed on an unfinished puzzle, or where
    # the variant keeps pieces (solo: above a grid column, or in the opponent's supply). Counted
    # with lists, not a generator per piece: the runner checks every finished game this way.
    held = state.reserve[:]
    for supply in state.supply:
        held = list(map(add, held, supply))
    for piece in state.pieces_elsewhere():
        held[piece] += 1
    for p in range(n):
        if len(state.slots[p]) > state.max_unfinished:
            raise InvariantError(f"player {p} has {len(state.slots[p])} unfinished puzzles")
        for card, filled, placed in state.slots[p]:
            union = 0
            for piece, mask in placed:
                if not cat.shape_of(piece, mask):
                    raise InvariantError(f"{cat.puzzles[card].id}: a placed mask is not a {piece}")
                if union & mask:
                    raise InvariantError(f"{cat.puzzles[card].id}: placed pieces overlap")
                union |= mask
                held[piece] += 1
            if union != filled or filled & ~t.recess[card]:
                raise InvariantError(f"{cat.puzzles[card].id}: filled cells disagree with pieces")
            if filled == t.recess[card] and state.phase != FINISHING:
                raise InvariantError(f"{cat.puzzles[card].id} is full but not completed")
    copies = list(map(_copies_of, cat.pieces))
    if held != copies:
        i = next(i for i, (h, c) in enumerate(zip(held, copies, strict=True)) if h != c)
        raise InvariantError(f"{cat.pieces[i].id}: {held[i]} copies accounted for, not {copies[i]}")
    if min(state.reserve) < 0 or any(min(s) < 0 for s in state.supply):
        i = next(
            i for i in range(t.n_pieces) if min(state.reserve[i], *(s[i] for s in state.supply)) < 0
        )
        raise InvariantError(f"{cat.pieces[i].id}: a negative count")
    # Cards: each card in play exactly once across rows, decks, what the variant shows,
    # unfinished puzzles and piles (a view's HIDDEN deck cards count for their deck's colour).
    cards: list[int] = []
    hidden = [0, 0]  # a view's HIDDEN deck cards, by deck
    for colour in (WHITE, BLACK):
        cards += state.rows[colour]
        deck = state.decks[colour]
        if HIDDEN in deck:
            hidden[colour] = deck.count(HIDDEN)
            cards += [c for c in deck if c != HIDDEN]
        else:
            cards += deck
    cards += [c for c in state.shown_cards() if c >= 0]
    hidden_piles = False
    for p in range(n):
        cards += [s[0] for s in state.slots[p]]
        if state.pile_hidden(p):
            hidden_piles = True
            cards += [c for c in state.piles[p] if c != HIDDEN]
        else:
            cards += state.piles[p]
    if len(set(cards)) != len(cards):
        dup = sorted({cat.puzzles[c].id for c, k in Counter(cards).items() if k > 1})
        raise InvariantError(f"cards in two places: {', '.join(dup)}")
    if not hidden_piles:  # a view that hides piles cannot tell their colours
        black = sum(map(t.is_black.__getitem__, cards)) + hidden[BLACK]
        per_colour = (len(cards) + hidden[WHITE] + hidden[BLACK] - black, black)
        for colour in (WHITE, BLACK):
            if per_colour[colour] != state.cards_in_play[colour]:
                raise InvariantError(
                    f"{per_colour[colour]} {('white', 'black')[colour]} cards in play, "
                    f"not {state.cards_in_play[colour]}"
                )
    # Scores equal the points of the victory pile (and of the completed cards that left it).
    for p in range(n):
        elsewhere = state.completed_elsewhere(p)
        if state.pile_hidden(p) or HIDDEN in elsewhere:
            continue
        if state.scores[p] != sum(map(t.points.__getitem__, state.piles[p] + elsewhere)):
            raise InvariantError(
                f"player {p}: score {state.scores[p]} is not its completed puzzles' points"
            )
    known = (*BASE_PHASES, *state.hooks.phase_owner)
    if state.phase not in known:
        raise InvariantError(f"unknown phase {state.phase!r}")
    if state.phase == PLAY and not 1 <= state.actions_left <= state.actions_per_turn:
        raise InvariantError(f"{state.actions_left} actions left in the play phase")
    if state.phase == REWARD and len(state.reward_options) < 2:
        raise InvariantError("a reward choice with fewer than two options")
    for x in state.hooks.check_invariants:
        x.check_invariants(state)
    size = state.row_size()
    if len(state.rows[WHITE]) > size or len(state.rows[BLACK]) > size:
        raise InvariantError(f"a row holds more than {size} puzzles")
    state.check_variant_invariants()
