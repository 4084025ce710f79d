"""Outcome tables of a run: row building, part files, consolidation, and the manifest.

A run directory holds ``seats.parquet`` (one row per game and seat), ``games.parquet`` (one row
per game), ``events.parquet`` and ``rounds.parquet`` (the game's flow, ``sim.flow``: left out by
``--tables core``) and ``manifest.json``. While a run goes on, finished games are appended as
numbered part files under ``parts/seats``, ``parts/games`` (and the flow's), each written to a
temporary name and then renamed, so a killed run leaves only whole files. A game counts as done
once its ``games`` part exists (that part is written last). Consolidation sorts everything by
``game_id, seat`` (the flow's: ``SORT_KEYS``) so the tables are the same whatever the order games
finished in. It streams: the parts are read a window of game ids at a time (their row groups'
statistics say which hold the window), each window sorted and appended to the table, consecutive
windows gathered into one row group (``GROUP_CELLS``), so the parent's memory does not grow with
the games (``merge``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import platform
import shutil
import socket
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from projectl_sim._native import compiled
from projectl_sim.engine.record import write_record
from projectl_sim.errors import UsageError
from projectl_sim.registry import declared_columns

# the rows and names a worker needs live in rows (no pyarrow there); here as before
from projectl_sim.sim.rows import (  # noqa: F401
    ACTION_KINDS,
    FORMATS,
    RECORD_KIND,
    TABLE_SETS,
    ColumnError,
    declared_by,
    game_rows,
)

MANIFEST = "manifest.json"
LOCK = "writer.lock"
RESERVE = ".reserve"  # space set aside for the last manifest when the disk fills up
RESERVE_BYTES = 512 * 1024
PARTS = "parts"
RECORDS = "records"
# the tables every run writes, and those of the game's flow that ``--tables core`` leaves out
CORE_TABLES = ("seats", "games")
FLOW_TABLES = ("events", "rounds")
TABLES = (*CORE_TABLES, *FLOW_TABLES)
# The only columns that differ between two runs of the same configuration and root seed.
TIMING_COLUMNS = {
    "seats": ("decision_time_mean", "decision_cpu_mean"),
    "games": ("duration",),
    "events": (),
    "rounds": (),
}

_CONFIG_FIELDS = [
    pa.field("run_id", pa.string()),
    pa.field("game_id", pa.int64()),
    pa.field("seed", pa.int64()),
    pa.field("config_id", pa.int64()),
    pa.field("players", pa.int64()),
    pa.field("variant", pa.string()),
    pa.field("expansions", pa.string()),
    pa.field("switches", pa.string()),
    pa.field("lineup", pa.string()),
    # the skill tier (``run --tiers``: its bot's spec); null in a run without tiers
    pa.field("tier", pa.string()),
    pa.field("deal", pa.int64()),
    # which play of the deal under its seating (``run --deal-replicates``: the bots' seeds
    # varied; 0 in a run without, null in tables written before the column)
    pa.field("replicate", pa.int64()),
    # a study's action of the seat to move, applied first (``sim.position_study``); null in a
    # run that is no study, and in tables written before the column
    pa.field("action", pa.string()),
]

CONFIG_COLUMNS = tuple(f.name for f in _CONFIG_FIELDS)

_BASE_SEATS = pa.schema(
    [
        *_CONFIG_FIELDS,
        pa.field("seat", pa.int64()),
        pa.field("first_player", pa.int64()),
        pa.field("turn_order", pa.int64()),
        # the bot's name (a user's bot: the name its class declares, ``bot_names``) and the spec
        # that builds it again (null in tables written before the column)
        pa.field("bot", pa.string()),
        pa.field("bot_spec", pa.string()),
        pa.field("score", pa.int64()),
        pa.field("rank", pa.int64()),
        pa.field("won", pa.bool_()),
        pa.field("win_share", pa.float64()),
        pa.field("completed_white", pa.int64()),
        pa.field("completed_black", pa.int64()),
        pa.field("unfinished", pa.int64()),
        pa.field("unfinished_penalty", pa.int64()),
        pa.field("finishing_pieces", pa.int64()),
        pa.field("points_from_puzzles", pa.int64()),
        pa.field("pieces_final", pa.int64()),
        # puzzle ids, space separated: the victory pile in completion order, and those left
        # unfinished; null when there are none (a CSV cell cannot tell "" from null) and in
        # tables written before these columns existed
        pa.field("puzzles_completed", pa.string()),
        pa.field("puzzles_unfinished", pa.string()),
        *[pa.field(f"actions_{k}", pa.int64()) for k in ACTION_KINDS],
        # here: the columns the expansions and variants declare (``schema``)
        pa.field("decisions", pa.int64()),
        pa.field("decision_time_mean", pa.float64()),
        # CPU seconds (null in tables written before this column existed)
        pa.field("decision_cpu_mean", pa.float64()),
        pa.field("provisional_data", pa.bool_()),
        pa.field("provisional_sets", pa.string()),
        pa.field("error", pa.string()),
    ]
)

_BASE_GAMES = pa.schema(
    [
        *_CONFIG_FIELDS,
        pa.field("rotation", pa.int64()),
        pa.field("seats", pa.string()),
        pa.field("first_player", pa.int64()),
        pa.field("rounds", pa.int64()),
        pa.field("turns", pa.int64()),
        pa.field("decisions", pa.int64()),
        pa.field("end_reason", pa.string()),
        pa.field("winners", pa.string()),
        pa.field("winning_bots", pa.string()),
        pa.field("margin", pa.int64()),
        pa.field("opponent_score", pa.int64()),
        # here: the columns the expansions and variants declare (``schema``)
        pa.field("duration", pa.float64()),
        pa.field("provisional_data", pa.bool_()),
        pa.field("provisional_sets", pa.string()),
        pa.field("error_seat", pa.int64()),
        pa.field("error", pa.string()),
    ]
)

# one row per puzzle taken, completed, discarded, recycled or left unfinished, per reward
# a completion gave and per turn passed for want of a legal action (``sim.flow``)
_BASE_EVENTS = pa.schema(
    [
        *_CONFIG_FIELDS,
        pa.field("event_index", pa.int64()),  # its place among the game's events
        pa.field("event", pa.string()),
        pa.field("round", pa.int64()),
        pa.field("turn", pa.int64()),
        pa.field("seat", pa.int64()),
        pa.field("bot", pa.string()),
        pa.field("card", pa.string()),
        pa.field("colour", pa.string()),
        pa.field("points", pa.int64()),
        pa.field("piece", pa.string()),
        pa.field("how", pa.string()),
        pa.field("taken_round", pa.int64()),
        pa.field("actions", pa.int64()),
        pa.field("puzzle_set", pa.string()),
        pa.field("provisional", pa.bool_()),
    ]
)

# one row per seat at the end of every round (the last round's: after Finishing Touches)
_BASE_ROUNDS = pa.schema(
    [
        *_CONFIG_FIELDS,
        pa.field("round", pa.int64()),
        pa.field("seat", pa.int64()),
        pa.field("bot", pa.string()),
        pa.field("score", pa.int64()),
        pa.field("points", pa.int64()),
        pa.field("pieces", pa.int64()),
        pa.field("completed_white", pa.int64()),
        pa.field("completed_black", pa.int64()),
        pa.field("unfinished", pa.int64()),
        pa.field("final", pa.bool_()),
        # here: the columns the expansions declare (``round_columns``)
    ]
)

_BASE_SCHEMAS = {
    "seats": _BASE_SEATS,
    "games": _BASE_GAMES,
    "events": _BASE_EVENTS,
    "rounds": _BASE_ROUNDS,
}
# where the declared columns go: after these base columns
_DECLARED_AFTER = {
    "seats": f"actions_{ACTION_KINDS[-1]}",
    "games": "opponent_score",
    "events": "provisional",
    "rounds": "final",
}
_ARROW_TYPES = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "string": pa.string()}


def declared_fields(table: str) -> list[pa.Field]:
    """Return the fields of the columns the registered expansions and variants declare for
    ``table`` (``seats`` or ``games``; ``projectl_sim.options.Column``), in registration order."""
    return [
        pa.field(name, _ARROW_TYPES[column.type])
        for name, (column, _owner) in declared_columns(table).items()
    ]


def schema(table: str) -> pa.Schema:
    """Return the schema of ``table`` in this process: the base game's columns with the declared
    ones of every registered expansion and variant (a user's too) in their place.

    Built when asked, so that a class registered after import (a user's, loaded from a file)
    has its columns: a table never drops one.
    """
    base = _BASE_SCHEMAS[table]
    at = base.get_field_index(_DECLARED_AFTER[table]) + 1
    fields = list(base)
    return pa.schema([*fields[:at], *declared_fields(table), *fields[at:]])


def __getattr__(name: str) -> Any:
    # the schemas as they were named before they were built from the declarations
    if name == "SEATS_SCHEMA":
        return schema("seats")
    if name == "GAMES_SCHEMA":
        return schema("games")
    if name == "SCHEMAS":
        return {t: schema(t) for t in TABLES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SORT_KEYS = {
    "seats": [("game_id", "ascending"), ("seat", "ascending")],
    "games": [("game_id", "ascending")],
    "events": [("game_id", "ascending"), ("event_index", "ascending")],
    "rounds": [("game_id", "ascending"), ("round", "ascending"), ("seat", "ascending")],
}


# -- part files ----------------------------------------------------------------------------------
def _atomic(path: Path, write: Any) -> None:
    """Write through ``write(tmp_path)`` then rename, so readers never see half a file.

    A write that fails (a full disk) leaves no temporary file behind, and raises
    ``WriteError`` naming the file it was writing.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise WriteError(path, exc) from exc


class WriteError(OSError):
    """Writing one of a run's files failed; ``path`` is the file, ``full`` a full disk."""

    def __init__(self, path: Path, exc: OSError) -> None:
        super().__init__(exc.errno, exc.strerror or str(exc), str(path))
        self.path = path
        self.full = exc.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left" in str(exc)


def device_of(path: Path) -> str:
    """Return the device (and mount point) holding ``path``, as ``df`` names it."""
    path = path.resolve()
    while not path.exists() and path != path.parent:
        path = path.parent
    best = ("", "")
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                device, mount = line.split()[:2]
                inside = str(path) == mount or str(path).startswith(mount.rstrip("/") + "/")
                if inside and len(mount) >= len(best[1]):
                    best = (device, mount)
    except OSError:
        pass
    return f"{best[0]} ({best[1]})" if best[0] else str(path)


def free_bytes(path: Path) -> int:
    """Return the bytes free for this user on the file system of ``path``."""
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize


def reserve_space(run_dir: Path) -> None:
    """Set aside room for the last manifest: freed when the disk fills up (``release_space``)."""
    path = run_dir / RESERVE
    if path.exists() and path.stat().st_size >= RESERVE_BYTES:
        return
    try:
        with open(path, "wb") as f:
            f.write(b"\0" * RESERVE_BYTES)  # written, not sparse: the blocks are really taken
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise WriteError(path, exc) from exc


def release_space(run_dir: Path) -> None:
    """Free the room ``reserve_space`` set aside."""
    (run_dir / RESERVE).unlink(missing_ok=True)


# -- the writer's lock ---------------------------------------------------------------------------
@contextmanager
def writer_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run folder's writer lock; another writer stops with one line naming us.

    An OS file lock (``flock``) on ``writer.lock``: the kernel drops it when the process ends in
    any way (a crash or ``kill -9`` too), so it is never stale. The file names its holder, and
    is removed when the writer ends (a killed writer leaves it, naming its last holder, held by
    nobody).
    """
    path = run_dir / LOCK
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _lock_holder(fd)
            os.close(fd)
            raise UsageError(
                f"{run_dir} is being written by {holder}: one run folder has one writer; wait "
                "for it to end (or stop it), then --resume"
            ) from None
        # the writer before us may have removed the file between our open and our lock: then we
        # hold a file nobody else will open, and must lock the one at the path again
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        me = {"pid": os.getpid(), "host": socket.gethostname(), "since": now()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):  # still ours: the lock is held until the close
            path.unlink()
        os.close(fd)  # releases the lock


def _lock_holder(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
        return f"pid {data['pid']} on {data['host']} (since {data['since']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process (it has not written its pid yet)"


def lock_holder(run_dir: str | Path) -> str | None:
    """Return who holds a run folder's writer lock now, or None when nobody does."""
    path = Path(run_dir) / LOCK
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return _lock_holder(fd)
    finally:
        os.close(fd)
    return None


def write_text_atomic(path: Path, text: str) -> None:
    """Write a text file atomically (temporary name, then rename)."""
    _atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _part_dir(run_dir: Path, table: str) -> Path:
    return run_dir / PARTS / table


def part_numbers(run_dir: Path) -> list[int]:
    """Return the numbers of the committed parts (those whose games file exists)."""
    return sorted(
        int(p.stem.split("-")[1]) for p in _part_dir(run_dir, "games").glob("part-*.parquet")
    )


def write_part(
    run_dir: Path,
    number: int,
    seats: Iterable[dict[str, Any]],
    games: Iterable[dict[str, Any]],
    flow: Mapping[str, pa.Table] | None = None,
) -> None:
    """Append one part: the seats file and the flow tables' (``events``, ``rounds``: when
    given, as ``flow_table`` makes them) first, then the games file that commits it."""
    name = f"part-{number:05d}.parquet"
    for table, built in (flow or {}).items():
        folder = _part_dir(run_dir, table)
        folder.mkdir(parents=True, exist_ok=True)
        _atomic(folder / name, lambda tmp, data=built: pq.write_table(data, tmp))
    for table, rows in (("seats", seats), ("games", games)):
        folder = _part_dir(run_dir, table)
        folder.mkdir(parents=True, exist_ok=True)
        rows = list(rows)
        held = schema(table)
        for row in rows:  # never a column dropped: every key of a row is in the schema
            stray = [key for key in row if held.get_field_index(key) < 0]
            if stray:
                raise ColumnError(
                    f"a {table} row has the column {stray[0]!r} that no registered class declares"
                )
        data = pa.Table.from_pylist(rows, schema=held)
        _atomic(folder / name, lambda tmp, data=data: pq.write_table(data, tmp))


def flow_table(
    games: Sequence[tuple[Mapping[str, Any], Mapping[str, Sequence[Any]]]], table: str
) -> pa.Table:
    """Return the ``events`` or ``rounds`` table of some games: each game's configuration
    columns (``ident``, repeated on each of its rows) and its own columns (``sim.flow``:
    ``FlowRecorder.columns``); a declared column a game lacks is null."""
    held = schema(table)
    names = set(held.names)
    rows = []  # each game's number of rows
    for _, columns in games:
        stray = [key for key in columns if key not in names]
        if stray:
            raise ColumnError(
                f"a {table} row has the column {stray[0]!r} that no registered class declares"
            )
        rows.append(len(columns.get("round", ())))
    # A column no game has (the configuration's) is one value per game, repeated over its rows:
    # converted once per game and repeated by index, since converting a Python value costs tens
    # of nanoseconds and a random game has ~200 events (12 such columns: most of the parent's
    # work for these tables when each was converted per row).
    repeat = pa.array(np.repeat(np.arange(len(rows), dtype=np.int64), rows))
    arrays = []
    for f in held:
        name = f.name
        if not any(name in columns for _, columns in games):
            per_game = pa.array([ident.get(name) for ident, _ in games], f.type)
            arrays.append(per_game.take(repeat))
            continue
        values: list[Any] = []
        for (ident, columns), n in zip(games, rows, strict=True):
            if name in columns:
                values.extend(columns[name])
            else:  # a declared column this game lacks: its ident's value (null when none)
                values.extend([ident.get(name)] * n)
        arrays.append(pa.array(values, f.type))
    return pa.Table.from_arrays(arrays, schema=held)


def written_tables(run_dir: Path) -> tuple[str, ...]:
    """Return the tables a run folder holds (parts or consolidated): the core ones always, the
    flow tables when it has them (a run with ``--tables core`` has none)."""
    return tuple(
        name
        for name in TABLES
        if name in CORE_TABLES
        or _part_dir(run_dir, name).exists()
        or any((run_dir / f"{name}.{fmt}").exists() for fmt in FORMATS)
    )


def write_records(run_dir: Path, records: Iterable[tuple[int, dict[str, Any]]]) -> None:
    """Write game records as ``records/game-<id>.json`` (before the part that lists them)."""
    folder = run_dir / RECORDS
    for game_id, record in records:
        folder.mkdir(exist_ok=True)
        path = folder / f"game-{game_id:08d}.json"
        _atomic(path, lambda tmp, record=record: write_record(record, tmp))


def clean_parts(run_dir: Path) -> None:
    """Drop what a killed run can leave half done: temporary files (of parts, records and
    tables) and uncommitted seat parts."""
    committed = {p.name for p in _part_dir(run_dir, "games").glob("part-*.parquet")}
    for table in TABLES:
        folder = _part_dir(run_dir, table)
        for tmp in folder.glob(".*.tmp"):
            tmp.unlink()
        if table != "games":
            for part in folder.glob("part-*.parquet"):
                if part.name not in committed:
                    part.unlink()
    for tmp in (run_dir / RECORDS).glob(".*.tmp"):
        tmp.unlink()
    for name in TABLES:  # tables a kill cut short while they were written from the parts
        for fmt in FORMATS:
            (run_dir / f".{name}.{fmt}.tmp").unlink(missing_ok=True)


def _committed(run_dir: Path, table: str) -> list[Path]:
    """Return the committed part files of a table, in part order."""
    committed = {p.name for p in _part_dir(run_dir, "games").glob("part-*.parquet")}
    return sorted(
        p for p in _part_dir(run_dir, table).glob("part-*.parquet") if p.name in committed
    )


def read_parts(run_dir: Path, table: str, columns: Sequence[str] | None = None) -> pa.Table:
    """Return every committed part of a table, concatenated (empty with the schema if none);
    given ``columns``, only those (a resume reads a huge run's few columns it checks)."""
    files = _committed(run_dir, table)
    if not files:
        return conform([], table, columns)
    return conform([_read_parquet(f, part=True, columns=columns) for f in files], table, columns)


def _read_parquet(path: Path, part: bool = False, columns: Sequence[str] | None = None) -> pa.Table:
    """Read a table file (``columns``: those of them it has); one line (``UsageError``) for a
    file cut short or not a table."""
    try:
        if columns is None:
            return pq.read_table(path)
        with pq.ParquetFile(path) as source:
            held = set(source.schema_arrow.names)
            return source.read(columns=[c for c in columns if c in held])
    except (pa.ArrowException, OSError) as exc:
        raise _unreadable(path, exc, part) from None


def _unreadable(path: Path, exc: BaseException, part: bool) -> UsageError:
    fix = (
        "remove it (and its namesake in the other table's parts), and --resume plays its "
        "games again"
        if part
        else "restore it from a copy, or play the run again"
    )
    return UsageError(f"{path}: not a readable table ({_first_line(exc)}); {fix}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def _full_schema(schemas: Iterable[pa.Schema], table: str) -> pa.Schema:
    """Return this process's schema of ``table`` followed by the columns of ``schemas`` it does
    not declare (a user's class not loaded here), in the order they first appear."""
    target = schema(table)
    extra: dict[str, pa.Field] = {}
    for held in schemas:
        for f in held:
            if target.get_field_index(f.name) < 0:
                extra.setdefault(f.name, f)
    return pa.schema([*target, *extra.values()])


def _conform_to(part: pa.Table, full: pa.Schema) -> pa.Table:
    columns = [
        part.column(f.name).cast(f.type)
        if f.name in part.column_names
        else pa.nulls(part.num_rows, f.type)
        for f in full
    ]
    return pa.Table.from_arrays(columns, schema=full)


def conform(
    parts: Sequence[pa.Table], table: str, columns: Sequence[str] | None = None
) -> pa.Table:
    """Return parts of ``table`` as one table of this process's schema (``schema``): columns a
    part lacks (written before they existed, or by a run without that class) read as null, and
    a part's columns this process does not declare (a user's class not loaded here) are kept,
    after the others (``columns``: only those, in that order)."""
    full = _full_schema((part.schema for part in parts), table)
    if columns is not None:
        full = pa.schema([full.field(c) for c in columns if full.get_field_index(c) >= 0])
    out = [_conform_to(part, full) for part in parts]
    return pa.concat_tables(out) if out else full.empty_table()


def done_game_ids(run_dir: Path) -> np.ndarray:
    """Return the ids of the games already in committed parts (sorted, each once)."""
    files = _committed(run_dir, "games")
    ids = [_read_parquet(f, part=True, columns=["game_id"]).column(0).to_numpy() for f in files]
    return np.unique(np.concatenate(ids)).astype(np.int64) if ids else np.empty(0, np.int64)


def reopen(run_dir: Path, fmt: str) -> None:
    """Turn a consolidated run's tables back into a part, so more games can join them.

    A complete run has no parts left; growing it (``--resume --games N``) appends to them. A
    parquet table is already a part as it stands (sorted, in the row groups ``merge`` wrote, their
    statistics naming their game ids): it becomes one by a second name (a hard link; a byte copy
    where links are refused), without being read. A csv table is converted batch by batch into
    row groups gathered as ``merge`` gathers its windows (``GROUP_CELLS``). Neither holds the
    whole table, nor leaves a part of many small row groups (a writer keeps each group's metadata
    until it closes, and a reader reads it all).
    """
    if part_numbers(run_dir) or not any((run_dir / f"games.{f}").exists() for f in FORMATS):
        return
    name = "part-00000.parquet"
    held = [t for t in written_tables(run_dir) if t != "games"]
    for table in (*held, "games"):  # the games file last: it commits the part
        folder = _part_dir(run_dir, table)
        folder.mkdir(parents=True, exist_ok=True)
        _atomic(folder / name, lambda tmp, table=table: _copy_to_part(run_dir, table, tmp))


def _copy_to_part(run_dir: Path, table: str, tmp: Path) -> None:
    """Write a run's consolidated ``table`` (parquet or csv) to ``tmp`` as a part file."""
    path = run_dir / f"{table}.parquet"
    if path.exists():
        try:  # a damaged table is told as a table (restore it), not later as a part
            pq.read_metadata(path)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise _unreadable(path, exc, part=False) from None
        tmp.unlink(missing_ok=True)
        try:
            os.link(path, tmp)  # tables and parts are never written in place: one file serves
        except OSError:
            shutil.copyfile(path, tmp)
        return
    path = run_dir / f"{table}.csv"
    try:
        opts = pacsv.ConvertOptions(column_types=schema(table), strings_can_be_null=True)
        block = pacsv.ReadOptions(block_size=CSV_BLOCK)
        with pacsv.open_csv(path, read_options=block, convert_options=opts) as reader:
            held = reader.schema
            with pq.ParquetWriter(tmp, held) as writer:
                for group in _gathered(reader, len(held)):
                    writer.write_table(group, row_group_size=max(1, group.num_rows))
    except pa.ArrowException as exc:
        raise _unreadable(path, exc, part=False) from None


def _gathered(batches: Iterable[pa.RecordBatch], width: int) -> Iterator[pa.Table]:
    """Yield a sorted table's batches gathered into row groups as ``merge`` gathers its windows:
    up to ``GROUP_CELLS`` cells or ``WINDOW_GAMES`` game ids."""
    pending: list[pa.RecordBatch] = []
    rows = 0
    first: int | None = None
    for batch in batches:
        if not batch.num_rows:
            continue
        pending.append(batch)
        rows += batch.num_rows
        ids = batch.column("game_id")
        first = ids[0].as_py() if first is None else first
        if rows * width >= GROUP_CELLS or ids[-1].as_py() - first + 1 >= WINDOW_GAMES:
            yield pa.Table.from_batches(pending)
            pending, rows, first = [], 0, None
    if pending:
        yield pa.Table.from_batches(pending)


def _sorted(table: pa.Table, name: str) -> pa.Table:
    return table.sort_by(SORT_KEYS[name])


def check_games(games: pa.Table, seats: pa.Table, planned: int | None = None) -> list[str]:
    """Return what is wrong with a run's games: duplicated ids, rows of no game, and (given the
    games ``planned``, ids ``0..planned-1``) missing ones; empty when every game is there once."""
    problems = []
    ids = games.column("game_id")
    unique = pc.unique(ids)
    if len(unique) != len(ids):
        counts = pc.value_counts(ids)
        twice = [c["values"] for c in counts.to_pylist() if c["counts"] > 1]
        problems.append(f"{len(twice)} game(s) appear more than once (game {min(twice)} first)")
    seat_keys = pa.Table.from_arrays(
        [seats.column("game_id"), seats.column("seat")], names=["game_id", "seat"]
    )
    if seat_keys.group_by(["game_id", "seat"]).aggregate([]).num_rows != seat_keys.num_rows:
        problems.append("some seat rows appear more than once")
    if planned is not None:
        inside = pc.and_(pc.greater_equal(unique, 0), pc.less(unique, planned))
        stray = len(unique) - pc.sum(inside).as_py() if len(unique) else 0
        if stray:
            problems.append(f"{stray} game id(s) outside the run's 0..{planned - 1}")
        missing = planned - (len(unique) - stray)
        if missing:
            problems.append(f"{missing} of {planned} planned games missing")
    return problems


# -- consolidation, streamed ----------------------------------------------------------------------
# A window of the consolidation holds about this many cells (rows x columns, about 8 bytes each in
# memory, and sorted in a copy): its game ids span WINDOW_CELLS / (columns x rows per game) ids,
# so the parent holds a few tens of MB whatever the run's size. Deterministic (from the schema and
# the rows of the games written), so a run's row groups are the same for any --jobs.
# A window of at most 1,000 games: a small study fills one as a large one does, so the
# consolidation's peak is the same from 1,000 games on (a 5,000-game window is reached only from
# 5,000 games, and held 50-60 MB more).
WINDOW_CELLS = 400_000
WINDOW_GAMES = 1_000  # and at most this many games (a game's row holds long strings: its seats,
# winners, errors; a cell of the games table weighs more than one of the events table)
# A row group of a consolidated table gathers consecutive windows up to about GROUP_CELLS cells or
# WINDOW_GAMES games: a parquet writer keeps about 1 KB of metadata per column and row group
# until it closes, and serializes it twice over then, so one group a window (an events window is
# about 65 random games) cost a million-game study's parent 1.5 GB at its events table (15,625
# groups). Capped at a window's games so that a 1,000-game study fills a group as a large one
# does: a reader holds a group at a time.
GROUP_CELLS = 4_000_000
CSV_BLOCK = 1 << 20  # the bytes of a csv table read at a time (a batch)
FAILURES_LISTED = 100  # the failed games a manifest lists


@dataclass
class Tally:
    """What a pass over a run's games and seats found, window by window (``merge``)."""

    planned: int | None = None  # the run's games (ids 0..planned-1), when known
    rows: int = 0  # games rows
    ids: int = 0  # distinct game ids
    inside: int = 0  # distinct ids within 0..planned-1 (all of them without a plan)
    failed: int = 0  # games rows with an error
    failures: list[dict[str, Any]] = field(default_factory=list)  # the first FAILURES_LISTED
    twice: int = 0  # ids held more than once
    first_twice: int | None = None  # the smallest of them
    seats_twice: bool = False  # a (game_id, seat) held more than once

    def add_games(self, games: pa.Table) -> None:
        """Count a window of the games table (every row of its game ids)."""
        ids = games.column("game_id")
        unique = pc.unique(ids)
        self.rows += len(ids)
        self.ids += len(unique)
        if len(unique) != len(ids):
            counts = pc.value_counts(ids).to_pylist()
            twice = [c["values"] for c in counts if c["counts"] > 1]
            self.twice += len(twice)
            first = min(twice)
            self.first_twice = first if self.first_twice is None else min(self.first_twice, first)
        if self.planned is None:
            self.inside += len(unique)
        elif len(unique):
            inside = pc.and_(pc.greater_equal(unique, 0), pc.less(unique, self.planned))
            self.inside += pc.sum(inside).as_py() or 0
        failed = games.filter(pc.is_valid(games.column("error")))
        self.failed += failed.num_rows
        room = FAILURES_LISTED - len(self.failures)
        if room > 0 and failed.num_rows:
            self.failures += failure_list(failed, room)

    def add_seats(self, seats: pa.Table) -> None:
        """Check a window of the seats table (every row of its game ids)."""
        keys = pa.Table.from_arrays(
            [seats.column("game_id"), seats.column("seat")], names=["game_id", "seat"]
        )
        if keys.group_by(["game_id", "seat"]).aggregate([]).num_rows != keys.num_rows:
            self.seats_twice = True

    def doubles(self) -> list[str]:
        """Return what two writers left: games or seat rows held twice (``check_games``)."""
        problems = []
        if self.twice:
            problems.append(
                f"{self.twice} game(s) appear more than once (game {self.first_twice} first)"
            )
        if self.seats_twice:
            problems.append("some seat rows appear more than once")
        return problems

    def problems(self) -> list[str]:
        """Return what is wrong with the games, as ``check_games`` says it."""
        problems = self.doubles()
        if self.planned is not None:
            stray = self.ids - self.inside
            if stray:
                problems.append(f"{stray} game id(s) outside the run's 0..{self.planned - 1}")
            missing = self.planned - self.inside
            if missing:
                problems.append(f"{missing} of {self.planned} planned games missing")
        return problems


@dataclass(frozen=True)
class _Group:
    """One row group of a table file, and the game ids it holds (its statistics)."""

    path: Path
    index: int
    first: int
    last: int
    rows: int


def _groups(files: Sequence[Path], part: bool) -> tuple[list[_Group], list[pa.Schema]]:
    """Return the row groups of table files and their distinct schemas, from their footers."""
    groups: list[_Group] = []
    seen: list[Any] = []  # the distinct parquet schemas (most parts share one)
    schemas: list[pa.Schema] = []
    for path in files:
        try:
            meta = pq.read_metadata(path)
            # converted once per distinct schema: converting every part's cost the parent
            # about 18 KB of memory a file, kept
            if not any(meta.schema.equals(other) for other in seen):
                seen.append(meta.schema)
                schemas.append(meta.schema.to_arrow_schema())
            at = meta.schema.names.index("game_id")
            for i in range(meta.num_row_groups):
                group = meta.row_group(i)
                if not group.num_rows:
                    continue
                stats = group.column(at).statistics
                if stats is not None and stats.has_min_max:
                    first, last = int(stats.min), int(stats.max)
                else:  # written without statistics: read the ids
                    ids = pq.ParquetFile(path).read_row_group(i, columns=["game_id"]).column(0)
                    first, last = (int(v.as_py()) for v in pc.min_max(ids).values())
                groups.append(_Group(path, i, first, last, group.num_rows))
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise _unreadable(path, exc, part) from None
    return groups, schemas


def _windows(groups: Sequence[_Group], width: int) -> Iterator[tuple[int, int, list[_Group]]]:
    """Yield ``(start, end, groups)``: consecutive ranges of ``width`` game ids, from the first
    id held to the last (skipping ranges no group holds), with the groups holding ids there."""
    order = sorted(groups, key=lambda g: (g.first, str(g.path), g.index))
    if not order:
        return
    last = max(g.last for g in order)
    start, taken = order[0].first, 0
    active: list[_Group] = []
    while start <= last:
        end = start + width
        while taken < len(order) and order[taken].first < end:
            active.append(order[taken])
            taken += 1
        active = [g for g in active if g.last >= start]
        if active:
            yield start, end, active
        start = end
        if taken < len(order) and all(g.last < end for g in active):
            start = max(end, order[taken].first)  # ids no part holds: none in between


class _Files:
    """The table files a merge reads, the last few kept open (a file of many row groups, such
    as a grown run's first part, is opened once, not once a group)."""

    KEEP = 16

    def __init__(self) -> None:
        self.open: dict[Path, pq.ParquetFile] = {}

    def read(self, group: _Group, columns: Sequence[str] | None = None) -> pa.Table:
        source = self.open.pop(group.path, None)
        if source is None:
            source = pq.ParquetFile(group.path)
        self.open[group.path] = source  # the most recent last
        while len(self.open) > self.KEEP:
            self.open.pop(next(iter(self.open))).close()
        if columns is None:
            return source.read_row_group(group.index)
        held = set(source.schema_arrow.names)
        return source.read_row_group(group.index, columns=[c for c in columns if c in held])

    def close(self) -> None:
        for source in self.open.values():
            source.close()
        self.open.clear()


def _window(
    held: Sequence[_Group], start: int, end: int, full: pa.Schema, files: _Files, part: bool
) -> pa.Table:
    """Return the rows of game ids ``start <= id < end`` of some row groups, in ``full``'s
    columns (unsorted; only those columns are read)."""
    pieces = []
    for group in held:
        try:
            data = files.read(group, full.names)
        except (pa.ArrowException, OSError) as exc:
            raise _unreadable(group.path, exc, part) from None
        if group.first < start or group.last >= end:
            ids = data.column("game_id")
            data = data.filter(pc.and_(pc.greater_equal(ids, start), pc.less(ids, end)))
        if data.num_rows:
            pieces.append(_conform_to(data, full))
    return pa.concat_tables(pieces) if pieces else full.empty_table()


class _TableWriter:
    """A consolidated table written window by window under a temporary name (``commit``
    renames it): parquet row groups, or csv rows under one header."""

    def __init__(self, path: Path, held: pa.Schema, fmt: str) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.tmp")
        self.pending: list[pa.Table] = []  # the windows of the row group being gathered
        self.games = 0  # the game ids they span
        try:
            if fmt == "csv":
                self.writer: Any = pacsv.CSVWriter(self.tmp, held)
            else:
                self.writer = pq.ParquetWriter(self.tmp, held)
        except OSError as exc:
            self.tmp.unlink(missing_ok=True)
            raise WriteError(path, exc) from exc

    def write(self, data: pa.Table, games: int = 0) -> None:
        """Append a sorted window (spanning ``games`` game ids); a row group is written once the
        windows gathered reach ``GROUP_CELLS`` cells or ``WINDOW_GAMES`` games (csv: at once)."""
        self.pending.append(data)
        self.games += games
        cells = sum(t.num_rows for t in self.pending) * len(data.schema)
        if isinstance(self.writer, pacsv.CSVWriter) or (
            cells >= GROUP_CELLS or self.games >= WINDOW_GAMES
        ):
            self.flush()

    def flush(self) -> None:
        """Write the windows gathered as one row group (chunked: nothing is copied)."""
        if not self.pending:
            return
        data = pa.concat_tables(self.pending)
        self.pending, self.games = [], 0
        try:
            if isinstance(self.writer, pacsv.CSVWriter):
                self.writer.write_table(data)
            else:
                self.writer.write_table(data, row_group_size=max(1, data.num_rows))
        except OSError as exc:
            raise WriteError(self.path, exc) from exc

    def close(self) -> None:
        self.flush()
        try:
            self.writer.close()
        except OSError as exc:
            raise WriteError(self.path, exc) from exc

    def discard(self) -> None:
        with contextlib.suppress(OSError, pa.ArrowException):
            self.writer.close()
        self.tmp.unlink(missing_ok=True)

    def commit(self) -> None:
        try:
            os.replace(self.tmp, self.path)
        except OSError as exc:
            raise WriteError(self.path, exc) from exc


def merge(run_dir: Path, fmt: str | None = None, planned: int | None = None) -> Tally:
    """Read every committed part window by window, sorted, and return what the games hold; with
    ``fmt``, write the consolidated tables (``seats``, ``games``, and ``events`` and ``rounds``
    when the run has them) too, a row group per few windows (``GROUP_CELLS``).

    The tables appear together once all are written (temporary names, then renamed). Refuses
    (``UsageError``) parts holding a game twice: two writers went at the folder. A write that
    fails is a ``WriteError`` naming the table, and leaves none of them.
    """
    names = ("games", "seats", *(n for n in written_tables(run_dir) if n not in CORE_TABLES))
    if fmt is None:
        names = CORE_TABLES[::-1]
    listed = {name: _groups(_committed(run_dir, name), part=True) for name in names}
    games = sum(g.rows for g in listed["games"][0])
    tally = Tally(planned=planned)
    writers: list[_TableWriter] = []
    files = _Files()
    try:
        for name in names:
            groups, schemas = listed[name]
            full = _full_schema(schemas, name)
            per_game = sum(g.rows for g in groups) / max(1, games)
            cells = len(full) * max(per_game, 1e-9)  # a game's, in this table
            width = max(1, min(WINDOW_GAMES, int(WINDOW_CELLS / cells)))
            writer = None
            if fmt is not None:
                writer = _TableWriter(run_dir / f"{name}.{fmt}", full, fmt)
                writers.append(writer)
            for start, end, held in _windows(groups, width):
                data = _window(held, start, end, full, files, part=True)
                data = data.sort_by(SORT_KEYS[name])
                if name == "games":
                    tally.add_games(data)
                elif name == "seats":
                    tally.add_seats(data)
                if writer is not None and data.num_rows:
                    writer.write(data, end - start)
            files.close()
            if writer is not None:
                writer.close()
            if name == "seats" and fmt is not None and tally.doubles():
                raise UsageError(
                    f"{run_dir}: the parts of this run are inconsistent "
                    f"({'; '.join(tally.doubles())}): two processes wrote it at once; play it "
                    "again in a new folder"
                )
        for writer in writers:
            writer.commit()
    except BaseException:
        files.close()
        for writer in writers:
            writer.discard()
        if fmt is not None:
            drop_tables(run_dir)  # half the tables would be read instead of the parts
        raise
    return tally


def consolidate(run_dir: Path, fmt: str, planned: int | None = None) -> Tally:
    """Write the run's tables from its committed parts, sorted and streamed (``merge``)."""
    return merge(run_dir, fmt, planned)


@contextmanager
def system_pool() -> Iterator[None]:
    """Give Arrow's allocations to the C library's allocator while inside (then the previous
    pool again). Arrow's default pool (mimalloc) keeps pages of the many short buffers a
    window-by-window pass reads and converts: the summary of a 100,000-game run peaked at
    212.5 MB with it, 199.6 MB with this (its two scans of the events grew it by 11.5 MB, now
    by nothing)."""
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


# -- what a resume checks, streamed ---------------------------------------------------------------
def scan(run_dir: Path, name: str, columns: Sequence[str]) -> Iterator[pa.Table]:
    """Yield ``columns`` (and the sort keys) of a run's table a window of game ids at a time
    (every row of a game in one window), in the order of ``SORT_KEYS``: from its committed
    parts while it has some (they are its tables), else from its consolidated file (already in
    that order), batch by batch. Nothing is held
    whole: a resume checks a million-game run, and ``summary`` reads its flow tables, in the
    memory of a few thousand games."""
    columns = list(dict.fromkeys([*(key for key, _ in SORT_KEYS[name]), *columns]))
    if part_numbers(run_dir):
        groups, schemas = _groups(_committed(run_dir, name), part=True)
        full = _full_schema(schemas, name)
        full = pa.schema([full.field(c) for c in columns if full.get_field_index(c) >= 0])
        games = sum(g.rows for g in _groups(_committed(run_dir, "games"), part=True)[0])
        per_game = sum(g.rows for g in groups) / max(1, games)
        width = max(1, min(WINDOW_GAMES, int(WINDOW_CELLS / (len(full) * max(per_game, 1e-9)))))
        files = _Files()
        try:
            for start, end, held in _windows(groups, width):
                data = _window(held, start, end, full, files, part=True)
                if data.num_rows:
                    yield _sorted(data, name)
        finally:
            files.close()
        return
    path = run_dir / f"{name}.parquet"
    try:
        if path.exists():
            # pages read as decoded, through a 1 MB buffer, a row group at a time: a group holds
            # a few windows (GROUP_CELLS), and reading one whole took 18 MB for 3 columns of an
            # events group (143,000 rows), 61 MB over a 20,000-game table; so, 12 and 20 MB.
            # (iter_batches over the whole file read ahead: 49 MB more of a million games.)
            with pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20) as source:
                wanted = [c for c in columns if c in set(source.schema_arrow.names)]
                rows = max(1, WINDOW_CELLS // (8 * len(columns)))  # about a window's bytes
                batches = (
                    batch
                    for i in range(source.metadata.num_row_groups)
                    for batch in source.iter_batches(
                        batch_size=rows, row_groups=[i], columns=wanted, use_threads=False
                    )
                )
                yield from _whole_games(batches, name, columns)
            return
        path = run_dir / f"{name}.csv"
        if path.exists():
            opts = pacsv.ConvertOptions(
                column_types=schema(name),
                strings_can_be_null=True,
                include_columns=columns,
                include_missing_columns=True,
            )
            with pacsv.open_csv(path, convert_options=opts) as reader:
                yield from _whole_games(reader, name, columns)
    except (pa.ArrowException, OSError) as exc:
        raise _unreadable(path, exc, part=False) from None


def _whole_games(
    batches: Iterable[pa.RecordBatch], name: str, columns: list[str]
) -> Iterator[pa.Table]:
    """Yield a sorted table's batches as windows holding every row of their game ids (the rows
    of a batch's last game wait for the next batch, where that game may go on)."""
    rest: pa.Table | None = None
    for batch in batches:
        data = conform([pa.Table.from_batches([batch])], name, columns)
        if rest is not None:
            data = pa.concat_tables([rest, data])
        if not data.num_rows:
            continue
        ids = data.column("game_id")
        ending = pc.equal(ids, ids[-1])
        rest = data.filter(ending)
        ready = data.filter(pc.invert(ending))
        if ready.num_rows:
            yield ready
    if rest is not None and rest.num_rows:
        yield rest


def _rows(run_dir: Path, name: str) -> int:
    """Return how many rows a run's table holds: from the footers of its parts or its parquet
    file, else counted batch by batch (csv)."""
    if part_numbers(run_dir):
        return sum(g.rows for g in _groups(_committed(run_dir, name), part=True)[0])
    path = run_dir / f"{name}.parquet"
    if path.exists():
        try:
            return pq.read_metadata(path).num_rows
        except (pa.ArrowException, OSError) as exc:
            raise _unreadable(path, exc, part=False) from None
    return sum(w.num_rows for w in scan(run_dir, name, ["game_id"]))


@dataclass
class Written:
    """What a resume checks of the games (and seats) a run folder holds, gathered window by
    window (``read_written``): the counts and duplicates (``tally``), the smallest and largest
    game id, the run ids and configurations the rows name, and the rows of ``sample`` games at
    evenly spaced places of the id order (``sample``, ``sample_seats``)."""

    tally: Tally
    first: int
    last: int
    run_ids: set[str | None]
    configs: list[dict[str, Any]]
    sample: pa.Table
    sample_seats: pa.Table


def read_written(
    run_dir: Path,
    planned: int,
    games_columns: Sequence[str],
    seats_columns: Sequence[str],
    config_columns: Sequence[str],
    sample: int,
) -> Written | None:
    """Return what a resume checks of a run folder's games and seats (its committed parts
    while it has some, else its tables), read window by window; None before any was written."""
    if not part_numbers(run_dir) and not any(
        (run_dir / f"games.{fmt}").exists() for fmt in FORMATS
    ):
        return None
    columns = [*games_columns, *config_columns, "seed", "error", "error_seat"]  # (the tally)
    columns = list(dict.fromkeys(columns))
    rows = _rows(run_dir, "games")
    # the places in the id order the sample takes (as ``np.linspace`` over the sorted rows)
    picks = np.unique(np.linspace(0, rows - 1, min(sample, rows)).astype(int)) if rows else []
    tally = Tally(planned=planned)
    first = last = 0
    run_ids: set[str | None] = set()
    configs: dict[tuple[Any, ...], None] = {}  # in the order they first appear
    taken: list[pa.Table] = []
    seen = 0
    for window in scan(run_dir, "games", columns):
        tally.add_games(window)
        ids = window.column("game_id")
        low, high = (int(v.as_py()) for v in pc.min_max(ids).values())
        first, last = (min(first, low), max(last, high)) if seen else (low, high)
        run_ids.update(pc.unique(window.column("run_id")).to_pylist())
        combos = window.select(list(config_columns)).group_by(list(config_columns)).aggregate([])
        configs.update(
            dict.fromkeys(tuple(row[c] for c in config_columns) for row in combos.to_pylist())
        )
        here = [p - seen for p in picks if seen <= p < seen + window.num_rows]
        if here:
            taken.append(window.take(pa.array(here, pa.int64())).select(list(games_columns)))
        seen += window.num_rows
    picked = pa.concat_tables(taken) if taken else None
    wanted = pa.array(
        sorted(set(picked.column("game_id").to_pylist())) if picked else [], pa.int64()
    )
    seats_taken: list[pa.Table] = []
    for window in scan(run_dir, "seats", seats_columns):
        tally.add_seats(window)
        inside = window.filter(pc.is_in(window.column("game_id"), value_set=wanted))
        if inside.num_rows:
            seats_taken.append(inside.select(list(seats_columns)))
    seats_schema = conform([], "seats", seats_columns).schema
    return Written(
        tally,
        first,
        last,
        run_ids,
        [dict(zip(config_columns, combo, strict=True)) for combo in configs],
        picked if picked is not None else conform([], "games", games_columns),
        pa.concat_tables(seats_taken) if seats_taken else seats_schema.empty_table(),
    )


def drop_tables(run_dir: Path) -> None:
    """Delete the consolidated tables (readers then read the parts)."""
    for name in TABLES:
        for fmt in FORMATS:
            (run_dir / f"{name}.{fmt}").unlink(missing_ok=True)


def remove_parts(run_dir: Path) -> None:
    """Delete the part files of a finished, consolidated run."""
    for table in TABLES:
        folder = _part_dir(run_dir, table)
        for part in folder.glob("*"):
            part.unlink()
        if folder.exists():
            folder.rmdir()
    if (run_dir / PARTS).exists():
        (run_dir / PARTS).rmdir()


def read_table(run_dir: str | Path, name: str, columns: Sequence[str] | None = None) -> pa.Table:
    """Return a run's ``seats``, ``games``, ``events`` or ``rounds`` table: the consolidated
    file, else its parts (``UsageError`` for a flow table a ``--tables core`` run lacks);
    given ``columns``, only those."""
    run_dir = Path(run_dir)
    if columns is not None:  # the parts are sorted by their keys
        columns = list(dict.fromkeys([*(key for key, _ in SORT_KEYS[name]), *columns]))
    if (run_dir / f"{name}.parquet").exists():
        return conform([_read_parquet(run_dir / f"{name}.parquet", columns=columns)], name, columns)
    if (run_dir / f"{name}.csv").exists():
        # the declared types; a column no class here declares is read as pyarrow infers it
        opts = pacsv.ConvertOptions(
            column_types=schema(name),
            strings_can_be_null=True,
            include_columns=columns or [],
            include_missing_columns=columns is not None,
        )
        try:
            table = pacsv.read_csv(run_dir / f"{name}.csv", convert_options=opts)
        except (pa.ArrowException, OSError) as exc:
            raise UsageError(
                f"{run_dir / f'{name}.csv'}: not a readable table ({_first_line(exc)}); "
                "restore it from a copy, or play the run again"
            ) from None
        return conform([table], name, columns)
    if (run_dir / PARTS).exists() and name in written_tables(run_dir):
        return _sorted(read_parts(run_dir, name, columns), name)
    if name in FLOW_TABLES and (run_dir / MANIFEST).exists():
        raise UsageError(
            f"{run_dir}: no {name} table: the run was played with --tables core (or by a version "
            "before it); play it again to have one"
        )
    raise UsageError(f"{run_dir}: no {name} table (is it a run directory?)")


# -- manifest ------------------------------------------------------------------------------------
_DEPENDENCIES = (
    "numpy",
    "pandas",
    "pyarrow",
    "cloudpickle",
    "dask",
    "distributed",
    "tqdm",
    "pyyaml",
)


def versions() -> dict[str, str | None]:
    """Return the versions of Python, this package and its run-time dependencies, and the build
    of the hot loop this process runs (``compiled`` or ``pure``; the games are the same)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    out["projectl-sim build"] = "compiled" if compiled() else "pure"
    for dist in ("projectl-sim", *_DEPENDENCIES):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def git_commit() -> dict[str, Any] | None:
    """Return the source checkout's commit and whether it has local changes, if it is one."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def now() -> str:
    """Return the current UTC time in ISO 8601, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_manifest(run_dir: Path, manifest: Mapping[str, Any]) -> None:
    """Write ``manifest.json`` atomically."""
    write_text_atomic(run_dir / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def read_manifest(run_dir: str | Path) -> dict[str, Any]:
    """Return a run's manifest; raise ``UsageError`` if there is none or it is unreadable."""
    path = Path(run_dir) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{run_dir}: no {MANIFEST} (is it a run directory?)") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: unreadable ({exc})") from None
    if not isinstance(data, dict) or "config" not in data:
        raise UsageError(f"{path}: not a run manifest")
    return data


def failure_list(games: pa.Table, limit: int = 100) -> list[dict[str, Any]]:
    """Return the failed games (id, seat, first line of the error), at most ``limit``."""
    failed = games.filter(pc.is_valid(games.column("error")))
    out = []
    for row in failed.slice(0, limit).to_pylist():
        out.append(
            {
                "game_id": row["game_id"],
                "seed": row["seed"],
                "seat": row["error_seat"],
                "error": row["error"].splitlines()[0],
            }
        )
    return out
