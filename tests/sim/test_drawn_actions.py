"""The random bot's promise of engine-drawn answers: the same games with and without it.

``play_game`` applies a promising bot's answers unchecked; a subclass of the random bot inherits
its decisions but not its promise, so its games take the checked path. Every game must be the same
move for move, and the checked path raises on any answer that is not legal, so these games also
check the promise.
"""

from __future__ import annotations

import numpy as np
import pytest

from bots.base import Bot
from bots.random_bot import RandomBot
from projectl_sim import Rules
from projectl_sim.engine.actions import Action
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


def _id(options: dict[str, object]) -> str:
    """A test id that is the same in every process (a set's order is not: hashes are salted)."""
    return ",".join(
        f"{k}={'+'.join(sorted(v)) if isinstance(v, (set, frozenset)) else v}"
        for k, v in options.items()
    )


@pytest.mark.parametrize("options", RULES, ids=_id)
def test_promised_and_checked_games_are_the_same(options: dict[str, object]) -> None:
    rules = Rules(**options)  # type: ignore[arg-type]
    assert RandomBot().draws_legal_actions() and not CheckedRandom().draws_legal_actions()
    for seed in np.random.SeedSequence(51).generate_state(6):
        fast = _moves(rules, [RandomBot() for _ in range(rules.players)], int(seed))
        checked = _moves(rules, [CheckedRandom() for _ in range(rules.players)], int(seed))
        assert fast == checked
