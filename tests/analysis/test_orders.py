"""Plackett-Luce ratings: known answers, honest reports of unbounded ratings, coverage of the
profile likelihood intervals, per-pair head-to-head, and time per decision."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from analysis_util import G, make_tables
from scipy import stats as sps
from scipy.optimize import brentq
from test_ratings import _plackett_luce_games

from projectl_sim.analysis import orders as pl
from projectl_sim.analysis.ratings import ELO, pair_results, plackett_luce
from projectl_sim.analysis.timing import decision_times


def test_two_bots_give_the_binomial_likelihood_ratio_interval() -> None:
    # a beats b 30 times in 40: theta_a = -theta_b = logit(p)/2, and the interval is the
    # binomial likelihood-ratio interval of p mapped the same way
    games = [G(["a", "b"], [2, 1], [1, 2])] * 30 + [G(["a", "b"], [1, 2], [2, 1])] * 10
    rated = plackett_luce(make_tables(games)[0]).set_index("bot")
    x, n = 30, 40
    assert rated.loc["a", "rating"] == pytest.approx(ELO * math.log(3) / 2, rel=1e-6)

    def drop(p: float) -> float:
        lik = x * math.log(p) + (n - x) * math.log(1 - p)
        return 2 * (x * math.log(x / n) + (n - x) * math.log(1 - x / n) - lik) - sps.chi2.ppf(
            0.95, 1
        )

    low, high = brentq(drop, 1e-6, x / n), brentq(drop, x / n, 1 - 1e-6)
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    assert rated.loc["a", "ci_low"] == pytest.approx(ELO * logit(low) / 2, abs=0.01)
    assert rated.loc["a", "ci_high"] == pytest.approx(ELO * logit(high) / 2, abs=0.01)
    assert rated.loc["b", "ci_high"] == pytest.approx(-rated.loc["a", "ci_low"], abs=0.01)


def test_a_shared_win_counts_half_a_win_each_as_bradley_terry_does() -> None:
    games = [G(["a", "b"], [2, 1], [1, 2])] * 3 + [G(["a", "b"], [1, 2], [2, 1])]
    games += [G(["a", "b"], [2, 2], [1, 1])]  # shared
    rated = plackett_luce(make_tables(games)[0], anchor="b").set_index("bot")
    # Bradley-Terry's maximum likelihood of 3.5 wins to 1.5: the log of their odds
    assert rated.loc["a", "rating"] == pytest.approx(ELO * math.log(3.5 / 1.5), rel=1e-6)
    assert rated.loc["b", "rating"] == 0 and rated.loc["b", "ci_low"] == 0


def test_plackett_luce_recovers_strengths_from_four_player_orders() -> None:
    strengths = {"weak": -0.8, "fair": 0.0, "good": 0.4, "strong": 1.2}
    rng = np.random.default_rng(44)
    seats, _ = make_tables(_plackett_luce_games(strengths, 4, 1500, rng))
    rated = plackett_luce(seats, anchor="fair").set_index("bot")
    assert list(rated.index) == ["strong", "good", "fair", "weak"]
    for bot, theta in strengths.items():
        assert rated.loc[bot, "ci_low"] <= ELO * theta <= rated.loc[bot, "ci_high"]
    assert (rated["note"] == "").all()


def test_profile_intervals_cover_the_true_strengths_95_percent_of_the_time() -> None:
    # 3-player games of three bots, 100 games a data set: the pairwise matches of a game are
    # dependent, the orders of finish are not; the profile likelihood interval of the order
    # model should cover about 95% (at least 85% of 60 data sets: a binomial lower tail of
    # 0.3% if the truth is 95%)
    strengths = {"a": -0.5, "b": 0.0, "c": 0.6}
    rng = np.random.default_rng(2026)
    covered = []
    for _ in range(60):
        seats, _ = make_tables(_plackett_luce_games(strengths, 3, 100, rng))
        rated = plackett_luce(seats, anchor="b").set_index("bot")
        covered.append(rated.loc["c", "ci_low"] <= ELO * 0.6 <= rated.loc["c", "ci_high"])
        covered.append(rated.loc["a", "ci_low"] <= -ELO * 0.5 <= rated.loc["a", "ci_high"])
    assert np.mean(covered) >= 0.88  # 120 intervals (two per data set, correlated)


def test_never_winning_never_losing_and_never_meeting_are_reported_not_rated() -> None:
    games = (
        [G(["a", "b"], [2, 1], [1, 2]), G(["a", "b"], [1, 2], [2, 1])] * 5  # a, b: finite
        + [G(["top", "a"], [3, 1], [1, 2])] * 3  # top never lost
        + [G(["b", "low", "a"], [3, 0, 1], [1, 3, 2])]  # low never ahead of anyone
        + [G(["b", "low", "a"], [1, 0, 3], [2, 3, 1])]
        + [G(["x", "y"], [2, 1], [1, 2]), G(["x", "y"], [1, 2], [2, 1])]  # a world apart
    )
    rated = plackett_luce(make_tables(games)[0]).set_index("bot")
    assert rated.loc["top", "rating"] == math.inf
    assert rated.loc["top", "note"] == "no losses: unbounded above"
    assert rated.loc["low", "rating"] == -math.inf
    assert rated.loc["low", "note"] == "no wins: unbounded below"
    assert rated.loc["low", "ci_high"] == -math.inf  # no finite interval is made up
    assert rated.loc["a", "rating"] == pytest.approx(0) == rated.loc["b", "rating"]
    assert np.isfinite(rated.loc["a", "ci_low"]) and rated.loc["a", "ci_low"] < 0
    for bot in ("x", "y"):
        assert math.isnan(rated.loc[bot, "rating"])
        assert rated.loc[bot, "note"] == "never met the rated group: not comparable"
    assert list(rated.index[:1]) == ["top"] and set(rated.index[-2:]) == {"x", "y"}


def test_a_group_that_always_beats_the_rest_is_unbounded_above_as_a_group() -> None:
    games = [G(["a", "b"], [2, 1], [1, 2]), G(["a", "b"], [1, 2], [2, 1])] * 3
    games += [G(["a", "c"], [2, 1], [1, 2]), G(["b", "c"], [2, 1], [1, 2])] * 2
    games += [G(["c", "d"], [2, 1], [1, 2]), G(["c", "d"], [1, 2], [2, 1])] * 3
    games += [G(["c", "d"], [2, 1], [1, 2])]  # c, d: the bigger group by games? both size 2
    rated = plackett_luce(make_tables(games)[0]).set_index("bot")
    finite = rated[np.isfinite(rated["rating"])].index
    outside = rated.drop(finite)
    assert len(finite) == 2 and len(outside) == 2
    assert set(outside["rating"]) in ({math.inf}, {-math.inf})


def test_orders_with_ties_become_weighted_choices() -> None:
    seats, _ = make_tables([G(["a", "b", "c"], [5, 5, 1], [1, 1, 3])])
    orders = pl.orders_of(seats)
    chosen, risk, weight = orders.events()
    got = {
        (orders.bots[c], tuple(r)): w for c, r, w in zip(chosen, risk.tolist(), weight, strict=True)
    }
    # a or b first (half each) from all three, then the other from the two left
    assert got == {
        ("a", (1, 1, 1)): 0.5,
        ("b", (1, 1, 1)): 0.5,
        ("a", (1, 0, 1)): 0.5,
        ("b", (0, 1, 1)): 0.5,
    }


def test_pair_results_count_games_not_matches_and_keep_opponents_apart() -> None:
    games = [G(["a", "a", "b"], [3, 2, 1], [1, 2, 3])] * 10  # two a seats beat b: 2 matches
    games += [G(["a", "c"], [1, 2], [2, 1])] * 4 + [G(["a", "c"], [2, 1], [1, 2])] * 4
    seats, _ = make_tables(games)
    pairs = pair_results(seats).set_index(["players", "bot", "opponent"])
    assert pairs.loc[(3, "a", "b"), "games"] == 10 and pairs.loc[(3, "a", "b"), "rate"] == 1
    assert pairs.loc[(2, "a", "c"), "rate"] == 0.5 and pairs.loc[(2, "c", "a"), "games"] == 8
    assert (3, "a", "c") not in pairs.index  # not pooled over player counts or opponents
    low = pairs.loc[(3, "a", "b"), "ci_low"]
    assert low == pytest.approx(10 / (10 + 1.959964**2))  # Wilson's lower bound of 10 of 10


def test_decision_times_prefer_cpu_seconds_and_weight_by_decisions() -> None:
    games = [
        G(["slow", "fast"], [2, 1], [1, 2], seat={"decisions": [10, 30]}),
        G(["fast", "slow"], [2, 1], [1, 2], seat={"decisions": [10, 30]}),
    ]
    seats, _ = make_tables(games)
    seats["decision_time_mean"] = [1.0, 0.1, 0.1, 1.0]
    wall = decision_times(seats).set_index("bot")
    assert wall.loc["slow", "clock"] == "wall"
    assert wall.loc["slow", "seconds_per_decision"] == pytest.approx((10 + 30) / 40)
    assert wall.loc["fast", "seconds_per_decision"] == pytest.approx(0.1)
    seats["decision_cpu_mean"] = [0.5, 0.05, 0.02, 0.5]
    cpu = decision_times(seats).set_index("bot")
    assert cpu.loc["slow", "clock"] == "cpu"
    assert cpu.loc["fast", "seconds_per_decision"] == pytest.approx((0.05 * 30 + 0.02 * 10) / 40)
    assert list(cpu.index) == ["slow", "fast"]  # slowest first
    assert decision_times(seats.drop(columns=["decision_time_mean", "decision_cpu_mean"])).empty
    assert isinstance(cpu, pd.DataFrame)
