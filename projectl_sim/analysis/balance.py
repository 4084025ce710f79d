"""Balance of a configuration: seat advantage, margins, length and how its games ended.

A *configuration group* is every column that names what was played except the expansions:
``players``, ``variant``, ``switches`` and ``lineup``. The balance of a group is read from its
finished games: the first player's share of wins against 1/N, the winner's score margin, the
share of close games (margin at most ``close`` points; a shared or tie-broken win has margin 0),
game length (rounds, turns), how games ended, and the seats' scores.

What an expansion set or a rules switch changes against the base game is ``factors.effects``
(paired on shared deals, clustered, corrected for the many comparisons).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis.rows import CONFIG, finished_games, finished_seats
from projectl_sim.analysis.stats import mean_interval, wilson

CLOSE_MARGIN = 2

BALANCE_COLUMNS = [
    "games",
    "failed",
    "first_player_rate",
    "first_player_ci_low",
    "first_player_ci_high",
    "expected",
    "seat_advantage",
    "margin_mean",
    "margin_ci_low",
    "margin_ci_high",
    "close_share",
    "close_ci_low",
    "close_ci_high",
    "rounds_mean",
    "rounds_median",
    "rounds_p10",
    "rounds_p90",
    "turns_mean",
    "truncated_share",
    "shared_win_share",
    "score_mean",
    "score_sd",
]


def _groups(frame: pd.DataFrame, by: list[str]) -> dict[tuple[object, ...], pd.DataFrame]:
    """Return the rows of each group, keyed by the tuple of its values (one pass)."""
    return {
        key if isinstance(key, tuple) else (key,): group
        for key, group in frame.groupby(by, sort=True, observed=True)
    }


def _close(games: pd.DataFrame, close: int) -> pd.Series:
    return games["margin"].abs() <= close


def balance_table(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    by: Sequence[str] = CONFIG,
    close: int = CLOSE_MARGIN,
) -> pd.DataFrame:
    """Return one row of balance metrics per configuration (``by``), from finished games.

    Groups are always split by player count too (the first player's fair share is 1/N).
    Solo games have no first player to compare: their first-player columns are nan, and their
    margin is the player's score minus the mastermind's (negative on a loss; close is |margin|).
    """
    by = list(dict.fromkeys([*by, "players"]))  # the first player's fair share is 1/N
    ok_games = _groups(finished_games(games), by)
    ok_seats = _groups(finished_seats(seats), by)
    rows = []
    for key, group in _groups(games, by).items():
        where = dict(zip(by, key, strict=True))
        g = ok_games.get(key, games.iloc[0:0])
        s = ok_seats.get(key, seats.iloc[0:0])
        n = len(g)
        row: dict[str, object] = where | {"games": n, "failed": len(group) - n}
        players = int(where["players"])
        first = s[(s["turn_order"] == 0) & (s["players"] > 1)]
        wins = float(first["win_share"].sum())
        if len(first):
            low, high = wilson(wins, len(first))
            rate = wins / len(first)
            row |= {
                "first_player_rate": rate,
                "first_player_ci_low": float(low),
                "first_player_ci_high": float(high),
                "expected": 1 / players if players else np.nan,
                "seat_advantage": rate - 1 / players if players else np.nan,
            }
        margin, m_low, m_high = mean_interval(g["margin"])
        closes = int(_close(g, close).sum()) if n else 0
        c_low, c_high = wilson(closes, n) if n else (np.nan, np.nan)
        rounds = g["rounds"].astype(float)
        row |= {
            "margin_mean": margin,
            "margin_ci_low": m_low,
            "margin_ci_high": m_high,
            "close_share": closes / n if n else np.nan,
            "close_ci_low": float(c_low),
            "close_ci_high": float(c_high),
            "rounds_mean": rounds.mean(),
            "rounds_median": rounds.median(),
            "rounds_p10": rounds.quantile(0.1) if n else np.nan,
            "rounds_p90": rounds.quantile(0.9) if n else np.nan,
            "turns_mean": g["turns"].astype(float).mean(),
            "truncated_share": (g["end_reason"] != "rules").mean() if n else np.nan,
            "shared_win_share": (g["winners"].str.count(",") > 0).mean() if n else np.nan,
            "score_mean": s["score"].astype(float).mean(),
            "score_sd": s["score"].astype(float).std(ddof=1),
        }
        rows.append(row)
    return pd.DataFrame(rows, columns=[*by, *BALANCE_COLUMNS])


def end_reasons(games: pd.DataFrame, by: Sequence[str] = CONFIG) -> pd.DataFrame:
    """Return the share of finished games per end reason (``rules``, ``stall``, ...) per group."""
    by = list(by)
    ok = finished_games(games)
    if ok.empty:
        return pd.DataFrame(columns=[*by, "end_reason", "games", "share"])
    out = ok.groupby([*by, "end_reason"], sort=True, observed=True).size().rename("games")
    out = out.reset_index()
    out["share"] = out["games"] / out.groupby(by, observed=True)["games"].transform("sum")
    return out


def expansion_sets(games: pd.DataFrame) -> list[str]:
    """Return the expansion combinations a run played, the base game first."""
    found = sorted(set(games["expansions"]))
    return sorted(found, key=lambda e: (e != "none", e.count("+"), e))
