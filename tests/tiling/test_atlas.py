"""The puzzle atlas: its table, its cost estimate and the files it writes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from projectl_sim.catalogue import Catalogue
from projectl_sim.tiling.atlas import (
    ATLAS_COLUMNS,
    acquire_actions,
    atlas_table,
    plot_atlas,
    write_atlas,
)


@pytest.fixture(scope="module")
def table(cat: Catalogue) -> pd.DataFrame:
    return atlas_table(cat)


def counts(cat: Catalogue, **pieces: int) -> tuple[int, ...]:
    return tuple(pieces.get(p.id, 0) for p in cat.pieces)


def test_one_row_per_puzzle_in_catalogue_order(cat: Catalogue, table: pd.DataFrame) -> None:
    assert list(table.columns) == list(ATLAS_COLUMNS)
    assert list(table["id"]) == [p.id for p in cat.puzzles]
    assert (table["colour"] == "white").sum() == 32
    assert (table["colour"] == "black").sum() == 20
    # no ghost pieces, no expansion, no provisional data in the base game
    assert not table["admits_ghost"].any() and not table["provisional"].any()
    assert set(table["expansion"]) == {"base"}


def test_rows_hold_the_pinned_figures(table: pd.DataFrame) -> None:
    w01 = table.set_index("id").loc["W01"]
    assert (w01.points, w01.reward, w01.cells) == (2, "domino", 5)
    assert (w01.tilings, w01.multisets, w01.min_pieces) == (15, 8, 2)
    assert w01.cheapest == "domino=1,tri_I=1"
    assert w01.points_per_cell == pytest.approx(0.4)
    # mono -> domino -> tri_I is two upgrades; the starting domino is already there
    assert (w01.acquire_actions, w01.total_actions) == (2, 4)
    b03 = table.set_index("id").loc["B03"]
    assert (b03.cells, b03.tilings, b03.multisets, b03.min_pieces) == (16, 369471, 662, 4)
    assert b03.rows == "...../..#../#####/#####/#####"


def test_every_cheapest_multiset_has_min_pieces_pieces(table: pd.DataFrame) -> None:
    for row in table.itertuples():
        assert sum(int(item.split("=")[1]) for item in row.cheapest.split(",")) == row.min_pieces
        assert row.total_actions >= row.acquire_actions + row.min_pieces
        assert row.multisets <= row.tilings


def test_acquire_actions_from_the_starting_supply(cat: Catalogue) -> None:
    assert acquire_actions(cat, counts(cat)) == 0
    assert acquire_actions(cat, counts(cat, mono=1, domino=1)) == 0
    assert acquire_actions(cat, counts(cat, mono=2)) == 1  # take one mono
    assert acquire_actions(cat, counts(cat, domino=2)) == 1  # upgrade the mono
    assert acquire_actions(cat, counts(cat, tet_L=1)) == 2  # the domino climbs twice
    assert acquire_actions(cat, counts(cat, tet_L=2)) == 5  # and the mono three times
    assert acquire_actions(cat, counts(cat, tet_L=3)) == 9  # the third: take and three upgrades
    # a swap to a lower level is one action, no better than taking a mono
    assert acquire_actions(cat, counts(cat, mono=2, tet_O=1)) == 3
    assert acquire_actions(cat, counts(cat, tri_I=1), start={}) == 3


def test_write_atlas_writes_csv_parquet_and_png(table: pd.DataFrame, tmp_path: Path) -> None:
    paths = write_atlas(table, tmp_path / "atlas")
    assert [p.name for p in paths] == ["puzzles.csv", "puzzles.parquet", "puzzles.png"]
    back = pd.read_parquet(paths[1])
    pd.testing.assert_frame_equal(back, table)
    assert pd.read_csv(paths[0])["id"].tolist() == table["id"].tolist()
    assert paths[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_atlas_draws_into_a_given_axes(table: pd.DataFrame) -> None:
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    assert plot_atlas(table, ax) is ax
    assert len(ax.patches) == 52 * 25
    labels = [t.get_text() for t in ax.texts]
    assert "B03  5 pt" in labels
    assert any(label.startswith("reward mono\nmin 4") for label in labels)
