"""The verdict lines: one per question a run answers, read from the findings table.

``findings`` decides every verdict (what is detected, after which correction, in which words);
this module picks the rows a verdict line shows (each question's headline rows of ``seats``,
``effect`` and ``pair``) and writes them as text: every detected one (up to ``most`` per
question), then one line for the others of each question.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from projectl_sim.analysis.findings import findings
from projectl_sim.analysis.fmt import NA, points

__all__ = ["VERDICT_COLUMNS", "verdict_lines", "verdicts", "verdicts_of"]

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
_QUESTIONS = ("seats", "effect", "pair")


def verdicts_of(found: pd.DataFrame) -> pd.DataFrame:
    """Return the verdicts of a findings table: its headline rows of the questions with a
    verdict (``VERDICT_COLUMNS``, ``text`` being the finding's ``verdict``, and
    ``unmeasured_because``)."""
    mine = found[found["question"].isin(_QUESTIONS)]
    # a comparison is detected when any of its metrics is (its headline's words name them)
    detected = mine.groupby(["question", "subject"], sort=False)["detected"].transform("any")
    rows = mine.assign(detected=detected.astype(bool))[mine["headline"].astype(bool)]
    out = rows.rename(columns={"q": "q_value", "verdict": "text"})
    return out[[*VERDICT_COLUMNS, "unmeasured_because"]].reset_index(drop=True)


def verdicts(seats: pd.DataFrame, games: pd.DataFrame, **tables: pd.DataFrame) -> pd.DataFrame:
    """Return one verdict per question the run answers (``findings``' headline rows), in words.

    Columns: ``question`` (``seats``, ``effect``, ``pair``), ``subject``, ``detected``, the
    headline ``estimate`` with its 95% interval, ``mde``, ``q_value`` and ``text``. The detail
    tables already computed may be passed, as to ``findings``.
    """
    return verdicts_of(findings(seats, games, **tables))


def verdict_lines(table: pd.DataFrame, wrap: int = 100, most: int = 10) -> list[str]:
    """Return the verdicts as text: every detected one (up to ``most`` per question), then one
    line for the others of each question."""
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
        if "unmeasured_because" in rest:
            blind = rest[rest["unmeasured_because"].notna()]
            rest = rest.drop(blind.index)
            if len(blind):
                text = (
                    f"{len(blind)} {unit}: nothing could be measured ("
                    + "; ".join(sorted(set(blind["unmeasured_because"].astype(str)))[:2])
                    + ")"
                )
                lines += textwrap.wrap(text, wrap, initial_indent="- ", subsequent_indent="  ")
        if len(rest):
            mde = rest["mde"][np.isfinite(rest["mde"]) & (rest["mde"] <= 1)]
            size = f"{points(mde.min())}-{points(mde.max())} pts" if len(mde) else NA
            text = (
                f"the other {len(rest)} {unit}: no detectable {what}; this run detects "
                f"{size} or more in each"
            )
            lines += textwrap.wrap(text, wrap, initial_indent="- ", subsequent_indent="  ")
    return lines
