"""Unseen cards moved on purpose: for games that decide a draw when it happens.

The engine deals a whole setup from a seed, so every deck has an order from the start. A game
that makes each draw an explicit chance event (OpenSpiel's ``python_project_l``) puts the card
chance picked on top of the deck just before the draw (``stack_deck``); a search that
re-samples what a seat cannot see swaps a hidden pile card with another unseen one
(``exchange_cards``). Both change only where unseen cards lie: a deck's unknown part, a victory
pile (its points follow the card), or out of the game (a black card the deck never held).
"""

from __future__ import annotations

from collections.abc import Sequence

from projectl_sim.engine.state_data import StateData, put
from projectl_sim.errors import IllegalActionError


def _place(state: StateData, card: int) -> tuple[str, int, int] | None:
    """Return where ``card`` lies (``deck``/``pile``, which, index), None out of the game;
    raise for a card the table shows."""
    for colour, deck in enumerate(state.decks):
        if card in deck:
            k = deck.index(card)
            if k >= len(deck) - state.known_bottom[colour]:
                raise IllegalActionError(
                    f"{state.tables.cat.puzzles[card].id} is known at the bottom of its deck"
                )
            return ("deck", colour, k)
    for p, pile in enumerate(state.piles):
        if card in pile:
            return ("pile", p, pile.index(card))
    seen = [c for row in state.rows for c in row] + state.shown_cards()
    seen += [s[0] for slots in state.slots for s in slots]
    if card in seen:
        raise IllegalActionError(f"{state.tables.cat.puzzles[card].id} is face up")
    return None


def exchange_cards(state: StateData, a: int, b: int) -> None:
    """Swap where two unseen cards of one colour lie (deck places, victory piles, out of the
    game); a pile's points follow its cards. ``IllegalActionError`` for a card the table shows
    or one known at a deck's bottom."""
    t = state.tables
    if a == b:
        return
    if t.is_black[a] != t.is_black[b]:
        raise IllegalActionError("only cards of one colour change places")
    where = [_place(state, a), _place(state, b)]
    for card, other, place in ((a, b, where[0]), (b, a, where[1])):
        if place is None:
            continue
        kind, i, k = place
        if kind == "deck":
            deck = list(state.decks[i])
            deck[k] = other
            state.decks = put(state.decks, i, tuple(deck))
        else:
            pile = list(state.piles[i])
            pile[k] = other
            state.piles = put(state.piles, i, tuple(pile))
            state.scores = put(state.scores, i, state.scores[i] + t.points[other] - t.points[card])


def stack_deck(state: StateData, colour: int, cards: Sequence[int]) -> None:
    """Put unseen ``cards`` on top of deck ``colour``, in order (each swaps places with the card
    there, which takes its old place: deeper in the deck, a pile, or out of the game)."""
    for depth, card in enumerate(cards):
        deck = state.decks[colour]
        if depth >= len(deck) - state.known_bottom[colour]:
            raise IllegalActionError("the deck's unknown part holds fewer cards")
        exchange_cards(state, deck[depth], card)
