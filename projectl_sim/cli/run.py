"""The ``run``, ``summary``, ``compare`` and ``report`` subcommands: a grid of games, its
answers, two runs side by side, its page."""

from __future__ import annotations

import argparse
import math
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectl_sim.cli.options import (
    PROG,
    game_options,
    load_user_classes,
    refuse_empty,
    rule_grid,
)

if TYPE_CHECKING:
    from projectl_sim.experiments.precision import PrecisionRequest
    from projectl_sim.sim.spec import RunSpec
from projectl_sim.errors import UsageError
from projectl_sim.rules import EXPANSIONS, run_switches

RUN_HELP = """\
Play a grid of games: line-ups x player counts x variants x expansions x rule switches, each for
--games games, given by flags, a TOML/YAML file (--config) or a preset (--preset); flags win over
the file, the file over the preset. Seats rotate over the same deals so every bot plays every
seat equally often. --round-robin A,B,C plays every pair (or, with --players N, every N) of the
bots instead of given line-ups. Results go to OUT/seats.parquet, OUT/games.parquet and
OUT/manifest.json; the run ends by printing its summary (as `projectl-sim summary OUT` does).
"""


def _expansion_files(items: list[str]) -> dict[str, str] | None:
    out = {}
    for item in items:
        name, eq, path = item.partition("=")
        if not eq or not name or not path:
            raise UsageError(f"--expansion-file {item!r}: use NAME=FILE")
        out[name] = path
    return out or None


def cmd_run(args: argparse.Namespace) -> int:
    """Run (or resume) a grid of games, then print its summary."""
    import projectl_sim.cli.human
    import projectl_sim.experiments  # noqa: F401  (declares --tiers and --deal-replicates)
    from projectl_sim.analysis.answers import summary_text, verdicts_text
    from projectl_sim.board.study import study_command
    from projectl_sim.sim import runner, tables
    from projectl_sim.sim import spec as run_spec

    # an empty value would silently mean "not given" (the preset's, the file's or the default)
    refuse_empty(args, "--round-robin", "--players", "--difficulty", "--tiers", "--preset")
    refuse_empty(args, "--scheduler")
    load_user_classes(args.expansions, args.variant)  # their options, before --rule is read
    flags: dict[str, Any] = {
        "bots": args.bots,
        "round_robin": args.round_robin,
        "players": args.players,
        "variant": args.variant,
        "expansions": args.expansions,
        "difficulty": args.difficulty,
        "rules": rule_grid(args.rule),
        "games": args.games,
        "seed": args.seed,
        "records": args.records,
        "format": args.format,
        "tables": args.tables,
        "catalogue": args.catalogue,
        "tiles": args.tiles,
        "expansion_files": _expansion_files(args.expansion_file),
        "deal_replicates": args.deal_replicates,
        "tiers": args.tiers,
    }
    if args.out is not None and not args.out.strip():
        raise UsageError(
            f"--out {args.out!r} names no folder: give the run folder, such as results/NAME"
        )
    given = any(v is not None for v in flags.values()) or args.config or args.preset
    spec = None
    if given:
        # On --resume, what is given is laid over the run's own settings, which must not change.
        stored = tables.read_manifest(args.out)["config"] if args.resume and args.out else None
        merged = run_spec.merge_sources(
            stored,
            run_spec.preset(args.preset) if args.preset else None,
            run_spec.read_config_file(args.config) if args.config else None,
            flags,
        )
        spec = run_spec.RunSpec.from_mapping(merged)
    out = args.out
    if out is None:
        if args.resume:
            raise UsageError("--resume needs --out, the folder of the run to finish")
        out = f"results/{args.preset or 'run'}-{time.strftime('%Y%m%d-%H%M%S')}"
    options = runner.RunOptions(
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        quiet=args.quiet,
        chunk=args.chunk,
        decision_timeout=args.decision_timeout,
        game_timeout=args.game_timeout,
        check_invariants=args.check_invariants,
    )
    request = _precision_request(args, out)
    if request is None and spec is not None and not args.resume and not args.quiet:
        # said as the run starts, once its folder and disk space are checked
        options = replace(options, notes=tuple(start_notes(spec, options.jobs)))
    if request is not None:
        from projectl_sim.experiments.precision import grow_until_precise

        result, _ = grow_until_precise(spec, out, request, resume=args.resume, options=options)
    else:
        result = runner.run(spec, out, resume=args.resume, options=options)
    again = study_command(result.out)
    with _stop_at_once(result.out):
        if again is not None:  # a configuration per action: no seat, expansion or line-up
            print(f"a study of one position: its answer is printed by {again}", flush=True)
        elif args.quiet:  # the verdicts, and where the rest is
            print(verdicts_text(result.out), flush=True)
            print(f"the full answers: {PROG} summary {shlex.quote(str(result.out))}")
        elif args.preset == "demo":  # one question answered in a dozen lines
            from projectl_sim.analysis.demo import demo_text

            print(demo_text(result.out), flush=True)
            print(demo_next_commands(result.out), file=sys.stderr)
        else:
            print(summary_text(result.out), flush=True)
            # after the answers, also when both streams go to one pipe
            print(next_commands(result.out), file=sys.stderr)
    return 0


# a run estimated to take longer than this says so before it starts, with a smaller command
ESTIMATE_SECONDS = 60.0


def _duration(seconds: float) -> str:
    """Return a duration as a person says it: ``40 s``, ``12 min``, ``3.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _games(n: int, per: int) -> str:
    """Return ``201 games (67 deals x 3 seatings)``."""
    deals = n // per
    return f"{n} games ({deals} deal{'s' if deals != 1 else ''} x {per} seatings)"


def start_notes(spec: RunSpec, jobs: int | None) -> list[str]:
    """Return the lines a new run says before it starts: how ``--games`` is rounded to whole
    seatings (when it is), and, for a run of more than a minute, about how long it will take
    from the bots' measured CPU a decision (``bots.measured``) and a smaller ``--games``."""
    from bots.measured import estimate_seconds
    from projectl_sim.sim.spec import configurations

    configs = configurations(spec)
    played = [math.ceil(spec.games / c.per_deal) * c.per_deal for c in configs]
    lines = []
    rounded = sorted({(n, c.per_deal) for n, c in zip(played, configs, strict=True)})
    rounded = [(n, per) for n, per in rounded if n != spec.games]
    if rounded:
        rest = sum(1 for n in played if n == spec.games)
        if rest or len(rounded) > 1:
            parts = [
                f"{_games(n, per)} in {sum(1 for m in played if m == n)}" for n, per in rounded
            ]
            where = f"{', '.join(parts)} of the {len(configs)} configurations" + (
                f", {spec.games} in the other {rest}" if rest else ""
            )
        else:  # every configuration rounded alike
            n, per = rounded[0]
            where = f"{_games(n, per)} in {'each' if len(configs) > 1 else 'its'} configuration"
        lines.append(
            f"note: --games {spec.games} is rounded up to whole seatings (every deal is played "
            f"under each seating of its line-up): {where}"
        )
    workers = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    seats = [c.lineup for c in configs]
    seconds, unknown = estimate_seconds(seats, played, workers)
    if seconds > ESTIMATE_SECONDS:
        # the smaller run: whole deals of the most seatings, about half a minute
        step = max(c.per_deal for c in configs)
        fewer = max(step, int(spec.games * ESTIMATE_SECONDS / 2 / seconds) // step * step)
        small, _ = estimate_seconds(
            seats, [math.ceil(fewer / c.per_deal) * c.per_deal for c in configs], workers
        )
        least = "at least " if unknown else ""
        lines.append(
            f"estimate: {least}about {_duration(seconds)} for {sum(played)} games on {workers} "
            f"worker(s), from the bots' measured CPU a decision"
            + (f" ({', '.join(unknown)}: not measured, not counted)" if unknown else "")
            + f"; a first look in {least}about {_duration(small)}: the same command with "
            f"--games {fewer}"
        )
    return lines


@contextmanager
def _stop_at_once(out: str | Path) -> Iterator[None]:
    """While a finished run's answers are worked out and printed, make a Ctrl-C end the command
    at once with one line (exit 130): the run is safe on disk, and an interrupt raised inside
    the analysis's finalizers would only print "Exception ignored" and let it go on."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        line = (
            f"{PROG}: interrupted: the run in {out} is complete; its answers: {PROG} summary {out}"
        )
        os.write(2, (line + "\n").encode())
        os._exit(130)

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _precision_request(args: argparse.Namespace, out: str) -> PrecisionRequest | None:
    """Return what ``--until-precision`` asks, or what the resumed run asked, or None.

    A plain ``--resume`` of a run grown by ``--until-precision`` goes on with its loop (its
    request is in the manifest); ``--resume --games N`` grows it to N and stops.
    """
    from projectl_sim.experiments import precision

    stored = precision.stored_request(out) if args.resume else None
    if args.until_precision is not None:
        request = precision.parse_request(args.until_precision, args.precision_of, args.max_games)
        if stored is not None:
            precision.same_request(request, stored, out)
        return request
    if (args.precision_of is not None or args.max_games is not None) and stored is None:
        raise UsageError("--precision-of and --max-games go with --until-precision W")
    if stored is not None and args.games is None:
        return stored if args.max_games is None else replace(stored, max_games=args.max_games)
    return None


# the round robin a run that was none suggests: the player's question (which greedy preset is
# strongest, is MCTS worth its time?) at a size that plays in well under a minute on two cores
ROUND_ROBIN_NEXT = "greedy,greedy:preset=rush_black,mcts:iterations=20"


def next_commands(out: str | Path) -> str:
    """Return the commands to try after a run (the demo's last lines), each with what it does."""
    from projectl_sim.sim import tables

    manifest = tables.read_manifest(out)
    config = manifest.get("config", {})
    seed = manifest.get("root_seed", config.get("seed"))
    q = shlex.quote(str(out))
    lines = [
        (f"projectl-sim summary {q}", "these answers again"),
        (f"projectl-sim report {q}", "one HTML page with charts"),
    ]
    if not manifest.get("precision"):  # a run grown to a width already asked its own
        lines.append(
            (
                f"projectl-sim run --out {q} --resume --until-precision 0.1",
                "more games, same seeds, until every interval is at most 0.1 wide",
            )
        )
    lines += [
        (
            f"projectl-sim compare {q} OTHER",
            f"OTHER: this grid with --seed {seed} and another --rule; paired",
        ),
        (f"projectl-sim view --from {q} --game 0", "its first game, move by move (a web page)"),
    ]
    if not config.get("round_robin"):
        lines.append(
            (
                f"projectl-sim run --round-robin {ROUND_ROBIN_NEXT} --games 20",
                "which bot is strongest, at what CPU per decision",
            )
        )
    width = max((len(c) for c, _ in lines if len(c) <= 60), default=0)  # long ones stick out
    return "\n".join(["next:", *(f"  {c:<{width}}  # {why}" for c, why in lines)])


# the demo's next question: does a strategy (rushing the 4-point black puzzles) beat the default?
DEMO_NEXT = "--bots greedy,greedy:preset=rush_black --players 2 --games 2000"


def demo_next_commands(out: str | Path) -> str:
    """Return the three commands the demo ends with, each with what it does."""
    q = shlex.quote(str(out))
    lines = [
        (f"projectl-sim summary {q}", "every answer of this run: game length, margins, flow"),
        (f"projectl-sim run {DEMO_NEXT}", "does rushing the black puzzles beat greedy?"),
        (f"projectl-sim view --from {q} --game 0", "its first game, move by move (a web page)"),
    ]
    width = max(len(c) for c, _ in lines)
    return "\n".join(["next:", *(f"  {c:<{width}}  # {why}" for c, why in lines)])


def cmd_summary(args: argparse.Namespace) -> int:
    """Print a run's answers (seat advantage, effects, ratings, ...) and its win-rate tables."""
    from projectl_sim.analysis.answers import summary_text
    from projectl_sim.board.study import refuse_a_study

    refuse_a_study(args.run, "summary")
    print(summary_text(args.run))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Print run B against run A, paired on the deals they share."""
    from projectl_sim.analysis.paired import compare_text
    from projectl_sim.board.study import refuse_a_study

    refuse_a_study(args.run_a, "compare")
    refuse_a_study(args.run_b, "compare")
    print(compare_text(args.run_a, args.run_b))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Write a run's HTML report."""
    from projectl_sim.analysis.report import write_report
    from projectl_sim.board.study import refuse_a_study

    refuse_a_study(args.run, "report")
    if args.out and Path(args.out).is_dir():  # said before the report is built, not after
        page = Path(args.out) / "report.html"
        raise UsageError(f"--out {args.out}: a folder, not a file (give the page, such as {page})")
    path = write_report(args.run, args.out)
    print(f"report written to {path}")
    return 0


def register(subparsers: Any) -> None:
    """Add ``run``, ``summary`` and ``report`` to the command line's subparsers."""
    from projectl_sim.sim.spec import PRESETS, RECORDS_HELP
    from projectl_sim.sim.workers import DECISION_TIMEOUT, GAME_TIMEOUT, PART_GAMES

    run = subparsers.add_parser(
        "run",
        help="play a grid of games in parallel into result tables",
        description=RUN_HELP,
    )
    grid = run.add_argument_group("what to play")
    grid.add_argument(
        "--bots",
        action="append",
        metavar="LINEUP",
        help="a line-up: bot specs, one per seat, comma separated (fewer bots than players "
        "repeat in order); repeat the flag for more line-ups",
    )
    grid.add_argument(
        "--round-robin",
        metavar="BOTS",
        help="a tournament instead of --bots: every pair of these bots (comma separated) at 2 "
        "players, or with --players N every N of them, all on the same deals under every seat "
        "rotation; the summary leads with their ratings and head to head",
    )
    grid.add_argument("--players", metavar="N[,N...]", help="player counts (default: line-up size)")
    grid.add_argument(
        "--expansions",
        metavar="SET[,SET...]",
        help="expansion sets: none, names joined with + (ghost+finesse), or all-subsets "
        f"(every subset of {', '.join(EXPANSIONS)}), or your own expansion class: FILE.py:CLASS "
        "or MODULE:CLASS; repeat the flag or use commas for more sets",
    )
    grid.add_argument(
        "--expansion-file",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="play your own puzzle file instead of a shipped (provisional) expansion set",
    )
    grid.add_argument(
        "--variant",
        metavar="NAME[,NAME...]",
        help="standard (default, 2-4 players), solo (1 player), line_clear (5-6 players), or "
        "your own variant class: FILE.py:CLASS or MODULE:CLASS",
    )
    grid.add_argument(
        "--difficulty", metavar="LEVEL[,LEVEL...]", help="solo: normal (default), hard, unbeatable"
    )
    game_options(
        grid,
        catalogue="play on this catalogue file (default: the base game's)",
        tiles="finesse: deal from this Finesse tiles file",
    )
    grid.add_argument(
        "--rule",
        action="append",
        metavar="KEY=V[,V...]",
        help=f"a rules switch or parameter and the values to try ({', '.join(run_switches())}, "
        "points.ID, reward.ID); starting_supply as piece ids joined by +",
    )
    grid.add_argument(
        "--games",
        type=int,
        metavar="N",
        help="games per configuration (with --until-precision: its first batch, default 100)",
    )
    grid.add_argument(
        "--seed", type=int, metavar="S", help="root seed (chosen and printed if absent)"
    )
    grid.add_argument(
        "--tiers",
        metavar="BOTS",
        help="skill tiers: play the whole study once per tier (comma separated bot specs, e.g. "
        "greedy,value,mcts:leaf=value), the seats the line-ups name 'tier' (every seat, without "
        "--bots) taken by the tier's bot, on the same deals; a column 'tier', and summary "
        "reports each answer per tier and flags those that change with skill",
    )
    grid.add_argument(
        "--deal-replicates",
        type=int,
        metavar="K",
        help="play each deal K times under each seating with the bots' seeds varied (default "
        "1): how much the deal decides, `projectl-sim deals RUN`",
    )
    grid.add_argument("--config", metavar="FILE", help="read these settings from TOML or YAML")
    grid.add_argument("--preset", metavar="NAME", help=f"a ready-made study ({', '.join(PRESETS)})")
    precise = run.add_argument_group("precision on demand")
    precise.add_argument(
        "--until-precision",
        type=float,
        metavar="W",
        help="add games in batches (growing the run, same seeds) until every requested 95%% "
        "interval is at most W wide (0.06: +-3 points), anytime-valid so the stop keeps them "
        "valid; or until --max-games",
    )
    precise.add_argument(
        "--precision-of",
        metavar="Q[=W],...",
        help="what --until-precision makes precise: first_player (the first player's win rate "
        "per configuration), win_rate (each bot's), effects (the first player's rate, each "
        "expansion set or switch against its base), margin=W and rounds=W (means, with a width "
        "in their units); default first_player,win_rate",
    )
    precise.add_argument(
        "--max-games",
        type=int,
        metavar="N",
        help="with --until-precision: stop at N games per configuration whatever the widths "
        "(default: twice the deals the intervals are tuned for, printed at the start)",
    )
    outputs = run.add_argument_group("where results go")
    outputs.add_argument("--out", metavar="DIR", help="run folder (default: results/NAME-TIME)")
    outputs.add_argument(
        "--records", metavar="WHICH", help=f"also write game records: {RECORDS_HELP}"
    )
    outputs.add_argument("--format", metavar="FMT", help="table format: parquet (default) or csv")
    outputs.add_argument(
        "--tables",
        metavar="WHICH",
        help="all (default: seats, games and the flow's events and rounds) or core (seats and "
        "games only: a little faster)",
    )
    outputs.add_argument("--resume", action="store_true", help="finish the missing games of OUT")
    how = run.add_argument_group("how to run (results do not depend on these)")
    how.add_argument("--jobs", type=int, metavar="J", help="worker processes (default: all cores)")
    how.add_argument(
        "--backend",
        default="local",
        metavar="NAME",
        help="local worker processes (default; loky is an old name for it) or dask",
    )
    how.add_argument("--scheduler", metavar="ADDR", help="dask scheduler, e.g. tcp://HOST:8786")
    how.add_argument(
        "--chunk", type=int, metavar="N", help=f"games per part file (default {PART_GAMES})"
    )
    how.add_argument(
        "--decision-timeout",
        type=float,
        default=DECISION_TIMEOUT,
        metavar="S",
        help=f"a decision taking longer stops its game (an error row; default {DECISION_TIMEOUT:g}"
        " s)",
    )
    how.add_argument(
        "--game-timeout",
        type=float,
        default=GAME_TIMEOUT,
        metavar="S",
        help=f"a game taking longer is stopped (an error row; default {GAME_TIMEOUT:g} s)",
    )
    how.add_argument(
        "--check-invariants",
        action="store_true",
        help="check the game's invariants (pieces, cards and scores conserved) after every "
        "action: slower; a game that breaks one is an error row (naming your own expansion or "
        "variant in play)",
    )
    how.add_argument(
        "--quiet",
        action="store_true",
        help="no progress or info lines, and of the answers only the verdicts (the rest: summary)",
    )
    run.set_defaults(func=cmd_run)

    summ = subparsers.add_parser("summary", help="print a run's answers with 95%% intervals")
    summ.add_argument("run", metavar="RUN", help="run folder (results/NAME)")
    summ.set_defaults(func=cmd_summary)

    comp = subparsers.add_parser(
        "compare",
        help="compare two runs: B - A per matched configuration and metric, paired on shared deals",
        description="Set run B against run A: configurations are matched by their settings "
        "(players, variant, line-up, expansions, switches; a setting that is one value in all of "
        "A and another in all of B is the change measured), and those without a partner are "
        "listed, not compared. Per matched pair and metric: B - A with a 95% interval, paired "
        "game by game where the runs share deals (the same root seed: same seed, same bots in "
        "the same seats), unpaired otherwise.",
    )
    comp.add_argument("run_a", metavar="RUN_A", help="the run compared against (results/A)")
    comp.add_argument("run_b", metavar="RUN_B", help="the run set against it (results/B)")
    comp.set_defaults(func=cmd_compare)

    report = subparsers.add_parser(
        "report", help="write one self-contained HTML page of a run's tables and charts"
    )
    report.add_argument("run", metavar="RUN", help="run folder (results/NAME)")
    report.add_argument(
        "-o", "--out", metavar="FILE", help="where to write the page (default: RUN/report.html)"
    )
    report.set_defaults(func=cmd_report)
