"""What a run of a given size can detect, and how many games a chosen precision needs.

Two questions every effect in ``factors.effects`` answers beside its interval:

- *Minimum detectable effect* (MDE): the smallest true difference a two-sided test at level
  ``alpha`` (0.05) would find with probability ``power`` (80%) at this sample size,
  ``(z[1 - alpha/2] + z[power]) * se`` with ``se`` the standard error of the difference under
  the null (for rates: ``sqrt(p (1-p) (1/n_a + 1/n_b))`` at the pooled rate on the effective
  sizes, taken as ``(x + 2) / (n + 4)`` so that a run with no wins on either side does not
  claim to detect anything; for means: Welch's, from the two samples, with Student's quantiles
  at Welch's degrees of freedom). At 80% power and 5% it is 2.80 standard errors. An effect
  whose interval holds zero and whose MDE is large says "this run could not tell"; with a small
  MDE it says "no effect of that size".
- *Games needed*: how many games (per configuration compared) give a 95% interval of a chosen
  half-width: for one rate, the smallest ``n`` whose Wilson interval at rate ``p`` is that
  narrow; for a difference of two rates or any mean, the normal approximation
  ``n = deff * z^2 * var / h^2`` with ``var = p(1-p)`` (twice that for a difference of two
  equally sized samples) or ``sd^2``.

Both are normal approximations that assume independent deals (``design_effect`` scales them for
clustered games); they plan runs, they do not replace the intervals computed afterwards.
"""

from __future__ import annotations

import math

import numpy as np

from projectl_sim.analysis.stats import distributions as distribution
from projectl_sim.analysis.stats.intervals import Z95, wilson

__all__ = [
    "games_needed",
    "games_to_detect",
    "minimum_detectable_effect",
    "rate_difference_se",
]


def _z(level: float) -> float:
    return float(distribution.norm_ppf(0.5 + level / 2))


def minimum_detectable_effect(
    se: float, alpha: float = 0.05, power: float = 0.8, df: float | None = None
) -> float:
    """Return the smallest true effect a two-sided level-``alpha`` test finds with ``power``.

    ``(q[1 - alpha/2] + q[power]) * se`` with normal quantiles, or Student's with ``df`` degrees
    of freedom (a Welch test on few deals).
    """
    if not np.isfinite(se) or se < 0:
        return np.nan
    if df is not None and np.isfinite(df):
        return float((distribution.t_ppf(1 - alpha / 2, df) + distribution.t_ppf(power, df)) * se)
    return float((distribution.norm_ppf(1 - alpha / 2) + distribution.norm_ppf(power)) * se)


def rate_difference_se(p: float, n_a: float, n_b: float) -> float:
    """Return the standard error of a difference of two rates under the null (both ``p``)."""
    if n_a <= 0 or n_b <= 0 or not np.isfinite(p):
        return np.nan
    return float(math.sqrt(p * (1 - p) * (1 / n_a + 1 / n_b)))


def _variance(p: float | None, sd: float | None) -> float:
    if (p is None) == (sd is None):
        raise ValueError("give exactly one of p (a rate) or sd (a mean's standard deviation)")
    if p is not None:
        if not 0 <= p <= 1:
            raise ValueError(f"p must be a rate in [0, 1], got {p}")
        return p * (1 - p)
    assert sd is not None
    if sd < 0:
        raise ValueError(f"sd must be >= 0, got {sd}")
    return sd**2


def _wilson_games(half_width: float, p: float, z: float) -> int:
    """Return the smallest n whose Wilson interval at rate ``p`` has at most that half-width."""

    def half(n: int) -> float:
        low, high = wilson(p * n, n, z)
        return float(high - low) / 2

    high = 1
    while half(high) > half_width:
        high *= 2
    low = high // 2
    while high - low > 1:  # the half-width falls with n: bisect on whole games
        mid = (low + high) // 2
        low, high = (mid, high) if half(mid) > half_width else (low, mid)
    return high


def games_needed(
    half_width: float,
    *,
    p: float | None = None,
    sd: float | None = None,
    difference: bool = False,
    design_effect: float = 1.0,
    level: float = 0.95,
) -> int:
    """Return the games (per sample) a 95% interval of ``half_width`` needs.

    Give the rate ``p`` (0.5 is the worst case) or the standard deviation ``sd`` of one game's
    value. ``difference=True`` sizes each of two equally sized independent samples for the
    interval of their difference. ``design_effect`` multiplies the games (deals that cluster
    results). See the module notes for the formulas.
    """
    if half_width <= 0:
        raise ValueError(f"half_width must be > 0, got {half_width}")
    var = _variance(p, sd)
    z = _z(level) if level != 0.95 else Z95
    if p is not None and not difference:
        n = _wilson_games(half_width, p, z)
    else:
        n = math.ceil(z**2 * var * (2 if difference else 1) / half_width**2)
    return max(1, math.ceil(n * max(design_effect, 1.0)))


def games_to_detect(
    effect: float,
    *,
    p: float | None = None,
    sd: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    design_effect: float = 1.0,
) -> int:
    """Return the games per sample that find a true difference ``effect`` with ``power``.

    Two equally sized independent samples, a two-sided level-``alpha`` test, normal
    approximation: ``n = deff * 2 var (z[1-alpha/2] + z[power])^2 / effect^2``.
    """
    if effect == 0:
        raise ValueError("effect must be nonzero")
    var = _variance(p, sd)
    k = distribution.norm_ppf(1 - alpha / 2) + distribution.norm_ppf(power)
    return max(1, math.ceil(max(design_effect, 1.0) * 2 * var * k**2 / effect**2))
