"""Effects against the base game (analysis.factors) on tables with planted effects; clustered
intervals; the tests of equal shares; Benjamini-Hochberg."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from analysis_util import G, make_tables
from scipy import stats as sps

from projectl_sim.analysis import factors as eff
from projectl_sim.analysis.outcomes import seat_advantage
from projectl_sim.analysis.stats import clustered_mean, clustered_rate, equal_shares_test, wilson


def _games(
    n: int,
    rng: np.random.Generator,
    *,
    first_wins: float,
    rounds: float,
    expansions: str = "none",
    switches: str = "default",
    bots: tuple[str, str] = ("a", "a"),
) -> list[G]:
    """Two-seat games: seat 0 moves first and wins with ``first_wins``; rounds ~ N(rounds, 3)."""
    out = []
    for _ in range(n):
        win = rng.random() < first_wins
        margin = int(rng.integers(1, 8))
        scores = [10 + margin, 10] if win else [10, 10 + margin]
        out.append(
            G(
                list(bots),
                scores,
                [1, 2] if win else [2, 1],
                rounds=max(1, round(rng.normal(rounds, 3))),
                expansions=expansions,
                switches=switches,
            )
        )
    return out


def test_a_planted_first_player_and_length_effect_is_found_and_a_null_one_is_not() -> None:
    rng = np.random.default_rng(7)
    base = _games(600, rng, first_wins=0.5, rounds=20)
    finesse = _games(600, rng, first_wins=0.62, rounds=18, expansions="finesse")
    seats, games = make_tables(base + finesse)
    table = eff.effects(seats, games).set_index("metric")
    assert set(table["factor"]) == {"expansions"} and set(table["level"]) == {"finesse"}
    assert "win_rate" not in table.index  # one bot in every seat: its win rate is 1/N
    first = table.loc["first_player_rate"]
    seen = np.mean([g.ranks[0] == 1 for g in finesse]) - np.mean([g.ranks[0] == 1 for g in base])
    assert first["diff"] == pytest.approx(seen)
    assert first["ci_low"] < 0.12 < first["ci_high"] and first["significant"]
    assert first["q_value"] < 0.05
    rounds = table.loc["rounds"]
    assert rounds["ci_low"] < -2 < rounds["ci_high"] and rounds["significant"]
    assert not table.loc["margin", "significant"]  # the margin was drawn alike in both
    # power: a difference of rates at ~0.56 with 600 games each; and games for +-5 points
    p = (first["base"] * 600 + first["value"] * 600 + 2) / 1204
    assert first["mde"] == pytest.approx(2.8016 * math.sqrt(p * (1 - p) * 2 / 600), rel=1e-3)
    # games for +-5 points at the same shrunk pooled rate
    assert first["games_needed"] == math.ceil(1.959964**2 * 2 * p * (1 - p) / 0.05**2)


def test_bot_win_rates_of_a_mixed_line_up_and_the_against_column() -> None:
    rng = np.random.default_rng(8)
    base = _games(400, rng, first_wins=0.5, rounds=20, bots=("a", "b"))
    ghost = _games(400, rng, first_wins=0.7, rounds=20, expansions="ghost_piece", bots=("a", "b"))
    seats, games = make_tables(base + ghost)
    table = eff.effects(seats, games)
    rates = table[table["metric"] == "win_rate"].set_index("bot")
    assert set(rates.index) == {"a", "b"}  # a sits first every game here: a's rate is the 1st's
    assert rates.loc["a", "diff"] == pytest.approx(-rates.loc["b", "diff"])
    assert rates.loc["a", "significant"] and rates.loc["a", "diff"] > 0.1
    assert set(table["against"]) == {"none"}


def test_each_switch_is_compared_with_the_same_switches_without_it() -> None:
    rng = np.random.default_rng(9)
    games = (
        _games(50, rng, first_wins=0.5, rounds=20)
        + _games(50, rng, first_wins=0.5, rounds=20, switches="tie_break=score_only")
        + _games(50, rng, first_wins=0.5, rounds=20, switches="max_rounds=30")
        + _games(50, rng, first_wins=0.5, rounds=25, switches="max_rounds=30,tie_break=score_only")
        + _games(50, rng, first_wins=0.5, rounds=20, expansions="phoenix")  # no switch base
    )
    seats, table_games = make_tables(games)
    table = eff.effects(seats, table_games)
    pairs = set(
        table[table["factor"] == "switch"][["level", "against", "switches"]].itertuples(
            index=False, name=None
        )
    )
    assert pairs == {
        ("tie_break=score_only", "default", "tie_break=score_only"),
        ("max_rounds=30", "default", "max_rounds=30"),
        ("max_rounds=30", "tie_break=score_only", "max_rounds=30,tie_break=score_only"),
        ("tie_break=score_only", "max_rounds=30", "max_rounds=30,tie_break=score_only"),
    }
    assert set(table[table["factor"] == "expansions"]["level"]) == {"phoenix"}


def test_no_base_game_means_no_effects() -> None:
    rng = np.random.default_rng(1)
    seats, games = make_tables(_games(20, rng, first_wins=0.5, rounds=20, expansions="finesse"))
    assert eff.effects(seats, games).empty
    assert list(eff.effects(seats, games).columns) == eff.EFFECT_COLUMNS


# -- clustered intervals ---------------------------------------------------------------------------
def test_one_game_per_deal_gives_the_textbook_intervals() -> None:
    x = np.array([1, 0, 1, 1, 0, 1, 0.5, 1])
    _rate, low, high, n_eff = clustered_rate(x)
    assert (low, high) == pytest.approx(tuple(wilson(x.sum(), len(x))))
    assert n_eff == len(x)
    _mean, se, n, clusters = clustered_mean(x, np.arange(8))
    assert se == pytest.approx(x.std(ddof=1) / math.sqrt(8)) and (n, clusters) == (8, 8)


def test_clustered_rates_cover_when_the_games_of_a_deal_agree() -> None:
    # two games per deal with intra-deal correlation 1/2: the design effect is 1.5. The Wilson
    # interval on games misses the truth too often; the clustered one keeps 95%.
    rng = np.random.default_rng(11)
    p, deals, sims = 0.4, 150, 1500
    deals_of = np.repeat(np.arange(deals), 2)
    covered = naive = 0
    for _ in range(sims):
        shared = rng.random(deals) < p
        own = rng.random((deals, 2)) < p
        agree = rng.random(deals) < 0.5  # half the deals: both games follow the deal
        x = np.where(agree[:, None], shared[:, None], own).astype(float).ravel()
        _, low, high, _ = clustered_rate(x, deals_of)
        covered += low <= p <= high
        w_low, w_high = wilson(x.sum(), len(x))
        naive += w_low <= p <= w_high
    assert covered / sims >= 0.93
    assert naive / sims < 0.925


def test_seat_advantage_per_configuration_widens_for_clustered_deals() -> None:
    games = []
    for deal in range(40):  # both rotations of a deal go the same way for the first player
        ranks = [1, 2] if deal % 4 else [2, 1]
        games += [G(["a", "b"], [5, 3], ranks), G(["b", "a"], [5, 3], ranks)]
    seats, _ = make_tables(games)
    seats["deal"] = seats["seed"] = seats["game_id"] // 2
    table = seat_advantage(seats, by=["players", "expansions"]).set_index("turn_order")
    low, high = wilson(60, 80)
    assert table.loc[0, "share"] == 0.75
    assert table.loc[0, "deff"] == pytest.approx(2.0, rel=0.05)
    assert table.loc[0, "ci_high"] - table.loc[0, "ci_low"] > (high - low) * 1.3
    independent = seat_advantage(seats.assign(deal=seats["game_id"], seed=seats["game_id"]))
    independent = independent.set_index("turn_order")
    assert table.loc[0, "p_value"] > independent.loc[0, "p_value"]  # Rao-Scott: weaker evidence


def test_equal_shares_by_chi_square_and_exactly() -> None:
    stat, p, test = equal_shares_test([30, 10])
    assert (stat, test) == (10.0, "chi2") and p == pytest.approx(sps.chi2.sf(10, 1))
    stat, p, test = equal_shares_test([4, 0, 0])  # 4 games, 3 seats: exact
    assert test == "exact" and stat == pytest.approx(8.0)
    assert p == pytest.approx(3 / 81)  # only one seat taking all 4 is as uneven
    assert equal_shares_test([3, 1], design_effect=2.0)[0] == pytest.approx(0.5)
    assert math.isnan(equal_shares_test([0, 0])[1])


def test_effects_frame_has_the_documented_columns_in_order() -> None:
    rng = np.random.default_rng(2)
    seats, games = make_tables(
        _games(30, rng, first_wins=0.5, rounds=20)
        + _games(30, rng, first_wins=0.5, rounds=20, expansions="finesse")
    )
    table = eff.effects(seats, games)
    assert list(table.columns) == eff.EFFECT_COLUMNS
    assert isinstance(table, pd.DataFrame) and len(table) == 3  # first player, margin, rounds


def test_a_difference_of_rates_both_at_0_or_100_percent_measures_nothing() -> None:
    # greedy wins every game with and without Finesse, seats rotated: no rate can move
    games = []
    for expansions in ("none", "finesse"):
        for i in range(40):
            first = i % 2
            games.append(
                G(["greedy", "random"], [20, 5], [1, 2], first_player=first, expansions=expansions)
            )
    seats, table = make_tables(games)
    out = eff.effects(seats, table).set_index(["metric", "bot"], drop=False)
    assert out.loc[("win_rate", "greedy"), "unmeasured_because"] == "both sides 100%"
    assert out.loc[("win_rate", "random"), "unmeasured_because"] == "both sides 0%"
    first = out[out["metric"] == "first_player_rate"].iloc[0]
    assert "the bots decide who wins, not the seats" in first["unmeasured_because"]
    rates = out[out["kind"] == "rate"]
    assert rates["p_value"].isna().all() and rates["q_value"].isna().all()
    assert not out["significant"].any()
    # the margin and the length still measure something
    assert out[out["metric"] == "rounds"]["unmeasured_because"].isna().all()
