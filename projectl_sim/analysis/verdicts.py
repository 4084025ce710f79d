"""One verdict per question, in words: what a run concluded, with its interval and what it could
have detected.

The questions a run answers, each a row of ``verdicts``:

- ``seats``: is the game fair to every seat, in this configuration? The turn orders' shares of
  the wins against 1/N (``stats.seat_advantage``'s test); *detected* when the test rejects
  equal shares after Benjamini-Hochberg over the configurations tested (``q`` < 0.05), and the
  verdict names the first player's share, and the seat furthest from its fair share when that is
  another one. The MDE is of one configuration's first-player share against the fixed 1/N.
- ``effect``: what does an expansion set or a switch change, at this player count and line-up?
  The change of the first player's win rate (a solo game's: the seat's win rate) with its
  interval (paired where the deals were shared, ``factors.effects``); *detected* when it
  survives Benjamini-Hochberg over every row of the effects (``q`` < 0.05). The MDE is of the
  *difference* between the two configurations. Other metrics that changed (``q`` < 0.05) are
  said on the same line.
- ``pair``: does one bot beat another, at this player count? The match score with its interval
  (``ratings.pair_results``); detected when the interval leaves out 1/2.

A difference whose 95% interval leaves out 0 but does not survive the correction is called what
it is: not a finding at this many comparisons.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis.factors import CONFIG, effects
from projectl_sim.analysis.fmt import NA, diff_interval, ordinal_word, rate_interval
from projectl_sim.analysis.labels import varying
from projectl_sim.analysis.outcomes import seat_advantage
from projectl_sim.analysis.pairs import expansion_title
from projectl_sim.analysis.ratings import pair_results
from projectl_sim.analysis.stats import ALPHA, minimum_detectable_effect, q_values

__all__ = ["VERDICT_COLUMNS", "verdict_lines", "verdicts"]

VERDICT_COLUMNS = [
    "question",
    "subject",
    "detected",
    "estimate",
    "ci_low",
    "ci_high",
    "mde",
    "q_value",
    "text",
]

# how a metric's change reads in a verdict: (the thing, word when it rises, word when it falls)
_CHANGES = {
    "rounds": ("games", "longer", "shorter"),
    "margin": ("the winner's margin", "wider", "narrower"),
}


def config_words(row: pd.Series | dict, vary: Sequence[str]) -> str:
    """Return a configuration in words: ``3 players, Ghost Piece, ghost_action=free``."""
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


def _effect_subject(row: pd.Series, vary: Sequence[str]) -> str:
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


def _seat_rows(table: pd.DataFrame, vary: Sequence[str]) -> list[dict[str, object]]:
    if table.empty:
        return []
    configs = table.drop_duplicates(CONFIG).copy()
    configs["q"] = q_values(configs["p_value"])
    rows = []
    for _, c in configs.iterrows():
        mine = table
        for col in CONFIG:
            mine = mine[mine[col] == c[col]]
        mine = mine.set_index("turn_order")
        n = int(c["players"])
        fair = 1 / n
        first = mine.loc[0]
        games = int(first["games"])
        mde = minimum_detectable_effect(np.sqrt(fair * (1 - fair) / games))
        subject = config_words(c, vary)
        share = rate_interval(first["share"], first["ci_low"], first["ci_high"])
        q = float(c["q"])
        detected = bool(np.isfinite(q) and q < ALPHA)
        reason = c.get("unmeasured_because")
        if isinstance(reason, str):
            text = (
                f"{subject}: nothing could be measured about the seats: {reason} (the first "
                f"player wins {share})"
            )
        elif detected:
            far = int((mine["share"] - fair).abs().idxmax())
            tested = _p_words(c["p_value"], q)
            if far == 0:
                lead = "favoured" if first["share"] > fair else "at a disadvantage"
                text = f"{subject}: the first player is {lead} ({tested}): wins {share}"
            else:
                other = mine.loc[far]
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
                    f"{len(configs)} configurations tested, q {q:.2f})"
                )
            text = (
                f"{subject}: no detectable seat advantage{caveat}; the first player wins "
                f"{share} against a fair {100 * fair:.0f}%; this run detects a first player's "
                f"share off {100 * fair:.0f}% by {100 * mde:.0f} pts or more"
            )
        rows.append(
            {
                "question": "seats",
                "subject": subject,
                "detected": detected,
                "estimate": float(first["share"]),
                "ci_low": float(first["ci_low"]),
                "ci_high": float(first["ci_high"]),
                "mde": mde,
                "q_value": q,
                "text": text,
            }
        )
    return rows


def _p_words(p: float, q: float) -> str:
    """Return ``p 0.004`` (and ``q`` after the correction for many tests, when it differs)."""

    def words(name: str, x: float) -> str:
        return f"{name} < 0.001" if x < 0.001 else f"{name} {x:.3f}"

    return words("p", p) if np.isclose(p, q) else f"{words('p', p)}, {words('q', q)}"


def _headline(group: pd.DataFrame) -> pd.Series | None:
    first = group[group["metric"] == "first_player_rate"]
    if len(first):
        return first.iloc[0]
    rates = group[group["metric"] == "win_rate"]  # solo: the seat's win rate
    return rates.iloc[0] if len(rates) else None


def _effect_rows(eff: pd.DataFrame, vary: Sequence[str], n_rows: int) -> list[dict[str, object]]:
    rows = []
    keys = ["players", "variant", "lineup", "factor", "level", "against", "expansions"]
    for _, group in eff.groupby(keys, sort=False, dropna=False):
        head = _headline(group)
        if head is None:
            continue
        subject = _effect_subject(head, vary)
        what = (
            "the first player's win rate"
            if head["metric"] == "first_player_rate"
            else f"{head['bot']}'s win rate"
        )
        change = diff_interval("rate", head["diff"], head["ci_low"], head["ci_high"])
        q = float(head["q_value"])
        detected = bool(np.isfinite(q) and q < ALPHA)
        reason = head.get("unmeasured_because")
        if isinstance(reason, str):
            text = f"{subject}: nothing could be measured about {what}: {reason}"
        elif detected:
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
        others = group[(group.index != head.name) & (group["q_value"] < ALPHA)]
        for _, r in others.iterrows():
            if r["metric"] in _CHANGES:
                thing, up, down = _CHANGES[r["metric"]]
                unit = " rounds" if r["metric"] == "rounds" else " points"
                text += (
                    f"; {thing} {up if r['diff'] > 0 else down}, "
                    f"{diff_interval('mean', r['diff'], r['ci_low'], r['ci_high'], unit)}"
                )
            elif r["metric"] == "win_rate":
                text += (
                    f"; {r['bot']} wins {'more' if r['diff'] > 0 else 'less'}, "
                    f"{diff_interval('rate', r['diff'], r['ci_low'], r['ci_high'])}"
                )
        rows.append(
            {
                "question": "effect",
                "subject": subject,
                "detected": detected or bool(len(others)),
                "estimate": float(head["diff"]),
                "ci_low": float(head["ci_low"]),
                "ci_high": float(head["ci_high"]),
                "mde": float(head["mde"]),
                "q_value": q,
                "text": text,
            }
        )
    return rows


def _pair_rows(pairs: pd.DataFrame) -> list[dict[str, object]]:
    rows = []
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
                f"score off 50% by {100 * mde:.0f} pts or more"
            )
        rows.append(
            {
                "question": "pair",
                "subject": subject,
                "detected": detected,
                "estimate": float(r["rate"]),
                "ci_low": float(r["ci_low"]),
                "ci_high": float(r["ci_high"]),
                "mde": mde,
                "q_value": np.nan,
                "text": text,
            }
        )
    return rows


def verdicts(
    seats: pd.DataFrame,
    games: pd.DataFrame,
    *,
    seat_table: pd.DataFrame | None = None,
    effect_table: pd.DataFrame | None = None,
    pairs: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Return one verdict per question the run answers (see the module notes), in words.

    Columns: ``question`` (``seats``, ``effect``, ``pair``), ``subject``, ``detected``, the
    headline ``estimate`` with its 95% interval, ``mde`` (what it is about: see the module
    notes), ``q_value`` and ``text``. The tables already computed may be passed.
    """
    configs = games.drop_duplicates(CONFIG)
    vary = varying(configs)
    table = seat_advantage(seats, by=CONFIG) if seat_table is None else seat_table
    eff = effects(seats, games) if effect_table is None else effect_table
    pairs = pair_results(seats, by=("players",)) if pairs is None else pairs
    rows = [*_seat_rows(table, vary), *_effect_rows(eff, vary, len(eff)), *_pair_rows(pairs)]
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


def verdict_lines(table: pd.DataFrame, wrap: int = 100, most: int = 10) -> list[str]:
    """Return the verdicts as text: every detected one (up to ``most`` per question), then one
    line for the others of each question."""
    import textwrap

    lines: list[str] = []
    names = {
        "seats": ("seat advantage", "configurations"),
        "effect": ("changes", "comparisons"),
        "pair": ("differences between bots", "pairs"),
    }
    for question in ("pair", "seats", "effect"):
        mine = table[table["question"] == question]
        if mine.empty:
            continue
        what, unit = names[question]
        found = mine[mine["detected"]]
        shown = mine if len(mine) <= most else found.head(most)
        for text in shown["text"]:
            lines += textwrap.wrap(text, wrap, initial_indent="- ", subsequent_indent="  ")
        if len(found) > len(shown[shown["detected"]]):
            lines.append(f"- and {len(found) - most} more {what} detected (see below)")
        rest = mine.drop(found.index).drop(shown.index, errors="ignore")
        if len(rest):
            mde = rest["mde"][np.isfinite(rest["mde"]) & (rest["mde"] <= 1)]
            size = f"{100 * mde.min():.0f}-{100 * mde.max():.0f} pts" if len(mde) else NA
            text = (
                f"the other {len(rest)} {unit}: no detectable {what}; this run detects "
                f"{size} or more in each"
            )
            lines += textwrap.wrap(text, wrap, initial_indent="- ", subsequent_indent="  ")
    return lines
