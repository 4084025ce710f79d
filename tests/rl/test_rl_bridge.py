"""The bridge back: a PettingZoo or OpenSpiel policy seated at a projectl-sim table."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.engine.record import replay
from projectl_sim.errors import UsageError
from projectl_sim.sim.play import BotError

POLICY = """
import numpy as np
from open_spiel.python.bots.uniform_random import UniformRandomBot

def last_legal(observation, agent):
    return int(np.flatnonzero(observation["action_mask"])[-1])

def illegal(observation):
    return int(np.flatnonzero(observation["action_mask"] == 0)[0])

def uniform(game, player):
    return UniformRandomBot(player, np.random.RandomState(player))
"""


@pytest.fixture()
def policy_file(tmp_path: Path) -> str:
    path = tmp_path / "policy.py"
    path.write_text(POLICY)
    return str(path)


@pytest.mark.parametrize("callable_, extra", [("last_legal", ""), ("uniform", ":kind=openspiel")])
def test_a_policy_plays_a_game_whose_record_replays(
    policy_file: str, callable_: str, extra: str
) -> None:
    spec = f"rl:{policy_file}:{callable_}{extra}"
    bot = make_bot(spec)
    assert repr(bot) == f"rl:{policy_file}:{callable_}" + (extra.replace(":", ":", 1))
    rules = Rules(players=2, black_deck_2p=4)
    outcome = play_game(rules, [bot, make_bot("random")], 3)
    record = outcome.record_json()
    assert record["seats"][0] == repr(bot)
    assert replay(record).state.final_scores() == record["result"]["scores"]


def test_an_illegal_token_is_the_bots_illegal_action(policy_file: str) -> None:
    with pytest.raises(BotError, match="not legal"):
        play_game(Rules(players=2), [make_bot(f"rl:{policy_file}:illegal"), make_bot("random")], 1)


def test_bad_rl_sources_are_one_line_errors(policy_file: str) -> None:
    with pytest.raises(UsageError, match="has no 'nothing'"):
        make_bot(f"rl:{policy_file}:nothing")
    with pytest.raises(UsageError, match="no such file"):
        make_bot("rl:no/such/file.py:act")
    with pytest.raises(UsageError, match="kind"):
        make_bot(f"rl:{policy_file}:last_legal:kind=tensorflow")
