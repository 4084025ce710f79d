"""The per-catalogue tables' shared action objects (``projectl_sim.engine.tables``).

The hot loops hand out action objects made once per catalogue instead of new ones; each must be
equal to the action it stands for (records, checks and bots compare actions by value).
"""

from __future__ import annotations

import random

import pytest

from projectl_sim.engine.actions import BLACK, PUZZLE, WHITE, Place, TakeDeck, Upgrade
from projectl_sim.engine.tables import Tables, tables_of
from projectl_sim.loading import base_catalogue


@pytest.fixture(scope="module")
def tables() -> Tables:
    return tables_of(base_catalogue())


def test_a_place_is_the_placement_it_names_and_shared(tables: Tables) -> None:
    cat = tables.cat
    for card in (0, len(cat.puzzles) - 1):
        for piece, masks in enumerate(cat.fits(tables.recess[card])):
            for mask in masks[:3]:
                place = tables.place(card, piece, mask)
                assert place == Place(card, piece, mask)
                assert tables.place(card, piece, mask) is place
    # a placement outside the recess (never legal) is still the action it names
    outside = 1 << next(cell for cell in range(25) if not tables.recess[0] >> cell & 1)
    assert tables.place(0, tables.mono, outside) == Place(0, tables.mono, outside)


def test_upgrades_and_blind_takes_are_the_actions_they_name(tables: Tables) -> None:
    n = tables.n_pieces
    for give in range(n):
        for get in range(n):
            assert tables.upgrade_by_give[give][get] == Upgrade(give, get)
    assert [tables.take_deck_actions[c] for c in (WHITE, BLACK, PUZZLE)] == [
        TakeDeck(WHITE),
        TakeDeck(BLACK),
        TakeDeck(PUZZLE),
    ]
    assert tables.piece_of_mask is tables.cat.piece_of_mask


def _groups_by_definition(tables: Tables, card: int, empty: int) -> tuple:
    """Every piece with a placement inside ``empty``, each with those placements, in order."""
    out = []
    for piece, masks in enumerate(tables.cat.fits(tables.recess[card])):
        inside = tuple(m for m in masks if m & empty == m)
        if inside:
            out.append((piece, inside))
    return tuple(out)


@pytest.mark.parametrize("recess_first", [False, True])
def test_fit_groups_are_the_placements_inside_the_region(recess_first: bool) -> None:
    # a fresh Tables (empty caches): a region is asked before its recess, or after it
    tables = Tables(base_catalogue())
    rng = random.Random(5)
    for card in range(0, len(tables.recess), 3):
        recess = tables.recess[card]
        cells = [1 << c for c in range(25) if recess >> c & 1]
        if recess_first:
            assert tables.fit_groups(card, recess) == _groups_by_definition(tables, card, recess)
        for _ in range(6):
            empty = sum(rng.sample(cells, rng.randint(1, len(cells))))
            expected = _groups_by_definition(tables, card, empty)
            assert tables.fit_groups(card, empty) == expected
            assert tables.fit_groups(card, empty) is tables.fit_groups(card, empty)  # cached
        assert tables.fit_groups(card, recess) == _groups_by_definition(tables, card, recess)


def test_fit_groups_of_a_new_region_from_its_parent_are_the_placements_inside_it() -> None:
    # the parent hint (the region before the last placement) cached, not cached, or wrong (not a
    # superset: ignored): the same groups
    tables = Tables(base_catalogue())
    rng = random.Random(8)
    for card in range(0, len(tables.recess), 2):
        recess = tables.recess[card]
        cells = [1 << c for c in range(25) if recess >> c & 1]
        for _ in range(6):
            parent = sum(rng.sample(cells, rng.randint(2, len(cells))))
            if rng.random() < 0.7:
                tables.fit_groups(card, parent)  # cached
            empty = parent & ~(1 << rng.choice([c for c in range(25) if parent >> c & 1]))
            hint = parent if rng.random() < 0.8 else recess & ~empty  # a wrong hint now and then
            assert tables.fit_groups(card, empty, hint) == _groups_by_definition(
                tables, card, empty
            )


def test_max_cells_is_the_largest_piece(tables: Tables) -> None:
    assert tables.max_cells == max(bin(m).count("1") for m in tables.piece_of_mask) == 4
