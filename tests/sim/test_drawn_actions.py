"""The random bot's promise of engine-drawn answers: the same games with and without it.

``play_game`` applies a promising bot's answers unchecked and refreshes its seat's view in place;
a subclass of the random bot inherits its decisions but not its promise, so its games take the
checked path with a new view each decision. Every game must be the same move for move, and the
checked path raises on any answer that is not legal, so these games also check the promise.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from bots.base import Bot
from bots.random_bot import RandomBot
from projectl_sim import Rules
from projectl_sim.engine import GameState, new_game
from projectl_sim.engine.actions import Action
from projectl_sim.engine.moves import view_again
from projectl_sim.sim.play import play_game


class CheckedRandom(RandomBot):
    """The random bot's decisions, without its promise (a subclass does not inherit it)."""


RULES = [
    {"players": 2},
    {"players": 3},
    {"players": 4, "known_victory_points": True},
    {"players": 2, "expansions": {"finesse"}},
    {"players": 3, "expansions": {"ghost_piece"}},
    {"players": 2, "expansions": {"ambassador_pack"}, "endless_white_deck": True},
    {"players": 2, "expansions": {"phoenix", "finesse", "ghost_piece"}},
    {"players": 1, "variant": "solo"},
    {"players": 5, "variant": "line_clear"},
]


def _moves(rules: Rules, bots: list[Bot], seed: int) -> tuple[list[tuple[int, Action]], object]:
    outcome = play_game(rules, bots, seed)
    assert outcome.record is not None
    return outcome.record.moves, outcome.state.final_scores()


@pytest.mark.parametrize("options", RULES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_promised_and_checked_games_are_the_same(options: dict[str, object]) -> None:
    rules = Rules(**options)  # type: ignore[arg-type]
    assert RandomBot().draws_legal_actions() and not CheckedRandom().draws_legal_actions()
    for seed in np.random.SeedSequence(51).generate_state(6):
        fast = _moves(rules, [RandomBot() for _ in range(rules.players)], int(seed))
        checked = _moves(rules, [CheckedRandom() for _ in range(rules.players)], int(seed))
        assert fast == checked


def _fields(g: GameState) -> dict[str, object]:
    names = [
        "rules", "tables", "hooks", "n", "max_unfinished", "actions_per_turn", "reserve",
        "supply", "slots", "piles", "scores", "ft_pieces", "first_player", "cards_in_play",
        "current", "rows", "decks", "known_bottom", "actions_left", "master_used", "round",
        "turn", "trigger_round", "black_taken", "phase", "pending", "reward_options",
        "finished", "end_reason", "last_progress_round", "viewer", "blocks",
    ]  # fmt: skip
    out = {name: getattr(g, name) for name in names}
    out["blocks"] = [_data(b) for b in g.blocks]  # an expansion's block: its data fields
    return out


def _data(block: object) -> object:
    if block is None:
        return None
    names = [k for k in dir(block) if not k.startswith("__")]
    return {k: getattr(block, k) for k in names if not callable(getattr(block, k))}


@pytest.mark.parametrize("options", RULES[:7], ids=str)
def test_a_view_refreshed_in_place_equals_a_new_one(options: dict[str, object]) -> None:
    rules = Rules(**options)  # type: ignore[arg-type]
    rng = random.Random(5)
    state = new_game(rules, seed=51)
    bot = RandomBot()
    kept = [state.view(p) for p in range(rules.players)]
    steps = 0
    while not state.is_over:
        seat = state.current
        view_again(state, kept[seat], seat)
        new = state.view(seat)
        assert _fields(kept[seat]) == _fields(new)
        # what the kept view holds is its own: no list of the state's
        for name in ("reserve", "supply", "slots", "piles", "scores", "rows", "decks"):
            assert getattr(kept[seat], name) is not getattr(state, name)
        state.step(seat, bot(new, rng))
        steps += 1
    assert steps > 20
