"""Small seeded sweeps for the notebooks: run one when its results folder is missing.

Each sweep is a run config mapping (the keys of a config file) built from a few parameters, so a
notebook states how big its sweep is and the same seed gives the same tables. The balance sweep
plays every combination of the expansions.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from projectl_sim.errors import UsageError
from projectl_sim.rules import DIFFICULTIES, EXPANSIONS, expansion_subsets
from projectl_sim.sim import runner, tables
from projectl_sim.sim import spec as run_spec


def ladder_lineups(
    budgets: Sequence[int], bot: str = "mcts", param: str = "iterations"
) -> list[str]:
    """Return the line-ups of a doubling ladder: each budget against its double."""
    return [f"{bot}:{param}={n},{bot}:{param}={2 * n}" for n in budgets]


def expansion_combinations() -> list[str]:
    """Return every combination of the expansions as the tables name them, ``none`` first."""
    return [
        "+".join(n for n in EXPANSIONS if n in names) or "none" for names in expansion_subsets()
    ]


def bot_strength_config(
    games: int = 30,
    bots: Sequence[str] = ("random", "greedy", "mcts:iterations=32"),
    ladder: Sequence[int] = (8, 16, 32, 64),
) -> dict[str, Any]:
    """Return the sweep of notebook 01: every pair of ``bots`` at 2 players, and a budget ladder."""
    pairs = [f"{a},{b}" for a, b in itertools.combinations(bots, 2)]
    return {"bots": pairs + ladder_lineups(ladder), "players": [2], "games": games}


def balance_config(
    games: int = 60, bots: Sequence[str] = ("greedy",), players: Sequence[int] = (2, 3, 4)
) -> dict[str, Any]:
    """Return the sweep of notebook 02: every expansion combination x player count."""
    return {
        "bots": [",".join(bots)],
        "players": list(players),
        "expansions": expansion_combinations(),
        "games": games,
    }


def puzzle_config(
    games: int = 60, bots: Sequence[str] = ("greedy",), players: Sequence[int] = (2, 3, 4)
) -> dict[str, Any]:
    """Return the sweep of notebook 03: which puzzles bots take and complete (with records)."""
    return {"bots": [",".join(bots)], "players": list(players), "games": games, "records": "all"}


def solo_config(games: int = 60, bots: Sequence[str] = ("greedy",)) -> dict[str, Any]:
    """Return the solo sweep of notebook 04: each bot against the mastermind at every level."""
    return {
        "bots": list(bots),
        "players": [1],
        "variant": "solo",
        "difficulty": list(DIFFICULTIES),
        "games": games,
    }


def finesse_config(
    games: int = 60, bots: Sequence[str] = ("greedy",), players: Sequence[int] = (2,)
) -> dict[str, Any]:
    """Return the Credits sweep of notebook 04: the base game and each combination with Finesse."""
    with_finesse = [c for c in expansion_combinations() if "finesse" in c.split("+")]
    return {
        "bots": [",".join(bots)],
        "players": list(players),
        "expansions": ["none", *with_finesse],
        "games": games,
    }


def cards_config(
    games: int = 200, bots: Sequence[str] = ("greedy",), players: Sequence[int] = (2,)
) -> dict[str, Any]:
    """Return the sweep of notebook 06: one line-up at each player count, with the flow tables
    (``events``, ``rounds``) the card strength and the game flow read."""
    return {
        "bots": [",".join(bots)],
        "players": list(players),
        "games": games,
        "tables": "all",
    }


def ensure_run(
    path: str | Path,
    config: Mapping[str, Any],
    seed: int,
    *,
    jobs: int | None = 1,
    play: bool = True,
) -> Path:
    """Return ``path``, first playing ``config`` with root ``seed`` there if it holds no run.

    A folder with a manifest is used as it is (an interrupted run is finished first). With
    ``play`` false nothing is played: a folder without a manifest is a ``UsageError`` and an
    unfinished run is read as far as it went, so a notebook given a run to read
    (``projectl-sim notebook`` without ``--play``) never writes into a folder of the user's.
    """
    path = Path(path)
    options = runner.RunOptions(jobs=jobs, quiet=True)
    if (path / tables.MANIFEST).exists():
        if play and tables.read_manifest(path).get("status") != "complete":
            runner.run(None, path, resume=True, options=options)
        return path
    if not play:
        raise UsageError(f"{path}: holds no run, and PLAY is False (--play plays the sweep there)")
    spec = run_spec.RunSpec.from_mapping(dict(config) | {"seed": seed})
    runner.run(spec, path, options=options)
    return path


def ensure_runs(
    path: str | Path,
    configs: Mapping[str, Mapping[str, Any]],
    seed: int,
    *,
    jobs: int | None = 1,
    play: bool = True,
) -> list[Path]:
    """Return the run folders a notebook of several runs reads from ``path``.

    ``path`` itself when it is a run (a run of the user's, read alone); else its subfolders
    named by ``configs`` (``path/solo``, ``path/finesse``), each played from its config with
    root ``seed`` when missing (``ensure_run``). With ``play`` false a missing one is left out,
    and a ``path`` holding none of them is a ``UsageError``.
    """
    path = Path(path)
    if (path / tables.MANIFEST).exists():
        return [path]
    folders = [path / name for name in configs]
    if not play:
        folders = [f for f in folders if (f / tables.MANIFEST).exists()]
        if not folders:
            names = ", ".join(f"{n}/" for n in configs)
            raise UsageError(
                f"{path}: holds no run (neither a run nor {names}), and PLAY is False (--play "
                "plays the sweeps there)"
            )
    return [ensure_run(f, configs[f.name], seed, jobs=jobs, play=play) for f in folders]
