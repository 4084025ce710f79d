"""Games paired on shared deals: which games of two configurations are pairs, and their difference.

A run's configurations at one player count and variant play the same deal seeds (the runner's
``shared-deals`` scheme), and so do two runs with the same root seed and grid. A game of one
configuration and a game of another are a *pair* when they have the same seed and the same bots
in the same seats. Whether a pair was dealt the same cards depends on what differs: a rules switch
or a rule parameter, a line-up, Finesse's tiles (dealt after the table) leave the table a seed
deals as it is; a puzzle set (Ghost Piece, Ambassador Pack, Phoenix) adds puzzles to the decks,
so the same seed deals other decks and the two games are compared as independent samples
(``deals_differ`` says why).

Per pair of configurations and metric the difference B - A of each pair's values is averaged; its
95% interval is Student's t on the cluster-robust standard error with the deal (seed) as the
cluster (rotations of one deal share it), ``clusters - 1`` degrees of freedom: it assumes
independent deals and nothing about the shape of the values. When every deal gives a rate the
same difference (all pairs agree), the interval is that difference plus or minus the Wilson upper
limit of 0 in C deals, not zero wide. The minimum detectable effect of a paired difference is
2.80 of its standard errors (t quantiles), and the games an interval of half-width h needs scale
the pairs played by ``(t se / h)^2``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from projectl_sim.analysis import distributions as distribution
from projectl_sim.analysis.power import minimum_detectable_effect
from projectl_sim.analysis.stats import clustered_mean, finished_games, finished_seats, game_keys
from projectl_sim.catalogue import EXPANSIONS as PUZZLE_SETS
from projectl_sim.sim.summary import wilson

__all__ = [
    "PAIR_KEYS",
    "deals_differ",
    "expansion_title",
    "game_values",
    "metric_columns",
    "metric_kind",
    "paired_difference",
    "paired_games_needed",
]

PAIR_KEYS = ["seed", "seats"]  # a game of A and a game of B with these equal are a pair
_CONFIG = ["players", "variant", "expansions", "switches", "lineup"]


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
    keys = [*index, "config_id", "seed", "seats", *_CONFIG]
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


def paired_difference(
    a: np.ndarray, b: np.ndarray, deals: np.ndarray, kind: str
) -> dict[str, float | int] | None:
    """Return the mean difference ``b - a`` of paired values and its 95% paired interval.

    ``deals`` is each pair's deal (its seed: the cluster). Keys: ``diff``, ``ci_low``,
    ``ci_high``, ``p_value``, ``se`` (cluster-robust), ``df``, ``pairs``, ``deals``, ``mde``
    (80% power, 5% level) and ``value_a`` / ``value_b`` (the means over the pairs). None when
    no pair has both values.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    if not both.any():
        return None
    a, b = a[both], b[both]
    d, se, _, clusters = clustered_mean(b - a, np.asarray(deals)[both])
    df = float(clusters - 1) if clusters > 1 else np.nan
    if np.isfinite(se) and se > 0:
        q = float(distribution.t_ppf(0.975, df))
        half = q * se
        p_value = float(2 * distribution.t_sf(abs(d) / se, df))
    elif np.isfinite(se):  # every pair the same difference
        # a rate: no deal differed from the others, which C deals bound only to the Wilson
        # upper limit of 0 in C (about 3.8 / C), not to zero
        half = float(wilson(0, clusters)[1]) if kind == "rate" else 0.0
        q = float(distribution.t_ppf(0.975, df))
        se = half / q
        p_value = 1.0 if d == 0 else 0.0
    else:
        half, p_value = np.nan, np.nan
    return {
        "value_a": float(a.mean()),
        "value_b": float(b.mean()),
        "diff": d,
        "ci_low": d - half,
        "ci_high": d + half,
        "p_value": p_value,
        "se": se,
        "df": df,
        "pairs": int(both.sum()),
        "deals": int(clusters),
        "mde": minimum_detectable_effect(se, df=df) if np.isfinite(df) else np.nan,
    }


def paired_games_needed(pairs: int, se: float, df: float, half_width: float) -> int | None:
    """Return the games per configuration a paired interval of ``half_width`` needs: the pairs
    played, scaled by how far the interval's half-width is from it (its variance per pair)."""
    if not (np.isfinite(se) and np.isfinite(df)) or se <= 0 or pairs <= 0:
        return None
    half = float(distribution.t_ppf(0.975, df)) * se
    return max(1, math.ceil(pairs * (half / half_width) ** 2))
