"""The designer's loop: puzzles as drawings, ``puzzle check`` and ``puzzle try``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from projectl_sim.catalogue import render_mask
from projectl_sim.cli import main
from projectl_sim.loading import base_catalogue
from projectl_sim.puzzles.drawings import (
    DrawingError,
    catalogue_dict,
    parse_drawing,
    puzzles_from_data,
    read_puzzles,
    with_puzzle,
)
from projectl_sim.puzzles.puzzle_check import check_puzzle
from projectl_sim.tiling.atlas import atlas_rows

CAT = base_catalogue()
SQUARE = "##...\n##...\n.....\n.....\n....."


def write_toml(path: Path, rows: list[str], **fields: object) -> Path:
    lines = [f"{k} = {json.dumps(v)}" for k, v in fields.items()]
    lines.append("drawing = '''\n" + "\n".join(rows) + "\n'''")
    path.write_text("\n".join(lines) + "\n")
    return path


def printed_as_drawing(tmp_path: Path, pid: str, new_id: str, points: int) -> Path:
    old = CAT.puzzle(pid)
    return write_toml(
        tmp_path / f"{new_id.lower()}.toml",
        render_mask(old.recess),
        id=new_id,
        colour=old.colour,
        points=points,
        reward=old.reward,
    )


def test_a_drawing_is_the_recess_mask_and_round_trips() -> None:
    mask = parse_drawing("  ## . . .\n##...\n.....\n.....\n.....\n")
    assert mask == 0b11 | 0b11 << 5
    assert parse_drawing(render_mask(mask)) == mask


@pytest.mark.parametrize(
    ("drawing", "says"),
    [
        ("##...\n##...\n.....\n.....", "4 rows"),
        ("##...\n##...\n.....\n.....\n....", "row 5 '....' has 4 cells"),
        ("##...\n#x...\n.....\n.....\n.....", "row 2 '#x...' has 'x'"),
        (".....\n.....\n.....\n.....\n.....", "no '#' cell"),
        ("#...#\n.....\n.....\n.....\n.....", "in 2 parts (1+1 cells)"),
    ],
)
def test_a_malformed_drawing_is_one_line(drawing: str, says: str) -> None:
    with pytest.raises(DrawingError, match=r"^where: .*") as err:
        parse_drawing(drawing, "where")
    assert says in str(err.value) and "\n" not in str(err.value)


def test_a_disconnected_drawing_may_be_allowed() -> None:
    mask = parse_drawing("#...#\n.....\n.....\n.....\n.....", allow_disconnected=True)
    assert mask.bit_count() == 2


def test_toml_and_json_forms_read_the_same_puzzle(tmp_path: Path) -> None:
    toml = write_toml(
        tmp_path / "n01.toml", SQUARE.split("\n"), colour="white", points=2, reward="tri_L"
    )
    (drawn,) = read_puzzles(toml, CAT.piece_ids)
    assert (drawn.id, drawn.colour, drawn.points, drawn.reward) == ("N01", "white", 2, "tri_L")
    js = tmp_path / "n.json"
    js.write_text(
        json.dumps(
            {
                "puzzles": [
                    {
                        "id": "N01",
                        "colour": "white",
                        "points": 2,
                        "reward": "tri_L",
                        "rows": drawn.rows(),
                    }
                ]
            }
        )
    )
    (again,) = read_puzzles(js, CAT.piece_ids)
    assert again.recess == drawn.recess and again.id == drawn.id


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"colour": "red", "points": 1, "reward": "mono", "drawing": SQUARE}, "colour 'red'"),
        ({"colour": "white", "points": -1, "reward": "mono", "drawing": SQUARE}, "points -1"),
        ({"colour": "white", "points": 1, "reward": "gold", "drawing": SQUARE}, "reward 'gold'"),
        (
            {"colour": "white", "points": 1, "reward": "mono", "drawing": SQUARE, "size": 3},
            "unknown key 'size'",
        ),
        ({"colour": "white", "points": 1, "reward": "mono"}, "no puzzle"),
    ],
)
def test_a_bad_puzzle_field_is_one_line(data: dict, says: str) -> None:
    with pytest.raises(DrawingError) as err:
        puzzles_from_data(data, "f.toml", CAT.piece_ids, default_id="N01")
    assert says in str(err.value)


def test_with_puzzle_takes_the_replaced_cards_place_and_writes_back() -> None:
    (drawn,) = puzzles_from_data(
        {"colour": "white", "points": 5, "reward": "mono", "drawing": SQUARE},
        "f",
        CAT.piece_ids,
        "N01",
    )
    changed = with_puzzle(CAT, drawn, "W07")
    assert changed.puzzles[CAT.puzzle("W07").index].id == "N01"
    assert not changed.has_puzzle("W07") and len(changed.puzzles) == len(CAT.puzzles)
    added = with_puzzle(CAT, drawn)
    assert added.puzzles[-1].id == "N01" and len(added.puzzles) == len(CAT.puzzles) + 1
    doc = catalogue_dict(changed)
    assert doc["puzzles"][CAT.puzzle("W07").index]["rows"] == render_mask(drawn.recess)
    with pytest.raises(DrawingError, match="replace a puzzle of the same colour"):
        with_puzzle(CAT, drawn, "B01")
    with pytest.raises(DrawingError, match="already has a puzzle W01"):
        with_puzzle(CAT, type(drawn)("W01", "white", 1, "mono", drawn.recess))


def test_check_of_a_square_knows_its_cost() -> None:
    (drawn,) = puzzles_from_data(
        {"colour": "white", "points": 2, "reward": "mono", "drawing": SQUARE},
        "f",
        CAT.piece_ids,
        "N01",
    )
    check = check_puzzle(CAT, drawn)
    assert check.fillable
    # a 2x2 square: the O tetromino, two dominoes, domino + two monos, mono + L tromino, 4 monos
    # (every multiset of pieces covering it; the tiling counts are the atlas's)
    texts = {m.text for m in check.cheapest}
    assert check.row["multisets"] >= 4 and check.row["min_pieces"] == 1
    # from mono + domino: domino -> level 3 -> tet_O is 2 upgrades, then one placement
    assert check.cheapest[0].text == "tet_O=1" and check.cheapest[0].total_actions == 3
    assert "tet_O=1" in texts
    assert check.points_per_action == pytest.approx(2 / 3)


def test_check_ranks_a_copy_of_the_best_printed_card_with_more_points_first(
    tmp_path: Path,
) -> None:
    rows = atlas_rows(CAT)
    white = [r for r in rows if r["colour"] == "white" and r["total_actions"]]
    best = max(white, key=lambda r: r["points"] / r["total_actions"])
    path = printed_as_drawing(tmp_path, best["id"], "N09", best["points"] + 1)
    (drawn,) = read_puzzles(path, CAT.piece_ids)
    check = check_puzzle(CAT, drawn, rows)
    assert check.rank == 1 and check.among == len(white)
    same = printed_as_drawing(tmp_path, best["id"], "N10", best["points"])
    (tie,) = read_puzzles(same, CAT.piece_ids)
    assert check_puzzle(CAT, tie, rows).rank == 1  # a tie ranks with the card, not below
    worse = printed_as_drawing(tmp_path, best["id"], "N11", 0)
    (zero,) = read_puzzles(worse, CAT.piece_ids)
    assert check_puzzle(CAT, zero, rows).rank > 1


def test_puzzle_check_command_prints_and_draws(tmp_path: Path, capsys) -> None:
    path = write_toml(
        tmp_path / "n01.toml", SQUARE.split("\n"), colour="white", points=2, reward="mono"
    )
    assert main(["puzzle", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "fillable:" in out and "tet_O=1" in out and "ranks" in out
    assert (tmp_path / "n01.png").stat().st_size > 1000
    assert main(["puzzle", "check", str(path), "--json", "--no-picture"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fillable"] and doc["cheapest"][0]["pieces"] == "tet_O=1"


def test_puzzle_check_of_a_bad_file_is_one_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('colour = "white"\npoints = 1\nreward = "mono"\ndrawing = "##"\n')
    assert main(["puzzle", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("projectl-sim: error: ") and "1 row" in err and err.count("\n") == 1
    assert main(["puzzle", "check", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_strictly_better_card_is_taken_more_than_the_one_it_replaces(
    tmp_path: Path, capsys
) -> None:
    # W25 (0 points) with four more: the same recess and reward, so every reason to take W25
    # holds for it, and more; greedy bots on the same deals must take it more often. (A card
    # greedy already takes whenever it is in the row, such as W07, cannot be taken more.)
    path = printed_as_drawing(tmp_path, "W25", "W25X", CAT.puzzle("W25").points + 4)
    out = tmp_path / "trial"
    argv = [
        "puzzle",
        "try",
        str(path),
        "--replaces",
        "W25",
        "--bots",
        "greedy,greedy",
        "--games",
        "40",
        "--seed",
        "6",
        "--jobs",
        "1",
        "--quiet",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "W25X in the place of W25: 40 paired games" in text
    assert "first player's win rate" in text and "length (rounds)" in text
    from projectl_sim.analysis.trial import trial_report

    report = trial_report(out / "without", out / "with", "W25X", "W25")
    assert report.taken is not None and report.taken["pairs"] == 40
    assert report.taken["ci_low"] > 0  # taken more, the interval clear of 0
    new = report.use[(report.use["run"] == "with") & (report.use["bot"] == "all")].iloc[0]
    old = report.use[(report.use["run"] == "without") & (report.use["bot"] == "all")].iloc[0]
    assert new["points_per_action"] > old["points_per_action"]
    assert (out / "report.txt").read_text().startswith("W25X in the place of W25")
    # a second try into the same folder is refused, in one line
    assert main(argv) == 2
    assert "already holds a trial" in capsys.readouterr().err


def test_puzzle_try_adds_a_card_dealt_in_among_the_others(tmp_path: Path, capsys) -> None:
    path = write_toml(
        tmp_path / "n01.toml", SQUARE.split("\n"), colour="white", points=3, reward="tet_O"
    )
    assert (
        main(
            [
                "puzzle",
                "try",
                str(path),
                "--bots",
                "greedy,random",
                "--games",
                "6",
                "--seed",
                "2",
                "--jobs",
                "1",
                "--quiet",
                "--out",
                str(tmp_path / "t"),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "N01 dealt in among the others: 6 paired games" in text
    assert "by greedy:" in text and "by random:" in text
    manifest = json.loads((tmp_path / "t" / "with" / "manifest.json").read_text())
    assert manifest["config"]["rules"] == {"added_puzzles": ["N01"]}


def test_check_of_a_card_the_pieces_cannot_fill(tmp_path: Path) -> None:
    import dataclasses

    from projectl_sim.catalogue import Catalogue
    from projectl_sim.puzzles.puzzle_check import write_check_png

    # one mono and nothing else: a two-cell recess has no tiling
    pieces = tuple(dataclasses.replace(p, copies=int(p.id == "mono")) for p in CAT.pieces)
    monos = Catalogue(pieces, CAT.puzzles, name="one-mono")
    (drawn,) = puzzles_from_data(
        {"colour": "white", "points": 1, "reward": "mono", "drawing": "##...\n" + ".....\n" * 4},
        "f",
        CAT.piece_ids,
        "TWO",
    )
    check = check_puzzle(monos, drawn)
    assert not check.fillable and check.rank is None and check.cheapest == ()
    assert "NOT fillable" in check.text()
    assert check.to_json()["total_actions"] is None
    assert write_check_png(check, tmp_path / "two.png").stat().st_size > 1000
    with pytest.raises(DrawingError, match="no combination of pieces can fill"):
        with_puzzle(monos, drawn, "W25")
