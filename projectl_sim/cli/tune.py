"""The ``tune`` subcommand: search rule parameters for the most balanced setting."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from projectl_sim.analysis.objective_help import OBJECTIVE_HELP, STRENGTH_HELP
from projectl_sim.cli.options import game_options
from projectl_sim.errors import UsageError

TUNE_HELP = (
    """\
Search rules parameters for the setting that makes a balance objective smallest: Optuna's TPE
sampler proposes settings, each is played as a run of --games-per-trial games per configuration
on the same deals, until --budget games are spent; then the best --confirm settings and the
rulebook's are played again on fresh deals (shared by all of them) and reported with 95%
bootstrap intervals over the deals, with a chart of the objective against each parameter
(OUT/tune.png). Any number of --param; a space of at most 30 settings (whole numbers and
choices) is searched whole when the budget holds it, else the report names the settings left
out and the budget that holds them all. Objectives: """
    + "; ".join(f"{k}: {v}" for k, v in OBJECTIVE_HELP.items())
    + (
        ". --objective tiers --tiers A,B,C (strongest first) plays each setting as a round robin "
        "of the tiers and scores its distance from --tiers-target (stronger=T,first=F or a "
        "TOML/JSON file of beats and first_player): rules that keep skill rewarded and seats "
        "fair. --bot BOT --param NAME=LOW..HIGH --field A,B tunes the bot's own parameters "
        "instead, for strength ("
        + STRENGTH_HELP
        + "), confirmed the same way against the bot's defaults."
    )
)


def cmd_tune(args: argparse.Namespace) -> int:
    """Run the search and its confirmation, then print the report."""
    from projectl_sim.cli.options import rule_grid
    from projectl_sim.cli.puzzles import refuse_empty
    from projectl_sim.experiments.tune import parse_bot_param, parse_param, parse_tiers_target, tune
    from projectl_sim.sim import runner
    from projectl_sim.sim.spec import split_lineup

    refuse_empty(args, "--objective", "--tiers", "--tiers-target", "--bot", "--field")
    refuse_empty(args, "--bots", "--players", "--expansions", "--scheduler", "--backend")
    if args.field is not None and not args.bot:
        raise UsageError("--field goes with --bot (the opponents of the bot tuned)")
    objective = args.objective or ("strength" if args.bot else None)
    if objective is None:
        raise UsageError("tune needs --objective NAME (or --bot BOT to tune a bot)")
    if args.bot and args.objective not in (None, "strength"):
        raise UsageError(f"--bot tunes for strength; --objective {args.objective} tunes rules")
    tiers = split_lineup(args.tiers) if args.tiers else []
    if (args.tiers or args.tiers_target) and objective != "tiers":
        raise UsageError("--tiers and --tiers-target go with --objective tiers")
    target: Any = args.target
    if objective == "tiers":
        if args.target is not None:
            raise UsageError("--objective tiers: give its target as --tiers-target")
        target = parse_tiers_target(args.tiers_target, tiers)
    if args.bot:
        params = [parse_bot_param(args.bot, p) for p in args.param or []]
    else:
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
    out = args.out or f"results/tune-{objective}-{time.strftime('%Y%m%d-%H%M%S')}"
    options = runner.RunOptions(
        jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, quiet=True
    )
    echo = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    result = tune(
        params,
        out,
        objective_name=objective,
        bots=args.bots or [],
        budget=args.budget,
        players=args.players,
        games_per_trial=args.games_per_trial,
        confirm=args.confirm,
        confirm_games=args.confirm_games,
        seed=args.seed,
        target=target,
        rules=fixed,
        catalogue=args.catalogue,
        expansions=args.expansions,
        options=options,
        echo=echo,
        tiers=tiers,
        bot=args.bot,
        field=split_lineup(args.field) if args.field else [],
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
        metavar="NAME",
        help=f"what to make small: {', '.join(OBJECTIVE_HELP)} (with --bot: strength)",
    )
    tu.add_argument(
        "--tiers",
        metavar="BOTS",
        help="--objective tiers: the skill tiers, strongest first (greedy,value,random ...)",
    )
    tu.add_argument(
        "--tiers-target",
        metavar="SPEC|FILE",
        help="--objective tiers: stronger=T,first=F (default stronger=0.6,first=0.5) or a TOML/"
        "JSON file: first_player = F and [beats.TIER] OTHER = RATE",
    )
    tu.add_argument(
        "--bot",
        metavar="SPEC",
        help="tune this bot's parameters (--param NAME=LOW..HIGH, floats too) for strength "
        "against --field",
    )
    tu.add_argument(
        "--field",
        metavar="BOTS",
        help="--bot: the opponents, comma separated; the candidate meets each on the same deals",
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
        help="a parameter to search: a whole-number range (with --bot, a float parameter's "
        "range is searched as floats), or values V1,V2,...; repeat for more",
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
        metavar="LINEUP",
        help="a line-up: bot specs, one per seat, comma separated; repeat for more (rules "
        "objectives but tiers)",
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
