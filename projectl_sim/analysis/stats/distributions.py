"""The few distribution functions the analysis reads intervals and p-values from.

They are ``scipy.special``'s functions, which ``scipy.stats``' ``norm``, ``t`` and ``chi2`` call
themselves: the same numbers, without importing ``scipy.stats`` (over a second of CPU at every
start of ``summary``, ``run`` or ``compare``, for three distributions).
"""

from __future__ import annotations

from typing import Any

from scipy import special


def norm_ppf(q: Any) -> Any:
    """Return the standard normal quantile of ``q``."""
    return special.ndtri(q)


def norm_sf(x: Any) -> Any:
    """Return the standard normal upper tail ``P(Z > x)``."""
    return special.ndtr(-x)


def t_ppf(q: Any, df: Any) -> Any:
    """Return the quantile of Student's t with ``df`` degrees of freedom."""
    return special.stdtrit(df, q)


def t_sf(x: Any, df: Any) -> Any:
    """Return the upper tail ``P(T > x)`` of Student's t with ``df`` degrees of freedom."""
    return special.stdtr(df, -x)


def chi2_sf(x: Any, df: Any) -> Any:
    """Return the upper tail of the chi-square distribution with ``df`` degrees of freedom."""
    return special.chdtrc(df, x)


def chi2_ppf(q: Any, df: Any) -> Any:
    """Return the quantile of the chi-square distribution with ``df`` degrees of freedom."""
    return 2 * special.gammaincinv(df / 2, q)


def multinomial_logpmf(outcomes: Any, n: int, p: Any) -> Any:
    """Return the log probability of each row of counts under ``Multinomial(n, p)``
    (``scipy.stats.multinomial.logpmf``'s formula)."""
    return special.gammaln(n + 1) + (
        special.xlogy(outcomes, p) - special.gammaln(outcomes + 1)
    ).sum(axis=-1)
