"""A run's manifest: what a new run writes first, and what a resume checks before trusting it.

The manifest (``manifest.json`` in the run folder) says what the run plays: its settings
(``config``), root seed, configurations, planned games and how it grew, and how each session
ended. ``--resume`` plays on from it, so it must not be believed on its word: ``check_resume``
recomputes the run's identity from its settings (the configurations, the run id, the number of
games, the tables' format) and compares it with what the manifest says and with the games
already written (their run id, configuration columns, seats and seeds), and refuses any
mismatch with one line. A hand-edited ``root_seed`` or line-up, or a manifest of a format this
version does not know, stops a resume before anything is written. A run that plays a user's
expansion or variant class keeps a hash of its source file (``plugin_hashes``): a resume after
the file was edited would mix games of two rule sets, so it is refused.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from projectl_sim.errors import UsageError
from projectl_sim.registry import source_hash
from projectl_sim.sim import tables
from projectl_sim.sim.spec import (
    SEED_SCHEME,
    GameConfig,
    RunSpec,
    Tasks,
    plan,
    run_id_of,
    run_id_v1,
    seed_scheme_of,
)

FORMAT = "projectl-run/1"  # the manifest's format: what this version writes
FORMATS = (FORMAT,)  # and the formats it reads
# Games whose seeds and seats a resume recomputes and compares with their rows (spread evenly
# over the games written: a changed seed or line-up changes every row, so a few catch it, and a
# huge run's resume does not recompute millions of seeds).
SAMPLE = 200
_CONFIG_COLUMNS = ("config_id", "players", "variant", "expansions", "switches", "lineup")


def plugin_hashes(spec: RunSpec) -> dict[str, str]:
    """Return the hash of the source of each user's class the run plays (``FILE.py:CLASS`` or
    ``MODULE:CLASS`` -> digest; a class without a file to read is left out)."""
    out = {}
    for _name, _kind, source in spec.plugins:
        digest = source_hash(source)
        if digest is not None:
            out[source] = digest
    return out


def new_manifest(
    spec: RunSpec, seed: int, run_id: str, configs: Sequence[GameConfig], n_games: int
) -> dict[str, Any]:
    """Return the manifest a new run writes before its first game."""
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "run_id": run_id,
        "root_seed": seed,
        "seed_scheme": SEED_SCHEME,  # which configurations share deals (spec.seed_scheme_of)
        "config": spec.to_json() | {"seed": seed},
        "configs": [c.to_json() for c in configs],
        "games_planned": n_games,
        "games_history": [spec.games],
        "versions": tables.versions(),
        "git": tables.git_commit(),
        "started": tables.now(),
        "sessions": [],
        "status": "running",
    }
    hashes = plugin_hashes(spec)
    if hashes:  # checked by a resume (a run of the package's classes only has none)
        manifest["plugin_hashes"] = hashes
    return manifest


def _refuse(out: Path, what: str) -> UsageError:
    return UsageError(
        f"--resume: {out / tables.MANIFEST} {what}: the manifest does not describe the run in "
        "that folder (edited by hand?); play it again in a new folder"
    )


def stored_run(out: Path, manifest: dict[str, Any]) -> tuple[RunSpec, list[int]]:
    """Return the settings and the games history a manifest holds, once its format, seed and
    history are checked (``UsageError``: one line)."""
    fmt = manifest.get("format")
    if fmt not in FORMATS:
        known = ", ".join(FORMATS)
        raise UsageError(
            f"--resume: {out / tables.MANIFEST} is of format {fmt!r}, which this version of "
            f"projectl-sim does not read (it reads {known}); resume it with the version that "
            "wrote it"
        )
    seed_scheme_of(manifest, out)  # a scheme this version does not know: one line
    config = manifest["config"]
    if not isinstance(config, dict):
        raise _refuse(out, "has no settings (config)")
    if "tables" not in config:  # written before the flow tables: it has seats and games only
        config = config | {"tables": "core"}
    stored = RunSpec.from_mapping(config)
    root = manifest.get("root_seed")
    if stored.seed is None or root != stored.seed:
        raise _refuse(out, f"names root seed {root!r} but its settings seed {stored.seed!r}")
    history = manifest.get("games_history") or [stored.games]
    ok = (
        isinstance(history, list)
        and all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in history)
        and history == sorted(set(history))
        and history[-1] == stored.games
    )
    if not ok:
        raise _refuse(
            out, f"has games_history {history!r}, which does not grow to games {stored.games}"
        )
    return stored, list(history)


def _without_names(configs: Any) -> Any:
    """Return manifest configurations without their ``bot_names``: how the tables name the
    users' bots (their classes' names, which a run written before them lacks) is no setting."""
    if not isinstance(configs, list):
        return configs
    return [
        {k: v for k, v in c.items() if k != "bot_names"} if isinstance(c, dict) else c
        for c in configs
    ]


def check_resume(
    out: Path,
    manifest: dict[str, Any],
    stored: RunSpec,
    history: Sequence[int],
    written: tables.Written | None,
) -> None:
    """Refuse (``UsageError``, one line) a resume whose manifest disagrees with the run it
    stands for: the configurations, run id and games its settings give, the format of the
    tables written, and the games already written (``written``: what ``read_written`` found in
    its committed parts or consolidated tables; None: none written)."""
    assert stored.seed is not None
    scheme = seed_scheme_of(manifest, out)
    configs, tasks = plan(stored, stored.seed, history, scheme)
    mine = json.loads(json.dumps([c.to_json() for c in configs]))
    if _without_names(manifest.get("configs")) != _without_names(mine):
        raise _refuse(out, "lists configurations its settings do not make")
    run_id = manifest.get("run_id")
    ids = (
        run_id_of(stored, stored.seed, scheme),
        run_id_v1(stored, stored.seed, history[0], scheme),
    )
    if run_id not in ids:
        raise _refuse(out, f"names run id {run_id!r}, not the id of its settings and seed")
    planned = manifest.get("games_planned")
    if planned is not None and planned != len(tasks):
        raise _refuse(out, f"plans {planned!r} games where its settings make {len(tasks)}")
    for fmt in tables.FORMATS:
        if fmt != stored.format and (out / f"games.{fmt}").exists():
            raise _refuse(out, f"says format {stored.format!r} but the tables are {fmt}")
    played = written is not None and written.tally.rows > 0
    _check_plugins(out, manifest, stored, played)
    if written is not None and played:
        _check_rows(out, written, configs, tasks, str(run_id))


def read_written(out: Path, planned: int) -> tables.Written | None:
    """Return what ``check_resume`` checks of the games a run folder holds (``planned``: the
    games its settings plan), read window by window: no table is held whole."""
    return tables.read_written(
        out, planned, _SAMPLED_GAMES, _SAMPLED_SEATS, ("run_id", *_CONFIG_COLUMNS), SAMPLE
    )


# the columns of the sampled games and seats a resume compares with its plan
_SAMPLED_GAMES = ("game_id", "seed", "deal", "rotation", "seats", "replicate")
_SAMPLED_SEATS = ("game_id", "seat", "bot", "bot_spec")


def _check_plugins(out: Path, manifest: dict[str, Any], stored: RunSpec, played: bool) -> None:
    """Refuse a resume when a user's class the run plays changed since its games began (its
    source's hash is not the manifest's): the games would mix two rule sets. Before any game
    was written (a plug-in that failed at once, then fixed) the manifest takes the new hashes."""
    recorded = manifest.get("plugin_hashes") or {}
    if not isinstance(recorded, dict):
        raise _refuse(out, f"has plugin_hashes {recorded!r}, not a mapping")
    now = plugin_hashes(stored)
    if not played:
        if now:
            manifest["plugin_hashes"] = now
        return
    for source, digest in sorted(recorded.items()):
        if now.get(source) != digest:
            kind = next((k for _n, k, s in stored.plugins if s == source), "class")
            raise UsageError(
                f"--resume: your {kind} {source} changed since the run in {out} began (its "
                "source's hash is not the one in the manifest): the games played so far followed "
                "the old rules; put the file back as it was, or play the run again in a new folder"
            )


def _check_rows(
    out: Path,
    written: tables.Written,
    configs: Sequence[GameConfig],
    tasks: Tasks,
    run_id: str,
) -> None:
    """Compare the games written with what the manifest's settings play."""
    if written.first < 0 or written.last >= len(tasks):
        raise _refuse(out, f"plans {len(tasks)} games, and its tables hold game {written.last}")
    found = written.run_ids
    if found != {run_id}:
        other = sorted(str(x) for x in found - {run_id})
        raise _refuse(out, f"names run id {run_id}, and its tables hold games of {other[0]}")
    by_id = {c.config_id: c for c in configs}
    for row in written.configs:
        config = by_id.get(row["config_id"])
        if config is None or {k: config.columns()[k] for k in _CONFIG_COLUMNS} != {
            k: row[k] for k in _CONFIG_COLUMNS
        }:
            raise _refuse(
                out,
                f"describes configuration {row['config_id']} otherwise than its games do "
                f"(they play {row['lineup']}, {row['players']} players, {row['variant']}, "
                f"expansions {row['expansions']}, switches {row['switches']})",
            )
    sample = written.sample
    for row in sample.to_pylist():
        task = tasks[row["game_id"]]
        seated = ",".join(by_id[task.config_id].seated(task.rotation))
        if (row["seed"], row["deal"], row["rotation"], row["seats"], row["replicate"] or 0) != (
            task.seed,
            task.deal,
            task.rotation,
            seated,
            task.replicate,
        ):
            raise _refuse(
                out,
                f"gives game {row['game_id']} seed {task.seed} and seats {seated}, and its "
                f"tables hold seed {row['seed']} and seats {row['seats']}",
            )
    if written.sample_seats.num_rows:
        for row in written.sample_seats.to_pylist():
            task = tasks[row["game_id"]]
            bot = by_id[task.config_id].seated(task.rotation)[row["seat"]]
            if (row["bot_spec"] or row["bot"]) != bot:  # (no bot_spec: written before it)
                raise _refuse(
                    out,
                    f"seats {bot} at seat {row['seat']} of game {row['game_id']}, and its "
                    f"tables hold {row['bot']}",
                )


__all__ = ["FORMAT", "FORMATS", "check_resume", "new_manifest", "plugin_hashes", "stored_run"]
