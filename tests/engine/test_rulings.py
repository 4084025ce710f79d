"""One test (at least) per base-game ruling of /work/shared/rules/README.md.

Most tests replay a short golden record from ``tests/records/`` (see ``records_util``) and assert
the state it reaches, or append one action and assert that replay refuses it, naming why. Where a
record would need dozens of filler actions (an empty reserve level, nothing left to do), the test
builds the state directly from ``new_game`` and steps it.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from typing import Any

import pytest
from records_util import (
    RECORDS_DIR,
    RecordBuilder,
    extend,
    ids,
    load,
    piece_ids,
    placement,
    prefix,
    replay_named,
    reserve,
    state_after,
    supply,
    white_deck,
    with_rules,
)

from projectl_sim import IllegalActionError, RecordError, Rules, new_game, read_record, replay
from projectl_sim.catalogue import cell_mask, mask_cells
from projectl_sim.engine import HIDDEN, GameState
from projectl_sim.engine.actions import Master, Place, Reward, Take, TakeBasic, Upgrade
from projectl_sim.engine.record import RecordMismatchError
from projectl_sim.loading import base_catalogue

CAT = base_catalogue()
BLACK12 = [f"B{i:02d}" for i in range(1, 13)]
V = [[2, 2], [3, 2]]  # the vertical domino recess of W09, W22 and W23
WHITE, BLACK = 0, 1


def illegal(index: int, player: int, text: str) -> str:
    """Return the pattern of replay's error for action ``index``: '<action> <why>'."""
    return re.escape(f"action {index} (player {player}): {text}")


def act(player: int, type: str, **fields: Any) -> dict[str, Any]:
    return {"player": player, "type": type, **fields}


def piece(name: str) -> int:
    return CAT.piece_index(name)


def card(name: str) -> int:
    return CAT.puzzle_index(name)


def fresh(players: int = 2, first_player: int = 0, **switches: Any) -> GameState:
    """Return a new game from an explicit setup (full white deck, 12 black puzzles)."""
    setup = {"first_player": first_player, "white_deck": white_deck(), "black_deck": BLACK12}
    return new_game(Rules(players=players, **switches), setup=setup)


def hold(state: GameState, player: int, *puzzles: str) -> None:
    """Give ``player`` empty unfinished puzzles (constructed states only)."""
    state.slots[player] = [(card(p), 0, ()) for p in puzzles]


def place(puzzle: str, piece_id: str, cells: list[list[int]]) -> Place:
    return Place(card(puzzle), piece(piece_id), cell_mask(cells))


def _pl(puzzle: str, piece_id: str, cells: list[list[int]]) -> tuple[int, int, int]:
    return (card(puzzle), piece(piece_id), cell_mask(cells))


def filled_cells(state: GameState, player: int, puzzle: str) -> list[tuple[int, int]]:
    for c, filled, _ in state.slots[player]:
        if c == card(puzzle):
            return mask_cells(filled)
    raise AssertionError(f"{puzzle} is not unfinished for player {player}")


def all_cards(state: GameState) -> list[int]:
    out = [c for row in state.rows for c in row]
    out += [c for deck in state.decks for c in deck]
    out += [c for slots in state.slots for c, _, _ in slots]
    out += [c for pile in state.piles for c in pile]
    return out


# -- Setup -----------------------------------------------------------------------------------------
def test_setup_rows_are_dealt_from_the_top_of_each_deck_left_to_right() -> None:
    state = replay_named("setup").state
    assert ids(state, state.rows[WHITE]) == ["W05", "W09", "W22", "W31"]
    assert ids(state, state.rows[BLACK]) == ["B11", "B03", "B20", "B07"]
    assert ids(state, state.decks[WHITE])[:2] == ["W27", "W01"]
    assert len(state.decks[WHITE]) == 28
    black_deck = ["B01", "B02", "B04", "B05", "B06", "B08", "B09", "B10"]
    assert ids(state, state.decks[BLACK]) == black_deck


def test_setup_each_player_starts_with_a_mono_and_a_domino_and_first_player_moves() -> None:
    state = replay_named("setup").state
    assert supply(state, 0) == supply(state, 1) == {"mono": 1, "domino": 1}
    assert reserve(state) == {
        "mono": 13, "domino": 13, "tri_I": 15, "tri_L": 15,
        "tet_I": 15, "tet_O": 15, "tet_T": 15, "tet_L": 15, "tet_S": 15,
    }  # fmt: skip
    assert (state.phase, state.round, state.current, state.actions_left) == ("play", 1, 1, 3)
    assert state.slots == [[], []] and state.piles == ((), ()) and state.scores == (0, 0)
    assert state.trigger_round == 0


@pytest.mark.parametrize(("players", "black"), [(2, 12), (3, 14), (4, 16)])
def test_setup_dealt_from_a_seed_has_the_black_deck_size_of_the_player_count(
    players: int, black: int
) -> None:
    record = {"format": "projectl-record/1", "rules": {"players": players}, "seed": 11}
    state = replay(record).state
    cards = all_cards(state)
    assert len(cards) == len(set(cards)) == 32 + black
    assert sum(CAT.puzzles[c].is_black for c in cards) == black
    assert [len(r) for r in state.rows] == [4, 4]
    assert state.supply == [[1, 1, 0, 0, 0, 0, 0, 0, 0]] * players


def test_setup_first_player_is_random() -> None:
    firsts = {new_game(Rules(players=3), seed=s).first_player for s in range(30)}
    assert firsts == {0, 1, 2}


# -- Turns -----------------------------------------------------------------------------------------
def test_a_turn_is_three_actions_repeats_allowed_then_the_next_player() -> None:
    record = load("turns")
    state = state_after(record, 2)
    assert (state.current, state.actions_left) == (0, 1)
    state = state_after(record, 3)
    assert (state.round, state.current, state.actions_left) == (1, 1, 3)
    assert supply(state, 0) == {"mono": 2, "domino": 2}  # take_basic twice, one upgrade
    state = state_after(record, 6)
    assert (state.round, state.current, state.actions_left) == (2, 0, 3)
    state = state_after(record)
    assert (state.round, state.current, state.actions_left) == (2, 0, 2)


def test_a_player_cannot_act_out_of_turn_nor_take_a_fourth_action() -> None:
    record = load("turns")
    take = "take a level-1 piece"  # take_basic, as the errors word it
    with pytest.raises(IllegalActionError, match=illegal(2, 1, f"{take} it is player 0")):
        replay(extend(prefix(record, 2), act(1, "take_basic")))
    with pytest.raises(IllegalActionError, match=illegal(3, 0, f"{take} it is player 1")):
        replay(extend(prefix(record, 3), act(0, "take_basic")))


# -- Take ------------------------------------------------------------------------------------------
def test_take_from_a_row_refills_that_slot_with_the_top_of_its_deck() -> None:
    record = load("take")
    state = state_after(record, 1)  # W09 taken from the third slot of W01 W02 W09 W04 | W05 ...
    assert ids(state, state.rows[WHITE]) == ["W01", "W02", "W05", "W04"]
    assert ids(state, state.decks[WHITE][:2]) == ["W06", "W07"]
    state = state_after(record)  # B02 taken by seat 1 from B01 B02 B03 B04 | B05 (blind) B06 ...
    assert ids(state, state.rows[BLACK]) == ["B01", "B06", "B03", "B04"]
    assert ids(state, state.decks[BLACK]) == ["B07", "B08", "B09", "B10", "B11", "B12"]
    assert ids(state, state.unfinished(1)) == ["B02"]


def test_take_blind_from_either_deck_takes_its_top_card_and_leaves_the_row() -> None:
    state = replay_named("take").state
    assert ids(state, state.unfinished(0)) == ["W09", "W06", "B05"]
    assert ids(state, state.rows[WHITE]) == ["W01", "W02", "W05", "W04"]
    assert ids(state, state.decks[WHITE][:2]) == ["W07", "W03"]


@pytest.mark.parametrize("puzzle", ["W07", "W09"])  # still in the deck; already taken
def test_take_a_puzzle_that_is_not_face_up_in_a_row_is_illegal(puzzle: str) -> None:
    record = load("take")
    with pytest.raises(
        IllegalActionError, match=illegal(6, 0, f"take {puzzle} {puzzle} is not in a row")
    ):
        replay(extend(record, act(0, "take", puzzle=puzzle)))


def test_take_at_most_four_unfinished_puzzles() -> None:
    record = load("max_unfinished")
    full = prefix(record, 7)  # seat 0 holds W09 W22 W23 W31
    assert len(state_after(full).slots[0]) == 4
    why = "already has 4 unfinished puzzles"
    with pytest.raises(IllegalActionError, match=illegal(7, 0, f"take W27 {why}")):
        replay(extend(full, act(0, "take", puzzle="W27")))
    with pytest.raises(
        IllegalActionError, match=illegal(7, 0, f"take blind from the black deck {why}")
    ):
        replay(extend(full, act(0, "take", deck="black")))
    state = replay(record).state  # completing W09 makes room again
    assert ids(state, state.unfinished(0)) == ["W22", "W23", "W31", "W27"]


# -- Recycle ---------------------------------------------------------------------------------------
def test_recycle_puts_the_row_under_the_deck_in_the_chosen_order() -> None:
    record = load("recycle")  # white W01 W02 W03 W04 | W05 W06 W07, recycled as W03 W01 W04 W02
    state = state_after(record, 1)
    assert ids(state, state.rows[WHITE]) == ["W05", "W06", "W07", "W03"]
    assert ids(state, state.decks[WHITE]) == ["W01", "W04", "W02"]
    state = state_after(record, 3)  # two blind takes draw them back in that order
    assert ids(state, state.unfinished(0)) == ["W01", "W04"]
    assert ids(state, state.decks[WHITE]) == ["W02"]


def test_recycle_without_an_order_keeps_the_row_order_left_to_right() -> None:
    state = replay_named("recycle").state  # black B01..B04 | B05..B12 recycled by seat 1
    assert ids(state, state.rows[BLACK]) == ["B05", "B06", "B07", "B08"]
    bottom = ["B01", "B02", "B03", "B04"]
    assert ids(state, state.decks[BLACK]) == ["B09", "B10", "B11", "B12", *bottom]


def test_recycle_order_must_list_exactly_the_row() -> None:
    record = load("recycle")
    bad = act(0, "recycle", row="white", order=["W01", "W02", "W03", "W05"])
    why = "recycle the white row as W01 W02 W03 W05 the order must list exactly the white row"
    with pytest.raises(IllegalActionError, match=illegal(0, 0, why)):
        replay(extend(prefix(record, 0), bad))


def test_recycle_reveals_fewer_when_the_deck_runs_short_and_an_empty_row_cannot_recycle() -> None:
    b = RecordBuilder(["W01", "W02", "W03", "W04", "W05"], BLACK12)
    b.take(0, "W01").take(0, "W02").recycle(0, "white")
    state = replay(b.to_json()).state
    assert ids(state, state.rows[WHITE]) == ["W05", "W03", "W04"]
    assert state.decks[WHITE] == ()
    b.take(1, "W05").take(1, "W03").take(1, "W04").take_basic(0).take_basic(0)
    empty = b.to_json()
    with pytest.raises(
        IllegalActionError, match=illegal(8, 0, "recycle the white row the white row is empty")
    ):
        replay(extend(empty, act(0, "recycle", row="white")))


# -- Upgrade ---------------------------------------------------------------------------------------
def test_upgrade_a_takes_a_mono_from_the_reserve() -> None:
    state = state_after(load("upgrade"), 1)
    assert supply(state, 0) == {"mono": 2, "domino": 1}
    assert reserve(state)["mono"] == 12


def test_upgrade_b_same_level_any_lower_level_or_one_level_higher() -> None:
    record = load("upgrade")
    # mono -> domino -> tri_I (one level up each), tri_I -> tri_L (same level),
    # tri_L -> tet_T (one up), tet_T -> mono (three levels lower)
    steps = {3: {"mono": 1, "domino": 1, "tri_I": 1}, 7: {"mono": 1, "domino": 1, "tri_L": 1}}
    for n, expected in steps.items():
        assert supply(state_after(record, n), 0) == expected
    state = state_after(record, 8)
    assert supply(state, 0) == {"mono": 1, "domino": 1, "tet_T": 1}
    state = replay(record).state
    assert supply(state, 0) == {"mono": 2, "domino": 1}
    assert reserve(state) == {
        "mono": 9, "domino": 13, "tri_I": 15, "tri_L": 15,
        "tet_I": 15, "tet_O": 15, "tet_T": 15, "tet_L": 15, "tet_S": 15,
    }  # fmt: skip


def test_upgrade_b_two_levels_up_is_illegal_while_the_level_above_has_pieces() -> None:
    record = load("upgrade")  # seat 1 to move, with 4 monos and a domino
    why = "upgrade mono to tri_I may only take the same level, a lower one or one level higher"
    with pytest.raises(IllegalActionError, match=illegal(9, 1, why)):
        replay(extend(record, act(1, "upgrade", give="mono", get="tri_I")))


def test_upgrade_b_gives_a_piece_of_the_supply() -> None:
    record = load("upgrade")
    why = "upgrade tri_I to tri_L has no tri_I to give"
    with pytest.raises(IllegalActionError, match=illegal(9, 1, why)):
        replay(extend(record, act(1, "upgrade", give="tri_I", get="tri_L")))


def test_reserve_shortage_upgrade_goes_two_levels_up_when_the_level_above_is_empty() -> None:
    state = fresh()
    state.reserve[piece("tri_I")] = state.reserve[piece("tri_L")] = 0
    state.step(0, Upgrade(piece("domino"), piece("tet_O")))
    assert supply(state, 0) == {"mono": 1, "tet_O": 1}
    state = fresh()
    state.reserve[piece("domino")] = 0
    state.step(0, Upgrade(piece("mono"), piece("tri_L")))
    assert supply(state, 0) == {"domino": 1, "tri_L": 1}
    with pytest.raises(IllegalActionError, match="one level higher"):
        state.step(0, Upgrade(piece("domino"), piece("tet_O")))  # level 3 is not empty


def test_reserve_shortage_upgrade_takes_another_shape_of_the_wanted_level() -> None:
    state = fresh()
    state.reserve[piece("tri_I")] = 0
    with pytest.raises(IllegalActionError, match="the reserve has no tri_I"):
        state.step(0, Upgrade(piece("domino"), piece("tri_I")))
    with pytest.raises(IllegalActionError, match="one level higher"):
        state.step(0, Upgrade(piece("domino"), piece("tet_O")))  # tri_L is still there
    state.step(0, Upgrade(piece("domino"), piece("tri_L")))
    assert supply(state, 0) == {"mono": 1, "tri_L": 1}


def test_upgrade_a_takes_a_domino_once_the_monos_are_gone() -> None:
    record = load("reserve_mono_empty")  # 13 take_basic empty the monos
    state = state_after(record, 15)
    assert reserve(state)["mono"] == 0
    state = replay(record).state
    assert supply(state, 1) == {"mono": 7, "domino": 2}
    assert reserve(state)["domino"] == 11


def test_upgrade_a_with_no_mono_and_no_domino_is_illegal() -> None:
    state = fresh()
    state.reserve[piece("mono")] = state.reserve[piece("domino")] = 0
    with pytest.raises(IllegalActionError, match="the reserve has no piece to take"):
        state.step(0, TakeBasic())


# -- Place -----------------------------------------------------------------------------------------
def test_place_puts_a_supply_piece_into_the_recess() -> None:
    state = state_after(load("place_and_complete"), 3)
    assert filled_cells(state, 0, "W31") == [(2, 1)]
    assert supply(state, 0) == {"mono": 1, "domino": 1}
    state = state_after(load("place_and_complete"), 7)  # a domino lying flat (rotated)
    assert filled_cells(state, 0, "W31") == [(2, 1), (3, 1), (3, 2)]


@pytest.mark.parametrize(
    ("puzzle", "piece_id", "cells", "why"),
    [
        ("W31", "mono", [[2, 1]], "overlaps a placed piece"),
        ("W31", "mono", [[0, 0]], "lies outside the recess"),
        ("W31", "domino", [[2, 2], [2, 3]], "lies outside the recess"),
        ("W31", "domino", [[2, 2], [3, 1]], "cells do not form a domino"),
        ("W31", "mono", [[2, 2], [3, 2]], "cells do not form a mono"),
        ("W31", "tri_I", [[2, 2], [3, 2], [4, 2]], "needs a tri_I the supply does not have"),
        ("W10", "mono", [[3, 2]], "W10 is not an own unfinished puzzle"),  # completed by seat 1
        ("W27", "mono", [[2, 1]], "W27 is not an own unfinished puzzle"),  # still in the row
    ],
)
def test_place_must_fit_the_recess_without_overlap_with_a_matching_supply_piece(
    puzzle: str, piece_id: str, cells: list[list[int]], why: str
) -> None:
    record = prefix(load("place_and_complete"), 6)  # seat 0: mono + domino, W31 has (2,1)
    bad = act(0, "place", puzzle=puzzle, piece=piece_id, cells=cells)
    text = f"place {piece_id} on {puzzle} {why}"
    with pytest.raises(IllegalActionError, match=illegal(6, 0, text)):
        replay(extend(record, bad))


# -- Completion ------------------------------------------------------------------------------------
def test_completion_returns_pieces_takes_the_reward_and_scores() -> None:
    record = load("place_and_complete")
    state = state_after(record, 6)  # seat 1 filled W10 (1 point, reward domino): domino + mono
    assert ids(state, state.piles[1]) == ["W10"] and state.slots[1] == []
    assert state.scores == (0, 1)
    assert supply(state, 1) == {"mono": 1, "domino": 2}
    assert reserve(state)["domino"] == 12
    state = replay(record).state  # seat 0 filled W31 (0 points, reward tet_O): 2 monos + domino
    assert ids(state, state.piles[0]) == ["W31"] and state.slots[0] == []
    assert supply(state, 0) == {"mono": 2, "domino": 1, "tet_O": 1}
    assert reserve(state)["tet_O"] == 14
    assert state.scores == (0, 1)


# -- Master ----------------------------------------------------------------------------------------
def test_master_completes_several_puzzles_in_one_action() -> None:
    record = load("master")
    state = state_after(record, 8)  # one domino into each of W09 and W22
    assert ids(state, state.piles[0]) == ["W09", "W22"]
    assert ids(state, state.unfinished(0)) == ["W23"]
    assert state.scores[0] == 1
    assert supply(state, 0) == {"mono": 1, "domino": 3}  # 2 back, rewards mono + domino
    assert state.actions_left == 1 and state.master_used


def test_master_uses_the_supply_as_it_was_when_the_action_began() -> None:
    record = prefix(load("master"), 6)  # seat 0: one mono, one domino; W09 W22 W23
    bad = act(
        0, "master", placements=[placement("W09", "domino", V), placement("W22", "domino", V)]
    )
    why = "domino on W22 needs a domino the supply does not have"  # W09 would free one
    with pytest.raises(
        IllegalActionError, match=illegal(6, 0, "master (domino on W09, domino on W22) " + why)
    ):
        replay(extend(record, bad))


def test_master_places_at_most_one_piece_per_puzzle() -> None:
    record = prefix(load("master"), 9)  # seat 1: one mono, two dominos; W31 empty
    bad = act(
        1,
        "master",
        placements=[
            placement("W31", "mono", [[2, 1]]),
            placement("W31", "domino", [[3, 1], [3, 2]]),
        ],
    )
    why = "master (mono on W31, domino on W31) places two pieces on W31 in one action"
    with pytest.raises(IllegalActionError, match=illegal(9, 1, why)):
        replay(extend(record, bad))


def test_master_once_per_turn() -> None:
    record = load("master")
    bad = act(0, "master", placements=[placement("W23", "domino", V)])
    with pytest.raises(
        IllegalActionError,
        match=illegal(8, 0, "master (domino on W23) Master was already used this turn"),
    ):
        replay(extend(prefix(record, 8), bad))
    state = replay(record).state  # seat 0 uses Master again in its next turn
    assert filled_cells(state, 0, "W27") == [(2, 1), (2, 2)]
    assert ids(state, state.piles[1]) == ["W31"]  # seat 1: Master then Place in one turn


# -- Rewards and the reserve shortage --------------------------------------------------------------
def test_reward_choice_when_the_shown_piece_is_gone() -> None:
    record = load("reward_choice")  # the dominos run out, then W22 (reward domino) completes
    state = state_after(record, len(record["actions"]) - 1)
    assert reserve(state)["domino"] == 0
    assert state.phase == "reward" and state.current == 0 and state.actions_left == 0
    assert sorted(piece_ids(state, state.reward_options)) == ["mono", "tri_I", "tri_L"]
    state = replay(record).state
    assert state.phase == "play" and (state.round, state.current) == (5, 1)
    assert supply(state, 0) == {"domino": 8, "tri_L": 1}
    assert reserve(state)["tri_L"] == 14


@pytest.mark.parametrize(
    ("action", "why"),
    [
        (act(0, "take_basic"), "take a level-1 piece a reward piece must be chosen first"),
        (
            act(0, "reward", piece="tet_O"),
            "reward tet_O the reward must be one of mono, tri_I, tri_L",
        ),
        (act(1, "reward", piece="mono"), "reward mono it is player 0's turn"),
    ],
)
def test_reward_choice_comes_first_and_must_be_an_option(action: dict[str, Any], why: str) -> None:
    record = load("reward_choice")
    n = len(record["actions"]) - 1
    with pytest.raises(IllegalActionError, match=illegal(n, action["player"], why)):
        replay(extend(prefix(record, n), action))


def test_reward_with_a_single_option_is_given_without_a_choice() -> None:
    record = load("reserve_mono_empty")
    state = state_after(record, 15)  # W09 (reward mono) completed with no mono left
    assert state.phase == "play" and state.current == 1
    assert supply(state, 0) == {"mono": 8, "domino": 2}  # its domino back, plus a domino
    assert reserve(state)["domino"] == 12


def test_reward_choice_is_not_one_of_the_three_actions() -> None:
    state = fresh()
    hold(state, 0, "W22")
    state.reserve[piece("domino")] = 0
    state.step(0, place("W22", "domino", V))
    assert (state.phase, state.actions_left) == ("reward", 2)
    with pytest.raises(IllegalActionError, match="a reward piece must be chosen first"):
        state.step(0, TakeBasic())
    state.step(0, Reward(piece("mono")))
    assert (state.phase, state.current, state.actions_left) == ("play", 0, 2)
    assert supply(state, 0) == {"mono": 2, "domino": 1}


def test_reward_choices_follow_one_another_when_master_completes_two_puzzles() -> None:
    state = fresh()
    hold(state, 0, "W22", "W23")  # both reward a domino
    state.reserve[piece("domino")] = 0
    state.supply[0][piece("domino")] = 2
    state.step(0, Master((_pl("W22", "domino", V), _pl("W23", "domino", V))))
    assert state.phase == "reward"
    state.step(0, Reward(piece("tri_I")))
    assert state.phase == "reward"  # the second puzzle's reward is still to choose
    assert sorted(piece_ids(state, state.reward_options)) == ["mono", "tri_I", "tri_L"]
    state.step(0, Reward(piece("tri_I")))
    assert (state.phase, state.actions_left) == ("play", 2)
    assert supply(state, 0) == {"mono": 1, "domino": 2, "tri_I": 2}


def test_reward_takes_the_other_shape_of_the_same_level() -> None:
    state = fresh()
    hold(state, 0, "W26")  # tri_L-shaped recess, reward tri_I
    state.reserve[piece("tri_I")] = 0
    state.supply[0][piece("tri_L")] = 1
    state.reserve[piece("tri_L")] -= 1
    state.step(0, place("W26", "tri_L", [[2, 1], [2, 2], [3, 2]]))
    assert state.phase == "play"
    assert supply(state, 0) == {"mono": 1, "domino": 1, "tri_L": 2}


def test_reward_offers_any_lower_level_when_its_level_and_the_next_are_empty() -> None:
    state = fresh()
    hold(state, 0, "W09", "W31")  # W31: reward tet_O; no level 5 in the base game
    for name in ("tet_I", "tet_O", "tet_T", "tet_L", "tet_S"):
        state.reserve[piece(name)] = 0
    state.supply[0][piece("domino")] = 2
    for cells in ([[2, 1], [2, 2]], [[3, 1], [3, 2]]):
        state.step(0, place("W31", "domino", cells))
    assert state.phase == "reward"
    assert sorted(piece_ids(state, state.reward_options)) == ["domino", "mono", "tri_I", "tri_L"]


def test_reward_nothing_when_nothing_qualifies() -> None:
    state = fresh()
    hold(state, 0, "W22")  # reward domino: neither level 1-3 has a piece, level 4 is too high
    for name in ("mono", "domino", "tri_I", "tri_L"):
        state.reserve[piece(name)] = 0
    before = list(state.reserve)
    state.step(0, place("W22", "domino", V))
    assert state.phase == "play" and state.actions_left == 2
    assert ids(state, state.piles[0]) == ["W22"]
    assert supply(state, 0) == {"mono": 1, "domino": 1}
    assert state.reserve == before


# -- The end of the game ---------------------------------------------------------------------------
def test_end_trigger_finishes_the_round_then_plays_one_more_full_round() -> None:
    record = load("end_trigger")  # seat 1 first; seat 0 empties the black deck in round 1
    state = state_after(record, 3)
    assert state.trigger_round == 0 and ids(state, state.decks[BLACK]) == ["B17", "B18"]
    state = state_after(record, 5)  # B14's refill emptied the deck
    assert (state.trigger_round, state.round, state.current) == (1, 1, 0)
    assert state.decks[BLACK] == ()
    state = state_after(record, 6)
    assert (state.phase, state.round, state.current) == ("play", 2, 1)
    state = state_after(record, 12)
    assert (state.phase, state.round, state.current) == ("finishing_touches", 2, 1)
    state = replay(record).state  # its result is checked too
    assert state.phase == "over" and state.end_reason == "rules"


def test_end_trigger_by_the_first_player_with_a_blind_take() -> None:
    record = load("end_trigger_blind")  # 3 players, seat 0 draws the last black card blind
    state = state_after(record, 1)
    assert state.trigger_round == 1 and ids(state, state.unfinished(0)) == ["B17"]
    assert (state_after(record, 3).round, state_after(record, 3).current) == (1, 1)
    assert (state_after(record, 9).round, state_after(record, 9).current) == (2, 0)
    state = state_after(record, 18)
    assert (state.phase, state.current) == ("finishing_touches", 0)
    assert replay(record).state.phase == "over"


def test_after_the_trigger_taken_black_puzzles_are_not_replaced() -> None:
    record = load("end_trigger")
    state = state_after(record, 5)  # B13 and B14 taken, refilled by B17 and B18
    assert ids(state, state.rows[BLACK]) == ["B17", "B18", "B15", "B16"]
    state = state_after(record, 6)  # B15 taken after the trigger
    assert ids(state, state.rows[BLACK]) == ["B17", "B18", "B16"]
    state = state_after(record, 10)
    assert ids(state, state.rows[BLACK]) == ["B18"]


def test_black_puzzles_taken_earlier_in_the_triggering_turn_do_not_count() -> None:
    state = state_after(load("end_trigger"), 6)  # B13, B14 (trigger), then B15 in one turn
    assert ids(state, state.unfinished(0)) == ["B13", "B14", "B15"]


def test_after_the_trigger_at_most_one_black_puzzle_per_turn() -> None:
    record = load("end_trigger")
    why = "only one black puzzle per turn after the end trigger"
    with pytest.raises(IllegalActionError, match=illegal(7, 1, f"take B17 {why}")):
        replay(extend(prefix(record, 7), act(1, "take", puzzle="B17")))
    blind = load("end_trigger_blind")  # the blind-taken trigger card doesn't count, B13 does
    with pytest.raises(IllegalActionError, match=illegal(2, 0, f"take B14 {why}")):
        replay(extend(prefix(blind, 2), act(0, "take", puzzle="B14")))


def test_a_black_deck_empty_from_the_start_triggers_the_end_in_round_one() -> None:
    record = load("tie_break_supply")  # 4 black puzzles: all in the row
    state = state_after(record, 0)
    assert state.trigger_round == 1
    assert state_after(record, 12).phase == "finishing_touches"


# -- Finishing Touches -----------------------------------------------------------------------------
def test_finishing_touches_complete_puzzles_that_score_but_give_no_reward() -> None:
    record = load("finishing_touches")
    before = state_after(record, 12)
    assert (before.phase, before.current) == ("finishing_touches", 0)
    assert state_after(record, 13).current == 1
    state = replay(record).state
    assert ids(state, state.piles[0]) == ["W10"]  # W10 completed by one touch
    assert ids(state, state.unfinished(0)) == ["W31"]  # 3 of its 4 cells filled
    assert ids(state, state.piles[1]) == ["W09", "W22"]  # two touches on each puzzle
    assert state.reserve == before.reserve  # no reward for W10 (domino), W09 (mono), W22
    assert supply(state, 0) == {"mono": 1, "domino": 1}  # W10's pieces back, W31's stay
    assert supply(state, 1) == {"mono": 4, "domino": 1}  # the four touches back
    assert state.scores == (1, 1)
    assert state.final_scores() == [1 - 3, 1 - 4 - 3]  # 1 point per piece; B17 unfinished


def test_finishing_touches_are_all_placed_before_anything_completes() -> None:
    record = prefix(load("finishing_touches"), 13)  # seat 1: 4 monos, one domino
    bad = act(
        1, "finish", placements=[placement("W09", "domino", V), placement("W22", "domino", V)]
    )
    why = "domino on W22 needs a domino the supply does not have"  # W09 would free it
    with pytest.raises(
        IllegalActionError, match=illegal(13, 1, "finish (domino on W09, domino on W22) " + why)
    ):
        replay(extend(record, bad))


def test_finishing_touches_are_asked_in_turn_order_but_recorded_in_any() -> None:
    record = prefix(load("finishing_touches"), 12)  # seat 0 (first player) has not finished
    state = replay(record).state
    assert state.phase == "finishing_touches"
    assert state.current == 0  # the engine asks the first player first
    # a record may list the decisions in another order of players: each is independent
    state = replay(extend(record, act(1, "finish", placements=[]))).state
    assert state.finished == (False, True)
    assert state.current == 0
    state = replay(extend(record, act(1, "finish", placements=[]), act(0, "finish", placements=[])))
    assert state.state.phase == "over"


@pytest.mark.parametrize(
    ("n", "action", "why"),
    [
        (13, act(0, "finish", placements=[]), "this player has already made Finishing Touches"),
        (12, act(0, "take_basic"), "only Finishing Touches are allowed now"),
        (3, act(1, "finish", placements=[]), "Finishing Touches only come after the last round"),
    ],
)
def test_finishing_touches_once_each_and_only_after_the_last_round(
    n: int, action: dict[str, Any], why: str
) -> None:
    record = prefix(load("finishing_touches"), n)
    with pytest.raises(IllegalActionError, match=re.escape(why)):
        replay(extend(record, action))


# -- Scoring and ties ------------------------------------------------------------------------------
def test_scoring_subtracts_the_points_of_unfinished_puzzles() -> None:
    state = replay_named("scoring").state  # seat 1 holds B17 (3 points) unfinished
    assert state.scores == (1, 1)
    assert state.final_scores() == [1, -2]
    assert state.winners() == [0]


def test_scoring_switch_unfinished_puzzles_score_zero() -> None:
    state = replay(with_rules(load("scoring"), unfinished_penalty=False)).state
    assert state.final_scores() == [1, 1]


def test_tie_break_most_completed_puzzles() -> None:
    state = replay(with_rules(load("scoring"), unfinished_penalty=False)).state
    assert [len(p) for p in state.piles] == [1, 2]
    assert state.winners() == [1]


def test_tie_break_then_most_pieces_left_in_supply() -> None:
    state = replay_named("tie_break_supply").state
    assert state.final_scores() == [1, 1] and [len(p) for p in state.piles] == [1, 1]
    assert [sum(s) for s in state.supply] == [7, 3]
    assert state.winners() == [0]


def test_tie_break_then_a_shared_win() -> None:
    state = replay_named("end_trigger_blind").state
    assert state.final_scores() == [-6, 0, 0]
    assert [sum(s) for s in state.supply][1:] == [5, 5]
    assert state.winners() == [1, 2]


def test_tie_break_switch_the_later_player_in_turn_order_wins() -> None:
    state = replay(with_rules(load("tie_break_supply"), tie_break="later_in_turn_order")).state
    assert state.winners() == [1]
    state = replay(with_rules(load("end_trigger_blind"), tie_break="later_in_turn_order")).state
    assert state.winners() == [2]
    # turn order counts from the first player: 2, 0, 1 makes seat 0 later than seat 2
    state = fresh(players=3, first_player=2, tie_break="later_in_turn_order")
    state.scores = (2, 0, 2)
    assert state.winners() == [0]


# -- Passing ---------------------------------------------------------------------------------------
def _stuck(state: GameState, player: int) -> None:
    """Leave nothing to take or recycle, an empty reserve, and ``player`` with no piece."""
    state.rows = [(), ()]
    state.decks = ((), ())
    state.reserve = [0] * len(state.reserve)
    state.supply[player] = [0] * len(state.reserve)


def test_a_player_with_no_legal_action_passes() -> None:
    state = fresh()
    _stuck(state, 1)
    hold(state, 0, "W09", "W31")
    state.actions_left = 1
    state.step(0, place("W09", "domino", V))  # seat 0 can still place on W31; seat 1 can't act
    assert (state.phase, state.round, state.current, state.actions_left) == ("play", 2, 0, 3)
    assert state.legal_actions()


def test_a_game_where_nobody_can_act_ends_instead_of_hanging() -> None:
    state = fresh()
    _stuck(state, 1)
    hold(state, 0, "W09")
    state.step(0, place("W09", "domino", V))
    assert state.is_over


# -- Hidden information ----------------------------------------------------------------------------
def test_view_hides_the_deck_order_except_recycled_bottom_cards() -> None:
    state = replay_named("recycle").state
    view = state.view(0)
    assert view.decks[BLACK][:4] == (HIDDEN,) * 4
    assert ids(view, view.decks[BLACK][4:]) == ["B01", "B02", "B03", "B04"]
    assert ids(view, view.decks[WHITE]) == ["W02"]  # recycled by seat 0 itself
    assert (view.rows, view.slots, view.supply) == (state.rows, state.slots, state.supply)
    assert HIDDEN not in state.decks[BLACK]  # the state itself is untouched
    state = replay_named("take").state
    assert set(state.view(1).decks[WHITE]) == {HIDDEN}


def test_a_view_cannot_draw_a_hidden_card() -> None:
    view = replay_named("take").state.view(0)
    with pytest.raises(IllegalActionError, match="redeal"):
        view.step(0, Take(card("B01")))  # its slot would be refilled from the hidden deck


def test_redeal_deals_unseen_cards_and_keeps_every_card_accounted_for() -> None:
    state = replay_named("take").state  # all 32 white puzzles in play, 12 of 20 black
    view = state.view(1)
    orders = set()
    for seed in range(3):
        dealt = view.redeal(random.Random(seed))
        cards = all_cards(dealt)
        assert len(cards) == len(set(cards)) == 32 + 12
        assert HIDDEN not in cards
        assert sorted(dealt.decks[WHITE]) == sorted(state.decks[WHITE])
        assert len(dealt.decks[BLACK]) == len(state.decks[BLACK])
        assert (dealt.rows, dealt.slots) == (state.rows, state.slots)
        orders.add(dealt.decks[WHITE])
    assert len(orders) > 1
    # a completed puzzle hidden in another pile may be any unseen card, but never a seen one
    state = replay_named("place_and_complete").state  # seat 0 completed W31, seat 1 W10
    view = state.view(0)
    for seed in range(3):
        dealt = view.redeal(random.Random(seed))
        visible = [c for c in all_cards(dealt) if c != HIDDEN]
        assert len(visible) == len(set(visible)) == 32 + 12 - len(state.piles[1])
        assert len(dealt.decks[WHITE]) == len(state.decks[WHITE])
        assert card("W31") not in dealt.decks[WHITE]
    recycled = replay_named("recycle").state
    dealt = recycled.view(1).redeal(random.Random(0))
    assert dealt.decks[BLACK][4:] == recycled.decks[BLACK][4:]  # the known bottom stays


# -- Records and the command line ------------------------------------------------------------------
def test_a_record_whose_result_disagrees_raises_record_mismatch() -> None:
    record = load("scoring")
    record["result"]["scores"] = [1, 1]
    with pytest.raises(RecordMismatchError, match=r"scores \[1, 1\] recorded, \[1, -2\] replayed"):
        replay(record)
    record = load("scoring")
    record["result"]["winners"] = [1]
    with pytest.raises(RecordMismatchError, match="winners"):
        replay(record)
    unfinished = prefix(load("scoring"), 5) | {"result": load("scoring")["result"]}
    with pytest.raises(RecordMismatchError, match="not over"):
        replay(unfinished)


def _malformed(edit: str) -> dict[str, Any]:
    record = load("turns")
    match edit:
        case "format":
            record["format"] = "projectl-record/0"
        case "tie_break":
            record["rules"]["tie_break"] = "coin_flip"
        case "players":
            record["rules"]["players"] = 7
        case "setup_unknown":
            record["setup"]["white_deck"][0] = "W99"
        case "setup_twice":
            record["setup"]["white_deck"][1] = record["setup"]["white_deck"][0]
        case "setup_colour":
            record["setup"]["black_deck"][0] = "W32"
        case "action_type":
            record["actions"][0]["type"] = "steal"
        case "piece":
            record["actions"][1]["get"] = "tet_X"
        case "deck":
            record["actions"][0] = act(0, "take", deck="grey")
        case "cells":
            record["actions"][0] = act(0, "place", puzzle="W01", piece="mono", cells=[[5, 0]])
        case "player":
            del record["actions"][0]["player"]
    return record


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        ("format", "unknown record format 'projectl-record/0'"),
        ("tie_break", "rules.tie_break: unknown value 'coin_flip'"),
        ("players", "players must be 1-6"),
        ("setup_unknown", "setup.white_deck: unknown puzzle 'W99'"),
        ("setup_twice", "appears twice"),
        ("setup_colour", "setup.black_deck: W32 is not a black puzzle"),
        ("action_type", "action 0: unknown action type 'steal'"),
        ("piece", "action 1: unknown piece 'tet_X'"),
        ("deck", "action 0: deck must be 'white' or 'black', got 'grey'"),
        ("cells", "action 0: bad cells"),
        ("player", "action 0: missing field 'player'"),
    ],
)
def test_unknown_field_values_raise_record_error(edit: str, why: str) -> None:
    with pytest.raises(RecordError, match=re.escape(why)):
        replay(_malformed(edit))


def test_malformed_json_raises_record_error(tmp_path: Any) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "projectl-record/1", "actions": [', encoding="utf-8")
    with pytest.raises(RecordError, match="malformed JSON"):
        read_record(path)


def _cli_replay(path: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "projectl_sim", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_replay_exit_codes(tmp_path: Any) -> None:
    legal = _cli_replay(RECORDS_DIR / "scoring.json")
    assert legal.returncode == 0, legal.stderr
    assert "valid: 14 actions, game over" in legal.stdout

    record = load("end_trigger")
    bad = extend(prefix(record, 7), act(1, "take", puzzle="B17"))
    (tmp_path / "illegal.json").write_text(json.dumps(bad), encoding="utf-8")
    illegal_run = _cli_replay(tmp_path / "illegal.json")
    assert illegal_run.returncode == 1
    lines = illegal_run.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "action 7 (player 1): take B17 only one black puzzle per turn" in lines[0]

    record = load("scoring")
    record["result"]["winners"] = [1]
    (tmp_path / "mismatch.json").write_text(json.dumps(record), encoding="utf-8")
    assert _cli_replay(tmp_path / "mismatch.json").returncode == 1

    (tmp_path / "malformed.json").write_text("{not json", encoding="utf-8")
    malformed = _cli_replay(tmp_path / "malformed.json")
    assert malformed.returncode == 2
    assert len(malformed.stderr.strip().splitlines()) == 1


def test_every_golden_record_replays() -> None:
    # every folder: the base rulings, and each variant's and expansion's own records
    names = sorted(
        p.relative_to(RECORDS_DIR).with_suffix("").as_posix() for p in RECORDS_DIR.rglob("*.json")
    )
    assert len(names) >= 15
    for name in names:
        replay_named(name)
