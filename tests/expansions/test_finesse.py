"""The Finesse expansion: one test (at least) per ruling of /work/shared/rules/README.md, "Finesse
expansion", mostly by replaying the golden records ``tests/records/finesse_*.json`` (built by
``tests/finesse_records.py``; the expectations below are worked out by hand in the comments).
Then rules and records, hidden information, random play with invariants, bots and the CLI.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from finesse_records import TRIGGER_TILES, row
from records_util import (
    RECORDS_DIR,
    TEST_TILES_FILE,
    extend,
    finesse_test_tiles,
    ids,
    load,
    new_trigger_tiles,
    prefix,
    supply,
)

from bots import make_bot
from projectl_sim import IllegalActionError, RecordError, Rules, RulesError, new_game, play_game
from projectl_sim.catalogue import cells_to_mask
from projectl_sim.cli import main
from projectl_sim.engine import FINISHING, GameState, deal, rng_from_seed
from projectl_sim.engine.actions import Finish, Place, TakeBasic, from_json, to_json
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay, summary_json
from projectl_sim.expansions.finesse import (
    BANK_CREDITS,
    HIDDEN_TILE,
    Credits,
    FinishWithCredits,
    Insert,
    builtin_tiles,
    hide_face_down,
    load_tiles,
    tiles_from_dict,
)
from projectl_sim.expansions.finesse import credits as credits_of
from projectl_sim.loading import base_catalogue

CAT = base_catalogue()
TILES = finesse_test_tiles()
FINESSE = frozenset({"finesse"})


def run(name: str, n: int | None = None) -> GameState:
    """Replay the first ``n`` actions of a golden record (all when None) with the test tiles."""
    rec = load(name)
    return replay(rec if n is None else prefix(rec, n), finesse_tiles=TILES).state


def credits(state: GameState, p: int) -> tuple[int, int]:
    """Return ``(active, inactive)`` Credits of a player."""
    assert credits_of(state) is not None
    return credits_of(state).active[p], credits_of(state).inactive[p]


# -- tiles: each trigger and its timing ------------------------------------------------------------
# The trigger records (finesse_records.triggers): rounds 1-2 filler (12 actions), then round 3:
#   12 p0 take W23           15 p1 take_basic (Upgrade A)
#   13 p0 place domino W22   16 p1 upgrade mono -> domino
#      (completes it)        17 p1 recycle the white row
#   14 p0 master: mono W23   18 p0 take_basic (round 4)
# At the end of its turn player 0 holds mono 5, domino 2 in supply, a mono on W23, 1 unfinished
# puzzle (W23); player 1 holds mono 7, domino 2, no puzzle.
# tile -> (Credits of p0, of p1, pink: the action index after which p0's pay shows, or None)
EXPECTED = {
    "C01": (1, 0, None),  # blue: 1 unfinished puzzle at the end of p0's turn
    "C02": (1, 0, 14),  # Master: 1 piece placed
    "C03": (1, 0, 13),  # one puzzle completed
    "C04": (1, 0, 12),  # one Take
    "C05": (0, 2, None),  # Upgrade A and B both count (a decision): p1 twice
    "C06": (0, 2, None),  # the second Upgrade tile: the same as C05
    "C07": (2, 0, 13),  # place mono/domino/tri_I/tri_L: the domino on W22, Master's mono
    "C08": (0, 0, None),  # place level-4 pieces: none placed, not paid
    "C09": (2, 2, None),  # blue, per type held among mono/domino/tri_I/tri_L: mono, domino
    "C10": (0, 0, None),  # blue, per level-4 type held: none, not paid
    "X01": (0, 4, None),  # blue, no unfinished puzzle (4 once): p0 holds W23, p1 none
    "X02": (0, 2, None),  # Recycle (Ambassador Pack): 2 Credits, p1's one Recycle
    "PLACE12": (2, 0, 13),  # Set A style, [mono, domino]: the domino and Master's mono
    "OWN12": (8, 9, None),  # blue, per depicted piece owned: p0 5+2+1, p1 7+2
    "VARIETY": (2, 2, None),  # blue, per depicted shape held (mono, domino; no tet_I)
}


def test_every_trigger_record_is_expected() -> None:
    assert set(EXPECTED) == set(TRIGGER_TILES)
    # every Set C tile of the shipped set, base and Ambassador Pack, has a trigger record
    shipped = {t.id for t in builtin_tiles().tiles if t.set == "C"}
    assert shipped <= set(EXPECTED) | {"X03", "X04", "X05", "X06"}
    assert all((RECORDS_DIR / f"finesse_tile_{tile}.json").exists() for tile in shipped)


@pytest.mark.parametrize("tile", sorted(EXPECTED))
def test_each_tile_pays_its_trigger_in_its_round(tile: str) -> None:
    name = f"finesse_tile_{tile}"
    p0, p1, pink_at = EXPECTED[tile]
    # rounds 1-2 pay nothing whatever is done: the two face-down tiles never count
    assert credits(run(name, 12), 0) == (0, 0) and credits(run(name, 12), 1) == (0, 0)
    end = run(name)  # in round 4, player 0 to move: round 3's Credits are all active
    assert end.round == 4 and end.current == 0
    assert credits(end, 0) == (p0, 0)
    assert credits(end, 1) == (p1, 0)
    assert credits_of(end) is not None and credits_of(end).bank == BANK_CREDITS - p0 - p1
    if pink_at is not None:
        # pink: paid at once, inactive until the end of the owner's turn (which the 3rd
        # action, index 14, ends at once: then they are active)
        assert credits(run(name, pink_at), 0) == (0, 0)
        active, inactive = credits(run(name, pink_at + 1), 0)
        assert (active, inactive >= 1) == (0, True) if pink_at < 14 else (active >= 1, True)
    elif TILES.tiles[TILES.index(tile)].colour == "blue":
        # blue: nothing during the turn, everything once it ends, and active at that same end
        # of turn (rulings: the Credits move across the mat after the blue tile is checked):
        # p0's turn ends with its 3rd action (index 14), p1's with index 17
        for p, paid, last in ((0, p0, 14), (1, p1, 17)):
            assert credits(run(name, last), p) == (0, 0)
            assert credits(run(name, last + 1), p) == (paid, 0)


# -- the Finesse Ambassador Pack's tiles with their own records (finesse_records: every_level,
# distinct_shapes, no_level_1_2, insert_tile). Rounds 1-2 are actions 0-11; round 3 is p0's
# 12-14, then p1's 15-17; "held" counts pieces in supply and on unfinished puzzles.
def _held_on_puzzles(state: GameState, p: int) -> list[str]:
    return [CAT.pieces[piece].id for _card, _f, placed in state.slots[p] for piece, _ in placed]


def test_every_level_tile_pays_four_once_for_levels_one_to_four_held() -> None:
    # p0: mono on W22, domino, tri_I and tet_I in supply: every level, 4 Credits at the end of
    # its turn, active then; its supply alone has no level-1 piece. p1: mono and domino only.
    name = "finesse_tile_X03"
    assert credits(run(name, 14), 0) == (0, 0)
    state = run(name, 15)
    assert credits(state, 0) == (4, 0)
    assert supply(state, 0) == {"domino": 1, "tri_I": 1, "tet_I": 1}
    assert _held_on_puzzles(state, 0) == ["mono"]
    end = run(name)
    assert credits(end, 0) == (4, 0) and credits(end, 1) == (0, 0)
    assert set(supply(end, 1)) == {"mono", "domino"}


def test_every_level_tile_does_not_count_ghosts() -> None:
    from projectl_sim.expansions.finesse import end_of_turn_count
    from projectl_sim.rules import Rules as R

    cat = R(expansions={"ghost_piece"}).catalogue
    levels = cat.levels
    held = [0] * len(levels)
    for pid in ("mono", "domino", "tri_I", "pent_P"):  # a ghost (level 5) instead of a level 4
        held[cat.piece_index(pid)] = 1
    assert end_of_turn_count("every_level", frozenset(), held, [], levels) == 0
    held[cat.piece_index("tet_S")] = 2
    assert end_of_turn_count("every_level", frozenset(), held, [], levels) == 1


def test_distinct_shapes_tile_pays_four_once_and_counts_pieces_on_puzzles() -> None:
    # p0: mono on W22 and a tri_I in supply, no two alike: 4 Credits. p1: a mono and a tri_L
    # in supply (distinct) but its other mono is on W23: two monos held, not paid.
    name = "finesse_tile_X05"
    state = run(name, 15)
    assert credits(state, 0) == (4, 0)
    assert supply(state, 0) == {"tri_I": 1} and _held_on_puzzles(state, 0) == ["mono"]
    end = run(name)
    assert credits(end, 1) == (0, 0)
    assert supply(end, 1) == {"mono": 1, "tri_L": 1} and _held_on_puzzles(end, 1) == ["mono"]


def test_distinct_shapes_counts_ghosts_and_an_empty_holding() -> None:
    from projectl_sim.expansions.finesse import end_of_turn_count
    from projectl_sim.rules import Rules as R

    cat = R(expansions={"ghost_piece"}).catalogue
    levels = cat.levels
    held = [0] * len(levels)
    # a decision: no piece at all has no two alike (the letter of the tile); never in play
    assert end_of_turn_count("distinct_shapes", frozenset(), held, [], levels) == 1
    held[cat.piece_index("pent_P")] = 2  # two ghosts of one shape are two of a shape
    assert end_of_turn_count("distinct_shapes", frozenset(), held, [], levels) == 0


def test_no_level_1_2_tile_pays_three_once_and_counts_pieces_on_puzzles() -> None:
    # p0: tri_I on W29 and tet_S: paid 3. p1: tet_S in supply, a domino on W10: not paid.
    name = "finesse_tile_X06"
    state = run(name, 15)
    assert credits(state, 0) == (3, 0)
    assert supply(state, 0) == {"tet_S": 1} and _held_on_puzzles(state, 0) == ["tri_I"]
    end = run(name)
    assert credits(end, 1) == (0, 0)
    assert supply(end, 1) == {"tet_S": 1} and _held_on_puzzles(end, 1) == ["domino"]


# finesse_tile_X04: round 3 (C04, 1 per Take): p0 takes W22 and W23 (actions 12-13), p1 W09
# (15). Round 4 (X04, 1 per Insert): p0 Inserts a mono (18), then three monos (19-21); p1 (1
# Credit) takes three monos (22-24); round 5: p0 takes a mono (25).
def test_insert_tile_pays_one_per_insert_to_the_inserting_player() -> None:
    name = "finesse_tile_X04"
    before = run(name, 18)
    assert before.round == 4 and credits(before, 0) == (2, 0) and credits(before, 1) == (1, 0)
    after = run(name, 19)  # 2 spent, then 1 earned for the Insert, inactive; the inner mono
    assert credits(after, 0) == (0, 1)  # (Upgrade A) pays nothing under X04
    assert credits_of(after) is not None and credits_of(after).inserts[0] == 1
    assert after.actions_left == 3 and after.current == 0
    assert credits(run(name, 22), 0) == (1, 0)  # active at the end of p0's turn
    end = run(name)
    assert end.round == 5 and credits(end, 1) == (1, 0)  # p1 could not Insert: not paid
    assert credits(end, 0) == (1, 0)
    check_invariants(end)


def test_an_insert_tiles_credit_waits_for_the_end_of_the_turn() -> None:
    # the Credit an Insert earns is inactive like any new Credit: it can't pay for the next
    # Insert of the same turn
    state = run("finesse_tile_X04", 19)
    assert credits(state, 0) == (0, 1)
    assert not any(isinstance(a, Insert) for a in state.legal_actions(master="none"))
    with pytest.raises(IllegalActionError, match="needs 2 active Credits, has 0"):
        state.check(0, Insert(TakeBasic()))


def test_insert_tile_in_line_clear_pays_the_inserting_holder() -> None:
    # line_clear/finesse_rounds, with X04 as tile 3: pair 10 (round 3) starts with seat 0, the
    # white holder, to move. Its Insert earns 1 Credit for seat 0, inactive, though the move
    # then passes to the black holder, seat 2 (interleave); seat 2 gets nothing.
    rec = prefix(load("line_clear/finesse_rounds"), 60)
    rec["rules"]["finesse_ambassador"] = True
    rec["setup"]["finesse_tiles"][2] = "X04"
    state = replay(rec).state
    fin = credits_of(state)
    assert fin is not None and state.round == 3 and state.current == 0
    fin.active[0] += 2  # two active Credits from the bank: an Insert is open
    fin.earned[0] += 2
    fin.bank -= 2
    state.step(0, Insert(TakeBasic()))
    assert state.to_move() == 2
    assert credits(state, 0) == (0, 1) and credits(state, 2) == (0, 0)
    check_invariants(state)


# -- bank empty ------------------------------------------------------------------------------------
def test_empty_bank_makes_the_richest_return_one_each() -> None:
    # Round 3: p0 takes under TAKE20 (20 Credits; bank 15). Round 4: p1 takes under TAKE20B:
    # 15 from the bank, then five times the richest returns one: p0 (20 > 15) -> 19, p1 16;
    # p0 19 > 16 -> 18, p1 17; p0 18 > 17 -> 17, p1 18; then p1 is richest twice: it returns
    # one of its own (inactive) and takes it again. End: p0 17, p1 18 (inactive), bank 0.
    state = run("finesse_bank_empty")
    assert credits(state, 0) == (17, 0)
    assert credits(state, 1) == (0, 18)
    assert credits_of(state) is not None and credits_of(state).bank == 0
    check_invariants(state)


def test_empty_bank_ties_return_one_each() -> None:
    c = Credits(builtin_tiles(), tuple(range(10)), {p.id: p.index for p in CAT.pieces}, 3)
    c.active, c.bank = [12, 12, 11], 0
    c.gain(2, 1)  # both richest return one, then player 2 takes one of the two
    assert (c.active, c.inactive, c.bank) == ([11, 11, 11], [0, 0, 1], 1)


# -- Insert ----------------------------------------------------------------------------------------
# finesse_insert: p0 takes W23 in round 3 (action 12) under TAKE20 and has 20 active Credits in
# round 4; actions 18-19 are two of its 3 actions, 20 Inserts a Master (mono on W23), 21 Inserts a
# Place (mono on W23, completing it), 22 is its third action (completing W22), which ends the turn.
def test_insert_spends_two_active_credits_per_extra_action() -> None:
    state = run("finesse_insert")
    assert state.current == 1 and state.round == 4
    assert credits(state, 0) == (16, 0)
    assert ids(state, state.piles[0]) == ["W23", "W22"]
    assert credits_of(state) is not None and credits_of(state).inserts[0] == 2
    assert credits_of(state).spent[0] == 4


def test_insert_is_open_during_the_turn_and_needs_two_active_credits() -> None:
    rec = load("finesse_insert")
    mono_on_w23 = Place(CAT.puzzle_index("W23"), CAT.piece_index("mono"), cells_to_mask([[2, 2]]))
    # round 3: Credits just earned are inactive, so no Insert is open
    mid = run("finesse_insert", 13)
    assert mid.current == 0 and credits(mid, 0) == (0, 20)
    assert not any(isinstance(a, Insert) for a in mid.legal_actions(master="none"))
    with pytest.raises(IllegalActionError, match="needs 2 active Credits, has 0"):
        mid.check(0, Insert(TakeBasic()))
    # round 4, first action: every legal action is offered plain and as an Insert
    start = run("finesse_insert", 18)
    assert start.current == 0 and start.actions_left == 3 and credits(start, 0) == (20, 0)
    acts = start.legal_actions(master="none")
    plain = [a for a in acts if not isinstance(a, Insert)]
    assert acts == plain + [Insert(a) for a in plain]
    start.check(0, Insert(mono_on_w23))
    with pytest.raises(IllegalActionError, match="one Play action"):
        start.check(0, Insert(Insert(mono_on_w23)))
    # an Insert doesn't count towards the 3 actions; the third regular one ends the turn
    after_inserts = run("finesse_insert", 22)
    assert after_inserts.current == 0 and after_inserts.actions_left == 1
    assert run("finesse_insert", 23).current == 1
    # the same Insert without the Credits to pay for it is refused
    poor = prefix(rec, len(rec["actions"]))
    poor["setup"]["finesse_tiles"] = row("C02")  # round 3's tile pays Master: nothing here
    with pytest.raises(IllegalActionError, match="needs 2 active Credits, has 0"):
        replay(poor, finesse_tiles=TILES)


def test_master_stays_once_per_turn_with_insert() -> None:
    rec = load("finesse_insert")
    again = extend(prefix(rec, 21), rec["actions"][20])  # a second Master, inserted
    with pytest.raises(IllegalActionError, match="Master was already used this turn"):
        replay(again, finesse_tiles=TILES)
    state = run("finesse_insert", 21)
    assert state.master_used and state.actions_left == 1 and state.current == 0
    assert not any(a.kind == "master" for a in state.legal_actions())
    assert not any(
        isinstance(a, Insert) and a.inner.kind == "master" for a in state.legal_actions()
    )


def test_insert_record_round_trips() -> None:
    rec = load("finesse_insert")
    for raw in rec["actions"]:
        player, action = from_json(raw, CAT)
        assert to_json(action, CAT, player) == raw
    with pytest.raises(RecordError, match="insert cannot carry"):
        from_json(
            {"player": 0, "type": "insert", "action": {"type": "reward", "piece": "mono"}}, CAT
        )


# -- game end, Finishing Touches and ties ----------------------------------------------------------
def test_game_ends_after_round_ten_without_an_extra_round() -> None:
    state = run("finesse_round_ten", len(load("finesse_round_ten")["actions"]) - 2)
    assert state.phase == FINISHING and state.round == 10 and not state.trigger_round
    # the same actions without Finesse (and without the Finish) leave the game in round 11
    rec = load("finesse_round_ten")
    base = prefix(rec, len(rec["actions"]))
    base["rules"] = {"players": 2}
    del base["setup"]["finesse_tiles"]
    base["actions"] = [a for a in base["actions"] if a["type"] != "finish"]
    later = replay(base).state
    assert later.round == 11 and later.phase == "play"


def test_credits_break_a_tie_before_the_base_tie_breakers() -> None:
    # Both score 0 with 0 puzzles; p1 has more pieces (base tie-break) but p0 more Credits
    # (9 to 3: see finesse_records.round_ten).
    state = run("finesse_round_ten")
    assert state.final_scores() == [0, 0]
    assert sum(state.supply[1]) > sum(state.supply[0])
    assert credits(state, 0) == (9, 0) and credits(state, 1) == (3, 0)
    assert state.winners() == [0]
    assert load("finesse_round_ten")["result"]["credits"] == [9, 3]


def test_finishing_touches_may_be_paid_with_credits() -> None:
    # finesse_finishing_credits: p0 (21 Credits) completes W23 (0p) and W09 (1p) with two
    # dominoes paid by Credits: 1 point and 19 Credits left; p1 scores 0 (worked out in
    # finesse_records.finishing_credits)
    rec = load("finesse_finishing_credits")
    state = replay(rec, finesse_tiles=TILES).state
    assert state.final_scores() == [1, 0] and state.winners() == [0]
    assert credits(state, 0) == (19, 0)
    assert credits_of(state) is not None and credits_of(state).finishing[0] == 2
    assert state.ft_pieces[0] == 0
    # the same placements paid with points: 1 - 2 = -1, and player 1 wins
    by_points = prefix(rec, len(rec["actions"]))
    by_points["actions"][-2]["credits"] = 0
    again = replay(by_points, finesse_tiles=TILES).state
    assert again.final_scores() == [-1, 0] and again.winners() == [1]
    # at most one Credit per placement, and no more than the player's Credits
    before = replay(prefix(rec, len(rec["actions"]) - 2), finesse_tiles=TILES).state
    assert before.phase == FINISHING and credits(before, 0) == (21, 0)
    _, finish = from_json(rec["actions"][-2], CAT)
    assert isinstance(finish, Finish)
    with pytest.raises(IllegalActionError, match="pays more Credits than it places pieces"):
        before.check(0, FinishWithCredits(finish.placements, 3))
    poorer = before.copy()
    credits_of(poorer).active[0] = 1  # type: ignore[union-attr]
    with pytest.raises(IllegalActionError, match="has only 1 Credits"):
        poorer.check(0, finish)
    base = new_game(Rules(players=2), seed=1)
    with pytest.raises(IllegalActionError, match="Finishing Touches only come after"):
        base.check(0, finish)


def test_the_base_trigger_still_ends_a_finesse_game_when_it_comes_first() -> None:
    # a 5-card black deck: 4 in the row, 1 in the deck; p0 draws it blind in round 1 (the end
    # trigger), so the game ends after round 2, long before the 10th tile
    rec = load("finesse_tile_C01")
    rec = prefix(rec, 0)
    rec["setup"]["black_deck"] = rec["setup"]["black_deck"][:5]
    rec["actions"] = [{"player": 0, "type": "take", "deck": "black"}]
    rec["actions"] += [{"player": 0, "type": "take_basic"}] * 2
    rec["actions"] += [{"player": 1, "type": "take_basic"}] * 3
    for p in (0, 1):
        rec["actions"] += [{"player": p, "type": "take_basic"}] * 3
    state = replay(rec).state
    assert state.trigger_round == 1 and state.round == 2 and state.phase == FINISHING


# -- Finesse Solo ----------------------------------------------------------------------------------
def test_finesse_solo_mastermind_takes_two_puzzles_of_one_column() -> None:
    state = run("finesse_solo_mastermind")
    assert state.solo is not None
    # W01 (2p, pos 3) beats W03 (2p, pos 7) on position; then W23 (0p, pos 6) beats W24 (0p,
    # pos 9) as nearest the top; gaps refill top first: pos 3 <- W13, pos 6 <- W04
    assert ids(state, state.solo.opponent_pile) == ["W01", "W23"]
    assert state.solo.opponent_score == 2
    grid = [CAT.puzzles[c].id for c in state.solo.grid]
    assert grid[2] == "W13" and grid[5] == "W04"
    # the locks moved once: 6 of its supply + 1 from column 2 above column 3
    assert [len(col) for col in state.solo.locks] == [0, 0, 7]
    # the same turn without Finesse: one puzzle
    rec = load("finesse_solo_mastermind")
    rec["rules"] = {"players": 1, "variant": "solo"}
    del rec["setup"]["finesse_tiles"]
    assert ids(state, replay(rec).state.solo.opponent_pile) == ["W01"]


def test_finesse_solo_deals_20_white_on_15_black_and_never_the_recycle_tile() -> None:
    rules = Rules(players=1, variant="solo", expansions=FINESSE, finesse_ambassador=True)
    assert (rules.white_deck_size, rules.black_deck_size) == (20, 15)
    pack = {t.id for t in builtin_tiles().tiles if t.pack == "ambassador"}
    dealt: set[str] = set()
    for seed in range(300):
        setup = deal(rules, rng_from_seed(seed))
        assert "X02" not in setup["finesse_tiles"]
        dealt.update(setup["finesse_tiles"])
    assert dealt & pack == pack - {"X02"}  # every other pack tile, A, B and C, comes up
    two = Rules(players=2, expansions=FINESSE, finesse_ambassador=True)
    assert any("X02" in deal(two, rng_from_seed(seed))["finesse_tiles"] for seed in range(60))
    rec = load("finesse_solo_mastermind")
    rec["rules"]["finesse_ambassador"] = True
    rec["setup"]["finesse_tiles"][5] = "X02"
    with pytest.raises(RecordError, match="X02 is a Recycle tile"):
        replay(rec)


def test_finesse_solo_with_pack_tiles() -> None:
    # finesse_solo_pack: AX1, BX1 face down; round 3 X01 (no unfinished puzzle, 4 once): the
    # player holds none after its 3 monos (actions 6-8): 4 Credits, active; round 4 X04: its
    # Insert (action 9) spends 2 and earns 1; the mastermind earns nothing (it has no Credits).
    rec = load("finesse_solo_pack")
    assert rec["rules"]["finesse_ambassador"] is True
    assert credits(run("finesse_solo_pack", 8), 0) == (0, 0)
    assert credits(run("finesse_solo_pack", 9), 0) == (4, 0)
    assert credits(run("finesse_solo_pack", 10), 0) == (2, 1)
    end = run("finesse_solo_pack")
    assert end.round == 5 and credits(end, 0) == (3, 0)
    assert end.solo is not None and len(end.solo.opponent_pile) == 8  # two puzzles a turn
    assert credits_of(end) is not None and credits_of(end).earned == [5]
    assert credits_of(end).provisional()  # AX1 and BX1 are provisional, face down or not
    check_invariants(end)


# -- rules, records, views -------------------------------------------------------------------------
def test_rules_normalise_expansions_and_reject_unknown_ones() -> None:
    assert Rules(expansions=["finesse"]).expansions == FINESSE
    assert Rules(expansions="finesse").finesse
    assert Rules(expansions=("finesse",)) == Rules(expansions=FINESSE)
    with pytest.raises(RulesError, match="expansions must be a list of names, got 3"):
        Rules(expansions=3)  # type: ignore[arg-type]
    with pytest.raises(
        RulesError,
        match=r"unknown expansion 'ghost' \(did you mean 'ghost_piece'\? valid: ghost_piece, amb",
    ):
        Rules(expansions={"ghost"})
    with pytest.raises(RulesError, match="finesse_ambassador applies to the finesse"):
        Rules(finesse_ambassador=True)
    base = Rules(players=3)
    assert "expansions" not in base.to_json() and "finesse_ambassador" not in base.to_json()
    rules = Rules(players=3, expansions=FINESSE, finesse_ambassador=True)
    assert Rules.from_json(rules.to_json()) == rules
    with pytest.raises(RulesError, match=r"rules\.expansions must be a list"):
        Rules.from_json({"players": 2, "expansions": "finesse"})


def test_setup_records_the_tile_row_and_replays() -> None:
    rules = Rules(players=2, expansions=FINESSE)
    outcome = play_game(rules, [make_bot("random")] * 2, 5)
    rec = outcome.record_json()
    row = rec["setup"]["finesse_tiles"]
    assert len(row) == 10 and sorted(t[0] for t in row) == ["A"] * 2 + ["B"] * 2 + ["C"] * 6
    again = replay(rec).state
    assert again.final_scores() == outcome.state.final_scores()
    bad = json.loads(json.dumps(rec))
    bad["setup"]["finesse_tiles"][0] = "Z99"
    with pytest.raises(RecordError, match="unknown tile 'Z99'"):
        replay(bad)


def test_views_hide_face_down_tiles_and_show_everyones_credits() -> None:
    state = run("finesse_bank_empty")
    view = state.view(0)
    assert credits_of(view) is not None and credits_of(state) is not None
    assert credits_of(view).row[:2] == (HIDDEN_TILE, HIDDEN_TILE)
    assert credits_of(view).row[2:] == credits_of(state).row[2:]
    assert credits_of(view).active == credits_of(state).active  # Credits are public (a decision)
    assert credits_of(view).inactive == credits_of(state).inactive
    full = view.redeal(random.Random(1))
    assert credits_of(full) is not None and HIDDEN_TILE not in credits_of(full).row
    sets = sorted(TILES.tiles[i].set for i in credits_of(full).row)
    assert sets == ["A", "A", "B", "B"] + ["C"] * 6
    assert credits_of(state).row[:2] != (HIDDEN_TILE, HIDDEN_TILE)  # the view is a copy


def test_copies_are_independent() -> None:
    state = run("finesse_bank_empty")
    c = state.copy()
    assert credits_of(c) is not None and credits_of(state) is not None
    credits_of(c).gain(0, 1)
    assert credits_of(state).inactive[0] == 0 and credits_of(state).bank == 0


def test_replay_json_shows_active_and_inactive_credits() -> None:
    rep = replay(load("finesse_bank_empty"), finesse_tiles=TILES)
    out = summary_json(rep)
    assert [p["credits"] for p in out["players"]] == [
        {"active": 17, "inactive": 0},
        {"active": 0, "inactive": 18},
    ]
    assert out["finesse"]["bank"] == 0 and out["finesse"]["current_tile"] == "TAKE20B"


def test_tiles_file_errors_are_one_line(tmp_path: Any, capsys: Any) -> None:
    bad = tmp_path / "tiles.json"
    bad.write_text(
        json.dumps({"tiles": [{"id": "Q", "set": "C", "colour": "blue", "trigger": "take"}]})
    )
    with pytest.raises(RulesError, match="a 'take' tile is pink, got colour 'blue'"):
        load_tiles(bad, CAT.piece_ids)
    code = main(["play", "--expansions", "finesse", "--tiles", str(bad), "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Finesse tiles" in err
    good = str(TEST_TILES_FILE)
    assert main(["play", "--expansions", "finesse", "--tiles", good, "--seed", "1"]) == 0


def test_cli_replays_a_record_of_a_users_tile_set(capsys: Any) -> None:
    path = str(RECORDS_DIR / "finesse_insert.json")
    assert main(["replay", path, "--tiles", str(TEST_TILES_FILE)]) == 0
    capsys.readouterr()
    assert main(["replay", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown tile 'TAKE20'" in err and "--tiles FILE" in err


def test_cli_replay_of_a_finesse_game(tmp_path: Any, capsys: Any) -> None:
    path = tmp_path / "g.json"
    code = main(
        [
            "play",
            "--bots",
            "greedy,random",
            "--expansions",
            "finesse",
            "--seed",
            "4",
            "--record",
            str(path),
        ]
    )
    assert code == 0
    capsys.readouterr()
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert all(set(p["credits"]) == {"active", "inactive"} for p in out["players"])


def test_provisional_tiles_are_marked() -> None:
    # rulings: Set A/B contents are not public (base and pack: provisional); every Set C tile,
    # C01-C10 and the pack's X01-X06, is a fact
    tiles = builtin_tiles()
    assert all(t.provisional for t in tiles.tiles if t.set in "AB")
    assert not any(t.provisional for t in tiles.tiles if t.set == "C")
    base_c = [t.id for t in tiles.tiles if t.set == "C" and t.pack == "base"]
    assert base_c == [f"C{k:02d}" for k in range(1, 11)]
    pack = [(t.id, t.set) for t in tiles.tiles if t.pack == "ambassador"]
    assert sorted(s for _, s in pack) == ["A", "A", "B", "B"] + ["C"] * 6
    x = {t.id: (t.colour, t.credits, t.trigger) for t in tiles.tiles if t.id.startswith("X")}
    assert x == {
        "X01": ("blue", 4, "no_unfinished"),
        "X02": ("pink", 2, "recycle"),
        "X03": ("blue", 4, "every_level"),
        "X04": ("pink", 1, "insert"),
        "X05": ("blue", 4, "distinct_shapes"),
        "X06": ("blue", 3, "no_level_1_2"),
    }


def test_a_row_is_provisional_when_it_holds_a_provisional_tile() -> None:
    # with a user's file whose base Set A/B tiles are facts, only rows dealing a provisional
    # tile (here the pack's Set A/B) are flagged, face down or not
    data = json.loads(TEST_TILES_FILE.read_text())
    for spec in data["tiles"]:
        spec["provisional"] = spec.get("pack") == "ambassador" and spec["set"] in "AB"
    tiles = tiles_from_dict(data, CAT.piece_ids)
    index = {p.id: p.index for p in CAT.pieces}
    plain = ["A01", "A02", "B01", "B02", "C01", "C02", "C03", "C04", "C05", "C06"]
    with_pack = ["AX1", *plain[1:]]
    assert not Credits(tiles, tuple(map(tiles.index, plain)), index, 2).provisional()
    flagged = Credits(tiles, tuple(map(tiles.index, with_pack)), index, 2)
    assert flagged.provisional()
    hide_face_down(flagged)  # a view hides AX1 (face down): the view can't tell
    assert not flagged.provisional()


def test_new_triggers_are_in_the_tile_file_format(tmp_path: Any) -> None:
    # each trigger's colour is fixed, and the level and once-only triggers depict no pieces
    for trigger, colour in (
        ("no_unfinished", "blue"),
        ("every_level", "blue"),
        ("distinct_shapes", "blue"),
        ("no_level_1_2", "blue"),
        ("insert", "pink"),
    ):
        good = {"id": "Q", "set": "C", "colour": colour, "trigger": trigger, "credits": 3}
        other = "pink" if colour == "blue" else "blue"
        data = json.loads(TEST_TILES_FILE.read_text())
        data["tiles"].append(good)
        assert tiles_from_dict(data, CAT.piece_ids).tiles[-1].credits == 3
        data["tiles"][-1] = dict(good, colour=other)
        with pytest.raises(RulesError, match=f"a '{trigger}' tile is {colour}, got colour"):
            tiles_from_dict(data, CAT.piece_ids)
        data["tiles"][-1] = dict(good, pieces=["mono"])
        with pytest.raises(RulesError, match=f"a '{trigger}' tile depicts no pieces"):
            tiles_from_dict(data, CAT.piece_ids)


# -- bots ------------------------------------------------------------------------------------------
# A decision (issue #14, "value Credits from the new triggers at least as the old kinds"):
# greedy and MCTS value a Credit by what it buys, never by the tile that paid it. Greedy spends
# active Credits on Inserts (a completion, or plan progress with 4 or more) and on Finishing
# Touches; MCTS searches every candidate as an Insert too, its rollouts are paid by the engine
# (any trigger, the new ones included), and its leaf evaluation reads no Credits at all. So a
# Credit from X01-X06 is worth exactly what one from C01-C10 is; these tests pin that.
TRIGGER_TILE = {  # one tile per trigger (shipped tiles, and the test set's for take and own)
    "place": "C07",
    "master": "C02",
    "complete": "C03",
    "take": "TAKE20B",
    "upgrade": "C06",
    "recycle": "X02",
    "insert": "X04",
    "own": "OWN12",
    "unfinished": "C01",
    "variety": "C09",
    "no_unfinished": "X01",
    "every_level": "X03",
    "distinct_shapes": "X05",
    "no_level_1_2": "X06",
}


def _with_round_four_tile(tile: str) -> GameState:
    """Return finesse_tile_X04 after round 3 (p0: 2 active Credits, W22 and W23 held, round 4
    to play) with ``tile`` as round 4's tile: the same position whatever will pay in round 4."""
    rec = prefix(load("finesse_tile_X04"), 18)
    used = ["A01", "A02", "C04", tile]
    want = {"A": 2, "B": 2, "C": 6}
    for tid in used:
        want[TILES.tiles[TILES.index(tid)].set] -= 1
    pools = {"A": ["A03"], "B": ["B01", "B02"], "C": ["C01", "C02", "C03", "C05", "C08", "C10"]}
    rest = [t for k in "ABC" for t in [x for x in pools[k] if x not in used][: want[k]]]
    rec["setup"]["finesse_tiles"] = used + rest
    return replay(rec, finesse_tiles=TILES).state


def test_every_trigger_has_a_bot_position() -> None:
    from projectl_sim.expansions.finesse import TRIGGERS

    assert set(TRIGGER_TILE) == set(TRIGGERS)
    assert all(TILES.tiles[TILES.index(t)].trigger == k for k, t in TRIGGER_TILE.items())


@pytest.mark.parametrize("trigger", sorted(TRIGGER_TILE))
def test_bots_spend_credits_the_same_whatever_tile_paid_or_pays(trigger: str) -> None:
    from bots.heuristics import cost_model
    from bots.mcts import MCTSBot, score_estimate

    state = _with_round_four_tile(TRIGGER_TILE[trigger])
    reference = _with_round_four_tile("C01")
    assert credits(state, 0) == (2, 0) and state.round == 4
    view, ref = state.view(0), reference.view(0)
    greedy = make_bot("greedy")
    # greedy Inserts the completing Place (its domino on W22) with its 2 Credits, as always
    w22 = Place(CAT.puzzle_index("W22"), CAT.piece_index("domino"), cells_to_mask([[2, 2], [3, 2]]))
    assert greedy.choose_with_insert(view) == Insert(w22) == greedy.choose_with_insert(ref)
    # MCTS searches the same candidates, each also as an Insert, and scores a leaf alike
    mcts = MCTSBot(iterations=8)
    cands = mcts._candidates(view, cost_model(view))
    assert cands == mcts._candidates(ref, cost_model(ref))
    plain = [a for a in cands if not isinstance(a, Insert)]
    assert all(Insert(a) in cands for a in plain)
    assert score_estimate(view, 0, cost_model(view)) == score_estimate(ref, 0, cost_model(ref))


def test_the_credits_of_the_new_triggers_buy_inserts_in_bot_games() -> None:
    # greedy and MCTS games dealing only the pack's tiles and the Upgrade tiles: the Credits
    # the new triggers pay are spent on Inserts
    tiles = new_trigger_tiles()
    for spec, games in (("greedy", 4), ("mcts:iterations=8", 1)):
        inserts = 0
        for seed in range(games):
            rules = Rules(players=2, expansions=FINESSE, finesse_tiles=tiles)
            state = play_game(rules, [make_bot(spec)] * 2, seed, record=False).state
            assert credits_of(state) is not None and sum(credits_of(state).earned) > 0
            inserts += sum(credits_of(state).inserts)
        assert inserts > 0, spec


# -- random play -----------------------------------------------------------------------------------
CONFIGS = [(2, "standard"), (3, "standard"), (4, "standard"), (1, "solo")]


def _rules(players: int, variant: str, seed: int) -> Rules:
    return Rules(
        players=players, variant=variant, expansions=FINESSE, finesse_ambassador=bool(seed % 2)
    )


def _check(state: GameState, _p: int, _a: object) -> None:
    check_invariants(state)


@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_random_finesse_games_keep_every_invariant_and_replay(players: int, variant: str) -> None:
    for seed in range(150):
        rules = _rules(players, variant, seed)
        outcome = play_game(rules, [make_bot("random")] * players, seed, on_step=_check)
        state = outcome.state
        assert state.is_over
        again = replay(outcome.record_json()).state
        assert again.final_scores() == state.final_scores()
        assert again.winners() == state.winners()


@pytest.mark.slow
@pytest.mark.parametrize(("players", "variant"), CONFIGS)
def test_many_more_random_finesse_games(players: int, variant: str) -> None:
    for seed in range(1000, 1600):
        rules = _rules(players, variant, seed)
        play_game(rules, [make_bot("random")] * players, seed, on_step=_check)


def test_random_games_with_the_new_triggers_keep_every_invariant_and_pay_each_one() -> None:
    # rows of only the Finesse Ambassador Pack's tiles and the Upgrade tiles (records_util),
    # with Ghost Piece in every third game: the invariants hold after every action (Credits
    # conserved, none negative, inactive only in the owner's turn), every record replays, and
    # each trigger of the set pays somewhere
    tiles = new_trigger_tiles()
    paid: set[str] = set()
    for seed in range(48):
        players, variant = CONFIGS[seed % len(CONFIGS)]
        extra = {"ghost_piece"} if seed % 3 == 0 else set()
        rules = Rules(
            players=players, variant=variant, expansions=FINESSE | extra, finesse_tiles=tiles
        )
        seen = {"round": 1, "earned": 0}

        def step(state: GameState, _p: int, _a: object, seen: dict[str, int] = seen) -> None:
            check_invariants(state)
            fin = credits_of(state)
            assert fin is not None
            earned = sum(fin.earned)
            if earned > seen["earned"]:  # paid by the tile of the round the action began in
                rule = fin.tile_rule(seen["round"])
                assert rule is not None
                paid.add(rule[0])
            seen["round"], seen["earned"] = state.round, earned

        bots = [make_bot("greedy" if seed % 2 else "random")] * players
        outcome = play_game(rules, bots, seed, on_step=step)
        again = replay(outcome.record_json(), finesse_tiles=tiles).state
        assert again.final_scores() == outcome.state.final_scores()
    assert paid == {t.trigger for t in tiles.tiles}


def test_finesse_legal_actions_are_what_check_accepts() -> None:
    rng = random.Random(3)
    for seed in range(6):
        state = new_game(Rules(players=2, expansions=FINESSE), seed=seed)
        fin = credits_of(state)
        assert fin is not None
        fin.active[0] = fin.active[1] = fin.earned[0] = fin.earned[1] = 6  # Insert opens
        fin.bank -= 12
        bot = make_bot("random")
        while not state.is_over:
            if state.phase == "play":
                for a in state.legal_actions(master="none"):
                    state.check(state.current, a)
            state.step(state.current, bot(state.view(state.current), rng))
            check_invariants(state)


def test_render_shows_the_row_and_the_credits() -> None:
    from projectl_sim.engine.render import render

    state = run("finesse_bank_empty")
    text = render(state.view(1))
    assert "finesse tiles (* = this round's): ? ? TAKE20 TAKE20B* B01" in text
    assert "player 0 17 active + 0 inactive, player 1 0 active + 18 inactive; bank 0" in text
