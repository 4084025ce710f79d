"""The findings table: every question a run answers, decided once, in rows of one schema.

A finding is one estimate the toolkit reports and what it concludes from it: the question, its
subject in words, the configuration, the estimate with its 95% interval, its unit and scale
(what 0 or the reference is), the games behind it, the test with its p-value and the q-value of
the multiple-comparison family it belongs to, what the run could detect (the minimum detectable
effect at 80% power and the 5% level), whether it is ``detected``, and the verdict in words.
``summary``, ``report``, the verdict lines and ``run --quiet`` read these rows: they print and
arrange them, and decide nothing.

The questions, each computed by one function of this module from its detail table:

- ``seats`` (``seat_findings``): is the game fair to every seat in this configuration? A row per
  configuration of two seats or more: the first player's share of the wins against the fair
  1/N, tested against equal shares of every turn order (``outcomes.seat_advantage``).
  *Detected* when Benjamini-Hochberg over the configurations tested gives q < 0.05: the family
  is the configurations whose seats could be measured (``measurable``). The MDE is of one
  configuration's first-player share against the fixed 1/N.
- ``effect`` (``effect_findings``): what an expansion set or a rules switch changes, against the
  base game, at this player count and line-up. A row per comparison and metric
  (``factors.effects``, paired where the deals are shared); *detected* when q < 0.05, the family
  being every effect row that measured something (``factors.effects`` adjusts it there, once).
  The comparison's headline (``headline``: the first player's win rate, a solo game's win rate)
  carries the verdict line, naming the other metrics that changed; the comparison is detected
  when any of its rows is.
- ``pair`` (``pair_findings``): does one bot beat another at this player count? The match score
  with its interval (``ratings.pair_results``); detected when the interval leaves out 1/2.
- ``rating`` (``rating_findings``): each bot's Plackett-Luce rating on the Elo scale, the anchor
  named in ``scale`` (``ratings.rate_bots``). An estimate, not a test.
- ``timing`` (``timing_findings``): each bot's seconds per decision (``timing.decision_times``).
- ``flow`` (``flow_findings``): lead changes, when the game was decided, comebacks and the
  margin per configuration (``game_flow.flow_summary``); ``failure`` (``failure_findings``):
  each failure state's share of the games (``failures.failure_states``). Estimates, no test.
- ``tier`` (``tier_findings``): how an answer or an effect changes from one tier of skill to
  the next (``tiers.skill_interactions``, which flags them once: interval and q < 0.05).
- ``change`` (``change_findings``, for ``compare``): what run B changes against run A, a row per
  matched configuration and metric (``paired.compare``); *detected* when q < 0.05 over the two
  runs' differences.

A difference whose interval leaves out 0 but does not survive the correction is called what it
is: not a finding at this many comparisons. Rows a run could not measure keep their estimate,
get ``unmeasured_because`` and are never detected (see ``measurable``).

- ``card`` and ``piece`` (``strength_findings``): which puzzle cards and reward pieces win
  games beyond their peers (``cards.card_strength``, ``cards.piece_strength``): a headline row
  (how many flagged, what a typical one needs to be), then per card its raw and adjusted lift
  and its excess over its peers, *detected* when flagged there (Benjamini-Yekutieli q < 0.05
  over the ones tested). ``cards`` prints these rows.
- ``deal`` (``deal_findings``): the share of an outcome's variance the deal decides, per
  configuration and outcome (``deals.deal_variance``): an estimate with a bootstrap interval;
  the verdict is the share as shown. ``deals`` and the summary print these rows.
- ``puzzle value`` (``puzzle_value_findings``): do bots take the better-paid puzzles more often
  (a Spearman rank correlation over the catalogue, a family of one)?
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.factors import CONFIG
from projectl_sim.analysis.fmt import (
    diff_interval,
    ordinal_word,
    p_text,
    pct,
    points,
    rate_interval,
)
from projectl_sim.analysis.labels import varying
from projectl_sim.analysis.pairs import expansion_title
from projectl_sim.analysis.stats import ALPHA, games_needed, minimum_detectable_effect, q_values

__all__ = [
    "FINDING_COLUMNS",
    "SEAT_HALF_WIDTH",
    "Finding",
    "change_findings",
    "config_key",
    "config_words",
    "deal_findings",
    "effect_findings",
    "failure_findings",
    "findings",
    "flow_findings",
    "pair_findings",
    "puzzle_value_findings",
    "rating_findings",
    "seat_findings",
    "strength_findings",
    "strength_flag",
    "strength_table",
    "tier_findings",
    "timing_findings",
]

SEAT_HALF_WIDTH = 0.05  # the interval half-width a seat finding's games_needed sizes for


@dataclass(frozen=True, slots=True)
class Finding:
    """One estimate a run reports and what it concludes from it (a row of ``findings``)."""

    question: str  # seats, effect, pair, rating, timing
    subject: str  # what the row is about, in words
    configuration: str  # the configuration's ``config_key`` ("" when the row pools every game)
    metric: str  # the quantity estimated (first_player_share, first_player_rate, rating, ...)
    estimate: float
    ci_low: float  # the 95% interval (nan when there is none)
    ci_high: float
    unit: str  # rate, difference of rates, points, rounds, Elo, seconds
    scale: str  # what the estimate is measured from: "fair share 50%", "Elo, greedy = 0", ...
    n: int  # games behind the estimate (decisions for timing)
    test: str = ""  # the test behind p ("" when there is none)
    p: float = np.nan
    q: float = np.nan  # Benjamini-Hochberg over the question's family
    mde: float = np.nan  # the smallest true effect found 80% of the time at this size
    games_needed: float = np.nan  # games per configuration for the question's interval width
    detected: bool = False
    verdict: str = ""  # the verdict in words
    unmeasured_because: str | None = None  # why nothing could be measured (None: measured)
    headline: bool = True  # the row a question's verdict line shows


FINDING_COLUMNS = [f.name for f in fields(Finding)]

# how a metric's change reads in a verdict: (the thing, word when it rises, word when it falls)
_CHANGES = {
    "rounds": ("games", "longer", "shorter"),
    "margin": ("the winner's margin", "wider", "narrower"),
}
_UNITS = {
    "first_player_rate": "difference of rates",
    "win_rate": "difference of rates",
    "margin": "points",
    "rounds": "rounds",
}


def _table(rows: Sequence[Finding]) -> pd.DataFrame:
    """Return findings as a table of ``FINDING_COLUMNS``."""
    return pd.DataFrame(
        [[getattr(r, c) for c in FINDING_COLUMNS] for r in rows], columns=FINDING_COLUMNS
    )


def config_key(row: pd.Series | dict) -> str:
    """Return a configuration's key in the findings table: ``players=2; variant=standard;
    expansions=none; switches=default; lineup=greedy,random`` (the settings a coarser grouping
    has, of a table grouped by fewer)."""
    return "; ".join(f"{c}={row[c]}" for c in CONFIG if c in row)


# a setting a table grouped by fewer settings does not name, read as the rulebook's game
_DEFAULTS = {"variant": "standard", "expansions": "none", "switches": "default", "lineup": ""}


def config_words(row: pd.Series | dict, vary: Sequence[str]) -> str:
    """Return a configuration in words: ``3 players, Ghost Piece, ghost_action=free``."""
    row = _DEFAULTS | {k: v for k, v in dict(row).items()}
    parts = [f"{row['players']} player{'s' if int(row['players']) != 1 else ''}"]
    if "variant" in vary or row["variant"] != "standard":
        parts.append(str(row["variant"]).replace("_", " "))
    if "expansions" in vary or row["expansions"] != "none":
        parts.append(expansion_title(str(row["expansions"])))
    if row["switches"] != "default":
        parts.append(str(row["switches"]))
    elif "switches" in vary:
        parts.append("default rules")
    if "lineup" in vary:
        parts.append(f"line-up {row['lineup']}")
    return ", ".join(parts)


def _p_words(p: float, q: float) -> str:
    """Return ``p 0.004`` (and ``q`` after the correction for many tests, when it differs)."""

    def words(name: str, x: float) -> str:
        return f"{name} < 0.001" if x < 0.001 else f"{name} {x:.3f}"

    return words("p", p) if np.isclose(p, q) else f"{words('p', p)}, {words('q', q)}"


# -- seats ---------------------------------------------------------------------------------------
def seat_findings(table: pd.DataFrame, vary: Sequence[str]) -> list[Finding]:
    """Return a seat finding per configuration of a ``seat_advantage(..., by=CONFIG)`` table (or
    per group of one grouped by fewer settings); ``vary`` names the configuration columns that
    vary in the run."""
    if table.empty:
        return []
    keys = [c for c in CONFIG if c in table]
    configs = table.drop_duplicates(keys)
    q_of = q_values(configs["p_value"])  # the family: every configuration whose seats measured
    # each configuration's rows by turn order, read as plain records (pandas rows cost 0.2 s
    # over 96 configurations)
    orders: dict[tuple, dict[int, dict]] = {}
    for r in table.to_dict("records"):
        orders.setdefault(tuple(r[k] for k in keys), {})[int(r["turn_order"])] = r
    out = []
    for c, q in zip(configs.to_dict("records"), q_of, strict=True):
        mine = orders[tuple(c[k] for k in keys)]
        n = int(c["players"])
        fair = 1 / n
        first = mine[0]
        games = int(first["games"])
        mde = minimum_detectable_effect(np.sqrt(fair * (1 - fair) / games))
        subject = config_words(c, vary)
        share = rate_interval(first["share"], first["ci_low"], first["ci_high"])
        q = float(q)
        reason = c.get("unmeasured_because")
        reason = reason if isinstance(reason, str) else None
        detected = reason is None and bool(np.isfinite(q) and q < ALPHA)
        if reason is not None:
            text = (
                f"{subject}: nothing could be measured about the seats: {reason} (the first "
                f"player wins {share})"
            )
        elif detected:
            far = max(sorted(mine), key=lambda t: abs(mine[t]["share"] - fair))
            tested = _p_words(c["p_value"], q)
            if far == 0:
                lead = "favoured" if first["share"] > fair else "at a disadvantage"
                text = f"{subject}: the first player is {lead} ({tested}): wins {share}"
            else:
                other = mine[far]
                text = (
                    f"{subject}: seats are not equal ({tested}): the "
                    f"{ordinal_word(far + 1)} player wins "
                    f"{rate_interval(other['share'], other['ci_low'], other['ci_high'])}, "
                    f"the first {share}"
                )
            text += f" against a fair {100 * fair:.0f}%"
        else:
            caveat = ""
            if np.isfinite(c["p_value"]) and c["p_value"] < ALPHA:
                caveat = (
                    f" (p {c['p_value']:.3f}, but not after the correction for the "
                    f"{int(configs['p_value'].notna().sum())} configurations tested, q {q:.2f})"
                )
            text = (
                f"{subject}: no detectable seat advantage{caveat}; the first player wins "
                f"{share} against a fair {100 * fair:.0f}%; this run detects a first player's "
                f"share off {100 * fair:.0f}% by {points(mde)} pts or more"
            )
        out.append(
            Finding(
                question="seats",
                subject=subject,
                configuration=config_key(c),
                metric="first_player_share",
                estimate=float(first["share"]),
                ci_low=float(first["ci_low"]),
                ci_high=float(first["ci_high"]),
                unit="rate",
                scale=f"fair share {pct(fair)}",
                n=games,
                test=str(c["test"]),
                p=float(c["p_value"]),
                q=q,
                mde=mde,
                games_needed=float(games_needed(SEAT_HALF_WIDTH, p=fair)),
                detected=detected,
                verdict=text,
                unmeasured_because=reason,
            )
        )
    return out


# -- effects -------------------------------------------------------------------------------------
def _effect_subject(row: dict, vary: Sequence[str]) -> str:
    if row["factor"] == "expansions":
        what = expansion_title(str(row["level"]))
        if row["switches"] != "default":
            what += f" ({row['switches']})"
    else:
        against = "the default" if row["against"] == "default" else row["against"]
        what = f"{row['level']} instead of {against}"
        if row["expansions"] != "none":
            what += f" with {expansion_title(str(row['expansions']))}"
    where = [f"{row['players']} player{'s' if int(row['players']) != 1 else ''}"]
    if "variant" in vary or row["variant"] != "standard":
        where.append(str(row["variant"]).replace("_", " "))
    if "lineup" in vary:
        where.append(f"line-up {row['lineup']}")
    return f"{what} at {', '.join(where)}"


def _headline(group: list[dict]) -> int | None:
    """Return the position in ``group`` of a comparison's headline row (None without one)."""
    for metric in ("first_player_rate", "win_rate"):  # solo: the seat's win rate
        for i, r in enumerate(group):
            if r["metric"] == metric:
                return i
    return None


def _metric_change(r: dict) -> str:
    """Return how a non-headline metric changed, for the headline's verdict: ``games longer,
    +1.20 rounds [...]``."""
    if r["metric"] in _CHANGES:
        thing, up, down = _CHANGES[r["metric"]]
        unit = " rounds" if r["metric"] == "rounds" else " points"
        return (
            f"{thing} {up if r['diff'] > 0 else down}, "
            f"{diff_interval('mean', r['diff'], r['ci_low'], r['ci_high'], unit)}"
        )
    return (
        f"{r['bot']} wins {'more' if r['diff'] > 0 else 'less'}, "
        f"{diff_interval('rate', r['diff'], r['ci_low'], r['ci_high'])}"
    )


def _effect_detected(r: dict) -> bool:
    return not isinstance(r["unmeasured_because"], str) and bool(
        np.isfinite(r["q_value"]) and r["q_value"] < ALPHA
    )


def effect_findings(eff: pd.DataFrame, vary: Sequence[str]) -> list[Finding]:
    """Return an effect finding per row of a ``factors.effects`` table, in its order (its
    q-values are the family's); ``vary`` names the configuration columns that vary in the run."""
    keys = ["players", "variant", "lineup", "factor", "level", "against", "expansions"]
    n_rows = len(eff)
    # plain records, grouped by comparison in their order (pandas rows cost 0.3 s over 96
    # configurations)
    records = eff.to_dict("records")
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out: dict[int, Finding] = {}
    for group in groups.values():
        at = _headline(group)
        subject = _effect_subject(group[0] if at is None else group[at], vary)
        detected = [_effect_detected(r) for r in group]
        for i, r in enumerate(group):
            reason = r["unmeasured_because"] if isinstance(r["unmeasured_because"], str) else None
            what = r["metric"] if r["bot"] is None or pd.isna(r["bot"]) else f"{r['bot']}"
            change = diff_interval(r["kind"], r["diff"], r["ci_low"], r["ci_high"])
            if i == at:
                text = _effect_verdict(group, at, detected, subject, change, n_rows)
            elif reason is not None:
                text = f"{subject}: nothing could be measured about {what}: {reason}"
            else:
                text = f"{subject}: {'' if detected[i] else 'no detectable change, '}{change}"
            out[id(r)] = Finding(
                question="effect",
                subject=subject,
                configuration=config_key(r),
                metric=str(r["metric"]) + ("" if what == r["metric"] else f" {what}"),
                estimate=float(r["diff"]),
                ci_low=float(r["ci_low"]),
                ci_high=float(r["ci_high"]),
                unit=_UNITS.get(str(r["metric"]), str(r["kind"])),
                scale=f"with - without ({r['against']})",
                n=int(r["games"]),
                test="paired t" if r["paired"] else "Newcombe / Welch",
                p=float(r["p_value"]),
                q=float(r["q_value"]),
                mde=float(r["mde"]),
                games_needed=float(r["games_needed"]) if pd.notna(r["games_needed"]) else np.nan,
                detected=detected[i],
                verdict=text,
                unmeasured_because=reason,
                headline=i == at,
            )
    return [out[id(r)] for r in records]  # in the table's order


def _effect_verdict(
    group: list[dict], at: int, detected: list[bool], subject: str, change: str, n_rows: int
) -> str:
    """Return the verdict of a comparison (its rows ``group``, the headline at ``at``)."""
    head = group[at]
    what = (
        "the first player's win rate"
        if head["metric"] == "first_player_rate"
        else f"{head['bot']}'s win rate"
    )
    q = float(head["q_value"])
    if isinstance(head["unmeasured_because"], str):
        text = f"{subject}: nothing could be measured about {what}: {head['unmeasured_because']}"
    elif detected[at]:
        verb = "raises" if head["diff"] > 0 else "lowers"
        text = f"{subject}: {verb} {what}, {change} ({_p_words(head['p_value'], q)})"
    else:
        caveat = ""
        if head["significant"]:
            caveat = (
                f" (its interval leaves out 0, but not after the correction for the "
                f"{n_rows} differences tested, q {q:.2f})"
            )
        mde = head["mde"]
        detects = (
            f"this run detects changes of {100 * mde:.1f} pts or more"
            if np.isfinite(mde) and mde <= 1
            else "this run is too small to detect any change"
        )
        text = f"{subject}: no detectable change in {what}, {change}{caveat}; {detects}"
    for i, r in enumerate(group):
        if i != at and detected[i] and r["metric"] in (*_CHANGES, "win_rate"):
            text += "; " + _metric_change(r)
    return text


# -- bots ----------------------------------------------------------------------------------------
def pair_findings(pairs: pd.DataFrame) -> list[Finding]:
    """Return a finding per pair of bots and player count of a ``ratings.pair_results`` table,
    from the side of the bot ahead."""
    out = []
    ahead = pairs[
        (pairs["rate"] > 0.5) | ((pairs["rate"] == 0.5) & (pairs["bot"] < pairs["opponent"]))
    ]
    for _, r in ahead.sort_values(["players", "rate"], ascending=[True, False]).iterrows():
        subject = f"{r['bot']} against {r['opponent']} at {r['players']} players"
        score = f"{100 * r['rate']:.1f}% [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]"
        detected = bool(r["ci_low"] > 0.5)
        mde = minimum_detectable_effect(np.sqrt(0.25 / r["games"]))
        if detected:
            text = f"{subject}: {r['bot']} is stronger, match score {score} over {r['games']} games"
        else:
            text = (
                f"{subject}: no detectable difference, match score {score}; this run detects a "
                f"score off 50% by {points(mde)} pts or more"
            )
        out.append(
            Finding(
                question="pair",
                subject=subject,
                configuration=f"{r['players']} players",
                metric="match_score",
                estimate=float(r["rate"]),
                ci_low=float(r["ci_low"]),
                ci_high=float(r["ci_high"]),
                unit="rate",
                scale="even 50%",
                n=int(r["games"]),
                test="Wilson interval",
                mde=mde,
                detected=detected,
                verdict=text,
            )
        )
    return out


def rating_findings(rated: pd.DataFrame) -> list[Finding]:
    """Return a finding per bot of a ``ratings.rate_bots`` table (an estimate: no test)."""
    out = []
    for r in rated.itertuples(index=False):
        scale = str(getattr(r, "scale", ""))
        if np.isfinite(r.rating):
            value = f"{r.rating:+.0f}"
            if np.isfinite(r.ci_low):
                value += f" [{r.ci_low:+.0f}, {r.ci_high:+.0f}]"
        else:
            value = {np.inf: "+inf", -np.inf: "-inf"}.get(r.rating, "n/a")
        note = f" ({r.note})" if r.note else ""
        out.append(
            Finding(
                question="rating",
                subject=str(r.bot),
                configuration="",
                metric="rating",
                estimate=float(r.rating),
                ci_low=float(r.ci_low),
                ci_high=float(r.ci_high),
                unit="Elo",
                scale=scale,
                n=int(r.games),
                test="profile likelihood",
                verdict=f"{r.bot}: rating {value} ({scale}){note}",
            )
        )
    return out


def timing_findings(times: pd.DataFrame) -> list[Finding]:
    """Return a finding per bot of a ``timing.decision_times`` table (an estimate: no test)."""
    return [
        Finding(
            question="timing",
            subject=str(r.bot),
            configuration="",
            metric="seconds_per_decision",
            estimate=float(r.seconds_per_decision),
            ci_low=float(r.ci_low),
            ci_high=float(r.ci_high),
            unit="seconds",
            scale=f"{r.clock} clock",
            n=int(r.decisions),
            verdict="",
        )
        for r in times.itertuples(index=False)
    ]


_FLOW = {  # flow_summary's column -> (its interval's columns, unit)
    "lead_changes": ("lead_changes", "lead changes"),
    "decided_share": ("decided_share", "rate"),
    "comeback_rate": ("comeback", "rate"),
    "margin": ("margin", "points"),
}


def flow_findings(summary: pd.DataFrame) -> list[Finding]:
    """Return a finding per configuration and measure of a ``game_flow.flow_summary`` table:
    lead changes, the share of the game after which the winner led for good, the comeback rate
    and the final margin (estimates with their intervals clustered by deal: no test)."""
    vary = [c for c in CONFIG if c in summary and summary[c].nunique() > 1]
    out = []
    for _, r in summary.iterrows():
        for column, (bounds, unit) in _FLOW.items():
            out.append(
                Finding(
                    question="flow",
                    subject=config_words(r, vary),
                    configuration=config_key(r),
                    metric=column,
                    estimate=float(r[column]),
                    ci_low=float(r[f"{bounds}_low"]),
                    ci_high=float(r[f"{bounds}_high"]),
                    unit=unit,
                    scale="per game",
                    n=int(r["games"]),
                )
            )
    return out


def failure_findings(found: Sequence[Any]) -> list[Finding]:
    """Return a finding per ``failures.FailureState``: the share of the finished games that show
    it, with its Wilson interval (a card never taken: the count, no share)."""
    out = []
    for f in found:
        share, low, high = f.share if f.games else (np.nan, np.nan, np.nan)
        out.append(
            Finding(
                question="failure",
                subject=f.state,
                configuration="",
                metric="share_of_games",
                estimate=float(share),
                ci_low=float(low),
                ci_high=float(high),
                unit="rate",
                scale="of the finished games",
                n=int(f.total),
                detected=bool(f.games),
                verdict=f"{f.state}: {f.detail}",
            )
        )
    return out


def tier_findings(inter: pd.DataFrame) -> list[Finding]:
    """Return a finding per row of a ``tiers.skill_interactions`` table: how an answer (or an
    effect) changes from one tier to the next; *detected* is its ``flagged`` (interval leaves
    out 0 and q < 0.05 over the comparisons across tiers, decided there once)."""
    out = []
    for r in inter.to_dict("records"):
        what = f"{r['metric']}" if r["answer"] == "value" else f"{r['level']} on {r['metric']}"
        subject = f"{what} from {r['tier_a']} to {r['tier_b']}"
        change = diff_interval(str(r["kind"]), r["diff"], r["ci_low"], r["ci_high"])
        detected = bool(r["flagged"])
        out.append(
            Finding(
                question="tier",
                subject=subject,
                configuration=config_key(r),
                metric=str(r["metric"]),
                estimate=float(r["diff"]),
                ci_low=float(r["ci_low"]),
                ci_high=float(r["ci_high"]),
                unit="difference of rates" if r["kind"] == "rate" else str(r["kind"]),
                scale=f"{r['tier_b']} - {r['tier_a']}",
                n=int(r["pairs"]),
                test="paired normal",
                p=float(r["p_value"]),
                q=float(r["q_value"]),
                detected=detected,
                verdict=f"{subject}: {'changes with skill' if detected else 'no detectable change'}"
                f", {change}",
            )
        )
    return out


def change_findings(table: pd.DataFrame) -> pd.DataFrame:
    """Return a finding per row of a ``paired.compare`` table (run B against run A), in its
    order: *detected* when its q (Benjamini-Hochberg over the two runs' differences that
    measured something, computed by ``compare``) is below 0.05."""
    rows = []
    for r in table.itertuples(index=False):
        reason = r.unmeasured_because if isinstance(r.unmeasured_because, str) else None
        what = r.metric if r.bot is None or pd.isna(r.bot) else f"{r.metric} {r.bot}"
        subject = f"{r.changed}: {what}"
        change = diff_interval(r.kind, r.diff, r.ci_low, r.ci_high)
        detected = reason is None and bool(np.isfinite(r.q_value) and r.q_value < ALPHA)
        if reason is not None:
            text = f"{subject}: nothing could be measured: {reason}"
        else:
            text = f"{subject}: {'' if detected else 'no detectable change, '}B-A {change}"
        rows.append(
            Finding(
                question="change",
                subject=subject,
                configuration=f"{r.config_a} -> {r.config_b}",
                metric=what,
                estimate=float(r.diff),
                ci_low=float(r.ci_low),
                ci_high=float(r.ci_high),
                unit=_UNITS.get(str(r.metric), str(r.kind)),
                scale="run B - run A",
                n=int(r.pairs),
                test="paired t" if r.paired else "Newcombe / Welch",
                p=float(r.p_value),
                q=float(r.q_value),
                detected=detected,
                verdict=text,
                unmeasured_because=reason,
            )
        )
    return _table(rows)


# -- puzzles, cards, pieces and deals ------------------------------------------------------------
def puzzle_value_findings(value: pd.DataFrame) -> list[Finding]:
    """Return the ``puzzle value`` finding of a ``puzzle_use.puzzle_value`` table: do bots take
    the better-paid puzzles more often? The Spearman rank correlation of points per action and
    times taken per game over the catalogue's puzzles (a family of one: q is p); none when
    either column is constant (nothing to rank)."""
    if value.empty:
        return []
    pairs = value[["points_per_action", "taken_per_game"]].astype(float).fillna(0.0)
    if pairs.nunique().min() <= 1:
        return []
    from scipy import stats as sps  # only here: importing it costs a second

    test = sps.spearmanr(pairs["points_per_action"], pairs["taken_per_game"])
    rho, p = float(test.statistic), float(test.pvalue)
    detected = bool(p < ALPHA)
    if not detected:
        lean = "no clear sign that bots favour the better-paid puzzles"
    elif rho > 0:
        lean = "bots take the better-paid puzzles more often"
    else:
        lean = "bots take the better-paid puzzles less often"
    subject = f"points per action and times taken over the {len(pairs)} puzzles of the catalogue"
    return [
        Finding(
            question="puzzle value",
            subject=subject,
            configuration="",
            metric="spearman_rho",
            estimate=rho,
            ci_low=np.nan,
            ci_high=np.nan,
            unit="rank correlation",
            scale="0 = no relation",
            n=len(pairs),  # puzzles, not games: each puzzle is one point of the correlation
            test="Spearman",
            p=p,
            q=p,
            detected=detected,
            verdict=(
                f"Over the {len(pairs)} puzzles of the catalogue, points per action and times "
                f"taken have a rank correlation of {rho:+.2f} (p {p_text(p)}): {lean}."
            ),
        )
    ]


_STRENGTH = {  # question -> the name column of its strength table, and its peers in words
    "card": ("card", "its colour's other cards"),
    "piece": ("piece", "the other pieces"),
}


def strength_flag(row: Any) -> str:
    """Return a card or piece finding's flag as ``cards`` prints it: ``strong`` or ``weak``
    when detected (above or below its peers), else empty."""
    if not bool(row.detected):
        return ""
    return "strong" if row.estimate > 0 else "weak"


def strength_findings(strength: pd.DataFrame, question: str, games: int) -> list[Finding]:
    """Return the findings of a ``cards.card_strength`` (``question`` ``card``) or
    ``cards.piece_strength`` table (``piece``) of a run of ``games`` finished games.

    A row first (the headline) for the question: how many were flagged of those tested, and the
    excess a card (or piece) of typical precision needs to be flagged four times in five (its
    ``mde``: 80% power at a two-sided 5% test; the correction asks for more). Then per card (or
    piece), in the table's order: its ``lift`` (win share of the seats that completed it less
    the others', within configuration, bot and turn order), for cards its ``adjusted`` lift
    (less what its colour, points and reward level predict), and its ``excess`` over its peers,
    with the score test's p and the Benjamini-Yekutieli q over the ones tested; *detected*
    is ``cards``' flag (q < 0.05, decided there once), ``strong`` above its peers, ``weak``
    below.
    """
    from projectl_sim.analysis.stats import Z95

    key, peers = _STRENGTH[question]
    # the typical precision is the tested ones': an excess whose test had no spread to measure
    # (every game's outcome fixed by its configuration, bot and seat) has an interval of width 0
    mine = strength[strength["p_value"].notna()]
    half = ((mine["excess_high"] - mine["excess_low"]) / 2).to_numpy(dtype=float)
    half = half[np.isfinite(half)]
    size = minimum_detectable_effect(float(np.median(half)) / Z95) if len(half) else np.nan
    tested = len(mine)
    flagged = strength[strength["flag"] != ""]
    can = (
        f"a run of {games} games could detect an excess of about {size:.0%} for a typical "
        f"{question}, not smaller ones"
        if np.isfinite(size)
        else f"too few games to test any {question}"
    )
    if not tested and len(strength[["excess_low"]].dropna()):
        can = (
            "nothing could be tested: within each configuration, bot and turn order every "
            "game ended alike, so no lift has a spread to test"
        )
    if flagged.empty:
        line = f"No {question} stands out from its peers ({tested} tested): {can}."
    else:
        names = ", ".join(f"{r[key]} ({r['flag']})" for _, r in flagged.iterrows())
        line = f"Flagged {len(flagged)} of {tested} {question}s tested: {names}; {can}."
    out = [
        Finding(
            question=question,
            subject=f"every {question}",
            configuration="",
            metric="flagged",
            estimate=float(len(flagged)),
            ci_low=np.nan,
            ci_high=np.nan,
            unit=f"{question}s",
            scale=f"of {tested} tested",
            n=int(games),
            test="score test, Benjamini-Yekutieli",
            mde=size,
            detected=not flagged.empty,
            verdict=line,
        )
    ]
    lift = "completed - not, within configuration, bot and turn order"
    metrics = [("lift", lift)]
    if "adjusted" in strength:  # a card's: a piece has no worth to take out
        metrics.append(("adjusted", "lift less what its colour, points and reward predict"))
    metrics.append(("excess", f"lift - mean lift of {peers}"))
    for r in strength.to_dict("records"):
        name = str(r[key])
        for metric, scale in metrics:
            low, high = float(r[f"{metric}_low"]), float(r[f"{metric}_high"])
            row = Finding(
                question=question,
                subject=name,
                configuration="",
                metric=metric,
                estimate=float(r[metric]),
                ci_low=low,
                ci_high=high,
                unit="difference of rates",
                scale=scale,
                n=int(games),
                headline=False,
            )
            if metric == "excess":
                p, q = float(r["p_value"]), float(r["q_value"])
                detected = r["flag"] != ""
                change = diff_interval("rate", r["excess"], low, high)
                if not np.isfinite(p):
                    text = f"{name}: not tested (too few seats completed it, or missed it)"
                elif detected:
                    side = "above" if r["excess"] > 0 else "below"
                    text = f"{name}: {r['flag']}, {change} {side} {peers} ({_p_words(p, q)})"
                else:
                    text = f"{name}: does not stand out from {peers}, {change}"
                se = (high - low) / 2 / Z95
                row = Finding(
                    **{f: getattr(row, f) for f in FINDING_COLUMNS}
                    | {
                        "test": "score test",
                        "p": p,
                        "q": q,
                        "mde": minimum_detectable_effect(se) if np.isfinite(se) else np.nan,
                        "detected": bool(detected),
                        "verdict": text,
                    }
                )
            out.append(row)
    return out


def strength_table(cards: pd.DataFrame, pieces: pd.DataFrame | None, games: int) -> pd.DataFrame:
    """Return the findings of a run's card (and piece) strength tables (``strength_findings``)."""
    rows = strength_findings(cards, "card", games)
    if pieces is not None and len(pieces):
        rows += strength_findings(pieces, "piece", games)
    return _table(rows)


def _deal_share(r: dict) -> tuple[str, str | None, str]:
    """Return a ``deal_variance`` row's deal's share as shown, why nothing could be measured
    (None when something could) and the note that explains what is shown (empty when it needs
    none): an interval is shown only where the deals' rates spread."""
    if r["span"] == 0:
        # no deal's rate differs from another's: nothing is between deals to resample
        return (
            "none: deals alike",
            (
                "every deal's rate is the same, so no variance is between deals and no interval "
                "exists (in a line-up of different bots the seatings can fix the first player's "
                "share in every deal)"
            ),
            "",
        )
    if not np.isfinite(r["ci_low"]):
        return pct(r["share"]), None, ""
    if r["ci_high"] <= 0 and r["share_raw"] < 0:
        # ICC below 0 in the estimate and the interval: the deals' games differ less
        # between deals than chance makes them differ within one; 0 [0, 0] would read as exact
        return (
            "0% (below 0)",
            None,
            (
                "the estimate and its whole 95% bootstrap interval fall below 0 (the deals' rates "
                "differ less than chance would make them): the deal decides no detectable share, "
                "and a share below 0 has no meaning, so no interval is shown"
            ),
        )
    return rate_interval(r["share"], r["ci_low"], r["ci_high"]), None, ""


def deal_findings(table: pd.DataFrame) -> list[Finding]:
    """Return a finding per row of a ``deals.deal_variance`` table that has a share (its deals
    were played more than once): the share of the outcome's variance between deals, with its
    bootstrap interval (an estimate: no test). ``verdict`` is the share as ``deals`` shows it
    (``41% [26, 58]``; ``none: deals alike`` when no deal's rate differs from another's, which
    measures nothing; ``0% (below 0)`` when the estimate and its interval fall below 0, the
    note then following `` | ``)."""
    out = []
    for r in table[table["share_raw"].notna()].to_dict("records"):
        cell, reason, note = _deal_share(r)
        shown = cell != "0% (below 0)" and np.isfinite(r["ci_low"])
        out.append(
            Finding(
                question="deal",
                subject=str(r["outcome"]),
                configuration=config_key(r) + (f"; tier={r['tier']}" if "tier" in r else ""),
                metric="deal_share",
                estimate=float(r["share"]),
                ci_low=float(r["ci_low"]) if shown else np.nan,
                ci_high=float(r["ci_high"]) if shown else np.nan,
                unit="rate",
                scale="share of the outcome's variance between deals",
                n=int(r["games"]),
                test="bootstrap over the deals",
                verdict=cell + (f" | {note}" if note else ""),
                unmeasured_because=reason,
            )
        )
    return out


def findings(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    seat_table: pd.DataFrame | None = None,
    effect_table: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
    rated: pd.DataFrame | None = None,
    times: pd.DataFrame | None = None,
    flow: pd.DataFrame | None = None,
    failures: Sequence[Any] | None = None,
    tiers: pd.DataFrame | None = None,
    cards: pd.DataFrame | None = None,
    pieces: pd.DataFrame | None = None,
    deals: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Return the findings table of a run: one row per finding (``FINDING_COLUMNS``), the
    questions in the order seats, effect, pair, rating, timing, flow, failure, tier.

    The detail tables a caller already computed may be passed (``seat_advantage(seats,
    by=CONFIG)``, ``effects``, ``pair_results(seats)``, ``rate_bots``, ``decision_times``); each
    one not passed is computed here. The flow (``game_flow.flow_summary``), the failure states
    (``failures.failure_states``) and the changes across tiers (``tiers.skill_interactions``)
    need the run's flow tables or tiers: their rows are there when they are passed, and so are
    the card and piece strength (``cards.card_strength``, ``cards.piece_strength``: questions
    ``card`` and ``piece``) and the deal's share (``deals.deal_variance``: ``deal``).
    """
    from projectl_sim.analysis.factors import effects
    from projectl_sim.analysis.outcomes import seat_advantage
    from projectl_sim.analysis.ratings import pair_results, rate_bots
    from projectl_sim.analysis.rows import finished_seats
    from projectl_sim.analysis.timing import decision_times

    vary = varying(games.drop_duplicates(CONFIG))
    seat_table = seat_advantage(seats, by=CONFIG) if seat_table is None else seat_table
    effect_table = effects(seats, games) if effect_table is None else effect_table
    pairs = pair_results(seats, by=("players",)) if pairs is None else pairs
    rated = rate_bots(seats) if rated is None else rated
    times = decision_times(seats) if times is None else times
    finished = int(finished_seats(seats)["game_id"].nunique())  # the strength tables' games
    return _table(
        [
            *seat_findings(seat_table, vary),
            *effect_findings(effect_table, vary),
            *pair_findings(pairs),
            *rating_findings(rated),
            *timing_findings(times),
            *(flow_findings(flow) if flow is not None else []),
            *failure_findings(failures or []),
            *(tier_findings(tiers) if tiers is not None else []),
            *(strength_findings(cards, "card", finished) if cards is not None else []),
            *(strength_findings(pieces, "piece", finished) if pieces is not None else []),
            *(deal_findings(deals) if deals is not None else []),
        ]
    )
