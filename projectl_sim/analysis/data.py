"""Reading a run folder into pandas: the seat and game tables, the manifest, the records."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from projectl_sim.engine.record import read_record
from projectl_sim.errors import ProjectLError, UsageError
from projectl_sim.sim import tables


@dataclass
class Run:
    """A run's tables: ``seats`` (one row per game and seat), ``games`` and the manifest."""

    path: Path
    seats: pd.DataFrame
    games: pd.DataFrame
    manifest: dict[str, Any] = field(repr=False)

    def records(self) -> Iterator[dict[str, Any]]:
        """Yield the run's stored game records (none unless it was run with ``--records``)."""
        yield from iter_records(self.path)


def load_run(path: str | Path) -> Run:
    """Return a run folder's tables and manifest; raise ``UsageError`` if it is not one."""
    path = Path(path)
    if not path.is_dir():
        raise UsageError(f"{path}: no such run folder")
    manifest = tables.read_manifest(path)
    try:
        seats = tables.read_table(path, "seats").to_pandas()
        games = tables.read_table(path, "games").to_pandas()
    except ProjectLError:
        raise
    except Exception as exc:  # a truncated or foreign file: one line for the user
        raise UsageError(f"{path}: unreadable tables ({' '.join(str(exc).split())})") from None
    return Run(path, seats, games, manifest)


def iter_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the game records stored in a run folder, in game-id order."""
    folder = Path(path) / tables.RECORDS
    for file in sorted(folder.glob("game-*.json")):
        yield read_record(file)
