"""``puzzle try``: paired games with and without a drawn puzzle, and what it changed."""

from __future__ import annotations

import argparse
import time
from typing import Any

from projectl_sim.cli.options import game_options
from projectl_sim.errors import UsageError


def cmd_try(args: argparse.Namespace) -> int:
    """Play the paired runs of one drawn puzzle and print their report."""
    from projectl_sim.cli.options import drawn_puzzles, rule_grid
    from projectl_sim.cli.puzzles import refuse_empty
    from projectl_sim.experiments.trial import try_puzzle
    from projectl_sim.sim import runner

    refuse_empty(args, "--expansions", "--players", "--scheduler", "--backend", "--puzzle")
    refuse_empty(args, "--replaces", "--bots")
    if args.games is not None and args.games < 1:
        raise UsageError(f"--games {args.games}: play at least one game per configuration")
    _cat, drawn = drawn_puzzles(args)
    if args.puzzle is None and len(drawn) > 1:
        ids = ", ".join(p.id for p in drawn)
        raise UsageError(
            f"{args.file} holds {len(drawn)} puzzles ({ids}): choose one with --puzzle"
        )
    chosen = [p for p in drawn if args.puzzle in (None, p.id)]
    if not chosen:
        raise UsageError(f"--puzzle {args.puzzle}: {args.file} has no such puzzle")
    out = args.out or f"results/try-{chosen[0].id}-{time.strftime('%Y%m%d-%H%M%S')}"
    options = runner.RunOptions(
        jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, quiet=args.quiet
    )
    trial = try_puzzle(
        chosen[0],
        out,
        bots=args.bots,
        players=args.players,
        games=args.games or 200,
        seed=args.seed,
        replaces=args.replaces,
        catalogue=args.catalogue,
        expansions=args.expansions,
        rules=rule_grid(args.rule),
        options=options,
    )
    print(trial.report.text())
    print(f"root seed {trial.seed}; runs in {trial.out}/without and {trial.out}/with")
    return 0


def register(sub: Any, description: str) -> None:
    """Add ``puzzle try`` to the ``puzzle`` group's subparsers."""
    tr = sub.add_parser(
        "try", help="what a drawn puzzle does to the game (paired runs)", description=description
    )
    tr.add_argument("file", metavar="FILE", help="a puzzle file (.toml, or .json)")
    tr.add_argument("--puzzle", metavar="ID", help="the puzzle of FILE to try (when it holds more)")
    tr.add_argument(
        "--replaces", metavar="ID", help="put it in the place of this printed puzzle (W07, ...)"
    )
    tr.add_argument(
        "--bots",
        action="append",
        required=True,
        metavar="LINEUP",
        help="a line-up: bot specs, one per seat, comma separated; repeat for more line-ups",
    )
    tr.add_argument("--players", metavar="N[,N...]", help="player counts (default: line-up size)")
    tr.add_argument("--games", type=int, metavar="N", help="games per configuration (default 200)")
    tr.add_argument("--seed", type=int, metavar="S", help="root seed of both runs (default: drawn)")
    tr.add_argument(
        "--rule",
        action="append",
        metavar="KEY=V[,V...]",
        help="rules switches or parameters for both runs, as run --rule takes them",
    )
    game_options(
        tr,
        catalogue="play on this catalogue file (default: the base game's)",
        expansions="expansion sets played in both runs (as run --expansions)",
        tiles=None,
    )
    tr.add_argument("--out", metavar="DIR", help="trial folder (default: results/try-ID-TIME)")
    tr.add_argument("--jobs", type=int, metavar="J", help="worker processes (default: all cores)")
    tr.add_argument("--backend", default="local", metavar="NAME", help="local (default) or dask")
    tr.add_argument("--scheduler", metavar="ADDR", help="dask scheduler, e.g. tcp://HOST:8786")
    tr.add_argument("--quiet", action="store_true", help="no progress bar or info lines")
    tr.set_defaults(func=cmd_try)
