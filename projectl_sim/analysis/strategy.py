"""Strategy insight: which puzzles are taken and completed, points per action, Finishing Touches,
Credits (Finesse), the solo variant by difficulty, and the mix of pieces placed over a game.

Per-puzzle figures read the seat columns ``puzzles_completed`` and ``puzzles_unfinished`` (space
separated puzzle ids, null when none). A puzzle a seat took either ends in its victory pile or
unfinished, so *taken* = completed + unfinished. Tables written before those columns existed hold
only nulls there: ``puzzle_stats`` then returns an empty table.

*Actions spent* are the Play-phase actions a seat chose (take, recycle, take_basic, upgrade,
place, master): reward choices and Finishing Touches are answers, not actions of a turn. Master
counts as one action however many pieces it places.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.outcomes import win_rates
from projectl_sim.analysis.rows import finished_games, finished_seats, game_labels
from projectl_sim.analysis.stats import mean_interval

PLAY_ACTIONS = ("take", "recycle", "take_basic", "upgrade", "place", "master")
# The seat columns of the Finesse expansion (Credits), when a run plays it.
CREDIT_COLUMNS = (
    "credits_final",
    "credits_earned",
    "credits_spent",
    "inserts",
    "finishing_credits",
)

PUZZLE_COLUMNS = [
    "puzzle",
    "taken",
    "completed",
    "unfinished",
    "completion_rate",
    "taken_per_game",
    "taken_by_winners",
    "winner_share",
]


def _ids(column: pd.Series) -> pd.Series:
    return column.fillna("").str.split()


def puzzle_stats(seats: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Return per puzzle (and group ``by``): times taken, completed, left unfinished, and rates.

    ``completion_rate`` = completed / taken; ``taken_per_game`` = taken / finished games of the
    group; ``winner_share`` = the share of its takes made by seats that won (shares counted).
    """
    by = list(by)
    columns = [*by, *PUZZLE_COLUMNS]
    names = ["puzzles_completed", "puzzles_unfinished"]
    if any(c not in seats for c in names) or seats[names].isna().all().all():
        return pd.DataFrame(columns=columns)  # tables from before the columns existed
    ok = finished_seats(seats)
    if ok.empty:
        return pd.DataFrame(columns=columns)
    parts = []
    for state, column in (("completed", "puzzles_completed"), ("unfinished", "puzzles_unfinished")):
        long = ok[[*by, "win_share"]].assign(puzzle=_ids(ok[column])).explode("puzzle")
        long = long[long["puzzle"].notna()]
        parts.append(long.assign(state=state))
    long = pd.concat(parts, ignore_index=True)
    ok = ok.assign(_game=game_labels(ok))
    games = ok.groupby(by, observed=True)["_game"].nunique() if by else ok["_game"].nunique()
    if long.empty:
        return pd.DataFrame(columns=columns)
    out = (
        long.groupby([*by, "puzzle"], sort=True, observed=True)
        .agg(
            taken=("state", "size"),
            completed=("state", lambda s: int((s == "completed").sum())),
            taken_by_winners=("win_share", "sum"),
        )
        .reset_index()
    )
    out["unfinished"] = out["taken"] - out["completed"]
    out["completion_rate"] = out["completed"] / out["taken"]
    if by:
        out = out.merge(games.rename("n_games").reset_index(), on=by)
    else:
        out["n_games"] = games
    out["taken_per_game"] = out["taken"] / out["n_games"]
    out["winner_share"] = out["taken_by_winners"] / out["taken"]
    return out[columns]


def points_per_action(seats: pd.DataFrame, by: Sequence[str] = ("players", "bot")) -> pd.DataFrame:
    """Return per group the mean over seats of score points per action spent, with its interval.

    ``points`` is the final score (after the unfinished penalty and Finishing Touches); a seat
    that spent no action is left out.
    """
    by = list(by)
    ok = finished_seats(seats)
    actions = ok[[f"actions_{k}" for k in PLAY_ACTIONS]].sum(axis=1)
    ok = ok.assign(actions=actions, ppa=ok["score"] / actions.where(actions > 0))
    rows = []
    for key, group in ok.groupby(by, sort=True, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        mean, low, high = mean_interval(group["ppa"])
        rows.append(
            dict(zip(by, key, strict=True))
            | {
                "seats": int(group["ppa"].notna().sum()),
                "actions_mean": group["actions"].mean(),
                "points_per_action": mean,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(
        rows, columns=[*by, "seats", "actions_mean", "points_per_action", "ci_low", "ci_high"]
    )


def action_mix(seats: pd.DataFrame, by: Sequence[str] = ("players", "bot")) -> pd.DataFrame:
    """Return per group the mean share of each Play-phase action kind among a seat's actions."""
    by = list(by)
    ok = finished_seats(seats)
    counts = ok[[f"actions_{k}" for k in PLAY_ACTIONS]].astype(float)
    total = counts.sum(axis=1).replace(0, np.nan)
    shares = counts.div(total, axis=0)
    shares.columns = list(PLAY_ACTIONS)
    shares[by] = ok[by]
    return shares.groupby(by, sort=True, observed=True)[list(PLAY_ACTIONS)].mean().reset_index()


def finishing_touches(
    seats: pd.DataFrame, games: pd.DataFrame, by: Sequence[str] = ("players", "bot")
) -> pd.DataFrame:
    """Return per group: how often Finishing Touches placed pieces, how many, and what was left.

    ``used_share``: seats that placed at least one piece in Finishing Touches; ``pieces_mean``:
    pieces placed (each costs a point); ``unfinished_mean`` and ``penalty_mean``: puzzles still
    unfinished after them and the points they cost. Only games ended by the rules count: a
    truncated game is scored without Finishing Touches.
    """
    by = list(by)
    columns = [*by, "seats", "used_share", "pieces_mean", "unfinished_mean", "penalty_mean"]
    ended = finished_games(games)
    ended = game_labels(ended[ended["end_reason"] == "rules"])
    ok = finished_seats(seats)
    ok = ok[np.isin(game_labels(ok), ended)]
    if ok.empty:
        return pd.DataFrame(columns=columns)
    out = (
        ok.assign(used=ok["finishing_pieces"] > 0)
        .groupby(by, sort=True, observed=True)
        .agg(
            seats=("used", "size"),
            used_share=("used", "mean"),
            pieces_mean=("finishing_pieces", "mean"),
            unfinished_mean=("unfinished", "mean"),
            penalty_mean=("unfinished_penalty", "mean"),
        )
        .reset_index()
    )
    return out[columns]


def has_credits(seats: pd.DataFrame) -> bool:
    """Return whether the table holds Finesse Credits columns with any value."""
    return all(c in seats for c in CREDIT_COLUMNS) and bool(
        seats[list(CREDIT_COLUMNS)].notna().any().any()
    )


def credits(seats: pd.DataFrame, by: Sequence[str] = ("players", "bot")) -> pd.DataFrame:
    """Return per group the mean Credits earned, spent and kept, inserts and Finishing Credits.

    Empty (with its columns) when the run did not play Finesse: the columns are absent or null.
    Also the win rate, to set the economy against results.
    """
    by = list(by)
    means = [f"{c}_mean" for c in CREDIT_COLUMNS]
    columns = [*by, "seats", *means, "spent_share", "win_rate"]
    if not has_credits(seats):
        return pd.DataFrame(columns=columns)
    ok = finished_seats(seats)
    ok = ok[ok[list(CREDIT_COLUMNS)].notna().any(axis=1)]
    if ok.empty:
        return pd.DataFrame(columns=columns)
    data = ok[[*by, "win_share"]].copy()
    for c in CREDIT_COLUMNS:
        data[c] = ok[c].astype(float)
    out = data.groupby(by, sort=True, observed=True).agg(
        seats=("win_share", "size"),
        win_rate=("win_share", "mean"),
        **{f"{c}_mean": (c, "mean") for c in CREDIT_COLUMNS},
    )
    out = out.reset_index()
    earned = out["credits_earned_mean"].replace(0, np.nan)
    out["spent_share"] = out["credits_spent_mean"] / earned
    return out[columns]


def credit_use(seats: pd.DataFrame) -> pd.DataFrame:
    """Return the seat rows' Credits columns in long form (bot, measure, value) for plotting."""
    if not has_credits(seats):
        return pd.DataFrame(columns=["players", "bot", "measure", "value"])
    ok = finished_seats(seats)
    long = ok.melt(id_vars=["players", "bot"], value_vars=list(CREDIT_COLUMNS), var_name="measure")
    long = long[long["value"].notna()]
    return long.assign(value=long["value"].astype(float)).reset_index(drop=True)


def difficulty_of(switches: str) -> str | None:
    """Return the solo difficulty named in a ``switches`` cell, or None."""
    found = re.search(r"(?:^|,)difficulty=([^,]+)", switches or "")
    return found.group(1) if found else None


def solo_by_difficulty(seats: pd.DataFrame, games: pd.DataFrame | None = None) -> pd.DataFrame:
    """Return the solo win rate against the mastermind per difficulty and bot, with intervals.

    With ``games``, also the mean margin (the player's score minus the mastermind's) and the
    mean score of the mastermind. Difficulties are ordered normal, hard, unbeatable.
    """
    from projectl_sim.rules import DIFFICULTIES

    columns = ["difficulty", "bot", "played", "wins", "win_rate", "ci_low", "ci_high", "mean_score"]
    solo = seats[seats["variant"] == "solo"]
    if solo.empty:
        return pd.DataFrame(columns=[*columns, "margin_mean", "opponent_score_mean"])
    solo = solo.assign(difficulty=solo["switches"].map(difficulty_of).fillna("normal"))
    out = win_rates(solo, ["difficulty", "bot"])
    if games is not None:
        g = finished_games(games[games["variant"] == "solo"])
        g = g.assign(difficulty=g["switches"].map(difficulty_of).fillna("normal"))
        g = g.assign(bot=g["seats"])
        extra = (
            g.groupby(["difficulty", "bot"])
            .agg(margin_mean=("margin", "mean"), opponent_score_mean=("opponent_score", "mean"))
            .reset_index()
        )
        out = out.merge(extra, on=["difficulty", "bot"], how="left")
    level = (
        out["difficulty"].map({d: i for i, d in enumerate(DIFFICULTIES)}).fillna(len(DIFFICULTIES))
    )
    out = out.assign(level=level).sort_values(["level", "bot"], ignore_index=True)
    return out.drop(columns="level")


def piece_mix(records: Iterable[Mapping[str, Any]], bins: int = 5) -> pd.DataFrame:
    """Return how the pieces placed spread over a game: per stage (1..bins) and piece, the count.

    Read from game records (a run keeps them with ``--records``): each placement (Place, Master,
    Finish) is put in the stage of the game it happened in, by its position among the record's
    actions. ``share`` is the piece's share of the stage's placements.
    """
    counts: Counter[tuple[int, str]] = Counter()
    for record in records:
        actions = record.get("actions", [])
        total = len(actions)
        for i, action in enumerate(actions):
            kind = action.get("type")
            if kind == "place":
                pieces = [action["piece"]]
            elif kind in ("master", "finish"):
                pieces = [p["piece"] for p in action.get("placements", [])]
            else:
                continue
            stage = min(bins, 1 + i * bins // max(total, 1))
            for piece in pieces:
                counts[stage, piece] += 1
    if not counts:
        return pd.DataFrame(columns=["stage", "piece", "placements", "share"])
    out = pd.DataFrame(
        [(stage, piece, n) for (stage, piece), n in counts.items()],
        columns=["stage", "piece", "placements"],
    ).sort_values(["stage", "piece"], ignore_index=True)
    out["share"] = out["placements"] / out.groupby("stage")["placements"].transform("sum")
    return out


def puzzle_value(atlas: pd.DataFrame, stats: pd.DataFrame) -> pd.DataFrame:
    """Return the atlas rows joined with how often each puzzle was taken and completed.

    ``atlas`` is ``tiling.atlas.atlas_table``; ``stats`` is ``puzzle_stats`` (no groups).
    Adds ``points_per_action``: points over the atlas' estimated actions to complete the puzzle
    alone from the starting supply. Puzzles never taken get 0 takes.
    """
    merged = atlas.merge(stats, left_on="id", right_on="puzzle", how="left")
    for column in ("taken", "completed", "unfinished", "taken_per_game"):
        if column in merged:
            merged[column] = merged[column].fillna(0)
    merged["points_per_action"] = merged["points"] / merged["total_actions"].astype(float)
    return merged.drop(columns=["puzzle", "rows"], errors="ignore")
