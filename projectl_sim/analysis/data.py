"""Reading run folders into pandas: one run's tables, manifest and records, or several runs'
tables side by side with a ``run`` column."""

from __future__ import annotations

import functools
import glob
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from projectl_sim.analysis.rows import RUN
from projectl_sim.engine.record import read_record
from projectl_sim.errors import ProjectLError, UsageError
from projectl_sim.sim import tables


@dataclass
class Run:
    """A run's tables: ``seats`` (one row per game and seat), ``games`` and the manifest;
    ``events`` and ``rounds`` (the game's flow, read when first asked for) are None for a run
    without them (``--tables core``, or written before they existed)."""

    path: Path
    seats: pd.DataFrame
    games: pd.DataFrame
    manifest: dict[str, Any] = field(repr=False)

    @functools.cached_property
    def events(self) -> pd.DataFrame | None:
        """Return the run's ``events`` table, or None when it has none."""
        return flow_table(self.path, "events")

    @functools.cached_property
    def rounds(self) -> pd.DataFrame | None:
        """Return the run's ``rounds`` table, or None when it has none."""
        return flow_table(self.path, "rounds")

    def has(self, name: str) -> bool:
        """Return whether the run has its ``events`` or ``rounds`` table."""
        if name in self.__dict__:  # read already
            return self.__dict__[name] is not None
        return name in tables.written_tables(self.path)

    def scan(self, name: str, columns: Sequence[str]) -> Iterator[pd.DataFrame]:
        """Yield ``columns`` of the run's ``events`` or ``rounds`` table a window of game ids
        at a time (every row of a game in one window, in game order), read batch by batch: a
        million games' flow is never held whole (``events`` reads it whole, once asked for,
        and is then read from). Nothing for a run without that table."""
        if name in self.__dict__:
            held = self.__dict__[name]
            if held is not None:
                yield held[list(columns)]
            return
        if name not in tables.written_tables(self.path):
            return
        try:
            for window in tables.scan(self.path, name, columns):
                yield window.to_pandas(use_threads=False)
        except ProjectLError:
            raise
        except Exception as exc:  # a truncated or foreign file: one line for the user
            raise UsageError(
                f"{self.path}: unreadable {name} table ({' '.join(str(exc).split())})"
            ) from None

    def records(self) -> Iterator[dict[str, Any]]:
        """Yield the run's stored game records (none unless it was run with ``--records``)."""
        yield from iter_records(self.path)


@dataclass
class Runs:
    """Several runs' tables as one: ``seats`` and ``games`` with a first column ``run``.

    ``run`` names each row's run (its folder's name, or the path as given when two folders
    share a name); ``paths`` and ``manifests`` are keyed by it, in the order given. A game is
    (``run``, ``game_id``): the analysis functions keep the games and deals of different runs
    apart, and pass ``run`` in ``by`` to get a figure per run.
    """

    seats: pd.DataFrame
    games: pd.DataFrame
    paths: dict[str, Path]
    manifests: dict[str, dict[str, Any]] = field(repr=False)

    @property
    def names(self) -> list[str]:
        """Return the runs' names, in the order given."""
        return list(self.paths)

    def run(self, name: str) -> Run:
        """Return one of the runs on its own (its rows, without the ``run`` column)."""
        if name not in self.paths:
            raise UsageError(f"no run named {name!r} (runs: {', '.join(self.paths)})")
        seats = self.seats[self.seats[RUN] == name].drop(columns=RUN).reset_index(drop=True)
        games = self.games[self.games[RUN] == name].drop(columns=RUN).reset_index(drop=True)
        return Run(self.paths[name], seats, games, self.manifests[name])


# The columns the answers of ``summary`` read (``load_run(path, columns=ANSWER_COLUMNS)``): a
# game's identity, configuration and deal, and its outcome. The per-seat tallies (actions, pieces,
# puzzles, credits) and an expansion's own columns are left on disk: they are most of a seat row,
# and every pandas step of the summary copies what it is given.
_IDENTITY = (
    "game_id", "seed", "config_id", "players", "variant", "expansions", "switches", "lineup",
    "tier", "deal", "replicate", "action", "first_player", "decisions", "error",
    "provisional_data", "provisional_sets",
)  # fmt: skip
ANSWER_COLUMNS: dict[str, tuple[str, ...]] = {
    "seats": (
        *_IDENTITY, "seat", "turn_order", "bot", "score", "rank", "won", "win_share",
        "decision_time_mean", "decision_cpu_mean",
    ),
    "games": (
        *_IDENTITY, "rotation", "seats", "rounds", "turns", "end_reason", "winners", "margin",
    ),
}  # fmt: skip


def _read(
    path: Path, columns: Mapping[str, Sequence[str]] | None = None
) -> tuple[dict[str, Any], pa.Table, pa.Table]:
    """Return a run folder's manifest and its seats and games tables (Arrow, the schemas'):
    whole, or only ``columns[name]`` of each."""
    if not path.is_dir():
        raise UsageError(f"{path}: no such run folder")
    manifest = tables.read_manifest(path)
    wanted = columns or {}
    try:
        seats = tables.read_table(path, "seats", wanted.get("seats"))
        games = tables.read_table(path, "games", wanted.get("games"))
    except ProjectLError:
        raise
    except Exception as exc:  # a truncated or foreign file: one line for the user
        raise UsageError(f"{path}: unreadable tables ({' '.join(str(exc).split())})") from None
    return manifest, seats, games


def flow_table(path: str | Path, name: str) -> pd.DataFrame | None:
    """Return a run folder's ``events`` or ``rounds`` table, or None when it has none."""
    path = Path(path)
    if name not in tables.written_tables(path):
        return None
    try:
        return tables.read_table(path, name).to_pandas()
    except ProjectLError:
        raise
    except Exception as exc:  # a truncated or foreign file: one line for the user
        raise UsageError(
            f"{path}: unreadable {name} table ({' '.join(str(exc).split())})"
        ) from None


def load_run(path: str | Path, columns: Mapping[str, Sequence[str]] | None = None) -> Run:
    """Return a run folder's tables and manifest; raise ``UsageError`` if it is not one.

    ``columns`` (``{"seats": [...], "games": [...]}``) reads only those columns of a table it
    names (``ANSWER_COLUMNS``: what ``summary`` reads); a table it does not name is read whole.

    A user's bot goes by the name its class declares (``placer``, the manifest's ``bot_names``)
    in ``bot``, ``lineup`` and ``seats``; the table files keep the spec that builds it again
    (``/abs/path/placer.py:Placer``), which ``play --from`` and ``--resume`` use.
    """
    path = Path(path)
    manifest, seats, games = _read(path, columns)
    names = manifest.get("bot_names") or {}
    return Run(
        path, named_bots(seats.to_pandas(), names), named_bots(games.to_pandas(), names), manifest
    )


BOT_COLUMNS = ("bot", "lineup", "seats", "tier")


def named_bots(table: pd.DataFrame, names: Mapping[str, str]) -> pd.DataFrame:
    """Return ``table`` with each bot source of ``names`` (``/abs/placer.py:Placer``) replaced
    by its name (``placer``) in the bot columns, parameters kept (``placer:eagerness=0.5``)."""
    if not names:
        return table
    # a source is a whole spec's head: at the start or after a comma, then its end, ':' or ','
    heads = "|".join(re.escape(s) for s in sorted(names, key=len, reverse=True))
    pattern = re.compile(f"(?:^|(?<=,))({heads})(?=$|[:,])")
    table = table.copy()
    for column in BOT_COLUMNS:
        if column in table:
            table[column] = table[column].map(
                lambda v: pattern.sub(lambda m: names[m.group(1)], v) if isinstance(v, str) else v
            )
    return table


def _folders(runs: str | Path | Sequence[str | Path]) -> list[Path]:
    """Return the run folders named by a path, a glob, or a list of paths and globs."""
    items = [runs] if isinstance(runs, str | Path) else list(runs)
    if not items:
        raise UsageError("load_runs: no run folder given")
    out: list[Path] = []
    for item in items:
        text = str(item)
        if glob.has_magic(text):
            found = sorted(Path(p) for p in glob.glob(text) if Path(p, tables.MANIFEST).exists())
            if not found:
                raise UsageError(f"{text}: no run folder matches")
            out.extend(found)
        else:
            out.append(Path(item))
    return out


def _names(folders: list[Path]) -> list[str]:
    """Return each folder's run name: its own name, or the path as given when names clash."""
    names = [f.name or str(f) for f in folders]
    clash = {n for n in names if names.count(n) > 1}
    names = [str(f) if n in clash else n for f, n in zip(folders, names, strict=True)]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"{twice[0]}: the same run folder given twice")
    return names


def load_runs(runs: str | Path | Sequence[str | Path]) -> Runs:
    """Return several runs' seats and games as one table each, with a ``run`` column.

    ``runs`` is a folder, a glob (``"results/balance-*"``: the matching folders holding a run,
    sorted) or a list of both. Every table is read with the current schemas, so runs written
    before a column existed (or without an expansion's columns) line up, the missing values
    null. A folder that is not a run is a ``UsageError`` naming it.
    """
    folders = _folders(runs)
    names = _names(folders)
    seats, games, manifests = [], [], {}
    bots: dict[str, str] = {}
    for name, folder in zip(names, folders, strict=True):
        manifest, s, g = _read(folder)
        manifests[name] = manifest
        seats.append(_with_run(s, name))
        games.append(_with_run(g, name))
        bots |= manifest.get("bot_names") or {}
    paths = dict(zip(names, folders, strict=True))
    shown = {s: n for s, n in bots.items() if list(bots.values()).count(n) == 1}
    return Runs(
        named_bots(pa.concat_tables(seats).to_pandas(), shown),
        named_bots(pa.concat_tables(games).to_pandas(), shown),
        paths,
        manifests,
    )


def _with_run(table: pa.Table, name: str) -> pa.Table:
    return table.add_column(0, RUN, pa.array([name] * table.num_rows, pa.string()))


def iter_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the game records stored in a run folder, in game-id order."""
    folder = Path(path) / tables.RECORDS
    for file in sorted(folder.glob("game-*.json")):
        yield read_record(file)
