"""``benchmarks/bots.py``: a run into a folder that already holds some of its games goes on."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bots.py"
TIMING = ("_cpu",)  # columns that differ between two plays of the same game


def _bench(out: Path, games: int, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the greedy-random pairing for ``games`` games on seed 5 into ``out``."""
    args = ["--sections", "pairs", "--pairs", "greedy random", "--games", str(games)]
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--seed", "5", "--out", str(out)],
        capture_output=True,
        text=True,
        check=check,
    )


def _games(out: Path) -> dict[tuple[str, str, str], dict[str, str]]:
    """Return the folder's game rows by (seed, seat 0, seat 1), the timing columns left out."""
    with open(out / "pairs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {
        (r["seed"], r["s0_spec"], r["s1_spec"]): {
            k: v for k, v in r.items() if not k.endswith(TIMING)
        }
        for r in rows
    }


def _script() -> Any:
    """Return ``benchmarks/bots.py`` loaded as a module."""
    spec = importlib.util.spec_from_file_location("bench_bots", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_a_longer_run_into_the_same_folder_plays_only_the_new_games(tmp_path: Path) -> None:
    _bench(tmp_path / "grown", 4)
    first = _games(tmp_path / "grown")
    said = _bench(tmp_path / "grown", 8).stdout
    assert "4 games already in" in said and "4 to play" in said
    grown = _games(tmp_path / "grown")
    _bench(tmp_path / "fresh", 8)
    fresh = _games(tmp_path / "fresh")
    # the first four games were kept, not played again, and the whole equals one run of eight
    assert len(grown) == 8
    assert all(grown[k] == v for k, v in first.items())
    assert grown == fresh
    # and a run of the same size again plays nothing
    again = _bench(tmp_path / "grown", 8).stdout
    assert "8 games already in" in again and "0 to play" in again
    assert _games(tmp_path / "grown") == fresh
    # a shorter run counts only its own games: the table's line has 4 games, not the file's 8
    fewer = _bench(tmp_path / "grown", 4).stdout
    assert "4 games already in" in fewer and "0 to play" in fewer
    line = next(x for x in fewer.splitlines() if x.startswith("pairs "))
    assert line.split()[4] == "4"


def test_games_played_by_another_build_of_a_bot_stop_the_run(tmp_path: Path) -> None:
    _bench(tmp_path, 4)
    path = tmp_path / "pairs.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["s0_bot"] for r in rows} == {"greedy", "random"}  # the bots' full specs
    rows[0]["s0_bot"] += ",hash=000000000000"  # as if another model had played it
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    done = _bench(tmp_path, 8, check=False)
    assert done.returncode != 0
    assert "hash=000000000000" in done.stderr and "use another --out" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    with open(path, newline="") as f:
        assert len(list(csv.DictReader(f))) == 4  # nothing played, nothing lost


def test_a_run_stopped_while_writing_keeps_the_games_already_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bench(tmp_path, 4)
    path = tmp_path / "pairs.csv"
    before = path.read_bytes()
    with open(path, newline="") as f:
        more = list(csv.DictReader(f))
    bench = _script()
    run = bench.Run(argparse.Namespace(seed=5, out=str(tmp_path), jobs=1))

    def ctrl_c(*_: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C halfway through writing the rows

    monkeypatch.setattr(csv.DictWriter, "writerows", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        run._write("pairs", more)
    assert path.read_bytes() == before  # the file is whole, not emptied by the write
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.csv"]


def _row(seed: int, a_seat: int, a_win: float, a_score: int, b_score: int) -> dict[str, Any]:
    specs = ["B", "B"]
    specs[a_seat] = "A"
    scores = [b_score, b_score]
    scores[a_seat] = a_score
    wins = [1.0 - a_win, 1.0 - a_win]
    wins[a_seat] = a_win
    row: dict[str, Any] = {"players": 2, "a": "A", "b": "B", "seed": seed}
    for p in (0, 1):
        row |= {f"s{p}_spec": specs[p], f"s{p}_win": wins[p], f"s{p}_score": scores[p]}
    return row


def test_a_paired_reading_compares_bot_a_on_the_games_both_lines_played() -> None:
    bench = _script()
    # line x: A loses all four games of deals 1 and 2 by 2 points; line y: A wins three of
    # them, by 1 point each, and loses deal 2's second seating by 3; deal 3 only y played
    x = [_row(1, 0, 0.0, 10, 12), _row(1, 1, 0.0, 10, 12)]
    x += [_row(2, 0, 0.0, 10, 12), _row(2, 1, 0.0, 10, 12)]
    y = [_row(1, 0, 1.0, 13, 12), _row(1, 1, 1.0, 13, 12)]
    y += [_row(2, 0, 1.0, 13, 12), _row(2, 1, 0.0, 9, 12), _row(3, 0, 1.0, 20, 0)]
    line = bench.paired_match_line("x", x, "y", y)
    assert "4 games on 2 deals" in line  # deal 3 is not shared
    assert "A wins 75.0% against 0.0%, +75.0%" in line
    # margins: deal 1 changes by +3 and +3, deal 2 by +3 and -1; over the deals +3 and +1
    assert "A margin +2.00 [" in line
    lo, hi = (float(v) for v in line.split("A margin +2.00 [")[1].split("]")[0].split(", "))
    assert lo < 2.0 < hi  # two deals that differ: an interval, not a point
    assert bench.paired_match_line("x", x, "z", [_row(9, 0, 1.0, 1, 0)]) is None
    one = bench.paired_match_line("x", x[:2], "y", y[:2])  # deal 1 alone: no spread to measure
    assert "2 games on 1 deals" in one and "nan" not in one
    assert "+100.0% (no interval from one deal)" in one


def test_a_solo_paired_line_over_one_deal_says_it_has_no_interval() -> None:
    bench = _script()
    a = [{"seed": 1, "s0_win": 1.0, "s0_score": 25}, {"seed": 2, "s0_win": 0.0, "s0_score": 18}]
    b = [{"seed": 1, "s0_win": 0.0, "s0_score": 20}, {"seed": 2, "s0_win": 0.0, "s0_score": 19}]
    two = bench.solo_paired_line("solo", "A", "B", a, b)
    assert "wins +50.0% [" in two and "pts +2.00 [" in two  # mean of +5 and -1
    one = bench.solo_paired_line("solo", "A", "B", a[:1], b)
    assert "wins +100.0% (no interval from one deal)" in one and "nan" not in one
    assert "pts +5.00 (no interval from one deal)" in one


def test_a_mirror_line_is_not_paired_by_a_seat_it_cannot_tell(tmp_path: Path) -> None:
    bench = _script()
    x = [_row(1, 0, 0.0, 10, 12), _row(1, 1, 0.0, 10, 12)]
    # bot A is bot B: both seats hold "A", so a seat does not say which copy is followed
    mirror = [r | {"b": "A", "s0_spec": "A", "s1_spec": "A"} for r in x]
    assert bench.paired_match_line("x", x, "m", mirror) is None
    assert bench.paired_match_line("m", mirror, "x", x) is None
    for name, rows in (("x", x), ("m-m", mirror)):
        run = bench.Run(argparse.Namespace(seed=5, out=str(tmp_path / name), jobs=1))
        run._write("pairs", [r | {"line": name} for r in rows])
    said: list[str] = []
    bench.print_paired(tmp_path / "m-m", tmp_path / "x", said.append)
    assert len(said) == 1 and "m-m: not compared: a mirror line" in said[0]
    said.clear()
    bench.print_paired(tmp_path / "x", tmp_path / "m-m", said.append)
    assert said == []


def test_read_paired_prints_the_change_between_two_runs_on_the_same_seed(
    tmp_path: Path,
) -> None:
    _bench(tmp_path / "greedy", 6)
    args = ["--sections", "pairs", "--pairs", "rusher random", "--games", "6", "--seed", "5"]
    subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--out", str(tmp_path / "rusher")],
        check=True,
        capture_output=True,
    )
    read = [sys.executable, str(SCRIPT), "--read", str(tmp_path / "rusher")]
    said = subprocess.run(
        [*read, "--paired", str(tmp_path / "greedy")], capture_output=True, text=True, check=True
    ).stdout
    paired = [x for x in said.splitlines() if x.startswith("paired ")]
    assert len(paired) == 1
    assert "rusher-random  less  greedy-random: 6 games on 3 deals" in paired[0]
    alone = subprocess.run(
        [sys.executable, str(SCRIPT), "--paired", str(tmp_path / "greedy")],
        capture_output=True,
        text=True,
    )
    assert alone.returncode != 0 and "give --read too" in alone.stderr
