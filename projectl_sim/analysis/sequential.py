"""Precision on demand: intervals that stay valid however often a growing run looks at them.

``run --until-precision W`` plays games in batches and, after each batch, asks
``precision_check`` whether every requested interval is at most ``W`` wide. Looking after every
batch and stopping when the intervals look narrow enough breaks fixed-size intervals: a Wilson
interval checked after every batch misses the truth far more often than 5% of the time over the
whole run. So the intervals here are *confidence sequences*: with probability at least 95% they
hold the true value at every look at once, hence also at the look where the run stops, whatever
rule chose it (Ville's inequality), with no maximum number of looks or batch size fixed in
advance.

**The sequences.** The unit is the deal, in the order the runner played them (its rotations are
averaged: deals are independent and identically distributed, the games of one deal are not).

- Rates (win rates, the first player's rate) are means of deal values in [0, 1]: the predictable
  plug-in empirical-Bernstein sequence of Waudby-Smith and Ramdas (2024, "Estimating means of
  bounded random variables by betting", JRSS B, eq. 13-15), with the bets tuned for
  ``planned`` deals and shrinking after: ``lambda_i = min(1/2, sqrt(2 log(2/alpha) /
  (var_{i-1} * max(i, planned))))`` (any bets fixed before each deal keep it valid). Valid at
  every sample size for any distribution on [0, 1], and it narrows with the observed variance
  (a 90% head-to-head rate stops far sooner than a 50% one).
- Means (margin, rounds) have no bound: the two-sided normal-mixture boundary (Robbins 1970;
  Howard, Ramdas, McAuliffe and Sekhon 2021) ``sd * sqrt((n + rho) log((n + rho) / (rho
  alpha^2))) / n`` around the running mean with the running standard deviation plugged in,
  which is valid asymptotically (Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas 2024,
  "time-uniform central limit theory"); ``rho`` is tuned for ``planned`` deals. A mean counts
  as done only after ``MIN_DEALS`` deals, so a lucky first batch with no spread cannot stop it.
- A rate's sequence is intersected over its past values (still valid, never widening); a
  mean's is not (intersecting an asymptotic sequence carries its early errors forward).
- A difference of two configurations (``effects``) is the difference of their two sequences at
  ``alpha / 2`` each (a union bound).

``planned`` is chosen once from the request, never from the data: twice the deals at which a
fixed-size interval of a rate of 1/2 would reach the requested width (about where the sequence
gets there), or ``planned_deals``. The price of validity under optional stopping: a run stops
after about 1.6 (narrow targets) to 2 (wide ones) times the games a fixed-size plan for a rate
of 1/2 needs (simulated at a rate of 0.6), and a fixed-size plan has to know the variance in
advance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from projectl_sim.analysis.factors import CONFIG, comparisons_of
from projectl_sim.analysis.rows import finished_games, finished_seats
from projectl_sim.analysis.stats import Z95

__all__ = [
    "QUANTITIES",
    "PrecisionCheck",
    "default_planned_deals",
    "half_width",
    "mean_sequence",
    "precision_check",
    "rate_sequence",
    "tuned_rho",
]

# what a run can be asked to make precise: kind and how it is read
QUANTITIES = {
    "first_player": "rate",  # the first player's win rate, per configuration
    "win_rate": "rate",  # each bot's win rate, per configuration (mixed line-ups, solo)
    "margin": "mean",  # the winner's margin, per configuration
    "rounds": "mean",  # game length, per configuration
    "effects": "rate",  # first player's rate: each expansion set / switch minus its base
}

PRECISION_COLUMNS = [
    *CONFIG,
    "quantity",
    "bot",
    "against",
    "estimate",
    "ci_low",
    "ci_high",
    "width",
    "target",
    "done",
    "deals",
    "games",
]


MIN_DEALS = 10  # a mean's interval is not done before this many deals


def half_width(n: np.ndarray | float, sd: np.ndarray | float, rho: float, alpha: float = 0.05):
    """Return the normal-mixture boundary's half-width for a mean of ``n`` values (nan below 1)."""
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(sd) * np.sqrt((n + rho) * np.log((n + rho) / (rho * alpha**2))) / n
    return np.where(n >= 1, out, np.nan)


@lru_cache(maxsize=256)
def tuned_rho(deals: float, alpha: float = 0.05) -> float:
    """Return the mixture parameter that makes the boundary tightest at ``deals`` values."""
    from scipy.optimize import minimize_scalar  # here: a quarter second every summary would pay

    def boundary(log_rho: float) -> float:
        rho = math.exp(log_rho)
        return (deals + rho) * math.log((deals + rho) / (rho * alpha**2))

    best = minimize_scalar(boundary, bounds=(-10, math.log(deals) + 10), method="bounded")
    return float(math.exp(best.x))


def _shifted(x: np.ndarray, first: float) -> np.ndarray:
    """Return ``x`` moved one step along the last axis, ``first`` in front (the value before)."""
    return np.concatenate([np.full((*x.shape[:-1], 1), first), x[..., :-1]], axis=-1)


def _intersect(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the running intersection of the intervals over the last axis (nan: no bound)."""
    low = np.fmax.accumulate(low, axis=-1)
    high = np.fmin.accumulate(high, axis=-1)
    return low, high


def rate_sequence(
    values: np.ndarray, *, planned: float, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """Return the (low, high) after each value of the confidence sequence of a mean in [0, 1].

    ``values`` in the order observed (last axis; other axes are independent paths). The
    predictable plug-in empirical-Bernstein sequence, bets tuned for ``planned`` values and
    shrinking after them (module notes), intersected over time.
    """
    x = np.asarray(values, dtype=float)
    t = np.arange(1, x.shape[-1] + 1)
    mean = (0.5 + np.cumsum(x, axis=-1)) / (t + 1)
    var = (0.25 + np.cumsum((x - mean) ** 2, axis=-1)) / (t + 1)
    log_term = math.log(2 / alpha)
    bet = np.minimum(np.sqrt(2 * log_term / (_shifted(var, 0.25) * np.maximum(t, planned))), 0.5)
    spread = (x - _shifted(mean, 0.5)) ** 2
    penalty = np.cumsum(spread * (-np.log1p(-bet) - bet), axis=-1)
    total = np.cumsum(bet, axis=-1)
    centre = np.cumsum(bet * x, axis=-1) / total
    half = (log_term + penalty) / total
    return _intersect(np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1))


def mean_sequence(
    values: np.ndarray, *, planned: float, alpha: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """Return the (low, high) after each value of the asymptotic confidence sequence of a mean.

    The normal-mixture boundary tuned for ``planned`` values around the running mean, with the
    running standard deviation (nan bounds before two values).
    """
    x = np.asarray(values, dtype=float)
    t = np.arange(1, x.shape[-1] + 1)
    mean = np.cumsum(x, axis=-1) / t
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (np.cumsum(x**2, axis=-1) - t * mean**2) / (t - 1)
    sd = np.sqrt(np.clip(var, 0, None))
    h = half_width(t, sd, tuned_rho(float(planned), alpha), alpha)
    return mean - h, mean + h


def default_planned_deals(width: float) -> int:
    """Return the deals the sequences are tuned for by default: twice the deals at which a
    fixed-size interval of a rate of 1/2 is ``width`` wide (module notes)."""
    return 2 * max(1, math.ceil((2 * Z95 * 0.5 / width) ** 2))


@dataclass(frozen=True)
class PrecisionCheck:
    """The answer after a batch: stop or go on, why, and every requested interval."""

    stop: bool
    reason: str
    intervals: pd.DataFrame  # PRECISION_COLUMNS, one row per requested interval

    @property
    def widest(self) -> float:
        """Return how far the widest interval is above its target (<= 0: all done)."""
        t = self.intervals
        return float((t["width"] - t["target"]).max()) if len(t) else 0.0


def _deal_values(frame: pd.DataFrame, column: str) -> pd.Series:
    """Return the mean of ``column`` per deal (configuration and deal)."""
    return frame.groupby(["config_id", "deal"], sort=True)[column].mean()


def _values(
    seats: pd.DataFrame, games: pd.DataFrame, quantity: str
) -> dict[tuple[tuple[object, ...], str | None], np.ndarray]:
    """Return per (configuration, bot): the deal values of a quantity."""
    out: dict[tuple[tuple[object, ...], str | None], np.ndarray] = {}
    source = "first_player" if quantity == "effects" else quantity
    for key, g in games.groupby(CONFIG, sort=True, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        s = seats[seats["game_id"].isin(g["game_id"])]
        players = int(g["players"].iloc[0])
        if source in ("margin", "rounds"):
            out[(key, None)] = _deal_values(g, source).to_numpy(dtype=float)
        elif source == "first_player" and players > 1:
            first = s[s["turn_order"] == 0]
            out[(key, None)] = _deal_values(first, "win_share").to_numpy(dtype=float)
        elif source == "win_rate":
            bots = sorted(set(s["bot"]))
            if len(bots) < 2 and players > 1:
                continue
            for bot in bots:
                mine = s[s["bot"] == bot]
                per_game = mine.groupby(["config_id", "deal", "game_id"])["win_share"].mean()
                deal = per_game.groupby(level=[0, 1]).mean()
                out[(key, bot)] = deal.to_numpy(dtype=float)
    return out


def _interval(x: np.ndarray, kind: str, planned: float, alpha: float) -> tuple[float, float, float]:
    """Return the estimate and the sequence's current (low, high) of one quantity."""
    if len(x) == 0:
        return np.nan, np.nan, np.nan
    if kind == "rate":
        low, high = rate_sequence(x, planned=planned, alpha=alpha)
    else:
        low, high = mean_sequence(x, planned=planned, alpha=alpha)
        if len(x) < MIN_DEALS:  # a first batch with no spread is no evidence of precision
            return float(x.mean()), np.nan, np.nan
    return float(x.mean()), float(low[-1]), float(high[-1])


def precision_check(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    width: float,
    quantities: Sequence[str] = ("first_player",),
    widths: Mapping[str, float] | None = None,
    max_games: int | None = None,
    planned_deals: int | None = None,
    alpha: float = 0.05,
) -> PrecisionCheck:
    """Return whether a growing run can stop: every requested interval at most its target wide.

    ``quantities`` are names from ``QUANTITIES``; each is computed per configuration (and bot,
    or per comparison for ``effects``) as an anytime-valid 95% confidence sequence (module
    notes). ``width`` is the target full width (high - low) of the rates; ``widths`` sets
    another per quantity (``{"margin": 2.0}``: two points; means need their own, in their
    units). The run stops when every interval is done, or when every configuration has played
    ``max_games`` games (``reason`` says which); a configuration without finished games keeps
    it going. ``planned_deals`` tunes the sequences (default: from ``width``, see the notes); the
    runner must pass the same arguments after every batch.
    """
    unknown = sorted(set(quantities) - set(QUANTITIES))
    if unknown:
        raise ValueError(f"unknown quantities {unknown}: use {', '.join(QUANTITIES)}")
    if width <= 0:
        raise ValueError(f"width must be > 0, got {width}")
    targets = dict.fromkeys(quantities, width) | dict(widths or {})
    for q in quantities:
        if QUANTITIES[q] == "mean" and q not in (widths or {}):
            raise ValueError(f"{q} is a mean in its own units: give widths={{{q!r}: ...}}")
    planned = float(planned_deals or default_planned_deals(width))
    ok_games = finished_games(games)
    ok_seats = finished_seats(seats)
    rows = []
    for q in quantities:
        values = _values(ok_seats, ok_games, q)
        if q == "effects":
            present = sorted({key for key, _ in values}, key=str)
            for _factor, _level, against, key, base in comparisons_of(present):
                a, b = values[(key, None)], values[(base, None)]
                ea, la, ha = _interval(a, "rate", planned, alpha / 2)
                eb, lb, hb = _interval(b, "rate", planned, alpha / 2)
                rows.append(
                    dict(zip(CONFIG, key, strict=True))
                    | {"quantity": q, "bot": None, "against": against}
                    | {"estimate": ea - eb, "ci_low": la - hb, "ci_high": ha - lb}
                    | {"deals": min(len(a), len(b)), "target": targets[q]}
                )
            continue
        for (key, bot), x in sorted(values.items(), key=lambda kv: str(kv[0])):
            est, low, high = _interval(x, QUANTITIES[q], planned, alpha)
            rows.append(
                dict(zip(CONFIG, key, strict=True))
                | {"quantity": q, "bot": bot, "against": None}
                | {"estimate": est, "ci_low": low, "ci_high": high}
                | {"deals": len(x), "target": targets[q]}
            )
    table = pd.DataFrame(rows, columns=[c for c in PRECISION_COLUMNS if c != "games"])
    counts = ok_games.groupby(CONFIG, observed=True).size()
    table["games"] = [int(counts.get(tuple(r[c] for c in CONFIG), 0)) for _, r in table.iterrows()]
    table["width"] = table["ci_high"] - table["ci_low"]
    table["done"] = table["width"] <= table["target"]
    table = table[PRECISION_COLUMNS]
    played = games.groupby(CONFIG, observed=True).size()
    if max_games is not None and len(played) and int(played.min()) >= max_games:
        reason = f"maximum of {max_games} games per configuration reached"
        if not table.empty and table["done"].all():
            reason = f"every interval at most its target wide ({reason} too)"
        return PrecisionCheck(True, reason, table)
    if table.empty:
        return PrecisionCheck(False, "no finished game to measure yet", table)
    if table["done"].all():
        return PrecisionCheck(True, "every interval at most its target wide", table)
    left = int((~table["done"]).sum())
    return PrecisionCheck(False, f"{left} of {len(table)} intervals still too wide", table)
