"""The ``fill`` and ``puzzles`` subcommands, through a parser built with ``register``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from projectl_sim.catalogue import Catalogue, cells_to_mask
from projectl_sim.cli import puzzles as fill_cli
from projectl_sim.errors import ProjectLError, UsageError


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="projectl-sim")
    fill_cli.register(parser.add_subparsers(required=True))
    args = parser.parse_args(list(argv))
    return args.func(args)


def fill_json(capsys, *argv: str) -> dict:
    assert run("fill", *argv, "--json") == 0
    return json.loads(capsys.readouterr().out)


def assert_plan_tiles(cat: Catalogue, doc: dict, empty: int) -> None:
    covered = 0
    for step in doc["plan"]:
        mask = cells_to_mask(step["cells"])
        assert mask in cat.placements[cat.piece_index(step["piece"])]
        assert not covered & mask
        covered |= mask
    assert covered == empty


def test_json_has_exactly_the_documented_keys(cat: Catalogue, capsys) -> None:
    doc = fill_json(capsys, "--puzzle", "B03", "--pieces", "tet_L=2,tri_I=1,mono=3,tet_O=2",
                    "--filled", "2,0 2,1")  # fmt: skip
    assert list(doc) == ["fillable", "min_pieces", "pieces", "plan"]
    assert doc["fillable"] is True
    assert doc["min_pieces"] == 5 == sum(doc["pieces"].values()) == len(doc["plan"])
    empty = cat.puzzle("B03").recess & ~cells_to_mask([[2, 0], [2, 1]])
    assert_plan_tiles(cat, doc, empty)
    pieces = {}
    for step in doc["plan"]:
        pieces[step["piece"]] = pieces.get(step["piece"], 0) + 1
    assert pieces == doc["pieces"]


def test_both_solvers_agree_on_the_minimum(cat: Catalogue, capsys) -> None:
    common = ["--puzzle", "B07", "--pieces", "tet_T=2,tet_L=1,tri_L=2,domino=2,mono=2"]
    by_index = fill_json(capsys, *common, "--solver", "index")
    by_cpsat = fill_json(capsys, *common, "--solver", "cpsat")
    assert by_index["min_pieces"] == by_cpsat["min_pieces"] is not None
    assert_plan_tiles(cat, by_cpsat, cat.puzzle("B07").recess)


def test_not_fillable_is_an_answer_not_an_error(capsys) -> None:
    doc = fill_json(capsys, "--puzzle", "B03", "--pieces", "tet_L=2,tri_I=1,mono=3")
    assert doc == {
        "fillable": False,
        "min_pieces": None,
        "pieces": {},
        "plan": [],
        "why": "the pieces cover 14 of the 16 empty cells",
    }
    assert run("fill", "--puzzle", "B03", "--pieces", "mono=3") == 0
    assert capsys.readouterr().out == (
        "B03: not fillable (16 empty cells) with these pieces: the pieces cover 3 of the 16 "
        "empty cells\n"
    )
    assert run("fill", "--puzzle", "B03", "--pieces", "tet_O=4") == 0
    assert "no tiling fits these pieces: the closest, tet_O=2, tet_L=2, lacks tet_L=2" in (
        capsys.readouterr().out
    )


def test_default_pieces_are_the_whole_supply(capsys) -> None:
    assert fill_json(capsys, "--puzzle", "B03")["min_pieces"] == 4


def test_a_bare_piece_id_counts_one_and_repeats_add(capsys) -> None:
    doc = fill_json(capsys, "--puzzle", "W09", "--pieces", "mono,mono")
    assert doc["pieces"] == {"mono": 2}


def test_text_output_and_show(capsys) -> None:
    assert run("fill", "--puzzle", "W09", "--pieces", "domino=1", "--show") == 0
    out = capsys.readouterr().out
    assert "W09: fillable, 1 pieces minimum (2 empty cells)" in out
    assert "cheapest: domino=1" in out
    assert "  .....\n  .....\n  ..1..\n  ..1..\n  .....\n" in out


def test_show_marks_filled_cells(capsys) -> None:
    assert run("fill", "--puzzle", "W09", "--pieces", "mono=1", "--filled", "2,2", "--show") == 0
    assert "  ..#..\n  ..1..\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--puzzle", "Z99"], "unknown puzzle 'Z99'"),
        (["--puzzle", "B03", "--pieces", "tet_X=1"], "unknown piece 'tet_X'"),
        (["--puzzle", "B03", "--pieces", "mono=two"], "mono count must be a whole number"),
        (["--puzzle", "B03", "--pieces", "mono=-1"], "mono count must be a whole number"),
        (["--puzzle", "B03", "--filled", "0,0"], "cell (0,0) is not in the recess of puzzle B03"),
        (["--puzzle", "B03", "--filled", "5,0"], "not a cell of the 5x5 grid"),
        (["--puzzle", "B03", "--filled", "2-0"], 'is not a "row,col" cell'),
        (["--puzzle", "B03", "--filled", "a,b"], 'is not a "row,col" cell'),
    ],
)
def test_user_mistakes_are_one_line_usage_errors(argv, message) -> None:
    with pytest.raises(UsageError) as info:
        run("fill", *argv)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert info.value.exit_code == 2


def test_catalogue_option_loads_a_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({
        "pieces": {"domino": {"cells": [[0, 0], [0, 1]]}},
        "puzzles": [{"id": "T1", "colour": "white", "points": 1, "reward": "domino",
                     "rows": ["####.", ".....", ".....", ".....", "....."]}],
    }))  # fmt: skip
    doc = fill_json(capsys, "--puzzle", "T1", "--catalogue", str(path))
    assert doc["pieces"] == {"domino": 2}
    with pytest.raises(ProjectLError) as info:
        run("fill", "--puzzle", "T1", "--catalogue", str(tmp_path / "missing.json"))
    assert info.value.exit_code == 2


def test_puzzles_writes_the_atlas(tmp_path: Path, capsys) -> None:
    out = tmp_path / "atlas"
    assert run("puzzles", "--out", str(out)) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [
        str(out / name) for name in ("puzzles.csv", "puzzles.parquet", "puzzles.png")
    ]
    assert all(Path(p).stat().st_size > 0 for p in printed)


def test_expansion_puzzles_are_shown_marked_provisional(capsys) -> None:
    assert run("fill", "--puzzle", "GB03", "--expansions", "ghost_piece,phoenix") == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("GB03 (provisional, ghost_piece): fillable")
    doc = fill_json(capsys, "--puzzle", "PB01", "--expansions", "all", "--pieces", "mono=3")
    assert doc["provisional"] is True and doc["fillable"] is False
    with pytest.raises(UsageError, match="unknown puzzle 'GB03'"):
        run("fill", "--puzzle", "GB03", "--expansions", "phoenix")


def test_an_expansion_file_replaces_the_shipped_set(tmp_path: Path, capsys) -> None:
    path = tmp_path / "phoenix.json"
    path.write_text(json.dumps({
        "expansion": "phoenix", "provisional": False,
        "puzzles": [{"id": "PB01", "colour": "black", "points": 6, "reward": "mono",
                     "rows": ["#####", "#####", "#####", "#####", "....."]}],
    }))  # fmt: skip
    assert run("fill", "--puzzle", "PB01", "--expansions", f"phoenix={path}") == 0
    assert capsys.readouterr().out.startswith("PB01: fillable, 5 pieces minimum (20 empty cells)")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("ghost_piece,finesse", "unknown expansion 'finesse'"),
        ("phoenix=", "phoenix= needs a file"),
    ],
)
def test_bad_expansions_are_usage_errors(value: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        run("fill", "--puzzle", "B01", "--expansions", value)


def test_puzzles_with_expansions_marks_the_provisional_rows(tmp_path: Path, capsys) -> None:
    import pandas as pd

    base = tmp_path / "small.json"
    base.write_text(json.dumps({
        "pieces": {"mono": {"cells": [[0, 0]]}, "domino": {"cells": [[0, 0], [0, 1]]}},
        "puzzles": [{"id": "T1", "colour": "white", "points": 1, "reward": "domino",
                     "rows": ["###..", ".....", ".....", ".....", "....."]}],
    }))  # fmt: skip
    out = tmp_path / "atlas"
    assert run("puzzles", "--out", str(out), "--catalogue", str(base), "--expansions",
               "ambassador_pack") == 0  # fmt: skip
    assert "provisional data: ambassador_pack" in capsys.readouterr().out
    table = pd.read_csv(out / "puzzles.csv")
    assert table["id"].tolist() == ["T1", "AW01", "AB01", "AB02"]
    assert table["provisional"].tolist() == [False, True, True, True]
    assert table["expansion"].tolist() == ["base"] + ["ambassador_pack"] * 3
