"""Interval and test helpers, win rates and the seat advantage.

Win rates count ``win_share`` (a k-way shared win is 1/k to each winner), so the rates of one
game's seats add up to one; their interval is Wilson's score interval (``summary.wilson``, reused
here). A difference of two rates gets Newcombe's hybrid score interval (built from the two Wilson
intervals), a difference of two means Welch's normal interval; a difference is *significant*
when its 95% interval leaves out zero.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from projectl_sim.sim.summary import Z95, finished_seats, wilson, win_rates

__all__ = [
    "Z95",
    "diff_means",
    "diff_proportions",
    "finished_games",
    "finished_seats",
    "mean_interval",
    "seat_advantage",
    "wilson",
    "win_rates",
]

SEAT_ADVANTAGE_COLUMNS = [
    "turn_order",
    "games",
    "wins",
    "share",
    "ci_low",
    "ci_high",
    "expected",
    "chi2",
    "p_value",
]


def finished_games(games: pd.DataFrame) -> pd.DataFrame:
    """Return the game rows that finished (no bot error)."""
    return games[games["error"].isna()].copy()


def mean_interval(values: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """Return the mean of ``values`` and its 95% t interval (nan bounds below two values)."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return np.nan, np.nan, np.nan
    mean = float(x.mean())
    if len(x) < 2:
        return mean, np.nan, np.nan
    half = sps.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x))
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


def seat_advantage(seats: pd.DataFrame, by: Sequence[str] = ("players",)) -> pd.DataFrame:
    """Return each turn order's share of the wins per group, its interval, and a fairness test.

    Per group (``by``, always split by player count) and turn order: ``games`` played, ``wins`` (sum
    of ``win_share``), ``share`` = wins / games with its Wilson interval, and ``expected`` = 1/N.
    ``chi2`` and ``p_value`` (the same on every row of a group) are Pearson's goodness-of-fit
    test of the wins per turn order against equal shares (N-1 degrees of freedom; shared wins
    make the counts fractional, which the test takes as they are). Solo games (one seat, no
    opponent at the table) are left out; a group with no wins at all gets nan for the test.
    """
    by = list(dict.fromkeys([*by, "players"]))  # shares compare with 1/N: one N per group
    ok = finished_seats(seats)
    ok = ok[ok["players"] > 1]
    if ok.empty:
        return pd.DataFrame(columns=[*by, *SEAT_ADVANTAGE_COLUMNS])
    out = (
        ok.groupby([*by, "turn_order"], sort=True, observed=True)
        .agg(games=("win_share", "size"), wins=("win_share", "sum"))
        .reset_index()
    )
    out["share"] = out["wins"] / out["games"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["games"].to_numpy())
    out["expected"] = 1 / out["players"]
    chi2 = []
    p_values = []
    for _, group in out.groupby(by, sort=False, observed=True):
        total = group["wins"].sum()
        seats_n = len(group)
        if total <= 0 or seats_n < 2:
            chi2.extend([np.nan] * seats_n)
            p_values.extend([np.nan] * seats_n)
            continue
        # expected wins per turn order: the group's wins spread by how often each order played
        expected = total * group["games"] / group["games"].sum()
        stat = float((((group["wins"] - expected) ** 2) / expected).sum())
        chi2.extend([stat] * seats_n)
        p_values.extend([float(sps.chi2.sf(stat, seats_n - 1))] * seats_n)
    # groupby(sort=False) visits groups in order of first appearance, which is the sorted order
    out["chi2"] = chi2
    out["p_value"] = p_values
    columns = [c for c in [*by, *SEAT_ADVANTAGE_COLUMNS] if c in out]
    return out[columns]
