"""A new puzzle's trial: two runs on the same deals, without it (A) and with it (B), side by side.

The runs come from ``projectl-sim puzzle try`` (``projectl_sim.experiments.trial``): the same
grid and root seed, so each game of B has its twin in A (same seed, same bots in the same seats)
whose deal differs only by the new card (in the place of the one it replaces, or dealt in among the
others). The report reads both runs' tables and records: the new puzzle's use in B
(``puzzle_use``), the replaced puzzle's in A on the same games, the paired difference of how
often each was taken, and ``compare``'s paired differences of the game's balance (the first
player's win rate, so the seat advantage; the margin; the length in rounds; each bot's win
rate) per configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from projectl_sim.analysis import fmt
from projectl_sim.analysis.data import Run, load_run
from projectl_sim.analysis.findings import change_findings
from projectl_sim.analysis.paired import compare
from projectl_sim.analysis.puzzle_use import puzzle_takes, puzzle_use, taken_difference

if TYPE_CHECKING:
    from matplotlib.figure import Figure

METRIC_NAMES = {
    "first_player_rate": "first player's win rate",
    "margin": "winning margin (points)",
    "rounds": "length (rounds)",
    "win_rate": "win rate",
}


@dataclass
class TrialReport:
    """What a new puzzle did in paired games (``trial_report``)."""

    new: str
    replaced: str | None
    use: pd.DataFrame  # puzzle_use of the new card in B (run "with") and the replaced in A
    taken: dict[str, float] | None  # paired difference of the taken rates, B - A
    effects: pd.DataFrame  # compare(A, B), with the findings' ``detected`` (change_findings)
    configs: pd.DataFrame  # per config_id: players, lineup, switches
    pairs: int

    def text(self) -> str:
        """Return the report ``puzzle try`` prints."""
        how = f"in the place of {self.replaced}" if self.replaced else "dealt in among the others"
        lines = [
            f"{self.new} {how}: {self.pairs} paired games (the same seeds with and without it); "
            "95% intervals, deals as clusters"
        ]
        new = self.use[self.use["run"] == "with"]
        old = self.use[self.use["run"] == "without"]
        if not new.empty:
            all_row = new[new["bot"] == "all"].iloc[0]
            lines.append(
                f"taken in {_rate(all_row, 'taken')} of games, completed in "
                f"{_rate(all_row, 'completion')} of its takes, "
                f"{_ppa(all_row)} points per action spent on it"
            )
            for _, r in new[new["bot"] != "all"].iterrows():
                lines.append(
                    f"  by {r['bot']}: taken in {_rate(r, 'taken')} of its seats, "
                    f"completed {_rate(r, 'completion')}, {_ppa(r)} points per action"
                )
        if self.replaced and not old.empty:
            o = old[old["bot"] == "all"].iloc[0]
            lines.append(
                f"{self.replaced} in the same games without it: taken in {_rate(o, 'taken')}, "
                f"completed {_rate(o, 'completion')}, {_ppa(o)} points per action"
            )
            if self.taken is not None and np.isfinite(self.taken["diff"]):
                t = self.taken
                lines.append(
                    f"taken more often than {self.replaced} by "
                    f"{fmt.diff_interval('rate', t['diff'], t['ci_low'], t['ci_high'])} "
                    f"(paired, {int(t['pairs'])} pairs)"
                )
        lines.append("")
        lines.append(
            "what it changes, with it - without it "
            f"(* : a finding, q < 0.05 over the {_measured(self.effects)} differences measured):"
        )
        if self.effects.empty:
            lines.append("  no finished games to compare")
        for config, group in self.effects.groupby("config_b", sort=True):
            c = self.configs.loc[config]
            # the run with it names the added card in its switches: the heading says it already
            switches = ",".join(
                s for s in str(c["switches"]).split(",") if not s.startswith("added_puzzles=")
            )
            lines.append(
                f" {c['players']} players, {c['lineup']}"
                + (f", {switches}" if switches not in ("default", "") else "")
                + f" ({int(group['pairs'].max())} pairs)"
            )
            for r, found in zip(
                group.itertuples(index=False), _detected(self.effects)[group.index], strict=True
            ):
                name = METRIC_NAMES.get(r.metric, r.metric)
                if r.bot:
                    name = f"{name} {r.bot}"
                mark = " *" if found else ""
                change = (
                    f"nothing could be measured: {r.unmeasured_because}"
                    if isinstance(r.unmeasured_because, str)
                    else fmt.diff_interval(r.kind, r.diff, r.ci_low, r.ci_high)
                )
                text = (
                    f"{fmt.value(r.kind, r.value_a):>6} -> {fmt.value(r.kind, r.value_b):>6}  "
                    + change
                )
                lines.append(f"   {name:<34} {text}{mark}")
        return "\n".join(lines)


def _rate(row: pd.Series, name: str) -> str:
    get = row.get
    return fmt.rate_interval(get(f"{name}_rate"), get(f"{name}_ci_low"), get(f"{name}_ci_high"))


def _ppa(row: pd.Series) -> str:
    get = row.get
    value = get("points_per_action")
    if value is None or not np.isfinite(value):
        return fmt.NA
    low, high = get("ppa_ci_low"), get("ppa_ci_high")
    if not (np.isfinite(low) and np.isfinite(high)):
        return f"{value:.2f}"
    return f"{value:.2f} [{low:.2f}, {high:.2f}]"


def trial_report(
    without: Run | str | Path, with_it: Run | str | Path, new: str, replaced: str | None = None
) -> TrialReport:
    """Return the report of a new puzzle's trial from its two runs (A without it, B with it)."""
    a = without if isinstance(without, Run) else load_run(without)
    b = with_it if isinstance(with_it, Run) else load_run(with_it)
    takes_b = puzzle_takes(b.path, [new])
    parts = [puzzle_use(takes_b, b.seats, new).assign(run="with")]
    taken = None
    if replaced:
        takes_a = puzzle_takes(a.path, [replaced])
        parts.append(puzzle_use(takes_a, a.seats, replaced).assign(run="without"))
        taken = taken_difference(takes_a, a.seats, replaced, takes_b, b.seats, new)
    effects = compare(a, b)
    effects["detected"] = change_findings(effects)["detected"].to_numpy(dtype=bool)
    configs = b.games.groupby("config_id")[["players", "lineup", "switches"]].first()
    pairs = int(effects.groupby("config_b")["pairs"].max().sum()) if len(effects) else 0
    return TrialReport(
        new, replaced, pd.concat(parts, ignore_index=True), taken, effects, configs, pairs
    )


def _measured(effects: pd.DataFrame) -> int:
    """Return how many differences measured something (the q-values' family)."""
    if "unmeasured_because" not in effects:
        return len(effects)
    return int(effects["unmeasured_because"].map(lambda r: not isinstance(r, str)).sum())


def _detected(effects: pd.DataFrame) -> pd.Series:
    """Return the findings' decision on each difference (``trial_report`` puts it there)."""
    return effects["detected"].astype(bool)


_UNITS = {"rate": "percentage points", "margin": "points", "rounds": "rounds"}


def plot_trial(report: TrialReport, fig: Figure | None = None) -> Figure:
    """Draw what the new puzzle changed: each paired difference (with it - without it) and its
    95% interval, a panel per unit (rates in percentage points, the margin in points, the length
    in rounds), so no axis mixes units. Returns the Figure."""
    from projectl_sim.figures import new_figure

    eff = report.effects
    how = f"for {report.replaced}" if report.replaced else "added"
    title = f"{report.new} {how}: with it - without it, 95% (red: a finding, q < 0.05)"
    if eff.empty:
        fig = fig or new_figure(6.4, 1.6)
        ax = fig.add_subplot()
        ax.set_axis_off()
        ax.set_title(f"{report.new}: no finished games to compare")
        return fig
    unit = [("rate" if k == "rate" else m) for m, k in zip(eff["metric"], eff["kind"], strict=True)]
    groups = list(dict.fromkeys(unit))
    sizes = [unit.count(g) for g in groups]
    if fig is None:
        fig = new_figure(6.4, 0.9 + sum(0.75 + 0.32 * n for n in sizes))
    axes = fig.subplots(len(groups), 1, squeeze=False, gridspec_kw={"height_ratios": sizes})[:, 0]
    scale = np.where(eff["kind"] == "rate", 100.0, 1.0)
    d = eff["diff"].to_numpy(dtype=float) * scale
    low = eff["ci_low"].to_numpy(dtype=float) * scale
    high = eff["ci_high"].to_numpy(dtype=float) * scale
    names = [
        METRIC_NAMES.get(m, m).split(" (")[0] + (f" {b}" if b else "")
        for m, b in zip(eff["metric"], eff["bot"].fillna(""), strict=True)
    ]
    for ax, group in zip(axes, groups, strict=True):
        rows = [i for i, u in enumerate(unit) if u == group]
        ys = np.arange(len(rows))[::-1]
        for y, i in zip(ys, rows, strict=True):
            colour = "#d62728" if _detected(eff).iloc[i] else "#1f77b4"
            err = np.nan_to_num([[max(d[i] - low[i], 0)], [max(high[i] - d[i], 0)]])
            bars = ax.errorbar([d[i]], [y], xerr=err, fmt="o", color=colour, capsize=3)
            for artist in bars.get_children():
                artist.set_clip_on(False)
        ax.axvline(0, color="#888888", linewidth=0.8)
        ax.set_yticks(ys, [names[i] for i in rows], fontsize=8)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.margins(x=0.15)
        ax.set_xlabel(f"difference ({_UNITS.get(group, group)})", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
    fig.suptitle(title, fontsize=9)
    return fig
