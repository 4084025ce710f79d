"""The one convention every renderer writes numbers in (analysis.fmt)."""

from __future__ import annotations

import numpy as np

from projectl_sim.analysis.fmt import (
    NA,
    diff_interval,
    ordinal,
    ordinal_word,
    p_text,
    pct,
    points,
    rate_interval,
    value,
)


def test_rates_and_their_intervals_in_percent_bounds_in_the_rates_unit() -> None:
    assert pct(0.414) == "41%" and pct(0.414, 1) == "41.4%"
    assert rate_interval(0.414, 0.26, 0.58) == "41% [26, 58]"
    assert rate_interval(0.5, np.nan, np.nan) == "50%"  # no interval: the rate alone
    assert value("rate", 0.5) == "50.0%" and value("mean", 35.094) == "35.09"


def test_an_interval_narrower_than_its_rounding_gets_the_decimals_it_needs() -> None:
    # a million games: the interval is not a point, and must not read as one
    assert rate_interval(0.5, 0.499, 0.501) == "50.0% [49.9, 50.1]"
    assert rate_interval(0.5, 0.4998, 0.5002) == "50.00% [49.98, 50.02]"
    assert rate_interval(0.414, 0.4141, 0.41415, 1) == "41.400% [41.410, 41.415]"
    # at most three decimals more: a sliver still shows its bounds, rounded alike
    assert rate_interval(0.5, 0.5, 0.5 + 1e-9) == "50.000% [50.000, 50.000]"
    assert rate_interval(0.0, 0.0, 0.0) == "0% [0, 0]"  # a point stays a point


def test_differences_are_signed_rates_in_points_means_with_their_unit() -> None:
    assert diff_interval("rate", 0.031, -0.01, 0.072) == "+3.1 pts [-1.0, +7.2]"
    assert diff_interval("mean", 0.43, -0.02, 0.88, " rounds") == "+0.43 rounds [-0.02, +0.88]"
    assert diff_interval("rate", -0.2, np.nan, np.nan) == "-20.0 pts"


def test_what_could_not_be_computed_has_one_spelling() -> None:
    for text in (
        pct(np.nan),
        rate_interval(np.nan, 0.1, 0.2),
        diff_interval("rate", np.nan, 0.0, 0.1),
        value("mean", np.inf),
        p_text(np.nan),
        pct(None),  # type: ignore[arg-type]
    ):
        assert text == NA == "n/a"


def test_p_and_q_and_ordinals() -> None:
    assert p_text(0.0123) == "0.012" and p_text(0.0004) == "<0.001" and p_text(1.0) == "1.000"
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"
    ]  # fmt: skip
    assert ordinal_word(1) == "first" and ordinal_word(7) == "7th"


def test_a_size_in_points_keeps_two_significant_digits() -> None:
    # a million games detect 0.28 points: never printed as 0
    assert [points(x) for x in (0.0028, 0.056, 0.0995, 0.123, 0.5)] == [
        "0.28", "5.6", "10", "12", "50"
    ]  # fmt: skip
    assert points(np.nan) == NA
