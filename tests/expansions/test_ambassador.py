"""The Ambassador Pack: one test (at least) per ruling of /work/shared/rules/README.md, "Other
expansions and variants" (and the readings in ``projectl_sim.expansions.ambassador_pack``),
mostly by replaying
the golden records ``tests/records/ambassador/*.json`` (built by ``tests/ambassador_records.py``,
whose docstrings work the expectations out by hand). Then listing and sampling, views, random
play with invariants, and the bots.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from records_util import extend, finesse_test_tiles, ids, load, placement, prefix, supply
from state_util import play_steps

from bots import make_bot
from projectl_sim import IllegalActionError, Rules, play_game
from projectl_sim.engine import FINISHING, GameState, new_game
from projectl_sim.engine.actions import Master
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay, summary_json
from projectl_sim.expansions.ambassador_pack import (
    REWARD_AMBASSADOR,
    Ambassador,
    ambassador_actions,
    sample_ambassador,
)
from projectl_sim.expansions.ambassador_pack import ambassadors as ambassadors_of
from projectl_sim.expansions.finesse import Insert
from projectl_sim.expansions.finesse import credits as credits_of

AMB = frozenset({"ambassador_pack"})
TILES = finesse_test_tiles()


def run(name: str, n: int | None = None) -> GameState:
    """Replay the first ``n`` actions of a golden record (all when None)."""
    rec = load(name)
    return replay(rec if n is None else prefix(rec, n), finesse_tiles=TILES).state


def held(state: GameState, p: int = 0) -> tuple[int, int]:
    """Return ``(held, used)`` Ambassadors of a player."""
    assert ambassadors_of(state) is not None
    return ambassadors_of(state).held[p], ambassadors_of(state).used[p]


# -- the puzzles -----------------------------------------------------------------------------------
def test_the_pack_is_one_white_and_two_black_provisional_puzzles_rewarding_an_ambassador() -> None:
    cat = Rules(expansions=AMB).catalogue
    pack = [p for p in cat.puzzles if p.expansion == "ambassador_pack"]
    assert sorted(p.colour for p in pack) == ["black", "black", "white"]
    assert all(p.provisional and p.gives_ambassador for p in pack)
    t = new_game(Rules(expansions=AMB), seed=1).tables
    assert [t.reward[p.index] for p in pack] == [REWARD_AMBASSADOR] * 3


# -- gaining and using -----------------------------------------------------------------------------
def test_completing_an_ambassador_puzzle_gives_one_ambassador() -> None:
    # use_twice, round 3: p0's domino completes AW01 (action 13): 1 point, an Ambassador
    before, after = run("ambassador/use_twice", 13), run("ambassador/use_twice", 14)
    assert held(before) == (0, 0) and held(after) == (1, 0)
    assert ids(after, after.piles[0]) == ["AW01"] and after.scores[0] == 1
    assert (
        summary_json(replay(prefix(load("ambassador/use_twice"), 14)))["players"][0]["ambassadors"]
        == 1
    )
    # AB01 (action 24) gives the second: two held at once
    assert held(run("ambassador/use_twice", 25)) == (2, 0)


def test_two_ambassadors_in_one_turn_around_the_turns_master() -> None:
    # round 7: Ambassador (36), Master (37), Ambassador (38): three multi-placements in a turn
    start = run("ambassador/use_twice", 36)
    assert start.round == 7 and held(start) == (2, 0) and not start.master_used
    one = run("ambassador/use_twice", 37)
    assert held(one) == (1, 1) and not one.master_used  # an Ambassador is not the Master
    assert one.actions_left == 2  # but it is one of the 3 actions (a decision)
    two = run("ambassador/use_twice", 38)
    assert held(two) == (1, 1) and two.master_used  # the Master needs no Ambassador
    assert ids(two, two.piles[0]) == ["AW01", "AB01", "W10", "W13"]
    end = run("ambassador/use_twice")  # the second Ambassador: W12 completed, the turn over
    assert held(end) == (0, 2) and end.current == 1
    assert ids(end, end.piles[0])[-1] == "W12" and end.scores[0] == 7
    # rewards W10 domino, W13 tri_L, W12 domino, with every piece placed back
    assert supply(end, 0) == {"mono": 2, "domino": 5, "tri_L": 2}


def test_ambassador_placements_come_from_the_supply_as_it_was() -> None:
    # Master's rule: one piece per puzzle, all from the supply as it was when the action began
    rec = prefix(load("ambassador/use_twice"), 36)
    state = replay(rec).state
    w10 = placement("W10", "domino", [[1, 2], [2, 2]])
    two_on_one = extend(
        rec, {"player": 0, "type": "ambassador", "placements": [w10, w10 | {"cells": [[3, 2]]}]}
    )
    with pytest.raises(IllegalActionError, match="places two pieces on W10 in one action"):
        replay(two_on_one)
    assert state.supply[0][state.catalogue.piece_index("tri_I")] == 0
    no_piece = extend(
        rec,
        {
            "player": 0,
            "type": "ambassador",
            "placements": [placement("W10", "tri_I", [[1, 2], [2, 2], [3, 2]])],
        },
    )
    with pytest.raises(IllegalActionError, match="needs a tri_I the supply does not have"):
        replay(no_piece)


def test_an_ambassador_needs_one_held_and_the_expansion() -> None:
    rec = load("ambassador/use_twice")
    third = {"player": 0, "type": "ambassador", "placements": []}
    # after round 7 it is p1's turn; give p0's third use on its own turn: round 3, none held yet
    early = extend(prefix(rec, 12), third | {"placements": [placement("AW01", "mono", [[1, 2]])]})
    with pytest.raises(IllegalActionError, match="has no Ambassador to use"):
        replay(early)
    empty = extend(prefix(rec, 36), third)
    with pytest.raises(IllegalActionError, match="needs at least one placement"):
        replay(empty)
    base = replay(load("master")).state
    with pytest.raises(IllegalActionError, match="need the ambassador_pack expansion"):
        base.check(base.current, Ambassador(((0, 0, 1),)))


def test_no_ambassador_during_finishing_touches_and_no_reward_then() -> None:
    state = run(
        "ambassador/finishing_touches", len(load("ambassador/finishing_touches")["actions"]) - 2
    )
    assert state.phase == FINISHING and held(state) == (1, 0)
    w22 = state.catalogue.puzzle_index("W22")
    dom = state.catalogue.piece_index("domino")
    mask = next(iter(state.tables.place_actions(w22, state.tables.recess[w22])[dom])).mask
    with pytest.raises(IllegalActionError, match="only Finishing Touches are allowed now"):
        state.check(0, Ambassador(((w22, dom, mask),)))
    assert not [a for a in state.legal_actions() if isinstance(a, Ambassador)]
    assert list(ambassador_actions(state)) == []
    end = run("ambassador/finishing_touches")
    # W22 completed in Finishing Touches (its domino reward is not given either); the
    # Ambassador stays unused and scores nothing
    assert ids(end, end.piles[0]) == ["AW01", "W22"] and held(end) == (1, 0)
    assert end.final_scores()[0] == 1 + 0 - 1
    assert load("ambassador/finishing_touches")["result"]["ambassadors"] == [1, 0]


def test_the_master_tile_counts_ambassador_pieces_and_insert_carries_an_ambassador() -> None:
    # finesse_master_tile: round 3's tile is C02 ("Using Master": Master or Ambassador); the
    # Ambassador places 2 pieces (action 13): 2 Credits, inactive until the end of the turn
    name = "ambassador/finesse_master_tile"
    assert credits_of(run(name, 13)).inactive[0] == 0  # type: ignore[union-attr]
    after = run(name, 14)
    assert credits_of(after) is not None and credits_of(after).inactive[0] == 2
    assert credits_of(run(name)).active[0] == 2  # type: ignore[union-attr]
    # Insert may carry an Ambassador: with 2 active Credits and an Ambassador (round 3, before
    # using it), the Insert is legal, listed, and leaves the 3 actions untouched
    state = run(name, 13)
    assert credits_of(state) is not None
    credits_of(state).gain(0, 2)  # as if an earlier tile had paid
    credits_of(state).activate(0)
    amb = next(a for a in state.legal_actions() if isinstance(a, Ambassador))
    assert Insert(amb) in state.legal_actions()
    left = state.actions_left
    state.step(0, Insert(amb))
    assert held(state) == (0, 1) and state.actions_left == left
    check_invariants(state)


def test_the_solo_mastermind_taking_an_ambassador_puzzle_gets_nothing() -> None:
    state = run("ambassador/solo_mastermind")
    assert state.solo is not None and ids(state, state.solo.opponent_pile) == ["AW01"]
    assert state.solo.opponent_score == 1 and held(state) == (0, 0)
    # its 6 pieces and the 4 locks, less the 3 the unlock returned: no reward piece either
    assert sum(map(len, state.solo.locks)) + len(state.solo.opponent_supply) == 7
    check_invariants(state)


# -- listing and sampling --------------------------------------------------------------------------
def test_listing_reuses_master_enumeration_and_sampling_agrees() -> None:
    state = run("ambassador/use_twice", 36)  # two Ambassadors, three puzzles
    masters = list(state.master_actions())
    ambassadors = list(ambassador_actions(state))
    assert ambassadors and [a.placements for a in ambassadors] == [m.placements for m in masters]
    listed = state.legal_actions()
    assert set(ambassadors) <= set(listed)
    assert not [
        a for a in state.legal_actions(master="none") if isinstance(a, (Master, Ambassador))
    ]
    for a in ambassadors[:: max(1, len(ambassadors) // 40)]:
        state.check(0, a)
    rng = random.Random(3)
    members = set(ambassadors)
    for _ in range(50):
        sample = sample_ambassador(state, rng)
        assert sample is not None and sample in members
    none_held = run("ambassador/use_twice", 25)
    assert held(none_held) == (2, 0) and not none_held.slots[0]  # held, but no puzzle held
    assert list(ambassador_actions(none_held)) == []
    assert sample_ambassador(none_held, rng) is None
    spent = run("ambassador/use_twice")
    assert sample_ambassador(spent, rng) is None and list(ambassador_actions(spent)) == []


def test_ambassadors_are_public_and_copied() -> None:
    state = run("ambassador/use_twice", 37)
    view = state.view(1)
    assert ambassadors_of(view) == ambassadors_of(state)  # face up
    copy = state.copy()
    copy.step(0, next(a for a in copy.legal_actions() if isinstance(a, Master)))
    assert held(state) == (1, 1) and not state.master_used  # the original is untouched


# -- random play -----------------------------------------------------------------------------------
COMBOS = [
    (2, "standard", frozenset({"ambassador_pack"})),
    (3, "standard", frozenset({"ambassador_pack", "finesse"})),
    (4, "standard", frozenset({"ambassador_pack", "phoenix"})),
    (1, "solo", frozenset({"ambassador_pack"})),
    (1, "solo", frozenset({"ambassador_pack", "finesse", "phoenix"})),
]


@pytest.mark.parametrize(("players", "variant", "expansions"), COMBOS)
def test_random_play_keeps_every_invariant_and_replays(
    players: int, variant: str, expansions: frozenset[str]
) -> None:
    rules = Rules(players=players, variant=variant, expansions=expansions)
    kinds: Counter[str] = Counter()

    def check(state: GameState, _p: int, action: object) -> None:
        check_invariants(state)
        kinds[action.kind] += 1  # type: ignore[attr-defined]
        inner = getattr(action, "inner", None)
        if inner is not None:
            kinds["insert " + inner.kind] += 1

    games = 40
    for seed in range(games):
        outcome = play_game(rules, [make_bot("random")] * players, seed, on_step=check)
        rec = outcome.record_json()
        again = replay(rec).state
        assert again.final_scores() == outcome.state.final_scores()
        assert rec["result"]["ambassadors"] == list(ambassadors_of(outcome.state).held)  # type: ignore[union-attr]
        check_invariants(outcome.state.view(0))
    assert kinds["reward"] + kinds["place"] > 0


def test_random_and_greedy_use_ambassadors() -> None:
    used = Counter()
    for spec in ("random", "greedy"):
        for seed in range(12):
            state = play_game(
                Rules(players=2, expansions=AMB), [make_bot(spec)] * 2, seed, record=False
            ).state
            used[spec] += sum(ambassadors_of(state).used)  # type: ignore[union-attr]
    assert used["random"] > 0 and used["greedy"] > 0, used


def test_greedy_beats_random_with_the_pack() -> None:
    rules = Rules(players=2, expansions=frozenset({"ambassador_pack", "phoenix"}))
    wins = 0.0
    for seed in range(8):
        for g in (0, 1):
            bots = [make_bot("random"), make_bot("random")]
            bots[g] = make_bot("greedy")
            w = play_game(rules, bots, seed, record=False).state.winners()
            wins += (g in w) / len(w) if w else 0
    assert wins >= 13


def test_a_bot_view_mid_game_is_checkable() -> None:
    state = play_steps(Rules(players=3, expansions=AMB), 5, 150)
    for p in range(3):
        check_invariants(state.view(p))
