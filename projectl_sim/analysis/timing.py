"""What a bot's decisions cost: seconds per decision, per bot, from the seat table.

A seat row holds the seat's number of ``decisions`` and the mean seconds one took: CPU seconds
in ``decision_cpu_mean`` when the run wrote that column, else wall-clock seconds in
``decision_time_mean`` (which a busy machine inflates). Timing is the one thing two runs with
the same seeds do not reproduce.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis.rows import finished_seats, game_labels
from projectl_sim.analysis.stats import normal_interval
from projectl_sim.analysis.stats.clusters import Moments, mean_of

__all__ = [
    "TIME_COLUMNS",
    "decision_times",
    "decision_times_of",
    "time_column",
    "time_moments",
]

TIME_COLUMNS = ("decision_cpu_mean", "decision_time_mean")  # preferred first
DECISION_TIME_COLUMNS = [
    "bot",
    "clock",
    "seats",
    "decisions",
    "seconds_per_decision",
    "ci_low",
    "ci_high",
    "seconds_per_game",
]


def time_column(seats: pd.DataFrame) -> str | None:
    """Return the timing column a table holds (CPU before wall clock), or None."""
    for column in TIME_COLUMNS:
        if column in seats and seats[column].notna().any():
            return column
    return None


def decision_times(seats: pd.DataFrame, by: Sequence[str] = ("bot",)) -> pd.DataFrame:
    """Return each bot's seconds per decision with a 95% interval, and seconds per game.

    Per group (``by``, default the bot): ``clock`` (``cpu`` or ``wall``), ``seats`` timed,
    ``decisions``, ``seconds_per_decision`` = total seconds / total decisions (seats weighted by
    their decisions) with a 95% normal interval from the seats' totals as a ratio estimate,
    games clustered (seats of one game share its machine load), and the mean seconds a seat
    spends in one game. Empty when the table has no timing column.
    """
    by = list(by)
    column = time_column(seats)
    if column is None:
        return pd.DataFrame(columns=[*by, *DECISION_TIME_COLUMNS[1:]])
    return decision_times_of(time_moments(finished_seats(seats), by, column), by, column)


def time_moments(ok: pd.DataFrame, by: list[str], column: str) -> dict[tuple, Moments]:
    """Return per group (``by``) of finished seat rows the moments of (seconds, decisions, 1)
    of the seats timed in ``column``, clustered by game: a window's add to another's when they
    hold different games."""
    ok = ok[ok[column].notna() & (ok["decisions"] > 0)]
    out = {}
    for key, group in ok.groupby(by, sort=True, observed=True):
        decisions = group["decisions"].to_numpy(dtype=float)
        seconds = group[column].to_numpy(dtype=float) * decisions
        codes = pd.factorize(game_labels(group))[0]
        rows = np.stack([seconds, decisions, np.ones(len(group))], axis=1)
        out[key if isinstance(key, tuple) else (key,)] = Moments.of(rows, codes)
    return out


def decision_times_of(moments: dict[tuple, Moments], by: list[str], column: str) -> pd.DataFrame:
    """Return ``decision_times`` from ``time_moments`` of the seats timed in ``column``."""
    clock = "cpu" if column == "decision_cpu_mean" else "wall"
    rows = []
    for key in sorted(moments):
        m = moments[key]
        seconds, decisions = float(m.total[0]), float(m.total[1])
        rate = seconds / decisions
        # ratio estimate: the mean of (seconds - rate * decisions) per seat, games as clusters
        _, se, n, _ = mean_of(m, np.array([1.0, -rate, 0.0]))
        se = se / (decisions / m.n) if n > 1 else np.nan
        low, high = normal_interval(rate, se) if np.isfinite(se) else (np.nan, np.nan)
        rows.append(
            dict(zip(by, key, strict=True))
            | {
                "clock": clock,
                "seats": m.n,
                "decisions": int(decisions),
                "seconds_per_decision": rate,
                "ci_low": max(0.0, low) if np.isfinite(low) else np.nan,
                "ci_high": high,
                "seconds_per_game": seconds / m.n,
            }
        )
    out = pd.DataFrame(rows, columns=[*by, *DECISION_TIME_COLUMNS[1:]])
    return out.sort_values("seconds_per_decision", ascending=False, ignore_index=True)
