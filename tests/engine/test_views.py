"""Hidden information: what a seat may see, and re-dealing what it cannot."""

from __future__ import annotations

import random

from state_util import play_steps

from projectl_sim import Rules, new_game
from projectl_sim.engine import HIDDEN, GameState
from projectl_sim.engine.actions import Recycle
from projectl_sim.engine.invariants import check_invariants


def _midgame(rules: Rules, seed: int, steps: int) -> GameState:
    return play_steps(rules, seed, steps)


def test_view_hides_deck_order_but_not_recycled_bottom_cards() -> None:
    state = new_game(Rules(players=2), seed=3)
    row = state.rows[0]
    state.step(state.current, Recycle(0, row[::-1]))
    view = state.view(state.current)
    deck = view.decks[0]
    assert deck[-4:] == row[::-1]  # the order the recycling player chose is public
    assert set(deck[:-4]) == {HIDDEN}
    assert set(view.decks[1]) == {HIDDEN}
    assert len(deck) == len(state.decks[0])
    # the real state is untouched
    assert HIDDEN not in state.decks[0]


def test_redeal_fills_hidden_cards_with_unseen_ones_only() -> None:
    rules = Rules(players=2, known_victory_points=True)
    for seed in range(20):
        state = _midgame(rules, seed, 60)
        view = state.view(state.current)
        dealt = view.redeal(random.Random(seed))
        check_invariants(dealt)
        for colour in (0, 1):
            real, mine = state.decks[colour], dealt.decks[colour]
            assert len(real) == len(mine)
            kb = state.known_bottom[colour]
            assert mine[len(mine) - kb :] == real[len(real) - kb :]
            unseen = set(state.unseen_cards(colour))
            assert set(mine[: len(mine) - kb]) <= unseen
        # the white deck holds every unseen white card, only its order is re-dealt
        assert sorted(dealt.decks[0]) == sorted(state.decks[0])


def test_redeal_black_deck_draws_from_the_cards_left_out_too() -> None:
    rules = Rules(players=2, known_victory_points=True)
    state = new_game(rules, seed=8)
    decks: set[frozenset[int]] = set()
    rng = random.Random(0)
    for _ in range(30):
        decks.add(frozenset(state.view(0).redeal(rng).decks[1]))
    # 2 players use 12 of the 20 black puzzles: which 8 are in the deck is unknown to a seat
    assert len(decks) > 1
    assert all(len(d) == 8 for d in decks)


def test_victory_piles_are_face_down_unless_known() -> None:
    hidden = _midgame(Rules(players=3), 4, 200)
    assert any(hidden.piles[p] for p in range(3))
    view = hidden.view(0)
    for p in (1, 2):
        assert view.piles[p] == (HIDDEN,) * len(hidden.piles[p])
        assert view.scores[p] == 0
    assert view.piles[0] == hidden.piles[0] and view.scores[0] == hidden.scores[0]
    check_invariants(view)
    known = _midgame(Rules(players=3, known_victory_points=True), 4, 200)
    assert known.view(0).piles == known.piles
    assert known.view(0).scores == known.scores


def test_a_view_cannot_draw_a_hidden_card() -> None:
    import pytest

    from projectl_sim.engine.actions import TakeDeck
    from projectl_sim.errors import IllegalActionError

    state = new_game(Rules(players=2), seed=1)
    view = state.view(state.current)
    with pytest.raises(IllegalActionError, match="redeal"):
        view.apply(TakeDeck(0))
