"""Expansion data: ghost pieces, rewards beyond a piece, the provisional puzzle sets, combining.

Engine behaviour of the expansions (Ghost action, Level Up, Ambassador) is not tested here: this
is the catalogue layer it will stand on.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from paths import ROOT
from tiling_util import assert_tiling

from projectl_sim.catalogue import (
    AMBASSADOR,
    EXPANSIONS,
    LEVEL_UP_1,
    LEVEL_UP_2,
    Catalogue,
    CatalogueError,
    orientations,
)
from projectl_sim.loading import base_catalogue, catalogue_from_dict, combine, load_catalogue
from projectl_sim.tiling import cpsat
from projectl_sim.tiling.fill import admits_ghost, can_tile, can_tile_using, plan, tiling_index

ALL = frozenset(EXPANSIONS)


def shipped(name: str) -> dict:
    text = resources.files("projectl_sim").joinpath(f"data/{name}.json").read_text("utf-8")
    return json.loads(text)


def base_raw() -> dict:
    return shipped("base_catalogue")


def write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def every() -> Catalogue:
    return load_catalogue(expansions=ALL)


def supply(cat: Catalogue) -> tuple[int, ...]:
    return tuple(p.copies for p in cat.pieces)


# -- ghost pieces ----------------------------------------------------------------------------------
def test_ghost_pieces_and_their_placements_are_pinned(every: Catalogue) -> None:
    ghosts = {every.pieces[i].id: every.pieces[i] for i in every.ghost_pieces}
    assert list(ghosts) == ["pent_P", "pent_U", "pent_L"]
    assert all(p.level == 5 and p.copies == 10 for p in ghosts.values())
    assert {pid: len(orientations(p.cells)) for pid, p in ghosts.items()} == {
        "pent_P": 8, "pent_U": 4, "pent_L": 8,
    }  # fmt: skip
    # By hand: an orientation with an h x w bounding box has (6 - h) * (6 - w) positions on 5x5.
    # P: 4 orientations 3x2 and 4 orientations 2x3, 12 positions each: 8 * 12 = 96.
    # U: 2 orientations 2x3 and 2 orientations 3x2 (one reflection maps U to itself): 4 * 12 = 48.
    # L: 4 orientations 4x2 and 4 orientations 2x4, 2 * 4 = 8 positions each: 8 * 8 = 64.
    counts = {pid: len(every.placements[p.index]) for pid, p in ghosts.items()}
    assert counts == {"pent_P": 96, "pent_U": 48, "pent_L": 64}
    for p in ghosts.values():
        masks = every.placements[p.index]
        assert len(set(masks)) == len(masks)
        assert all(m.bit_count() == 5 and every.shape_of(p.index, m) for m in masks)
    # no mask is a placement of two different ghosts (they are different shapes)
    all_masks = [m for p in ghosts.values() for m in every.placements[p.index]]
    assert len(set(all_masks)) == len(all_masks)


def test_the_base_catalogue_is_unchanged_without_expansions(cat: Catalogue) -> None:
    assert load_catalogue() is cat
    assert load_catalogue(expansions=()) is cat
    assert cat.ghost_pieces == () and cat.expansions == () and cat.provisional_sets == ()
    assert not cat.provisional and cat.expansion_features() == ()
    assert {p.expansion for p in cat.puzzles} == {"base"}
    assert all(p.reward_piece == p.reward and p.level_ups == 0 for p in cat.puzzles)
    before = (cat.pieces, cat.puzzles, tiling_index(cat))
    load_catalogue(expansions=ALL)
    assert (cat.pieces, cat.puzzles, tiling_index(cat)) == before
    assert len(cat.pieces) == 9 and len(cat.puzzles) == 52


# -- the shipped provisional sets ------------------------------------------------------------------
def test_ghost_piece_set_follows_the_issue(every: Catalogue) -> None:
    doc = shipped("ghost_piece")
    assert doc["provisional"] is True and doc["expansion"] == "ghost_piece" and doc["design"]
    assert all(p["provisional"] is True for p in doc["puzzles"])
    puzzles = [p for p in every.puzzles if p.expansion == "ghost_piece"]
    white = [p for p in puzzles if p.colour == "white"]
    black = [p for p in puzzles if p.colour == "black"]
    assert [p.id for p in white] == [f"GW{i:02d}" for i in range(1, 13)]
    assert [p.id for p in black] == [f"GB{i:02d}" for i in range(1, 13)]
    # base proportions 11/13/8 of 32 white and 8/7/5 of 20 black, scaled to 12
    assert sorted(p.points for p in white) == [0] * 4 + [1] * 5 + [2] * 3
    assert sorted(p.points for p in black) == [3] * 5 + [4] * 4 + [5] * 3
    ghost_ids = {every.pieces[i].id for i in every.ghost_pieces}
    assert {p.reward for p in white if p.reward in ghost_ids} == ghost_ids
    assert all(p.reward_piece is not None for p in white)
    rewards = [p.reward for p in black]
    assert rewards.count(LEVEL_UP_1) == 4 and rewards.count(LEVEL_UP_2) == 4
    assert [p.level_ups for p in black if p.reward_piece is None] == [
        1 if r == LEVEL_UP_1 else 2 for r in rewards if r in (LEVEL_UP_1, LEVEL_UP_2)
    ]


def test_ambassador_and_phoenix_sets_follow_the_issue(every: Catalogue) -> None:
    for name in ("ambassador_pack", "phoenix"):
        doc = shipped(name)
        assert doc["provisional"] is True and doc["design"] and doc.get("pieces", {}) == {}
    ambassador = [p for p in every.puzzles if p.expansion == "ambassador_pack"]
    assert [(p.id, p.colour) for p in ambassador] == [
        ("AW01", "white"), ("AB01", "black"), ("AB02", "black"),
    ]  # fmt: skip
    assert all(p.reward == AMBASSADOR and p.gives_ambassador for p in ambassador)
    phoenix = [p for p in every.puzzles if p.expansion == "phoenix"]
    assert len(phoenix) == 7 and all(p.colour == "black" and p.points == 6 for p in phoenix)
    largest_five = max(p.cells for p in every.puzzles if p.points == 5)
    assert all(p.cells > largest_five for p in phoenix)
    levels = {p.id: p.level for p in every.pieces}
    assert all(levels[p.reward] <= 2 for p in phoenix)  # small rewards


def test_every_expansion_puzzle_is_provisional_with_a_unique_id(every: Catalogue) -> None:
    extra = every.puzzles[52:]
    assert len(extra) == 24 + 3 + 7
    assert all(p.provisional for p in extra)
    assert len({p.id for p in every.puzzles}) == len(every.puzzles)
    assert [p.index for p in every.puzzles] == list(range(len(every.puzzles)))


def test_recesses_fill_with_levels_1_to_4_and_half_the_ghost_set_admits_a_ghost(
    every: Catalogue,
) -> None:
    levels_1_4 = every.without_ghosts(supply(every))
    assert all(n == 0 for i, n in enumerate(levels_1_4) if i in every.ghost_pieces)
    for puzzle in every.puzzles[52:]:
        assert can_tile(every, puzzle.recess, levels_1_4), puzzle.id
    ghost_set = [p for p in every.puzzles if p.expansion == "ghost_piece"]
    admitting = [p.id for p in ghost_set if admits_ghost(every, p.recess)]
    assert 2 * len(admitting) >= len(ghost_set)
    assert len(admitting) < len(ghost_set)  # small white recesses cannot hold 5 cells
    assert not admits_ghost(every, every.puzzle("GW04").recess)  # 2 cells


def test_index_and_cpsat_agree_on_every_expansion_puzzle(every: Catalogue) -> None:
    full = supply(every)
    ghosts = every.ghost_pieces
    rng = random.Random(7)
    for puzzle in every.puzzles[52:]:
        for counts in (full, [rng.randint(0, 2) for _ in full]):
            levels_1_4 = every.without_ghosts(counts)
            where = f"{puzzle.id} counts={counts}"
            assert can_tile(every, puzzle.recess, levels_1_4) == cpsat.can_tile(
                every, puzzle.recess, levels_1_4
            ), where
            assert can_tile_using(every, puzzle.recess, counts, ghosts) == cpsat.can_tile(
                every, puzzle.recess, counts, using_one_of=ghosts
            ), where


def test_random_queries_with_ghosts_agree_on_the_fewest_pieces(every: Catalogue) -> None:
    """Partly filled expansion recesses, small random supplies with ghosts: same answers."""
    rng = random.Random(2026)
    for puzzle in every.puzzles[52:]:
        for _ in range(4):
            empty = puzzle.recess
            for _ in range(rng.randint(0, 2)):
                fits = [m for masks in every.fits(empty) for m in masks]
                if fits:
                    empty &= ~rng.choice(fits)
            counts = [rng.randint(0, 3) for _ in every.pieces]
            index_plan = plan(every, empty, counts)
            cp_plan = cpsat.solve(every, empty, counts)
            where = f"{puzzle.id} empty={empty:#x} counts={counts}"
            assert (index_plan is None) == (cp_plan is None), where
            if index_plan is not None:
                assert len(index_plan) == len(cp_plan), where
                assert_tiling(every, empty, index_plan, counts)
                assert_tiling(every, empty, cp_plan, counts)


def enumeration_matches(cat: Catalogue, recess: int) -> bool:
    """Return whether CP-SAT's every tiling gives the index's counts per multiset."""
    index = tiling_index(cat)
    owned = supply(cat)
    covered = set(index.covered(recess, owned))
    expected = {index.unpack(v): n for v, n in index.tiling_counts(recess).items() if v in covered}
    return dict(cpsat.tiling_vectors(cat, recess, owned)) == expected


def test_enumeration_with_ghosts_matches_the_index_on_small_recesses(every: Catalogue) -> None:
    small = [p for p in every.puzzles[52:] if p.cells <= 10]
    assert len(small) >= 15
    for puzzle in small:
        assert enumeration_matches(every, puzzle.recess), puzzle.id


@pytest.mark.slow
def test_enumeration_with_ghosts_matches_the_index_up_to_13_cells(every: Catalogue) -> None:
    """The 11-13-cell expansion recesses (~17 s); larger ones have 10^5-10^6 tilings each."""
    for puzzle in every.puzzles[52:]:
        if 10 < puzzle.cells <= 13:
            assert enumeration_matches(every, puzzle.recess), puzzle.id


def test_a_tiling_with_a_ghost_really_uses_one(every: Catalogue) -> None:
    index = tiling_index(every)
    recess = every.puzzle("GB03").recess
    v = index.first_using(recess, supply(every), every.ghost_pieces)
    assert v is not None and any(index.unpack(v)[g] for g in every.ghost_pieces)
    steps = cpsat.solve(every, recess, supply(every), using_one_of=every.ghost_pieces)
    assert steps is not None and any(piece in every.ghost_pieces for piece, _ in steps)
    # without any ghost owned, neither solver finds one
    none = every.without_ghosts(supply(every))
    assert not can_tile_using(every, recess, none, every.ghost_pieces)
    assert not cpsat.can_tile(every, recess, none, using_one_of=every.ghost_pieces)


def test_the_design_script_reproduces_the_shipped_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "design_expansions.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    for name in EXPANSIONS:
        assert json.loads((tmp_path / f"{name}.json").read_text("utf-8")) == shipped(name), name


# -- the catalogue API ---------------------------------------------------------------------------
def test_combining_is_in_a_fixed_order_and_cached() -> None:
    a = load_catalogue(expansions=["phoenix", "ghost_piece"])
    assert a is load_catalogue(expansions=frozenset({"ghost_piece", "phoenix"}))
    assert load_catalogue(expansions="phoenix") is load_catalogue(expansions=["phoenix"])
    assert a.expansions == ("ghost_piece", "phoenix") == a.provisional_sets
    assert a.name == "base+ghost_piece+phoenix" and a.source == "builtin" and a.provisional
    assert [p.id for p in a.puzzles[52:]][::12] == ["GW01", "GB01", "PB01"]
    assert len(a.pieces) == 12
    phoenix = load_catalogue(expansions=["phoenix"])
    assert len(phoenix.pieces) == 9 and phoenix.ghost_pieces == ()
    assert phoenix.expansion_features() == ()  # 6-point puzzles need no new engine rule
    assert combine(base_catalogue(), []) is not base_catalogue()


def test_a_user_file_replaces_a_provisional_set(tmp_path: Path) -> None:
    doc = shipped("ghost_piece")
    doc["provisional"] = False
    doc["puzzles"] = [dict(p, provisional=False) for p in doc["puzzles"][:3]]
    doc["puzzles"][0]["rows"] = ["#####", "#####", ".....", ".....", "....."]
    path = write(tmp_path, "real_ghost.json", doc)
    cat = load_catalogue(expansions=["ghost_piece", "phoenix"], overrides={"ghost_piece": path})
    assert cat.provisional_sets == ("phoenix",)
    assert [p.id for p in cat.puzzles[52:55]] == ["GW01", "GW02", "GW03"]
    assert cat.puzzle("GW01").cells == 10 and not cat.puzzle("GW01").provisional
    assert str(path) in cat.source
    assert cat is not load_catalogue(expansions=["ghost_piece", "phoenix"])


def test_a_whole_catalogue_may_use_every_reward_kind(tmp_path: Path) -> None:
    data = base_raw()
    data["pieces"]["pent_U"] = {"cells": [[0, 0], [0, 2], [1, 0], [1, 1], [1, 2]], "copies": 10}
    data["puzzles"][0]["reward"] = LEVEL_UP_2
    data["puzzles"][1]["reward"] = "pent_U"
    data["puzzles"][2]["reward"] = AMBASSADOR
    cat = load_catalogue(write(tmp_path, "mine.json", data))
    assert cat.puzzles[0].level_ups == 2 and cat.puzzles[0].reward_piece is None
    assert cat.pieces[cat.piece_index("pent_U")].is_ghost
    assert cat.expansion_features() == (
        "ghost pieces", "level_up_2 rewards", "ambassador rewards",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["puzzles"][3].update(reward="level_up_3"),
            "ghost_piece: puzzle GW04: unknown reward piece 'level_up_3'",
        ),
        (lambda d: d["puzzles"][5].update(id="B07"), "ghost_piece: puzzle B07: duplicate id"),
        (lambda d: d["puzzles"][1].update(provisional="yes"), "puzzle GW02: provisional must"),
        (lambda d: d.update(expansion="phoenix"), "is the expansion puzzle set 'phoenix'"),
        (lambda d: d["pieces"].update(ambassador=d["pieces"]["pent_P"]), "piece ambassador: the"),
        (
            lambda d: d["pieces"]["pent_L"].update(
                cells=[[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]], orientations=2
            ),
            "ghost_piece: piece pent_L: differs",
        ),
        (lambda d: d.update(design=3), "design must be a string"),
    ],
)
def test_a_bad_replacement_file_is_one_line_naming_the_puzzle(
    tmp_path: Path, mutate, message
) -> None:
    doc = shipped("ghost_piece")
    doc["pieces"]["pent_L"] = dict(doc["pieces"]["pent_L"])
    mutate(doc)
    path = write(tmp_path, "g.json", doc)
    # a replacement pent_L differing from the catalogue's own: a whole catalogue that has one
    data = base_raw()
    data["pieces"]["pent_L"] = shipped("ghost_piece")["pieces"]["pent_L"]
    base = write(tmp_path, "base.json", data)
    with pytest.raises(CatalogueError, match=message) as info:
        load_catalogue(base, expansions=["ghost_piece"], overrides={"ghost_piece": path})
    assert "\n" not in str(info.value)


def test_unknown_names_and_misplaced_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="unknown expansion 'finesse'"):
        load_catalogue(expansions=["finesse"])
    with pytest.raises(CatalogueError, match="replaces expansion 'phoenix', which is not"):
        load_catalogue(expansions=["ghost_piece"], overrides={"phoenix": "x.json"})
    with pytest.raises(CatalogueError, match="not a whole catalogue"):
        catalogue_from_dict(shipped("phoenix"))
    unfillable = shipped("phoenix")
    unfillable["puzzles"][0]["rows"] = ["#.#.#", ".....", ".....", ".....", "....."]
    for puzzle in unfillable["puzzles"]:
        puzzle["reward"] = "domino"
    doc = base_raw()  # a whole catalogue without the mono: single cells cannot be filled
    doc["pieces"].pop("mono")
    doc["puzzles"] = [dict(p, reward="domino") for p in doc["puzzles"] if p["id"] == "W10"]
    with pytest.raises(CatalogueError, match="phoenix: puzzle PB01: no combination of pieces"):
        load_catalogue(
            write(tmp_path, "nomono.json", doc),
            expansions=["phoenix"],
            overrides={"phoenix": write(tmp_path, "p.json", unfillable)},
        )


def test_play_and_run_refuse_expansion_content_without_its_expansion(
    tmp_path: Path, capsys
) -> None:
    from projectl_sim.cli import main
    from projectl_sim.errors import ProjectLError
    from projectl_sim.sim.spec import RunSpec, configurations

    data = base_raw()
    data["puzzles"][0]["reward"] = LEVEL_UP_1
    path = write(tmp_path, "levelup.json", data)
    assert main(["play", "--seed", "1", "--bots", "random,random", "--catalogue", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "has level_up_1 rewards: play it with the ghost_piece expansion" in err
    assert "\n" not in err
    spec = RunSpec.from_mapping({"bots": ["random,random"], "catalogue": str(path)})
    with pytest.raises(ProjectLError, match="play it with the ghost_piece expansion"):
        configurations(spec)
