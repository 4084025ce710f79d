"""The Ghost Piece expansion: one test (at least) per ruling of /work/shared/rules/README.md, "Ghost
Piece", and per judgement call of ``projectl_sim/ghost.py``, mostly by replaying the golden records
``tests/records/ghost/*.json`` (built by ``tests/ghost_records.py``; the expectations below are
worked out by hand in the comments). Then tables, legal listings, views, random play with
invariants and record round trips, and the combinations with Finesse, Solo and the other sets.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest
from records_util import RECORDS_DIR, extend, ids, load, prefix, reserve, supply, with_rules
from state_util import listing_matches_check

from bots import make_bot
from projectl_sim import IllegalActionError, Rules, play_game
from projectl_sim.catalogue import cell_mask
from projectl_sim.engine import FINISHING, OVER, PLAY, GameState, new_game, shortage_options
from projectl_sim.engine import tables_of as tables
from projectl_sim.engine.actions import Action, Place, TakeBasic, Upgrade, from_json
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay
from projectl_sim.expansions.finesse import Insert, level_up_count, pink_count
from projectl_sim.expansions.finesse import credits as credits_of
from projectl_sim.expansions.ghost_piece import (
    LEVEL_UP,
    Ghost,
    LevelUp,
    ghost_tables,
    ghost_takes,
    level_up_actions,
    sample_ghost,
)
from projectl_sim.expansions.ghost_piece import ghosts as ghosts_of
from projectl_sim.loading import base_catalogue, load_catalogue
from projectl_sim.tiling.fill import can_tile

CAT = load_catalogue(expansions=["ghost_piece"])
P = {p.id: p.index for p in CAT.pieces}
GHOST = frozenset({"ghost_piece"})


def run(name: str, n: int | None = None) -> GameState:
    """Replay the first ``n`` actions of a ghost golden record (all when None)."""
    rec = load(f"ghost/{name}")
    return replay(rec if n is None else prefix(rec, n)).state


def action(name: str, i: int) -> Any:
    """Return action ``i`` of a ghost golden record as an Action."""
    return from_json(load(f"ghost/{name}")["actions"][i], CAT)[1]


def index_of(name: str, kind: str, nth: int = 0) -> int:
    """Return the index of the ``nth`` action of type ``kind`` in a ghost golden record."""
    found = [i for i, a in enumerate(load(f"ghost/{name}")["actions"]) if a["type"] == kind]
    return found[nth]


def names(pieces: Any) -> tuple[str, ...]:
    return tuple(CAT.pieces[p].id for p in pieces)


# -- the golden records ----------------------------------------------------------------------------
def test_the_golden_records_are_what_their_builder_writes() -> None:
    from ghost_records import RECORDS

    assert sorted(RECORDS) == sorted(p.stem for p in (RECORDS_DIR / "ghost").glob("*.json"))
    for name, build in RECORDS.items():
        rec = load(f"ghost/{name}")
        built = build()
        if "result" in rec:
            built["result"] = rec["result"]  # checked by the replay below
        assert built == rec, name
        replay(rec)  # with validation, and its result checked


# -- tables ----------------------------------------------------------------------------------------
def test_decompositions_are_every_level_1_to_4_tiling_of_each_ghost() -> None:
    gt = ghost_tables(CAT)
    assert names(gt.ghosts) == ("pent_P", "pent_U", "pent_L")
    counts = {CAT.pieces[g].id: len(gt.decompositions[g]) for g in gt.ghosts}
    assert counts == {"pent_P": 11, "pent_U": 7, "pent_L": 9}
    assert [names(d) for d in gt.decompositions[P["pent_U"]]] == [
        ("tri_L", "domino"),
        ("tet_L", "mono"),
        ("domino", "domino", "mono"),
        ("tri_I", "mono", "mono"),
        ("tri_L", "mono", "mono"),
        ("domino", "mono", "mono", "mono"),
        ("mono",) * 5,
    ]
    for g in gt.ghosts:
        shape = cell_mask(CAT.pieces[g].cells)
        for d in gt.decompositions[g]:
            assert sum(CAT.levels[p] for p in d) == 5 and not any(gt.is_ghost[p] for p in d)
            counts_d = [0] * len(CAT.pieces)
            for p in d:
                counts_d[p] += 1
            assert can_tile(CAT, shape, counts_d)  # the pieces really form the ghost's shape
    # pent_P is a tet_O, tet_T, tet_L or tet_S with a mono
    pairs = [d for d in gt.decompositions[P["pent_P"]] if len(d) == 2 and d[1] == P["mono"]]
    tets = {names(d)[0] for d in pairs}
    assert tets == {"tet_O", "tet_T", "tet_L", "tet_S"}


def test_level_up_targets_are_one_level_higher() -> None:
    gt = ghost_tables(CAT)
    full = [p.copies for p in CAT.pieces]
    assert names(gt.level_up_targets(P["mono"], full)) == ("domino",)
    assert names(gt.level_up_targets(P["domino"], full)) == ("tri_I", "tri_L")
    assert names(gt.level_up_targets(P["tet_S"], full)) == ("pent_P", "pent_U", "pent_L")
    # judgement call 2: a ghost has no level above it, whatever the reserve
    assert gt.level_up_targets(P["pent_P"], full) == []
    # judgement call 3: the shortage gives two levels up or any level up to the piece's own
    no_tets = [0 if CAT.levels[p] == 4 else full[p] for p in range(len(full))]
    assert names(gt.level_up_targets(P["tri_I"], no_tets)) == (
        "mono",
        "domino",
        "tri_L",
        "pent_P",
        "pent_U",
        "pent_L",
    )


def test_the_upgrade_action_never_reaches_level_5() -> None:
    # rulings: the Upgrade action (A and B, with the shortage fallback) never reaches level 5
    t = tables(CAT)
    for g in range(t.n_pieces):
        for step in (0, 1):
            assert not any(CAT.pieces[p].is_ghost for p in t.upgrade_targets[g][step])
        assert not any(CAT.pieces[p].is_ghost for p in t.upgrade_up[g])
    # the level 1-4 targets are the base game's
    base = tables(base_catalogue())
    for g in range(base.n_pieces):
        assert t.upgrade_targets[g] == base.upgrade_targets[g]
    # judgement call 1: a ghost may be given for any level 1-4 piece, not for another ghost
    assert names(t.upgrade_targets[P["pent_U"]][1]) == base_catalogue().piece_ids


def test_a_reward_may_reach_a_ghost_by_the_reserve_shortage() -> None:
    # rulings: ghosts come as puzzle rewards, the reserve shortage rule applied to one included
    t = tables(CAT)
    full = [p.copies for p in CAT.pieces]
    no_tets = [0 if CAT.levels[p] == 4 else full[p] for p in range(len(full))]
    assert names(shortage_options(no_tets, P["tet_O"], t)) == (
        "mono",
        "domino",
        "tri_I",
        "tri_L",
        "pent_P",
        "pent_U",
        "pent_L",
    )
    no_pent_p = full[:]
    no_pent_p[P["pent_P"]] = 0
    assert names(shortage_options(no_pent_p, P["pent_P"], t)) == ("pent_U", "pent_L")


def test_upgrade_cap_record() -> None:
    # ghost/upgrade_cap: p0 completes GW01 (action 7) with domino + tri_L: reward pent_U
    state = run("upgrade_cap", 8)
    assert supply(state, 0) == {"domino": 1, "tri_L": 1, "pent_U": 1}
    with pytest.raises(IllegalActionError, match="never takes a ghost piece"):
        state.check(0, Upgrade(P["pent_U"], P["pent_P"]))  # ghost for ghost: refused
    state.check(0, Upgrade(P["pent_U"], P["tet_O"]))  # a ghost for a lower piece: allowed
    # the record gives pent_U for tet_O, then (round 3) upgrades tri_L to tet_L
    end = run("upgrade_cap")
    assert supply(end, 0) == {"domino": 1, "tet_O": 1, "tet_L": 1}
    assert reserve(end)["pent_U"] == 10
    assert not any(CAT.pieces[a.get].is_ghost for a in end.upgrade_actions())  # type: ignore[union-attr]
    for ghost in ("pent_P", "pent_U", "pent_L"):
        with pytest.raises(IllegalActionError, match="never takes a ghost piece"):
            end.check(0, Upgrade(P["tet_L"], P[ghost]))
    # Upgrade B's shortage: with no level-4 piece left a tri_L may go two levels up, but never
    # to a ghost; Upgrade A is a mono
    short = end.copy()
    for p in CAT.pieces:
        if p.level == 4:
            short.reserve[p.index] = 0
    short.supply[0][P["tri_L"]] += 1
    short.reserve[P["tri_L"]] -= 1
    gets = {CAT.pieces[a.get].level for a in short.upgrade_actions() if a.give == P["tri_L"]}  # type: ignore[union-attr]
    assert gets == {1, 2, 3}
    assert short.basic_piece() == P["mono"]


# -- Level Up --------------------------------------------------------------------------------------
# The Level Up records share a prefix (ghost_records._level_up_prefix): rounds 1-2 (actions 0-11)
# build domino + tri_I + tri_I for p0 (GB02, ⇈) and p1 (GB01, ↑); round 3 p0 places them
# (actions 12-14), completing GB02 with its third action: the pieces come back and ⇈ opens.
COMPLETE_GB02 = 15


def test_a_double_level_up_opens_two_steps_over_the_supply_with_the_pieces_returned() -> None:
    state = run("level_up_same_piece_to_ghost", COMPLETE_GB02)
    assert state.phase == LEVEL_UP and state.current == 0 and ghosts_of(state) is not None
    assert ghosts_of(state).steps == 2 and state.actions_left == 0
    assert ids(state, state.piles[0]) == ["GB02"] and state.scores[0] == 3
    # the domino and the two tri_I placed on GB02 are back in the supply to level up
    assert supply(state, 0) == {"domino": 1, "tri_I": 2}
    acts = state.legal_actions()
    assert acts == level_up_actions(state)
    assert [(names([a.give])[0], names([a.get])[0]) for a in acts[:-1]] == [
        ("domino", "tri_I"),
        ("domino", "tri_L"),
        ("tri_I", "tet_I"),
        ("tri_I", "tet_O"),
        ("tri_I", "tet_T"),
        ("tri_I", "tet_L"),
        ("tri_I", "tet_S"),
    ]
    assert acts[-1] == LevelUp(None, None)  # declining is a decision, always offered
    with pytest.raises(IllegalActionError, match="exactly one level higher"):
        state.check(0, LevelUp(P["tri_I"], P["tri_L"]))
    with pytest.raises(IllegalActionError, match="has no mono to level up"):
        state.check(0, LevelUp(P["mono"], P["domino"]))
    with pytest.raises(IllegalActionError, match="must be taken or declined first"):
        state.check(0, TakeBasic())
    with pytest.raises(IllegalActionError, match="it is player 0's turn"):
        state.check(1, LevelUp(None, None))
    check_invariants(state)


def test_double_level_up_of_the_same_piece_reaches_a_ghost() -> None:
    # step 1: tri_I -> tet_I; step 2 upgrades that tet_I to pent_L (a Level Up reaches level 5)
    mid = run("level_up_same_piece_to_ghost", COMPLETE_GB02 + 1)
    assert mid.phase == LEVEL_UP and ghosts_of(mid) is not None and ghosts_of(mid).steps == 1
    assert supply(mid, 0) == {"domino": 1, "tri_I": 1, "tet_I": 1}
    ghosts_offered = {names([a.get])[0] for a in level_up_actions(mid) if a.give == P["tet_I"]}
    assert ghosts_offered == {"pent_P", "pent_U", "pent_L"}
    after = run("level_up_same_piece_to_ghost", COMPLETE_GB02 + 2)
    assert supply(after, 0) == {"domino": 1, "tri_I": 1, "pent_L": 1}
    # the completion was p0's third action: the turn ends once the steps are taken
    assert after.phase == PLAY and after.current == 1 and after.actions_left == 3
    with pytest.raises(IllegalActionError, match="no Level Up is open"):
        after.check(1, LevelUp(None, None))
    # p1 completes GB01 (↑: one step), levels its domino up to a tri_L; then p0's turn
    end = run("level_up_same_piece_to_ghost")
    assert supply(end, 1) == {"tri_I": 2, "tri_L": 1}
    assert ghosts_of(end) is not None
    assert (ghosts_of(end).earned, ghosts_of(end).levelled, ghosts_of(end).forgone) == (
        [2, 1],
        [2, 1],
        [0, 0],
    )


def test_double_level_up_of_two_pieces_and_a_declined_single() -> None:
    end = run("level_up_two_pieces")
    # domino -> tri_L and tri_I -> tet_O (then a mono taken in round 4)
    assert supply(end, 0) == {"mono": 1, "tri_I": 1, "tri_L": 1, "tet_O": 1}
    # p1 declined its ↑: its pieces are as GB01 gave them back
    assert supply(end, 1) == {"domino": 1, "tri_I": 2}
    assert ghosts_of(end) is not None
    assert (ghosts_of(end).levelled, ghosts_of(end).forgone) == ([2, 0], [0, 1])


def test_a_declined_first_step_leaves_the_second_open() -> None:
    mid = run("level_up_decline", COMPLETE_GB02 + 1)
    assert mid.phase == LEVEL_UP and ghosts_of(mid) is not None and ghosts_of(mid).steps == 1
    assert supply(mid, 0) == {"domino": 1, "tri_I": 2}
    end = run("level_up_decline")
    assert supply(end, 0) == {"domino": 1, "tri_I": 1, "tet_T": 1}
    assert ghosts_of(end) is not None and (
        ghosts_of(end).levelled[0],
        ghosts_of(end).forgone[0],
    ) == (1, 1)


def test_rewards_resolve_in_the_order_the_puzzles_were_taken() -> None:
    # ghost/level_up_order: GB01 (↑) was taken before GW04 (reward domino); one Master completes
    # both. The ↑ comes first: the two dominoes placed are back, the reward domino is not yet.
    i = index_of("level_up_order", "level_up")
    state = run("level_up_order", i)
    assert state.phase == LEVEL_UP
    assert ids(state, state.piles[0]) == ["GB01", "GW04"]
    assert supply(state, 0) == {"domino": 2, "tri_I": 2}
    end = run("level_up_order")
    # domino -> tri_L, then the domino reward
    assert supply(end, 0) == {"domino": 2, "tri_I": 2, "tri_L": 1}
    assert end.phase == PLAY and end.current == 1


def test_a_level_up_step_with_nothing_to_take_lapses() -> None:
    # judgement call 4: a step no upgrade is possible for lapses by itself (no decision). With
    # the reserve emptied (a contrived state: every piece is somewhere else), p0's completion of
    # GB02 opens its ⇈ with no step possible: both steps lapse, and the turn goes on.
    state = run("level_up_two_pieces", COMPLETE_GB02 - 1)
    state.reserve = [0] * len(CAT.pieces)
    state.apply(action("level_up_two_pieces", COMPLETE_GB02 - 1))
    assert state.phase == PLAY and state.current == 1
    assert ghosts_of(state) is not None
    assert (
        ghosts_of(state).earned[0],
        ghosts_of(state).forgone[0],
        ghosts_of(state).levelled[0],
    ) == (2, 2, 0)
    # a ⇈ whose first step is declined and whose second has nothing left to take
    opened = run("level_up_two_pieces", COMPLETE_GB02)
    opened.reserve = [0] * len(CAT.pieces)
    opened.apply(LevelUp(None, None))
    assert opened.phase == PLAY and opened.current == 1
    assert ghosts_of(opened) is not None and ghosts_of(opened).forgone[0] == 2


def test_level_up_reserve_shortage() -> None:
    # ghost/shortage: no domino is left in the reserve when p0's ↑ (GB01) opens
    i = index_of("shortage", "level_up")
    state = run("shortage", i)
    assert state.phase == LEVEL_UP and reserve(state)["domino"] == 0
    mono_gets = {names([a.get])[0] for a in level_up_actions(state) if a.give == P["mono"]}
    assert mono_gets == {"tri_I", "tri_L"}  # one level higher is empty: the next level
    with pytest.raises(IllegalActionError, match="the reserve has no domino"):
        state.check(0, LevelUp(P["mono"], P["domino"]))
    after = run("shortage", i + 1)
    assert after.supply[0][P["tri_L"]] == state.supply[0][P["tri_L"]] + 1


# -- the Ghost action ------------------------------------------------------------------------------
def test_ghost_decomposition_reserve_shortage() -> None:
    i = index_of("shortage", "ghost")
    state = run("shortage", i)
    assert reserve(state)["domino"] == 0 and state.supply[0][P["pent_U"]] == 1
    takes = {names(t) for t in ghost_takes(state, P["pent_U"])}
    # domino + tri_L: the domino is replaced by a level-3 or level-1 piece (no level 2 is left)
    assert {("tri_L", "tri_L"), ("tri_I", "tri_L"), ("tri_L", "mono")} <= takes
    assert ("tet_L", "mono") in takes and ("mono",) * 5 in takes
    assert not any("domino" in t for t in takes)
    assert all(CAT.levels[P[x]] <= 4 for t in takes for x in t)
    with pytest.raises(IllegalActionError, match="shortage rule applies"):
        state.check(0, Ghost(P["pent_U"], (P["tri_L"], P["domino"])))
    with pytest.raises(IllegalActionError, match="do not form a pent_U"):
        state.check(0, Ghost(P["pent_U"], (P["tet_O"], P["mono"])))
    end = run("shortage")
    assert end.supply[0][P["pent_U"]] == 0 and reserve(end)["pent_U"] == 10
    assert end.supply[0][P["tri_L"]] == state.supply[0][P["tri_L"]] + 2


def test_the_level_4_shortage_of_a_ghost_action_never_takes_a_ghost() -> None:
    # judgement call 5: with every level-4 piece gone, tet_L + mono becomes a lower piece + mono
    state = run("shortage", index_of("shortage", "ghost"))
    for p in CAT.pieces:
        if p.level == 4:
            state.reserve[p.index] = 0
    takes = [names(t) for t in ghost_takes(state, P["pent_U"])]
    assert ("tri_I", "mono") in takes and ("mono", "mono") in takes
    assert not any(CAT.pieces[P[x]].level >= 4 for t in takes for x in t)


# ghost/ghost_action: rounds 1-2 (actions 0-11): p0 gains pent_U and takes GW04; round 3: take
# GW02 (12), the Ghost action (13), place the mono on GW02 (14).
def test_a_ghost_action_places_new_pieces_one_per_puzzle_and_completes_a_puzzle() -> None:
    before = run("ghost_action", 13)
    assert supply(before, 0) == {"domino": 1, "tri_L": 1, "pent_U": 1}
    assert ids(before, before.unfinished(0)) == ["GW04", "GW02"]
    ghost = action("ghost_action", 13)
    assert isinstance(ghost, Ghost) and len(ghost.placements) == 2
    after = run("ghost_action", 14)
    # GW04 completed by the new domino (reward domino); the other domino on GW02; the mono to
    # the supply; the pieces of GW04 come back
    assert ids(after, after.piles[0]) == ["GW01", "GW04"]
    assert supply(after, 0) == {"mono": 1, "domino": 3, "tri_L": 1}
    assert reserve(after)["pent_U"] == 10
    assert (
        after.actions_left == 1
        and ghosts_of(after) is not None
        and ghosts_of(after).exchanges[0] == 1
    )
    end = run("ghost_action")
    assert ids(end, end.piles[0]) == ["GW01", "GW04", "GW02"] and end.current == 1


def test_ghost_action_placements_are_checked() -> None:
    state = run("ghost_action", 13)
    ghost = action("ghost_action", 13)
    gw02, mono = CAT.puzzle_index("GW02"), P["mono"]
    domino_on_gw02 = ghost.placements[1]
    rest = CAT.puzzles[gw02].recess & ~domino_on_gw02[2]
    two = Ghost(ghost.ghost, ghost.take, (domino_on_gw02, (gw02, mono, rest)))
    with pytest.raises(IllegalActionError, match="places two pieces on GW02 in one action"):
        state.check(0, two)
    not_taken = Ghost(ghost.ghost, ghost.take, ((gw02, P["tri_I"], CAT.puzzles[gw02].recess),))
    with pytest.raises(IllegalActionError, match="places a tri_I the exchange did not take"):
        state.check(0, not_taken)
    with pytest.raises(IllegalActionError, match="mono is not a ghost piece"):
        state.check(0, Ghost(mono, ghost.take))
    with pytest.raises(IllegalActionError, match="has no pent_P to exchange"):
        state.check(0, Ghost(P["pent_P"], (P["tet_O"], mono)))
    # the pieces may be written in any order
    state.check(0, Ghost(ghost.ghost, tuple(reversed(ghost.take)), ghost.placements))


def test_ghost_actions_listed_are_what_check_accepts() -> None:
    state = run("ghost_action", 13)
    everything = list(state.legal_actions(master="all"))
    ghosts = [a for a in everything if isinstance(a, Ghost)]
    plain = [a for a in state.legal_actions(master="none") if isinstance(a, Ghost)]
    assert plain == [a for a in ghosts if not a.placements]
    assert len(plain) == 7  # pent_U's seven decompositions, the reserve holding all pieces
    assert action("ghost_action", 13) in ghosts
    assert len(set(ghosts)) == len(ghosts) > len(plain)
    for a in ghosts:
        state.check(0, a)
    rng = random.Random(3)
    for _ in range(200):
        assert sample_ghost(state, rng) in set(ghosts)


def test_no_ghost_action_during_finishing_touches() -> None:
    n = len(load("ghost/finishing")["actions"])
    state = run("finishing", n - 2)
    assert state.phase == FINISHING and state.current == 0
    assert supply(state, 0) == {"mono": 3, "domino": 1, "tri_L": 1, "pent_U": 1}
    with pytest.raises(IllegalActionError, match="no Ghost action during Finishing Touches"):
        state.check(0, Ghost(P["pent_U"], (P["tri_L"], P["domino"])))
    assert not any(isinstance(a, Ghost) for a in state.legal_actions())
    # the ghost is placed like any piece: pent_U + tri_L complete GB02 (⇈), which gives nothing
    end = run("finishing")
    assert end.phase == OVER and ids(end, end.piles[0]) == ["GW01", "GB02"]
    assert end.final_scores() == [3 - 2, 0]
    assert ghosts_of(end) is not None and ghosts_of(end).earned == [0, 0]
    check_invariants(end)


# -- switches --------------------------------------------------------------------------------------
def test_free_ghost_action_costs_no_action() -> None:
    # ghost/free: the ghost_action game with ghost_action="free"
    assert load("ghost/free")["rules"]["ghost_action"] == "free"
    before = run("free", 13)
    assert before.actions_left == 2
    after = run("free", 14)
    assert after.actions_left == 2 and after.current == 0  # the exchange used no action
    end = run("free")
    assert end.current == 0 and end.actions_left == 1  # p0 still has its third action
    # the same actions under the default: the exchange was p0's second action, the turn is over
    default = replay(with_rules(load("ghost/free"), ghost_action="action")).state
    assert default.current == 1


def test_free_ghost_action_is_open_while_the_turn_lasts() -> None:
    state = run("free", 12)  # p0's round 3 starts: three actions left, the ghost held
    assert any(isinstance(a, Ghost) for a in state.legal_actions(master="none"))
    state.check(0, Ghost(P["pent_U"], (P["tri_L"], P["domino"])))


def test_exchange_only_keeps_ghosts_out_of_puzzles() -> None:
    # ghost/exchange_only: the ghost_action game replays (it never places a ghost)
    assert load("ghost/exchange_only")["rules"]["ghost_placement"] == "exchange_only"
    assert ids(run("exchange_only"), run("exchange_only").piles[0]) == ["GW01", "GW04", "GW02"]
    # ghost/finishing under exchange_only: in round 3 p0 may not place its pent_U on GB02
    rec = with_rules(load("ghost/finishing"), ghost_placement="exchange_only")
    n = len(rec["actions"])
    state = replay(prefix(rec, n - 8)).state
    assert state.current == 0 and state.phase == PLAY
    gb02 = CAT.puzzle_index("GB02")
    masks = CAT.fits(CAT.puzzles[gb02].recess)[P["pent_U"]]
    with pytest.raises(IllegalActionError, match="ghost pieces are only exchanged"):
        state.check(0, Place(gb02, P["pent_U"], masks[0]))
    assert not any(a.piece == P["pent_U"] for a in state.place_actions())  # type: ignore[union-attr]
    assert state.placeable_supply(0)[P["pent_U"]] == 0 and state.supply[0][P["pent_U"]] == 1
    default = replay(prefix(load("ghost/finishing"), n - 8)).state
    default.check(0, Place(gb02, P["pent_U"], masks[0]))
    # ... nor in Finishing Touches, where no option places it
    with pytest.raises(IllegalActionError, match="ghost pieces are only exchanged"):
        replay(rec)
    last = replay(prefix(rec, n - 2)).state
    assert last.phase == FINISHING
    assert not any(pl[1] == P["pent_U"] for a in last.legal_actions() for pl in a.placements)  # type: ignore[union-attr]


# -- Finesse ---------------------------------------------------------------------------------------
def test_finesse_place_tile_counts_the_pieces_a_ghost_action_places() -> None:
    # ghost/finesse_place_tile: round 3's tile is C07 (pink, 1 Credit per mono, domino, tri_I
    # or tri_L placed); the Ghost action places two dominoes (2 Credits; its completion of GW04
    # is no placement); the mono completing GW02 pays 1; GW01's domino and tri_L were placed in
    # round 2 (a face-down tile: nothing)
    state = run("finesse_place_tile", 14)
    assert credits_of(state) is not None and credits_of(state).inactive[0] == 2
    end = run("finesse_place_tile")
    assert credits_of(end) is not None and credits_of(end).active[0] == 3


# ghost/finesse_level_up_tile: level_up_two_pieces under C06 (the second Upgrade tile) in round
# 3. Round 3: p0's Places 12-14 (the third completes GB02, ⇈), its steps 15-16; p1's Places
# 17-19 (the third completes GB01, ↑), its decline 20; round 4: p0's mono 21.
def test_finesse_upgrade_tile_pays_each_level_up_received() -> None:
    # rulings, Set C (C05/C06): +1 per ↑ and +2 per ⇈ received, paid as the reward comes up
    # (pink: inactive until the turn ends), whether its steps are used or declined
    assert credits_of(run("finesse_level_up_tile", 14)).inactive == [0, 0]  # type: ignore[union-attr]
    opened = run("finesse_level_up_tile", 15)
    assert opened.phase == LEVEL_UP and credits_of(opened) is not None
    assert credits_of(opened).inactive[0] == 2  # ⇈ received: 2, before any step is taken
    after_steps = run("finesse_level_up_tile", 17)  # the steps are no Upgrade actions
    assert credits_of(after_steps) is not None and credits_of(after_steps).active[0] == 2
    declined = run("finesse_level_up_tile", 21)  # p1's ↑, declined, still paid 1
    assert credits_of(declined) is not None
    assert credits_of(declined).active == [2, 1] and credits_of(declined).inactive == [0, 0]
    assert ghosts_of(declined) is not None and ghosts_of(declined).forgone[1] == 1
    check_invariants(declined)


def test_finesse_level_up_is_not_paid_by_another_round_or_tile() -> None:
    # the same game with the Upgrade tile in round 4 (round 3: C02, Master): round 3 pays none
    rec = load("ghost/finesse_level_up_tile")
    rec["setup"]["finesse_tiles"] = ["A01", "A02", "C02", "C06", "B01", "B02"]
    rec["setup"]["finesse_tiles"] += ["C01", "C03", "C04", "C05"]
    state = replay(prefix(rec, 21)).state
    assert credits_of(state) is not None and credits_of(state).active == [0, 0]
    assert credits_of(state).inactive == [0, 0]
    assert level_up_count("upgrade", 2) == 2
    assert all(level_up_count(k, 2) == 0 for k in ("place", "master", "complete", "take"))


def test_finesse_pink_tiles_read_a_ghost_action() -> None:
    state = run("ghost_action", 13)
    ghost = action("ghost_action", 13)
    t = state.tables
    slots = state.slots[0]
    domino = frozenset({P["domino"]})
    assert pink_count("place", domino, ghost, slots, t.recess) == 2
    assert pink_count("complete", frozenset(), ghost, slots, t.recess) == 1  # GW04
    assert pink_count("master", frozenset(), ghost, slots, t.recess) == 0
    assert pink_count("upgrade", frozenset(), ghost, slots, t.recess) == 0


@pytest.mark.parametrize("free", [False, True])
def test_an_insert_carries_a_ghost_action_unless_it_is_free(free: bool) -> None:
    rec = load("ghost/finesse_place_tile")
    if free:
        rec = with_rules(rec, ghost_action="free")
    state = replay(prefix(rec, 13)).state
    fin = credits_of(state)
    assert fin is not None
    fin.active[0] += 2  # two active Credits (from the bank): an Insert is open
    fin.earned[0] += 2
    fin.bank -= 2
    ghost = action("ghost_action", 13)
    inserted = [a for a in state.legal_actions(master="none") if isinstance(a, Insert)]
    if free:
        assert not any(isinstance(a.inner, Ghost) for a in inserted)
        with pytest.raises(IllegalActionError, match=r"free Ghost action .* is not inserted"):
            state.check(0, Insert(ghost))
        return
    assert Insert(Ghost(ghost.ghost, ghost.take)) in inserted
    state.check(0, Insert(ghost))
    left = state.actions_left
    state.step(0, Insert(ghost))
    assert state.actions_left == left and credits_of(state) is not None
    assert credits_of(state).inserts[0] == 1
    check_invariants(state)


# -- Solo ------------------------------------------------------------------------------------------
def test_solo_mastermind_takes_a_level_up_puzzle_for_nothing() -> None:
    state = run("solo_mastermind")
    assert state.solo is not None and ids(state, state.solo.opponent_pile) == ["GB10"]
    assert state.solo.opponent_score == 5 and state.phase == PLAY
    assert ghosts_of(state) is not None and ghosts_of(state).earned == [0]
    check_invariants(state)


def test_solo_random_locks_are_never_ghosts() -> None:
    from projectl_sim.engine import deal, rng_from_seed

    rules = Rules(players=1, variant="solo", expansions=GHOST, solo_opponent_pieces="random")
    for seed in range(100):
        setup = deal(rules, rng_from_seed(seed))
        pieces = [p for col in setup["locks"] for p in col] + setup["opponent_supply"]
        assert not any(p.startswith("pent_") for p in pieces)


# -- state: views, copies, listings ----------------------------------------------------------------
def test_views_and_copies_carry_the_ghost_block() -> None:
    state = run("level_up_same_piece_to_ghost", COMPLETE_GB02)
    view = state.view(1)
    assert ghosts_of(view) is not None and ghosts_of(view) is not ghosts_of(state)
    assert view.phase == LEVEL_UP and ghosts_of(view).steps == 2  # the Level Up is public
    copy = state.copy()
    copy.apply(LevelUp(None, None))
    assert ghosts_of(copy) is not None and ghosts_of(state) is not None
    assert ghosts_of(state).steps == 2 and ghosts_of(state).forgone == [0, 0]
    assert ghosts_of(copy).steps == 1 and ghosts_of(copy).forgone == [1, 0]
    assert ghosts_of(new_game(Rules(players=2), seed=1)) is None


def _ghost_candidates(state: GameState) -> list[Any]:
    """Placement-free Ghost actions, legal or not: every decomposition and some others."""
    out: list[Any] = []
    gt = ghost_tables(CAT)
    for g in gt.ghosts:
        for d in gt.decompositions[g]:
            out.append(Ghost(g, d))
        out.append(Ghost(g, (P["tri_L"], P["tri_L"])))
        out.append(Ghost(g, (P["tet_I"], P["mono"])))
    out.append(Ghost(P["mono"], (P["mono"],)))
    return out


def _level_up_candidates(state: GameState) -> list[Any]:
    n = len(CAT.pieces)
    return [LevelUp(g, h) for g in range(n) for h in range(n)] + [LevelUp(None, None)]


@pytest.mark.parametrize("switches", [{}, {"ghost_action": "free"}])
def test_legal_actions_are_what_check_accepts(switches: dict[str, str]) -> None:
    def candidates(state: GameState) -> Iterable[Action]:
        if state.phase == LEVEL_UP:
            return _level_up_candidates(state)
        return _ghost_candidates(state)

    rules = Rules(players=2, expansions=GHOST, **switches)
    checked = listing_matches_check(
        rules, range(8), candidates, bot="greedy", phases=(PLAY, LEVEL_UP), share=0.3
    )
    assert checked > 2000


# -- random play -----------------------------------------------------------------------------------
CONFIGS = [
    (2, "standard", GHOST, {}),
    (3, "standard", GHOST, {"ghost_action": "free"}),
    (4, "standard", GHOST, {"ghost_placement": "exchange_only"}),
    (2, "standard", GHOST | {"finesse"}, {}),
    (3, "standard", GHOST | {"finesse"}, {"ghost_action": "free"}),
    (2, "standard", GHOST | {"phoenix"}, {"ghost_placement": "exchange_only"}),
    (4, "standard", GHOST | {"phoenix", "finesse"}, {}),
    (1, "solo", GHOST, {}),
    (1, "solo", GHOST | {"finesse"}, {"ghost_action": "free"}),
    (2, "standard", GHOST | {"ambassador_pack"}, {"ghost_action": "free"}),
    (3, "standard", GHOST | {"ambassador_pack", "phoenix", "finesse"}, {}),
    (1, "solo", GHOST | {"ambassador_pack"}, {"ghost_placement": "exchange_only"}),
    (3, "standard", GHOST | {"ambassador_pack"}, {"endless_white_deck": True}),
    (5, "line_clear", GHOST, {"endless_white_deck": True}),
    (6, "line_clear", GHOST | {"finesse"}, {"ghost_action": "free"}),
    (6, "line_clear", GHOST | {"ambassador_pack"}, {"ghost_placement": "exchange_only"}),
]


def _check(state: GameState, _p: int, _a: object) -> None:
    check_invariants(state)


@pytest.mark.parametrize(("players", "variant", "expansions", "switches"), CONFIGS)
def test_random_ghost_games_keep_every_invariant_and_replay(
    players: int, variant: str, expansions: frozenset[str], switches: dict[str, Any]
) -> None:
    kinds: set[str] = set()
    for seed in range(60):
        rules = Rules(players=players, variant=variant, expansions=expansions, **switches)
        outcome = play_game(rules, [make_bot("random")] * players, seed, on_step=_check)
        state = outcome.state
        assert state.is_over
        rec = outcome.record_json()
        kinds.update(a["type"] for a in rec["actions"])
        again = replay(rec).state
        assert again.final_scores() == state.final_scores()
        assert again.winners() == state.winners()
    if variant != "solo":  # random solo play rarely completes a black puzzle
        assert "level_up" in kinds  # the decisions of the expansion are played and recorded


@pytest.mark.slow
@pytest.mark.parametrize(("players", "variant", "expansions", "switches"), CONFIGS)
def test_many_more_random_ghost_games(
    players: int, variant: str, expansions: frozenset[str], switches: dict[str, Any]
) -> None:
    for seed in range(1000, 1300):
        rules = Rules(players=players, variant=variant, expansions=expansions, **switches)
        play_game(rules, [make_bot("random")] * players, seed, on_step=_check)


def test_greedy_plays_ghosts_and_level_ups() -> None:
    kinds: dict[str, int] = {}
    placed_ghosts = 0
    for seed in range(6):
        rules = Rules(players=2, expansions=GHOST)
        rec = play_game(rules, [make_bot("greedy")] * 2, seed).record_json()
        for a in rec["actions"]:
            kinds[a["type"]] = kinds.get(a["type"], 0) + 1
            if a["type"] in ("place", "master", "finish"):
                pls = a.get("placements", [a])
                placed_ghosts += sum(pl.get("piece", "").startswith("pent_") for pl in pls)
    assert kinds.get("ghost", 0) > 0 and kinds.get("level_up", 0) > 0
    assert placed_ghosts > 0  # it places ghosts when they fit (default switch)


def test_greedy_beats_random_with_ghosts() -> None:
    wins = 0.0
    for seed in range(8):
        for seats in ((0, 1), (1, 0)):
            rules = Rules(players=2, expansions=GHOST)
            bots = [make_bot("greedy"), make_bot("random")]
            w = play_game(rules, [bots[i] for i in seats], seed, record=False).state.winners()
            wins += (seats.index(0) in w) / len(w)
    assert wins >= 14


def test_a_record_of_a_ghost_game_round_trips() -> None:
    rules = Rules(players=3, expansions=GHOST, ghost_action="free")
    outcome = play_game(rules, [make_bot("greedy")] * 3, 11)
    rec = outcome.record_json()
    assert rec["rules"]["ghost_action"] == "free" and rec["setup"].keys() == {
        "first_player",
        "white_deck",
        "black_deck",
    }
    again = replay(rec).state
    assert again.final_scores() == outcome.state.final_scores()
    # an illegal action in a record is a one-line error naming why
    bad = extend(prefix(rec, 0), {"player": rec["setup"]["first_player"], "type": "level_up"})
    with pytest.raises(IllegalActionError, match=r"^action 0 \(player \d\): level up declined no "):
        replay(bad)
