"""Paired differences: the mean of ``b - a`` over pairs of games played on one deal.

Per pair of configurations and metric the difference B - A of each pair's values is averaged; its
95% interval is Student's t on the cluster-robust standard error with the deal (seed) as the
cluster (rotations of one deal share it), ``clusters - 1`` degrees of freedom: it assumes
independent deals and nothing about the shape of the values. When every deal gives a rate the
same difference (all pairs agree), the interval is that difference plus or minus the Wilson upper
limit of 0 in C deals, not zero wide. The minimum detectable effect of a paired difference is
2.80 of its standard errors (t quantiles), and the games an interval of half-width h needs scale
the pairs played by ``(t se / h)^2``. Which games are pairs is the tables' business
(``analysis.pairs``).
"""

from __future__ import annotations

import math

import numpy as np

from projectl_sim.analysis.stats import distributions as distribution
from projectl_sim.analysis.stats.clusters import clustered_mean
from projectl_sim.analysis.stats.intervals import wilson
from projectl_sim.analysis.stats.power import minimum_detectable_effect

__all__ = ["paired_difference", "paired_games_needed"]


def paired_difference(
    a: np.ndarray, b: np.ndarray, deals: np.ndarray, kind: str
) -> dict[str, float | int] | None:
    """Return the mean difference ``b - a`` of paired values and its 95% paired interval.

    ``deals`` is each pair's deal (its seed: the cluster). Keys: ``diff``, ``ci_low``,
    ``ci_high``, ``p_value``, ``se`` (cluster-robust), ``df``, ``pairs``, ``deals``, ``mde``
    (80% power, 5% level) and ``value_a`` / ``value_b`` (the means over the pairs). None when
    no pair has both values.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    if not both.any():
        return None
    a, b = a[both], b[both]
    d, se, _, clusters = clustered_mean(b - a, np.asarray(deals)[both])
    df = float(clusters - 1) if clusters > 1 else np.nan
    if np.isfinite(se) and se > 0:
        q = float(distribution.t_ppf(0.975, df))
        half = q * se
        p_value = float(2 * distribution.t_sf(abs(d) / se, df))
    elif np.isfinite(se):  # every pair the same difference
        # a rate: no deal differed from the others, which C deals bound only to the Wilson
        # upper limit of 0 in C (about 3.8 / C), not to zero
        half = float(wilson(0, clusters)[1]) if kind == "rate" else 0.0
        q = float(distribution.t_ppf(0.975, df))
        se = half / q
        p_value = 1.0 if d == 0 else 0.0
    else:
        half, p_value = np.nan, np.nan
    return {
        "value_a": float(a.mean()),
        "value_b": float(b.mean()),
        "diff": d,
        "ci_low": d - half,
        "ci_high": d + half,
        "p_value": p_value,
        "se": se,
        "df": df,
        "pairs": int(both.sum()),
        "deals": int(clusters),
        "mde": minimum_detectable_effect(se, df=df) if np.isfinite(df) else np.nan,
    }


def paired_games_needed(pairs: int, se: float, df: float, half_width: float) -> int | None:
    """Return the games per configuration a paired interval of ``half_width`` needs: the pairs
    played, scaled by how far the interval's half-width is from it (its variance per pair)."""
    if not (np.isfinite(se) and np.isfinite(df)) or se <= 0 or pairs <= 0:
        return None
    half = float(distribution.t_ppf(0.975, df)) * se
    return max(1, math.ceil(pairs * (half / half_width) ** 2))
