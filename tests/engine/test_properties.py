"""Hypothesis properties: placements, and random legal action sequences."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from projectl_sim import Rules
from projectl_sim.catalogue import SIZE, mask_cells, orientations
from projectl_sim.engine import FINISHING, OVER, PLAY, new_game
from projectl_sim.engine.actions import Finish, from_json, to_json
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.loading import base_catalogue

CAT = base_catalogue()


def _shift(mask: int, dr: int, dc: int) -> int | None:
    out = 0
    for r, c in mask_cells(mask):
        r2, c2 = r + dr, c + dc
        if not (0 <= r2 < SIZE and 0 <= c2 < SIZE):
            return None
        out |= 1 << (r2 * SIZE + c2)
    return out


@given(piece=st.integers(0, len(CAT.pieces) - 1), i=st.integers(0, 10_000), dr=st.integers(-4, 4),
       dc=st.integers(-4, 4))  # fmt: skip
def test_placements_are_closed_under_translation(piece: int, i: int, dr: int, dc: int) -> None:
    masks = CAT.placements[piece]
    mask = masks[i % len(masks)]
    moved = _shift(mask, dr, dc)
    if moved is not None:
        assert moved in masks


@given(piece=st.integers(0, len(CAT.pieces) - 1), i=st.integers(0, 10_000))
def test_every_placement_is_an_orientation_of_its_piece(piece: int, i: int) -> None:
    masks = CAT.placements[piece]
    cells = mask_cells(masks[i % len(masks)])
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    norm = tuple(sorted((r - r0, c - c0) for r, c in cells))
    assert norm in orientations(CAT.pieces[piece].cells)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4),
       choices=st.lists(st.integers(0, 2**16), min_size=50, max_size=400))  # fmt: skip
def test_random_legal_sequences_keep_invariants(
    seed: int, players: int, choices: list[int]
) -> None:
    state = new_game(Rules(players=players), seed=seed)
    rng = random.Random(seed)
    for k in choices:
        if state.phase == OVER:
            break
        if state.phase == FINISHING:
            action = Finish(())
        else:
            legal = state.legal_actions(master="none")
            master = state.sample_master(rng) if state.phase == PLAY else None
            if master is not None:
                legal.append(master)
            action = legal[k % len(legal)]
        # the JSON form round-trips
        assert from_json(to_json(action, CAT, state.current), CAT) == (state.current, action)
        before = state.copy()
        state.step(state.current, action)
        check_invariants(state)
        check_invariants(before)  # a copy is independent of the state it came from


@settings(max_examples=300, deadline=None)
@given(
    supply=st.lists(st.integers(0, 2), min_size=9, max_size=9),
    reserve=st.lists(st.integers(0, 3), min_size=9, max_size=9),
)
def test_upgrade_and_basic_piece_follow_the_rulings_for_any_reserve(
    supply: list[int], reserve: list[int]
) -> None:
    """Upgrade B and Upgrade A, worked out from the rulings, for every reserve (full reserves
    take a precomputed path, short ones filter): same level, lower, or one level up (two when
    the level above is out); Upgrade A a mono, else another level-1 shape, else a level-2 one."""
    state = new_game(Rules(players=2), seed=1)
    state.supply[state.current][:] = supply
    state.reserve[:] = reserve
    levels = [p.level for p in state.tables.cat.pieces]
    expected = set()
    for give, held in enumerate(supply):
        if not held:
            continue
        up = levels[give] + 1
        if not any(reserve[p] for p in range(9) if levels[p] == up):
            up += 1  # the reserve shortage
        for get in range(9):
            if get != give and reserve[get] and (levels[get] <= levels[give] or levels[get] == up):
                expected.add((give, get))
    listed = [(a.give, a.get) for a in state.upgrade_actions()]  # type: ignore[attr-defined]
    assert len(listed) == len(set(listed)) and set(listed) == expected
    assert listed == sorted(listed)  # by piece given, then taken: the random bot draws by index
    mono = state.tables.mono
    basic = [p for p in range(9) if reserve[p] and levels[p] == 1] or [
        p for p in range(9) if reserve[p] and levels[p] == 2
    ]
    assert state.basic_piece() == (mono if reserve[mono] else basic[0] if basic else None)
