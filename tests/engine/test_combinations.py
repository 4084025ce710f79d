"""Every legal combination (expansion subset x variant x player count, with and without the
Endless White Deck): random play keeps every invariant after every action, its record replays
to the same result, and the heuristic bot plays it too."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.engine import OVER, GameState
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay
from projectl_sim.rules import every_combination


def _name(rules: Rules) -> str:
    names = "+".join(sorted(rules.expansions)) or "none"
    endless = "-endless" if rules.endless_white_deck else ""
    tiles = "-ambassador_tiles" if rules.finesse_ambassador else ""
    return f"{rules.variant}-{rules.players}p-{names}{endless}{tiles}"


# Every combination, with and without the Endless White Deck, and each Finesse one also dealt from
# the Finesse Ambassador Pack tiles.
COMBINATIONS = (
    every_combination()
    + every_combination(endless_white_deck=True)
    + [replace(r, finesse_ambassador=True) for r in every_combination() if r.finesse]
)


def _check(state: GameState, _p: int, _a: object) -> None:
    check_invariants(state)


@pytest.mark.parametrize("rules", COMBINATIONS, ids=_name)
def test_random_play_in_every_combination(rules: Rules) -> None:
    ended_by_rules = 0
    games = 3
    for seed in range(games):
        outcome = play_game(rules, [make_bot("random")] * rules.players, seed, on_step=_check)
        state = outcome.state
        assert state.phase == OVER
        ended_by_rules += state.end_reason == "rules"
        again = replay(outcome.record_json()).state
        assert again.final_scores() == state.final_scores()
        assert again.winners() == state.winners()
    assert ended_by_rules >= 1, "no random game of this combination ended by the rules"


@pytest.mark.parametrize("rules", every_combination(), ids=_name)
def test_the_heuristic_plays_every_combination(rules: Rules) -> None:
    bots = [make_bot("greedy")] + [make_bot("random")] * (rules.players - 1)
    outcome = play_game(rules, bots, 11, on_step=_check)
    assert outcome.state.phase == OVER
    assert outcome.state.end_reason == "rules"
