"""projectl_sim.engine.chance: unseen cards moved on purpose (OpenSpiel's chance nodes)."""

from __future__ import annotations

import pytest

from projectl_sim import Rules, new_game
from projectl_sim.engine.chance import exchange_cards, stack_deck
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.errors import IllegalActionError


def test_stack_deck_puts_unseen_cards_on_top_and_keeps_the_deck() -> None:
    state = new_game(Rules(players=2), seed=3)
    white, black = list(state.decks[0]), list(state.decks[1])
    stack_deck(state, 0, [white[5], white[2]])
    assert state.decks[0][:2] == (white[5], white[2])
    assert sorted(state.decks[0]) == sorted(white)
    out = next(c for c in state.unseen_cards(1) if c not in black)  # a black card not dealt
    stack_deck(state, 1, [out])
    assert state.decks[1][0] == out and black[0] not in state.decks[1]  # it left the game
    check_invariants(state)


def test_exchange_cards_moves_a_pile_card_and_its_points() -> None:
    state = new_game(Rules(players=2), seed=3)
    card = state.decks[0][0]
    state.decks = (state.decks[0][1:], state.decks[1])
    state.piles = (state.piles[0], (card,))
    state.scores = (state.scores[0], state.tables.points[card])
    other = next(c for c in state.decks[0] if state.tables.points[c] != state.scores[1])
    exchange_cards(state, card, other)
    assert state.piles[1] == (other,) and card in state.decks[0]
    assert state.scores[1] == state.tables.points[other]


def test_cards_on_the_table_or_of_two_colours_do_not_move() -> None:
    state = new_game(Rules(players=2), seed=3)
    with pytest.raises(IllegalActionError, match="face up"):
        exchange_cards(state, state.decks[0][0], state.rows[0][0])
    with pytest.raises(IllegalActionError, match="one colour"):
        exchange_cards(state, state.decks[0][0], state.decks[1][0])
    state.known_bottom = (1, state.known_bottom[1])
    with pytest.raises(IllegalActionError, match="bottom"):
        exchange_cards(state, state.decks[0][-1], state.decks[0][0])
