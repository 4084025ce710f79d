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
    lines = []
    if "provisional_sets" in games and games["provisional_sets"].notna().any():
        used = games["provisional_sets"].dropna()
        names = sorted({name for value in used for name in value.split("+")})
        lines.append(
            f"provisional data in {len(used)} of {len(games)} games: {', '.join(names)} "
            "(column provisional_sets)"
        )
    failed = games[games["error"].notna()]
    if len(failed):
        first = failed.iloc[0]
        lines.append(f"first failure: game {first['game_id']}: {first['error'].splitlines()[0]}")
    return lines


def read_run(run_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return a run's seats and games tables as pandas frames (consolidated, else its parts)."""
    seats = tables.read_table(run_dir, "seats").to_pandas()
    games = tables.read_table(run_dir, "games").to_pandas()
    return seats, games
