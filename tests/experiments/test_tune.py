"""Balance search: the objectives on hand-made tables, ``--param`` parsing, and ``tune`` finding a
parameter with a known monotone effect on game length."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_util import G, make_tables

from projectl_sim.analysis.objective_help import OBJECTIVE_HELP
from projectl_sim.analysis.objectives import (
    OBJECTIVES,
    TIERS,
    game_matrix,
    objective,
    paired_intervals,
)
from projectl_sim.cli import main
from projectl_sim.errors import UsageError
from projectl_sim.experiments.tune import Param, parse_param


def tables_of(games: list[G]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return make_tables(games)


def test_seat_advantage_is_the_largest_gap_from_an_equal_share() -> None:
    # 3 players, 4 games: the first player wins 2, the second 1, the third 1
    wins = [0, 0, 1, 2]
    games = [
        G(
            ["a", "a", "a"],
            [5 if p == w else 1 for p in range(3)],
            [1 if p == w else 2 for p in range(3)],
        )
        for w in wins
    ]
    m = game_matrix(*tables_of(games))
    assert objective(m, "seat_advantage") == pytest.approx(2 / 4 - 1 / 3)
    assert objective(m, "first_player") == pytest.approx(2 / 4 - 1 / 3)
    # a shared win counts half to each winner: an even split is no advantage
    even = [G(["a", "a"], [3, 3], [1, 1])] * 3
    assert objective(game_matrix(*tables_of(even)), "seat_advantage") == pytest.approx(0)


def test_strategy_spread_rounds_margin_and_close_games() -> None:
    # greedy wins 3 of 4 against random (seats swapped every game), rounds 10, 12, 14, 16
    games = [
        G(["greedy", "random"], [9, 4], [1, 2], rounds=10),
        G(["random", "greedy"], [2, 9], [2, 1], rounds=12),
        G(["greedy", "random"], [8, 7], [1, 2], rounds=14),
        G(["random", "greedy"], [9, 8], [1, 2], rounds=16),
    ]
    m = game_matrix(*tables_of(games))
    assert objective(m, "strategy_spread") == pytest.approx(0.75 - 0.25)
    assert objective(m, "rounds") == pytest.approx(13)
    assert objective(m, "rounds", target=12) == pytest.approx(1)
    assert objective(m, "margin") == pytest.approx((5 + 7 + 1 + 1) / 4)
    assert objective(m, "close_games") == pytest.approx(-0.5)
    # identical bots: no mixed game, no spread to measure
    same = [G(["a", "a"], [3, 1], [1, 2])] * 2
    assert np.isnan(objective(game_matrix(*tables_of(same)), "strategy_spread"))


def test_the_help_names_every_objective_and_no_other() -> None:
    assert list(OBJECTIVE_HELP) == [*OBJECTIVES, TIERS]  # tiers: the one taking a matrix target


def test_paired_intervals_cover_the_value_and_a_shared_deal_cancels() -> None:
    rng = np.random.default_rng(0)
    short = [G(["a", "a"], [3, 1], [1, 2], rounds=10 + i % 3) for i in range(30)]
    longer = [G(["a", "a"], [3, 1], [1, 2], rounds=12 + i % 3) for i in range(30)]
    ms = [game_matrix(*tables_of(short)), game_matrix(*tables_of(longer))]
    table = paired_intervals(ms, "rounds", resamples=400, rng=rng)
    assert list(table["value"]) == pytest.approx([11, 13])
    assert (table["ci_low"] <= table["value"]).all() and (table["value"] <= table["ci_high"]).all()
    assert table.loc[0, "ci_high"] - table.loc[0, "ci_low"] > 0.2  # the deals vary
    # every deal is two rounds longer in the second run: the paired difference is exactly 2
    assert table.loc[1, "diff"] == pytest.approx(2)
    assert table.loc[1, "diff_low"] == pytest.approx(2) and table.loc[1, "diff_high"] == 2


def test_parse_param() -> None:
    assert parse_param("black_deck_3p=10..18") == Param("black_deck_3p", 10, 18)
    assert parse_param("black_deck_3p=10..18").values == tuple(range(10, 19))
    assert parse_param("unfinished_penalty=true,false").values == (True, False)
    assert parse_param("points.W07=1..4").values == (1, 2, 3, 4)
    for bad, says in [
        ("black_deck_3p", "NAME=LOW..HIGH"),
        ("colour=1..3", "not a rules parameter"),
        ("row_size=5..2", "is empty"),
        ("row_size=0..3", "1-6"),
        ("tie_break=1..3", "unknown value .1."),
        ("unfinished_penalty=true..false", "whole numbers"),
    ]:
        with pytest.raises(UsageError, match=says):
            parse_param(bad)


def test_tune_finds_the_actions_per_turn_that_make_games_shortest(tmp_path: Path, capsys) -> None:
    # more actions per turn, fewer rounds: the search must find the top of the range, and the
    # confirmation must find the rulebook's 3 longer, on fresh deals
    out = tmp_path / "tune"
    argv = [
        "tune",
        "--objective",
        "rounds",
        "--param",
        "actions_per_turn=2..5",
        "--budget",
        "40",
        "--games-per-trial",
        "10",
        "--confirm",
        "2",
        "--bots",
        "greedy,greedy",
        "--seed",
        "1",
        "--jobs",
        "1",
        "--quiet",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    # measurably better than the rulebook's, so named best, with the paired difference
    assert "best: actions_per_turn=5, better than the rulebook's actions_per_turn=3 by -" in text
    assert "warning" not in text  # 10-game trials tell these settings apart
    trials = pd.read_csv(out / "trials.csv")
    assert sorted(trials["actions_per_turn"]) == [2, 3, 4, 5]  # budget of 40: 4 settings
    assert trials["games"].sum() <= 40
    assert list(trials.sort_values("value")["actions_per_turn"]) == [5, 4, 3, 2]
    confirmed = pd.read_csv(out / "confirmed.csv").set_index("name")
    assert "rulebook" in confirmed.index and confirmed.loc["rulebook", "actions_per_turn"] == 3
    assert confirmed.loc["rulebook", "diff_low"] > 0  # the rulebook's games are longer
    assert (out / "tune.png").stat().st_size > 1000
    assert json.loads((out / "tune.json").read_text())["objective"] == "rounds"
    # a target of 12 rounds is nearest the rulebook's 3 actions, not the shortest game
    target = tmp_path / "target"
    argv2 = [*argv[:-1], str(target), "--target", "12"]
    assert main(argv2) == 0
    text = capsys.readouterr().out
    assert "best: the rulebook's actions_per_turn=3 itself; the other 1 is measurably worse" in text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--objective", "fun", "--param", "row_size=3..4"], "--objective 'fun'"),
        (["--objective", "rounds"], "at least one --param"),
        (
            ["--objective", "rounds", "--param", "row_size=3..4", "--rule", "row_size=3"],
            "it is searched",
        ),
        (["--objective", "rounds", "--param", "row_sized=3..4"], "not a rules parameter"),
        (["--objective", "rounds", "--param", "black_deck_2p=1..300"], "1-200"),
        (["--objective", "rounds", "--param", "row_size=3..4", "--target", "nan"], "--target nan"),
        (["--objective", "margin", "--param", "row_size=3..4", "--target=-inf"], "finite"),
    ],
)
def test_tune_mistakes_are_one_line(tmp_path: Path, capsys, args: list[str], says: str) -> None:
    argv = [
        "tune",
        *args,
        "--budget",
        "10",
        "--bots",
        "random,random",
        "--out",
        str(tmp_path / "t"),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not (tmp_path / "t" / "search").exists()


def test_tune_of_a_cards_points_confirms_its_printed_value(tmp_path: Path) -> None:
    from projectl_sim.experiments.tune import tune
    from projectl_sim.sim.runner import RunOptions

    result = tune(
        [parse_param("points.W25=2,4")],
        tmp_path / "t",
        objective_name="margin",
        bots=["greedy,random"],
        budget=8,
        games_per_trial=4,
        confirm=1,
        seed=2,
        options=RunOptions(jobs=1, quiet=True),
    )
    rulebook = result.confirmed.set_index("name").loc["rulebook"]
    assert rulebook["points.W25"] == 0  # W25's printed points, played beside the best
    assert sorted(result.trials["points.W25"]) == [2, 4]
    assert "points.W25=0" in result.text() and "(the rulebook's)" in result.text()


def _search(text: str) -> list[str]:
    """Return the report's lines of the search, one per setting tried."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("search, every setting"))
    end = next(i for i, line in enumerate(lines) if line.startswith(("confirmed", "warning")))
    return [line for line in lines[start + 1 : end] if line.startswith("  ")]


def test_tune_shows_every_setting_searched_and_marks_the_rulebooks(tmp_path: Path) -> None:
    from projectl_sim.experiments.tune import load_tune, tune
    from projectl_sim.sim.runner import RunOptions

    # 6 settings, 2 confirmed: every one listed, the rulebook's marked where it stands
    result = tune(
        [parse_param("black_deck_2p=11..16")],
        tmp_path / "t",
        objective_name="rounds",
        bots=["greedy,greedy"],
        budget=12,
        games_per_trial=2,
        confirm=2,
        confirm_games=2,
        seed=3,
        options=RunOptions(jobs=1, quiet=True),
    )
    text = result.text()
    listed = _search(text)
    assert len(listed) == len(result.trials) == 6
    assert sorted(int(line.split("=")[1].split()[0]) for line in listed) == list(range(11, 17))
    marked = [line for line in listed if "(the rulebook's)" in line]
    rule = result.rulebook["black_deck_2p"]
    assert len(marked) == 1 and marked[0].lstrip().startswith(f"black_deck_2p={rule} ")
    # every trial carries its paired interval from the search's best
    trials = pd.read_csv(tmp_path / "t" / "trials.csv")
    assert {"ci_low", "ci_high", "diff", "diff_low", "diff_high"} <= set(trials)
    assert (trials["diff_low"] <= trials["diff"]).all() and (
        trials["diff"] <= trials["diff_high"]
    ).all()
    # the folder read back says the same
    assert load_tune(tmp_path / "t").text() == text


def test_tune_says_no_setting_is_distinguishable_when_every_interval_holds_0(tmp_path) -> None:
    from projectl_sim.experiments.tune import tune
    from projectl_sim.sim.runner import RunOptions

    # the penalty for unfinished puzzles changes the scores, never when a game ends: the same
    # deals give the same lengths, every difference is 0 and no setting may be called best
    result = tune(
        [parse_param("unfinished_penalty=false,true")],
        tmp_path / "t",
        objective_name="rounds",
        bots=["random,random"],
        budget=8,
        games_per_trial=4,
        confirm=1,
        seed=4,
        options=RunOptions(jobs=1, quiet=True),
    )
    text = result.text()
    assert "verdict: no setting is distinguishable from the rulebook's at this budget" in text
    assert "\nbest:" not in text
    confirmed = result.confirmed
    assert (confirmed["vs_rulebook_low"] <= 0).all() and (confirmed["vs_rulebook_high"] >= 0).all()


def test_tune_warns_when_trials_are_too_small_to_rank_settings(tmp_path) -> None:
    from projectl_sim.experiments.tune import tune
    from projectl_sim.sim.runner import RunOptions

    # 4 games a trial: the margins of random play are noise, and more of the 5 settings are
    # within noise of the search's best than the one confirmed
    result = tune(
        [parse_param("black_deck_2p=12..16")],
        tmp_path / "t",
        objective_name="margin",
        bots=["random,random"],
        budget=20,
        games_per_trial=4,
        confirm=1,
        seed=7,
        options=RunOptions(jobs=1, quiet=True),
    )
    warning = result.noise_warning()
    assert warning is not None and warning in result.text()
    assert warning.startswith("warning: trials of 4 games per configuration are too small")
    trials = result.trials.sort_values(["value", "trial"]).reset_index(drop=True)
    tied = trials[(trials["diff_low"] <= 0) & (trials["diff_high"] >= 0)]
    assert len(tied) > 1 and f"{len(tied)} of {len(trials)} are within noise" in warning
    # the games a trial would need come from the interval of the first setting left out: its
    # lower end leaves 0 once its distance from the difference shrinks (1/sqrt(games)) below it
    left = tied[(tied.index >= 1) & (tied["diff"] > 0)].iloc[0]
    need = int(np.ceil(4 * ((left["diff"] - left["diff_low"]) / left["diff"]) ** 2))
    assert f"about {need} games per trial" in warning and need > 4
    # trials of 10 games on settings that differ a lot rank them: no warning there (above)


def test_strength_finds_a_candidate_whose_own_parameters_hold_commas() -> None:
    # the candidate greedy:reward=0.5,risk=1.9 wins 3 of 4 against greedy: its line-up's first
    # bot is the whole spec, not the text before the first comma
    candidate = "greedy:reward=0.5,risk=1.9"
    games = [
        G([candidate, "greedy"], [9, 4] if w else [4, 9], [1, 2] if w else [2, 1])
        for w in (1, 1, 0, 1)
    ]
    m = game_matrix(*tables_of(games))
    assert m.bots[int(m.focus[0])] == candidate
    assert objective(m, "strength") == pytest.approx(-0.75)


def _tune_argv(out: Path, *args: str) -> list[str]:
    return ["tune", *args, "--seed", "5", "--jobs", "1", "--quiet", "--out", str(out)]


def test_tune_of_two_bot_parameters_scores_every_trial(tmp_path: Path, capsys) -> None:
    from projectl_sim.experiments.tune import load_tune, plot_tune

    out = tmp_path / "t"
    argv = _tune_argv(
        out,
        *("--bot", "greedy", "--param", "risk=0.5,1", "--param", "reward=0,1"),
        *("--field", "random", "--budget", "8", "--games-per-trial", "2", "--confirm", "1"),
    )
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "nan" not in text
    trials = pd.read_csv(out / "trials.csv")
    assert len(trials) == 4 and np.isfinite(trials["value"]).all()
    assert (trials["value"] <= 0).all() and (trials["value"] >= -1).all()  # minus a win rate
    # the chart's legend names the bot's default, not the rulebook's
    fig = plot_tune(load_tune(out))
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert "the bot's default value" in labels and "the bot's default, confirmed" in labels
    assert not any("rulebook" in label for label in labels)


def test_tune_searches_every_value_of_a_small_range_or_names_those_left_out(
    tmp_path: Path, capsys
) -> None:
    common = (
        "--objective",
        "rounds",
        "--bots",
        "random,random",
        "--param",
        "actions_per_turn=2..4",
    )
    # 3 settings of 2 games each fit a budget of 6: every one is searched
    assert (
        main(_tune_argv(tmp_path / "all", *common, "--budget", "6", "--games-per-trial", "2")) == 0
    )
    assert sorted(pd.read_csv(tmp_path / "all" / "trials.csv")["actions_per_turn"]) == [2, 3, 4]
    assert "not searched" not in capsys.readouterr().out
    # a budget of 4 holds 2 of them: the one left out is named, with the budget that holds all
    out = tmp_path / "some"
    assert main(_tune_argv(out, *common, "--budget", "4", "--games-per-trial", "2")) == 0
    text = capsys.readouterr().out
    tried = set(pd.read_csv(out / "trials.csv")["actions_per_turn"])
    (left,) = {2, 3, 4} - tried
    assert (
        f"(not searched: actions_per_turn={left}: the budget of 4 games holds 2 trials of 2 "
        "games (2 per configuration); --budget 6 searches all 3 settings)"
    ) in text


def test_an_undefined_objective_is_an_error_naming_the_trial(tmp_path: Path, capsys) -> None:
    # strategy_spread compares kinds of bot: a line-up of one kind gives it no value
    out = tmp_path / "t"
    argv = _tune_argv(
        out,
        *("--objective", "strategy_spread", "--bots", "random,random"),
        *("--param", "actions_per_turn=2..3", "--budget", "4", "--games-per-trial", "2"),
    )
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "verdict" not in captured.out
    assert "tune: trial 0 (actions_per_turn=2): strategy_spread is not defined" in captured.err
    assert "no configuration seats two kinds of bot" in captured.err
    assert len(pd.read_csv(out / "trials.csv")) == 1  # the trial played is kept
