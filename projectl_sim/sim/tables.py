"""Outcome tables of a run: row building, part files, consolidation, and the manifest.

A run directory holds ``seats.parquet`` (one row per game and seat), ``games.parquet`` (one row
per game) and ``manifest.json``. While a run goes on, finished games are appended as numbered
part files under ``parts/seats`` and ``parts/games``, each written to a temporary name and then
renamed, so a killed run leaves only whole files. A game counts as done once its ``games`` part
exists (that part is written last). Consolidation sorts everything by ``game_id, seat`` so the
tables are the same whatever the order games finished in.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from projectl_sim._native import compiled
from projectl_sim.engine import GameState
from projectl_sim.engine.record import write_record
from projectl_sim.errors import UsageError

MANIFEST = "manifest.json"
PARTS = "parts"
RECORDS = "records"
TABLES = ("seats", "games")
FORMATS = ("parquet", "csv")

# Action kinds as game records name them (a deck take is written as "take").
ACTION_KINDS = (
    "take",
    "recycle",
    "take_basic",
    "upgrade",
    "place",
    "master",
    "reward",
    "finish",
    "insert",
    "ghost",
    "level_up",
    "ambassador",
)
# Finesse columns of a seat row (null when Finesse is off): Credits at the end (active and
# inactive), earned, spent (Inserts and Finishing Touches), Insert actions, and the Finishing
# Touches placements paid with a Credit instead of a point.
FINESSE_COLUMNS = (
    "credits_final",
    "credits_earned",
    "credits_spent",
    "inserts",
    "finishing_credits",
)
# The columns the shipped expansions fill through their ``seat_columns`` / ``game_columns``
# hooks (null in games that don't play them): the Ambassador Pack's, Finesse's; the Endless
# White Deck's
EXPANSION_SEAT_COLUMNS = ("ambassadors_unused", *FINESSE_COLUMNS)
EXPANSION_GAME_COLUMNS = ("reshuffles",)
RECORD_KIND = {"take_deck": "take"} | {k: k for k in ACTION_KINDS}

# The only columns that differ between two runs of the same configuration and root seed.
TIMING_COLUMNS = {"seats": ("decision_time_mean",), "games": ("duration",)}

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
    pa.field("deal", pa.int64()),
]

SEATS_SCHEMA = pa.schema(
    [
        *_CONFIG_FIELDS,
        pa.field("seat", pa.int64()),
        pa.field("first_player", pa.int64()),
        pa.field("turn_order", pa.int64()),
        pa.field("bot", pa.string()),
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
        # Ambassador Pack: Ambassadors left unused at the end (null when not played)
        pa.field("ambassadors_unused", pa.int64()),
        *[pa.field(name, pa.int64()) for name in FINESSE_COLUMNS],
        pa.field("decisions", pa.int64()),
        pa.field("decision_time_mean", pa.float64()),
        pa.field("provisional_data", pa.bool_()),
        pa.field("provisional_sets", pa.string()),
        pa.field("error", pa.string()),
    ]
)

GAMES_SCHEMA = pa.schema(
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
        # Endless White Deck: how often the white deck was rebuilt (null when not played)
        pa.field("reshuffles", pa.int64()),
        pa.field("duration", pa.float64()),
        pa.field("provisional_data", pa.bool_()),
        pa.field("provisional_sets", pa.string()),
        pa.field("error_seat", pa.int64()),
        pa.field("error", pa.string()),
    ]
)

SCHEMAS = {"seats": SEATS_SCHEMA, "games": GAMES_SCHEMA}
SORT_KEYS = {
    "seats": [("game_id", "ascending"), ("seat", "ascending")],
    "games": [("game_id", "ascending")],
}


# -- rows ----------------------------------------------------------------------------------------
def _ranks(scores: Sequence[int], winners: Sequence[int]) -> list[int]:
    """Rank 1 for every winner; below, 1 + how many seats beat this one (equal scores share)."""
    won = set(winners)

    def beats(a: int, b: int) -> bool:
        return scores[a] > scores[b] or (scores[a] == scores[b] and a in won and b not in won)

    n = len(scores)
    return [1 + sum(beats(q, p) for q in range(n) if q != p) for p in range(n)]


def game_rows(
    ident: Mapping[str, Any],
    *,
    rotation: int,
    seats: Sequence[str],
    state: GameState,
    actions: Sequence[Mapping[str, int]],
    decision_seconds: Sequence[float],
    duration: float,
    error_seat: int | None = None,
    error: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Return the seat rows and the game row of one played (or failed) game.

    ``ident`` holds the columns shared with the game's configuration (run_id, game_id, seed,
    config_id, players, variant, expansions, switches, lineup, deal). A failed game (a bot raised
    or chose an illegal action) keeps its counts so far but has no score, rank or winner; every
    one of its rows carries the error.
    """
    n = len(seats)
    t = state.tables
    hooks = state.hooks
    ok = error is None
    solo = state.rules.solo
    scores = state.final_scores() if ok else [None] * n
    winners = state.winners() if ok else []
    opponent = state.opponent_score() if ok and solo else None
    if not ok:
        ranks: list[int | None] = [None] * n
    elif solo:  # the opponent is the other competitor: beaten, or ahead (ties go to it)
        ranks = [1 if winners else 2]
    else:
        ranks = list(_ranks(scores, winners))  # type: ignore[arg-type]
    # which provisional data the game used: the catalogue's provisional puzzle sets, and what
    # the expansions name (Finesse: its tiles, when the game's row holds a provisional one)
    used = list(state.rules.catalogue.provisional_sets)
    for x in hooks.provisional:
        used.extend(x.provisional(state))
    provisional = bool(used)
    provisional_sets = "+".join(used) or None
    puzzle_ids = [puzzle.id for puzzle in state.rules.catalogue.puzzles]
    # completed cards no longer in the pile (Endless: the noted white puzzles)
    elsewhere = [state.completed_elsewhere(p) for p in range(n)]
    seat_rows = []
    for p in range(n):
        done = state.piles[p]
        decisions = sum(actions[p].values())
        penalty = (
            sum(t.points[s[0]] for s in state.slots[p]) if state.rules.unfinished_penalty else 0
        )
        row = dict(ident)
        row |= {
            "seat": p,
            "first_player": state.first_player,
            "turn_order": (p - state.first_player) % n,
            "bot": seats[p],
            "score": scores[p],
            "rank": ranks[p],
            "won": (p in winners) if ok else None,
            "win_share": (1 / len(winners) if p in winners else 0.0) if ok else None,
            "completed_white": sum(1 for c in done if not t.is_black[c])
            + sum(1 for c in elsewhere[p] if not t.is_black[c]),
            "completed_black": sum(1 for c in done if t.is_black[c])
            + sum(1 for c in elsewhere[p] if t.is_black[c]),
            "unfinished": len(state.slots[p]),
            "unfinished_penalty": penalty,
            "finishing_pieces": state.ft_pieces[p],
            "points_from_puzzles": state.scores[p],
            "pieces_final": sum(state.supply[p]),
            # Endless: the noted white puzzles (reshuffled away) first, then the pile
            "puzzles_completed": " ".join(puzzle_ids[c] for c in (*elsewhere[p], *done)) or None,
            "puzzles_unfinished": " ".join(puzzle_ids[s[0]] for s in state.slots[p]) or None,
        }
        row |= {f"actions_{k}": actions[p].get(k, 0) for k in ACTION_KINDS}
        # the expansions' columns (null where the game does not play them)
        row |= dict.fromkeys(EXPANSION_SEAT_COLUMNS)
        for x in hooks.seat_columns:
            row |= x.seat_columns(state, p)
        row |= {
            "decisions": decisions,
            "decision_time_mean": decision_seconds[p] / decisions if decisions else None,
            "provisional_data": provisional,
            "provisional_sets": provisional_sets,
            "error": error,
        }
        seat_rows.append(row)
    margin = None
    if ok and solo:
        margin = scores[0] - opponent  # negative when the opponent won
    elif ok:
        best_other = max((s for p, s in enumerate(scores) if p not in winners), default=None)
        margin = scores[winners[0]] - best_other if best_other is not None else 0
    game = dict(ident) | {
        "rotation": rotation,
        "seats": ",".join(seats),
        "first_player": state.first_player,
        "rounds": state.round,
        "turns": state.turn - 1,
        "decisions": sum(sum(a.values()) for a in actions),
        "end_reason": state.end_reason if ok else None,
        "winners": ",".join(map(str, winners)) if ok else None,
        "winning_bots": ",".join(seats[w] for w in winners) if ok else None,
        "margin": margin,
        "opponent_score": opponent,
        **dict.fromkeys(EXPANSION_GAME_COLUMNS),
        "duration": duration,
        "provisional_data": provisional,
        "provisional_sets": provisional_sets,
        "error_seat": error_seat,
        "error": error,
    }
    for x in hooks.game_columns:
        game |= x.game_columns(state)
    return seat_rows, game


# -- part files ----------------------------------------------------------------------------------
def _atomic(path: Path, write: Any) -> None:
    """Write through ``write(tmp_path)`` then rename, so readers never see half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    write(tmp)
    os.replace(tmp, path)


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
    run_dir: Path, number: int, seats: Iterable[dict[str, Any]], games: Iterable[dict[str, Any]]
) -> None:
    """Append one part: the seats file first, then the games file that commits it."""
    name = f"part-{number:05d}.parquet"
    for table, rows in (("seats", seats), ("games", games)):
        folder = _part_dir(run_dir, table)
        folder.mkdir(parents=True, exist_ok=True)
        data = pa.Table.from_pylist(list(rows), schema=SCHEMAS[table])
        _atomic(folder / name, lambda tmp, data=data: pq.write_table(data, tmp))


def write_records(run_dir: Path, records: Iterable[tuple[int, dict[str, Any]]]) -> None:
    """Write game records as ``records/game-<id>.json`` (before the part that lists them)."""
    folder = run_dir / RECORDS
    for game_id, record in records:
        folder.mkdir(exist_ok=True)
        path = folder / f"game-{game_id:08d}.json"
        _atomic(path, lambda tmp, record=record: write_record(record, tmp))


def clean_parts(run_dir: Path) -> None:
    """Drop what a killed run can leave half done: temporary files and uncommitted seat parts."""
    committed = {p.name for p in _part_dir(run_dir, "games").glob("part-*.parquet")}
    for table in TABLES:
        folder = _part_dir(run_dir, table)
        for tmp in folder.glob(".*.tmp"):
            tmp.unlink()
        if table == "seats":
            for part in folder.glob("part-*.parquet"):
                if part.name not in committed:
                    part.unlink()
    for tmp in (run_dir / RECORDS).glob(".*.tmp"):
        tmp.unlink()


def read_parts(run_dir: Path, table: str) -> pa.Table:
    """Return every committed part of a table, concatenated (empty with the schema if none)."""
    committed = {p.name for p in _part_dir(run_dir, "games").glob("part-*.parquet")}
    files = sorted(
        p for p in _part_dir(run_dir, table).glob("part-*.parquet") if p.name in committed
    )
    if not files:
        return SCHEMAS[table].empty_table()
    return pa.concat_tables(pq.read_table(f, schema=SCHEMAS[table]) for f in files)


def done_game_ids(run_dir: Path) -> set[int]:
    """Return the ids of the games already in committed parts."""
    return set(read_parts(run_dir, "games").column("game_id").to_pylist())


def _sorted(table: pa.Table, name: str) -> pa.Table:
    return table.sort_by(SORT_KEYS[name])


def consolidate(run_dir: Path, fmt: str) -> dict[str, pa.Table]:
    """Write ``seats`` and ``games`` from every committed part, sorted; return the tables."""
    out = {}
    for name in TABLES:
        table = _sorted(read_parts(run_dir, name), name)
        path = run_dir / f"{name}.{fmt}"
        if fmt == "csv":
            _atomic(path, lambda tmp, table=table: pacsv.write_csv(table, tmp))
        else:
            _atomic(path, lambda tmp, table=table: pq.write_table(table, tmp))
        out[name] = table
    return out


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


def read_table(run_dir: str | Path, name: str) -> pa.Table:
    """Return a run's ``seats`` or ``games`` table: the consolidated file, else its parts."""
    run_dir = Path(run_dir)
    if (run_dir / f"{name}.parquet").exists():
        return pq.read_table(run_dir / f"{name}.parquet", schema=SCHEMAS[name])
    if (run_dir / f"{name}.csv").exists():
        schema = SCHEMAS[name]
        opts = pacsv.ConvertOptions(column_types=schema, strings_can_be_null=True)
        table = pacsv.read_csv(run_dir / f"{name}.csv", convert_options=opts)
        for field in schema:  # columns added since the file was written read as null
            if field.name not in table.column_names:
                table = table.append_column(field, pa.nulls(table.num_rows, field.type))
        return table.select(schema.names)
    if (run_dir / PARTS).exists():
        return _sorted(read_parts(run_dir, name), name)
    raise UsageError(f"{run_dir}: no {name} table (is it a run directory?)")


# -- manifest ------------------------------------------------------------------------------------
_DEPENDENCIES = ("numpy", "pandas", "pyarrow", "joblib", "dask", "distributed", "tqdm", "pyyaml")


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
