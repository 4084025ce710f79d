"""Across skill: each balance answer of a run played at several tiers (``run --tiers``), and the
answers that change with skill.

A run with tiers plays its whole grid once per tier, the line-ups' ``tier`` seats taken by the
tier's bot, all tiers on the same deals (``experiments.tiers``). Here each tier's tables are read
with the tier's bot named ``tier`` (``as_template``), so a configuration of one tier lines up
with the same configuration of another, and:

- ``tier_values``: per tier, configuration and metric (the first player's win rate, the margin,
  the rounds, each bot's win rate in a line-up of different bots: ``pairs.game_values``) the
  value with its 95% interval (clustered on deals);
- ``skill_interactions``: per configuration, metric and pair of tiers, the difference (the
  later tier's value less the earlier's), paired game by game on the deals the tiers share (same
  seed, seating and replicate: ``pairs.paired_difference``); and per expansion or switch effect
  (``factors.effects`` at each tier), the difference of the effect between the tiers, its
  standard error the two effects' taken as independent (conservative where the tiers share
  deals, since their errors then go together). ``q_value`` is Benjamini-Hochberg's over every
  row; ``flagged``: the interval leaves out 0 and ``q_value`` < 5%, so an answer flagged as
  changing with skill survives the many comparisons;
- ``dominant_policies``: a policy (a seat of the line-ups: ``tier`` or a fixed bot) whose
  head-to-head interval lies above one half against every other policy it meets, in every tier.
  Each pair is tested at 5%; requiring all of them is an intersection-union test, so the claim
  as a whole keeps the 5% level without a correction.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.factors import effects
from projectl_sim.analysis.fmt import diff_interval, value
from projectl_sim.analysis.pairs import game_values, metric_columns, metric_kind
from projectl_sim.analysis.ratings import pair_results
from projectl_sim.analysis.rows import CONFIG, finished_games
from projectl_sim.analysis.stats import (
    ALPHA,
    clustered_mean,
    clustered_rate,
    paired_difference,
    q_values,
)
from projectl_sim.analysis.stats import distributions as distribution

__all__ = [
    "INTERACTION_COLUMNS",
    "as_template",
    "dominant_policies",
    "skill_interactions",
    "templates_of",
    "tier_lines",
    "tier_values",
    "tiers_of",
]

TIER = "tier"  # the name a tier's bot goes by here (the placeholder, experiments.tiers.TIER)
_EFFECT_KEYS = [
    "players",
    "variant",
    "lineup",
    "factor",
    "level",
    "against",
    "expansions",
    "switches",
    "metric",
    "bot",
]
INTERACTION_COLUMNS = [
    "answer",
    *CONFIG,
    "factor",
    "level",
    "against",
    "metric",
    "kind",
    "tier_a",
    "tier_b",
    "value_a",
    "value_b",
    "diff",
    "ci_low",
    "ci_high",
    "p_value",
    "q_value",
    "flagged",
    "pairs",
]


def tiers_of(games: pd.DataFrame) -> list[str]:
    """Return the run's tiers in the order it played them (empty: a run without tiers)."""
    if "tier" not in games or games["tier"].isna().all():
        return []
    order = games.sort_values("config_id")["tier"].dropna()
    return list(dict.fromkeys(order))


def _rename(text: object, tier: str) -> object:
    if not isinstance(text, str):
        return text
    return ",".join(TIER if b == tier else b for b in text.split(","))


Templates = Mapping[int, Sequence[str]]


def templates_of(manifest: Mapping[str, Any]) -> dict[int, tuple[str, ...]]:
    """Return each configuration's line-up as given (``tier`` in the tier's seats), one entry
    per seat, from a run's manifest."""
    from projectl_sim.analysis.data import named_bots

    names = manifest.get("bot_names") or {}
    out = {}
    for c in manifest.get("configs", []):
        template = pd.DataFrame({"bot": list(c.get("template") or c["lineup"])})
        out[int(c["config_id"])] = tuple(named_bots(template, names)["bot"])  # as tables name them
    return out


def as_template(
    seats: pd.DataFrame, games: pd.DataFrame, tier: str, templates: Templates | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return one tier's seats and games with its bot named ``tier`` (bot, line-up, seats).

    ``templates`` (``templates_of`` the manifest) says which seats are the tier's: without it, a
    seat whose bot is the tier's bot is (a fixed bot that is also the tier's then counts as it).
    """
    g = games[games["tier"] == tier].copy()
    s = seats[seats["game_id"].isin(g["game_id"])].copy()
    if templates:
        rotation = g.set_index("game_id")["rotation"]
        roles = [
            templates[c][(seat + rotation[gid]) % n]
            for c, seat, gid, n in zip(
                s["config_id"], s["seat"], s["game_id"], s["players"], strict=True
            )
        ]
        s["bot"] = [TIER if role == TIER else b for role, b in zip(roles, s["bot"], strict=True)]
        line = {c: ",".join(t) for c, t in templates.items()}
        for frame in (s, g):
            frame["lineup"] = frame["config_id"].map(line)
        g["seats"] = [
            ",".join(templates[c][r:] + templates[c][:r])
            for c, r in zip(g["config_id"], g["rotation"], strict=True)
        ]
        return s, g
    s["bot"] = s["bot"].map(lambda b: TIER if b == tier else b)
    for frame in (s, g):
        frame["lineup"] = frame["lineup"].map(lambda x: _rename(x, tier))
    g["seats"] = g["seats"].map(lambda x: _rename(x, tier))
    return s, g


def _values(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    values = game_values(seats, games)
    if "replicate" not in values:
        values["replicate"] = 0
    values["replicate"] = values["replicate"].fillna(0).astype(int)
    return values


def tier_values(
    seats: pd.DataFrame, games: pd.DataFrame, templates: Templates | None = None
) -> pd.DataFrame:
    """Return per tier, configuration (its tier's bot named ``tier``) and metric the value and
    its 95% interval, clustered on deals."""
    rows = []
    for tier in tiers_of(games):
        s, g = as_template(seats, games, tier, templates)
        values = _values(s, g)
        for key, group in values.groupby(CONFIG, sort=True):
            for metric in metric_columns(group):
                x = group[metric].to_numpy(dtype=float)
                if metric_kind(metric) == "rate":
                    value, low, high, _ = clustered_rate(x, group["seed"].to_numpy())
                else:
                    value, se, _, clusters = clustered_mean(x, group["seed"].to_numpy())
                    q = float(distribution.t_ppf(0.975, clusters - 1)) if clusters > 1 else np.nan
                    low, high = value - q * se, value + q * se
                rows.append(
                    {"tier": tier}
                    | dict(zip(CONFIG, key, strict=True))
                    | {
                        "metric": metric,
                        "kind": metric_kind(metric),
                        "value": value,
                        "ci_low": low,
                        "ci_high": high,
                        "games": int(np.sum(~np.isnan(x))),
                    }
                )
    columns = ["tier", *CONFIG, "metric", "kind", "value", "ci_low", "ci_high", "games"]
    return pd.DataFrame(rows, columns=columns)


def _value_interactions(
    seats: pd.DataFrame, games: pd.DataFrame, tiers: Sequence[str], templates: Templates | None
) -> list[dict[str, object]]:
    per_tier = {t: _values(*as_template(seats, games, t, templates)) for t in tiers}
    on = [*CONFIG, "seed", "rotation", "replicate"]
    rows = []
    for i, ta in enumerate(tiers):
        for tb in tiers[i + 1 :]:
            a, b = per_tier[ta], per_tier[tb]
            merged = a.merge(b, on=on, suffixes=("_a", "_b"))
            if merged.empty:
                continue
            for key, group in merged.groupby(CONFIG, sort=True):
                names = set(metric_columns(a[a["config_id"].isin(group["config_id_a"])]))
                names &= set(metric_columns(b[b["config_id"].isin(group["config_id_b"])]))
                for metric in sorted(names, key=lambda m: (":" in m, m)):
                    kind = metric_kind(metric)
                    d = paired_difference(
                        group[f"{metric}_a"].to_numpy(),
                        group[f"{metric}_b"].to_numpy(),
                        group["seed"].to_numpy(),
                        kind,
                    )
                    if d is None:
                        continue
                    rows.append(
                        {"answer": "value"}
                        | dict(zip(CONFIG, key, strict=True))
                        | {"metric": metric, "kind": kind, "tier_a": ta, "tier_b": tb}
                        | {k: d[k] for k in ("value_a", "value_b", "diff", "ci_low", "ci_high")}
                        | {"p_value": d["p_value"], "pairs": d["pairs"]}
                    )
    return rows


def _effect_interactions(
    seats: pd.DataFrame, games: pd.DataFrame, tiers: Sequence[str], templates: Templates | None
) -> list[dict[str, object]]:
    per_tier = {}
    for t in tiers:
        eff = effects(*as_template(seats, games, t, templates))
        if len(eff):
            eff = eff.assign(bot=eff["bot"].fillna(""), se=(eff["ci_high"] - eff["ci_low"]) / 3.92)
            per_tier[t] = eff
    rows = []
    z = float(distribution.norm_ppf(0.975))
    for i, ta in enumerate(tiers):
        for tb in tiers[i + 1 :]:
            if ta not in per_tier or tb not in per_tier:
                continue
            merged = per_tier[ta].merge(per_tier[tb], on=_EFFECT_KEYS, suffixes=("_a", "_b"))
            for r in merged.to_dict("records"):
                d = r["diff_b"] - r["diff_a"]
                se = float(np.hypot(r["se_a"], r["se_b"]))
                ok = np.isfinite(se) and se > 0
                metric = r["metric"] + (f":{r['bot']}" if r["bot"] else "")
                rows.append(
                    {"answer": "effect"}
                    | {c: r[c] for c in CONFIG}
                    | {c: r[c] for c in ("factor", "level", "against")}
                    | {"metric": metric, "kind": r["kind_a"], "tier_a": ta, "tier_b": tb}
                    | {
                        "value_a": r["diff_a"],
                        "value_b": r["diff_b"],
                        "diff": d,
                        "ci_low": d - z * se if ok else np.nan,
                        "ci_high": d + z * se if ok else np.nan,
                        "p_value": float(2 * distribution.norm_sf(abs(d) / se)) if ok else np.nan,
                        "pairs": int(min(r["games_a"], r["games_b"])),
                    }
                )
    return rows


def _typed(table: pd.DataFrame) -> pd.DataFrame:
    for c in ("value_a", "value_b", "diff", "ci_low", "ci_high", "p_value", "q_value"):
        table[c] = pd.to_numeric(table[c], errors="coerce").astype(float)
    table["flagged"] = table["flagged"].astype(object).eq(True)
    return table


def skill_interactions(
    seats: pd.DataFrame, games: pd.DataFrame, templates: Templates | None = None
) -> pd.DataFrame:
    """Return per answer and pair of tiers how it changes with skill (see the module notes)."""
    ok = finished_games(games)
    tiers = tiers_of(ok)
    if len(tiers) < 2:
        rows: list[dict[str, object]] = []
        return _typed(pd.DataFrame(rows, columns=INTERACTION_COLUMNS))
    rows = _value_interactions(seats, ok, tiers, templates)
    rows += _effect_interactions(seats, ok, tiers, templates)
    table = _typed(pd.DataFrame(rows, columns=INTERACTION_COLUMNS))
    if table.empty:
        return table
    table["q_value"] = q_values(table["p_value"].to_numpy(dtype=float))
    outside = (table["ci_low"] > 0) | (table["ci_high"] < 0)
    table["flagged"] = outside & (table["q_value"] < ALPHA)
    return table


def dominant_policies(
    seats: pd.DataFrame, games: pd.DataFrame, templates: Templates | None = None
) -> pd.DataFrame:
    """Return the policies that beat every other policy they meet in every tier (see the module
    notes): ``policy``, ``tiers``, ``opponents`` and the weakest head-to-head ``worst_low``
    (the lowest interval bound over its pairs). Empty when none does; a run without tiers is
    one tier."""
    tiers = tiers_of(games) or [None]
    results = []
    for tier in tiers:
        if tier is None:
            s = seats
        else:
            s, _ = as_template(seats, games, tier, templates)
        pairs = pair_results(s, by=("players",))
        if len(pairs):
            results.append(pairs.assign(tier=tier or "-"))
    if not results:
        return pd.DataFrame(columns=["policy", "tiers", "opponents", "worst_low"])
    pairs = pd.concat(results, ignore_index=True)
    rows = []
    for policy, mine in pairs.groupby("bot", sort=True):
        met = set(mine["tier"])
        if len(met) < len(tiers):
            continue
        if (mine["ci_low"] > 0.5).all():
            rows.append(
                {
                    "policy": policy,
                    "tiers": len(met),
                    "opponents": ",".join(sorted(set(mine["opponent"]))),
                    "worst_low": float(mine["ci_low"].min()),
                }
            )
    return pd.DataFrame(rows, columns=["policy", "tiers", "opponents", "worst_low"])


def _cell(r: dict[str, object]) -> str:
    from projectl_sim.analysis import labels

    parts = [f"{r['players']}p", labels.short_expansions(str(r["expansions"]))]
    if r["switches"] != "default":
        parts.append(str(r["switches"]))
    parts.append(labels.short_lineup(str(r["lineup"])))
    return " ".join(parts)


def tier_lines(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    width: int = 100,
    templates: Templates | None = None,
    inter: pd.DataFrame | None = None,
) -> list[str]:
    """Return the summary's section on the tiers (empty for a run without two tiers);
    ``inter``: its ``skill_interactions`` when already computed."""
    tiers = tiers_of(games)
    if len(tiers) < 2:
        return []
    values = tier_values(seats, games, templates)
    inter = skill_interactions(seats, games, templates) if inter is None else inter
    lines = ["== Across skill (tiers) =="]
    lines += textwrap.wrap(
        f"the study at each of {len(tiers)} tiers ({', '.join(tiers)}; 'tier' in a line-up is the "
        "tier's bot), on the same deals: each answer per tier with its 95% interval; a change "
        "with skill is the later tier's value less the earlier's, paired on the deals, flagged "
        "(*) when its interval leaves out 0 and its Benjamini-Hochberg q over every comparison "
        "below is under 5%",
        width,
    )
    for key, group in values.groupby([*CONFIG, "metric"], sort=True):
        r = dict(zip([*CONFIG, "metric"], key, strict=True))
        kind = str(group["kind"].iloc[0])
        shown = "; ".join(
            f"{t}: {value(kind, v, 0)} [{value(kind, lo, 0)}, {value(kind, hi, 0)}]"
            for t, v, lo, hi in group[["tier", "value", "ci_low", "ci_high"]].itertuples(
                index=False
            )
        )
        lines.append(f"  {_cell(r)}, {r['metric']}: {shown}")
        mine = inter[
            (inter["answer"] == "value")
            & (inter["metric"] == r["metric"])
            & np.logical_and.reduce([inter[c] == r[c] for c in CONFIG])
        ]
        for m in mine[mine["flagged"]].to_dict("records"):
            lines.append(
                f"    * changes with skill: {m['tier_b']} - {m['tier_a']} "
                f"{diff_interval(kind, m['diff'], m['ci_low'], m['ci_high'])}, q {m['q_value']:.3f}"
            )
    effect = inter[inter["answer"] == "effect"]
    for m in effect[effect["flagged"]].to_dict("records"):
        lines.append(
            f"  * effect of {m['level']} (against {m['against']}) on {m['metric']}, {_cell(m)}: "
            f"{diff_interval(m['kind'], m['value_a'], np.nan, np.nan)} at {m['tier_a']}, "
            f"{diff_interval(m['kind'], m['value_b'], np.nan, np.nan)} at {m['tier_b']}: "
            f"{diff_interval(m['kind'], m['diff'], m['ci_low'], m['ci_high'])}, "
            f"q {m['q_value']:.3f}"
        )
    flagged = int(inter["flagged"].sum()) if len(inter) else 0
    rates = inter[(inter["kind"] == "rate") & np.isfinite(inter["ci_high"])]
    half = float(((rates["ci_high"] - rates["ci_low"]) / 2).median()) if len(rates) else np.nan
    sentence = (
        f"{flagged} of {len(inter)} comparisons across tiers flagged ({len(effect)} of the "
        "comparisons are of expansion or switch effects)."
    )
    if np.isfinite(half):
        sentence += (
            f" A rate's change with skill is known to about +-{100 * half:.0f} pts (median "
            "half-width): a smaller change could not be detected by this run, and an answer not "
            "flagged may still change that much."
        )
    lines += textwrap.wrap(sentence, width, initial_indent="  ", subsequent_indent="  ")
    dom = dominant_policies(seats, games, templates)
    for d in dom.to_dict("records"):
        lines.append(
            f"  dominant strategy: {d['policy']} beats every policy it meets ({d['opponents']}) "
            f"in all {d['tiers']} tiers (every head-to-head interval above 50%, the weakest from "
            f"{100 * d['worst_low']:.0f}%)"
        )
    return lines
