"""``benchmarks/bots.py``: each line a run of the package's runner (resumed, grown, checked), read
back and measured by the package's analysis, and the paired reading of two benchmark folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from paths import ROOT
from script_util import load_script, run_main

from projectl_sim.sim import runner
from projectl_sim.sim.spec import RunSpec

SCRIPT = ROOT / "benchmarks" / "bots.py"
TIMING = ["decision_time_mean", "decision_cpu_mean", "run_id"]  # differ between two plays


def _script() -> Any:
    """Return ``benchmarks/bots.py`` loaded as a module."""
    return load_script(SCRIPT, "bench_bots")


@pytest.fixture(scope="module")
def bench() -> Any:
    return _script()


def _main(bench: Any, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the script's command line in this process; return what it printed."""
    return run_main(bench, SCRIPT, capsys, *argv)[1]


def _pairs(out: Path, games: int, *lines: str) -> list[str]:
    """Return the arguments of the greedy-random pairing (or ``lines``) on seed 5 into ``out``."""
    chosen = lines or ("greedy random",)
    where = ("--seed", "5", "--out", str(out))
    return ["--sections", "pairs", "--pairs", *chosen, "--games", str(games), *where]


def _seats(bench: Any, out: Path, games: int | None = None) -> pd.DataFrame:
    line = bench.line_seats(out / "pairs" / "greedy-random", games)
    return line.drop(columns=TIMING).sort_values(["seed", "seat"]).reset_index(drop=True)


def _row(text: str) -> list[list[str]]:
    """Return the pairs lines of a printed table, split, without the CPU columns."""
    return [x.split()[:10] for x in text.splitlines() if x.startswith("pairs ")]


def test_a_line_grown_in_its_folder_is_the_run_of_its_final_size(
    bench, capsys, tmp_path: Path
) -> None:
    _main(bench, capsys, *_pairs(tmp_path / "grown", 4))
    said = _main(bench, capsys, *_pairs(tmp_path / "grown", 8))
    assert "4 games per configuration were in" in said
    fresh_said = _main(bench, capsys, *_pairs(tmp_path / "fresh", 8))
    grown, fresh = _seats(bench, tmp_path / "grown"), _seats(bench, tmp_path / "fresh")
    assert len(grown) == 16 and grown.drop(columns="game_id").equals(fresh.drop(columns="game_id"))
    assert _row(said) == _row(fresh_said)
    # a shorter run plays nothing and counts its own first games: 4, not the folder's 8
    fewer = _main(bench, capsys, *_pairs(tmp_path / "grown", 4))
    assert _row(fewer)[0][4] == "4" and len(_seats(bench, tmp_path / "grown", 4)) == 8
    # the table read back says what the run printed
    assert _row(_main(bench, capsys, "--read", str(tmp_path / "fresh"))) == _row(fresh_said)


def test_a_line_played_by_other_bots_stops_the_run_in_one_line(
    bench, capsys, tmp_path: Path
) -> None:
    folder = tmp_path / "pairs" / "greedy-random"
    other = RunSpec.from_mapping({"bots": "greedy:risk=0.5,random", "players": 2, "games": 2})
    runner.run(other, folder, options=runner.RunOptions(jobs=1, quiet=True))
    before = sorted((p.name, p.stat().st_size) for p in folder.iterdir())
    with pytest.raises(SystemExit) as stop:
        _main(bench, capsys, *_pairs(tmp_path, 4))
    said = str(stop.value)
    assert "the settings differ from the run in" in said and "choose another --out" in said
    assert "\n" not in said
    assert sorted((p.name, p.stat().st_size) for p in folder.iterdir()) == before


def _seat_rows(rows: list[tuple[int, int, str, float, int]]) -> pd.DataFrame:
    """Return seats of 2-player games from (seed, seat, bot, win share, score), two per game."""
    table = pd.DataFrame(rows, columns=["seed", "seat", "bot", "win_share", "score"])
    table["game_id"] = table.index // 2
    return table


def _game(seed: int, a_seat: int, a_win: float, a_score: int, b_score: int) -> list[tuple]:
    return [
        (seed, p, "A", a_win, a_score) if p == a_seat else (seed, p, "B", 1 - a_win, b_score)
        for p in (0, 1)
    ]


def test_a_paired_reading_compares_bot_a_on_the_games_both_lines_played(bench) -> None:
    # line x: A loses all four games of deals 1 and 2 by 2 points; line y: A wins three of
    # them, by 1 point each, and loses deal 2's second seating by 3; deal 3 only y played
    deals_12 = [*_game(1, 0, 0, 10, 12), *_game(1, 1, 0, 10, 12), *_game(2, 0, 0, 10, 12)]
    x = _seat_rows([*deals_12, *_game(2, 1, 0, 10, 12)])
    won = [*_game(1, 0, 1, 13, 12), *_game(1, 1, 1, 13, 12), *_game(2, 0, 1, 13, 12)]
    y = _seat_rows([*won, *_game(2, 1, 0, 9, 12), *_game(3, 0, 1, 20, 0)])
    line = bench.paired_match_line("x", x, "A", "y", y, "A")
    assert "4 games on 2 deals" in line  # deal 3 is not shared
    assert "A wins 75.0% against 0.0%, +75.0%" in line
    # margins: deal 1 changes by +3 and +3, deal 2 by +3 and -1: +2 on average
    assert "A margin +2.00 [" in line
    lo, hi = (float(v) for v in line.split("A margin +2.00 [")[1].split("]")[0].split(", "))
    assert lo < 2.0 < hi  # two deals that differ: an interval, not a point
    assert bench.paired_match_line("x", x, "A", "z", _seat_rows(_game(9, 0, 1, 1, 0)), "A") is None
    one = bench.paired_match_line("x", x[:4], "A", "y", y[:4], "A")  # deal 1 alone
    assert "2 games on 1 deals" in one and "nan" not in one
    assert "+100.0% (no interval from one deal)" in one


def test_a_solo_paired_line_over_one_deal_says_it_has_no_interval(bench) -> None:
    a = pd.DataFrame({"seed": [1, 2], "win_share": [1.0, 0.0], "score": [25, 18]})
    b = pd.DataFrame({"seed": [1, 2], "win_share": [0.0, 0.0], "score": [20, 19]})
    two = bench.solo_paired_line("solo", "A", "B", a, b)
    assert "wins +50.0% [" in two and "pts +2.00 [" in two  # mean of +5 and -1
    one = bench.solo_paired_line("solo", "A", "B", a[:1], b)
    assert "wins +100.0% (no interval from one deal)" in one and "nan" not in one
    assert "pts +5.00 (no interval from one deal)" in one


def test_read_paired_prints_the_change_between_two_runs_on_the_same_seed(
    bench, capsys, tmp_path: Path
) -> None:
    _main(bench, capsys, *_pairs(tmp_path / "greedy", 6))
    _main(bench, capsys, *_pairs(tmp_path / "rusher", 6, "rusher random", "random random"))
    said = _main(
        bench, capsys, "--read", str(tmp_path / "rusher"), "--paired", str(tmp_path / "greedy")
    )
    paired = sorted(x for x in said.splitlines() if x.startswith("paired "))  # started order
    assert len(paired) == 2
    assert "random-random: not compared: a mirror line" in paired[0]
    assert "rusher-random  less  greedy-random: 6 games on 3 deals" in paired[1]
    with pytest.raises(SystemExit):
        _main(bench, capsys, "--paired", str(tmp_path / "greedy"))
    assert "give --read too" in capsys.readouterr().err
