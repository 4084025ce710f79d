"""The statistics package: multiple comparisons against scipy's, the one design effect, the
normal interval and the level every interval shares."""

from __future__ import annotations

import math

import numpy as np
import pytest

from projectl_sim.analysis.stats import (
    ALPHA,
    Z95,
    clustered_mean,
    clustered_rate,
    design_effect,
    distributions,
    normal_interval,
    q_values,
)


def test_the_level_and_its_quantile_agree() -> None:
    assert abs(Z95 - float(distributions.norm_ppf(1 - ALPHA / 2))) < 1e-12
    assert normal_interval(1.0, 0.5) == pytest.approx((1 - 0.5 * Z95, 1 + 0.5 * Z95))
    assert all(math.isnan(x) for x in normal_interval(1.0, np.nan))


def test_benjamini_hochberg_by_hand() -> None:
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.5])
    # sorted 0.01, 0.03, 0.04, 0.5 (m = 4): 0.04, 0.06, 0.0533 -> monotone 0.04, 0.0533, 0.0533
    q = q_values(p)
    np.testing.assert_allclose(q[[0, 2, 1, 4]], [0.04, 0.16 / 3, 0.16 / 3, 0.5])
    assert math.isnan(q[3])
    with pytest.raises(ValueError, match="unknown multiple-comparison method 'holm'"):
        q_values(p, "holm")


@pytest.mark.parametrize("method", ["bh", "by"])
def test_q_values_are_scipys_false_discovery_control(method: str) -> None:
    from scipy.stats import false_discovery_control

    rng = np.random.default_rng(3)
    p = np.concatenate([rng.uniform(size=40), rng.uniform(0, 0.01, size=10), [1.0, 0.0]])
    np.testing.assert_allclose(q_values(p, method), false_discovery_control(p, method=method))
    assert q_values([], method).shape == (0,)


def test_the_design_effect_is_the_clustered_variance_over_the_independent_one() -> None:
    # two games per deal that agree more than chance: the clustered variance of the mean is the
    # variance of the deal means over C, the independent one s^2 / n
    rng = np.random.default_rng(5)
    deal = rng.uniform(size=60) < 0.5
    x = np.repeat(deal, 2).astype(float)
    flip = rng.uniform(size=120) < 0.2
    x[flip] = 1 - x[flip]
    deals = np.repeat(np.arange(60), 2)
    deff = design_effect(x, deals)
    clustered = 60 / 59 * np.sum((x.reshape(60, 2).sum(axis=1) - 2 * x.mean()) ** 2) / 120**2
    assert deff == pytest.approx(clustered / (x.var(ddof=1) / 120))
    assert deff > 1.2
    # the same number by way of the mean's clustered standard error (the route the effects took)
    _, se, n, _ = clustered_mean(x, deals)
    assert deff == pytest.approx(se**2 * n / x.var(ddof=1))
    # and the effective size of the rate's interval
    assert clustered_rate(x, deals)[3] == pytest.approx(120 / deff)


def test_the_design_effect_is_never_below_one_and_one_without_clusters() -> None:
    x = np.array([1.0, 0.0] * 20)  # each deal one win and one loss: perfectly balanced
    deals = np.repeat(np.arange(20), 2)
    assert design_effect(x, deals) == 1.0
    assert design_effect(x) == 1.0
    assert design_effect(np.ones(10), np.arange(10) // 2) == 1.0  # no variance to compare
    assert design_effect([1.0, np.nan, 0.0, 1.0], [0, 0, 1, 1]) >= 1.0  # nan left out
