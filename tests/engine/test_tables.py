"""The per-catalogue tables' shared action objects (``projectl_sim.engine.tables``).

The hot loops hand out action objects made once per catalogue instead of new ones; each must be
equal to the action it stands for (records, checks and bots compare actions by value).
"""

from __future__ import annotations

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
