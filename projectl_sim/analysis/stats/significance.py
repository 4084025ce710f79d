"""Tests: Welch's t for two means, equal shares of the wins, and multiple comparisons.

A run asks many questions at once (a seat test per configuration, an effect per comparison and
metric, a flag per card), and at a 5% level one in twenty of the questions whose answer is "no"
says "yes" by chance. ``q_values`` adjusts a table's p-values for that: Benjamini-Hochberg's
step-up procedure (``"bh"``: the false discovery rate among the rows flagged at ``q < ALPHA``,
for independent or positively dependent tests) or Benjamini-Yekutieli's (``"by"``: under any
dependence, a factor ``sum(1/i)`` stricter). They are the adjusted p-values of
``scipy.stats.false_discovery_control`` (a test checks that they agree), computed here because
importing ``scipy.stats`` costs ``summary`` a second of CPU at every start for this one function.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from projectl_sim.analysis.stats import distributions as distribution

__all__ = ["equal_shares_test", "q_values", "rate_difference_p_value", "welch_p_value"]


def q_values(p_values: Sequence[float] | np.ndarray, method: str = "bh") -> np.ndarray:
    """Return the q-values (adjusted p-values) by ``method``, ``"bh"`` or ``"by"``; nan stays."""
    if method not in ("bh", "by"):
        raise ValueError(f"unknown multiple-comparison method {method!r} (bh or by)")
    p = np.asarray(p_values, dtype=float)
    q = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return q
    order = np.argsort(p[ok])
    ranked = p[ok][order] * m / np.arange(1, m + 1)
    if method == "by":
        ranked *= np.sum(1 / np.arange(1, m + 1))
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]  # monotone from the largest p down
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(ranked, 1.0)
    q[ok] = adjusted
    return q


def rate_difference_p_value(d: float, se0: float) -> float:
    """Return the two-sided p-value of a difference of two rates ``d`` with its standard error
    under the null ``se0`` (at the pooled rate): 1 when both rates are 0 or both 1."""
    if not np.isfinite(se0):
        return np.nan
    if se0 == 0:
        return 1.0
    return float(2 * distribution.norm_sf(abs(d) / se0))


def welch_p_value(d: float, se: float, df: float) -> float:
    """Return the two-sided p-value of Welch's t statistic ``d / se`` (nan when undefined)."""
    if not np.isfinite(se) or np.isnan(d):
        return np.nan
    if se == 0:  # both samples constant: equal, or certainly different
        return 1.0 if d == 0 else 0.0
    return float(2 * distribution.t_sf(abs(d) / se, df))


# -- equal shares --------------------------------------------------------------------------------
_EXACT_LIMIT = 400_000  # outcomes enumerated at most by the exact test


def _compositions(n: int, k: int) -> np.ndarray:
    """Return every way of splitting ``n`` wins over ``k`` seats, one row each."""
    if k == 1:
        return np.array([[n]])
    rows = [
        np.column_stack([np.full(len(rest), first), rest])
        for first in range(n + 1)
        for rest in [_compositions(n - first, k - 1)]
    ]
    return np.vstack(rows)


def equal_shares_test(
    wins: Sequence[float] | np.ndarray, design_effect: float = 1.0
) -> tuple[float, float, str]:
    """Return Pearson's statistic, the p-value and the method of "every seat wins 1/k".

    ``wins`` are the wins of each of k turn orders over the same games (one win per game, a
    shared win split). The statistic is divided by ``design_effect`` (the first-order Rao-Scott
    correction for games clustered by deal). Its p-value is exact (``"exact"``: the multinomial
    distribution of the wins of the same number of games under equal shares, summed over the
    outcomes with a statistic at least as large) when some expected count is below 5 and the
    outcomes are few enough to enumerate, else the chi-square approximation with k-1 degrees of
    freedom (``"chi2"``). Nan without wins or with one seat.
    """
    w = np.asarray(wins, dtype=float)
    k = len(w)
    total = float(w.sum())
    if k < 2 or total <= 0:
        return np.nan, np.nan, ""
    expected = total / k
    stat = float(((w - expected) ** 2).sum() / expected) / max(design_effect, 1.0)
    n = round(total)
    if expected < 5 and math.comb(n + k - 1, k - 1) <= _EXACT_LIMIT:
        outcomes = _compositions(n, k)
        stats = ((outcomes - n / k) ** 2).sum(axis=1) / (n / k)
        log_p = distribution.multinomial_logpmf(outcomes, n, np.full(k, 1 / k))
        p = float(np.exp(log_p[stats >= stat - 1e-9]).sum())
        return stat, min(p, 1.0), "exact"
    return stat, float(distribution.chi2_sf(stat, k - 1)), "chi2"
