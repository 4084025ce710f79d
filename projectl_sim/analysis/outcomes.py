"""Win rates by bot, turn order and configuration, and each turn order's share of the wins.

A seat's win counts ``win_share`` (1/k of a k-way shared win), so the win rates of a game's
seats add up to one; the interval of a win rate is Wilson's score interval on that rate. Failed
games (a bot raised) are left out and counted. The seat advantage's shares are rates of seats
clustered by deal (``stats.clusters``), tested against equal shares (``stats.significance``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis.measurable import seat_unmeasured
from projectl_sim.analysis.rows import deal_labels, finished_seats
from projectl_sim.analysis.stats import equal_shares_test, wilson
from projectl_sim.analysis.stats.clusters import Moments, rate_of

__all__ = [
    "SEAT_ADVANTAGE_COLUMNS",
    "WIN_TABLES",
    "seat_advantage",
    "seat_advantage_of",
    "seat_moments",
    "summarize",
    "win_rates",
    "win_rates_of",
    "win_sums",
]

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
    "unmeasured_because",
]


def win_sums(seats: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Return per group of finished seat rows what ``win_rates`` adds up: ``played``, ``wins``
    and the scores' sum and count (window sums add up to the whole table's)."""
    grouped = seats.groupby(by, sort=True, observed=True)
    return grouped.agg(
        played=("win_share", "size"),
        wins=("win_share", "sum"),
        score_sum=("score", "sum"),
        score_count=("score", "count"),
    ).reset_index()


def win_rates_of(sums: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Return ``win_rates`` from ``win_sums`` (of the whole table, or added window by window)."""
    out = sums.copy()
    out["mean_score"] = out["score_sum"] / out["score_count"]
    out["win_rate"] = out["wins"] / out["played"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["played"].to_numpy())
    return out[[*by, "played", "wins", "win_rate", "ci_low", "ci_high", "mean_score"]]


def win_rates(seats: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Return per group: played (seat rows), wins, win_rate (mean win_share), 95% interval."""
    return win_rates_of(win_sums(finished_seats(seats), by), by)


# the groups of the three win-rate tables
WIN_TABLES = {
    "bot": ["players", "bot"],
    "turn_order": ["players", "turn_order"],
    "config": ["config_id", "players", "lineup", "variant", "expansions", "switches", "bot"],
}


def summarize(seats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Return the three win-rate tables: by bot, by turn order, and by configuration."""
    return {name: win_rates(seats, by) for name, by in WIN_TABLES.items()}


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
    at all gets nan for the test. In a line-up of different bots the shares are the bots' own,
    pooled over the rotation; where they cannot move with the seat (``measurable``) the test is
    nan and ``unmeasured_because`` says why (None elsewhere).
    """
    by = list(dict.fromkeys([*by, "players"]))  # shares compare with 1/N: one N per group
    ok = finished_seats(seats)
    ok = ok[ok["players"] > 1]
    reasons = {
        key if isinstance(key, tuple) else (key,): seat_unmeasured(group)
        for key, group in ok.groupby(by, sort=True, observed=True)
    }
    return seat_advantage_of(seat_moments(ok, by), by, reasons)


def seat_moments(ok: pd.DataFrame, by: list[str]) -> dict[tuple, Moments]:
    """Return the moments of ``win_share`` per group (``by`` and then ``turn_order``) of finished
    seat rows of two seats or more, clustered by deal: a window's add to another's when they
    hold different deals."""
    out = {}
    for key, at in ok.groupby([*by, "turn_order"], sort=True, observed=True):
        labels = deal_labels(at)
        codes = None if labels is None else pd.factorize(labels.to_numpy())[0]
        x = at["win_share"].to_numpy(dtype=float)
        out[key] = Moments.of(np.stack([x, np.ones(len(x))], axis=1), codes)
    return out


def seat_advantage_of(
    moments: dict[tuple, Moments], by: list[str], reasons: dict[tuple, str | None]
) -> pd.DataFrame:
    """Return ``seat_advantage`` from ``seat_moments`` (``by`` with ``players``) and each
    group's ``seat_unmeasured`` reason."""
    if not moments:
        return pd.DataFrame(columns=[*by, *SEAT_ADVANTAGE_COLUMNS])
    groups: dict[tuple, list[tuple[int, Moments]]] = {}
    for key in sorted(moments):
        groups.setdefault(key[:-1], []).append((int(key[-1]), moments[key]))
    rows = []
    for key, at in groups.items():
        where = dict(zip(by, key, strict=True))
        players = int(where["players"])
        orders = []
        for order, m in at:
            share, low, high, n_eff = rate_of(m)
            deff = m.n / n_eff if n_eff else 1.0
            orders.append(
                where
                | {
                    "turn_order": order,
                    "games": m.n,
                    "wins": float(m.total[0]),
                    "share": share,
                    "ci_low": low,
                    "ci_high": high,
                    "expected": 1 / players,
                    "deff": deff,
                }
            )
        mean_deff = float(np.mean([o["deff"] for o in orders]))
        reason = reasons.get(key)
        if reason is None:
            stat, p_value, test = equal_shares_test([o["wins"] for o in orders], mean_deff)
        else:
            stat, p_value, test = np.nan, np.nan, ""
        for o in orders:
            o |= {"chi2": stat, "p_value": p_value, "test": test, "unmeasured_because": reason}
        rows.extend(orders)
    out = pd.DataFrame(rows)
    return out[[*by, *SEAT_ADVANTAGE_COLUMNS]]
