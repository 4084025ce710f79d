"""The PettingZoo environment: PettingZoo's own tests, and its agreement with the engine.

Games are kept short by the rules' own parameters (a black deck of 3 cards), so each library
test plays whole games in a fraction of a second.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from bots import make_bot
from bots.random_bot import with_credits
from projectl_sim import Rules, new_game
from projectl_sim.engine.record import replay
from projectl_sim.engine.state import FINISHING
from projectl_sim.errors import UsageError
from projectl_sim.expansions.finesse import paid_credits
from projectl_sim.rl import env, raw_env
from projectl_sim.rl.codec import Decision, EncodingError, Observer, Vocabulary, action_tokens
from projectl_sim.rl.options import make_rules, rule_options

# the four games the issue names: the base game, solo, Line Clear at 5 players, every expansion
GAMES = {
    "base": dict(players=2, black_deck_2p=3),
    "solo": dict(players=1, variant="solo"),
    "line_clear_5": dict(players=5, variant="line_clear", black_deck_5p=3),
    "all_expansions": dict(players=3, expansions="all", black_deck_3p=3),
}


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_and_seed_tests(name: str) -> None:
    kwargs = GAMES[name]
    with warnings.catch_warnings():
        # PettingZoo's checker warns that a dict observation "is not a NumPy array": the
        # convention of its own classic games, which warn the same
        warnings.simplefilter("ignore")
        api_test(env(**kwargs), num_cycles=1000)
        api_test(raw_env(**kwargs), num_cycles=300)
        seed_test(lambda: env(**kwargs), num_cycles=200)


@pytest.mark.parametrize("name", GAMES)
def test_random_play_records_a_game_that_replays_to_the_same_scores(name: str) -> None:
    e = raw_env(**GAMES[name])
    e.reset(seed=3)
    scores = None
    rng = random.Random(3)
    for _agent in e.agent_iter(100_000):
        obs, _reward, terminated, truncated, _info = e.last()
        if terminated or truncated:
            scores = scores or {a: e.infos[a]["score"] for a in e.possible_agents}
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    record = e.record()
    assert "result" in record and record["actions"]
    state = replay(record).state
    assert state.is_over
    assert state.final_scores() == [scores[a] for a in e.possible_agents]
    assert state.final_scores() == record["result"]["scores"]


def test_rewards_are_win_shares_and_the_score_is_in_info() -> None:
    e = raw_env(**GAMES["base"])
    e.reset(seed=11)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    rng = random.Random(0)
    for agent in e.agent_iter(100_000):
        obs, reward, terminated, truncated, info = e.last()
        totals[agent] += reward
        if terminated or truncated:
            assert info["winners"] == e.game.winners()
            e.step(None)
            continue
        assert reward == 0.0  # nothing before the end
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    winners = e.game.winners()
    assert sum(totals.values()) == pytest.approx(1.0)
    for i, a in enumerate(e.possible_agents):
        assert totals[a] == pytest.approx(1 / len(winners) if i in winners else 0.0)


def test_max_cycles_truncates_every_agent() -> None:
    e = raw_env(players=3, max_cycles=4)
    e.reset(seed=1)
    counts = dict.fromkeys(e.possible_agents, 0)
    rng = random.Random(1)
    for agent in e.agent_iter(1000):
        counts[agent] += 1
        obs, _r, terminated, truncated, _i = e.last()
        e.step(
            None
            if terminated or truncated
            else rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        )
    assert e.game.end_reason == "max_cycles"
    assert max(counts.values()) == 4 + 1  # four steps, then the step that removes the agent
    assert not e.agents


def test_illegal_token_raises_in_the_raw_env_and_ends_the_game_in_env() -> None:
    raw = raw_env(players=2)
    raw.reset(seed=0)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        raw.step(illegal)
    wrapped = env(players=2)
    wrapped.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert min(wrapped.rewards.values()) == -1


def test_bad_rules_options_are_one_line_errors() -> None:
    with pytest.raises(UsageError, match="rules option"):
        raw_env(players=2, max_round=3)
    with pytest.raises(UsageError, match="line_clear"):
        raw_env(players=5)
    assert make_rules(players=2, black_deck_2p="5").black_deck_2p == 5
    assert {"known_victory_points", "row_size", "difficulty"} <= set(rule_options())


def test_render_draws_the_text_board() -> None:
    e = raw_env(players=2, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "white row" in text and "player 1" in text
    token = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[-1])
    e.step(token)  # the last legal token: a Place's slot (a sub-step), or a whole action
    assert isinstance(e.render(), str)


# -- the sub-step encoding reaches exactly the engine's legal actions -----------------------------
def _reached(decision: Decision, out: list) -> None:
    for tok in decision.tokens():
        d = decision.copy()
        action = d.push(tok)
        if action is None:
            _reached(d, out)
        else:
            out.append(action)


def _engine_actions(state) -> list:
    acts = state.legal_actions()
    if state.phase == FINISHING:  # and each Finish paid with the most Credits (Finesse)
        acts += [with_credits(state, a) for a in acts if paid_credits(with_credits(state, a))]
    return acts


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2, black_deck_2p=4),
        Rules(players=1, variant="solo"),
        Rules(players=5, variant="line_clear", black_deck_5p=4),
        Rules(players=3, expansions={"ghost_piece", "ambassador_pack", "finesse"}, black_deck_3p=4),
        Rules(
            players=2, expansions={"ghost_piece", "finesse"}, ghost_action="free", black_deck_2p=4
        ),
    ],
    ids=["base", "solo", "line_clear", "expansions", "free_ghost"],
)
def test_token_sequences_reach_exactly_the_engine_actions(rules: Rules) -> None:
    vocab = Vocabulary(rules)
    rng = random.Random(5)
    positions = masters = finishes = 0
    for seed in range(3):
        state = new_game(rules, seed=seed)
        while not state.is_over:
            want = _engine_actions(state)
            decision = Decision(vocab, state)
            if len(want) <= 5000:
                got: list = []
                _reached(decision, got)
                assert len(got) == len(set(got))
                assert set(got) == set(want)
                positions += 1
                masters += any(a.kind in ("master", "ambassador", "insert") for a in want)
                finishes += state.phase == FINISHING
                for a in rng.sample(want, min(20, len(want))):
                    d = Decision(vocab, state)
                    made = None
                    for tok in action_tokens(vocab, state, a):
                        made = d.push(tok)
                    assert made == a
            state.step(state.to_move(), rng.choice(want))
    assert positions > 30 and masters > 5 and finishes >= 2


def test_hidden_information_does_not_reach_the_observation() -> None:
    rules = Rules(players=3, expansions={"finesse"})
    vocab = Vocabulary(rules)
    observer = Observer(vocab)
    rng = random.Random(2)
    greedy = make_bot("greedy")
    state = new_game(rules, seed=4)
    while not (state.round >= 4 and all(len(state.piles[q]) >= 1 for q in (1, 2))):
        seat = state.to_move()
        state.step(seat, greedy(state.view(seat), rng))
    before = [observer.observe(state, q) for q in range(3)]
    # hidden from seat 0: the deck order, the cards of the others' piles, face-down tiles
    other = state.redeal(random.Random(9))
    assert other.decks != state.decks
    cat = rules.catalogue
    pile_card = other.piles[1][0]
    colour = cat.puzzles[pile_card].colour
    swap = (
        next(
            c
            for c in other.unseen_cards(0 if colour == "white" else 1)
            if c not in other.decks[0] + other.decks[1]
        )
        if colour == "black"
        else other.decks[0][0]
    )
    if swap in other.decks[0]:
        deck = list(other.decks[0])
        deck[deck.index(swap)] = pile_card
        other.decks = (tuple(deck), other.decks[1])
    other.piles = (other.piles[0], (swap, *other.piles[1][1:]), *other.piles[2:])
    gain = cat.puzzles[swap].points - cat.puzzles[pile_card].points
    other.scores = (other.scores[0], other.scores[1] + gain, *other.scores[2:])
    fin = other.block("finesse")
    fin.row = (fin.row[1], fin.row[0], *fin.row[2:])  # the two face-down tiles swap places
    assert np.array_equal(observer.observe(other, 0), before[0])
    assert np.array_equal(observer.observe(other, 2), before[2])
    assert not np.array_equal(observer.observe(other, 1), before[1])  # seat 1 knows its pile


def test_encoding_refuses_a_users_action_kinds() -> None:
    from typing import ClassVar

    from projectl_sim import Expansion
    from projectl_sim.registry import register_expansion, unregister_expansion

    class Dance(Expansion):
        name: ClassVar[str] = "rl_test_dance"
        action_kinds: ClassVar[tuple[str, ...]] = ("dance",)

    register_expansion(Dance)
    try:
        with pytest.raises(EncodingError, match="dance"):
            Vocabulary(Rules(players=2, expansions={"rl_test_dance"}))
    finally:  # the registry is the process's: the next test in this worker must not see it
        unregister_expansion("rl_test_dance")


@pytest.mark.parametrize(
    ("kwargs", "error", "named"),
    [
        (dict(expansions=["ghost_piece", 7]), TypeError, "expansions"),
        (dict(expansions=3), TypeError, "expansions"),
        (dict(max_cycles="ten"), TypeError, "max_cycles"),
        (dict(max_cycles=1.5), TypeError, "max_cycles"),
        (dict(max_cycles=0), ValueError, "max_cycles"),
        (dict(players="two"), TypeError, "players"),
        (dict(players=9), ValueError, "players"),
        (dict(variant=3), TypeError, "variant"),
        (dict(render_mode="rgb"), ValueError, "render_mode"),
        (dict(rules="standard"), TypeError, "rules"),
    ],
)
def test_bad_constructor_arguments_name_the_parameter(kwargs, error, named) -> None:
    with pytest.raises(error, match=named) as caught:
        env(**kwargs)
    assert isinstance(caught.value, UsageError)  # one line on the command line too


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
def test_bad_seed_action_and_order_name_the_problem(make) -> None:
    e = make(players=2)
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        e.step(0)
    with pytest.raises(RuntimeError, match=r"observe\(\) before reset\(\)"):
        e.observe("player_0")
    with pytest.raises(ValueError, match="seed must be a whole number >= 0"):
        e.reset(seed=-1)
    with pytest.raises(TypeError, match="seed must be a whole number"):
        e.reset(seed="abc")
    e.reset(seed=np.int64(3))  # numpy's integers are whole numbers
    assert e.unwrapped.game_seed == 3
    with pytest.raises(TypeError, match="action must be a token"):
        e.step("zz")
    with pytest.raises(ValueError, match="action must be a token 0-86, got 1000"):
        e.step(1000)
    legal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
    e.step(legal)  # the refused calls changed nothing: the game goes on
