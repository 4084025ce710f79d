"""Two runs side by side: what changed from run A to run B, configuration by configuration.

*Matched by settings.* A configuration of B is set against the configuration of A with the same
player count, variant, line-up, expansion set and rules switches (parameters included), never
by its position in the grid. A setting that is one value throughout run A and another throughout
run B (``--expansions none`` against ``--expansions finesse``; one line-up against another) is
the change being measured: it is left out of the match and named. A configuration without a
partner is listed, never compared: a 2-player run against a 3-player run compares nothing.

*Paired where the deals are shared.* Two runs with the same root seed deal the same seeds to the
same player count and variant (``sim.spec``, seed scheme ``shared-deals``, whatever the shape of
their grids). A matched pair's games are then paired: the same seed and the same bots in the
same seats (the same rotation when the line-up is the change), and the luck of the deal cancels
out of every difference. Per pair of configurations and metric the difference B - A of each
pair's values is averaged with its 95% paired t interval on deals as clusters
(``pairs.paired_difference``). ``width_unpaired`` is the width the same games would give
compared as independent samples (Newcombe / Welch): how much the pairing bought. Configurations
that share no deal (another root seed; a run made before the scheme, in a grid of another shape),
or whose seeds deal other decks (a puzzle set is the change), are compared unpaired, ``paired``
false and ``unpaired_because`` saying why.

*Corrected for the many comparisons.* ``q_value`` is Benjamini-Hochberg over every difference of
the two runs that measured something (the family), computed here once; ``findings.
change_findings`` decides on it (q < 0.05) and ``compare_text`` prints that decision.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from projectl_sim.analysis.data import Run, load_run
from projectl_sim.analysis.factors import CONFIG
from projectl_sim.analysis.findings import change_findings, config_words
from projectl_sim.analysis.fmt import diff_interval, p_text, value
from projectl_sim.analysis.labels import lineup_unit, varying
from projectl_sim.analysis.measurable import mark_unmeasured
from projectl_sim.analysis.pairs import deals_differ, game_values, metric_columns, metric_kind
from projectl_sim.analysis.rows import deal_labels
from projectl_sim.analysis.stats import (
    diff_clustered_means,
    diff_clustered_rates,
    paired_difference,
    q_values,
    welch,
    welch_p_value,
)
from projectl_sim.analysis.stats import distributions as distribution

__all__ = ["COMPARE_COLUMNS", "compare", "compare_text", "match_configurations"]

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
    "q_value",
    "paired",
    "pairs",
    "width_unpaired",
    "unpaired_because",
    "unmeasured_because",
]

ALWAYS = ["players", "variant"]  # never a change: unlike configurations are not compared
CHANGEABLE = ["lineup", "expansions", "switches"]
_RUN_SETTINGS = ("catalogue", "tiles", "expansion_files", "records")  # the manifest's, not rows'


def _configs(values: pd.DataFrame) -> pd.DataFrame:
    out = values.drop_duplicates("config_id")[["config_id", *CONFIG]].copy()
    out["unit"] = out["lineup"].map(lineup_unit)
    return out.set_index("config_id").sort_index()


def _changes(ca: pd.DataFrame, cb: pd.DataFrame) -> list[str]:
    """Return the settings that are one value throughout A and another throughout B."""
    out = []
    for c in CHANGEABLE:
        col = "unit" if c == "lineup" else c
        a, b = set(ca[col]), set(cb[col])
        if len(a) == 1 and len(b) == 1 and a != b:
            out.append(c)
    return out


def match_configurations(
    run_a: Run | str | Path, run_b: Run | str | Path
) -> tuple[list[tuple[int, int]], list[int], list[int], list[str]]:
    """Return the matched pairs ``(config of A, config of B)``, A's and B's configurations
    without a partner, and the settings whose change is measured (see the module notes)."""
    a, b = _as_run(run_a), _as_run(run_b)
    ca = _configs(game_values(a.seats, a.games))
    cb = _configs(game_values(b.seats, b.games))
    return _match(ca, cb)


def _match(
    ca: pd.DataFrame, cb: pd.DataFrame
) -> tuple[list[tuple[int, int]], list[int], list[int], list[str]]:
    changed = _changes(ca, cb) if len(ca) and len(cb) else []
    keys = [*ALWAYS, *("unit" if c == "lineup" else c for c in CHANGEABLE if c not in changed)]
    index_b: dict[tuple[object, ...], list[int]] = {}
    for config, row in cb.iterrows():
        index_b.setdefault(tuple(row[keys]), []).append(int(config))
    pairs, alone_a = [], []
    for config, row in ca.iterrows():
        partners = index_b.get(tuple(row[keys]))
        if partners:
            pairs.append((int(config), partners.pop(0)))
        else:
            alone_a.append(int(config))
    matched_b = {p for _, p in pairs}
    alone_b = [int(c) for c in cb.index if int(c) not in matched_b]
    return pairs, alone_a, alone_b, changed


def _changed_text(conf_a: pd.Series, conf_b: pd.Series, changed: list[str], extra: str) -> str:
    parts = [f"{c} {conf_a[c]} -> {conf_b[c]}" for c in changed]
    if extra:
        parts.append(extra)
    return "; ".join(parts) or "same settings"


def _run_differences(a: Run, b: Run) -> str:
    """Return the run-wide settings (catalogue, tiles, ...) that differ between two manifests."""
    ma = (a.manifest or {}).get("config") or {}
    mb = (b.manifest or {}).get("config") or {}
    parts = []
    for key in _RUN_SETTINGS:
        if key == "records":
            continue
        va, vb = ma.get(key), mb.get(key)
        if va != vb:
            parts.append(f"{key} {va or 'shipped'} -> {vb or 'shipped'}")
    return "; ".join(parts)


def _unpaired_row(a_rows: pd.DataFrame, b_rows: pd.DataFrame, metric: str) -> dict | None:
    if metric not in a_rows or metric not in b_rows:
        return None
    a, b = a_rows[metric].to_numpy(dtype=float), b_rows[metric].to_numpy(dtype=float)
    if np.isnan(a).all() or np.isnan(b).all():
        return None
    da, db = a_rows["seed"].to_numpy(), b_rows["seed"].to_numpy()
    kind = metric_kind(metric)
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


def _paired_row(merged: pd.DataFrame, metric: str) -> dict[str, object] | None:
    kind = metric_kind(metric)
    a = merged[f"{metric}_a"].to_numpy(dtype=float)
    b = merged[f"{metric}_b"].to_numpy(dtype=float)
    deals = merged["_deal_a"].to_numpy()
    res = paired_difference(a, b, deals, kind)
    if res is None:
        return None
    both = ~(np.isnan(a) | np.isnan(b))
    a, b, deals = a[both], b[both], deals[both]
    if kind == "rate":
        _, lo_u, hi_u = diff_clustered_rates(b, deals, a, deals)
    else:
        _, lo_u, hi_u = diff_clustered_means(b, deals, a, deals)
    return {
        "kind": kind,
        "value_a": res["value_a"],
        "value_b": res["value_b"],
        "diff": res["diff"],
        "ci_low": res["ci_low"],
        "ci_high": res["ci_high"],
        "p_value": res["p_value"],
        "paired": True,
        "pairs": res["pairs"],
        "width_unpaired": hi_u - lo_u,
        "unpaired_because": None,
    }


def _with_deals(values: pd.DataFrame) -> pd.DataFrame:
    labels = deal_labels(values)
    return values.assign(_deal=labels if labels is not None else values["game_id"].astype(str))


def compare(run_a: Run | str | Path, run_b: Run | str | Path) -> pd.DataFrame:
    """Return run B's change against run A per matched pair of configurations and metric.

    Columns: ``config_a``, ``config_b`` (matched by settings, see the module notes),
    ``changed`` (the settings that differ), ``metric`` (``first_player_rate``, ``margin``,
    ``rounds``, ``win_rate`` with ``bot``), ``kind``, ``value_a``, ``value_b``, ``diff`` (B - A)
    with its 95% interval, ``significant`` (the interval leaves out 0), ``p_value``,
    ``q_value`` (Benjamini-Hochberg over the rows that measured something), ``paired``,
    ``pairs`` (games matched), ``width_unpaired`` and ``unpaired_because``. Configurations
    without a partner are not in it (``match_configurations`` lists them).
    """
    a, b = _as_run(run_a), _as_run(run_b)
    va, vb = _with_deals(game_values(a.seats, a.games)), _with_deals(game_values(b.seats, b.games))
    ca, cb = _configs(va), _configs(vb)
    matched, _, _, changed = _match(ca, cb)
    extra = _run_differences(a, b)
    rows = []
    for config_a, config_b in matched:
        ga, gb = va[va["config_id"] == config_a], vb[vb["config_id"] == config_b]
        conf_a, conf_b = ca.loc[config_a], cb.loc[config_b]
        text = _changed_text(conf_a, conf_b, changed, extra)
        metrics = [m for m in metric_columns(ga) if m in set(metric_columns(gb))]
        why = deals_differ(str(conf_a["expansions"]), str(conf_b["expansions"]))
        merged = None
        if why is None:
            on = ["seed", "seats"] if conf_a["lineup"] == conf_b["lineup"] else ["seed", "rotation"]
            on += ["replicate"] if "replicate" in ga and "replicate" in gb else []
            merged = ga.merge(gb, on=on, suffixes=("_a", "_b"))
            if merged.empty:
                merged = None
                why = "no deal in common: another root seed, or a run made before shared deals"
        for metric in metrics:
            if merged is not None:
                row = _paired_row(merged, metric)
            else:
                row = _unpaired_row(ga, gb, metric)
                if row is not None:
                    row["unpaired_because"] = why
            if row is not None:
                rows.append(
                    {"config_a": config_a, "config_b": config_b, "changed": text, "metric": metric}
                    | row
                )
    if not rows:
        return pd.DataFrame(columns=COMPARE_COLUMNS)
    out = pd.DataFrame(rows)
    out["bot"] = pd.Series([m.partition(":")[2] or None for m in out["metric"]], dtype=object)
    out["metric"] = [m.partition(":")[0] for m in out["metric"]]
    out["significant"] = (out["ci_low"] > 0) | (out["ci_high"] < 0)
    out = mark_unmeasured(out, "value_a", "value_b", ["config_a", "config_b"])
    out["q_value"] = q_values(out["p_value"])
    return out[COMPARE_COLUMNS]


def _words(conf: pd.Series, vary: list[str]) -> str:
    return config_words(conf, vary)


def _wrapped(text: str) -> list[str]:
    """Return a line of prose wrapped to 100 characters (a table row, indented, as it is)."""
    if not text or text.startswith("  "):
        return [text]
    return textwrap.wrap(text, 100, subsequent_indent="  ")


def compare_text(run_a: Run | str | Path, run_b: Run | str | Path) -> str:
    """Return the text ``projectl-sim compare RUN_A RUN_B`` prints: B against A, configurations
    matched by settings, paired on the deals they share."""
    a, b = _as_run(run_a), _as_run(run_b)
    va, vb = game_values(a.seats, a.games), game_values(b.seats, b.games)
    ca, cb = _configs(va), _configs(vb)
    matched, alone_a, alone_b, changed = _match(ca, cb)
    vary = [c for c in varying(pd.concat([ca, cb])) if c not in changed]
    lines = [f"run B ({b.path}) against run A ({a.path})"]
    if changed:
        first = matched[0] if matched else None
        what = "; ".join(
            f"{c} {ca.iloc[0][c]} -> {cb.iloc[0][c]}"
            if first is None
            else f"{c} {ca.loc[first[0], c]} -> {cb.loc[first[1], c]}"
            for c in changed
        )
        lines.append(f"run B changes, in every configuration: {what}")
    extra = _run_differences(a, b)
    if extra:
        lines.append(f"run-wide settings that differ: {extra}")
    keys = ", ".join(["players", "variant", *(c for c in CHANGEABLE if c not in changed)])
    if not matched:
        lines.append(
            f"no configuration of run B has a partner in run A (configurations are matched by "
            f"{keys}): nothing is compared"
        )
        for name, frame in (("A", ca), ("B", cb)):
            shown = sorted({_words(r, vary) for _, r in frame.iterrows()})
            lines.append(
                f"  run {name} plays: " + "; ".join(shown[:8]) + (" ..." if len(shown) > 8 else "")
            )
        return "\n".join(w for line in lines for w in _wrapped(line))
    table = compare(a, b)
    lines.append(
        f"{len(matched)} configuration{'s' if len(matched) != 1 else ''} matched by settings "
        f"({keys})"
    )
    for name, alone, frame in (("B", alone_a, ca), ("A", alone_b, cb)):
        if alone:
            shown = [_words(frame.loc[c], vary) for c in alone]
            lines.append(
                f"no partner in run {name}, not compared: "
                + "; ".join(shown[:6])
                + (f" and {len(shown) - 6} more" if len(shown) > 6 else "")
            )
    if table.empty:
        lines.append("the matched configurations have no finished games to compare")
        return "\n".join(w for line in lines for w in _wrapped(line))
    paired = table[table["paired"]]
    if len(paired):
        n_pairs = int(paired.groupby(["config_a", "config_b"])["pairs"].max().sum())
        lines.append(
            f"{n_pairs} games paired on shared deals (same seed, same bots in the same seats): "
            "differences B - A with 95% paired t intervals, deals as clusters"
        )
        ratio = paired["width_unpaired"] / (paired["ci_high"] - paired["ci_low"])
        ratio = ratio[np.isfinite(ratio)]
        if len(ratio):
            lines.append(
                f"pairing narrowed the intervals: unpaired they would be {ratio.median():.2f}x "
                f"as wide (median over {len(ratio)} differences)"
            )
    unpaired = table[~table["paired"]]
    for why in unpaired["unpaired_because"].dropna().unique():
        lines.append(f"compared unpaired (Newcombe / Welch): {why}")
    found = change_findings(table)
    table = table.assign(detected=found["detected"].to_numpy(), q=found["q"].to_numpy())
    tested = int(found["p"].notna().sum())
    lines.append(
        f"{int(found['detected'].sum())} of {len(table)} differences of the matched "
        f"configurations found after the Benjamini-Hochberg correction for the {tested} that "
        "measured something (q < 0.05; * marks them)"
    )
    for (ca_id, cb_id), group in table.groupby(["config_a", "config_b"], sort=True):
        how = "paired" if group["paired"].iloc[0] else "unpaired"
        lines.append("")
        name = _words(ca.loc[ca_id], vary)
        lines.append(
            f"{name} (configurations {ca_id} -> {cb_id}; {how}, {int(group['pairs'].max())} pairs)"
        )
        width = max(
            len(m if b is None else f"{m} {b}")
            for m, b in zip(group["metric"], group["bot"], strict=True)
        )
        for r in group.itertuples(index=False):
            label = r.metric if r.bot is None else f"{r.metric} {r.bot}"
            mark = " *" if r.detected else ""
            gain = ""
            if r.paired and np.isfinite(r.width_unpaired) and r.ci_high > r.ci_low:
                ratio_one = r.width_unpaired / (r.ci_high - r.ci_low)
                gain = f"  (unpaired: {ratio_one:.1f}x as wide)"
            change = (
                f"nothing could be measured: {r.unmeasured_because}"
                if isinstance(r.unmeasured_because, str)
                else f"B-A {diff_interval(r.kind, r.diff, r.ci_low, r.ci_high)}{mark}  "
                f"q {p_text(r.q)}{gain}"
            )
            lines.append(
                f"  {label:<{width}}  A {value(r.kind, r.value_a):>7}  "
                f"B {value(r.kind, r.value_b):>7}  {change}"
            )
    return "\n".join(w for line in lines for w in _wrapped(line))
