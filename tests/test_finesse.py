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
from records_util import RECORDS_DIR, TEST_TILES_FILE, extend, finesse_test_tiles, ids, load, prefix

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
    Insert,
    builtin_tiles,
    load_tiles,
)
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
    assert state.finesse is not None
    return state.finesse.active[p], state.finesse.inactive[p]


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
    "C07": (1, 0, 13),  # place [domino, tri_I]: the domino on W22
    "X01": (0, 1, None),  # Recycle (Ambassador Pack)
    "PLACE12": (2, 0, 13),  # Set A style, [mono, domino]: the domino and Master's mono
    "OWN12": (8, 9, None),  # blue, per depicted piece owned: p0 5+2+1, p1 7+2
    "VARIETY": (2, 2, None),  # blue, per depicted shape held (mono, domino; no tet_I)
}


def test_every_trigger_record_is_expected() -> None:
    assert set(EXPECTED) == set(TRIGGER_TILES)


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
    assert end.finesse is not None and end.finesse.bank == BANK_CREDITS - p0 - p1
    if pink_at is not None:
        # pink: paid at once, inactive until the end of the owner's turn (which the 3rd
        # action, index 14, ends at once: then they are active)
        assert credits(run(name, pink_at), 0) == (0, 0)
        active, inactive = credits(run(name, pink_at + 1), 0)
        assert (active, inactive >= 1) == (0, True) if pink_at < 14 else (active >= 1, True)
    elif p0:
        # blue: nothing during the turn, everything once it ends (after p0's 3rd action)
        assert credits(run(name, 14), 0) == (0, 0)
        assert credits(run(name, 15), 0) == (p0, 0)


def test_only_tile_r_counts_in_round_r() -> None:
    # The same actions one round later (round 4's tile is B01, tet_I/tet_O owned: none) pay
    # nothing: in the C04 record the take is in round 3; shifted into round 4 it is not paid.
    rec = load("finesse_tile_C04")
    rec["setup"]["finesse_tiles"] = [
        "A01",
        "A02",
        "B01",
        "C04",
        "B02",
        "C01",
        "C02",
        "C03",
        "C05",
        "C06",
    ]
    state = replay(rec, finesse_tiles=TILES).state
    assert credits(state, 0) == (0, 0)


# -- bank empty ------------------------------------------------------------------------------------
def test_empty_bank_makes_the_richest_return_one_each() -> None:
    # Round 3: p0 takes under TAKE20 (20 Credits; bank 15). Round 4: p1 takes under TAKE20B:
    # 15 from the bank, then five times the richest returns one: p0 (20 > 15) -> 19, p1 16;
    # p0 19 > 16 -> 18, p1 17; p0 18 > 17 -> 17, p1 18; then p1 is richest twice: it returns
    # one of its own (inactive) and takes it again. End: p0 17, p1 18 (inactive), bank 0.
    state = run("finesse_bank_empty")
    assert credits(state, 0) == (17, 0)
    assert credits(state, 1) == (0, 18)
    assert state.finesse is not None and state.finesse.bank == 0
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
    assert state.finesse is not None and state.finesse.inserts[0] == 2
    assert state.finesse.spent[0] == 4


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
    # (6 to 3: see finesse_records.round_ten).
    state = run("finesse_round_ten")
    assert state.final_scores() == [0, 0]
    assert sum(state.supply[1]) > sum(state.supply[0])
    assert credits(state, 0) == (6, 0) and credits(state, 1) == (3, 0)
    assert state.winners() == [0]
    assert load("finesse_round_ten")["result"]["credits"] == [6, 3]


def test_finishing_touches_may_be_paid_with_credits() -> None:
    # finesse_finishing_credits: p0 (21 Credits) completes W23 (0p) and W09 (1p) with two
    # dominoes paid by Credits: 1 point and 19 Credits left; p1 scores 0 (worked out in
    # finesse_records.finishing_credits)
    rec = load("finesse_finishing_credits")
    state = replay(rec, finesse_tiles=TILES).state
    assert state.final_scores() == [1, 0] and state.winners() == [0]
    assert credits(state, 0) == (19, 0)
    assert state.finesse is not None and state.finesse.finishing[0] == 2
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
        before.check(0, Finish(finish.placements, 3))
    poorer = before.copy()
    poorer.finesse.active[0] = 1  # type: ignore[union-attr]
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
    for seed in range(200):
        setup = deal(rules, rng_from_seed(seed))
        assert "X01" not in setup["finesse_tiles"]
    rec = load("finesse_solo_mastermind")
    rec["rules"]["finesse_ambassador"] = True
    rec["setup"]["finesse_tiles"][5] = "X01"
    with pytest.raises(RecordError, match="X01 is a Recycle tile"):
        replay(rec)


# -- rules, records, views -------------------------------------------------------------------------
def test_rules_normalise_expansions_and_reject_unknown_ones() -> None:
    assert Rules(expansions=["finesse"]).expansions == FINESSE
    assert Rules(expansions="finesse").finesse
    assert Rules(expansions=("finesse",)) == Rules(expansions=FINESSE)
    with pytest.raises(RulesError, match="expansions must be a list of names, got 3"):
        Rules(expansions=3)  # type: ignore[arg-type]
    with pytest.raises(
        RulesError,
        match=r"unknown expansion 'ghost' \(known: ghost_piece, ambassador_pack, finesse, ph",
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
    assert view.finesse is not None and state.finesse is not None
    assert view.finesse.row[:2] == (HIDDEN_TILE, HIDDEN_TILE)
    assert view.finesse.row[2:] == state.finesse.row[2:]
    assert view.finesse.active == state.finesse.active  # Credits are public (a decision)
    assert view.finesse.inactive == state.finesse.inactive
    full = view.redeal(random.Random(1))
    assert full.finesse is not None and HIDDEN_TILE not in full.finesse.row
    sets = sorted(TILES.tiles[i].set for i in full.finesse.row)
    assert sets == ["A", "A", "B", "B"] + ["C"] * 6
    assert state.finesse.row[:2] != (HIDDEN_TILE, HIDDEN_TILE)  # the view is a copy


def test_copies_are_independent() -> None:
    state = run("finesse_bank_empty")
    c = state.copy()
    assert c.finesse is not None and state.finesse is not None
    c.finesse.gain(0, 1)
    assert state.finesse.inactive[0] == 0 and state.finesse.bank == 0


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
    tiles = builtin_tiles()
    assert all(t.provisional for t in tiles.tiles if t.set in "AB" or t.pack == "ambassador")
    assert not any(t.provisional for t in tiles.tiles if t.id in ("C01", "C02", "C03", "C04"))


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


def test_finesse_legal_actions_are_what_check_accepts() -> None:
    rng = random.Random(3)
    for seed in range(6):
        state = new_game(Rules(players=2, expansions=FINESSE), seed=seed)
        fin = state.finesse
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
