"""The rows of a run's tables the statistics read: finished games and seats, each row's deal
(the cluster every interval counts, ``stats.clusters``) and game, and the ``run`` column of
several runs' tables (``load_runs``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "CONFIG",
    "RUN",
    "deal_labels",
    "finished_games",
    "finished_seats",
    "game_keys",
    "game_labels",
]

# the settings that name a configuration (with ``config_id``, which numbers them within a run)
CONFIG = ["players", "variant", "expansions", "switches", "lineup"]
RUN = "run"  # the column naming each row's run in the tables of several runs (``load_runs``)


def finished_games(games: pd.DataFrame) -> pd.DataFrame:
    """Return the game rows that finished (no bot error)."""
    return games[games["error"].isna()].copy()


def finished_seats(seats: pd.DataFrame) -> pd.DataFrame:
    """Return the seat rows of games that finished (no bot error), ``won`` as a bool."""
    ok = seats[seats["error"].isna()].copy()
    ok["won"] = ok["won"].astype(bool)
    ok["win_share"] = ok["win_share"].astype(float)
    return ok


def deal_labels(rows: pd.DataFrame) -> pd.Series | None:
    """Return the deal of each row, or None when there is none.

    A deal is its seed: a run's configurations that share deals (the runner's ``shared-deals``
    scheme) share their seeds, so the games they play on one deal are one cluster. Tables without
    seeds name a deal by configuration and deal number; in several runs' tables the run comes
    first (two runs' deals are two deals, whatever their seeds).
    """
    if "seed" in rows and len(rows) and rows["seed"].notna().all():
        label = "s" + rows["seed"].astype("int64").astype(str)
    elif "deal" in rows and not rows["deal"].isna().all():
        config = rows["config_id"].astype(str) if "config_id" in rows else ""
        label = config + "/" + rows["deal"].astype(str)
    else:
        return None
    if RUN in rows:
        label = rows[RUN].astype(str) + "/" + label
    return label


def game_keys(rows: pd.DataFrame) -> list[str]:
    """Return the columns naming a row's game: ``game_id``, after ``run`` in several runs'."""
    return [RUN, "game_id"] if RUN in rows else ["game_id"]


def game_labels(rows: pd.DataFrame) -> np.ndarray:
    """Return each row's game: its ``game_id``, or ``run/game_id`` in several runs' tables."""
    if RUN in rows:
        return (rows[RUN].astype(str) + "/" + rows["game_id"].astype(str)).to_numpy()
    return rows["game_id"].to_numpy()
