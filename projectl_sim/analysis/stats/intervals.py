"""The confidence level, and intervals of one rate, one mean and the difference of two.

Every interval of the analysis is a 95% one (``LEVEL``; ``ALPHA`` the matching two-sided test
level, ``Z95`` its normal quantile). A rate gets Wilson's score interval, which stays inside
[0, 1] and keeps its coverage near 0 and 1 where the normal one collapses; a difference of two
independent rates Newcombe's hybrid score interval (method 10 of Newcombe 1998, built from the
two Wilson intervals); a mean Student's t interval; a difference of two means Welch's normal
interval; an estimate with a standard error the normal interval ``estimate +- Z95 se``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from projectl_sim.analysis.stats import distributions as distribution

__all__ = [
    "ALPHA",
    "LEVEL",
    "Z95",
    "diff_means",
    "diff_proportions",
    "mean_interval",
    "normal_interval",
    "wilson",
]

LEVEL = 0.95  # the confidence of every interval
ALPHA = 0.05  # the level of every two-sided test: a 95% interval leaves out 0 when p < ALPHA
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def wilson(
    successes: np.ndarray | float, n: np.ndarray | float, z: float = Z95
) -> tuple[np.ndarray, np.ndarray]:
    """Return the Wilson score interval (low, high) of ``successes`` out of ``n`` trials."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def normal_interval(estimate: float, se: float, z: float = Z95) -> tuple[float, float]:
    """Return ``estimate -+ z se`` (nan bounds when ``se`` is nan)."""
    return estimate - z * se, estimate + z * se


def mean_interval(values: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """Return the mean of ``values`` and its 95% t interval (nan bounds below two values)."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return np.nan, np.nan, np.nan
    mean = float(x.mean())
    if len(x) < 2:
        return mean, np.nan, np.nan
    half = distribution.t_ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
    return mean, mean - half, mean + half


def diff_proportions(
    x1: float, n1: float, x2: float, n2: float, z: float = Z95
) -> tuple[float, float, float]:
    """Return ``x1/n1 - x2/n2`` and its Newcombe hybrid score 95% interval (nan if one is empty)."""
    if n1 <= 0 or n2 <= 0:
        return np.nan, np.nan, np.nan
    p1, p2 = x1 / n1, x2 / n2
    (l1, u1), (l2, u2) = (wilson(x1, n1, z), wilson(x2, n2, z))
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return float(d), float(low), float(high)


def diff_means(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, z: float = Z95
) -> tuple[float, float, float]:
    """Return ``mean(a) - mean(b)`` and Welch's normal 95% interval (nan below two values each)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if len(a) == 0 or len(b) == 0:
        return np.nan, np.nan, np.nan
    d = float(a.mean() - b.mean())
    if len(a) < 2 or len(b) < 2:
        return d, np.nan, np.nan
    se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return d, d - z * se, d + z * se
