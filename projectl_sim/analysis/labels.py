"""Short names for configurations, so 48 or 92 of them fit a line of text or a chart's axis.

Only the configuration columns that vary in a table name a row (the constant ones are said once,
above it); expansion sets are abbreviated (``ghost_piece+phoenix`` -> ``GP+Ph``: each expansion
class declares its ``abbreviation``, ``expansion_abbreviations``) and a player count reads ``3p``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from projectl_sim.analysis.rows import CONFIG
from projectl_sim.registry import expansion_class
from projectl_sim.rules import expansion_names

__all__ = [
    "abbreviation_key",
    "config_labels",
    "constant_settings",
    "expansion_abbreviations",
    "lineup_unit",
    "short_expansions",
    "short_lineup",
    "varying",
]


def expansion_abbreviations() -> dict[str, str]:
    """Return each registered expansion's short name (its class's ``abbreviation``; a user's
    class without one: the initials of its name's words, ``black_mono`` -> ``BM``)."""
    out = {}
    for name in expansion_names():  # the shipped ones in their canonical order, then users'
        short = getattr(expansion_class(name), "abbreviation", "")
        out[name] = short or "".join(w[:1].upper() for w in name.split("_"))
    return out


def __getattr__(name: str) -> Any:
    if name == "EXPANSION_ABBREVIATIONS":  # its name before the classes declared them
        return expansion_abbreviations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


LABEL_COLUMNS = tuple(CONFIG)


def short_expansions(name: str) -> str:
    """Return an expansion set's short name (``none`` -> ``base``)."""
    if name == "none":
        return "base"
    short = expansion_abbreviations()
    return "+".join(short.get(part, part) for part in str(name).split("+"))


def varying(table: pd.DataFrame, columns: Sequence[str] = LABEL_COLUMNS) -> list[str]:
    """Return the columns of ``columns`` that take more than one value in ``table``.

    A line-up that changes only with the player count (``random`` seated twice, then three
    times) says nothing the player count does not: it varies when one player count has two.
    """
    out = []
    for c in columns:
        if c not in table or table[c].nunique(dropna=False) <= 1:
            continue
        per_count = c == "lineup" and "players" in table
        if per_count and table.groupby("players")["lineup"].nunique(dropna=False).max() <= 1:
            continue
        out.append(c)
    return out


def constant_settings(table: pd.DataFrame, columns: Sequence[str] = LABEL_COLUMNS) -> str:
    """Return the settings every row shares, as ``players 2, variant standard, ...``."""
    parts = []
    for c in columns:
        if c in table and len(table) and table[c].nunique(dropna=False) == 1:
            parts.append(f"{c} {table[c].iloc[0]}")
    return ", ".join(parts)


def lineup_unit(lineup: str) -> str:
    """Return the part of a line-up the runner repeats over the seats (``a,b,a`` -> ``a,b``)."""
    bots = str(lineup).split(",")
    for size in range(1, len(bots)):
        if all(bots[i] == bots[i % size] for i in range(len(bots))):
            return ",".join(bots[:size])
    return str(lineup)


def short_lineup(lineup: str) -> str:
    """Return a line-up without its repetition: ``greedy,random,greedy`` -> ``greedy,random...``.

    The runner repeats a short line-up over the seats, so the repeated part says nothing new.
    """
    unit = lineup_unit(lineup)
    return unit if unit == str(lineup) else unit + "..."


def _value(column: str, value: object) -> str:
    if column == "players":
        return f"{value}p"
    if column == "expansions":
        return short_expansions(str(value))
    if column == "switches" and value == "default":
        return "default rules"
    if column == "lineup":
        return short_lineup(str(value))
    return str(value)


def config_labels(table: pd.DataFrame, columns: Sequence[str] | None = None) -> list[str]:
    """Return one short label per row from the columns that vary (all given ones if forced)."""
    shown = list(columns) if columns is not None else varying(table)
    if not shown:
        return ["all games"] * len(table)
    return [
        " ".join(_value(c, v) for c, v in zip(shown, row, strict=True))
        for row in table[shown].itertuples(index=False)
    ]


def abbreviation_key(expansions: Sequence[str]) -> str:
    """Return the key of the abbreviations used by ``expansions`` (empty when none is)."""
    short = expansion_abbreviations()
    used = {p for e in expansions for p in str(e).split("+")} & set(short)
    return ", ".join(f"{short[n]} = {n}" for n in short if n in used)
