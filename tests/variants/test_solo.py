"""The solo variant: one test (at least) per ruling of /work/shared/rules/README.md, "Solo variant".

Most tests replay a short golden record from ``tests/records/solo_*.json`` and assert what the
rulings say the table looks like; the expectations are worked out by hand in the comments. Then
random play with invariants after every action, hidden information, bots and the command line.

The records' grid (positions 1-9 row by row, columns 1-3 = position % 3):

    1 W22 0p   2 W10 1p   3 W01 2p
    4 W11 1p   5 W02 2p   6 W23 0p
    7 W03 2p   8 W24 0p   9 W12 1p
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from records_util import (
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
    with_rules,
)
from state_util import play_steps

from bots import make_bot
from projectl_sim import IllegalActionError, RecordError, Rules, RulesError, new_game, play_game
from projectl_sim.cli import main
from projectl_sim.engine import HIDDEN, OVER, PLAY, GameState, deal, rng_from_seed, setup_of
from projectl_sim.engine.actions import (
    PUZZLE,
    Place,
    Recycle,
    Take,
    TakeBasic,
    TakeDeck,
    Upgrade,
    from_json,
    to_json,
)
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay, summary_json
from projectl_sim.engine.render import render
from projectl_sim.loading import base_catalogue
from projectl_sim.sim.play import game_seeds
from projectl_sim.variants.solo import EMPTY

CAT = base_catalogue()
WHITE, BLACK = 0, 1
GRID = ["W22", "W10", "W01", "W11", "W02", "W23", "W03", "W24", "W12"]
SOLO = {"players": 1, "variant": "solo"}


def illegal(index: int, text: str) -> str:
    """Return the pattern of replay's error for the player's action ``index``."""
    return re.escape(f"action {index} (player 0): {text}")


def act(type: str, **fields: Any) -> dict[str, Any]:
    return {"player": 0, "type": type, **fields}


def grid(state: GameState) -> list[str | None]:
    """Return the grid's puzzle ids by position (None for a gap)."""
    assert state.solo is not None
    return [None if c == EMPTY else CAT.puzzles[c].id for c in state.solo.grid]


def locks(state: GameState) -> list[list[str]]:
    assert state.solo is not None
    return [piece_ids(state, col) for col in state.solo.locks]


def lock_counts(state: GameState) -> list[int]:
    assert state.solo is not None
    return [len(col) for col in state.solo.locks]


def opponent(state: GameState) -> tuple[list[str], int, list[str]]:
    """Return the opponent's pile (ids), score and supply (piece ids)."""
    assert state.solo is not None
    solo = state.solo
    return (
        ids(state, solo.opponent_pile),
        solo.opponent_score,
        piece_ids(state, solo.opponent_supply),
    )


def solo_rules(**kwargs: Any) -> Rules:
    return Rules(players=1, variant="solo", **kwargs)


def table(deck: list[str], locks: list[list[str]], **kwargs: Any) -> GameState:
    """Return a new solo game (no opponent pieces) from an explicit deck and locks."""
    setup = {"deck": deck, "locks": locks, "opponent_supply": []}
    return new_game(solo_rules(difficulty="unbeatable", **kwargs), setup=setup)


# -- Rules -----------------------------------------------------------------------------------------
def test_one_player_needs_the_solo_variant_and_solo_needs_one_player() -> None:
    with pytest.raises(RulesError, match="1 player needs the solo variant"):
        Rules(players=1)
    with pytest.raises(RulesError, match="the solo variant is for 1 player, got 2"):
        Rules(players=2, variant="solo")
    with pytest.raises(RulesError, match="Line Clear"):
        Rules(players=5)
    with pytest.raises(RulesError, match="difficulty applies to the solo variant only"):
        Rules(players=2, difficulty="hard")
    with pytest.raises(RulesError, match="solo_opponent_pieces applies to the solo variant only"):
        Rules(players=2, solo_opponent_pieces="random")
    with pytest.raises(RulesError, match="unknown difficulty 'easy'"):
        solo_rules(difficulty="easy")
    with pytest.raises(RulesError, match="unknown solo_opponent_pieces 'all'"):
        solo_rules(solo_opponent_pieces="all")


def test_solo_rules_round_trip_through_records_and_base_records_are_unchanged() -> None:
    rules = solo_rules(difficulty="unbeatable", solo_opponent_pieces="random", solo_unlock="pass")
    data = rules.to_json()
    assert data["variant"] == "solo" and data["difficulty"] == "unbeatable"
    assert data["solo_opponent_pieces"] == "random" and data["solo_unlock"] == "pass"
    assert Rules.from_json(data) == rules
    assert solo_rules().to_json()["solo_unlock"] == "take"  # solo records always write it
    base = Rules(players=2).to_json()
    assert "difficulty" not in base and "solo_opponent_pieces" not in base
    assert "solo_unlock" not in base


def test_solo_unlock_is_a_solo_switch_of_two_readings() -> None:
    with pytest.raises(RulesError, match="solo_unlock applies to the solo variant only"):
        Rules(players=2, solo_unlock="pass")
    with pytest.raises(RulesError, match=r"unknown solo_unlock 'skip' \(valid: take, pass\)"):
        solo_rules(solo_unlock="skip")
    with pytest.raises(RulesError, match=r"rules\.solo_unlock: unknown value 'skip'"):
        Rules.from_json({**SOLO, "solo_unlock": "skip"})
    # a record without the key replays as the default reading, take
    assert Rules.from_json(SOLO).solo_unlock == "take"
    # a played game's record names the reading; its replay plays it
    rules = solo_rules(solo_unlock="pass")
    rec = play_game(rules, [make_bot("greedy")], 3).record_json()
    assert rec["rules"]["solo_unlock"] == "pass"
    assert (
        replay(rec).state.final_scores()
        == play_game(rules, [make_bot("greedy")], 3).state.final_scores()
    )


# -- Setup -----------------------------------------------------------------------------------------
def test_setup_the_grid_is_dealt_from_the_top_of_the_deck_to_positions_1_to_9() -> None:
    state = state_after(load("solo_mastermind"), 0)
    assert grid(state) == GRID
    # below the grid: 6 whites on top of the 10 blacks
    assert ids(state, state.decks[WHITE]) == ["W13", "W04", "W25", "W14", "W05", "W26"]
    assert len(state.decks[BLACK]) == 10 and ids(state, state.decks[BLACK])[0] == "B13"
    assert state.rows == [(), ()]
    assert locks(state) == [["mono"], ["mono", "mono"], ["mono"]]
    assert opponent(state) == ([], 0, ["mono"] * 6)
    assert supply(state, 0) == {"mono": 1, "domino": 1}
    assert reserve(state)["mono"] == 15 - 1 - 4 - 6  # the player's, the locks, the opponent's
    # the player moves first
    assert (state.phase, state.round, state.current, state.actions_left) == ("play", 1, 0, 3)
    assert state.trigger_round == 0
    assert setup_of(state) == {"first_player": 0, **load("solo_mastermind")["setup"]}


@pytest.mark.parametrize(("difficulty", "pieces"), [("normal", 6), ("hard", 3), ("unbeatable", 0)])
def test_setup_dealt_from_a_seed_15_white_on_10_black_locks_1_2_1_and_the_difficulty(
    difficulty: str, pieces: int
) -> None:
    rules = solo_rules(difficulty=difficulty)
    decks = set()
    for seed in range(10):
        setup = deal(rules, rng_from_seed(seed))
        deck = setup["deck"]
        assert len(deck) == len(set(deck)) == 25
        assert all(p.startswith("W") for p in deck[:15]) and all(
            p.startswith("B") for p in deck[15:]
        )
        assert setup["locks"] == [["mono"], ["mono", "mono"], ["mono"]]
        assert setup["opponent_supply"] == ["mono"] * pieces
        state = new_game(rules, setup=setup)
        assert grid(state) == deck[:9]
        assert reserve(state)["mono"] == 15 - 1 - 4 - pieces
        check_invariants(state)
        decks.add(tuple(deck))
    assert len(decks) == 10  # random whites and blacks, shuffled


def test_setup_switch_random_opponent_pieces_of_any_shape() -> None:
    rules = solo_rules(difficulty="hard", solo_opponent_pieces="random")
    shapes: Counter[str] = Counter()
    for seed in range(20):
        state = new_game(rules, seed=seed)
        assert lock_counts(state) == [1, 2, 1]
        assert len(state.solo.opponent_supply) == 3  # type: ignore[union-attr]
        for col in locks(state):
            shapes.update(col)
        check_invariants(state)  # every piece accounted for: reserve, supply, locks, opponent
        # a record's seed is a game seed, dealt as play deals it (its first child)
        again = replay({"format": "projectl-record/1", "rules": rules.to_json(), "seed": seed})
        dealt = new_game(rules, setup=deal(rules, game_seeds(seed, rules.players)[0]))
        assert again.state.solo == dealt.solo
    assert len(shapes) >= 5


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (
            {"deck": [*GRID, "B13", "W13"]},
            "below the grid the solo deck is white puzzles on top of black ones; W13 lies under",
        ),
        ({"deck": [*GRID, "W22"]}, "setup.deck: W22 appears twice"),
        ({"deck": "W01"}, "setup.deck must be a list"),
        ({"locks": [["mono"], ["mono"]]}, "setup.locks must be a list of 3 lists"),
        ({"locks": [["mono"], ["pento"], []]}, "setup.locks: unknown piece 'pento'"),
        ({"opponent_supply": ["mono"] * 11}, "the reserve has too few mono pieces"),
        ({"first_player": 1}, "setup.first_player must be 0"),
    ],
)
def test_setup_errors_say_what_is_wrong(edit: dict[str, Any], why: str) -> None:
    record = prefix(load("solo_mastermind"), 0)
    record["setup"].update(edit)
    with pytest.raises(RecordError, match=re.escape(why)):
        replay(record)


def test_a_short_deck_leaves_grid_gaps_and_triggers_the_end_at_once() -> None:
    state = table(GRID[:7], [[], [], []])
    assert grid(state) == [*GRID[:7], None, None]
    assert state.trigger_round == 1
    check_invariants(state)


# -- The player's turn: takes move lock pieces, blind draws don't ---------------------------------
def test_taking_from_a_grid_column_moves_one_lock_piece_to_the_opponent() -> None:
    record = load("solo_mastermind")
    state = state_after(record, 1)  # W10 from position 2 (column 2)
    assert lock_counts(state) == [1, 1, 1]
    assert opponent(state) == ([], 0, ["mono"] * 7)
    assert grid(state)[1] == "W13"  # the gap refills from the top of the deck
    assert ids(state, state.unfinished(0)) == ["W10"]
    state = state_after(record, 3)  # W22 from position 1 (column 1), then the opponent's turn
    assert ids(state, state.unfinished(0)) == ["W10", "W04", "W22"]
    assert lock_counts(state) == [8 + 1 + 1, 0, 0]  # its 8 pieces went above column 1
    # had the third action not been a take, all columns would be locked (1/1/1) at the
    # opponent's turn: it unlocks them all and puts its 7 pieces above W01's column
    state = replay(extend(prefix(record, 2), act("take_basic"))).state
    assert opponent(state) == (["W01"], 2, [])
    assert lock_counts(state) == [0, 0, 7]


def test_a_blind_draw_from_the_deck_moves_nothing() -> None:
    record = load("solo_mastermind")
    before, after = state_after(record, 1), state_after(record, 2)
    assert record["actions"][1] == act("take", deck="puzzle")
    assert ids(after, after.unfinished(0)) == ["W10", "W04"]  # the top of the deck
    assert after.solo.locks == before.solo.locks  # type: ignore[union-attr]
    assert after.solo.opponent_supply == before.solo.opponent_supply  # type: ignore[union-attr]
    assert after.solo.grid == before.solo.grid  # type: ignore[union-attr]
    assert ids(after, after.decks[WHITE]) == ["W25", "W14", "W05", "W26"]


def test_taking_from_a_column_without_lock_pieces_moves_nothing() -> None:
    record = load("solo_mastermind")  # columns 2 and 3 are empty of pieces in round 2
    state = replay(extend(prefix(record, 3), act("take", puzzle="W13"))).state
    assert lock_counts(state) == [10, 0, 0]
    assert opponent(state)[2] == []
    assert grid(state)[1] == "W05"


def test_no_recycle_in_the_solo_variant() -> None:
    record = load("solo_mastermind")
    with pytest.raises(
        IllegalActionError, match=illegal(0, "recycle the white row no Recycle in the solo variant")
    ):
        replay(extend(prefix(record, 0), act("recycle", row="white")))
    state = state_after(record, 0)
    assert state.recycle_actions() == []
    assert not any(isinstance(a, Recycle) for a in state.legal_actions(master="none"))


@pytest.mark.parametrize(
    ("action", "why"),
    [
        (
            act("take", deck="white"),
            "take blind from the white deck the solo variant has one deck: take from the puzzle "
            "deck, not the white one",
        ),
        (act("take", puzzle="W13"), "take W13 W13 is not in the grid"),
    ],
)
def test_solo_takes_come_from_the_grid_or_the_one_deck(action: dict[str, Any], why: str) -> None:
    with pytest.raises(IllegalActionError, match=illegal(0, why)):
        replay(extend(prefix(load("solo_mastermind"), 0), action))


def test_the_puzzle_deck_is_only_the_solo_variant_s() -> None:
    record = prefix(load("turns"), 0)  # a 2-player base game
    take = {"player": record["setup"]["first_player"], "type": "take", "deck": "puzzle"}
    with pytest.raises(IllegalActionError, match="the puzzle deck is the solo variant's"):
        replay(extend(record, take))


def test_take_actions_list_the_grid_by_position_then_the_deck() -> None:
    state = state_after(load("solo_mastermind"), 0)
    expected = [Take(CAT.puzzle_index(p)) for p in GRID] + [TakeDeck(PUZZLE)]
    assert state.take_actions() == expected


# -- The mastermind's turn -------------------------------------------------------------------------
def test_mastermind_takes_the_highest_value_puzzle_in_an_unlocked_column() -> None:
    # Round 1: the player took from columns 2 and 1; only column 1 (W22 -> W25, W11, W03) is
    # unlocked, and W03 (2 points) is its best. Its 8 pieces go above column 1, with one piece
    # from each other column; position 7 refills from the deck.
    state = state_after(load("solo_mastermind"), 3)
    assert (state.round, state.current, state.actions_left) == (2, 0, 3)
    assert opponent(state) == (["W03"], 2, [])
    assert lock_counts(state) == [10, 0, 0]
    assert grid(state)[6] == "W14"
    assert state.scores == (0,)  # the opponent's pile is not the player's


def test_mastermind_tie_goes_to_the_lowest_position() -> None:
    # Round 2: columns 2 and 3 are open; W02 (position 5) and W01 (position 3) are worth 2.
    state = replay_named("solo_mastermind").state
    assert opponent(state) == (["W03", "W01"], 4, [])
    assert grid(state)[2] == "W05"
    assert lock_counts(state) == [9, 0, 1]  # one piece from column 1 moved above column 3


def test_mastermind_unlocks_when_all_columns_are_locked_and_may_still_take_nothing() -> None:
    record = load("solo_unlock")  # unbeatable, locks 2/3/2
    state = state_after(record, 3)  # round 1: one piece per column back: 1/2/1, still locked
    assert opponent(state) == ([], 0, [])
    assert lock_counts(state) == [1, 2, 1]
    assert reserve(state)["mono"] == 15 - 1 - 7 - 3 + 3
    assert grid(state) == GRID
    state = state_after(record, 6)  # round 2: 0/1/0, then W01 (position 3 beats position 7)
    assert opponent(state) == (["W01"], 2, [])
    assert lock_counts(state) == [0, 0, 1]  # column 2's piece moved above column 3
    assert reserve(state)["mono"] == 7


# solo_unlock_take / solo_unlock_pass: normal difficulty (locks 1/2/1, 6 monos for the
# mastermind), the player takes three monos a turn for three rounds (actions 0-8).
def test_solo_unlock_take_unlocks_and_takes_in_the_same_turn() -> None:
    # round 1: all columns locked: one mono from each back (0/1/0), then W01 (2p, position 3,
    # beats W03 at 7) from the open columns 1 and 3; its 6 monos and column 2's go above
    # column 3. Round 2: W02 (2p, position 5 beats 7); round 3: W03.
    record = load("solo_unlock_take")
    assert record["rules"]["solo_unlock"] == "take"
    state = state_after(record, 3)
    assert opponent(state) == (["W01"], 2, []) and lock_counts(state) == [0, 0, 7]
    assert reserve(state)["mono"] == 15 - 1 - 4 - 6 + 3 - 3  # 3 back, then the player's 3
    state = state_after(record, 6)
    assert opponent(state)[:2] == (["W01", "W02"], 4) and lock_counts(state) == [0, 1, 6]
    assert opponent(state_after(record, 9))[:2] == (["W01", "W02", "W03"], 6)
    # the same game without the key replays identically (the default reading)
    plain = prefix(record, 9)
    del plain["rules"]["solo_unlock"]
    assert opponent(replay(plain).state) == opponent(state_after(record, 9))


def test_solo_unlock_pass_makes_unlocking_the_whole_turn() -> None:
    # round 1: the same unlock (0/1/0), and nothing else: the mastermind keeps its 6 monos.
    # Round 2: columns 1 and 3 are open: W01, as the take reading's round 1. Round 3: W02.
    record = load("solo_unlock_pass")
    state = state_after(record, 3)
    assert opponent(state) == ([], 0, ["mono"] * 6) and lock_counts(state) == [0, 1, 0]
    assert grid(state) == GRID  # nothing taken, nothing refilled
    state = state_after(record, 6)
    assert opponent(state) == (["W01"], 2, []) and lock_counts(state) == [0, 0, 7]
    assert opponent(state_after(record, 9))[:2] == (["W01", "W02"], 4)
    check_invariants(state)
    # a turn that needs no unlock takes as usual, whatever the reading
    take = replay(with_rules(prefix(load("solo_mastermind"), 3), solo_unlock="pass")).state
    assert opponent(take)[0] == ["W03"]


def test_mastermind_unlock_returns_the_pieces_to_the_reserve() -> None:
    state = table(GRID, [["tet_O"], ["tri_I", "tet_L"], ["domino"]])
    for _ in range(3):
        state.step(0, TakeBasic())
    # the top piece of each column went back (tet_L above tri_I), then the mastermind took W01
    # and column 2's tri_I moved above column 3
    assert locks(state) == [[], [], ["tri_I"]]
    assert opponent(state)[0] == ["W01"]
    assert reserve(state)["tet_O"] == reserve(state)["tet_L"] == 15
    assert reserve(state)["domino"] == 14  # the player's starting domino is the other one
    check_invariants(state)


def test_mastermind_takes_nothing_when_no_unlocked_column_has_a_puzzle() -> None:
    # decision: "all columns locked" is the unlock condition; an open column without puzzles
    # (the deck ran out) gives the mastermind nothing and does not unlock the others
    deck = ["W22", "W10", "W01"]  # one row: positions 4-9 are empty
    state = table(deck, [["mono"], ["mono"], []])
    state.step(0, TakeBasic())
    state.step(0, Take(CAT.puzzle_index("W01")))  # column 3: no lock piece to move
    state.step(0, TakeBasic())
    assert opponent(state) == ([], 0, [])
    assert lock_counts(state) == [1, 1, 0]


# -- End -------------------------------------------------------------------------------------------
def test_end_trigger_when_the_player_empties_the_deck_then_one_more_round() -> None:
    record = load("solo_end")  # grid + B13 B01 below
    state = state_after(record, 3)  # round 1: unlock, W01 (tie, position 3) -> B13 refills
    assert opponent(state)[:2] == (["W01"], 2) and grid(state)[2] == "B13"
    assert state.trigger_round == 0
    state = state_after(record, 4)  # round 2: B13 taken, B01 refills: the deck is empty
    assert state.trigger_round == 2 and not any(state.decks)
    assert grid(state)[2] == "B01"
    state = state_after(record, 6)  # the round is finished: the opponent plays (W02)
    assert (state.round, state.phase) == (3, "play")
    assert opponent(state)[:2] == (["W01", "W02"], 4)
    assert grid(state)[4] is None  # its gap stays empty
    state = state_after(record, 9)  # one more round, then Finishing Touches
    assert state.phase == "finishing_touches"
    assert opponent(state)[:2] == (["W01", "W02", "W03"], 6)
    state = replay_named("solo_end").state
    assert (state.phase, state.end_reason, state.round) == (OVER, "rules", 3)


def test_a_grid_take_with_the_deck_empty_leaves_the_gap() -> None:
    state = state_after(load("solo_end"), 5)  # B01 taken from position 3 after the trigger
    assert grid(state)[2] is None
    check_invariants(state)


def test_end_trigger_when_the_mastermind_empties_the_deck() -> None:
    record = load("solo_unlock")  # grid + W13: the opponent's refill in round 2 empties it
    state = state_after(record, 6)
    assert state.trigger_round == 2 and grid(state)[2] == "W13"
    state = state_after(record, 9)
    assert state.phase == "finishing_touches"
    assert opponent(state)[:2] == (["W01", "W02"], 4)  # W02 (position 5) beats W03 (7)
    assert grid(state)[4] is None
    assert replay_named("solo_unlock").state.round == 3


def test_no_black_puzzle_limit_after_the_trigger() -> None:
    record = load("solo_end")
    state = state_after(record, 4)  # B13 taken after... the trigger came with its refill
    assert Take(CAT.puzzle_index("B01")) in state.take_actions()
    state = state_after(record, 5)  # a second black puzzle in the same turn
    assert ids(state, state.unfinished(0)) == ["B13", "B01"]


# -- Scoring ---------------------------------------------------------------------------------------
def test_scoring_the_player_as_normal_and_the_opponent_its_pile() -> None:
    state = replay_named("solo_end").state
    assert state.final_scores() == [-3 - 5]  # B13 and B01 unfinished
    assert state.opponent_score() == 6
    assert state.winners() == []
    # Finishing Touches as normal: a domino and six monos complete B13 (3 points, 7 touches)
    b13 = [[3, 1], [3, 2], [4, 1], [4, 2], [4, 3], [4, 4]]
    record = extend(
        prefix(load("solo_end"), 9),
        act(
            "finish",
            placements=[placement("B13", "domino", [[3, 0], [4, 0]])]
            + [placement("B13", "mono", [c]) for c in b13],
        ),
    )
    state = replay(record).state
    assert ids(state, state.piles[0]) == ["B13"]
    assert state.final_scores() == [3 - 7 - 5]


def test_a_tie_goes_to_the_opponent() -> None:
    state = replay_named("solo_scoring").state  # W09 completed (1) vs W12 taken (1)
    assert state.final_scores() == [1] and state.opponent_score() == 1
    assert state.winners() == []


def test_the_player_wins_by_beating_the_opponent_s_score() -> None:
    record = prefix(load("solo_scoring"), len(load("solo_scoring")["actions"]))
    record["setup"]["deck"][0] = "W29"  # W12 (1 point) becomes W29 (0 points)
    state = replay(record).state
    assert state.final_scores() == [1] and state.opponent_score() == 0
    assert state.winners() == [0]


def test_a_record_s_opponent_result_is_checked() -> None:
    record = load("solo_scoring")
    record["result"]["opponent"]["score"] = 3
    from projectl_sim.engine.record import RecordMismatchError

    with pytest.raises(RecordMismatchError, match="opponent"):
        replay(record)


def test_opponent_score_is_solo_only() -> None:
    with pytest.raises(ValueError, match="solo"):
        new_game(Rules(players=2), seed=1).opponent_score()


# -- Hidden information ----------------------------------------------------------------------------
def _midgame(seed: int, steps: int, **kwargs: Any) -> GameState:
    return play_steps(solo_rules(**kwargs), seed, steps)


def test_view_hides_the_deck_and_redeal_keeps_whites_on_top_of_blacks() -> None:
    for seed in range(10):
        state = _midgame(seed, 4)
        view = state.view(0)
        assert view.solo == state.solo  # grid, locks and the opponent are public
        assert [set(d) for d in view.decks] == [{HIDDEN} if d else set() for d in state.decks]
        check_invariants(view)
        with pytest.raises(IllegalActionError, match="redeal"):
            view.copy().apply(TakeDeck(PUZZLE))
        dealt = view.redeal(random.Random(seed))
        check_invariants(dealt)
        for colour in (WHITE, BLACK):
            assert len(dealt.decks[colour]) == len(state.decks[colour])
            assert set(dealt.decks[colour]) <= set(state.unseen_cards(colour))
            assert all(CAT.puzzles[c].is_black == (colour == BLACK) for c in dealt.decks[colour])
        # no card on the grid or in the opponent's pile is dealt again
        visible = set(state.solo.grid) | set(state.solo.opponent_pile)  # type: ignore[union-attr]
        assert not visible & (set(dealt.decks[WHITE]) | set(dealt.decks[BLACK]))
        dealt.step(0, TakeDeck(PUZZLE))  # a re-dealt view plays on, the mastermind too
        check_invariants(dealt)


# -- Random play -----------------------------------------------------------------------------------
CONFIGS = [(d, p) for d in ("normal", "hard", "unbeatable") for p in ("mono", "random")]


@pytest.mark.parametrize(("difficulty", "pieces"), CONFIGS)
def test_random_solo_games_keep_every_invariant_and_replay(difficulty: str, pieces: str) -> None:
    rules = solo_rules(difficulty=difficulty, solo_opponent_pieces=pieces)
    bot = make_bot("random")
    reasons: Counter[str] = Counter()

    def check(state: GameState, _p: int, action: Any) -> None:
        check_invariants(state)
        assert from_json(to_json(action, CAT, 0), CAT) == (0, action)

    for seed in range(80):  # 480 games over the six configurations
        outcome = play_game(rules, [bot], seed, on_step=check)
        state = outcome.state
        assert state.phase == OVER
        reasons[state.end_reason] += 1
        rec = outcome.record_json()
        assert rec["result"]["opponent"]["score"] == state.opponent_score()
        again = replay(json.loads(json.dumps(rec))).state
        assert again.final_scores() == state.final_scores()
        assert again.winners() == state.winners()
        assert again.solo == state.solo
    assert reasons["rules"] == sum(reasons.values()), reasons


def test_legal_actions_are_exactly_the_actions_check_accepts_in_solo() -> None:
    rng = random.Random(7)
    bot = make_bot("random")
    checked = 0
    for seed in range(8):
        state = new_game(solo_rules(), seed=seed)
        while state.phase != OVER:
            if state.phase == PLAY and rng.random() < 0.3:
                legal = set(state.legal_actions(master="none"))
                candidates = [Take(c) for c in range(len(CAT.puzzles))]
                candidates += [TakeDeck(0), TakeDeck(1), TakeDeck(PUZZLE), TakeBasic()]
                candidates += [Recycle(0, ()), Recycle(1, ())]
                candidates += [Upgrade(g, h) for g in range(9) for h in range(9)]
                for card, _, _ in state.slots[0]:
                    candidates += [Place(card, p, m) for p in range(9) for m in CAT.placements[p]]
                for action in candidates:
                    try:
                        state.check(0, action)
                        ok = True
                    except IllegalActionError:
                        ok = False
                    assert ok == (action in legal), (state.describe(action), ok)
                    checked += 1
            before = state.copy()
            state.step(0, bot(state.view(0), rng))
            check_invariants(before)  # a copy is independent of the state it came from
    assert checked > 5000


@pytest.mark.parametrize("spec", ["random", "greedy", "greedy:preset=cautious"])
def test_bots_finish_solo_games(spec: str) -> None:
    bot = make_bot(spec)
    for difficulty in ("normal", "hard", "unbeatable"):
        for seed in range(4):
            outcome = play_game(solo_rules(difficulty=difficulty), [bot], seed)
            assert outcome.state.phase == OVER and outcome.state.end_reason == "rules"
            assert outcome.state.opponent_score() > 0


def test_same_seed_same_solo_game() -> None:
    rules = solo_rules(solo_opponent_pieces="random")
    a = play_game(rules, [make_bot("random")], 99).record_json()
    assert a == play_game(rules, [make_bot("random")], 99).record_json()


def test_golden_solo_games_replay_to_their_results() -> None:
    for name in ("solo_greedy_hard", "solo_random_pieces"):
        rep = replay_named(name)  # the result, with the opponent's, is checked on replay
        assert rep.state.opponent_score() == load(name)["result"]["opponent"]["score"]


# -- Output ----------------------------------------------------------------------------------------
def test_render_draws_the_grid_the_locks_and_the_opponent() -> None:
    text = render(replay_named("solo_mastermind").state)
    assert "grid (11 in deck: 1 white on top, 10 black)" in text
    assert "locks: column 1: " + " ".join(["mono"] * 9) + " | column 2: - | column 3: mono" in text
    assert "3: W05 2p" in text and "opponent: score 4, completed 2 [W03 W01]" in text
    assert "white row" not in text
    over = render(replay_named("solo_scoring").state)
    assert "winners: the opponent" in over


def test_replay_summary_shows_the_opponent() -> None:
    out = summary_json(replay_named("solo_end"))
    assert out["opponent"] == {"score": 6, "completed": ["W01", "W02", "W03"], "supply": []}
    assert out["grid"] == ["W22", "W10", None, "W11", None, "W23", None, "W24", "W12"]
    assert out["winners"] == []


def test_cli_plays_and_replays_a_solo_game(tmp_path: Any, capsys: Any) -> None:
    path = tmp_path / "solo.json"
    args = ["play", "--players", "1", "--variant", "solo", "--difficulty", "hard"]
    assert main([*args, "--bots", "greedy", "--seed", "3", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "seed 3, solo (hard) against the mastermind" in out
    opponent = int(re.search(r"opponent \(hard\) score +(-?\d+)", out).group(1))
    record = json.loads(path.read_text())
    assert record["result"]["opponent"]["score"] == opponent
    assert main(["replay", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["opponent"]["score"] == opponent
    assert len(summary["opponent"]["completed"]) == record["result"]["opponent"]["completed"]
    mine = summary["players"][0]["score"]
    assert ("winners: the opponent" in out) == (mine <= opponent)
    assert main(["replay", str(path)]) == 0
    assert f"scores: seat 0 {mine}, opponent {opponent}" in capsys.readouterr().out
    assert main(["play", "--players", "1", "--bots", "random", "--seed", "1"]) == 2
    assert "solo" in capsys.readouterr().err
    assert main(["play", "--players", "2", "--difficulty", "hard", "--seed", "1"]) == 2
    assert "solo variant only" in capsys.readouterr().err
