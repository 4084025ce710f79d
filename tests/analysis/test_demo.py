"""The demo (``run --preset demo``): one question, answered from the tables in a dozen lines."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from projectl_sim.analysis.data import Run, load_run
from projectl_sim.analysis.demo import QUESTION, demo_text
from projectl_sim.cli import main
from projectl_sim.sim.spec import preset


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's grid, small: 12 games at each of 2, 3 and 4 players."""
    out = tmp_path_factory.mktemp("demo") / "run"
    assert (
        main(
            [
                "run",
                "--preset",
                "demo",
                "--games",
                "12",
                "--out",
                str(out),
                "--jobs",
                "1",
                "--quiet",
            ]
        )
        == 0
    )
    return out


def with_wins(run: Run, winner: int | None) -> Run:
    """The run with every game won by turn order ``winner`` (None: an even split of wins)."""
    seats = run.seats.copy()
    if winner is None:
        seats["win_share"] = 1.0 / seats["players"]
    else:
        seats["win_share"] = (seats["turn_order"] == winner).astype(float)
    return replace(run, seats=seats)


def test_the_demo_asks_about_equal_bots_and_names_its_next_command() -> None:
    config = preset("demo")
    # equal bots in every seat: a gap between the seats is the turn order's
    assert config["bots"] == ["greedy"] and config["players"] == [2, 3, 4]


def test_the_demo_prints_its_answer_in_a_dozen_lines(
    demo_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = demo_run.parent / "again"
    assert main(["run", "--preset", "demo", "--games", "2", "--out", str(out), "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    assert lines[0].startswith(QUESTION) and len(lines) <= 12, captured.out
    assert "95% intervals" in lines[1] and "80% power" in lines[-1]
    assert all(len(line) <= 100 for line in lines)
    after = captured.err.split("next:\n")[1].splitlines()
    assert len(after) == 3 and f"projectl-sim summary {out}" in after[0]
    assert "greedy:preset=rush_black" in after[1]
    for line in after:  # each next command works (the new run made small)
        argv = shlex.split(line.split("  # ")[0])[1:]
        if argv[0] == "run":
            argv += ["--games", "2", "--out", str(out.parent / "next"), "--jobs", "1", "--quiet"]
        assert main(argv) == 0, argv
        assert "error" not in capsys.readouterr().err


def test_a_fair_table_is_said_to_show_no_advantage(demo_run: Path) -> None:
    text = demo_text(with_wins(load_run(demo_run), None))
    assert text.count("no detectable seat advantage") == 3, text
    assert "favoured" not in text and "seats differ" not in text


def test_a_seat_that_always_wins_is_named(demo_run: Path) -> None:
    run = load_run(demo_run)
    first = demo_text(with_wins(run, 0))
    assert "2 players: the first player is favoured" in first
    assert "3 players: seats differ" in first and "above 33%: 1st 100%" in first
    assert "below: 2nd 0%" in first  # the seats that never won, each with its interval
    last = demo_text(with_wins(run, 1))
    assert "2 players: the first player is behind" in last
    assert "4 players: seats differ" in last and "above 25%: 2nd 100%" in last


def test_a_run_of_different_bots_is_not_read_as_seats(demo_run: Path) -> None:
    run = load_run(demo_run)
    seats = run.seats.copy()
    seats.loc[seats["turn_order"] == 0, "bot"] = "random"
    text = demo_text(replace(run, seats=seats))
    assert "different bots (greedy, random)" in text and "%" not in text


def test_only_a_seat_whose_interval_leaves_the_fair_share_is_named() -> None:
    from projectl_sim.analysis.demo import _finding

    shares = [(0.27, 0.2503, 0.29), (0.28, 0.26, 0.30), (0.245, 0.23, 0.26), (0.205, 0.19, 0.22)]
    block = pd.DataFrame(
        [
            {"players": 4, "turn_order": t, "share": x, "ci_low": lo, "ci_high": hi}
            for t, (x, lo, hi) in enumerate(shares)
        ]
    ).assign(p_value=0.001)
    text = _finding(block)
    # the 1st's lower bound prints as 25: it is not shown above a fair 25%
    assert text == (
        "4 players: seats differ (p 0.001): above 25%: 2nd 28% [26, 30]; below: 4th 20% [19, 22]"
    )
    assert "no detectable" in _finding(block.assign(p_value=0.2))
