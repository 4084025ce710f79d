"""The Gymnasium wrapper: Gymnasium's own checker, and one seat against projectl-sim bots."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import projectl_sim.rl  # noqa: F401  (registers projectl_sim/ProjectL-v0)
from projectl_sim import play_game
from projectl_sim.engine.record import replay
from projectl_sim.errors import UsageError
from projectl_sim.rl.gym_env import ProjectLEnv

GAMES = {
    "base_vs_greedy": dict(opponents="greedy,greedy", black_deck_3p=3),
    "solo": dict(opponents="", variant="solo"),
    "line_clear_5": dict(
        opponents="random,random,random,random", variant="line_clear", black_deck_5p=3
    ),
    "all_expansions": dict(opponents="random", expansions="all", black_deck_2p=3),
}


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_check_env(name: str) -> None:
    e = gymnasium.make("projectl_sim/ProjectL-v0", **GAMES[name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's advice on render fps and the like
        check_env(e.unwrapped)


def _play(e, seed: int) -> tuple[float, dict]:
    obs, info = e.reset(seed=seed)
    rng = random.Random(seed)
    while True:
        token = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, reward, terminated, truncated, info = e.step(token)
        if terminated or truncated:
            return reward, info


def test_opponents_are_the_bots_and_the_record_replays() -> None:
    e = gymnasium.make("projectl_sim/ProjectL-v0", opponents="greedy", seat=1)
    # a deal where the greedy seat moves first (its turn is played before reset returns)
    seed = next(s for s in range(20) if e.reset(seed=s) and e.unwrapped.record()["actions"])
    reward, info = _play(e, seed=seed)
    record = e.unwrapped.record()
    assert record["seats"] == ["greedy", "rl"]
    state = replay(record).state
    assert state.final_scores()[1] == info["score"]
    assert reward == (1.0 / len(state.winners()) if 1 in state.winners() else 0.0)
    # the greedy seat decided as play_game's greedy does on the same seed: its actions there
    # match the record's until the learner's seat first acts
    from bots import make_bot

    outcome = play_game(e.unwrapped.rules, [make_bot("greedy"), make_bot("greedy")], seed)
    ours = record["actions"]
    theirs = outcome.record_json()["actions"]
    first_rl = next(i for i, a in enumerate(ours) if a["player"] == 1)
    assert first_rl > 0 and ours[:first_rl] == theirs[:first_rl]


def test_an_illegal_token_ends_the_episode_with_the_penalty() -> None:
    e = gymnasium.make("projectl_sim/ProjectL-v0", opponents="random")
    obs, _ = e.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _obs, reward, terminated, truncated, info = e.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == illegal


def test_opponents_must_fill_the_table() -> None:
    with pytest.raises(UsageError, match="solo variant is for 1 player"):
        gymnasium.make("projectl_sim/ProjectL-v0", opponents="random", variant="solo")


@pytest.mark.parametrize(
    ("kwargs", "error", "named"),
    [
        (dict(max_steps=0), ValueError, "max_steps"),
        (dict(max_steps="5"), TypeError, "max_steps"),
        (dict(illegal_reward=float("nan")), ValueError, "illegal_reward"),
        (dict(illegal_reward="low"), TypeError, "illegal_reward"),
        (dict(seat="a"), TypeError, "seat"),
        (dict(seat=2), ValueError, "seat must be 0-1"),
        (dict(opponents=5), TypeError, "opponents"),
        (dict(opponents="nobot"), ValueError, "opponents: unknown bot"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs, error, named) -> None:
    with pytest.raises(error, match=named):
        ProjectLEnv(**kwargs)


def test_steps_out_of_order_or_out_of_the_space_are_gymnasium_errors() -> None:
    e = ProjectLEnv(opponents="random", black_deck_2p=3)
    with pytest.raises(gymnasium.error.ResetNeeded, match="before reset"):
        e.step(0)
    obs, _ = e.reset(seed=1)
    with pytest.raises(gymnasium.error.InvalidAction, match="action must be a token"):
        e.step("x")
    with pytest.raises(gymnasium.error.InvalidAction, match="got 1000000"):
        e.step(10**6)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, _ = e.step(illegal)  # in the space, not legal: the episode ends
    assert (reward, terminated) == (-1.0, True)
    with pytest.raises(gymnasium.error.ResetNeeded, match="episode's end"):
        e.step(illegal)
