"""The text ``projectl-sim summary RUN`` prints: the answers first, the long tables last.

In order: what the run played; (for a run grown with ``--until-precision``) whether it reached
the precision asked; the seat advantage of every configuration with its intervals and test, and
what a run of this size can detect; what each expansion set and rules switch changes against the
base game (the differences that survive the correction for the many comparisons, the minimum
detectable effects and the games a chosen precision needs); the Plackett-Luce ratings on the
one scale (greedy = 0 when rated); every pair's head-to-head; seconds per decision per bot; then
the win-rate tables by bot, turn order and configuration. Configurations are named by the
settings that vary only, expansion sets abbreviated (the key is printed), grouped by player count
and sorted by value, so 48 or 92 configurations stay readable. Every number comes from the
tables: nothing is re-simulated. What is found (the verdicts, the seats found unequal, the
effects that survive the correction) is the findings table's (``findings``), computed once with
the detail tables it rests on: the text prints it and decides nothing.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis import labels
from projectl_sim.analysis.data import ANSWER_COLUMNS, Run, load_run
from projectl_sim.analysis.deals import deal_lines, deal_variance
from projectl_sim.analysis.factors import CONFIG, effects
from projectl_sim.analysis.findings import SEAT_HALF_WIDTH, config_key, findings
from projectl_sim.analysis.fmt import (
    NA,
    diff_interval,
    ordinal,
    p_text,
    pct,
    points,
    rate_interval,
    value,
)
from projectl_sim.analysis.outcomes import seat_advantage, summarize
from projectl_sim.analysis.ratings import pair_results, rate_bots
from projectl_sim.analysis.rows import finished_games
from projectl_sim.analysis.sequential import precision_check
from projectl_sim.analysis.streamed import header_counts, streamed_details
from projectl_sim.analysis.tiers import skill_interactions, templates_of, tier_lines, tiers_of
from projectl_sim.analysis.timing import decision_times
from projectl_sim.analysis.verdicts import verdict_lines, verdicts, verdicts_of
from projectl_sim.sim.summary import provenance_lines_of

__all__ = ["summary_of", "summary_text", "verdicts_text", "whole_details"]

MAX_FLAGGED = 20  # flagged effects listed in full before "... and N more"


WIDTH = 100  # prose is wrapped to this many characters; tables are as wide as they need


def _prose(text: str, indent: str = "") -> list[str]:
    """Return ``text`` wrapped to ``WIDTH`` characters, every line indented."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent)


def _mde(kind: str, mde: float) -> str:
    if not np.isfinite(mde):
        return NA
    if kind == "rate":
        return "> 100 pts" if mde > 1 else f"{100 * mde:.1f} pts"
    return f"{mde:.2f}"


def _seconds(s: float) -> str:
    if not np.isfinite(s):
        return NA
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def _table(rows: list[list[str]], header: list[str], right: set[int] | None = None) -> list[str]:
    """Return rows as aligned text columns (``right``: the columns aligned right)."""
    right = right or set()
    cells = [header, *rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]


# -- sections ------------------------------------------------------------------------------------
def _header(run: Run) -> list[str]:
    return _header_lines(header_counts(run.games))


def _header_lines(counts: Mapping[str, Any]) -> list[str]:
    """Return the summary's first lines: what the run played, how its games ended."""
    failed, configs = counts["failed"], counts["configs"]
    lines = [
        f"{counts['games']} games, {failed} failed (left out of every figure), "
        f"{len(configs)} configuration{'s' if len(configs) != 1 else ''}"
    ]
    shared = labels.constant_settings(configs)
    if shared:
        lines.append(f"every game: {shared}")
    vary = labels.varying(configs)
    if vary:
        names = {
            "players": "player counts",
            "variant": "variants",
            "expansions": "expansion sets",
            "switches": "switch settings",
            "lineup": "line-ups",
        }
        counted = {c: configs[c].nunique() for c in vary}
        if "lineup" in counted:  # a line-up repeated over more seats is the same line-up
            counted["lineup"] = configs["lineup"].map(labels.lineup_unit).nunique()
        lines.append("the grid varies: " + ", ".join(f"{n} {names[c]}" for c, n in counted.items()))
    key = labels.abbreviation_key(configs["expansions"])
    if key:
        lines.append(f"expansion sets abbreviated: {key}; base = none")
    finished = counts["finished"]
    if finished:
        # the most frequent first (ties by name: the same order whichever way it was counted)
        reasons = sorted(counts["reasons"].items(), key=lambda r: (-r[1], str(r[0])))
        if {r for r, _ in reasons} == {"rules"}:
            lines.append("ended: all games by the rules")
        else:
            lines.append(
                "ended: "
                + ", ".join(f"{r} {n / finished:.1%}" for r, n in reasons)
                + " (truncated games count as played)"
            )
        lines.append(
            f"shared wins: {counts['shared'] / finished:.1%} (a k-way shared win counts 1/k)"
        )
    lines += provenance_lines_of(*counts["provenance"])
    return lines


def _precision_section(run: Run) -> list[str]:
    asked = run.manifest.get("precision")
    if not isinstance(asked, Mapping):
        return []
    check = precision_check(
        run.seats,
        run.games,
        width=float(asked["width"]),
        quantities=tuple(asked.get("quantities", ("first_player",))),
        widths=asked.get("widths"),
        max_games=asked.get("max_games"),
        planned_deals=asked.get("planned_deals"),
    )
    t = check.intervals
    own = asked.get("widths") or {}
    quantities = list(asked.get("quantities") or ("first_player",))
    what = ", ".join(f"{q} {own[q]:g}" if q in own else q for q in quantities)
    most = (
        f", at most {asked['max_games']} games per configuration" if asked.get("max_games") else ""
    )
    lines = [
        "== Precision on demand ==",
        f"asked: every interval at most {asked['width']} wide ({what or 'nothing measured'}){most}",
        f"stopped: {check.reason}" if check.stop else f"not yet: {check.reason}",
    ]
    lines += _prose(
        f"{int(t['done'].sum())} of {len(t)} intervals at most their target wide: anytime-valid "
        "95% confidence sequences on deals (valid at the stop whatever rule chose it, unlike the "
        "fixed-size intervals below, which are narrower), the furthest from its target first"
    )
    if t.empty:
        return lines
    order = t.assign(_r=(t["width"] / t["target"]).fillna(np.inf)).sort_values(
        "_r", ascending=False, kind="stable"
    )
    names = labels.config_labels(order) if len(order) > 1 else ["all games"]
    rows = []
    for name, r in zip(names, order.itertuples(index=False), strict=True):
        kind = "mean" if r.quantity in ("margin", "rounds") else "rate"
        quantity = {
            "first_player": "first player",
            "win_rate": f"win rate {r.bot}",
            "effects": f"first player vs {r.against}",
        }.get(r.quantity, r.quantity)
        if kind == "rate" and r.quantity == "effects":
            value = diff_interval("rate", r.estimate, r.ci_low, r.ci_high)
        elif kind == "rate":
            value = rate_interval(r.estimate, r.ci_low, r.ci_high, 1)
        else:
            value = f"{r.estimate:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}]"
        width = f"{r.width:.3f}" if np.isfinite(r.width) else NA
        rows.append(
            [
                name,
                quantity,
                value,
                f"{width} / {r.target:g}",
                "yes" if r.done else "no",
                str(r.games),
            ]
        )
    shown = rows[:MAX_FLAGGED]
    lines.extend(
        "  " + x
        for x in _table(
            shown,
            ["configuration", "quantity", "estimate [95% CS]", "width / target", "done", "games"],
            right={3, 5},
        )
    )
    if len(rows) > len(shown):
        lines.append(f"  ... and {len(rows) - len(shown)} more, all narrower against their target")
    return lines


def _seat_section(table: pd.DataFrame, found: pd.DataFrame) -> list[str]:
    """Return the seat section: ``table`` is ``seat_advantage(seats, by=CONFIG)``, ``found``
    the run's findings (their seat rows decide what is detected)."""
    lines = ["== Seat advantage per configuration =="]
    seat_rows = found[found["question"] == "seats"].set_index("configuration")
    if table.empty:
        return [*lines, "no game with two or more seats"]
    lines += _prose(
        "share of the wins by turn order (1st = first player) with 95% Wilson intervals, against "
        "the fair share 1/N; p: test of equal shares (exact below 5 expected wins per seat, else "
        "chi-square); q: Benjamini-Hochberg over the configurations tested; sorted by the first "
        "player's share"
    )
    configs = table.drop_duplicates(CONFIG)
    vary = labels.varying(configs)
    settings = [c for c in vary if c in ("expansions", "switches")]
    # a block per player count (and line-up when each line-up met several settings), a row per
    # configuration in it
    blocks = ["players", "variant", *(["lineup"] if "lineup" in vary and settings else [])]
    named = settings or [c for c in vary if c == "lineup"] or ["expansions"]
    for key, block in table.groupby(blocks, sort=True):
        where = dict(zip(blocks, key, strict=True))
        players = int(where["players"])
        wide = block.pivot_table(
            index=CONFIG, columns="turn_order", values=["share", "ci_low", "ci_high"]
        )
        meta = block.drop_duplicates(CONFIG).set_index(CONFIG)
        order = wide["share"][0].sort_values(ascending=False, kind="stable").index
        names = labels.config_labels(pd.DataFrame(list(order), columns=CONFIG), named)
        share, low, high = (wide[v].to_dict("index") for v in ("share", "ci_low", "ci_high"))
        rows = []
        for name, config in zip(names, order, strict=True):
            f = seat_rows.loc[config_key(dict(zip(CONFIG, config, strict=True)))]
            cells = [
                rate_interval(share[config][t], low[config][t], high[config][t])
                for t in range(players)
            ]
            test = f"{p_text(f['p'])} {f['test']}" if np.isfinite(f["p"]) else NA
            rows.append([name, str(int(f["n"])), *cells, test, p_text(f["q"])])
        header = ["configuration", "games", *(ordinal(t + 1) for t in range(players)), "p", "q"]
        title = f"{players} players, {where['variant']}"
        if "lineup" in where:
            title += f", line-up {labels.short_lineup(where['lineup'])}"
        lines.append("")
        lines.append(f"{title} (fair share {pct(1 / players)}):")
        lines.extend("  " + x for x in _table(rows, header, right={1}))
        unmeasured = meta["unmeasured_because"].map(lambda r: isinstance(r, str))
        for name, config in zip(names, order, strict=True):
            if unmeasured[config]:
                lines += _prose(
                    f"{name}: nothing could be measured: {meta.loc[config, 'unmeasured_because']}",
                    "  ",
                )
        if unmeasured.all():
            continue
        keys = [config_key(dict(zip(CONFIG, c, strict=True))) for c in meta.index[~unmeasured]]
        tested = seat_rows.loc[keys]
        n = len(tested)
        p0 = 1 / players
        mde = tested["mde"].median()
        chance = (
            f"{int(tested['detected'].sum())} of {n} configurations show unequal seats after the "
            f"correction for the {int(seat_rows['p'].notna().sum())} configurations tested "
            "(q < 0.05). "
            if n > 1
            else ""
        )
        lines += _prose(
            f"{chance}MDE of one configuration's first-player share against the fair "
            f"{pct(p0)} (a rate against a fixed value): {points(mde)} pts with "
            f"{tested['n'].median():.0f} games (80% power, 5% level); an interval of "
            f"+-{100 * SEAT_HALF_WIDTH:.0f} pts on that share needs "
            f"{int(tested['games_needed'].iloc[0])} games per configuration.",
            "  ",
        )
    return lines


def _effect_name(row: pd.Series, vary: list[str]) -> str:
    where = [f"{row['players']}p"]
    if "variant" in vary:
        where.append(str(row["variant"]))
    if "lineup" in vary:
        where.append(str(row["lineup"]))
    if row["factor"] == "expansions":
        level = f"{labels.short_expansions(row['level'])} vs base"
        if "switches" in vary and row["switches"] != "default":
            level += f" ({row['switches']})"
    else:
        level = f"{row['level']} vs {row['against']}"
        if "expansions" in vary:
            level += f" ({labels.short_expansions(row['expansions'])})"
    return " ".join([*where, level])


def _metric_name(row: pd.Series) -> str:
    return row["metric"] if row["bot"] is None or pd.isna(row["bot"]) else f"win_rate {row['bot']}"


def _comparison_keys(eff: pd.DataFrame) -> pd.DataFrame:
    """Return one row per comparison (not per metric) of an effects table."""
    return eff.drop_duplicates([*CONFIG_SAME, "factor", "level", "against", "expansions"])


CONFIG_SAME = ["players", "variant", "lineup"]


def _pairing_lines(eff: pd.DataFrame, vary: list[str]) -> list[str]:
    """Return how the effects were computed: paired where the deals were shared, and what the
    pairing bought (the median width ratio unpaired / paired per metric)."""
    comparisons = _comparison_keys(eff)
    paired = comparisons[comparisons["paired"].astype(bool)]
    unpaired = comparisons[~comparisons["paired"].astype(bool)]
    lines: list[str] = []
    if len(paired):
        lines += _prose(
            f"difference (with - without) and its 95% interval; {len(paired)} of "
            f"{len(comparisons)} comparisons paired: both configurations played the same deals "
            "(same seeds, same bots in the same seats), paired t on deals as clusters"
            + (
                "; the others unpaired (Newcombe for rates, Welch for means)"
                if len(unpaired)
                else ""
            )
        )
        rows = eff[eff["paired"].astype(bool)]
        ratio = rows["width_unpaired"] / (rows["ci_high"] - rows["ci_low"])
        ratio = ratio[np.isfinite(ratio)]
        if len(ratio):
            per = ratio.groupby(rows.loc[ratio.index, "metric"], sort=False).median()
            lines += _prose(
                "pairing narrowed the intervals: unpaired they would be "
                + ", ".join(f"{v:.2f}x as wide ({_METRIC_WORDS.get(m, m)})" for m, v in per.items())
                + " (median over the paired comparisons)"
            )
    else:
        lines += _prose(
            "difference (with - without) and its 95% interval, unpaired: Newcombe for rates, "
            "Welch for means, deals as independent clusters"
        )
    if len(unpaired):
        reasons = unpaired.groupby("unpaired_because", dropna=False, sort=False)
        for why, group in reasons:
            names = sorted({_effect_name(r, vary) for _, r in group.iterrows()})
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            text = why if isinstance(why, str) else "the configurations share no deal"
            lines += _prose(f"unpaired: {shown} ({text})")
    return lines


_UNITS = {"margin": "points", "rounds": "rounds", "first_player_rate": "pts", "win_rate": "pts"}

_METRIC_WORDS = {
    "first_player_rate": "first player's win rate",
    "margin": "winner's margin",
    "rounds": "game length",
    "win_rate": "bots' win rates",
}


def _effects_section(
    eff: pd.DataFrame, configs: pd.DataFrame, found: pd.DataFrame
) -> tuple[list[str], list[str]]:
    """Return the effects section, and its full table for the end of the text (``found``: the
    run's findings, whose effect rows decide what survives the correction)."""
    lines = ["== Expansion and rules-switch effects against the base game =="]
    if eff.empty:
        lines.append(
            "no expansion set or rules switch was played next to its base game (same players, "
            "variant and line-up)"
        )
        return lines, []
    vary = labels.varying(configs)
    measured = eff["unmeasured_because"].isna()
    n = int(measured.sum())
    # what survives the correction is the findings' to say: their effect rows are the table's,
    # in its order
    decided = found.loc[found["question"] == "effect", "detected"].to_numpy(dtype=bool)
    eff = eff.assign(detected=decided)
    flagged = eff[eff["detected"]].sort_values("p_value")
    lines += _pairing_lines(eff, vary)
    lines += _prose(
        "* = flagged (q < 0.05); q = Benjamini-Hochberg over all rows that measured something"
        + (
            f" ({len(eff) - n} measured nothing: their rates, or their bots' win rates, are 0% "
            "or 100% on both sides)"
            if n < len(eff)
            else ""
        )
    )
    lines += _prose(
        f"{len(flagged)} of {n} differences flagged (q < 0.05: they survive the correction for "
        "the many comparisons)"
    )
    lines.append("")
    lines += _prose(
        "what this run can detect: the difference between two configurations (with - without), "
        "per comparison, 80% power, 5% level"
    )
    rows = []
    for (metric, kind), group in eff.groupby(["metric", "kind"], sort=False):
        mde = float(group["mde"].median())
        need = group["games_needed"].dropna()
        half = float(group["half_width"].iloc[0])
        rows.append(
            [
                metric,
                str(len(group)),
                str(int(group["detected"].sum())),
                _mde(kind, mde) + ("" if kind == "rate" else f" {_UNITS[metric]}"),
                f"{int(group['games'].median())}",
                (f"+-{100 * half:.0f} pts" if kind == "rate" else f"+-{half:g} {_UNITS[metric]}")
                + f": {int(need.median())} games"
                if len(need)
                else NA,
            ]
        )
    lines.extend(
        "  " + x
        for x in _table(
            rows,
            [
                "metric",
                "comparisons",
                "flagged",
                "MDE of the difference",
                "games",
                "for an interval of",
            ],
            right={1, 2, 3, 4},
        )
    )
    lines += _prose(
        "(MDE of the difference, the median over the comparisons: the smallest true change "
        "between the two configurations found 80% of the time at this size, paired where the "
        "deals are shared. It is not the seat section's MDE, which is of one configuration's "
        "share against a fixed 1/N: a difference has two uncertain sides. The last column: the "
        "games per configuration a 95% interval of the difference that narrow needs. An "
        "unflagged difference says only that no change as large as the MDE is likely.)",
        "  ",
    )
    if len(flagged):
        lines.append("")
        lines.append("flagged differences (q < 0.05), smallest p first:")
        rows = []
        for _, r in flagged.head(MAX_FLAGGED).iterrows():
            rows.append(
                [
                    _effect_name(r, vary),
                    _metric_name(r),
                    f"{value(r['kind'], r['base'])} -> {value(r['kind'], r['value'])}",
                    diff_interval(r["kind"], r["diff"], r["ci_low"], r["ci_high"]),
                    p_text(r["q_value"]),
                ]
            )
        lines.extend(
            "  " + x
            for x in _table(rows, ["comparison", "metric", "without -> with", "difference", "q"])
        )
        if len(flagged) > MAX_FLAGGED:
            lines.append(f"  ... and {len(flagged) - MAX_FLAGGED} more (every row: see the end)")
    full = ["== Every effect (long table) =="]
    rows = []
    order = eff.sort_values(["players", "factor", "level", "metric"], kind="stable")
    for _, r in order.iterrows():
        mark = "*" if r["detected"] else ""
        rows.append(
            [
                _effect_name(r, vary),
                _metric_name(r),
                diff_interval(r["kind"], r["diff"], r["ci_low"], r["ci_high"]) + mark,
                _mde(r["kind"], r["mde"]),
                f"{r['games_base']}/{r['games']}",
            ]
        )
    full.extend(_table(rows, ["comparison", "metric", "difference", "MDE", "games"], right={4}))
    return lines, full


def _round_robin_header(run: Run) -> list[str]:
    """Return what a round robin played (nothing for another run)."""
    config = run.manifest.get("config") or {}
    bots = config.get("round_robin")
    if not bots:
        return []
    counts = sorted(int(p) for p in run.games["players"].unique())
    subsets = ", ".join(
        "every pair" if p == 2 else ("all together" if p == len(bots) else f"every {p}")
        for p in counts
    )
    at = ", ".join(str(p) for p in counts)
    return [
        f"round robin of {len(bots)} bots: {subsets} at {at} players, every subset on the same "
        "deals under every seat rotation"
    ]


def _ratings_section(rated: pd.DataFrame) -> list[str]:
    """Return the ratings section of a ``rate_bots`` table."""
    lines = ["== Ratings (Plackett-Luce on every game's order of finish) =="]
    if rated.empty:
        return [*lines, "no game seated two different bots: nothing to rate"]
    lines += _prose(
        f"{rated['scale'].iloc[0]} (400 points = 10:1 odds); 95% profile likelihood intervals; "
        "games independent"
    )
    rows = []
    for r in rated.itertuples(index=False):
        if np.isfinite(r.rating) and np.isnan(r.ci_low):
            value = f"{r.rating:+.0f} (the reference)"
        elif np.isfinite(r.rating) and r.ci_low == r.ci_high == r.rating:
            value = f"{r.rating:+.0f} (the anchor)"
        elif np.isfinite(r.rating):
            value = f"{r.rating:+.0f} [{r.ci_low:+.0f}, {r.ci_high:+.0f}]"
        else:
            value = {np.inf: "+inf", -np.inf: "-inf"}.get(r.rating, NA)
        rows.append([r.bot, value, str(r.games), f"{r.wins:g}", r.note])
    lines.extend(_table(rows, ["bot", "rating [95%]", "games", "wins", ""], right={2, 3}))
    return lines


def _h2h_matrix(pairs: pd.DataFrame, order: list[str]) -> list[str]:
    """Return a player count's head-to-head as a matrix: the row bot's score against the column
    bot, bots numbered in ``order`` (best first)."""
    met = set(pairs["bot"])
    bots = [b for b in order if b in met] + sorted(met - set(order))
    number = {b: str(i + 1) for i, b in enumerate(bots)}
    score = {(r.bot, r.opponent): r.rate for r in pairs.itertuples(index=False)}

    def cell(b: str, o: str) -> str:
        # the upper bot's score rounded (halves up), the lower's its complement: the two add to
        # 100 (57.5% and 42.5% are 58% and 42%, not 57% and 42%)
        upper, lower = (b, o) if bots.index(b) < bots.index(o) else (o, b)
        rate = score.get((upper, lower))
        if rate is None:
            rate = None if score.get((lower, upper)) is None else 1 - score[(lower, upper)]
        if rate is None:
            return ""
        points = int(np.floor(100 * rate + 0.5 + 1e-9))
        return f"{points if b == upper else 100 - points}%"

    rows = [[f"{number[b]} {b}", *("-" if o == b else cell(b, o) for o in bots)] for b in bots]
    header = ["", *(number[b] for b in bots)]
    return _table(rows, header, right=set(range(1, len(bots) + 1)))


def _h2h_section(pairs: pd.DataFrame, order: list[str] | None = None) -> list[str]:
    """Return the head-to-head section of a ``pair_results(seats, by=("players",))`` table."""
    lines = ["== Head to head, per pair and player count =="]
    if pairs.empty:
        return [*lines, "no game seated two different bots"]
    for players, group in pairs.groupby("players", sort=True):
        if group["bot"].nunique() < 3:
            continue  # one pair: the list below says it all
        lines.append(
            f"{players} players: the row bot's match score against the column bot (best rated "
            "first; intervals below)"
        )
        lines.extend("  " + x for x in _h2h_matrix(group, order or []))
        lines.append("")
    lines += _prose(
        "the first bot's match score against the second (1 ahead, 1/2 level, 0 behind, averaged "
        "per game) with 95% Wilson intervals on games"
    )
    ahead = pairs[
        (pairs["rate"] > 0.5) | ((pairs["rate"] == 0.5) & (pairs["bot"] < pairs["opponent"]))
    ]
    ahead = ahead.sort_values(["players", "rate"], ascending=[True, False])
    rows = [
        [
            f"{r.players}p",
            r.bot,
            r.opponent,
            rate_interval(r.rate, r.ci_low, r.ci_high, 1),
            str(r.games),
        ]
        for r in ahead.itertuples(index=False)
    ]
    lines.extend(_table(rows, ["", "bot", "against", "score [95%]", "games"], right={4}))
    return lines


def _time_section(times: pd.DataFrame) -> list[str]:
    """Return the time section of a ``decision_times`` table."""
    lines = ["== Time per decision =="]
    if times.empty:
        return [*lines, "the tables hold no timing column"]
    clock = times["clock"].iloc[0]
    lines.append(
        "CPU seconds per decision"
        if clock == "cpu"
        else "wall-clock seconds per decision (the tables have no CPU column: a busy machine "
        "inflates these)"
    )
    rows = [
        [
            r.bot,
            f"{_seconds(r.seconds_per_decision)} [{_seconds(r.ci_low)}, {_seconds(r.ci_high)}]",
            f"{r.decisions}",
            _seconds(r.seconds_per_game),
        ]
        for r in times.itertuples(index=False)
    ]
    lines.extend(
        _table(rows, ["bot", "per decision [95%]", "decisions", "per seat and game"], right={2, 3})
    )
    return lines


def _rates(table: pd.DataFrame, title: str, name_columns: list[str]) -> list[str]:
    rows = []
    for r in table.itertuples(index=False):
        d = r._asdict()
        rows.append(
            [
                *(
                    str(labels.short_expansions(d[c]) if c == "expansions" else d[c])
                    for c in name_columns
                ),
                str(d["played"]),
                rate_interval(d["win_rate"], d["ci_low"], d["ci_high"], 1),
                f"{d['mean_score']:.1f}",
            ]
        )
    out = [title]
    out.extend(
        _table(
            rows,
            [*name_columns, "played", "win rate [95% CI]", "mean score"],
            right={len(name_columns), len(name_columns) + 2},
        )
    )
    return out


def _tables_section(parts: Mapping[str, pd.DataFrame]) -> list[str]:
    """Return the win-rate tables' section of ``summarize``'s tables."""
    lines = ["== Win-rate tables =="]
    lines.extend(
        _rates(
            parts["bot"], "by bot (win rate counts a k-way shared win as 1/k)", ["players", "bot"]
        )
    )
    lines.append("")
    lines.extend(
        _rates(
            parts["turn_order"],
            "by turn order (0 = first player), all configurations of a player count together",
            ["players", "turn_order"],
        )
    )
    config = parts["config"]
    if config["config_id"].nunique() > 1:
        shown = [c for c in ("players", *labels.varying(config, CONFIG[1:])) if c in config]
        lines.append("")
        lines.extend(_rates(config, "by configuration", [*shown, "bot"]))
    return lines


def _flow_sections(flow: pd.DataFrame | None, states: list) -> list[list[str]]:
    """Return the game flow (a ``flow_summary`` table, None when the run has no flow tables)
    and the failure states, as ``summary`` sections."""
    from projectl_sim.analysis.failures import failure_lines
    from projectl_sim.analysis.game_flow import flow_lines

    out = []
    if flow is not None:
        lines = flow_lines(flow)
        if lines:
            out.append(lines)
    if states:
        out.append(["== Failure states ==", *failure_lines(states)])
    return out


def _flow_tables(run: Run) -> tuple[pd.DataFrame | None, list]:
    """Return the run's ``flow_summary`` (None without a rounds table) and failure states."""
    from projectl_sim.analysis.failures import failure_states
    from projectl_sim.analysis.game_flow import flow_summary, run_flow

    flow = run_flow(run)  # the rounds read a window of games at a time
    return (flow_summary(flow) if flow is not None else None), failure_states(run)


def summary_text(run: Run | str | Path, *, half_widths: Mapping[str, float] | None = None) -> str:
    """Return what ``projectl-sim summary RUN`` prints: the answers first, long tables last.

    ``half_widths`` sets the interval half-width the effects' ``games needed`` sizes for, per
    metric (default ``factors.HALF_WIDTHS``: 5 points for rates, 1 for margin and rounds).

    Given a folder, a run whose questions are all counts (one bot per line-up, no configuration
    beside its base game, no tiers, deal replicates, precision target or round robin) is read a
    window of games at a time (``streamed``), in memory that does not grow with its games; any
    other is read whole. Both feed the same detail tables to ``findings`` and print the same.
    """
    if not isinstance(run, Run):
        details = streamed_details(Path(run))
        if details is not None:
            return summary_of(details)
        run = load_run(run, ANSWER_COLUMNS)
    return summary_of(whole_details(run, half_widths=half_widths))


def whole_details(run: Run, *, half_widths: Mapping[str, float] | None = None) -> dict[str, Any]:
    """Return the detail tables the summary prints, from a run's tables read whole."""
    seats, games = run.seats, run.games
    details: dict[str, Any] = {"run": run, "header": header_counts(games)}
    if finished_games(games).empty:
        return details
    details |= {
        "seat_table": seat_advantage(seats, by=CONFIG),
        "effects": effects(seats, games, half_widths=half_widths),
        "pairs": pair_results(seats, by=("players",)),
        "rated": rate_bots(seats),
        "times": decision_times(seats),
        "win_tables": summarize(seats),
    }
    details["flow"], details["states"] = _flow_tables(run)
    templates = templates_of(run.manifest)
    inter = skill_interactions(seats, games, templates) if len(tiers_of(games)) > 1 else None
    replicated = int((run.manifest.get("config") or {}).get("deal_replicates") or 1) > 1
    details["inter"] = inter
    details["extra"] = [
        deal_lines(deal_variance(seats, games), WIDTH) if replicated else [],
        tier_lines(seats, games, WIDTH, templates, inter),
    ]
    details["found"] = findings(
        seats,
        games,
        seat_table=details["seat_table"],
        effect_table=details["effects"],
        pairs=details["pairs"],
        rated=details["rated"],
        times=details["times"],
        flow=details["flow"],
        failures=details["states"],
        tiers=inter,
    )
    return details


def summary_of(details: Mapping[str, Any]) -> str:
    """Return the summary's text from its detail tables (``whole_details`` or
    ``streamed.streamed_details``): it prints them, and decides nothing."""
    run = details["run"]
    round_robin = _round_robin_header(run)
    sections = [[*round_robin, *_header_lines(details["header"])]]
    if "found" not in details:  # no game finished
        return "\n".join(sections[0])
    found, rated, pairs, times = (details[k] for k in ("found", "rated", "pairs", "times"))
    verdict_rows = verdicts_of(found)
    if len(verdict_rows):
        sections.append(["== Verdicts (one per question) ==", *verdict_lines(verdict_rows, WIDTH)])
    precision = _precision_section(run)
    if precision:
        sections.append(precision)
    bots = [*rated["bot"]] if len(rated) else []
    # a round robin asks who is strongest first; other runs ask about the game first
    strength = [_ratings_section(rated), _h2h_section(pairs, bots), _time_section(times)]
    if round_robin:
        sections.extend(strength)
    sections.append(_seat_section(details["seat_table"], found))
    configs = details["header"]["configs"]
    effect_lines, long_effects = _effects_section(details["effects"], configs, found)
    sections.append(effect_lines)
    # a run played with --deal-replicates: how much the deal decides; with --tiers: per tier
    for extra in details["extra"]:
        if extra:
            sections.append(extra)
    if not round_robin:
        sections.extend(strength)
    sections.extend(_flow_sections(details["flow"], details["states"]))
    sections.append(_tables_section(details["win_tables"]))
    if long_effects:
        sections.append(long_effects)
    return "\n\n".join("\n".join(s) for s in sections)


def verdicts_text(run: Run | str | Path) -> str:
    """Return what ``run --quiet`` prints: the summary's first line and its verdicts, one per
    question (the rest is ``summary_text``'s)."""
    if not isinstance(run, Run):
        details = streamed_details(Path(run))  # counted window by window, as summary_text
        if details is not None:
            lines = _header_lines(details["header"])[:1]
            if "found" not in details:
                return "\n".join(lines)
            return "\n".join([*lines, *verdict_lines(verdicts_of(details["found"]), WIDTH)])
        run = load_run(run, ANSWER_COLUMNS)
    seats, games = run.seats, run.games
    lines = _header(run)[:1]
    if finished_games(games).empty:
        return "\n".join(lines)
    return "\n".join([*lines, *verdict_lines(verdicts(seats, games), WIDTH)])
