"""What a run's tables rest on, in lines, and the two tables of a run read as pandas frames.

The win rates, intervals and every other figure ``projectl-sim summary`` prints are the analysis
layer's (``projectl_sim.analysis``: its statistics in ``analysis.stats``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from projectl_sim.sim import tables


def provenance_lines(games: pd.DataFrame) -> list[str]:
    """Return the lines on what a run's numbers rest on: the provisional data its games dealt
    (column ``provisional_sets``) and its first failed game, each only when there is one."""
    return provenance_lines_of(*provenance_counts(games))


def provenance_counts(games: pd.DataFrame) -> tuple[int, int, set[str], tuple[int, str] | None]:
    """Return what ``provenance_lines`` reads of some games: how many there are, how many dealt
    provisional data and its names, and the first failed game's id and error (None: none
    failed); a window's counts add to another's (``provenance_lines_of``)."""
    used = games["provisional_sets"].dropna() if "provisional_sets" in games else games[:0]
    names = {name for value in used for name in value.split("+")}
    failed = games[games["error"].notna()]
    first = None
    if len(failed):
        row = failed.iloc[0]
        first = (int(row["game_id"]), str(row["error"]))
    return len(games), len(used), names, first


def provenance_lines_of(
    total: int, used: int, names: set[str], first: tuple[int, str] | None
) -> list[str]:
    """Return ``provenance_lines`` from ``provenance_counts`` (of a whole table, or added up)."""
    lines = []
    if used:
        lines.append(
            f"provisional data in {used} of {total} games: {', '.join(sorted(names))} "
            "(column provisional_sets)"
        )
    if first is not None:
        lines.append(f"first failure: game {first[0]}: {first[1].splitlines()[0]}")
    return lines


def read_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return a run's seats and games tables as pandas frames (consolidated, else its parts)."""
    seats = tables.read_table(run_dir, "seats").to_pandas()
    games = tables.read_table(run_dir, "games").to_pandas()
    return seats, games
