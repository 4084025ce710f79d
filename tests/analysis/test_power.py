"""Power and sample size: textbook values; the minimum detectable effect checked by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from projectl_sim.analysis.stats import (
    Z95,
    games_needed,
    games_to_detect,
    minimum_detectable_effect,
    rate_difference_se,
    wilson,
)


def test_games_for_one_rate_are_the_smallest_with_a_narrow_enough_wilson_interval() -> None:
    # at p = 1/2 the Wilson half-width is z / (2 sqrt(n + z^2)): n >= (z / 2h)^2 - z^2 = 380.3
    n = games_needed(0.05, p=0.5)
    assert n == math.ceil((Z95 / 0.1) ** 2 - Z95**2) == 381
    for p in (0.5, 0.25, 0.05):
        n = games_needed(0.03, p=p)
        low, high = wilson(p * n, n)
        before_low, before_high = wilson(p * (n - 1), n - 1)
        assert (high - low) / 2 <= 0.03 < (before_high - before_low) / 2


def test_games_for_a_difference_and_for_a_mean_follow_the_normal_formula() -> None:
    assert games_needed(0.05, p=0.5, difference=True) == math.ceil(Z95**2 * 0.5 / 0.05**2)
    assert games_needed(1.0, sd=5.0) == math.ceil(Z95**2 * 25) == 97
    assert games_needed(1.0, sd=5.0, design_effect=2.0) == 2 * 97
    with pytest.raises(ValueError, match="exactly one"):
        games_needed(0.1)
    with pytest.raises(ValueError, match="half_width"):
        games_needed(0, p=0.5)


def test_games_to_detect_ten_points_at_one_half_is_the_textbook_392() -> None:
    # 2 * 0.25 * (1.95996 + 0.84162)^2 / 0.1^2 = 392.4 per group
    assert games_to_detect(0.1, p=0.5) == 393
    assert games_to_detect(2.0, sd=10.0) == math.ceil(2 * 100 * (Z95 + 0.841621) ** 2 / 4)


def test_the_minimum_detectable_effect_is_found_80_percent_of_the_time() -> None:
    n = 500
    se = rate_difference_se(0.5, n, n)
    mde = minimum_detectable_effect(se)
    assert mde == pytest.approx(2.8016 * se, rel=1e-4)
    # simulate: true rates 0.5 - mde/2 and 0.5 + mde/2, a two-sided z test at 5%
    rng = np.random.default_rng(18)
    a = rng.binomial(n, 0.5 - mde / 2, 20000) / n
    b = rng.binomial(n, 0.5 + mde / 2, 20000) / n
    pooled = (a + b) / 2
    z = (b - a) / np.sqrt(pooled * (1 - pooled) * 2 / n)
    power = float(np.mean(np.abs(z) > sps.norm.ppf(0.975)))
    assert power == pytest.approx(0.8, abs=0.02)
    # with Student's quantiles at few degrees of freedom the MDE is larger
    assert minimum_detectable_effect(1.0, df=3) > minimum_detectable_effect(1.0) > 0
    assert math.isnan(minimum_detectable_effect(math.nan))
