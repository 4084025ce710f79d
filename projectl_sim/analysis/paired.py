"""Two runs on shared deals: what changed from run A to run B, game by game.

Two runs with the same root seed and the same shape of grid give their configurations the same
seed children, so the i-th configuration of each deals the same games (the runner's seeding
discipline). A change of setting between them (expansions, a rules switch, a bot's parameter) is
then measured on *pairs* of games with the same seed and the same bots in the same seats: the
luck of the deal cancels out of every difference.

Pairs are matched on ``seed`` and ``seats`` (bots in seat order). Per pair of configurations
(one of A, one of B) and metric, the difference B - A of each pair's values is averaged; its
95% interval is Student's t on the cluster-robust standard error with the deal (seed) as the
cluster (rotations of one deal share it), ``clusters - 1`` degrees of freedom. It assumes
independent deals and nothing about the shape of the values. When every deal gives a rate the
same difference (all pairs agree), the interval is that difference plus or minus the Wilson
upper limit of 0 in C deals rather than of zero width. ``width_unpaired`` is the width
the same games would give compared as independent samples (Newcombe / Welch): how much the
pairing bought. Configurations of A and B that share no deal are compared unpaired, matched by
their position in the grid, with ``paired`` false.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from projectl_sim.analysis import distributions as distribution
from projectl_sim.analysis.data import Run, load_run
from projectl_sim.analysis.factors import CONFIG
from projectl_sim.analysis.stats import (
    clustered_mean,
    diff_clustered_means,
    diff_clustered_rates,
    finished_games,
    finished_seats,
    welch,
    welch_p_value,
)
from projectl_sim.sim.summary import wilson

__all__ = ["COMPARE_COLUMNS", "compare", "compare_text"]

COMPARE_COLUMNS = [
    "config_a",
    "config_b",
    "changed",
    "metric",
    "bot",
    "kind",
    "value_a",
    "value_b",
    "diff",
    "ci_low",
    "ci_high",
    "significant",
    "p_value",
    "paired",
    "pairs",
    "width_unpaired",
]


def _game_values(seats: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Return one row per finished game: its keys and every metric (``win_rate:BOT`` columns)."""
    ok_games = finished_games(games)
    ok_seats = finished_seats(seats)
    out = ok_games[["game_id", "config_id", "seed", "seats", "players", *CONFIG[1:]]].copy()
    out = out.set_index("game_id")
    out["margin"] = ok_games.set_index("game_id")["margin"].astype(float)
    out["rounds"] = ok_games.set_index("game_id")["rounds"].astype(float)
    first = ok_seats[(ok_seats["turn_order"] == 0) & (ok_seats["players"] > 1)]
    out["first_player_rate"] = first.set_index("game_id")["win_share"]
    per_bot = ok_seats.groupby(["game_id", "bot"])["win_share"].mean().unstack()
    mixed = ok_seats.groupby("game_id")["bot"].nunique()
    solo = ok_seats.groupby("game_id")["players"].first() == 1
    keep = mixed.index[(mixed > 1) | solo]
    for bot in per_bot.columns:
        out[f"win_rate:{bot}"] = per_bot.loc[per_bot.index.isin(keep), bot]
    return out.reset_index()


def _changed(a: pd.Series, b: pd.Series) -> str:
    """Return what differs between two configurations' columns (``expansions none -> finesse``)."""
    parts = [f"{c} {a[c]} -> {b[c]}" for c in CONFIG if a[c] != b[c]]
    return "; ".join(parts) or "same settings"


def _kind(metric: str) -> str:
    return "rate" if metric == "first_player_rate" or metric.startswith("win_rate:") else "mean"


def _paired_row(merged: pd.DataFrame, metric: str) -> dict[str, object] | None:
    a = merged[f"{metric}_a"].to_numpy(dtype=float)
    b = merged[f"{metric}_b"].to_numpy(dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    if not both.any():
        return None
    a, b = a[both], b[both]
    deals = merged["seed"].to_numpy()[both]
    d, se, _, clusters = clustered_mean(b - a, deals)
    kind = _kind(metric)
    if np.isfinite(se) and se > 0:
        half = float(distribution.t_ppf(0.975, clusters - 1)) * se
        p_value = float(2 * distribution.t_sf(abs(d) / se, clusters - 1))
    elif np.isfinite(se):  # every pair the same difference
        # a rate: no deal differed from the others, which C deals bound only to the Wilson
        # upper limit of 0 in C (about 3.8 / C), not to zero
        half = float(wilson(0, clusters)[1]) if kind == "rate" else 0.0
        p_value = 1.0 if d == 0 else 0.0
    else:
        half, p_value = np.nan, np.nan
    if kind == "rate":
        _, lo_u, hi_u = diff_clustered_rates(b, deals, a, deals)
    else:
        _, lo_u, hi_u = diff_clustered_means(b, deals, a, deals)
    return {
        "kind": kind,
        "value_a": float(a.mean()),
        "value_b": float(b.mean()),
        "diff": d,
        "ci_low": d - half,
        "ci_high": d + half,
        "p_value": p_value,
        "paired": True,
        "pairs": int(both.sum()),
        "width_unpaired": hi_u - lo_u,
    }


def _unpaired_row(a_rows: pd.DataFrame, b_rows: pd.DataFrame, metric: str) -> dict | None:
    if metric not in a_rows or metric not in b_rows:
        return None
    a, b = a_rows[metric].to_numpy(dtype=float), b_rows[metric].to_numpy(dtype=float)
    if np.isnan(a).all() or np.isnan(b).all():
        return None
    da, db = a_rows["seed"].to_numpy(), b_rows["seed"].to_numpy()
    kind = _kind(metric)
    if kind == "rate":
        d, low, high = diff_clustered_rates(b, db, a, da)
        pooled = np.nanmean(np.r_[a, b])
        se0 = np.sqrt(pooled * (1 - pooled) * (1 / np.sum(~np.isnan(a)) + 1 / np.sum(~np.isnan(b))))
        p_value = float(2 * distribution.norm_sf(abs(d) / se0)) if se0 > 0 else 1.0
    else:
        d, low, high = diff_clustered_means(b, db, a, da)
        _, se, df = welch(b, db, a, da)
        p_value = welch_p_value(d, se, df)
    return {
        "kind": kind,
        "value_a": float(np.nanmean(a)),
        "value_b": float(np.nanmean(b)),
        "diff": d,
        "ci_low": low,
        "ci_high": high,
        "p_value": p_value,
        "paired": False,
        "pairs": 0,
        "width_unpaired": high - low,
    }


def _as_run(run: Run | str | Path) -> Run:
    return run if isinstance(run, Run) else load_run(run)


def compare(run_a: Run | str | Path, run_b: Run | str | Path) -> pd.DataFrame:
    """Return run B's change against run A per pair of configurations and metric, paired by deal.

    Columns: ``config_a``, ``config_b``, ``changed`` (the settings that differ), ``metric``
    (``first_player_rate``, ``margin``, ``rounds``, ``win_rate`` with ``bot``), ``kind``,
    ``value_a``, ``value_b``, ``diff`` (B - A) with its 95% interval, ``significant`` (the
    interval leaves out 0), ``p_value``, ``paired``, ``pairs`` (games matched) and
    ``width_unpaired`` (see the module notes).
    """
    a, b = _as_run(run_a), _as_run(run_b)
    va, vb = _game_values(a.seats, a.games), _game_values(b.seats, b.games)
    metrics = [
        m
        for m in ["first_player_rate", "margin", "rounds", *sorted(c for c in va if ":" in c)]
        if m in va and m in vb
    ]
    merged = va.merge(vb, on=["seed", "seats"], suffixes=("_a", "_b"))
    rows = []
    paired_configs: set[tuple[int, int]] = set()
    for (ca, cb), group in merged.groupby(["config_id_a", "config_id_b"], sort=True):
        paired_configs.add((int(ca), int(cb)))
        conf_a = group.iloc[0][[f"{c}_a" for c in CONFIG]].set_axis(CONFIG)
        conf_b = group.iloc[0][[f"{c}_b" for c in CONFIG]].set_axis(CONFIG)
        for metric in metrics:
            row = _paired_row(group, metric)
            if row is not None:
                rows.append(
                    {
                        "config_a": int(ca),
                        "config_b": int(cb),
                        "changed": _changed(conf_a, conf_b),
                        "metric": metric,
                    }
                    | row
                )
    seen_a = {ca for ca, _ in paired_configs}
    seen_b = {cb for _, cb in paired_configs}
    for config in sorted(set(va["config_id"]) & set(vb["config_id"]) - seen_a - seen_b):
        a_rows, b_rows = va[va["config_id"] == config], vb[vb["config_id"] == config]
        conf_a = a_rows.iloc[0][CONFIG]
        conf_b = b_rows.iloc[0][CONFIG]
        for metric in metrics:
            row = _unpaired_row(a_rows, b_rows, metric)
            if row is not None:
                rows.append(
                    {
                        "config_a": int(config),
                        "config_b": int(config),
                        "changed": _changed(conf_a, conf_b),
                        "metric": metric,
                    }
                    | row
                )
    if not rows:
        return pd.DataFrame(columns=COMPARE_COLUMNS)
    out = pd.DataFrame(rows)
    out["bot"] = pd.Series([m.partition(":")[2] or None for m in out["metric"]], dtype=object)
    out["metric"] = [m.partition(":")[0] for m in out["metric"]]
    out["significant"] = (out["ci_low"] > 0) | (out["ci_high"] < 0)
    return out[COMPARE_COLUMNS]


def _fmt(kind: str, value: float) -> str:
    if not np.isfinite(value):
        return "n/a"
    return f"{value:.1%}" if kind == "rate" else f"{value:.2f}"


def _fmt_diff(kind: str, d: float, low: float, high: float) -> str:
    if kind == "rate":
        return f"{d * 100:+.1f} pts [{low * 100:+.1f}, {high * 100:+.1f}]"
    return f"{d:+.2f} [{low:+.2f}, {high:+.2f}]"


def compare_text(run_a: Run | str | Path, run_b: Run | str | Path) -> str:
    """Return the text ``projectl-sim compare RUN_A RUN_B`` prints: B against A, paired by deal."""
    a, b = _as_run(run_a), _as_run(run_b)
    table = compare(a, b)
    lines = [f"run B ({b.path}) against run A ({a.path})"]
    if table.empty:
        lines.append("no configuration of the two runs can be compared (no finished games)")
        return "\n".join(lines)
    paired = table[table["paired"]]
    n_pairs = (
        int(paired.groupby(["config_a", "config_b"])["pairs"].max().sum()) if len(paired) else 0
    )
    if len(paired):
        lines.append(
            f"{n_pairs} games paired on shared deals (same seed, same bots in the same seats): "
            "differences B - A with 95% paired t intervals, deals as clusters"
        )
    if (~table["paired"]).any():
        lines.append(
            "configurations without shared deals are compared unpaired (Newcombe / Welch): "
            "run B with run A's root seed and grid shape to pair them"
        )
    flagged = int(table["significant"].sum())
    lines.append(
        f"{flagged} of {len(table)} differences significant at 5% "
        "(no correction for the many comparisons; * marks them)"
    )
    for (ca, cb, changed), group in table.groupby(["config_a", "config_b", "changed"], sort=True):
        how = "paired" if group["paired"].iloc[0] else "unpaired"
        lines.append("")
        lines.append(
            f"configuration {ca} -> {cb}: {changed} ({how}, {int(group['pairs'].max())} pairs)"
        )
        for r in group.itertuples(index=False):
            name = r.metric if r.bot is None else f"{r.metric} {r.bot}"
            mark = " *" if r.significant else ""
            gain = ""
            if r.paired and np.isfinite(r.width_unpaired) and r.ci_high > r.ci_low:
                ratio = r.width_unpaired / (r.ci_high - r.ci_low)
                gain = f"  (unpaired: {ratio:.1f}x as wide)"
            lines.append(
                f"  {name:<28} A {_fmt(r.kind, r.value_a):>7}  B {_fmt(r.kind, r.value_b):>7}  "
                f"B-A {_fmt_diff(r.kind, r.diff, r.ci_low, r.ci_high)}{mark}{gain}"
            )
    return "\n".join(lines)
