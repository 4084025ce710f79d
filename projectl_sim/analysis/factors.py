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
two different bots, or in solo where it is the answer).

*Paired where the deals are shared.* A run's configurations at one player count and variant play
the same deal seeds (``sim.spec``, scheme ``shared-deals``): a switch, a rule parameter or
Finesse (its tiles are dealt after the table) is then measured on pairs of games, the same seed
and the same bots in the same seats, and the luck of the deal cancels out of the difference
(``pairs``: paired t on deals as clusters). ``paired`` says which; ``width_unpaired`` is the width
the same games would give compared as independent samples, so ``width_unpaired / (ci_high -
ci_low)`` is what the pairing bought. A comparison whose configurations share no seed (a run made
before the scheme) or whose seeds deal other decks (a puzzle set: ``deals``, e.g. "Ghost Piece
adds puzzles: one seed deals other decks") is unpaired: Newcombe's interval for rates, Welch's for
means (``stats``), both on deals as independent clusters.

``significant``: the 95% interval leaves out 0. ``p_value`` is the matching two-sided test
(paired t; unpaired: z on the pooled rate, Welch's t for means); ``q_value`` is
Benjamini-Hochberg's adjustment over every row of the table, so a flag with a small ``q_value``
survives the many comparisons a 48-configuration run makes. ``mde`` is the minimum detectable
*difference* between the two configurations at 80% power (``power``; paired: 2.80 standard errors
of the paired difference), and ``games_needed`` the games per configuration for an interval of
the difference of the half-width asked.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from projectl_sim.analysis.measurable import mark_unmeasured
from projectl_sim.analysis.pairs import PAIR_KEYS, deals_differ, game_values, metric_columns
from projectl_sim.analysis.rows import CONFIG, RUN, deal_labels, finished_games, finished_seats
from projectl_sim.analysis.stats import (
    clustered_rate,
    design_effect,
    diff_clustered_means,
    diff_clustered_rates,
    games_needed,
    minimum_detectable_effect,
    paired_difference,
    paired_games_needed,
    q_values,
    rate_difference_p_value,
    rate_difference_se,
    welch,
    welch_p_value,
)

__all__ = ["EFFECT_COLUMNS", "HALF_WIDTHS", "effects"]

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
    "paired",
    "pairs",
    "width_unpaired",
    "unpaired_because",
    "unmeasured_because",
]


def _observations(
    seats: pd.DataFrame, games: pd.DataFrame
) -> dict[tuple[object, ...], pd.DataFrame]:
    """Return per configuration its games' values (``pairs.game_values``) with their deal."""
    values = game_values(seats, games)
    labels = deal_labels(values)
    values["_deal"] = labels if labels is not None else values.index.astype(str)
    return {
        key if isinstance(key, tuple) else (key,): group
        for key, group in values.groupby(CONFIG, sort=True, observed=True)
    }


def comparisons_of(keys: list[tuple[object, ...]]) -> list[tuple[str, str, str, tuple, tuple]]:
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


def _compare(
    kind: str, a: tuple[np.ndarray, object], b: tuple[np.ndarray, object], half_width: float
) -> dict[str, object]:
    """Return the effect of sample ``a`` against sample ``b`` (``base``) as independent samples,
    with its power figures."""
    (va, da), (vb, db) = a, b
    row: dict[str, object] = {
        "games": int(np.sum(~np.isnan(va))),
        "games_base": int(np.sum(~np.isnan(vb))),
        "half_width": half_width,
        "paired": False,
        "pairs": 0,
    }
    deff = max(design_effect(va, da), design_effect(vb, db))
    if kind == "rate":
        pa_, _, _, na = clustered_rate(va, da)
        pb, _, _, nb = clustered_rate(vb, db)
        d, low, high = diff_clustered_rates(va, da, vb, db)
        pooled = (pa_ * na + pb * nb) / (na + nb) if na + nb > 0 else np.nan
        se0 = rate_difference_se(pooled, na, nb)
        # the MDE at the pooled rate shrunk towards 1/2 (Agresti-Coull): never 0 at 0 wins
        se_mde = rate_difference_se((pa_ * na + pb * nb + 2) / (na + nb + 4), na, nb)
        p_value = rate_difference_p_value(d, se0)
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
        "width_unpaired": high - low,
    }


def _compare_paired(
    kind: str, merged: pd.DataFrame, metric: str, half_width: float
) -> dict[str, object] | None:
    """Return the effect of the compared configuration against its base on paired games."""
    va = merged[f"{metric}_with"].to_numpy(dtype=float)
    vb = merged[f"{metric}_base"].to_numpy(dtype=float)
    deals = merged["_deal_base"].to_numpy()
    res = paired_difference(vb, va, deals, kind)
    if res is None:
        return None
    both = ~(np.isnan(va) | np.isnan(vb))
    va, vb, deals = va[both], vb[both], deals[both]
    if kind == "rate":
        _, low_u, high_u = diff_clustered_rates(va, deals, vb, deals)
    else:
        _, low_u, high_u = diff_clustered_means(va, deals, vb, deals)
    low, high = float(res["ci_low"]), float(res["ci_high"])
    return {
        "games": int(res["pairs"]),
        "games_base": int(res["pairs"]),
        "half_width": half_width,
        "paired": True,
        "pairs": int(res["pairs"]),
        "base": res["value_a"],
        "value": res["value_b"],
        "mde": res["mde"],
        "diff": res["diff"],
        "ci_low": low,
        "ci_high": high,
        "significant": bool(np.isfinite(low) and np.isfinite(high) and (low > 0 or high < 0)),
        "p_value": res["p_value"],
        "games_needed": paired_games_needed(
            int(res["pairs"]), float(res["se"]), float(res["df"]), half_width
        ),
        "width_unpaired": high_u - low_u,
    }


def _pairs(
    a: pd.DataFrame, b: pd.DataFrame, expansions: str, against: str
) -> tuple[pd.DataFrame | None, str | None]:
    """Return the paired games of a configuration (``a``) and its base (``b``), or None and why
    they are compared unpaired."""
    why = deals_differ(expansions, against)
    if why is not None:
        return None, why
    keys = [*([RUN] if RUN in a else []), *PAIR_KEYS]
    # a run with --deal-replicates: a game pairs with the same replicate (its bots' seeds)
    keys += ["replicate"] if "replicate" in a and "replicate" in b else []
    merged = b.merge(a, on=keys, suffixes=("_base", "_with"))
    if merged.empty:
        return None, "no deal in common: each configuration has its own seeds"
    return merged, None


def effects(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    half_widths: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Return every expansion set's and rules switch's effect against the base game.

    One row per comparison and metric (see the module notes): the base and compared values, the
    difference (compared - base) with its 95% interval, paired where the two configurations
    played the same deals (``paired``, ``pairs``, ``width_unpaired``; else
    ``unpaired_because``), ``significant``, ``p_value``, ``q_value``, the minimum detectable
    difference ``mde`` (80% power, 5% level) at these sample sizes, and ``games_needed`` per
    configuration for an interval of the difference of ``half_width`` (``half_widths`` per
    metric, default ``HALF_WIDTHS``; unpaired rates: at the pooled rate shrunk as ``(x + 2) /
    (n + 4)``, so a rate seen at 0 or 1 is not taken as certain). Assumes independent deals;
    failed games are left out. Empty when no configuration has its base game in the run.
    """
    widths = HALF_WIDTHS | dict(half_widths or {})
    ok_games = finished_games(games)
    ok_seats = finished_seats(seats)
    if ok_games.empty:
        return pd.DataFrame(columns=EFFECT_COLUMNS)
    obs = _observations(ok_seats, ok_games)
    rows = []
    i_exp = CONFIG.index("expansions")
    for factor, level, against, key, base_key in comparisons_of(sorted(obs, key=str)):
        where = dict(zip(CONFIG, key, strict=True))
        a, b = obs[key], obs[base_key]
        merged, why = _pairs(a, b, str(key[i_exp]), str(base_key[i_exp]))
        shared = set(metric_columns(a)) & set(metric_columns(b))
        for metric, kind in METRICS.items():
            names = sorted(m for m in shared if m.partition(":")[0] == metric)
            for name in names:
                bot = name.partition(":")[2] or None
                if merged is not None:
                    row = _compare_paired(kind, merged, name, widths[metric])
                    if row is None:
                        continue
                else:
                    row = _compare(
                        kind,
                        (a[name].to_numpy(dtype=float), a["_deal"].to_numpy()),
                        (b[name].to_numpy(dtype=float), b["_deal"].to_numpy()),
                        widths[metric],
                    )
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
                        "unpaired_because": why,
                    }
                    | row
                )
    if not rows:
        return pd.DataFrame(columns=EFFECT_COLUMNS)
    out = pd.DataFrame(rows)
    out = mark_unmeasured(out, "base", "value", [*SAME, "factor", "level", "against", "switches"])
    out["q_value"] = q_values(out["p_value"])
    out["games_needed"] = out["games_needed"].astype("Int64")
    return out[EFFECT_COLUMNS]
