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
from projectl_sim.analysis.stats import clustered_rate, equal_shares_test, wilson

__all__ = ["SEAT_ADVANTAGE_COLUMNS", "seat_advantage", "summarize", "win_rates"]

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


def win_rates(seats: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Return per group: played (seat rows), wins, win_rate (mean win_share), 95% interval."""
    ok = finished_seats(seats)
    grouped = ok.groupby(by, sort=True, observed=True)
    out = grouped.agg(
        played=("win_share", "size"),
        wins=("win_share", "sum"),
        mean_score=("score", "mean"),
    ).reset_index()
    out["win_rate"] = out["wins"] / out["played"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["played"].to_numpy())
    return out[[*by, "played", "wins", "win_rate", "ci_low", "ci_high", "mean_score"]]


def summarize(seats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Return the three win-rate tables: by bot, by turn order, and by configuration."""
    return {
        "bot": win_rates(seats, ["players", "bot"]),
        "turn_order": win_rates(seats, ["players", "turn_order"]),
        "config": win_rates(
            seats, ["config_id", "players", "lineup", "variant", "expansions", "switches", "bot"]
        ),
    }


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
        reason = seat_unmeasured(group)
        if reason is None:
            stat, p_value, test = equal_shares_test([o["wins"] for o in orders], mean_deff)
        else:
            stat, p_value, test = np.nan, np.nan, ""
        for o in orders:
            o |= {"chi2": stat, "p_value": p_value, "test": test, "unmeasured_because": reason}
        rows.extend(orders)
    out = pd.DataFrame(rows)
    return out[[*by, *SEAT_ADVANTAGE_COLUMNS]]
