"""The ``analyse`` and ``study`` subcommands: the analysis board (``projectl_sim.board``).

``analyse RECORD`` writes beside the record its win chances step by step (a table and a chart)
and its viewer page with the graph, and prints the turning points with the alternatives the
value search prefers; ``analyse --run RUN`` summarises a run's records (where games are decided,
each bot's mistakes per game); ``analyse --calibrate`` fits the evaluation's calibration.
``study POSITION`` plays each action of the seat to move out on shared deals and prints each
one's win rate with its interval.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bots.params import Range
from projectl_sim.cli.numbers import Number, add_numbers, check_numbers
from projectl_sim.cli.options import (
    PROG,
    catalogue_of,
    finesse_options,
    game_options,
    refuse_empty,
)
from projectl_sim.errors import UsageError

ANALYSE_NUMBERS = (
    Number("--top", int, 3, Range(0, 50), "turning points to judge and print"),
    Number("--rollouts", int, 0, Range(0, 10_000), "rollout games per chosen step (0: none)", "N"),
    Number("--every", int, 10, Range(1, 100_000), "with --rollouts: every K-th step", "K"),
    Number(
        "--threshold",
        float,
        0.05,
        Range(0.001, 1.0),
        "a mistake: a loss of win chance of at least this much",
        "P",
    ),
    Number(
        "--games",
        int,
        0,
        Range(0, 1_000_000),
        "--run: the first N records (0: all); --calibrate: self-play games (0: 600)",
    ),
    Number("--seed", int, 0, Range(0, 2**63 - 1), "seed of the rollouts and judgements", "S"),
)
STUDY_NUMBERS = (
    Number("--games", int, 100, Range(1, 1_000_000), "games per action"),
    Number("--seed", int, 0, Range(0, 2**63 - 1), "root seed (one child per game)", "S"),
)


def _say(text: str) -> None:
    print(f"{PROG}: {text}", file=sys.stderr)


def _write_table(rows: list[dict[str, Any]], path: Path) -> Path:
    import pandas as pd

    frame = pd.DataFrame(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def _calibration_path(args: argparse.Namespace) -> Path | None:
    return Path(args.calibration) if args.calibration else None


def _bot_specs(text: str) -> tuple[str, ...]:
    return tuple(b.strip() for b in text.split(";" if ";" in text else ","))


def _bots_of(text: str | None, seats: int, flag: str) -> tuple[str, ...]:
    if not text:
        return ("greedy",) * seats
    names = _bot_specs(text)
    if len(names) == 1:
        return names * seats
    if len(names) != seats:
        raise UsageError(
            f"{flag} names {len(names)} bots for a game of {seats} seats (one, or one per seat)"
        )
    return names


def _record_data(args: argparse.Namespace, record: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    played: Any = record.get("rules", {}).get("expansions")
    played = played if isinstance(played, list) else []
    cat = catalogue_of(args, [n for n in played if isinstance(n, str)])
    tiles = finesse_options(args, cat).get("finesse_tiles")
    return cat, ({"finesse_tiles": tiles} if tiles is not None else {})


def _check_inputs(args: argparse.Namespace) -> None:
    """Refuse a model, calibration, rollout bots or output folder before any work starts."""
    from bots import make_bot
    from bots.value_model import load_model
    from projectl_sim.board.winprob import read_calibration

    refuse_empty(args, "--rollout-bots", "--expansions")
    load_model(args.model or "")
    if args.calibration:
        read_calibration(Path(args.calibration))
    for spec in _bot_specs(args.rollout_bots or "greedy"):
        make_bot(spec)
    out = Path(args.output) if args.output else None
    if out is not None and not args.calibrate and out.exists() and not out.is_dir():
        raise UsageError(f"--output {out} is a file: give the folder to write the tables into")


def cmd_analyse(args: argparse.Namespace) -> int:
    check_numbers(args, ANALYSE_NUMBERS)
    modes = [args.record is not None, args.run is not None, args.calibrate]
    if sum(modes) != 1:
        raise UsageError("give one of: a record file, --run RUN, --calibrate")
    _check_inputs(args)
    if args.calibrate:
        return _calibrate(args)
    if args.run is not None:
        return _run(args)
    return _record(args)


def _calibrate(args: argparse.Namespace) -> int:
    from bots.value_model import load_model
    from projectl_sim.board.winprob import CALIBRATION, calibrate, write_calibration

    model = load_model(args.model or "")
    out = Path(args.output) if args.output else CALIBRATION
    cal = calibrate(model, games=args.games or 600, seed=args.seed or 54)
    write_calibration(cal, out)
    print(
        f"wrote {out}: model {cal.model_hash}, scales per point "
        + ", ".join(f"{k} {v:.4f}" for k, v in cal.scales.items())
        + f", from "
        f"{cal.positions} positions of {cal.games} games; log loss {cal.log_loss:.3f} "
        f"(even chances: {cal.uniform_log_loss:.3f})"
    )
    return 0


def _record(args: argparse.Namespace) -> int:
    import pandas as pd

    from bots.value_model import load_model
    from projectl_sim.analysis.fmt import pct
    from projectl_sim.analysis.plots import save
    from projectl_sim.board.charts import plot_win_chances
    from projectl_sim.board.turning import turning_points
    from projectl_sim.board.winprob import add_rollouts, evaluate_record, view_chances
    from projectl_sim.engine.record import read_record
    from projectl_sim.view import write_view

    path = Path(args.record)
    record = read_record(path)
    cat, data = _record_data(args, record)
    steps, rows, cal = evaluate_record(
        record,
        model=args.model or "",
        calibration=_calibration_path(args),
        catalogue=cat,
        note=_say,
        **data,
    )
    n = steps[0].state.n
    if args.rollouts:
        bots = _bots_of(args.rollout_bots, n, "--rollout-bots")
        add_rollouts(rows, steps, bots, args.rollouts, args.every, args.seed)
    model = load_model(args.model or "")
    turns = turning_points(steps, rows, model, cal, args.top, args.seed)
    folder = Path(args.output) if args.output else path.parent
    stem = path.stem
    table = _write_table(rows, folder / f"{stem}.chances.{args.format}")
    chart = save(
        plot_win_chances(pd.DataFrame(rows), turning=[t["step"] for t in turns]),
        folder / f"{stem}.chances.png",
    )
    page = folder / f"{stem}.board.html"
    chances = view_chances(rows, cal, [t["step"] for t in turns], record)
    write_view(record, page, cat, data.get("finesse_tiles"), chances=chances)
    final = [r for r in rows if r["step"] == len(steps) - 1]
    print(f"{len(steps) - 1} actions; win chances from the learned evaluation {cal.model_hash}")
    start = [r for r in rows if r["step"] == 0]
    for r0, r1 in zip(start, final, strict=True):
        print(
            f"  seat {r0['seat']} ({r0['bot']}): {pct(r0['win_chance'])} at the deal, "
            f"{pct(r1['win_chance'])} at the end"
        )
    if turns:
        print("turning points (the turns whose seat's win chance fell most):")
    for t in turns:
        print(
            f"  round {t['round']}, {t['turn_steps']}, seat {t['seat']} ({t['bot']}): "
            f"{pct(t['before'])} -> {pct(t['after'])}"
        )
        alts = ", ".join(f"{a} {pct(v)}" for a, v in t["alternatives"][:3])
        print(
            f"    step {t['step']}, {t['action']}: judged {pct(t['played_chance'])} "
            f"(loss {pct(t['loss'])}); the value search's best: {alts}"
        )
    print(f"wrote {table}, {chart} and {page} (open it in a browser)")
    return 0


def _run(args: argparse.Namespace) -> int:
    from projectl_sim.analysis.fmt import rate_interval
    from projectl_sim.board.turning import run_summary

    summary = run_summary(
        args.run,
        model=args.model or "",
        calibration=_calibration_path(args),
        threshold=args.threshold,
        note=_say,
        limit=args.games or None,
    )
    folder = Path(args.output) if args.output else Path(args.run) / "board"
    written = [
        _write_table(rows, folder / f"{name}.{args.format}")
        for name, rows in summary.items()
        if rows
    ]
    decided = summary["decided"]
    games = len({r["game"] for r in summary["mistakes"]})
    print(f"{games} games; {len(decided)} with a winner decided at one step")
    for key, title in (("round", "by round"), ("kind", "by the kind of action")):
        counts: dict[Any, int] = {}
        for r in decided:
            counts[r[key]] = counts.get(r[key], 0) + 1
        if counts:
            parts = ", ".join(
                f"{k} {rate_interval(*_share(c, len(decided)))}"
                for k, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            print(f"  decided {title}: {parts}")
    own = sum(r["by_winner"] for r in decided)
    if decided:
        print(f"  by the winner's own action: {rate_interval(*_share(own, len(decided)))}")
    print(f"mistakes per game (a loss of {args.threshold:.0%} win chance or more):")
    for b in summary["bots"]:
        low, high = b["low"], b["high"]
        interval = f" [{low:.2f}, {high:.2f}]" if low is not None else ""
        print(
            f"  {b['bot']}: {b['mistakes_per_game']:.2f}{interval} in "
            f"{b['decisions_per_game']:.0f} decisions ({b['games']} games)"
        )
    print("wrote " + ", ".join(str(p) for p in written))
    return 0


def _share(count: int, total: int) -> tuple[float, float, float]:
    from projectl_sim.analysis.stats.intervals import wilson

    low, high = wilson(count, total)
    return count / total, float(low), float(high)


def cmd_study(args: argparse.Namespace) -> int:
    from bots import make_bot
    from projectl_sim.analysis.fmt import diff_interval, rate_interval
    from projectl_sim.board.position import read_position
    from projectl_sim.board.study import study_config, study_rows, study_summary
    from projectl_sim.engine.record import read_record
    from projectl_sim.sim import runner, tables
    from projectl_sim.sim.position_study import action_label
    from projectl_sim.sim.spec import RunSpec, merge_sources
    from projectl_sim.sim.summary import read_run

    check_numbers(args, STUDY_NUMBERS)
    refuse_empty(args, "--bots", "--expansions", "--out", "--scheduler")
    if args.catalogue or args.expansions or args.tiles:
        raise UsageError(
            "a study plays the shipped catalogue and tiles (its games are a run's, which reads "
            "the position's record alone): leave out --catalogue, --expansions and --tiles"
        )
    for spec in _bot_specs(args.bots or "greedy"):
        make_bot(spec)
    raw = read_record(args.position)
    if raw.get("format") != "projectl-position/1" and args.step is None:
        raise UsageError(f"{args.position}: a game record: give --step K (the actions played)")
    inner = raw.get("record", raw) if isinstance(raw.get("record"), dict) else raw
    cat, data = _record_data(args, inner)
    position = read_position(args.position, args.step, catalogue=cat, **data)
    if position.over:
        raise UsageError(f"the game is over at step {position.step}: no decision to study")
    n = position.state.n
    bots = _bots_of(args.bots, n, "--bots")
    played = _played(raw, position, cat)
    config = study_config(
        Path(args.position),
        position,
        bots,
        args.games,
        args.seed,
        step=args.step,
        every=args.every_action,
        also=() if played is None else (played,),
    )
    step = None if raw.get("format") == "projectl-position/1" else position.step
    out = Path(args.out) if args.out else _study_folder(Path(args.position), step)
    again = (out / tables.MANIFEST).is_file()  # the same study asked again: finished or grown
    stored = tables.read_manifest(out)["config"] if again else None
    spec = RunSpec.from_mapping(merge_sources(stored, config))
    if stored is not None:
        before = RunSpec.from_mapping(stored).to_json() | {"games": None}
        if spec.to_json() | {"games": None} != before:
            raise UsageError(
                f"{out} holds a study of other settings (bots, actions, seed or position): "
                "give --out FOLDER for this one (only --games may grow a study)"
            )
    options = runner.RunOptions(
        jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, quiet=True
    )
    result = runner.run(spec, out, resume=again, options=options)
    seats, games_table = read_run(result.out)
    seat = position.to_move
    assert seat is not None
    summary = study_summary(study_rows(seats, seat, games_table))
    who = (position.record.get("seats") or [f"seat {seat}"] * n)[seat]
    games = f"{args.games} game{'s' if args.games != 1 else ''}"
    print(
        f"step {position.step}, round {position.state.round}: seat {seat} ({who}) to move; "
        f"{len(summary)} actions x {games}, bots {','.join(bots)}, seed {args.seed}"
    )
    played_text = None if played is None else action_label(played, position.state.rules.catalogue)
    width = max(len(r["action"]) for r in summary)
    for k, r in enumerate(summary):
        versus = (
            ""
            if k == 0
            else "  vs best " + diff_interval("rate", r["diff"], r["diff_low"], r["diff_high"])
        )
        print(
            f"  {r['action']:<{width}}  {rate_interval(r['win_rate'], r['low'], r['high'])}"
            f"  margin {r['margin']:+.1f}{versus}"
            + ("  (played)" if r["action"] == played_text else "")
        )
    print(f"the games' tables (an action column): {result.out}")
    return 0


def _study_folder(path: Path, step: int | None) -> Path:
    """Return the default run folder of a study: beside its file (a record's: named with the
    step, ``game7.step40.study``; a position file's: ``NAME.study``)."""
    return path.with_name(f"{path.stem}{'' if step is None else f'.step{step}'}.study")


def _played(raw: dict[str, Any], position: Any, cat: Any) -> Any:
    """Return the action a record played at the position's step, if legal there (None: a
    position file, or the record's end)."""
    from projectl_sim.engine.actions import from_json
    from projectl_sim.errors import IllegalActionError, RecordError

    actions = raw.get("actions") if raw.get("format") != "projectl-position/1" else None
    if not isinstance(actions, list) or position.step >= len(actions):
        return None
    try:
        _, action = from_json(actions[position.step], cat)
    except RecordError:
        return None  # the record goes wrong after the position: the study needs none of it
    try:
        position.state.copy().step(position.state.current, action)
    except IllegalActionError:
        return None
    return action


def register(sub: Any) -> None:
    """Add ``analyse`` and ``study`` to the command line's subparsers."""
    a = sub.add_parser(
        "analyse",
        help="a game's win chances step by step, its turning points and mistakes; a run's "
        "summary of where games are decided",
    )
    a.add_argument("record", nargs="?", help="record JSON file")
    a.add_argument("--run", metavar="RUN", help="a run folder written with --records")
    a.add_argument(
        "--calibrate",
        action="store_true",
        help="fit the evaluation's margin-to-chance scale on self-play games and write it",
    )
    a.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="folder of the files (default: the record's, RUN/board); --calibrate: the file",
    )
    a.add_argument("--format", choices=("csv", "parquet"), default="csv", help="tables' format")
    a.add_argument("--model", metavar="FILE", help="value model file (default: the shipped one)")
    a.add_argument(
        "--calibration", metavar="FILE", help="calibration file (default: the shipped model's)"
    )
    a.add_argument(
        "--rollout-bots",
        metavar="SPECS",
        help="bots of the rollouts: one for every seat, or one per seat (default: greedy)",
    )
    add_numbers(a, ANALYSE_NUMBERS)
    game_options(
        a,
        expansions="your own puzzle file for an expansion set the record plays",
        expansions_metavar="NAME=FILE",
    )
    a.set_defaults(func=cmd_analyse)

    s = sub.add_parser(
        "study",
        help="what should I do here: each action of a position played out on shared deals",
    )
    s.add_argument(
        "position", metavar="FILE", help="a position file (projectl-position/1) or a record"
    )
    s.add_argument(
        "--step", type=int, metavar="K", help="a record's position after K actions (-1: the last)"
    )
    s.add_argument(
        "--bots",
        metavar="SPECS",
        help="the seats' bots after the action: one for every seat, or one per seat in seat "
        "order, comma-separated (;-separated when a spec has commas); default greedy",
    )
    s.add_argument(
        "--every-action",
        action="store_true",
        help="every legal action (default: the value bot's candidates)",
    )
    s.add_argument(
        "--out",
        metavar="DIR",
        help="the study's run folder (default: beside the file, NAME.stepK.study for a record's "
        "step, NAME.study for a position file; an existing "
        "one is finished or grown, its settings unchanged)",
    )
    s.add_argument("--jobs", type=int, metavar="J", help="worker processes (default: all cores)")
    s.add_argument(
        "--backend", default="local", metavar="NAME", help="local worker processes or dask"
    )
    s.add_argument("--scheduler", metavar="ADDR", help="dask scheduler, e.g. tcp://HOST:8786")
    add_numbers(s, STUDY_NUMBERS)
    game_options(
        s,
        expansions="your own puzzle file for an expansion set the position plays",
        expansions_metavar="NAME=FILE",
    )
    s.set_defaults(func=cmd_study)
