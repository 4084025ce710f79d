"""Analysis metrics against hand-computed tables: seat advantage, balance, expansion effects,
strategy tables (puzzles, points per action, Finishing Touches, Credits, solo), and the plots."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from analysis_util import G, make_tables
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from scipy import stats as sps

from bots import MCTSBot
from projectl_sim import analysis as pa_
from projectl_sim.analysis import plots, strategy
from projectl_sim.analysis.stats import diff_means, diff_proportions, mean_interval
from projectl_sim.sim import runner, tables
from projectl_sim.sim import spec as run_spec


# -- intervals ---------------------------------------------------------------------------------
def test_newcombe_interval_matches_the_published_example() -> None:
    # Newcombe (1998), method 10, example (b): 56/70 vs 48/80 -> 0.2000 (0.0524, 0.3339)
    d, low, high = diff_proportions(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert (low, high) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert all(math.isnan(v) for v in diff_proportions(1, 0, 1, 2))


def test_welch_and_t_intervals_by_hand() -> None:
    d, low, high = diff_means([1, 2, 3], [0, 0, 0, 0])
    se = math.sqrt(1 / 3)  # var([1, 2, 3]) = 1 over 3 values; the other group has none
    assert (d, low, high) == pytest.approx((2, 2 - 1.959964 * se, 2 + 1.959964 * se), rel=1e-5)
    mean, lo, hi = mean_interval([2, 4, 6])
    half = sps.t.ppf(0.975, 2) * 2 / math.sqrt(3)
    assert (mean, lo, hi) == pytest.approx((4, 4 - half, 4 + half))
    assert math.isnan(mean_interval([])[0]) and math.isnan(mean_interval([5])[1])


# -- seat advantage ------------------------------------------------------------------------------
def test_seat_advantage_counts_shared_wins_and_tests_equal_shares() -> None:
    seats, _ = make_tables(
        [
            G(["a", "a"], [9, 3], [1, 2]),  # turn order 0 wins
            G(["a", "a"], [5, 5], [1, 1]),  # shared: half each
            G(["a", "a"], [4, 8], [2, 1], first_player=1),  # seat 1 moved first and won
            G(["a", "a"], [4, 8], [2, 1], error="bot a raised"),  # failed: left out
            G(["a"], [30], [1], variant="solo"),  # solo: no table to be first at
        ]
    )
    table = pa_.seat_advantage(seats)
    assert list(table["players"]) == [2, 2]
    assert list(table["games"]) == [3, 3]
    assert list(table["wins"]) == [2.5, 0.5]
    assert list(table["expected"]) == [0.5, 0.5]
    chi2 = 2 * (2.5 - 1.5) ** 2 / 1.5
    assert table["chi2"].iloc[0] == pytest.approx(chi2)
    # 3 games: the exact test; only 3-0 splits are as uneven as 2.5-0.5, each 1/8 under 50:50
    assert table["p_value"].iloc[0] == pytest.approx(2 / 8)
    assert table["test"].iloc[0] == "exact"
    low, high = pa_.wilson(2.5, 3)
    assert (table["ci_low"].iloc[0], table["ci_high"].iloc[0]) == pytest.approx((low, high))


def test_a_seat_that_never_wins_has_share_zero_and_a_nonzero_upper_bound() -> None:
    seats, _ = make_tables([G(["a", "a", "a"], [9, 5, 1], [1, 2, 3])] * 4)
    table = pa_.seat_advantage(seats).set_index("turn_order")
    assert table.loc[2, "share"] == 0 and table.loc[2, "ci_low"] == 0
    assert 0 < table.loc[2, "ci_high"] < 1
    assert table.loc[0, "share"] == 1
    assert table["p_value"].iloc[0] < 0.05  # 4 of 4 to one seat of three


def test_seat_advantage_of_empty_groups_is_an_empty_table() -> None:
    seats, _ = make_tables([G(["a"], [3], [2], variant="solo")])
    assert pa_.seat_advantage(seats).empty
    assert pa_.seat_advantage(seats.iloc[0:0]).empty
    assert "p_value" in pa_.seat_advantage(seats.iloc[0:0]).columns


# -- balance -------------------------------------------------------------------------------------
def _balance_games() -> list[G]:
    return [
        G(["a", "b"], [10, 10], [1, 1], rounds=8),  # shared win: margin 0
        G(["a", "b"], [12, 9], [1, 2], rounds=10, first_player=1),  # margin 3, first player lost
        G(["a", "b"], [20, 10], [1, 2], rounds=12, end_reason="stall"),  # margin 10
        G(["a", "b"], [1, 1], [1, 2], error="boom"),
    ]


def test_balance_table_by_hand() -> None:
    seats, games = make_tables(_balance_games())
    row = pa_.balance_table(seats, games, close=2).iloc[0]
    assert (row["games"], row["failed"]) == (3, 1)
    # first player: game 0 half, game 1 lost (seat 1 moved first), game 2 won
    assert row["first_player_rate"] == pytest.approx(1.5 / 3)
    assert row["seat_advantage"] == pytest.approx(0.0)
    assert row["margin_mean"] == pytest.approx(13 / 3)
    assert row["close_share"] == pytest.approx(1 / 3)
    assert (row["rounds_mean"], row["rounds_median"]) == (10, 10)
    assert row["truncated_share"] == pytest.approx(1 / 3)
    assert row["shared_win_share"] == pytest.approx(1 / 3)
    assert row["score_mean"] == pytest.approx((10 + 10 + 12 + 9 + 20 + 10) / 6)


def test_end_reasons_shares() -> None:
    _, games = make_tables(_balance_games())
    reasons = pa_.end_reasons(games, ["players"]).set_index("end_reason")
    assert reasons.loc["rules", "games"] == 2 and reasons.loc["stall", "games"] == 1
    assert reasons["share"].sum() == pytest.approx(1)


def test_expansion_sets_put_the_base_game_first() -> None:
    sets = ("ghost+phoenix", "ghost", "none")
    games = [G(["a", "a"], [10, 8], [1, 2], expansions=e) for e in sets]
    assert pa_.expansion_sets(make_tables(games)[1]) == ["none", "ghost", "ghost+phoenix"]


# -- strategy ------------------------------------------------------------------------------------
def test_puzzle_stats_taken_is_completed_plus_unfinished() -> None:
    seats, _ = make_tables(
        [
            G(
                ["a", "b"],
                [9, 3],
                [1, 2],
                seat={
                    "puzzles_completed": ["W01 B02", "W01"],
                    "puzzles_unfinished": [None, "B02"],
                },
            ),
            G(
                ["a", "b"],
                [4, 5],
                [2, 1],
                seat={
                    "puzzles_completed": [None, "W03"],
                    "puzzles_unfinished": ["W01", None],
                },
            ),
        ]
    )
    stats = pa_.puzzle_stats(seats).set_index("puzzle")
    assert stats.loc["W01", "taken"] == 3 and stats.loc["W01", "completed"] == 2
    assert stats.loc["B02", "unfinished"] == 1 and stats.loc["B02", "completion_rate"] == 0.5
    assert stats.loc["W01", "taken_per_game"] == 1.5
    assert stats.loc["W01", "winner_share"] == pytest.approx(1 / 3)  # only seat a of game 0 won
    assert stats.loc["W03", "winner_share"] == 1


def test_puzzle_stats_of_tables_without_the_columns_is_empty() -> None:
    seats, _ = make_tables([G(["a", "b"], [9, 3], [1, 2])])  # columns null, as in old tables
    assert pa_.puzzle_stats(seats).empty
    assert pa_.puzzle_stats(seats.drop(columns=["puzzles_completed"])).empty


def test_points_per_action_counts_play_actions_only() -> None:
    seats, _ = make_tables(
        [
            G(
                ["a", "b"],
                [10, 6],
                [1, 2],
                seat={
                    "actions_take": [4, 2],
                    "actions_place": [16, 10],
                    "actions_reward": [5, 5],
                    "actions_finish": [1, 1],
                },
            ),
        ]
    )
    table = pa_.points_per_action(seats, by=["bot"]).set_index("bot")
    assert table.loc["a", "points_per_action"] == pytest.approx(0.5)
    assert table.loc["b", "points_per_action"] == pytest.approx(0.5)
    assert table.loc["a", "actions_mean"] == 20
    mix = pa_.action_mix(seats, by=["bot"]).set_index("bot")
    assert mix.loc["a", "place"] == pytest.approx(0.8) and mix.loc["a", "take"] == 0.2


def test_finishing_touches_leave_out_truncated_games() -> None:
    seats, games = make_tables(
        [
            G(
                ["a", "b"],
                [10, 6],
                [1, 2],
                seat={
                    "finishing_pieces": [2, 0],
                    "unfinished": [0, 1],
                    "unfinished_penalty": [0, 4],
                },
            ),
            G(
                ["a", "b"],
                [10, 6],
                [1, 2],
                end_reason="stall",
                seat={"finishing_pieces": [0, 0], "unfinished": [3, 3]},
            ),
        ]
    )
    table = pa_.finishing_touches(seats, games, by=["bot"]).set_index("bot")
    assert list(table["seats"]) == [1, 1]
    assert table.loc["a", "used_share"] == 1 and table.loc["a", "pieces_mean"] == 2
    assert table.loc["b", "used_share"] == 0 and table.loc["b", "penalty_mean"] == 4


def test_credits_are_empty_without_finesse_and_averaged_with_it() -> None:
    seats, _ = make_tables([G(["a", "b"], [10, 6], [1, 2])])
    assert pa_.credits(seats).empty  # no Credits columns at all
    nulls = seats.assign(**dict.fromkeys(strategy.CREDIT_COLUMNS, None))
    assert pa_.credits(nulls).empty  # present but all null
    assert plots.plot_credits(pa_.credits(nulls)).get_title() == "Credits economy (Finesse)"
    values = {
        "credits_earned": [6, 2],
        "credits_spent": [3, 2],
        "credits_final": [3, 0],
        "inserts": [1, 0],
        "finishing_credits": [2, 0],
    }
    two = [G(["a", "b"], [10, 6], [1, 2], seat=values), G(["a", "b"], [5, 7], [2, 1], seat=values)]
    seats, _ = make_tables(two)
    table = pa_.credits(seats, by=["bot"]).set_index("bot")
    assert table.loc["a", "credits_earned_mean"] == 6 and table.loc["b", "credits_spent_mean"] == 2
    assert table.loc["a", "spent_share"] == 0.5 and table.loc["b", "spent_share"] == 1
    assert table.loc["a", "win_rate"] == 0.5 and table.loc["a", "seats"] == 2
    assert len(strategy.credit_use(seats)) == 2 * 2 * len(values)


def test_solo_win_rate_by_difficulty() -> None:
    solo = [
        G(["greedy"], [20], [1], variant="solo", switches="difficulty=normal", opponent_score=10),
        G(["greedy"], [12], [2], variant="solo", switches="difficulty=normal", opponent_score=15),
        G(["greedy"], [8], [2], variant="solo", switches="difficulty=hard", opponent_score=18),
        G(["greedy", "greedy"], [8, 9], [2, 1]),  # not solo
    ]
    seats, games = make_tables(solo)
    table = pa_.solo_by_difficulty(seats, games)
    assert list(table["difficulty"]) == ["normal", "hard"]
    assert list(table["win_rate"]) == [0.5, 0.0]
    assert list(table["margin_mean"]) == [(10 - 3) / 2, -10]
    assert table["ci_high"].iloc[1] > 0
    assert pa_.solo_by_difficulty(*make_tables(solo[3:])).empty


def test_piece_mix_places_pieces_in_stages() -> None:
    records = [
        {
            "actions": [
                {"type": "take", "puzzle": "W01"},
                {"type": "place", "piece": "mono"},
                {"type": "master", "placements": [{"piece": "domino"}, {"piece": "mono"}]},
                {"type": "finish", "placements": [{"piece": "tri_L"}]},
            ]
        }
    ]
    mix = pa_.piece_mix(records, bins=2)
    counts = {(r.stage, r.piece): r.placements for r in mix.itertuples()}
    assert counts == {(1, "mono"): 1, (2, "domino"): 1, (2, "mono"): 1, (2, "tri_L"): 1}
    assert mix.groupby("stage")["share"].sum().tolist() == pytest.approx([1, 1])
    assert pa_.piece_mix([]).empty


# -- the seat columns of puzzles, and old tables without them -----------------------------------
def test_run_tables_name_the_puzzles_of_every_seat(tmp_path) -> None:
    spec = run_spec.RunSpec.from_mapping({"bots": ["greedy,random"], "games": 4, "seed": 11})
    runner.run(spec, tmp_path / "run", options=runner.RunOptions(jobs=1, quiet=True))
    seats = pa_.load_run(tmp_path / "run").seats
    completed = seats["puzzles_completed"].fillna("").str.split().str.len()
    unfinished = seats["puzzles_unfinished"].fillna("").str.split().str.len()
    assert (completed == seats["completed_white"] + seats["completed_black"]).all()
    assert (unfinished == seats["unfinished"]).all()
    assert seats["puzzles_completed"].str.contains("B").any()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_tables_written_before_the_puzzle_columns_still_read(tmp_path, fmt: str) -> None:
    seats, _ = make_tables([G(["a", "b"], [3, 1], [1, 2])])
    old = pa.Table.from_pandas(seats.drop(columns=["puzzles_completed", "puzzles_unfinished"]))
    if fmt == "csv":
        pacsv.write_csv(old, tmp_path / "seats.csv")
    else:
        pq.write_table(old, tmp_path / "seats.parquet")
    back = tables.read_table(tmp_path, "seats")
    assert back.schema.names == tables.SEATS_SCHEMA.names
    assert back.column("puzzles_completed").null_count == 2


# -- plots ---------------------------------------------------------------------------------------
def test_every_plot_returns_axes_and_leaves_global_state_alone(tmp_path) -> None:
    rc = dict(matplotlib.rcParams)
    seats, games = make_tables(_balance_games())
    empty = pd.DataFrame()
    drawings = [
        plots.plot_win_rates(pa_.win_rates(seats, ["bot"]), labels=["bot"]),
        plots.plot_ratings(pa_.rate_bots(seats)),
        plots.plot_ratings(pa_.plackett_luce(seats)),
        plots.plot_head_to_head(pa_.head_to_head_matrix(seats)),
        plots.plot_ladder(pa_.skill_ladder(seats)),
        plots.plot_end_reasons(pa_.end_reasons(games)),
        plots.plot_scores(seats),
        plots.plot_puzzles(pa_.puzzle_stats(seats)),
        plots.plot_points_per_action(pa_.points_per_action(seats)),
        plots.plot_piece_mix(pa_.piece_mix([])),
        plots.plot_solo(pa_.solo_by_difficulty(seats, games)),
        plots.plot_credits(pa_.credits(seats)),
        plots.plot_finishing(pa_.finishing_touches(seats, games)),
        plots.plot_puzzle_value(empty),
    ]
    faceted = [  # small multiples: a Figure, on the one given when there is one
        plots.plot_seat_advantage(pa_.seat_advantage(seats)),
        plots.plot_margins(games),
        plots.plot_lengths(games, by=["expansions", "players"]),
        plots.plot_effects(pa_.effects(seats, games)),
    ]
    for i, drawing in enumerate(drawings + faceted):
        assert isinstance(drawing, Axes if i < len(drawings) else Figure)
        path = plots.save(drawing, tmp_path / f"{i}.png")
        assert path.read_bytes()[:4] == b"\x89PNG"
    given = Figure()
    assert plots.plot_margins(games, fig=given) is given
    assert plots.plot_seat_advantage(pa_.seat_advantage(seats), fig=given) is given
    ax = plots.new_axes()
    assert plots.plot_scores(seats, ax=ax) is ax
    assert dict(matplotlib.rcParams) == rc
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []  # nothing went through pyplot


def test_skill_ladder_reads_budgets_including_the_default() -> None:
    default = MCTSBot.params["iterations"][0]
    low = default // 2
    rng = np.random.default_rng(3)
    games = []
    for _ in range(40):  # half the default vs the default, seats alternating; larger wins 3 in 4
        hi_wins = rng.random() < 0.75
        flip = len(games) % 2
        bots = [f"mcts:iterations={low}", "mcts"][:: 1 - 2 * flip]
        hi = 1 - flip
        ranks = [1, 2] if (hi_wins == (hi == 0)) else [2, 1]
        games.append(G(bots, [10, 5] if ranks[0] == 1 else [5, 10], ranks))
    games.append(G(["mcts", "greedy"], [5, 6], [2, 1]))  # not a ladder game
    seats, _ = make_tables(games)
    # the tables name the default budget "mcts": the analysis learns its value from the caller
    assert pa_.skill_ladder(seats).empty
    ladder = pa_.skill_ladder(seats, default=default)
    assert list(ladder[["low", "high", "games"]].iloc[0]) == [low, default, 40]
    hi_wins = sum(1 for g in games[:40] if g.bots[g.ranks.index(1)] == "mcts")
    assert ladder["wins"].iloc[0] == hi_wins
    from projectl_sim.experiments.sweep import ladder_lineups

    assert ladder_lineups([8, 16]) == [
        "mcts:iterations=8,mcts:iterations=16",
        "mcts:iterations=16,mcts:iterations=32",
    ]


# -- sweeps --------------------------------------------------------------------------------------
def test_sweeps_cover_every_expansion_combination() -> None:
    from projectl_sim.experiments import sweep
    from projectl_sim.rules import EXPANSIONS

    combos = sweep.expansion_combinations()
    assert combos[0] == "none" and len(set(combos)) == 2 ** len(EXPANSIONS) == 16
    assert {n for c in combos[1:] for n in c.split("+")} == set(EXPANSIONS)
    assert sweep.balance_config()["expansions"] == combos
    assert sweep.finesse_config()["expansions"] == [
        c for c in combos if c == "none" or "finesse" in c.split("+")
    ]
    assert sweep.solo_config()["difficulty"] == ["normal", "hard", "unbeatable"]
    # the runner reads each name back as the same set, and names it the same way in its tables
    spec = run_spec.RunSpec.from_mapping({"bots": ["random,random"], "expansions": combos})
    assert ["+".join(e) or "none" for e in spec.expansions] == combos


def test_ensure_run_plays_once_and_is_seeded(tmp_path) -> None:
    from projectl_sim.experiments import sweep

    config = {"bots": ["random"], "players": [2], "games": 3}
    one = sweep.ensure_run(tmp_path / "one", config, seed=4)
    two = sweep.ensure_run(tmp_path / "two", config, seed=4)
    first, second = pa_.load_run(one), pa_.load_run(two)
    assert first.seats.drop(columns=list(tables.TIMING_COLUMNS["seats"])).equals(
        second.seats.drop(columns=list(tables.TIMING_COLUMNS["seats"]))
    )
    stamp = (one / "seats.parquet").stat().st_mtime_ns
    assert sweep.ensure_run(one, {"bots": ["greedy"], "players": [3], "games": 9}, seed=1) == one
    assert (one / "seats.parquet").stat().st_mtime_ns == stamp  # an existing run is kept


def test_the_package_exports_every_statistic_the_stats_package_declares() -> None:
    import subprocess
    import sys

    from projectl_sim.analysis import stats

    assert set(stats.__all__) <= set(pa_.__all__)
    assert all(getattr(pa_, name) is getattr(stats, name) for name in stats.__all__)
    # and reading the list loads neither pandas nor scipy
    code = (
        "import sys, projectl_sim.analysis as a; a.__all__; "
        "print(sorted(m for m in ('pandas', 'scipy') if m in sys.modules))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout.strip() == "[]", shown.stderr
