"""Hidden information: what a seat may see, and re-dealing what it cannot."""

from __future__ import annotations

import random

import pytest
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


def _seen(state: GameState, player: int) -> tuple[object, object, object]:
    """Return the decks, piles and scores ``player`` may see, computed afresh."""
    from projectl_sim.engine.phases import hide

    decks = tuple(hide(d, k) for d, k in zip(state.decks, state.known_bottom, strict=True))
    piles = tuple(p if q == player else hide(p, 0) for q, p in enumerate(state.piles))
    scores = tuple(s if q == player else 0 for q, s in enumerate(state.scores))
    return decks, piles, scores


def test_views_of_interleaved_games_hide_each_game_s_own_cards() -> None:
    # the views reuse the hidden decks and piles they made last while the state's tuples are
    # the same: games stepped in turn, each seat viewing its own and the other games' states,
    # must each see their own cards, as hiding them afresh gives
    from bots import make_bot

    bot = make_bot("random")
    games = [new_game(Rules(players=n), seed=s) for n, s in ((2, 1), (3, 2), (2, 3))]
    rngs = [random.Random(k) for k in range(len(games))]
    checked = 0
    while any(g.phase != "over" for g in games):
        for g, rng in zip(games, rngs, strict=True):
            if g.phase == "over":
                continue
            for other in games:
                for seat in range(other.n):
                    view = other.view(seat)
                    assert (view.decks, view.piles, view.scores) == _seen(other, seat)
                    checked += 1
            g.step(g.current, bot(g.view(g.current), rng))
    assert checked > 1000 and all(any(g.piles) for g in games)


def test_a_view_shares_the_state_s_tuples_and_cannot_change_them() -> None:
    state = _midgame(Rules(players=2, known_victory_points=True), 5, 120)
    before = state.copy()
    view = state.view(state.current)
    # what changes a few times a game is a tuple, shared by the copy and the view: a bot can
    # rebind its view's fields, not write into the state's
    assert view.piles is state.piles and view.scores is state.scores
    assert view.known_bottom is state.known_bottom and view.finished is state.finished
    for field in ("piles", "scores", "ft_pieces", "decks", "known_bottom", "finished"):
        items = getattr(view, field)
        assert type(items) is tuple, field
        with pytest.raises(TypeError):
            items[0] = items[1]  # type: ignore[index]
        setattr(view, field, ())
    # the lists are the view's own
    view.reserve[0] += 5
    view.supply[0][0] += 5
    view.slots[0].append((0, 0, ()))
    view.rows[0] = ()
    for field in ("reserve", "supply", "slots", "rows", "piles", "scores", "decks"):
        assert getattr(state, field) == getattr(before, field), field
    check_invariants(state)
