"""What each expansion set and each rules switch changes against the base game.

A *comparison* sets one configuration against the configuration that differs from it in one
factor only, at the same player count, variant and line-up:

- ``factor = "expansions"``: an expansion set (``level``, e.g. ``ghost_piece+phoenix``) against
  the base game (``against = "none"``) with the same rules switches;
- ``factor = "switch"``: one changed switch (``level``, e.g. ``tie_break=score_only``) against
  the same switches without it (``against``, ``default`` when it was the only one) with the same
  expansions. A solo configuration always names its difficulty, so its difficulty is a switch
  compared only where the run holds a configuration without it.

Per comparison and metric: the first player's win rate (``first_player_rate``), the winner's
margin (``margin``; in solo, the seat's score minus the mastermind's), the game length
(``rounds``) and each bot's win rate (``win_rate`` with ``bot`` set; only where the line-up has
two different bots, or in solo where it is the answer). Rates take Newcombe's interval, means
Welch's (``stats``), both on deals as independent clusters: different configurations have
different seed children in the runner, so the two samples are independent and unpaired (two
runs on shared deals are compared paired by ``compare``). ``significant``: the 95% interval
leaves out 0. ``p_value`` is the matching two-sided test (z on the pooled rate; Welch's t for
means); ``q_value`` is Benjamini-Hochberg's adjustment over every row of the table, so a flag
with a small ``q_value`` survives the many comparisons a 48-configuration run makes. ``mde`` is
the minimum detectable effect at 80% power and ``games_needed`` the games per configuration for
the interval half-width asked (``power``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from projectl_sim.analysis import distributions as distribution
from projectl_sim.analysis.power import (
    games_needed,
    minimum_detectable_effect,
    rate_difference_se,
)
from projectl_sim.analysis.stats import (
    clustered_mean,
    clustered_rate,
    deal_labels,
    diff_clustered_means,
    diff_clustered_rates,
    finished_games,
    finished_seats,
    game_keys,
    welch,
    welch_p_value,
)

__all__ = ["EFFECT_COLUMNS", "HALF_WIDTHS", "benjamini_hochberg", "effects"]

CONFIG = ["players", "variant", "expansions", "switches", "lineup"]
SAME = ["players", "variant", "lineup"]  # what a comparison never changes

# metric -> kind; the order rows come in
METRICS = {"first_player_rate": "rate", "win_rate": "rate", "margin": "mean", "rounds": "mean"}

# the interval half-widths ``games_needed`` sizes for, per metric (rates: 5 points; means: one
# point of margin, one round)
HALF_WIDTHS: dict[str, float] = {
    "first_player_rate": 0.05,
    "win_rate": 0.05,
    "margin": 1.0,
    "rounds": 1.0,
}

EFFECT_COLUMNS = [
    *SAME,
    "factor",
    "level",
    "against",
    "expansions",
    "switches",
    "metric",
    "bot",
    "kind",
    "base",
    "value",
    "diff",
    "ci_low",
    "ci_high",
    "significant",
    "p_value",
    "q_value",
    "mde",
    "games_base",
    "games",
    "half_width",
    "games_needed",
]


def _observations(
    seats: pd.DataFrame, games: pd.DataFrame
) -> dict[tuple[object, ...], dict[tuple[str, str | None], tuple[np.ndarray, object]]]:
    """Return per configuration, per (metric, bot): one value per game and the games' deals."""
    out: dict[tuple[object, ...], dict[tuple[str, str | None], tuple[np.ndarray, object]]] = {}
    seats_by = {k: g for k, g in seats.groupby(CONFIG, sort=True, observed=True)}
    for key, g in games.groupby(CONFIG, sort=True, observed=True):
        s = seats_by.get(key, seats.iloc[0:0])
        values: dict[tuple[str, str | None], tuple[np.ndarray, object]] = {}
        deals = deal_labels(g)
        players = int(g["players"].iloc[0])
        values[("margin", None)] = (g["margin"].to_numpy(dtype=float), deals)
        values[("rounds", None)] = (g["rounds"].to_numpy(dtype=float), deals)
        if players > 1:
            first = s[s["turn_order"] == 0]
            values[("first_player_rate", None)] = (
                first["win_share"].to_numpy(dtype=float),
                deal_labels(first),
            )
        bots = sorted(set(s["bot"]))
        if len(bots) > 1 or players == 1:
            keys = game_keys(s)
            per_game = s.groupby([*keys, "bot"], sort=True)["win_share"].mean().unstack()
            deal_of = s.drop_duplicates(keys).set_index(keys)
            labels = deal_labels(deal_of.loc[per_game.index].reset_index())
            for bot in bots:
                values[("win_rate", bot)] = (per_game[bot].to_numpy(dtype=float), labels)
        out[key if isinstance(key, tuple) else (key,)] = values
    return out


def _comparisons(keys: list[tuple[object, ...]]) -> list[tuple[str, str, str, tuple, tuple]]:
    """Return (factor, level, against, key, base key) for every one-factor comparison."""
    present = set(keys)
    i_exp, i_sw = CONFIG.index("expansions"), CONFIG.index("switches")
    out = []
    for key in keys:
        expansions, switches = str(key[i_exp]), str(key[i_sw])
        if expansions != "none":
            base = list(key)
            base[i_exp] = "none"
            if tuple(base) in present:
                out.append(("expansions", expansions, "none", key, tuple(base)))
        if switches != "default":
            items = switches.split(",")
            for item in items:
                rest = ",".join(i for i in items if i != item) or "default"
                base = list(key)
                base[i_sw] = rest
                if tuple(base) in present:
                    out.append(("switch", item, rest, key, tuple(base)))
    return out


def benjamini_hochberg(p_values: np.ndarray | pd.Series) -> np.ndarray:
    """Return Benjamini-Hochberg adjusted p-values (q-values); nan stays nan."""
    p = np.asarray(p_values, dtype=float)
    q = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return q
    order = np.argsort(p[ok])
    ranked = p[ok][order] * m / np.arange(1, m + 1)
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]  # monotone from the largest p down
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(ranked, 1.0)
    q[ok] = adjusted
    return q


def _design_effect(values: np.ndarray, deals: object) -> float:
    """Return the variance of a mean over deals against independent games (at least 1)."""
    _, se, n, _ = clustered_mean(values, deals)
    sd = float(np.nanstd(values, ddof=1)) if n > 1 else np.nan
    if not (sd > 0) or np.isnan(se):
        return 1.0
    return max(1.0, se**2 * n / sd**2)


def _compare(
    kind: str, a: tuple[np.ndarray, object], b: tuple[np.ndarray, object], half_width: float
) -> dict[str, object]:
    """Return the effect of sample ``a`` against sample ``b`` (``base``) with its power figures."""
    (va, da), (vb, db) = a, b
    row: dict[str, object] = {
        "games": int(np.sum(~np.isnan(va))),
        "games_base": int(np.sum(~np.isnan(vb))),
        "half_width": half_width,
    }
    deff = max(_design_effect(va, da), _design_effect(vb, db))
    if kind == "rate":
        pa_, _, _, na = clustered_rate(va, da)
        pb, _, _, nb = clustered_rate(vb, db)
        d, low, high = diff_clustered_rates(va, da, vb, db)
        pooled = (pa_ * na + pb * nb) / (na + nb) if na + nb > 0 else np.nan
        se0 = rate_difference_se(pooled, na, nb)
        # the MDE at the pooled rate shrunk towards 1/2 (Agresti-Coull): never 0 at 0 wins
        se_mde = rate_difference_se((pa_ * na + pb * nb + 2) / (na + nb + 4), na, nb)
        if not np.isfinite(se0):
            p_value = np.nan
        elif se0 == 0:  # both rates 0, or both 1
            p_value = 1.0
        else:
            p_value = float(2 * distribution.norm_sf(abs(d) / se0))
        shrunk = (pa_ * na + pb * nb + 2) / (na + nb + 4)  # as for the MDE: 0 wins is no proof
        needed = games_needed(half_width, p=float(shrunk), difference=True)
        row |= {"base": pb, "value": pa_, "mde": minimum_detectable_effect(se_mde)}
    else:
        d, low, high = diff_clustered_means(va, da, vb, db)
        _, se, df = welch(va, da, vb, db)
        p_value = welch_p_value(d, se, df)
        sd = float(np.sqrt((np.nanvar(va, ddof=1) + np.nanvar(vb, ddof=1)) / 2))
        needed = games_needed(half_width, sd=sd, difference=True) if np.isfinite(sd) else None
        row |= {
            "base": float(np.nanmean(vb)),
            "value": float(np.nanmean(va)),
            "mde": minimum_detectable_effect(se, df=df),
        }
    if needed is not None:
        needed = int(np.ceil(needed * deff))
    significant = bool(np.isfinite(low) and np.isfinite(high) and (low > 0 or high < 0))
    return row | {
        "diff": d,
        "ci_low": low,
        "ci_high": high,
        "significant": significant,
        "p_value": p_value,
        "games_needed": needed,
    }


def effects(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    half_widths: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Return every expansion set's and rules switch's effect against the base game.

    One row per comparison and metric (see the module notes): the base and compared values, the
    difference (compared - base) with its 95% interval, ``significant``, ``p_value``,
    ``q_value``, the minimum detectable effect ``mde`` (80% power, 5% level) at these sample
    sizes, and ``games_needed`` per configuration for an interval of ``half_width`` (rates: at
    the pooled rate shrunk as ``(x + 2) / (n + 4)``, so a rate seen at 0 or 1 is not taken as
    certain)
    (``half_widths`` per metric, default ``HALF_WIDTHS``). Assumes independent deals; failed
    games are left out. Empty when no configuration has its base game in the run.
    """
    widths = HALF_WIDTHS | dict(half_widths or {})
    ok_games = finished_games(games)
    ok_seats = finished_seats(seats)
    if ok_games.empty:
        return pd.DataFrame(columns=EFFECT_COLUMNS)
    obs = _observations(ok_seats, ok_games)
    rows = []
    for factor, level, against, key, base_key in _comparisons(sorted(obs, key=str)):
        where = dict(zip(CONFIG, key, strict=True))
        a, b = obs[key], obs[base_key]
        for metric, kind in METRICS.items():
            for m, bot in sorted((k for k in a if k[0] == metric), key=str):
                if (m, bot) not in b:
                    continue
                row = _compare(kind, a[(m, bot)], b[(m, bot)], widths[metric])
                rows.append(
                    {c: where[c] for c in SAME}
                    | {
                        "factor": factor,
                        "level": level,
                        "against": against,
                        "expansions": where["expansions"],
                        "switches": where["switches"],
                        "metric": metric,
                        "bot": bot,
                        "kind": kind,
                    }
                    | row
                )
    if not rows:
        return pd.DataFrame(columns=EFFECT_COLUMNS)
    out = pd.DataFrame(rows)
    out["q_value"] = benjamini_hochberg(out["p_value"])
    out["games_needed"] = out["games_needed"].astype("Int64")
    return out[EFFECT_COLUMNS]
