"""The shipped catalogue, placement tables and the validation of custom catalogue files."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path

import pytest

from projectl_sim.catalogue import Catalogue, CatalogueError, mask_cells, orientations
from projectl_sim.loading import (
    EXPANSION_FILES,
    EXPANSIONS,
    _read_puzzle_set,
    catalogue_from_dict,
    combine,
    load_catalogue,
)

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "base_catalogue.json"


def _raw() -> dict:
    return json.loads(
        resources.files("projectl_sim").joinpath("data/base_catalogue.json").read_text("utf-8")
    )


def test_shipped_catalogue_has_the_real_pieces_and_puzzles(cat: Catalogue) -> None:
    assert cat.piece_ids == (
        "mono", "domino", "tri_I", "tri_L", "tet_I", "tet_O", "tet_T", "tet_L", "tet_S",
    )  # fmt: skip
    ids = [p.id for p in cat.puzzles]
    assert ids == [f"W{i:02d}" for i in range(1, 33)] + [f"B{i:02d}" for i in range(1, 21)]
    assert [p.level for p in cat.pieces] == [1, 2, 3, 3, 4, 4, 4, 4, 4]
    assert all(p.copies == 15 for p in cat.pieces)
    assert sum(p.points for p in cat.puzzles if p.colour == "black") == 77
    assert cat.puzzle("B03").cells == 16
    assert cat.puzzle("W09").reward == "mono"


@pytest.mark.skipif(not SHARED.exists(), reason="the shared data folder is not beside the repo")
def test_shipped_catalogue_equals_the_source_of_truth() -> None:
    assert _raw() == json.loads(SHARED.read_text("utf-8"))


def test_placement_counts_are_pinned(cat: Catalogue) -> None:
    counts = {p.id: len(cat.placements[p.index]) for p in cat.pieces}
    assert counts == {
        "mono": 25, "domino": 40, "tri_I": 30, "tri_L": 64, "tet_I": 20,
        "tet_O": 16, "tet_T": 48, "tet_L": 96, "tet_S": 48,
    }  # fmt: skip
    orient = {p.id: len(orientations(p.cells)) for p in cat.pieces}
    assert orient == {
        "mono": 1, "domino": 2, "tri_I": 2, "tri_L": 4, "tet_I": 2,
        "tet_O": 1, "tet_T": 4, "tet_L": 8, "tet_S": 4,
    }  # fmt: skip


def test_placements_are_distinct_masks_of_the_right_size(cat: Catalogue) -> None:
    for piece in cat.pieces:
        masks = cat.placements[piece.index]
        assert len(set(masks)) == len(masks)
        assert all(m.bit_count() == piece.level for m in masks)
        assert all(cat.shape_of(piece.index, m) for m in masks)


def test_mask_cells_follow_the_printed_grid(cat: Catalogue) -> None:
    assert mask_cells(cat.puzzle("W09").recess) == [(2, 2), (3, 2)]
    assert mask_cells(cat.puzzle("W27").recess) == [(2, 1), (2, 2), (2, 3)]


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["puzzles"][4].update(rows=["....", "#####", ".....", ".....", "....."]),
            "W05: row 0",
        ),
        (lambda d: d["puzzles"][2].update(reward="tet_Q"), "W03: unknown reward piece 'tet_Q'"),
        (lambda d: d["puzzles"][7].update(id="W01"), "W01: duplicate id"),
        (lambda d: d["puzzles"][0].update(rows=["....."] * 5), "W01: empty recess"),
        (lambda d: d["puzzles"][1].update(colour="grey"), "W02: colour 'grey'"),
    ],
)
def test_malformed_catalogue_names_the_puzzle_and_problem(tmp_path, mutate, message) -> None:
    data = _raw()
    mutate(data)
    with pytest.raises(CatalogueError, match=message):
        load_catalogue(_write(tmp_path, data))


def test_unfillable_recess_is_rejected(tmp_path) -> None:
    data = _raw()
    # Without the mono, a single isolated cell can never be filled.
    data["pieces"].pop("mono")
    for p in data["puzzles"]:
        if p["reward"] == "mono":
            p["reward"] = "domino"
    data["puzzles"].append(
        {"id": "X01", "colour": "white", "points": 1, "reward": "domino",
         "rows": [".....", ".#...", ".....", "..##.", "....."]}
    )  # fmt: skip
    data["puzzles"] = [p for p in data["puzzles"] if p["id"] in ("W10", "X01")]
    with pytest.raises(CatalogueError, match="X01: no combination of pieces can fill"):
        load_catalogue(_write(tmp_path, data))


@pytest.mark.parametrize("names", [(n,) for n in EXPANSIONS] + [tuple(EXPANSIONS)], ids=str)
def test_every_shipped_puzzle_set_is_fillable_as_shipped(names: tuple[str, ...]) -> None:
    # what a process loading the shipped data no longer checks each time (load_catalogue): each
    # shipped set's puzzles, with the pieces of the catalogue it joins, one set and all of them
    base = load_catalogue()
    with_them = combine(base, [_read_puzzle_set(n, None) for n in names], check_fillable=True)
    assert len(with_them.puzzles) > len(base.puzzles)
    shipped = load_catalogue(expansions=names)
    assert [p.recess for p in shipped.puzzles] == [p.recess for p in with_them.puzzles]


def test_a_users_data_is_still_checked_for_fillability(tmp_path, monkeypatch) -> None:
    import projectl_sim.loading as loading

    checked: list[int] = []

    def never(cat, recess, counts) -> bool:  # every recess found unfillable, and counted
        checked.append(recess)
        return False

    monkeypatch.setattr(loading, "can_tile", never)
    monkeypatch.setattr(loading, "_COMBINED", {})
    name = EXPANSIONS[0]
    assert load_catalogue(expansions=[name]).puzzles  # the shipped data: not checked again
    assert checked == []
    text = resources.files("projectl_sim").joinpath(EXPANSION_FILES[name]).read_text("utf-8")
    path = tmp_path / "mine.json"
    path.write_text(text)
    with pytest.raises(CatalogueError, match="no combination of pieces can fill its recess"):
        load_catalogue(expansions=[name], overrides={name: path})  # a user's file: checked
    with pytest.raises(CatalogueError, match="no combination of pieces can fill its recess"):
        load_catalogue(_write(tmp_path, _raw()))  # a user's catalogue too
    assert len(checked) == 2


def test_custom_catalogue_loads_and_is_marked(tmp_path) -> None:
    data = _raw()
    data["puzzles"] = data["puzzles"][:10] + data["puzzles"][40:]
    data["puzzles"][0]["provisional"] = True
    cat = load_catalogue(_write(tmp_path, data))
    assert len(cat.puzzles) == 22
    assert cat.provisional and cat.source.endswith("cat.json")


def test_not_json_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{nope")
    with pytest.raises(CatalogueError, match="malformed JSON"):
        load_catalogue(path)


def test_piece_level_must_match_its_cells() -> None:
    data = _raw()
    data = copy.deepcopy(data)
    data["pieces"]["tri_I"]["level"] = 4
    with pytest.raises(CatalogueError, match="piece tri_I: level 4"):
        catalogue_from_dict(data)
