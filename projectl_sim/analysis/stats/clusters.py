"""Means and rates of observations clustered by deal, their intervals and design effect.

**Deals as clusters.** The runner plays each deal once under every distinct rotation of the
line-up, with the same seed, so the games of one deal are not independent (and a game's seats
are not either: one seat's win is another's loss); deals are (they have their own seed
children). These helpers take each observation's cluster (the deal) and estimate the variance of
a mean from the cluster totals: the cluster-robust "sandwich" estimate with the ``C/(C-1)``
small-sample factor (CR1), C clusters, which assumes independent, identically distributed
clusters and nothing about how the observations inside one depend on each other.

**The design effect** (``design_effect``, the one formula every module uses) is that variance
over the variance of the mean of independent observations, ``s^2 / n`` (the same estimator with
every observation its own cluster: ``n/(n-1)`` times the mean squared residual over n), never
taken below 1. It is the empirical ratio rather than Kish's ``1 + (m - 1) ICC`` because the
clusters are not of one size (2, 3 or 4 rotations, games that failed) and because rotating seats
makes the correlation inside a deal negative for a seat's win (one seat's win is another's
loss), where Kish's formula with an estimated ICC can fall below 1; with one game per deal
(identical bots) it is 1 and every helper gives the textbook interval. Floored at 1 because
deals whose rotations balance results (bots swapping seats) are not a reason to narrow an
interval below what the same games would give as independent ones. A rate's Wilson interval is
computed on the effective size ``n / deff`` (Korn and Graubard 1998); a run is sized by
multiplying the games an independent sample needs by it (``power``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from projectl_sim.analysis.stats import distributions as distribution
from projectl_sim.analysis.stats.intervals import Z95, diff_proportions, wilson

__all__ = [
    "Moments",
    "clustered_mean",
    "clustered_rate",
    "design_effect",
    "design_effect_of",
    "diff_clustered_means",
    "diff_clustered_rates",
    "mean_of",
    "rate_of",
    "welch",
]


@dataclass
class Moments:
    """The sums a clustered mean and its variance are computed from, of observations of ``k``
    quantities (a row each; the last column is 1, counting them), added window by window.

    ``n`` observations in ``clusters`` clusters; ``total`` the sum of the rows, ``within`` the sum
    of each row's outer product, ``between`` the sum of each cluster total's outer product. The
    cluster-robust variance of the mean of ``x = row . a`` is a quadratic form in ``between``
    (``within`` gives the independent one): two sets of moments of disjoint clusters add up to
    the moments of their union, so a run is summed a window of whole deals at a time and gives
    what its table read whole gives.
    """

    n: int
    clusters: int
    total: np.ndarray
    within: np.ndarray
    between: np.ndarray

    @classmethod
    def of(cls, rows: np.ndarray, codes: np.ndarray | None = None) -> Moments:
        """Return the moments of ``rows`` (n x k, nan-free, the last column 1), clustered by the
        int ``codes`` (0..C-1; each row its own cluster when None)."""
        rows = np.asarray(rows, dtype=float)
        if codes is None or len(rows) == 0:
            sums, c = rows, len(rows)
        else:
            c = int(codes.max()) + 1
            sums = np.stack(
                [np.bincount(codes, weights=rows[:, j], minlength=c) for j in range(rows.shape[1])],
                axis=1,
            )
        return cls(len(rows), c, rows.sum(axis=0), rows.T @ rows, sums.T @ sums)

    def __add__(self, other: Moments) -> Moments:
        return Moments(
            self.n + other.n,
            self.clusters + other.clusters,
            self.total + other.total,
            self.within + other.within,
            self.between + other.between,
        )

    def mean(self, a: np.ndarray) -> float:
        """Return the mean of ``x = row . a``."""
        return float(self.total @ a / self.n) if self.n else np.nan

    def variances(self, a: np.ndarray) -> tuple[float, float]:
        """Return the cluster-robust variance of the mean of ``x = row . a`` (CR1, nan below two
        clusters) and the same of independent observations (nan below two)."""
        w = np.asarray(a, dtype=float).copy()
        w[-1] -= self.mean(a)  # x - mean, summed per cluster: (S_c - n_c mean)
        out = []
        for c, matrix in ((self.clusters, self.between), (self.n, self.within)):
            out.append(
                float(c / (c - 1) * max(0.0, w @ matrix @ w) / self.n**2) if c >= 2 else np.nan
            )
        return out[0], out[1]


def _clusters(values: np.ndarray, clusters: Sequence[object] | np.ndarray | None) -> np.ndarray:
    """Return each observation's cluster as an int code (its own when ``clusters`` is None)."""
    if clusters is None:
        return np.arange(len(values))
    labels = clusters.to_numpy() if isinstance(clusters, pd.Series) else np.asarray(clusters)
    codes = pd.factorize(labels)[0]
    if len(codes) != len(values):
        raise ValueError(f"{len(values)} values but {len(codes)} cluster labels")
    return codes


def _moments(values: np.ndarray, clusters: Sequence[object] | np.ndarray | None) -> Moments:
    """Return the moments of ``values`` (nan left out) clustered by ``clusters``."""
    x = np.asarray(values, dtype=float)
    keep = ~np.isnan(x)
    codes = pd.factorize(_clusters(x, clusters)[keep])[0]
    x = x[keep]
    return Moments.of(np.stack([x, np.ones(len(x))], axis=1), codes)


_VALUE = np.array([1.0, 0.0])  # x = the value itself, of rows (value, 1)


def mean_of(m: Moments, a: np.ndarray = _VALUE) -> tuple[float, float, int, int]:
    """Return ``clustered_mean``'s mean, standard error, n and clusters from moments (of the
    quantity ``row . a``)."""
    if m.n == 0:
        return np.nan, np.nan, 0, 0
    # never below the variance of independent observations: with few deals the cluster estimate
    # can come out near 0 (two deals whose rotations happen to balance), which no data justify
    clustered, independent = m.variances(a)
    var = max(clustered, independent)
    return m.mean(a), float(np.sqrt(var)), m.n, m.clusters


def design_effect_of(m: Moments, a: np.ndarray = _VALUE) -> float:
    """Return ``design_effect`` from moments (of the quantity ``row . a``)."""
    clustered, independent = m.variances(a)
    if not (independent > 0) or np.isnan(clustered):
        return 1.0
    return max(1.0, clustered / independent)


def rate_of(m: Moments, z: float = Z95) -> tuple[float, float, float, float]:
    """Return ``clustered_rate``'s rate, Wilson interval and effective n from moments of rows
    (value, 1)."""
    if m.n == 0:
        return np.nan, np.nan, np.nan, np.nan
    n_eff = m.n / design_effect_of(m)
    p = m.mean(_VALUE)
    low, high = wilson(p * n_eff, n_eff, z)
    return p, float(low), float(high), float(n_eff)


def clustered_mean(
    values: Sequence[float] | np.ndarray, clusters: Sequence[object] | np.ndarray | None = None
) -> tuple[float, float, int, int]:
    """Return the mean of ``values``, its cluster-robust standard error, n and the clusters.

    Assumes the clusters (deals) are independent and identically distributed; observations
    inside one may depend on each other in any way. The standard error is the cluster-robust
    one, but never below the one of independent observations (a design effect of at least 1, as
    for rates). Nan values are left out; the standard error is nan below two clusters.
    """
    return mean_of(_moments(values, clusters))


def design_effect(
    values: Sequence[float] | np.ndarray, clusters: Sequence[object] | np.ndarray | None = None
) -> float:
    """Return the design effect of a mean: its variance over clusters against independent
    observations, at least 1 (see the module notes; nan values are left out).

    1 below two clusters or when every value is the same (nothing to estimate it from).
    """
    return design_effect_of(_moments(values, clusters))


def clustered_rate(
    values: Sequence[float] | np.ndarray,
    clusters: Sequence[object] | np.ndarray | None = None,
    z: float = Z95,
) -> tuple[float, float, float, float]:
    """Return a rate (mean of values in [0, 1]), its 95% Wilson interval, and the effective n.

    The interval is Wilson's on ``n / deff`` observations (``deff``: the design effect of the
    clusters, at least 1; see the module notes). Assumes independent clusters; fractional values
    (a shared win's 1/k) are taken as they are, which keeps the interval conservative since
    their variance is below ``p(1-p)``. All nan without observations.
    """
    return rate_of(_moments(values, clusters), z)


def diff_clustered_rates(
    a: Sequence[float] | np.ndarray,
    a_clusters: Sequence[object] | np.ndarray | None,
    b: Sequence[float] | np.ndarray,
    b_clusters: Sequence[object] | np.ndarray | None,
    z: float = Z95,
) -> tuple[float, float, float]:
    """Return ``rate(a) - rate(b)`` and Newcombe's 95% interval on the effective sizes.

    For two independent samples (different configurations have different seeds): Newcombe's
    hybrid score interval from the two Wilson intervals of ``clustered_rate``.
    """
    pa_, _, _, na = clustered_rate(a, a_clusters, z)
    pb, _, _, nb = clustered_rate(b, b_clusters, z)
    if np.isnan(pa_) or np.isnan(pb):
        return np.nan, np.nan, np.nan
    return diff_proportions(pa_ * na, na, pb * nb, nb, z)


def welch(
    a: Sequence[float] | np.ndarray,
    a_clusters: Sequence[object] | np.ndarray | None,
    b: Sequence[float] | np.ndarray,
    b_clusters: Sequence[object] | np.ndarray | None,
) -> tuple[float, float, float]:
    """Return ``mean(a) - mean(b)``, its standard error and Satterthwaite's degrees of freedom.

    For two independent samples: the cluster-robust standard errors of the two means combined as
    Welch does; the degrees of freedom count clusters - 1 per sample. Nan where undefined.
    """
    ma, sa, _, ca = clustered_mean(a, a_clusters)
    mb, sb, _, cb = clustered_mean(b, b_clusters)
    d = ma - mb
    if np.isnan(sa) or np.isnan(sb):
        return d, np.nan, np.nan
    se = float(np.hypot(sa, sb))
    if se == 0:
        return d, 0.0, np.inf
    df = se**4 / ((sa**4 / (ca - 1) if sa else 0) + (sb**4 / (cb - 1) if sb else 0))
    return d, se, float(df)


def diff_clustered_means(
    a: Sequence[float] | np.ndarray,
    a_clusters: Sequence[object] | np.ndarray | None,
    b: Sequence[float] | np.ndarray,
    b_clusters: Sequence[object] | np.ndarray | None,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """Return ``mean(a) - mean(b)`` and Welch's 95% t interval, deals as clusters (``welch``).

    The bounds are nan below two clusters in either sample.
    """
    d, se, df = welch(a, a_clusters, b, b_clusters)
    if np.isnan(se):
        return d, np.nan, np.nan
    half = float(distribution.t_ppf(0.5 + level / 2, df)) * se if se > 0 else 0.0
    return d, d - half, d + half
