"""Precision on demand: the confidence sequences keep 95% coverage under optional stopping (by
simulation on games with a known answer), and ``precision_check`` says when a run may stop."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_util import G, make_tables

from projectl_sim.analysis import sequential as seq
from projectl_sim.analysis.stats import wilson

P = 0.6  # the first player's true win rate in the simulated games
PATHS, DEALS, BATCH = 3000, 1000, 20  # simulated runs, deals at most, deals per batch


def _runs(rng: np.random.Generator) -> np.ndarray:
    """Return simulated runs: one row per run, one 0/1 game (a deal) per column."""
    return (rng.random((PATHS, DEALS)) < P).astype(float)


def test_rate_sequences_hold_the_truth_at_every_look_of_95_percent_of_runs() -> None:
    # The strongest optional stopping: a run that stops the first time its interval leaves
    # out the truth. Coverage at the stop = the share of runs whose sequence never misses.
    x = _runs(np.random.default_rng(60))
    looks = np.arange(BATCH, DEALS + 1, BATCH) - 1
    low, high = seq.rate_sequence(x, planned=1067)
    ever = ((low[:, looks] > P) | (high[:, looks] < P)).any(axis=1).mean()
    assert ever <= 0.05
    # the test can fail: the fixed-size Wilson interval looked at after every batch misses
    # the truth at some look in far more than 5% of runs
    wins = np.cumsum(x, axis=1)[:, looks]
    w_low, w_high = wilson(wins, looks + 1)
    assert ((w_low > P) | (w_high < P)).any(axis=1).mean() > 0.2


def test_a_run_stopped_when_its_interval_is_narrow_enough_covers_the_truth() -> None:
    x = _runs(np.random.default_rng(61))
    target = 0.15
    planned = 2 * (2 * 1.959964 * 0.5 / target) ** 2
    low, high = seq.rate_sequence(x, planned=planned)
    looks = np.arange(BATCH, DEALS + 1, BATCH) - 1
    width = high[:, looks] - low[:, looks]
    stopped = np.argmax(width <= target, axis=1)  # the first look narrow enough
    assert (width[np.arange(PATHS), stopped] <= target).all()  # every run stopped in time
    at = looks[stopped]
    covered = (low[np.arange(PATHS), at] <= P) & (high[np.arange(PATHS), at] >= P)
    assert covered.mean() >= 0.95
    assert np.median(at) < 1.2 * planned  # not absurdly late: about 2x a fixed-size plan


def test_mean_sequences_keep_coverage_for_skewed_game_lengths() -> None:
    rng = np.random.default_rng(62)
    x = np.round(rng.gamma(9, 3, size=(2000, DEALS)))  # rounds-like: mean 27, skewed
    truth = 27.0
    low, high = seq.mean_sequence(x, planned=500)
    looks = np.arange(seq.MIN_DEALS, DEALS + 1, BATCH) - 1
    ever = ((low[:, looks] > truth) | (high[:, looks] < truth)).any(axis=1).mean()
    assert ever <= 0.06  # asymptotic: a little slack over the exact 5%


def _tables(n: int, p: float, rng: np.random.Generator, expansions: str = "none"):
    games = []
    for _ in range(n):
        win = rng.random() < p
        games.append(
            G(
                ["a", "a"],
                [3, 1] if win else [1, 3],
                [1, 2] if win else [2, 1],
                rounds=int(rng.integers(15, 25)),
                expansions=expansions,
            )
        )
    return games


def test_precision_check_reads_the_same_sequences_from_the_tables() -> None:
    rng = np.random.default_rng(63)
    games = _tables(300, P, rng)
    seats, table_games = make_tables(games)
    check = seq.precision_check(seats, table_games, width=0.1)
    row = check.intervals.iloc[0]
    first = np.array([g.ranks[0] == 1 for g in games], dtype=float)  # seat 0 moves first
    planned = 2 * np.ceil((2 * 1.959964 * 0.5 / 0.1) ** 2)
    low, high = seq.rate_sequence(first, planned=planned)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low[-1], high[-1]))
    assert row["estimate"] == pytest.approx(first.mean()) and row["deals"] == 300
    assert not check.stop and "1 of 1" in check.reason


def test_a_growing_run_stops_at_the_target_or_at_its_maximum() -> None:
    rng = np.random.default_rng(64)
    games = _tables(1400, P, rng) + _tables(1400, 0.45, rng, expansions="finesse")
    seats, table_games = make_tables(games)
    asked = {"width": 0.12, "quantities": ("first_player", "effects", "rounds")}
    widths = {"rounds": 1.0, "effects": 0.25}
    stops = []
    for n in range(100, 1401, 100):  # the runner's batches, both configurations growing
        keep = table_games["game_id"].isin([i for i in range(len(games)) if i % 1400 < n])
        check = seq.precision_check(
            seats[seats["game_id"].isin(table_games["game_id"][keep])],
            table_games[keep],
            widths=widths,
            width=asked["width"],
            quantities=asked["quantities"],
        )
        stops.append(check.stop)
        if check.stop:
            break
    assert stops[-1] and not any(stops[:-1])
    t = check.intervals
    assert set(t["quantity"]) == {"first_player", "effects", "rounds"}
    assert (t["width"] <= t["target"]).all() and t["done"].all()
    effect = t[t["quantity"] == "effects"].iloc[0]
    assert effect["against"] == "none" and effect["ci_low"] < -0.15 < effect["ci_high"]
    capped = seq.precision_check(seats.iloc[:40], table_games.iloc[:20], width=0.01, max_games=20)
    assert capped.stop and "maximum of 20 games" in capped.reason


def test_precision_check_refuses_what_it_cannot_measure() -> None:
    seats, games = make_tables(_tables(seq.MIN_DEALS - 1, P, np.random.default_rng(1)))
    with pytest.raises(ValueError, match="unknown quantities"):
        seq.precision_check(seats, games, width=0.1, quantities=("luck",))
    with pytest.raises(ValueError, match="margin is a mean"):
        seq.precision_check(seats, games, width=0.1, quantities=("margin",))
    check = seq.precision_check(
        seats, games, width=0.5, quantities=("rounds",), widths={"rounds": 100.0}
    )
    assert not check.stop  # fewer than MIN_DEALS deals: a mean is never done that early
