"""The tiling index: its answers against a naive enumeration, pinned counts, plans and the API."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiling_util import assert_tiling, supply

from projectl_sim.catalogue import Catalogue, CatalogueError, cell_mask
from projectl_sim.loading import catalogue_from_dict
from projectl_sim.tiling import fill
from projectl_sim.tiling.fill import (
    FillResult,
    TilingIndex,
    all_completions,
    can_tile,
    cheapest_completion,
    count_tilings,
    counts_of,
    fill_puzzle,
    fill_region,
    isolated_cells,
    min_pieces,
    plan,
    puzzle_empty,
    regions,
    tiling_index,
    why_not,
)

NINE = 9


def naive_tilings(cat: Catalogue, empty: int) -> Counter:
    """Count every tiling per count vector by plain recursion, with no memo and no packing."""
    found: Counter = Counter()

    def go(mask: int, used: list[int]) -> None:
        if not mask:
            found[tuple(used)] += 1
            return
        cell = (mask & -mask).bit_length() - 1
        for piece, masks in enumerate(cat.placements):
            for m in masks:
                if m >> cell & 1 and m & mask == m:
                    used[piece] += 1
                    go(mask ^ m, used)
                    used[piece] -= 1

    go(empty, [0] * len(cat.pieces))
    return found


def random_region(rng: random.Random, recess: int) -> int:
    cells = [c for c in range(25) if recess >> c & 1]
    keep = rng.sample(cells, rng.randint(1, min(len(cells), 8)))
    return sum(1 << c for c in keep)


# -- the index against a naive enumeration ----------------------------------------------------
def test_vectors_match_a_naive_enumeration_on_small_regions(cat: Catalogue) -> None:
    index = TilingIndex(cat)
    rng = random.Random(11)
    for _ in range(150):
        empty = random_region(rng, rng.choice(cat.puzzles).recess)
        naive = naive_tilings(cat, empty)
        got = index.vectors(empty)
        assert sorted(index.unpack(v) for v in got) == sorted(naive)
        assert {index.unpack(v): n for v, n in index.tiling_counts(empty).items()} == dict(naive)


def test_vectors_are_sorted_fewest_pieces_first(cat: Catalogue) -> None:
    index = TilingIndex(cat)
    for puzzle in cat.puzzles:
        sizes = [index.size(v) for v in index.vectors(puzzle.recess)]
        assert sizes == sorted(sizes)
        assert all(sum(index.unpack(v)) == index.size(v) for v in index.vectors(puzzle.recess))


def test_first_is_the_cheapest_covered_vector(cat: Catalogue) -> None:
    index = TilingIndex(cat)
    rng = random.Random(5)
    for _ in range(300):
        puzzle = rng.choice(cat.puzzles)
        counts = [rng.randint(0, 2) for _ in cat.pieces]
        covered = [
            v
            for v in index.vectors(puzzle.recess)
            if all(a <= b for a, b in zip(index.unpack(v), counts, strict=True))
        ]
        assert index.covered(puzzle.recess, counts) == covered
        assert index.first(puzzle.recess, counts) == (covered[0] if covered else None)


# -- pinned figures (checked against CP-SAT's full enumeration) --------------------------------
@pytest.mark.parametrize(
    ("puzzle_id", "tilings", "multisets", "least"),
    [
        ("W01", 15, 8, 2),
        ("W09", 2, 2, 1),
        ("W05", 652, 54, 3),
        ("B13", 234, 42, 2),
        ("B16", 1208, 77, 3),
        ("B06", 9436, 196, 3),
        # 16 cells: the all-mono tiling is out, there are only 15 monos.
        ("B03", 369471, 662, 4),
    ],
)
def test_pinned_tiling_figures(cat, puzzle_id, tilings, multisets, least) -> None:
    recess = cat.puzzle(puzzle_id).recess
    assert count_tilings(cat, recess, supply(cat)) == tilings
    assert len(all_completions(cat, recess, supply(cat))) == multisets
    assert min_pieces(cat, recess, supply(cat)) == least


def test_every_base_puzzle_is_fillable_from_the_supply(cat: Catalogue) -> None:
    assert all(can_tile(cat, p.recess, supply(cat)) for p in cat.puzzles)


# -- the questions ---------------------------------------------------------------------------
def test_small_cases_by_hand(cat: Catalogue) -> None:
    mono, domino = cat.piece_index("mono"), cat.piece_index("domino")
    two = cell_mask([(2, 2), (3, 2)])  # two cells, one above the other
    only = [0] * NINE
    assert not can_tile(cat, two, only)
    monos = only[:]
    monos[mono] = 2
    assert can_tile(cat, two, monos)
    assert cheapest_completion(cat, two, monos) == tuple(2 if i == mono else 0 for i in range(9))
    both = monos[:]
    both[domino] = 1
    assert min_pieces(cat, two, both) == 1
    assert plan(cat, two, both) == [(domino, two)]
    assert all_completions(cat, two, both) == [
        tuple(1 if i == domino else 0 for i in range(9)),
        tuple(2 if i == mono else 0 for i in range(9)),
    ]
    monos[mono] = 1
    assert not can_tile(cat, two, monos)
    assert plan(cat, two, monos) is None


def test_the_empty_region_needs_nothing(cat: Catalogue) -> None:
    nothing = [0] * NINE
    assert can_tile(cat, 0, nothing)
    assert plan(cat, 0, nothing) == []
    assert min_pieces(cat, 0, nothing) == 0
    assert all_completions(cat, 0, nothing) == [(0,) * NINE]


def test_a_diagonal_pair_needs_two_monos(cat: Catalogue) -> None:
    diagonal = cell_mask([(1, 1), (2, 2)])
    lots = [15] * NINE
    assert cheapest_completion(cat, diagonal, lots) == (2, 0, 0, 0, 0, 0, 0, 0, 0)


def test_counts_beyond_the_packed_field_are_clamped_not_wrapped(cat: Catalogue) -> None:
    recess = cat.puzzle("B03").recess
    assert min_pieces(cat, recess, [200] * NINE) == 4  # fits a byte, but not the field
    huge = [1000] * NINE
    assert min_pieces(cat, recess, huge) == 4
    monos_only = [1000] + [0] * 8
    assert min_pieces(cat, recess, monos_only) == 16


def test_negative_counts_count_as_none(cat: Catalogue) -> None:
    two = cell_mask([(2, 2), (3, 2)])
    assert not can_tile(cat, two, [-3, -1, 0, 0, 0, 0, 0, 0, 0])
    assert min_pieces(cat, two, [-3, 1, 0, 0, 0, 0, 0, 0, 0]) == 1


def test_plan_for_places_exactly_the_chosen_multiset(cat: Catalogue) -> None:
    index = tiling_index(cat)
    for puzzle in cat.puzzles[::5]:
        for v in index.vectors(puzzle.recess)[:40]:
            steps = index.plan_for(puzzle.recess, v)
            assert_tiling(cat, puzzle.recess, steps, index.unpack(v))
            assert Counter(p for p, _ in steps) == Counter(
                {i: n for i, n in enumerate(index.unpack(v)) if n}
            )


def test_plan_for_refuses_a_multiset_with_no_tiling(cat: Catalogue) -> None:
    index = tiling_index(cat)
    recess = cat.puzzle("W09").recess  # two cells
    assert index.plan_for(recess, index.pack([0, 0, 1, 0, 0, 0, 0, 0, 0])) is None


def test_pack_round_trips_and_rejects_out_of_range(cat: Catalogue) -> None:
    index = tiling_index(cat)
    counts = (3, 0, 1, 31, 2, 0, 0, 7, 1)
    assert index.unpack(index.pack(counts)) == counts
    assert index.size(index.pack((25, 0, 0, 0, 0, 0, 0, 0, 0))) == 25
    with pytest.raises(ValueError):
        index.pack((32, 0, 0, 0, 0, 0, 0, 0, 0))


def test_a_base_vector_and_its_sort_key_fit_a_machine_word(cat: Catalogue) -> None:
    # compiled, an int of at most 62 bits is arithmetic in a register; a longer one is an object
    # allocated at every operation (the index's hot loops add, subtract and compare vectors)
    index = TilingIndex(cat)
    widest = max(v for puzzle in cat.puzzles for v in index.vectors(puzzle.recess))
    assert widest < 1 << index._key_shift and 26 << index._key_shift < 1 << 62
    owned = index.owned([31] * NINE)[0]
    assert owned < 1 << 62 and index.unpack(owned) == (63,) * NINE  # every guard bit set


def test_cells_counts_a_masks_cells() -> None:
    rng = random.Random(11)
    for mask in [0, 1, (1 << 25) - 1, (1 << 32) - 1, *(rng.getrandbits(25) for _ in range(500))]:
        assert fill._cells(mask) == mask.bit_count()


def test_a_tiny_memo_bound_keeps_answers_and_stays_bounded(cat: Catalogue) -> None:
    small = TilingIndex(cat, max_vectors=2_000)
    big = TilingIndex(cat)
    small.vectors(cat.puzzle("B03").recess)
    assert small.stored_vectors > 2_000  # one build may overshoot the bound...
    small.vectors(cat.puzzle("W09").recess)
    alone = TilingIndex(cat)
    alone.vectors(cat.puzzle("W09").recess)
    assert small.stored_vectors == alone.stored_vectors  # ...the next miss drops the memo first
    rng = random.Random(3)
    for _ in range(200):
        puzzle = rng.choice(cat.puzzles)
        counts = [rng.randint(0, 3) for _ in cat.pieces]
        assert small.first(puzzle.recess, counts) == big.first(puzzle.recess, counts)


def test_the_indexes_of_a_process_share_one_bound_and_keep_their_answers(
    cat: Catalogue, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a worker of a run over many expansion sets holds one index per catalogue: their memos
    # together stay within the process's bound, the oldest dropped first, answers unchanged
    budget = fill.PROCESS_BUDGET
    for index in list(budget.holders):  # the indexes of the tests before: dropped, they refill
        index.clear()
    assert budget.used == 0 and not budget.holders
    monkeypatch.setattr(budget, "limit", 2_000)
    old, new, big = TilingIndex(cat), TilingIndex(cat), TilingIndex(cat)
    old.vectors(cat.puzzle("B03").recess)
    assert old.stored_vectors > 2_000 and old in budget.holders  # one build may overshoot...
    new.vectors(cat.puzzle("W09").recess)
    assert old.stored_vectors == 1 and old not in budget.holders  # ...the next miss drops the
    assert new in budget.holders and new.stored_vectors > 1  # other memo first, not its own
    rng = random.Random(5)
    for _ in range(200):
        puzzle = rng.choice(cat.puzzles)
        counts = [rng.randint(0, 3) for _ in cat.pieces]
        index = rng.choice([old, new])
        assert index.first(puzzle.recess, counts) == big.first(puzzle.recess, counts)
        held = sum(i.stored_vectors - 1 for i in budget.holders)
        assert budget.used == held  # what the bound counts is what the memos hold
    big.clear()
    assert big not in budget.holders
    for index in (old, new):
        index.clear()
    assert budget.used == sum(i.stored_vectors - 1 for i in budget.holders)


def test_the_index_is_one_per_catalogue(cat: Catalogue) -> None:
    assert tiling_index(cat) is tiling_index(cat)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_plan_agrees_with_can_tile_on_random_partial_fills(cat: Catalogue, data) -> None:
    puzzle = cat.puzzles[data.draw(st.integers(0, len(cat.puzzles) - 1), label="puzzle")]
    cells = [c for c in range(25) if puzzle.recess >> c & 1]
    filled = data.draw(st.sets(st.sampled_from(cells)), label="filled")
    counts = data.draw(st.lists(st.integers(0, 4), min_size=9, max_size=9), label="counts")
    empty = puzzle.recess & ~sum(1 << c for c in filled)
    steps = plan(cat, empty, counts)
    assert (steps is not None) == can_tile(cat, empty, counts)
    if steps is not None:
        assert_tiling(cat, empty, steps, counts)
        assert len(steps) == min_pieces(cat, empty, counts)


# -- convenience API -------------------------------------------------------------------------
def test_counts_of_reads_piece_ids(cat: Catalogue) -> None:
    assert counts_of(cat, {"tet_L": 2, "mono": 3}) == (3, 0, 0, 0, 0, 0, 0, 2, 0)
    with pytest.raises(KeyError, match="unknown piece"):
        counts_of(cat, {"pentomino": 1})
    with pytest.raises(ValueError, match="expected 9"):
        counts_of(cat, [1, 2])


def test_puzzle_empty_removes_filled_cells_and_rejects_outsiders(cat: Catalogue) -> None:
    recess = cat.puzzle("B03").recess
    assert puzzle_empty(cat, "B03", [(2, 0), (2, 1)]) == recess & ~cell_mask([(2, 0), (2, 1)])
    with pytest.raises(ValueError, match="not in the recess"):
        puzzle_empty(cat, "B03", [(0, 0)])
    with pytest.raises(KeyError):
        puzzle_empty(cat, "Z99")


def test_fill_puzzle_gives_a_result_with_a_real_plan(cat: Catalogue) -> None:
    owned = {"tet_L": 2, "tri_I": 1, "mono": 3, "tet_O": 2}
    result = fill_puzzle(cat, "B03", owned, [(2, 0), (2, 1)])
    assert result.fillable
    assert result.min_pieces == 5
    assert_tiling(cat, result.empty, result.plan, counts_of(cat, owned))
    assert sum(result.pieces(cat).values()) == 5
    doc = result.to_json(cat)
    assert list(doc) == ["fillable", "min_pieces", "pieces", "plan"]
    assert all(set(step) == {"piece", "cells"} for step in doc["plan"])


def test_fill_reports_no_way_to_fill(cat: Catalogue) -> None:
    result = fill_puzzle(cat, "B03", {"mono": 3})
    assert result == FillResult(cat.puzzle("B03").recess, None)
    assert result.to_json(cat) == {"fillable": False, "min_pieces": None, "pieces": {}, "plan": []}


def test_fill_rejects_an_unknown_solver(cat: Catalogue) -> None:
    with pytest.raises(ValueError, match="unknown solver"):
        fill_region(cat, 0, [0] * NINE, solver="magic")  # type: ignore[arg-type]


# -- the catalogue validator -----------------------------------------------------------------
def test_the_catalogue_validator_rejects_an_unfillable_recess() -> None:
    data = {
        "pieces": {"domino": {"cells": [[0, 0], [0, 1]]}},
        "puzzles": [
            {"id": "ok", "colour": "white", "points": 1, "reward": "domino",
             "rows": ["##...", ".....", ".....", ".....", "....."]},
            {"id": "odd", "colour": "white", "points": 1, "reward": "domino",
             "rows": ["###..", ".....", ".....", ".....", "....."]},
        ],
    }  # fmt: skip
    with pytest.raises(CatalogueError, match="puzzle odd: no combination of pieces can fill"):
        catalogue_from_dict(data)


def test_first_owned_answers_like_first_for_counts_packed_once(cat: Catalogue) -> None:
    index = tiling_index(cat)
    rng = random.Random(11)
    for puzzle in cat.puzzles:
        counts = [rng.randint(0, 3) for _ in cat.pieces]
        owned = index.owned(counts)
        for _ in range(20):
            empty = puzzle.recess & rng.getrandbits(25)
            assert index.first_owned(empty, owned) == (index.first(empty, counts) if empty else 0)


def test_exists_answers_like_the_index_on_new_and_indexed_regions(cat: Catalogue) -> None:
    rng = random.Random(5)
    for puzzle in cat.puzzles:
        for _ in range(15):
            counts = [rng.randint(0, 2) for _ in cat.pieces]
            empty = puzzle.recess & rng.getrandbits(25) | (puzzle.recess & -puzzle.recess)
            fresh = TilingIndex(cat)  # nothing indexed: the depth-first search answers
            expected = tiling_index(cat).first(empty, counts) is not None
            assert fresh.exists(empty, counts) == expected
            assert fresh.stored_masks == 1  # the search left the index alone
            fresh.vectors(empty)
            assert fresh.exists(empty, counts) == expected  # now from the index


def test_cheapest_answers_like_first_and_leaves_small_regions_unindexed(cat: Catalogue) -> None:
    rng = random.Random(23)
    for puzzle in cat.puzzles:
        for _ in range(12):
            counts = [rng.randint(0, 3) for _ in cat.pieces]
            empty = puzzle.recess & rng.getrandbits(25) | (puzzle.recess & -puzzle.recess)
            fresh = TilingIndex(cat)
            expected = tiling_index(cat).first(empty, counts)
            assert fresh.cheapest(empty, counts) == expected
            if empty.bit_count() <= 6:
                assert fresh.stored_masks == 1  # searched within its budget: nothing indexed
        # a whole recess: indexed once, then answered from the index
        counts = [rng.randint(0, 4) for _ in cat.pieces]
        assert tiling_index(cat).cheapest(puzzle.recess, counts) == tiling_index(cat).first(
            puzzle.recess, counts
        )
    assert TilingIndex(cat).cheapest(0, [0] * len(cat.pieces)) == 0


def test_cheapest_narrow_and_wide_keys_and_budget_agree(
    cat: Catalogue, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(31)
    wide = TilingIndex(cat)  # the search's keys in the packed vectors' own 8-bit fields
    wide._key_bits = fill._FIELD_BITS
    wide._at_largest = fill._search_table(cat, fill._FIELD_BITS)
    assert TilingIndex(cat)._key_bits == 4  # nine pieces: every key fits a machine word
    for puzzle in cat.puzzles:
        for _ in range(6):
            counts = [rng.randint(0, 3) for _ in cat.pieces]
            empty = puzzle.recess & rng.getrandbits(25) | (puzzle.recess & -puzzle.recess)
            expected = tiling_index(cat).first(empty, counts)
            assert wide.cheapest(empty, counts) == expected
            starved = TilingIndex(cat)  # a search given up at once: the index answers
            with monkeypatch.context() as patch:
                patch.setattr(fill, "SEARCH_MAX_NODES", 0)
                assert starved.cheapest_owned(empty, starved.owned(counts)) == expected
            assert starved.stored_masks > 1 or expected is None or empty.bit_count() < 2


def test_search_table_holds_the_placements_whose_lowest_cell_it_is(cat: Catalogue) -> None:
    table = fill._search_table(cat, 4)
    for cell in range(25):
        listed = {(piece, m) for piece, _, masks in table[cell] for m in masks}
        expected = {
            (piece, m)
            for piece, masks in enumerate(cat.placements_at[cell])
            for m in masks
            if (m & -m).bit_length() - 1 == cell
        }
        assert listed == expected
        levels = [cat.pieces[piece].level for piece, _, _ in table[cell]]
        assert levels == sorted(levels, reverse=True)  # largest pieces first
        assert all(unit == 1 << 4 * piece for piece, unit, _ in table[cell])


def test_fewest_pieces_bounds_the_cheapest_tiling(cat: Catalogue) -> None:
    rng = random.Random(37)
    index = tiling_index(cat)
    bounded = 0
    for puzzle in cat.puzzles:
        for _ in range(8):
            counts = [rng.randint(0, 3) for _ in cat.pieces]
            empty = puzzle.recess & rng.getrandbits(25)
            v = index.first(empty, counts)
            bound = fill.fewest_pieces(index, empty, counts)
            if v is not None:
                assert bound <= index.size(v)
                bounded += bound == index.size(v)
    assert bounded > 50  # often exact
    assert fill.fewest_pieces(index, 0b111, [0] * len(cat.pieces)) == 26  # nothing covers it


def test_placements_searched_are_the_indexed_plans_placements(cat: Catalogue) -> None:
    rng = random.Random(29)
    index = tiling_index(cat)
    for puzzle in cat.puzzles:
        for _ in range(6):
            empty = puzzle.recess & rng.getrandbits(25)
            vecs = index.vectors(empty)
            for v in rng.sample(vecs, min(4, len(vecs))):
                fresh = TilingIndex(cat)
                assert fresh.placements_searched(empty, v) == index.plan_placements(empty, v)
                assert fresh.stored_masks == 1


def test_isolated_cells_never_pair_cells_across_a_row_end() -> None:
    # cell 4 (top right) and cell 5 (second row, left) are consecutive bits, not neighbours
    assert isolated_cells(cell_mask([(0, 4), (1, 0)])) == cell_mask([(0, 4), (1, 0)])
    assert isolated_cells(cell_mask([(0, 3), (0, 4)])) == 0
    assert isolated_cells(cell_mask([(0, 0), (1, 0), (3, 3)])) == cell_mask([(3, 3)])
    assert isolated_cells(cell_mask([(4, 4), (3, 4), (4, 2)])) == cell_mask([(4, 2)])


def test_lone_cells_beyond_the_monos_make_a_region_unfillable(cat: Catalogue) -> None:
    region = cell_mask([(0, 0), (0, 1), (2, 0), (2, 2)])  # a domino and two lone cells

    def counts(**have: int) -> list[int]:
        return [have.get(p.id, 0) for p in cat.pieces]

    assert not TilingIndex(cat).exists(region, counts(mono=1, domino=1))
    assert not TilingIndex(cat).exists(region, counts(mono=3))
    assert TilingIndex(cat).exists(region, counts(mono=2, domino=1))
    assert TilingIndex(cat).exists(region, counts(mono=4))


def _mask(cells: list[tuple[int, int]]) -> int:
    return sum(1 << (r * 5 + c) for r, c in cells)


@pytest.mark.parametrize(
    ("cells", "pieces", "why"),
    [
        # too few cells
        ([(0, 0), (0, 1), (0, 2)], {"mono": 2}, "the pieces cover 2 of the 3 empty cells"),
        # two lone cells and one mono
        (
            [(0, 0), (0, 2), (2, 2), (2, 3)],
            {"mono": 1, "domino": 2},
            "2 empty cells (0,0 0,2) have no empty neighbour and need a level-1 piece each; "
            "there is 1",
        ),
        # a 2x2 block and a bar: the bar has no piece
        (
            [(0, 0), (0, 1), (1, 0), (1, 1), (3, 0), (3, 1), (3, 2)],
            {"tet_O": 1, "tet_I": 1},
            "the region of 3 cells at 3,0 3,1 3,2 cannot be tiled with these pieces: it lacks "
            "tri_I=1",
        ),
        # two bars: each alone takes the one tri_I
        (
            [(0, 0), (0, 1), (0, 2), (4, 0), (4, 1), (4, 2)],
            {"tri_I": 1, "tri_L": 1, "domino": 1},
            "each of the 2 regions can be tiled alone, but not all at once: the closest, "
            "tri_I=2, lacks tri_I=1",
        ),
        ([(0, 0), (0, 1), (1, 0), (1, 1)], {"tet_O": 1}, ""),  # it can
    ],
)
def test_why_not_names_the_first_reason_that_holds(
    cat: Catalogue, cells: list[tuple[int, int]], pieces: dict[str, int], why: str
) -> None:
    empty = _mask(cells)
    counts = counts_of(cat, pieces)
    assert why_not(cat, empty, counts) == why
    assert bool(why) != can_tile(cat, empty, counts)


def test_regions_are_the_connected_parts(cat: Catalogue) -> None:
    empty = _mask([(0, 0), (0, 1), (1, 1), (0, 4), (1, 4), (4, 0)])
    assert regions(empty) == [
        _mask([(0, 0), (0, 1), (1, 1)]),
        _mask([(0, 4), (1, 4)]),
        _mask([(4, 0)]),
    ]
    assert regions(0) == []
    # the column edges do not wrap: cell (0,4) and (1,0) are not neighbours
    assert len(regions(_mask([(0, 4), (1, 0)]))) == 2


def test_between_games_the_memos_over_their_bounds_are_dropped_and_answer_the_same(
    cat: Catalogue, monkeypatch: pytest.MonkeyPatch
) -> None:
    index, fresh = TilingIndex(cat), TilingIndex(cat)
    index.vectors(cat.puzzle("B03").recess)
    index.exists(cat.puzzle("W09").recess, [2] * len(cat.pieces))
    held = index.stored_vectors
    index.trim()  # within the bounds: kept
    assert index.stored_vectors == held and index._witness
    monkeypatch.setattr(fill, "GAME_MAX_WITNESSES", 0)
    index.trim()
    assert index.stored_vectors == held and not index._witness  # the witnesses alone
    monkeypatch.setattr(fill, "GAME_MAX_VECTORS", held - 1)
    index.trim()
    assert index.stored_vectors == 1
    rng = random.Random(11)
    for _ in range(100):
        puzzle = rng.choice(cat.puzzles)
        counts = [rng.randint(0, 3) for _ in cat.pieces]
        assert index.first(puzzle.recess, counts) == fresh.first(puzzle.recess, counts)


def test_games_played_with_the_memos_dropped_before_each_are_the_same_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bots import make_bot
    from projectl_sim import Rules, play_game
    from projectl_sim.engine import tables

    rules = Rules(players=2)
    bots = [make_bot("random"), make_bot("greedy")]

    def games() -> list[tuple[object, ...]]:
        out = []
        for seed in range(4):
            outcome = play_game(rules, bots, seed)
            out.append((outcome.record.moves, outcome.state.scores))  # type: ignore[union-attr]
        return out

    kept = games()
    monkeypatch.setattr(fill, "GAME_MAX_VECTORS", 0)
    monkeypatch.setattr(fill, "GAME_MAX_WITNESSES", 0)
    monkeypatch.setattr(tables, "GAME_MAX_ENTRIES", 0)
    dropped = games()
    assert dropped == kept
    t = tables.tables_of(rules.catalogue)
    # (a game may index no region: the random bot's Finishing Touches search small ones)
    tiling_index(rules.catalogue).vectors(rules.catalogue.puzzles[0].recess)
    assert t.group_cache and tiling_index(rules.catalogue).stored_vectors > 1
    tables.trim()  # as before the next game
    assert not t.group_cache and tiling_index(rules.catalogue).stored_vectors == 1


def test_owned_packings_are_remembered_within_their_bound(cat: Catalogue) -> None:
    index, fresh = TilingIndex(cat), TilingIndex(cat)
    rng = random.Random(8)
    for _ in range(fill._PACKED_CAP + 50):
        counts = [rng.randint(-1, 130) for _ in cat.pieces]
        assert index.owned(counts) == fresh._owned(counts)
        assert index.owned(tuple(counts)) == fresh._owned(counts)  # remembered, the same
    assert 0 < len(index._packed) <= fill._PACKED_CAP
    with pytest.raises(ValueError, match="expected"):
        index.owned([1, 2])
