"""The tiling index and the CP-SAT exact cover give the same answers on every real puzzle."""

from __future__ import annotations

import random

import pytest
from tiling_util import assert_tiling, supply

from projectl_sim.catalogue import Catalogue
from projectl_sim.tiling import cpsat
from projectl_sim.tiling.fill import min_pieces, plan, tiling_index

# Random owned multisets per puzzle: whole recesses, random holes and fills by real placements.
QUERIES_PER_PUZZLE = 48


def random_owned(rng: random.Random, n: int) -> list[int]:
    style = rng.randrange(3)
    if style == 0:  # a small supply, as in play
        counts = [0] * n
        for _ in range(rng.randint(0, 6)):
            counts[rng.randrange(n)] += 1
        return counts
    if style == 1:
        return [rng.randint(0, 2) for _ in range(n)]
    return [rng.randint(0, 4) for _ in range(n)]


def filled_by_placements(rng: random.Random, cat: Catalogue, recess: int) -> int:
    """Return the cells covered by a few random pieces placed inside the recess."""
    filled = 0
    for _ in range(rng.randint(1, 4)):
        empty = recess & ~filled
        fits = [m for masks in cat.fits(empty) for m in masks]
        if not fits:
            break
        filled |= rng.choice(fits)
    return filled


def random_holes(rng: random.Random, recess: int) -> int:
    cells = [c for c in range(25) if recess >> c & 1]
    return sum(1 << c for c in rng.sample(cells, rng.randint(1, len(cells))))


def check_agreement(cat: Catalogue, empty: int, counts) -> None:
    index_plan = plan(cat, empty, counts)
    cp_plan = cpsat.solve(cat, empty, counts)
    where = f"empty={empty:#x} counts={counts}"
    assert (index_plan is None) == (cp_plan is None), where
    if index_plan is not None:
        assert len(index_plan) == len(cp_plan) == min_pieces(cat, empty, counts), where
        assert_tiling(cat, empty, index_plan, counts)
        assert_tiling(cat, empty, cp_plan, counts)


def test_the_tested_ortools_version_is_installed() -> None:
    import ortools

    assert ortools.__version__ == cpsat.TESTED_ORTOOLS_VERSION


def test_whole_recesses_from_the_full_supply(cat: Catalogue) -> None:
    for puzzle in cat.puzzles:
        check_agreement(cat, puzzle.recess, supply(cat))


@pytest.mark.parametrize("puzzle_index", range(52))
def test_random_queries_agree(cat: Catalogue, puzzle_index: int) -> None:
    puzzle = cat.puzzles[puzzle_index]
    rng = random.Random(1000 + puzzle_index)
    for i in range(QUERIES_PER_PUZZLE):
        kind = i % 3
        if kind == 0:
            empty = puzzle.recess
        elif kind == 1:
            empty = puzzle.recess & ~filled_by_placements(rng, cat, puzzle.recess)
        else:
            empty = puzzle.recess & ~random_holes(rng, puzzle.recess)
        check_agreement(cat, empty, random_owned(rng, len(cat.pieces)))


def test_feasibility_solve_agrees_without_minimising(cat: Catalogue) -> None:
    rng = random.Random(8)
    for puzzle in cat.puzzles:
        counts = random_owned(rng, len(cat.pieces))
        assert cpsat.can_tile(cat, puzzle.recess, counts) == (
            plan(cat, puzzle.recess, counts) is not None
        )


def test_enumeration_matches_the_index_on_the_white_puzzles(cat: Catalogue) -> None:
    index = tiling_index(cat)
    for puzzle in cat.puzzles:
        if puzzle.colour != "white":
            continue
        enumerated = cpsat.tiling_vectors(cat, puzzle.recess, supply(cat))
        expected = {
            index.unpack(v): n
            for v, n in index.tiling_counts(puzzle.recess).items()
            if v in index.covered(puzzle.recess, supply(cat))
        }
        assert dict(enumerated) == expected, puzzle.id


def test_enumerate_tilings_lists_real_distinct_tilings(cat: Catalogue) -> None:
    recess = cat.puzzle("W05").recess
    tilings = cpsat.enumerate_tilings(cat, recess, supply(cat))
    assert len(tilings) == len({frozenset(t) for t in tilings}) == 652
    for tiling in tilings[:50]:
        assert_tiling(cat, recess, tiling, supply(cat))
    assert len(cpsat.enumerate_tilings(cat, recess, supply(cat), limit=10)) == 10


@pytest.mark.slow
@pytest.mark.parametrize("puzzle_index", range(52))
def test_full_enumeration_matches_the_index(cat: Catalogue, puzzle_index: int) -> None:
    """Every tiling of every puzzle, by CP-SAT: the same multisets, each as many times."""
    puzzle = cat.puzzles[puzzle_index]
    index = tiling_index(cat)
    owned = supply(cat)
    enumerated = cpsat.tiling_vectors(cat, puzzle.recess, owned)
    covered = set(index.covered(puzzle.recess, owned))
    expected = {
        index.unpack(v): n for v, n in index.tiling_counts(puzzle.recess).items() if v in covered
    }
    assert dict(enumerated) == expected
    assert sum(enumerated.values()) == index.count_tilings(puzzle.recess, owned)
