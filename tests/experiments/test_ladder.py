"""The ``ladder`` command's doors: its bots, a bot that raises, and the chart's names."""

from __future__ import annotations

import pandas as pd
import pytest
from paths import TESTS

from projectl_sim.cli import main

FAULT_BOTS = str(TESTS / "fault_bots.py")


@pytest.mark.parametrize("bots", ["", "greedy", " , "])
def test_fewer_than_two_bots_is_one_line_not_the_default_ladder(bots, tmp_path, capsys) -> None:
    assert main(["ladder", "--out", str(tmp_path / "l"), "--bots", bots, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--bots {bots!r}: rate two or more bots" in err
    assert not (tmp_path / "l").exists()  # refused before a game is played


def test_a_bot_that_always_raises_is_one_line_naming_it(tmp_path, capsys) -> None:
    bots = f"greedy,{FAULT_BOTS}:RaiseBot:p=1"
    argv = ["ladder", "--out", str(tmp_path / "l"), "--bots", bots, "--games", "2", "--jobs", "1"]
    assert main([*argv, "--quiet"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no finished game to rate (2 of 2 games are error rows" in err
    assert "RaiseBot:p=1.0 (seat" in err and "raised RuntimeError: boom" in err
    assert (tmp_path / "l" / "run" / "games.parquet").exists()  # the run is kept


def test_a_bot_that_sometimes_raises_is_rated_on_the_games_that_finished(tmp_path, capsys) -> None:
    bots = f"greedy,{FAULT_BOTS}:RaiseBot:p=0.01"
    argv = ["ladder", "--out", str(tmp_path / "l"), "--bots", bots, "--games", "6", "--jobs", "1"]
    assert main([*argv, "--quiet"]) == 0
    out = capsys.readouterr().out
    table = pd.read_csv(tmp_path / "l" / "ladder.csv")
    failed = int(out.split("note: ")[1].split()[0])
    assert 0 < failed < 6 and f"note: {failed} of 6 games are error rows" in out
    assert set(table["games"]) == {6 - failed}


def test_the_chart_names_a_long_spec_whole() -> None:
    """A name cut to 40 characters read as another bot (a value search as a rollout one)."""
    from projectl_sim.experiments.ladder import plot_ladder_cost

    long = "mcts:iterations=128,tree=turn,width=0.0,leaf=value"
    rows = [(long, 120, 80, 160, 30.0), ("greedy", 0, 0, 0, 0.03)]
    table = pd.DataFrame(rows, columns=["bot", "rating", "ci_low", "ci_high", "cpu_ms"])
    ax = plot_ladder_cost(table)
    beside = {t.get_text() for t in ax.texts}
    assert long in beside or f"1: {long}" in ax.get_xlabel()


def test_the_ladder_names_the_scale_its_ratings_are_on() -> None:
    """Greedy is 0 when it is rated; a ladder without it has its bots' mean at 0, and says so
    in its table, its text and its chart."""
    from analysis_util import G, make_tables

    from projectl_sim.experiments.ladder import format_ladder, ladder_table, plot_ladder_cost

    cost = {"decisions": [10, 10], "decision_cpu_mean": [0.001, 0.002]}
    games = [
        G(["setter", "random"] if i % 2 else ["random", "setter"], [9, 4], [1, 2], seat=cost)
        for i in range(4)
    ]
    games += [G(["random", "setter"], [9, 4], [1, 2], seat=cost)]  # random wins once
    table = ladder_table(make_tables(games)[0])
    assert set(table["scale"]) == {"Elo, mean = 0"}
    assert table["rating"].mean() == pytest.approx(0)
    assert format_ladder(table).splitlines()[0].startswith("ratings: Elo, mean = 0")
    assert plot_ladder_cost(table).get_ylabel() == "rating (Elo, mean = 0)"
    renamed = [
        G([{"setter": "greedy"}.get(b, b) for b in g.bots], g.scores, g.ranks, seat=cost)
        for g in games
    ]
    anchored = ladder_table(make_tables(renamed)[0]).set_index("bot")
    assert anchored.loc["greedy", "rating"] == 0 and set(anchored["scale"]) == {"Elo, greedy = 0"}
