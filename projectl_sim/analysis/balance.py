"""Balance of a configuration, and what each expansion combination changes against the base game.

A *configuration group* is every column that names what was played except the expansions:
``players``, ``variant``, ``switches`` and ``lineup``. The balance of a group is read from its
finished games: the first player's share of wins against 1/N, the winner's score margin, the
share of close games (margin at most ``close`` points; a shared or tie-broken win has margin 0),
game length (rounds, turns), how games ended, and the seats' scores.

``expansion_effects`` compares each expansion combination with the base game (``expansions ==
"none"``) in the same group: the difference of every metric with its 95% interval (rates:
Newcombe's interval; means: Welch's), flagged ``significant`` when the interval leaves out zero.
No correction is made for the many comparisons: read the flags as leads, not verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis.rows import CONFIG, finished_games, finished_seats
from projectl_sim.analysis.stats import diff_means, diff_proportions, mean_interval, wilson

GROUP = ["players", "variant", "switches", "lineup"]
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

EFFECT_COLUMNS = [
    "metric",
    "kind",
    "base",
    "value",
    "diff",
    "ci_low",
    "ci_high",
    "significant",
    "games_base",
    "games",
]

# metric -> (kind, where it is read): a rate of the games, a mean over games, or over seats
_METRICS: dict[str, tuple[str, str]] = {
    "first_player_rate": ("rate", "seat"),
    "close_share": ("rate", "game"),
    "truncated_share": ("rate", "game"),
    "margin": ("mean", "game"),
    "rounds": ("mean", "game"),
    "turns": ("mean", "game"),
    "score": ("mean", "seat"),
}


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


def _values(
    metric: str, seats: pd.DataFrame, games: pd.DataFrame, close: int
) -> tuple[np.ndarray, int]:
    """Return a metric's observations (0/1 for a rate) and how many games they come from."""
    if metric == "first_player_rate":
        first = seats[(seats["turn_order"] == 0) & (seats["players"] > 1)]
        return first["win_share"].to_numpy(dtype=float), len(first)
    if metric == "close_share":
        return _close(games, close).to_numpy(dtype=float), len(games)
    if metric == "truncated_share":
        return (games["end_reason"] != "rules").to_numpy(dtype=float), len(games)
    if metric == "score":
        return seats["score"].to_numpy(dtype=float), len(games)
    return games[metric].to_numpy(dtype=float), len(games)


def expansion_effects(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    group: Sequence[str] = GROUP,
    close: int = CLOSE_MARGIN,
) -> pd.DataFrame:
    """Return each expansion combination's change of every balance metric against the base game.

    One row per (group, expansions, metric) where the group also has base-game games: ``base``
    and ``value`` are the metric in the base game and with the expansions, ``diff`` their
    difference with its 95% interval, ``significant`` when it leaves out zero. Empty when the run
    has no expansion combination next to the base game.
    """
    group = list(group)
    columns = [*group, "expansions", *EFFECT_COLUMNS]
    ok_games = finished_games(games)
    ok_seats = finished_seats(seats)
    rows = []
    seats_by_group = _groups(ok_seats, group)
    for key, in_group in _groups(ok_games, group).items():
        where = dict(zip(group, key, strict=True))
        seats_in = seats_by_group.get(key, ok_seats.iloc[0:0])
        base_games = in_group[in_group["expansions"] == "none"]
        if base_games.empty:
            continue
        base_seats = seats_in[seats_in["expansions"] == "none"]
        for expansions in sorted(set(in_group["expansions"]) - {"none"}):
            exp_games = in_group[in_group["expansions"] == expansions]
            exp_seats = seats_in[seats_in["expansions"] == expansions]
            for metric, (kind, _) in _METRICS.items():
                b, nb = _values(metric, base_seats, base_games, close)
                v, nv = _values(metric, exp_seats, exp_games, close)
                if len(b) == 0 or len(v) == 0:
                    continue
                if kind == "rate":
                    d, low, high = diff_proportions(v.sum(), len(v), b.sum(), len(b))
                else:
                    d, low, high = diff_means(v, b)
                rows.append(
                    where
                    | {
                        "expansions": expansions,
                        "metric": metric,
                        "kind": kind,
                        "base": float(np.nanmean(b)),
                        "value": float(np.nanmean(v)),
                        "diff": d,
                        "ci_low": low,
                        "ci_high": high,
                        "significant": bool(
                            not np.isnan(low) and not np.isnan(high) and (low > 0 or high < 0)
                        ),
                        "games_base": nb,
                        "games": nv,
                    }
                )
    return pd.DataFrame(rows, columns=columns)


def expansion_sets(games: pd.DataFrame) -> list[str]:
    """Return the expansion combinations a run played, the base game first."""
    found = sorted(set(games["expansions"]))
    return sorted(found, key=lambda e: (e != "none", e.count("+"), e))
