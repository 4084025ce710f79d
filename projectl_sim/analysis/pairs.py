"""Games paired on shared deals: which games of two configurations are pairs, and their values.

A run's configurations at one player count and variant play the same deal seeds (the runner's
``shared-deals`` scheme), and so do two runs with the same root seed and grid. A game of one
configuration and a game of another are a *pair* when they have the same seed and the same bots
in the same seats. Whether a pair was dealt the same cards depends on what differs: a rules switch
or a rule parameter, a line-up, Finesse's tiles (dealt after the table) leave the table a seed
deals as it is; a puzzle set (Ghost Piece, Ambassador Pack, Phoenix) adds puzzles to the decks,
so the same seed deals other decks and the two games are compared as independent samples
(``deals_differ`` says why).

Their difference and its interval are ``stats.paired``'s (``paired_difference``).
"""

from __future__ import annotations

import pandas as pd

from projectl_sim.analysis.rows import CONFIG, finished_games, finished_seats, game_keys
from projectl_sim.catalogue import EXPANSIONS as PUZZLE_SETS

__all__ = [
    "PAIR_KEYS",
    "deals_differ",
    "expansion_title",
    "game_values",
    "metric_columns",
    "metric_kind",
]

PAIR_KEYS = ["seed", "seats"]  # a game of A and a game of B with these equal are a pair


def expansion_title(name: str) -> str:
    """Return an expansion set in words: ``ghost_piece+phoenix`` -> ``Ghost Piece + Phoenix``."""
    if name in ("none", ""):
        return "the base game"
    return " + ".join(part.replace("_", " ").title() for part in str(name).split("+"))


def deals_differ(expansions_a: str, expansions_b: str) -> str | None:
    """Return why one seed deals other cards in the two expansion sets, or None when it deals
    the same table (the sets differ in no puzzle set)."""
    a, b = set(str(expansions_a).split("+")), set(str(expansions_b).split("+"))
    sets = [name for name in PUZZLE_SETS if name in a ^ b]
    if not sets:
        return None
    names = " and ".join(expansion_title(n) for n in sets)
    return f"{names} add{'s' if len(sets) == 1 else ''} puzzles: one seed deals other decks"


def game_values(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Return one row per finished game: its keys and every metric (``win_rate:BOT`` columns).

    Metrics: ``margin``, ``rounds``, ``first_player_rate`` (the first player's win share; two or
    more seats) and ``win_rate:BOT`` (a bot's mean win share in the game; games seating two
    different bots, or solo). Several runs' tables keep their ``run`` column.
    """
    ok_games = finished_games(games)
    ok_seats = finished_seats(seats)
    index = game_keys(ok_games)
    keys = [*index, "config_id", "seed", "seats", *CONFIG]
    keys += [c for c in ("deal", "rotation", "replicate") if c in ok_games]
    out = ok_games[keys].copy()
    out["margin"] = ok_games["margin"].astype(float)
    out["rounds"] = ok_games["rounds"].astype(float)
    out = out.set_index(index)
    first = ok_seats[(ok_seats["turn_order"] == 0) & (ok_seats["players"] > 1)]
    out["first_player_rate"] = first.set_index(index)["win_share"]
    per_bot = ok_seats.groupby([*index, "bot"])["win_share"].mean().unstack()
    mixed = ok_seats.groupby(index)["bot"].nunique()
    solo = ok_seats.groupby(index)["players"].first() == 1
    keep = mixed.index[(mixed > 1) | solo]
    for bot in per_bot.columns:
        out[f"win_rate:{bot}"] = per_bot.loc[per_bot.index.isin(keep), bot]
    return out.reset_index()


def metric_columns(values: pd.DataFrame) -> list[str]:
    """Return the metrics of a ``game_values`` table with a value, in reading order."""
    named = ["first_player_rate", "margin", "rounds", *sorted(c for c in values if ":" in c)]
    return [m for m in named if m in values and values[m].notna().any()]


def metric_kind(metric: str) -> str:
    """Return ``rate`` or ``mean``: how a metric's values are summarised."""
    return "rate" if metric == "first_player_rate" or metric.startswith("win_rate") else "mean"
