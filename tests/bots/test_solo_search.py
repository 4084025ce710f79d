"""The ``solosearch`` bot: ``mcts``'s rollout search whose solo leaves also count the player's own
points; legal play from the view, in solo and outside it."""

from __future__ import annotations

import random

import pytest
from state_util import play_steps, snapshot

from bots import MCTSBot, make_bot
from bots.heuristics import cost_model
from bots.solo_search import SoloSearchBot
from projectl_sim import Rules, play_game
from projectl_sim.engine import PLAY

SPEC = "bots.solo_search:SoloSearchBot"
TINY = f"{SPEC}:iterations=4,work=100"
SOLO = Rules(players=1, variant="solo")


def test_a_finished_solo_leaf_adds_the_points_of_the_players_own_score() -> None:
    state = play_game(SOLO, [make_bot("greedy")], 3, record=False).state
    model = cost_model(state)
    base = MCTSBot()._values(state, model)
    score = state.final_scores()[0]
    assert score > 0
    for points in (0.0, 0.01, 0.05):
        bot = SoloSearchBot(points=points)
        assert bot._values(state, model) == pytest.approx([base[0] + points * score])


def test_outside_solo_and_before_the_end_the_leaf_is_mcts_s() -> None:
    two = play_game(Rules(players=2), [make_bot("greedy"), make_bot("greedy")], 2, record=False)
    model = cost_model(two.state)
    assert SoloSearchBot(points=0.5)._values(two.state, model) == MCTSBot()._values(
        two.state, model
    )
    mid = play_steps(SOLO, 4, 12, "greedy")
    assert mid.phase == PLAY
    model = cost_model(mid)
    assert SoloSearchBot(points=0.5)._values(mid, model) == MCTSBot()._values(mid, model)


def test_it_plays_legal_solo_games_from_its_view_and_leaves_the_view_untouched() -> None:
    bot = make_bot(TINY)
    outcome = play_game(SOLO, [bot], 7, record=False)  # every action checked
    assert outcome.state.is_over and bot.searches > 0
    mid = play_steps(SOLO, 5, 10, "greedy")
    view = mid.view(0)
    before = snapshot(view)
    first = make_bot(TINY)(view, random.Random(2))
    assert snapshot(view) == before and first in view.legal_actions()
    assert make_bot(TINY)(view, random.Random(2)) == first  # reproducible


def test_it_plays_other_games_as_mcts() -> None:
    bots = [make_bot(TINY), make_bot("greedy")]
    assert play_game(Rules(players=2), bots, 9, record=False).state.is_over


def test_the_spec_names_what_differs_and_refuses_a_bad_weight() -> None:
    assert repr(make_bot(f"{SPEC}:points=0.02")) == f"{SPEC}:points=0.02"
    with pytest.raises(Exception, match="points"):
        make_bot(f"{SPEC}:points=2")
