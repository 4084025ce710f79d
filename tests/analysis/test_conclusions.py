"""The notebooks' answers in words follow the tables they are given (analysis.conclusions)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_util import G, grid_tables, make_tables

from projectl_sim import analysis as pa
from projectl_sim.analysis.conclusions import RULEBOOK, designer_answer


def _duel(strong: str, weak: str, games: int, upsets: int = 0) -> list[G]:
    out = []
    for i in range(games):
        bots = [strong, weak] if i % 2 == 0 else [weak, strong]
        wins = bots.index(strong) if i >= upsets else bots.index(weak)
        ranks = [1, 2] if wins == 0 else [2, 1]
        out.append(G(bots, [10 if r == 1 else 5 for r in ranks], ranks))
    return out


@pytest.mark.parametrize(("strong", "weak"), [("greedy", "random"), ("random", "greedy")])
def test_the_bot_strength_answer_names_the_bot_that_won(strong: str, weak: str) -> None:
    seats, games = make_tables(_duel(strong, weak, 40, upsets=8))
    ratings = pa.rate_bots(seats)
    text = pa.bot_strength_answer(games, ratings, pa.skill_ladder(seats))
    assert text.startswith(f"Over 40 games, **{strong}** rates highest")
    assert f"clearly ahead of {weak}" in text
    assert "no budget ladder" in text
    no_intervals = ratings.assign(ci_low=np.nan, ci_high=np.nan)
    unsure = pa.bot_strength_answer(games, no_intervals, pd.DataFrame())
    assert "comes without the intervals to tell how sure it is" in unsure


def test_the_bot_strength_answer_reads_the_ladder() -> None:
    helps = _duel("mcts:iterations=8", "mcts:iterations=4", 30, upsets=2)
    even = _duel("mcts:iterations=16", "mcts:iterations=8", 30, upsets=15)
    seats, games = make_tables(helps + even)
    ladder = pa.skill_ladder(seats)
    text = pa.bot_strength_answer(games, pa.rate_bots(seats), ladder)
    assert "4 to 8 wins 93% [" in text and "(helps)" in text
    assert "8 to 16 wins 50% [" in text and "not told apart from an even game" in text
    assert text.endswith("Doubling still clearly buys strength up to 4 to 8.")


def test_a_run_of_one_bot_has_nothing_to_rate() -> None:
    seats, games = make_tables([G(["a", "a"], [3, 1], [1, 2])] * 3)
    text = pa.bot_strength_answer(games, pa.rate_bots(seats), pa.skill_ladder(seats))
    assert text.startswith("None of the 3 games seated two different bots")


def test_the_balance_answer_finds_a_planted_first_player_advantage() -> None:
    rng = np.random.default_rng(4)
    seats, games = grid_tables(rng, games=60, players=(2,), planted={(2, "finesse"): 0.9})
    seat = pa.seat_advantage(seats, by=["players", "expansions"])
    text = pa.balance_answer(games, seat, pa.effects(seats, games))
    assert text.startswith("Over 960 games in 16 configurations (a median of 60 each)")
    high = seat.loc[seat["turn_order"] == 0, "share"].max()  # about 0.9, at 2p Finesse
    assert f"to {100 * high:.0f}% [" in text and "] (2p F), against a fair share" in text
    # seat fairness decided once: after the correction for the 16 configurations tested
    assert "1 of 16 configurations show unequal shares after the Benjamini-Hochberg" in text
    assert "the most uneven is 2p F (q <0.001)" in text
    assert "at least 18 points at 2 players" in text  # 80% power at 60 games a configuration
    assert "2p F first_player_rate +" in text  # Finesse's effect survives the correction


def test_the_balance_answer_tells_two_line_ups_apart_and_names_its_abbreviations() -> None:
    # Finesse games 4 rounds longer under two line-ups: "2p F rounds" twice would not say which
    played = [
        G(bots, [3, 1], [1, 2], expansions=e, rounds=10 + 4 * (e == "finesse") + i % 3)
        for i in range(20)
        for e in ("none", "finesse")
        for bots in (["a", "b"], ["a", "c"])
    ]
    seats, games = make_tables(played)
    seat = pa.seat_advantage(seats, by=["players", "expansions", "lineup"])
    text = pa.balance_answer(games, seat, pa.effects(seats, games))
    assert "2p F a,b rounds +4.00" in text and "2p F a,c rounds +4.00" in text, text
    assert "(F = finesse)." in text
    assert re.search(r"ranges from .* \(2p (base|F) a,[bc]\) to .* \(2p (base|F) a,[bc]\)", text)


def test_the_balance_answer_without_a_base_game_says_so() -> None:
    seats, games = make_tables([G(["a", "a"], [3, 1], [1, 2], expansions="finesse")] * 4)
    seat = pa.seat_advantage(seats, by=["players", "expansions"])
    text = pa.balance_answer(games, seat, pa.effects(seats, games))
    assert "in 1 configuration (a median of 4 each)" in text
    assert text.endswith(
        "No expansion set was played next to its base game, so no effect is estimated."
    )


def test_the_puzzle_answer_counts_the_puzzles_taken() -> None:
    columns = {"puzzles_completed": ["W01 B02", "W01"], "puzzles_unfinished": ["", "B03"]}
    seats, games = make_tables([G(["a", "b"], [3, 1], [1, 2], seat=columns)] * 2)
    taken = pa.puzzle_stats(seats)
    text = pa.puzzle_answer(games, taken, pd.DataFrame())
    assert text.startswith("Over 2 games, seats took 8 puzzles (4.0 a game) and completed 75%")
    assert "Most taken: **W01** (4 times, 100% completed)." in text
    old = seats.assign(puzzles_completed=None, puzzles_unfinished=None)
    assert "name no puzzles" in pa.puzzle_answer(games, pa.puzzle_stats(old), pd.DataFrame())


def test_the_solo_answer_gives_each_difficulty_and_no_finesse() -> None:
    solo = [
        G(["greedy"], [20], [1], variant="solo", switches="difficulty=normal", opponent_score=10),
        G(["greedy"], [12], [2], variant="solo", switches="difficulty=normal", opponent_score=15),
        G(["greedy"], [8], [2], variant="solo", switches="difficulty=hard", opponent_score=18),
        G(["greedy", "greedy"], [8, 9], [2, 1]),
    ]
    seats, games = make_tables(solo)
    text = pa.solo_finesse_answer(
        games,
        pa.solo_by_difficulty(seats, games),
        pa.credits(seats, by=["expansions", "players", "bot"]),
        pa.finishing_touches(seats, games, by=["variant", "expansions", "bot"]),
    )
    assert text.startswith("In 3 games against the solo mastermind, **greedy** wins 50% [")
    assert "0% [0, " in text and "at hard" in text
    assert "(mean margin +3.5 points at normal)" in text
    assert "None of the 1 game played Finesse" in text


# -- 05: the designer's loop (check, trial report and tune result built by hand) ------------------
@pytest.fixture(scope="module")
def printed():
    from projectl_sim.loading import base_catalogue
    from projectl_sim.tiling.atlas import atlas_rows

    cat = base_catalogue()
    return cat, atlas_rows(cat)


L_ROWS = [".....", "..#..", "..#..", "..##.", "....."]


def _check(printed, points: int, rows=L_ROWS, pid: str = "N01"):
    from projectl_sim.puzzles.drawings import DrawnPuzzle, parse_drawing
    from projectl_sim.puzzles.puzzle_check import check_puzzle

    cat, atlas = printed
    return check_puzzle(cat, DrawnPuzzle(pid, "white", points, "tri_L", parse_drawing(rows)), atlas)


def _report(
    effects: list[tuple],
    taken: tuple[float, float, float] | None = (0.3, 0.2, 0.4),
    detected: list[bool] | None = None,
):
    """A trial report: ``effects`` as (metric, bot, kind, a, b, diff, low, high) of one config;
    ``detected``: the findings' decision on each (default: where the interval leaves out 0)."""
    from projectl_sim.analysis.trial import TrialReport

    use = pd.DataFrame(
        [
            {
                "run": "with",
                "bot": "all",
                "taken_rate": 0.5,
                "taken_ci_low": 0.4,
                "taken_ci_high": 0.6,
                "completion_rate": 0.9,
                "completion_ci_low": 0.8,
                "completion_ci_high": 0.95,
            }
        ]
    )
    rows = [
        {
            "config_b": 0,
            "metric": m,
            "bot": bot,
            "kind": kind,
            "value_a": a,
            "value_b": b,
            "diff": d,
            "ci_low": low,
            "ci_high": high,
            "significant": low > 0 or high < 0,
            "detected": low > 0 or high < 0 if detected is None else detected[i],
            "pairs": 200,
        }
        for i, (m, bot, kind, a, b, d, low, high) in enumerate(effects)
    ]
    configs = pd.DataFrame(
        [{"config_id": 0, "players": 2, "lineup": "greedy,random", "switches": "default"}]
    ).set_index("config_id")
    diff = None if taken is None else dict(zip(["diff", "ci_low", "ci_high"], taken, strict=True))
    return TrialReport(
        "N01", "W25", use, diff | {"pairs": 200} if diff else None, pd.DataFrame(rows), configs, 200
    )


def _tune(confirmed: list[tuple]):
    """A tune result: ``confirmed`` rows as (name, black_deck_2p, value, ci_low, ci_high, diff,
    diff_low, diff_high)."""
    from projectl_sim.experiments.tune import TuneResult, parse_param

    cols = ["name", "black_deck_2p", "value", "ci_low", "ci_high", "diff", "diff_low", "diff_high"]
    trials = pd.DataFrame({"trial": range(7), "black_deck_2p": range(10, 17), "value": 0.1})
    table = pd.DataFrame(confirmed, columns=cols).assign(games=200)
    return TuneResult(
        Path("tune"),
        "seat_advantage",
        (parse_param("black_deck_2p=10..16"),),
        trials,
        table,
        2026,
        7,
        games_played=950,
    )


EVEN = [
    ("first_player_rate", None, "rate", 0.50, 0.52, 0.02, -0.03, 0.07),
    ("margin", None, "mean", 4.0, 4.1, 0.1, -0.2, 0.4),
    ("win_rate", "greedy", "rate", 0.9, 0.9, 0.0, -0.02, 0.02),
]
CLOSE = [
    ("trial-000", 10, 0.0125, 0.0, 0.0875, 0.0, 0.0, 0.0),
    ("rulebook", 12, 0.0300, 0.0025, 0.0975, 0.0175, -0.0651, 0.08),
]


def test_the_designer_answer_says_what_the_puzzle_costs(printed) -> None:
    one = _check(printed, points=1)
    text = designer_answer(one, _report(EVEN), _tune(CLOSE))
    row = one.row
    assert text.startswith(
        f"**N01** (white, 1 point, reward tri_L) fills its 4 cells in {row['tilings']} tilings "
        f"and costs {row['total_actions']} actions to finish alone from the starting supply "
        f"({one.cheapest[0].text}): {one.points_per_action:.2f} points per action, "
    )
    assert one.rank > 1 and f" of {one.among + 1} among the printed white puzzles" in text
    # the same shape worth more points per action ranks first; worth 0 is said to be its reward
    three = designer_answer(_check(printed, 3), _report(EVEN), _tune(CLOSE))
    assert f": 1.00 points per action, 1st of {one.among + 1} among" in three
    zero = designer_answer(_check(printed, 0), _report(EVEN), _tune(CLOSE))
    assert "(a 0-point card is worth its reward, which points per action leaves out)." in zero
    unfillable = replace(one, row=one.row | {"multisets": 0})
    assert designer_answer(unfillable, _report(EVEN), _tune(CLOSE)).startswith(
        "**N01** (white, 1 point, reward tri_L) cannot be filled with the catalogue's pieces"
    )


def test_the_designer_answer_says_no_measurable_change_when_the_intervals_cover_0(printed) -> None:
    text = designer_answer(_check(printed, 1), _report(EVEN), _tune(CLOSE))
    assert (
        "Over 200 paired games in the place of W25 (the same deals with and without it), it was "
        "taken in 50% [40, 60] of games and completed in 90% [80, 95] of its takes; it was taken "
        "+30.0 percentage points [+20.0, +40.0] more often than W25 in the same games." in text
    )
    assert (
        "It made no measurable change to the game: none of the 3 paired differences is a finding "
        "(q < 0.05 over them) (first player's win rate 50% to 52%, +2.0 pts [-3.0, +7.0]; "
        "winning margin (points) 4.00 to 4.10, +0.10 [-0.20, +0.40])." in text
    )
    # a take rate whose interval covers 0 is said to be no change too
    unsure = _report(EVEN, taken=(0.05, -0.02, 0.12))
    assert "[-2.0, +12.0] more often than W25 in the same games, no measurable change in how " in (
        designer_answer(_check(printed, 1), unsure, _tune(CLOSE))
    )


def test_the_designer_answer_names_the_changes_whose_interval_leaves_out_0(printed) -> None:
    moved = [EVEN[0], ("rounds", None, "mean", 14.3, 13.1, -1.2, -1.9, -0.5), EVEN[2]]
    text = designer_answer(_check(printed, 1), _report(moved), _tune(CLOSE))
    assert "no measurable change to the game" not in text
    assert (
        "It changed the game measurably in 1 of 3 paired differences (findings: q < 0.05 over "
        "them): length (rounds) 14.30 to 13.10, -1.20 [-1.90, -0.50]; the other 2 show no "
        "measurable change." in text
    )
    bot = [("win_rate", "greedy", "rate", 0.6, 0.7, 0.1, 0.04, 0.16)]
    assert "greedy's win rate 60% to 70%, +10.0 pts [+4.0, +16.0]." in (
        designer_answer(_check(printed, 1), _report(bot), _tune(CLOSE))
    )
    empty = designer_answer(_check(printed, 1), _report([]), _tune(CLOSE))
    assert "No finished games to compare" in empty
    # an interval that leaves out 0 is no change the answer names unless the findings detect it
    raw = designer_answer(_check(printed, 1), _report(moved, detected=[False] * 3), _tune(CLOSE))
    assert "It made no measurable change to the game: none of the 3 paired differences" in raw


def test_the_designer_answer_sets_the_search_against_the_rulebook(printed) -> None:
    check, report = _check(printed, 1), _report(EVEN)
    head = (
        "The balance search over black_deck_2p=10..16 (seat_advantage, smaller is better; 7 "
        "settings on the same deals, 950 games in all) found "
    )
    close = designer_answer(check, report, _tune(CLOSE))
    assert close.endswith(
        head + "black_deck_2p=10 best, 0.0125 [0.0000, 0.0875] on fresh deals, against the "
        "rulebook's black_deck_2p=12 at 0.0300 [0.0025, 0.0975]: their difference +0.0175 "
        "[-0.0651, +0.0800] on the same deals covers 0, no measurable change from the rulebook's "
        "setting at this size."
    )
    worse = [CLOSE[0], ("rulebook", 12, 0.2, 0.15, 0.25, 0.19, 0.12, 0.26)]
    assert designer_answer(check, report, _tune(worse)).endswith(
        "the rulebook's is measurably worse, by +0.1900 [+0.1200, +0.2600] on the same deals."
    )
    # an interval that reaches 0 (the bootstrap's edge) covers it: no measurable change
    edge = [CLOSE[0], ("rulebook", 12, 0.4, 0.3, 0.5, 0.35, 0.0, 0.5)]
    assert designer_answer(check, report, _tune(edge)).endswith(
        "their difference +0.3500 [+0.0000, +0.5000] on the same deals covers 0, no measurable "
        "change from the rulebook's setting at this size."
    )
    own = [
        ("rulebook", 12, 0.01, 0.0, 0.05, 0.0, 0.0, 0.0),
        ("trial-001", 10, 0.02, 0.0, 0.06, 0.01, -0.02, 0.04),
    ]
    assert designer_answer(check, report, _tune(own)).endswith(
        head + "the rulebook's own setting best: black_deck_2p=12, 0.0100 [0.0000, 0.0500] on "
        "fresh deals."
    )
    alone = designer_answer(check, report, _tune(CLOSE[:1]))
    assert alone.endswith(
        "the rulebook's setting was not played beside it (a card the catalogue lacks)."
    )


def test_the_rulebook_row_is_named_as_tune_names_it() -> None:
    from projectl_sim.experiments import tune

    assert RULEBOOK == tune.RULEBOOK


def test_the_puzzle_value_answer_is_the_findings_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from projectl_sim.analysis import conclusions
    from projectl_sim.analysis.findings import puzzle_value_findings

    columns = {"puzzles_completed": ["W01 B02", "W01"], "puzzles_unfinished": ["", "B03"]}
    seats, games = make_tables([G(["a", "b"], [3, 1], [1, 2], seat=columns)] * 2)
    ppa = np.linspace(0.2, 2.0, 12)
    value = pd.DataFrame(
        {
            "id": [f"W{i:02d}" for i in range(1, 13)],
            "points": 1,
            "total_actions": 3,
            "points_per_action": ppa,
            "taken_per_game": ppa * 0.5 + 0.01 * np.arange(12) % 3,
        }
    )
    (row,) = puzzle_value_findings(value)
    assert row.question == "puzzle value" and row.test == "Spearman" and row.q == row.p
    assert row.detected and row.estimate > 0.5 and "more often" in row.verdict
    text = pa.puzzle_answer(games, pa.puzzle_stats(seats), value)
    assert text.endswith(row.verdict)
    # the answer prints the row, whatever it says: it tests nothing itself
    monkeypatch.setattr(
        conclusions, "puzzle_value_findings", lambda _: [replace(row, verdict="the row's words.")]
    )
    assert pa.puzzle_answer(games, pa.puzzle_stats(seats), value).endswith("the row's words.")
    flat = value.assign(taken_per_game=0.5)  # nothing to rank: no finding, no sentence
    assert puzzle_value_findings(flat) == []
