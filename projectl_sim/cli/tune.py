"""The ``tune`` subcommand: search rule parameters for the most balanced setting."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from projectl_sim.analysis.objective_help import OBJECTIVE_HELP
from projectl_sim.cli.options import game_options
from projectl_sim.errors import UsageError

TUNE_HELP = """\
Search rules parameters for the setting that makes a balance objective smallest: Optuna's TPE
sampler proposes settings, each is played as a run of --games-per-trial games per configuration
on the same deals, until --budget games are spent; then the best --confirm settings and the
rulebook's are played again on fresh deals (shared by all of them) and reported with 95%
bootstrap intervals over the deals, with a chart of the objective against each parameter
(OUT/tune.png). Objectives: """ + "; ".join(f"{k}: {v}" for k, v in OBJECTIVE_HELP.items())


def cmd_tune(args: argparse.Namespace) -> int:
    """Run the search and its confirmation, then print the report."""
    from projectl_sim.cli.options import rule_grid
    from projectl_sim.designer.tune import parse_param, tune
    from projectl_sim.sim import runner

    params = [parse_param(p) for p in args.param or []]
    for name, value in (
        ("--games-per-trial", args.games_per_trial),
        ("--confirm-games", args.confirm_games),
    ):
        if value is not None and value < 1:
            raise UsageError(f"{name} {value}: play at least one game")
    if args.confirm < 1:
        raise UsageError(f"--confirm {args.confirm}: confirm at least the best setting")
    fixed = rule_grid(args.rule) or {}
    several = sorted(k for k, v in fixed.items() if "," in str(v))
    if several:
        raise UsageError(f"--rule {several[0]}: tune fixes one value (search it with --param)")
    out = args.out or f"results/tune-{args.objective}-{time.strftime('%Y%m%d-%H%M%S')}"
    options = runner.RunOptions(
        jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, quiet=True
    )
    echo = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    result = tune(
        params,
        out,
        objective_name=args.objective,
        bots=args.bots,
        budget=args.budget,
        players=args.players,
        games_per_trial=args.games_per_trial,
        confirm=args.confirm,
        confirm_games=args.confirm_games,
        seed=args.seed,
        target=args.target,
        rules=fixed,
        catalogue=args.catalogue,
        expansions=args.expansions,
        options=options,
        echo=echo,
    )
    print(result.text())
    print(f"chart: {result.out / 'tune.png'}; runs in {result.out}/search and /confirm")
    return 0


def register(subparsers: Any) -> None:
    """Add ``tune`` to the command line's subparsers."""
    tu = subparsers.add_parser(
        "tune", help="search rules parameters for the most balanced setting", description=TUNE_HELP
    )
    tu.add_argument(
        "--objective",
        required=True,
        metavar="NAME",
        help=f"what to make small: {', '.join(OBJECTIVE_HELP)}",
    )
    tu.add_argument(
        "--target",
        type=float,
        metavar="T",
        help="make the objective's distance from T small instead (rounds, margin)",
    )
    tu.add_argument(
        "--param",
        action="append",
        metavar="NAME=LOW..HIGH",
        help="a parameter to search: a whole-number range, or values V1,V2,...; repeat for more",
    )
    tu.add_argument(
        "--budget",
        type=int,
        required=True,
        metavar="GAMES",
        help="games the search may play (the confirmation comes on top)",
    )
    tu.add_argument(
        "--games-per-trial",
        type=int,
        metavar="N",
        help="games per configuration of each setting (default: from the budget)",
    )
    tu.add_argument(
        "--confirm",
        type=int,
        default=3,
        metavar="K",
        help="best settings to confirm on fresh deals (default 3)",
    )
    tu.add_argument(
        "--confirm-games",
        type=int,
        metavar="N",
        help="games per configuration of each confirmation (default: twice a trial's)",
    )
    tu.add_argument(
        "--bots",
        action="append",
        required=True,
        metavar="LINEUP",
        help="a line-up: bot specs, one per seat, comma separated; repeat for more",
    )
    tu.add_argument("--players", metavar="N[,N...]", help="player counts (default: line-up size)")
    tu.add_argument(
        "--rule",
        action="append",
        metavar="KEY=V",
        help="a rules switch or parameter fixed for every setting",
    )
    game_options(
        tu,
        catalogue="play on this catalogue file (default: the base game's)",
        expansions="expansion sets played (as run --expansions)",
        tiles=None,
    )
    tu.add_argument("--seed", type=int, metavar="S", help="root seed (default: drawn)")
    tu.add_argument("--out", metavar="DIR", help="tune folder (default: results/tune-OBJ-TIME)")
    tu.add_argument("--jobs", type=int, metavar="J", help="worker processes (default: all cores)")
    tu.add_argument("--backend", default="local", metavar="NAME", help="local (default) or dask")
    tu.add_argument("--scheduler", metavar="ADDR", help="dask scheduler, e.g. tcp://HOST:8786")
    tu.add_argument("--quiet", action="store_true", help="no line per search trial")
    tu.set_defaults(func=cmd_tune)
