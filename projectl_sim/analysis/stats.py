"""Interval and test helpers, win rates and the seat advantage.

Win rates count ``win_share`` (a k-way shared win is 1/k to each winner), so the rates of one
game's seats add up to one; their interval is Wilson's score interval (``summary.wilson``, reused
here). A difference of two rates gets Newcombe's hybrid score interval (built from the two Wilson
intervals), a difference of two means Welch's interval; a difference is *significant* when its
95% interval leaves out zero.

**Deals as clusters.** The runner plays each deal once under every distinct rotation of the
line-up, with the same seed, so the games of one deal are not independent; deals are (they have
their own seed children). The ``clustered_*`` helpers take each observation's cluster (the
deal) and estimate the variance of a mean from the cluster totals (the usual cluster-robust
"sandwich" estimate with the ``C/(C-1)`` small-sample factor, C clusters). For a rate, that
variance over the one that treats the observations as independent is the *design effect*; the
Wilson interval is then computed on the effective size ``n / deff`` (Korn and Graubard 1998),
with the design effect never taken below 1 (for means too): deals that cluster results widen an
interval, deals that balance them (bots swapping seats) are not used to narrow it. With one game
per deal (identical bots) every helper gives the textbook interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis import distributions as distribution
from projectl_sim.sim.summary import Z95, finished_seats, wilson, win_rates

__all__ = [
    "Z95",
    "clustered_mean",
    "clustered_rate",
    "deal_labels",
    "diff_clustered_means",
    "diff_clustered_rates",
    "diff_means",
    "diff_proportions",
    "equal_shares_test",
    "finished_games",
    "finished_seats",
    "game_keys",
    "game_labels",
    "mean_interval",
    "seat_advantage",
    "welch",
    "welch_p_value",
    "wilson",
    "win_rates",
]

RUN = "run"  # the column naming each row's run in the tables of several runs (``load_runs``)

SEAT_ADVANTAGE_COLUMNS = [
    "turn_order",
    "games",
    "wins",
    "share",
    "ci_low",
    "ci_high",
    "expected",
    "deff",
    "chi2",
    "p_value",
    "test",
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


# -- clustered observations ----------------------------------------------------------------------
def _clusters(values: np.ndarray, clusters: Sequence[object] | np.ndarray | None) -> np.ndarray:
    """Return each observation's cluster as an int code (its own when ``clusters`` is None)."""
    if clusters is None:
        return np.arange(len(values))
    labels = clusters.to_numpy() if isinstance(clusters, pd.Series) else np.asarray(clusters)
    codes = pd.factorize(labels)[0]
    if len(codes) != len(values):
        raise ValueError(f"{len(values)} values but {len(codes)} cluster labels")
    return codes


def _robust_var(x: np.ndarray, codes: np.ndarray) -> float:
    """Return the cluster-robust variance of ``x.mean()`` (nan below two clusters)."""
    n = len(x)
    c = int(codes.max()) + 1 if n else 0
    if c < 2:
        return np.nan
    resid = np.bincount(codes, weights=x - x.mean(), minlength=c)
    return float(c / (c - 1) * np.sum(resid**2) / n**2)


def clustered_mean(
    values: Sequence[float] | np.ndarray, clusters: Sequence[object] | np.ndarray | None = None
) -> tuple[float, float, int, int]:
    """Return the mean of ``values``, its cluster-robust standard error, n and the clusters.

    Assumes the clusters (deals) are independent and identically distributed; observations
    inside one may depend on each other in any way. The standard error is the cluster-robust
    one, but never below the one of independent observations (a design effect of at least 1, as
    for rates). Nan values are left out; the standard error is nan below two clusters.
    """
    x = np.asarray(values, dtype=float)
    keep = ~np.isnan(x)
    codes = _clusters(x, clusters)[keep]
    x = x[keep]
    if len(x) == 0:
        return np.nan, np.nan, 0, 0
    codes = pd.factorize(codes)[0]
    # never below the variance of independent observations: with few deals the cluster estimate
    # can come out near 0 (two deals whose rotations happen to balance), which no data justify
    var = max(_robust_var(x, codes), _robust_var(x, np.arange(len(x))))
    return float(x.mean()), float(np.sqrt(var)), len(x), int(codes.max()) + 1


def _design_effect(x: np.ndarray, codes: np.ndarray) -> float:
    """Return the variance of the mean by clusters over the one by observations (at least 1)."""
    clustered = _robust_var(x, codes)
    independent = _robust_var(x, np.arange(len(x)))
    if not (independent > 0) or np.isnan(clustered):
        return 1.0
    return max(1.0, clustered / independent)


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
    x = np.asarray(values, dtype=float)
    keep = ~np.isnan(x)
    codes = _clusters(x, clusters)[keep]
    x = x[keep]
    if len(x) == 0:
        return np.nan, np.nan, np.nan, np.nan
    n_eff = len(x) / _design_effect(x, pd.factorize(codes)[0])
    p = float(x.mean())
    low, high = wilson(p * n_eff, n_eff, z)
    return p, float(low), float(high), float(n_eff)


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


def seat_advantage(seats: pd.DataFrame, by: Sequence[str] = ("players",)) -> pd.DataFrame:
    """Return each turn order's share of the wins per group, its interval, and a fairness test.

    Per group (``by``, always split by player count; pass ``CONFIG`` from ``balance`` for one
    group per configuration) and turn order: ``games`` played, ``wins`` (sum of ``win_share``),
    ``share`` = wins / games with its 95% Wilson interval (on the effective size when the deals'
    rotations cluster results, see the module notes), and ``expected`` = 1/N. ``chi2``,
    ``p_value`` and ``test`` (the same on every row of a group) come from ``equal_shares_test``:
    Pearson's statistic of the wins per turn order against equal shares (Rao-Scott corrected by
    the mean design effect ``deff``), exact for small groups, else chi-square with N-1 degrees of
    freedom. Solo games (one seat, no opponent at the table) are left out; a group with no wins
    at all gets nan for the test.
    """
    by = list(dict.fromkeys([*by, "players"]))  # shares compare with 1/N: one N per group
    ok = finished_seats(seats)
    ok = ok[ok["players"] > 1]
    if ok.empty:
        return pd.DataFrame(columns=[*by, *SEAT_ADVANTAGE_COLUMNS])
    rows = []
    for key, group in ok.groupby(by, sort=True, observed=True):
        where = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        players = int(where["players"])
        orders = []
        for order, at in group.groupby("turn_order", sort=True):
            share, low, high, n_eff = clustered_rate(at["win_share"], deal_labels(at))
            deff = len(at) / n_eff if n_eff else 1.0
            orders.append(
                where
                | {
                    "turn_order": int(order),
                    "games": len(at),
                    "wins": float(at["win_share"].sum()),
                    "share": share,
                    "ci_low": low,
                    "ci_high": high,
                    "expected": 1 / players,
                    "deff": deff,
                }
            )
        mean_deff = float(np.mean([o["deff"] for o in orders]))
        stat, p_value, test = equal_shares_test([o["wins"] for o in orders], mean_deff)
        for o in orders:
            o |= {"chi2": stat, "p_value": p_value, "test": test}
        rows.extend(orders)
    out = pd.DataFrame(rows)
    return out[[*by, *SEAT_ADVANTAGE_COLUMNS]]


def deal_labels(rows: pd.DataFrame) -> pd.Series | None:
    """Return the deal of each row, or None when there is none.

    A deal is its seed: a run's configurations that share deals (the runner's ``shared-deals``
    scheme) share their seeds, so the games they play on one deal are one cluster. Tables without
    seeds name a deal by configuration and deal number; in several runs' tables the run comes
    first (two runs' deals are two deals, whatever their seeds).
    """
    if "seed" in rows and len(rows) and rows["seed"].notna().all():
        label = "s" + rows["seed"].astype("int64").astype(str)
    elif "deal" in rows and not rows["deal"].isna().all():
        config = rows["config_id"].astype(str) if "config_id" in rows else ""
        label = config + "/" + rows["deal"].astype(str)
    else:
        return None
    if RUN in rows:
        label = rows[RUN].astype(str) + "/" + label
    return label


def game_keys(rows: pd.DataFrame) -> list[str]:
    """Return the columns naming a row's game: ``game_id``, after ``run`` in several runs'."""
    return [RUN, "game_id"] if RUN in rows else ["game_id"]


def game_labels(rows: pd.DataFrame) -> np.ndarray:
    """Return each row's game: its ``game_id``, or ``run/game_id`` in several runs' tables."""
    if RUN in rows:
        return (rows[RUN].astype(str) + "/" + rows["game_id"].astype(str)).to_numpy()
    return rows["game_id"].to_numpy()
