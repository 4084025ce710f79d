"""Win rates with Wilson 95% intervals by bot, turn order and configuration, from a run's tables.

A seat's win counts ``win_share`` (1/k of a k-way shared win), so the win rates of a game's
seats add up to one; the interval is Wilson's score interval on that rate. Failed games (a bot
raised) are left out and counted.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from projectl_sim.sim import tables

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def wilson(
    successes: np.ndarray | float, n: np.ndarray | float, z: float = Z95
) -> tuple[np.ndarray, np.ndarray]:
    """Return the Wilson score interval (low, high) of ``successes`` out of ``n`` trials."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def finished_seats(seats: pd.DataFrame) -> pd.DataFrame:
    """Return the seat rows of games that finished (no bot error), ``won`` as a bool."""
    ok = seats[seats["error"].isna()].copy()
    ok["won"] = ok["won"].astype(bool)
    ok["win_share"] = ok["win_share"].astype(float)
    return ok


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


def decision_times(seats: pd.DataFrame) -> pd.DataFrame:
    """Return per bot: decisions, and the wall and CPU milliseconds per decision (each seat's
    mean weighted by its decisions; CPU null for tables written before it was measured)."""
    ok = seats[seats["decisions"] > 0].copy()
    ok["wall"] = ok["decision_time_mean"] * ok["decisions"]
    cpu = ok["decision_cpu_mean"] if "decision_cpu_mean" in ok else pd.Series(np.nan, ok.index)
    ok["cpu"] = cpu * ok["decisions"]
    ok["cpu_n"] = ok["decisions"].where(cpu.notna(), 0)
    out = (
        ok.groupby(["players", "bot"], sort=True, observed=True)
        .agg(
            decisions=("decisions", "sum"),
            wall=("wall", "sum"),
            cpu=("cpu", "sum"),
            cpu_n=("cpu_n", "sum"),
        )
        .reset_index()
    )
    out["wall_ms"] = 1000 * out["wall"] / out["decisions"]
    with np.errstate(invalid="ignore", divide="ignore"):
        out["cpu_ms"] = (1000 * out["cpu"] / out["cpu_n"]).where(out["cpu_n"] > 0)
    return out[["players", "bot", "decisions", "wall_ms", "cpu_ms"]]


def summarize(seats: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Return the three summary tables: by bot, by turn order, and by configuration."""
    return {
        "bot": win_rates(seats, ["players", "bot"]),
        "turn_order": win_rates(seats, ["players", "turn_order"]),
        "config": win_rates(
            seats, ["config_id", "players", "lineup", "variant", "expansions", "switches", "bot"]
        ),
    }


def _show(table: pd.DataFrame, title: str) -> str:
    shown = table.copy()
    constant = [
        c for c in ("variant", "expansions", "switches") if c in shown and shown[c].nunique() <= 1
    ]
    shown = shown.drop(columns=constant)
    shown["win_rate"] = [
        f"{r:6.1%} [{lo:6.1%}, {hi:6.1%}]"
        for r, lo, hi in zip(shown["win_rate"], shown["ci_low"], shown["ci_high"], strict=True)
    ]
    shown = shown.drop(columns=["ci_low", "ci_high", "wins"])
    shown = shown.rename(columns={"win_rate": "win rate [95% CI]", "mean_score": "mean score"})
    shown["mean score"] = shown["mean score"].map(lambda v: f"{v:.1f}")
    return f"{title}\n{shown.to_string(index=False)}"


def provenance_lines(games: pd.DataFrame) -> list[str]:
    """Return the lines on what a run's numbers rest on: the provisional data its games dealt
    (column ``provisional_sets``) and its first failed game, each only when there is one."""
    lines = []
    if "provisional_sets" in games and games["provisional_sets"].notna().any():
        used = games["provisional_sets"].dropna()
        names = sorted({name for value in used for name in value.split("+")})
        lines.append(
            f"provisional data in {len(used)} of {len(games)} games: {', '.join(names)} "
            "(column provisional_sets)"
        )
    failed = games[games["error"].notna()]
    if len(failed):
        first = failed.iloc[0]
        lines.append(f"first failure: game {first['game_id']}: {first['error'].splitlines()[0]}")
    return lines


def format_summary(seats: pd.DataFrame, games: pd.DataFrame) -> str:
    """Return the text ``projectl-sim summary`` prints."""
    failed = int(games["error"].notna().sum())
    finished = games[games["error"].isna()]
    lines = [f"{len(games)} games, {failed} failed (left out of the win rates)"]
    if len(finished):
        reasons = finished["end_reason"].value_counts()
        lines.append(
            "ended: "
            + ", ".join(
                f"{reason} {count / len(finished):.1%}" for reason, count in reasons.items()
            )
        )
        shared = (finished["winners"].str.count(",") > 0).mean()
        lines.append(f"shared wins: {shared:.1%}")
    lines += provenance_lines(games)
    if not len(finished):
        return "\n".join(lines)
    parts = summarize(seats)
    constants = []
    for column in ("variant", "expansions", "switches"):
        values = seats[column].unique()
        if len(values) == 1:
            constants.append(f"{column} {values[0]}")
    if constants:
        lines.append(", ".join(constants))
    lines.append("")
    lines.append(_show(parts["bot"], "by bot (win rate counts a k-way shared win as 1/k)"))
    lines.append("")
    lines.append(_show(parts["turn_order"], "by turn order (0 = first player)"))
    times = decision_times(seats) if "decisions" in seats else seats.iloc[:0]
    if len(times):
        shown = times.copy()
        shown["wall_ms"] = shown["wall_ms"].map(lambda v: f"{v:.3f}")
        shown["cpu_ms"] = shown["cpu_ms"].map(lambda v: "-" if pd.isna(v) else f"{v:.3f}")
        shown = shown.rename(columns={"wall_ms": "wall ms", "cpu_ms": "CPU ms"})
        lines.append("")
        lines.append(f"time per decision by bot\n{shown.to_string(index=False)}")
    if seats["config_id"].nunique() > 1:
        lines.append("")
        lines.append(_show(parts["config"], "by configuration"))
    return "\n".join(lines)


def read_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return a run's seats and games tables as pandas frames (consolidated, else its parts)."""
    seats = tables.read_table(run_dir, "seats").to_pandas()
    games = tables.read_table(run_dir, "games").to_pandas()
    return seats, games
