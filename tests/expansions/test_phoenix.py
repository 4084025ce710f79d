"""Phoenix: 7 black puzzles worth 6 points (rulings, "Other expansions and variants"). The shapes
are not public: the shipped set is provisional. The tests check the data's claims, then show
that the engine plays it as it is (nothing in the engine is Phoenix's): a golden record completing
a Phoenix puzzle (``tests/records/phoenix/complete.json``, built by
``tests/ambassador_records.py``) and random play with invariants.
"""

from __future__ import annotations

import pytest
from records_util import ids, load, prefix, supply

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay
from projectl_sim.loading import base_catalogue
from projectl_sim.tiling.fill import can_tile

PHOENIX = frozenset({"phoenix"})


def phoenix_puzzles():
    cat = Rules(expansions=PHOENIX).catalogue
    return cat, [p for p in cat.puzzles if p.expansion == "phoenix"]


def test_seven_provisional_black_puzzles_worth_six_points() -> None:
    cat, puzzles = phoenix_puzzles()
    assert len(puzzles) == 7
    assert all(p.is_black and p.points == 6 and p.provisional for p in puzzles)
    assert "phoenix" in cat.provisional_sets and cat.provisional
    assert len(cat.of_colour("black")) == 20 + 7 and len(cat.of_colour("white")) == 32


def test_recesses_are_larger_than_every_five_point_puzzle() -> None:
    base = base_catalogue()
    five = max(p.recess.bit_count() for p in base.puzzles if p.points == 5)
    _, puzzles = phoenix_puzzles()
    assert min(p.recess.bit_count() for p in puzzles) > five


def test_rewards_are_small_pieces() -> None:
    cat, puzzles = phoenix_puzzles()
    levels = {p.id: p.level for p in cat.pieces}
    # small: at most a domino (the 5-point base puzzles reward a mono)
    assert all(p.reward in levels and levels[p.reward] <= 2 for p in puzzles)


def test_every_recess_is_fillable_with_level_1_to_4_pieces() -> None:
    cat, puzzles = phoenix_puzzles()
    pieces = [p.copies if p.level <= 4 else 0 for p in cat.pieces]
    for p in puzzles:
        assert can_tile(cat, p.recess, pieces), p.id


def test_the_golden_record_completes_a_phoenix_puzzle() -> None:
    rec = load("phoenix/complete")
    # the last of p0's 18 actions of rounds 2-7 is action 38: the domino that completes PB07
    before = replay(prefix(rec, 38)).state
    assert ids(before, before.unfinished(0)) == ["PB07"] and before.scores[0] == 0
    after = replay(prefix(rec, 39)).state
    assert ids(after, after.piles[0]) == ["PB07"] and after.scores[0] == 6
    # the 4 tet_I and the domino come back, and the reward domino joins them
    assert supply(after, 0) == {"domino": 2, "tet_I": 4}
    end = replay(rec).state
    assert end.final_scores()[0] == 6 and end.winners() == [0]
    assert rec["result"]["completed"] == [1, 0]


@pytest.mark.parametrize(
    ("players", "variant", "expansions"),
    [
        (2, "standard", PHOENIX),
        (4, "standard", PHOENIX),
        (3, "standard", frozenset({"phoenix", "finesse"})),
        (1, "solo", PHOENIX),
        (2, "standard", frozenset({"phoenix", "ambassador_pack", "finesse"})),
    ],
)
def test_random_play_keeps_every_invariant_and_replays(
    players: int, variant: str, expansions: frozenset[str]
) -> None:
    rules = Rules(players=players, variant=variant, expansions=expansions)
    phoenix_done = 0

    def check(state, _p, _a) -> None:
        check_invariants(state)

    for seed in range(40):
        outcome = play_game(rules, [make_bot("random")] * players, seed, on_step=check)
        state = outcome.state
        again = replay(outcome.record_json()).state
        assert again.final_scores() == state.final_scores()
        cat = state.catalogue
        phoenix_done += sum(
            cat.puzzles[c].expansion == "phoenix" for pile in state.piles for c in pile
        )
    assert phoenix_done > 0  # the random bot completes a few 17-18 cell puzzles


def test_greedy_completes_phoenix_puzzles() -> None:
    rules = Rules(players=2, expansions=PHOENIX)
    done = 0
    for seed in range(6):
        state = play_game(rules, [make_bot("greedy")] * 2, seed, record=False).state
        done += sum(state.tables.points[c] == 6 for pile in state.piles for c in pile)
    assert done > 0
