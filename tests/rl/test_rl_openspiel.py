"""The OpenSpiel game: OpenSpiel's random_sim_test with serialization, its bots, chance nodes."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from open_spiel.python.bots.uniform_random import UniformRandomBot

import projectl_sim.rl.openspiel  # noqa: F401  (registers python_project_l)
from bots import make_bot
from projectl_sim.engine.actions import Take
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.errors import ProjectLError
from projectl_sim.rl.codec import EncodingError, action_tokens

GAMES = {
    "base": {"players": 2, "black_deck_2p": 3},
    "solo": {"players": 1, "variant": "solo"},
    "line_clear_5": {"players": 5, "variant": "line_clear", "black_deck_5p": 3},
    "all_expansions": {"players": 3, "expansions": "all", "black_deck_3p": 3},
    "known_victory_points": {"players": 2, "known_victory_points": True, "black_deck_2p": 3},
}


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_random_sim_test_with_serialization(name: str) -> None:
    game = pyspiel.load_game("python_project_l", GAMES[name])
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_information_follows_known_victory_points() -> None:
    info = pyspiel.GameType.Information
    hidden = pyspiel.load_game("python_project_l", {"players": 3})
    known = pyspiel.load_game("python_project_l", {"players": 3, "known_victory_points": True})
    assert hidden.get_type().information == info.IMPERFECT_INFORMATION
    assert known.get_type().information == info.PERFECT_INFORMATION
    assert hidden.num_distinct_actions() == 87 + 0  # the base game's tokens, 3 players too
    with pytest.raises(ProjectLError, match="endless_white_deck"):
        pyspiel.load_game("python_project_l", {"players": 2, "endless_white_deck": True})


class _ISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTS, with the two calls evaluate_bots makes of every bot."""

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def inform_action(self, state: pyspiel.State, player: int, action: int) -> None:
        pass


def test_evaluate_bots_plays_ismcts_and_mcts() -> None:
    rng = np.random.RandomState(0)
    hidden = pyspiel.load_game("python_project_l", GAMES["base"])
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bots = [
        _ISMCTS(hidden, evaluator, 1.4, 8, random_state=np.random.RandomState(2)),
        UniformRandomBot(1, np.random.RandomState(3)),
    ]
    returns = evaluate_bots(hidden.new_initial_state(), bots, rng)
    assert sorted(returns) in ([0.0, 1.0], [0.5, 0.5])
    known = pyspiel.load_game("python_project_l", GAMES["known_victory_points"])
    bots = [
        UniformRandomBot(0, np.random.RandomState(4)),
        mcts.MCTSBot(known, 2, 8, evaluator, random_state=np.random.RandomState(5)),
    ]
    returns = evaluate_bots(known.new_initial_state(), bots, rng)
    assert sum(returns) == pytest.approx(1.0)


def _to_play(game: pyspiel.Game, seed: int) -> pyspiel.State:
    """Return a state at a player's decision, dealt at random."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        assert sum(probs) == pytest.approx(1.0)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    return state


def test_a_take_is_followed_by_a_chance_node_for_the_card_that_refills_the_row() -> None:
    game = pyspiel.load_game("python_project_l", {"players": 2})
    state = _to_play(game, 1)
    engine = state.state
    card = engine.rows[0][1]
    unseen = engine.unseen_cards(0)
    for token in action_tokens(game.vocab, engine, Take(card)):
        state.apply_action(token)
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert sorted(c for c, _ in outcomes) == sorted(unseen)
    assert all(p == pytest.approx(1 / len(unseen)) for _, p in outcomes)
    drawn = unseen[-1]
    state.apply_action(drawn)
    assert not state.is_chance_node()
    assert state.state.rows[0][1] == drawn  # the row refilled with chance's card, in its place
    assert card in state.state.unfinished(state.state.first_player)


def test_resampling_keeps_what_the_player_knows_and_deals_the_hidden_piles_again() -> None:
    game = pyspiel.load_game("python_project_l", {"players": 2})
    rng = np.random.RandomState(7)
    greedy, bot_rng = make_bot("greedy"), random.Random(7)
    state = game.new_initial_state()
    # greedy play until the other player has completed two puzzles, then resample
    while True:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        player = state.current_player()
        if len(state.state.piles[1 - player]) >= 2:
            break
        engine = state.state
        try:
            tokens = action_tokens(game.vocab, engine, greedy(engine.view(player), bot_rng))
        except EncodingError:  # greedy's own Finishing Touches plan: play a listed one
            tokens = [state.legal_actions()[0]]
        for token in tokens:
            state.apply_action(token)
    info = state.information_state_string(player)
    changed = 0
    for k in range(5):
        other = state.resample_from_infostate(player, lambda k=k: (k + 1) / 7)
        assert other.information_state_string(player) == info
        assert other.legal_actions() == state.legal_actions()
        changed += other.state.piles[1 - player] != state.state.piles[1 - player]
        check_invariants(other.state)
    assert changed >= 3


def test_illegal_actions_and_garbage_texts_are_value_errors() -> None:
    game = pyspiel.load_game("python_project_l", GAMES["base"])
    state = game.new_initial_state()
    with pytest.raises(ValueError, match="action 1000000 is not legal for chance"):
        state.apply_action(10**6)
    rng = random.Random(0)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    history = state.history()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(ValueError, match=f"action {illegal} is not legal for player"):
        state.apply_action(illegal)
    with pytest.raises(ValueError, match="got -1"):
        state.apply_action(-1)
    with pytest.raises(TypeError, match="got 'x'"):
        state.apply_action("x")
    assert state.history() == history  # refused before anything changed
    text = state.serialize()
    assert game.deserialize_state(text).history() == history
    with pytest.raises(ValueError, match="not a serialized python_project_l state"):
        game.deserialize_state("garbage")
    with pytest.raises(ValueError, match="history item 0: action 5000 is not legal"):
        game.deserialize_state(text.replace("history=", "history=-1:5000,", 1))
    with pytest.raises(ValueError, match="is not PLAYER:ACTION"):
        game.deserialize_state("history=-1:x\nmove_number=1\n")
