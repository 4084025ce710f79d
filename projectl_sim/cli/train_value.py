"""The ``train-value`` subcommand: self-play positions, a fitted value model, its accuracy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bots.params import Range
from projectl_sim.cli.numbers import Number, add_numbers, check_numbers
from projectl_sim.errors import UsageError

TRAIN_HELP = """\
Train the value bots' learned evaluation: play --games self-play games (greedy and its presets,
the four policies and MCTS, at 1-4 players and Line Clear's 5, with and without each expansion),
note every --every-th Play position (on average) from each seat's public view with the game's
final result (and MCTS's root value), fit a small neural network (scikit-learn, the `train`
extra) on the training games, and write OUT/model.json (play it: value:model=OUT/model.json),
OUT/positions.npz (reuse it with --positions), OUT/accuracy.csv (the model on the held-out
games, beside the old fitted evaluation) and, with --curve, OUT/learning_curve.csv. The same
--seed gives the same positions and model for any --jobs. Every output is written under a
temporary name and renamed into place at the end, under the folder's writer lock (as a run's):
a training that fails or is interrupted leaves OUT as it was (the positions it played kept in
OUT/positions.unused.npz), and a second training into OUT is refused while the first goes on.

With --generations G it is an expert iteration instead (projectl_sim.learn.expit): each
generation plays --selfplay-games games per player count and expansion set with the flat search
on the current model (mcts:leaf=value,tree=turn,width=0 at --iterations) through the runner
(--jobs, --backend), searches again one Play decision position in --every (mid-turn ones
included) to label it with the search's values, fits the next model on the last --window
generations' positions, and keeps it only if its search scores at least --gate-share against
the current one in --gate-games games on shared deals (each dealt twice, seats swapped), the
lower end of the score's 95% interval above 50%. Each
generation's runs, positions, model, accuracy and gate are in OUT/gen-NNN (generation.json sums
it up); the same command again goes on where a killed one stopped, and a larger --generations
grows it.

With --labels rollouts the generation's player is --player (default value) on the current model
instead: at one of its Play decisions in --every, every candidate of --scorer is played to the
end 2R times by greedy (--rollouts R; tools/value_oracle.py's rows), and the next model is fitted
afresh as the one-off training fits (--positions FILE's outcome rows, their held-out games by
--seed, plus the --extra-positions rows and the last --window generations' rollout rows, each
added row counted --extra-weight times); the gate is --player on each model."""


# The numeric flags, each with its range (projectl_sim.cli.numbers). The upper bounds keep a
# training within one machine and a model within what a bot can play: 50,000 games are some 3.5
# million positions at --every 4 (the shipped model's 800 games gave 55,083), 1.9 GB of features
# before the fit's copies; 4 hidden layers of 256 units cost the bots 0.2 million multiply-adds
# an evaluation (the shipped model's one layer of 32: 2,300); --every 100 notes about one
# position a game.
NUMBERS: tuple[Number, ...] = (
    Number("--games", int, 2000, Range(1, 50_000), "self-play games"),
    Number("--seed", int, 1, Range(0), "root seed", metavar="S"),
    Number("--every", int, 4, Range(1, 100), "note one Play position in K", metavar="K"),
    Number("--jobs", int, 1, Range(1, 256), "worker processes", metavar="J"),
    Number(
        "--mcts-share",
        float,
        0.04,
        Range(0.0, 1.0),
        "share of seats played by MCTS at 40 iterations",
        metavar="X",
    ),
    Number(
        "--hidden",
        int,
        (32,),
        Range(1, 256),
        "hidden layer sizes in units, e.g. 32 or 32,16",
        metavar="UNITS",
        items=4,
    ),
    Number(
        "--test-share",
        float,
        0.2,
        Range(0.0, 1.0, open_low=True, open_high=True),
        "share of the games held out to score the model",
        metavar="X",
    ),
    Number(
        "--extra-weight",
        int,
        1,
        Range(1, 100),
        "each --extra-positions row counts K times in the fit",
        metavar="K",
    ),
)


# expert iteration's numbers (--generations G > 0)
EXPIT_NUMBERS: tuple[Number, ...] = (
    Number("--generations", int, 0, Range(0, 1000), "expert iteration's generations (0: none)"),
    Number(
        "--selfplay-games",
        int,
        40,
        Range(1, 100_000),
        "self-play games per player count and expansion set",
    ),
    Number("--iterations", int, 32, Range(1, 10_000), "the search's iterations per decision"),
    Number(
        "--gate-games",
        int,
        40,
        Range(1, 100_000),
        "gate games (shared deals, each played both ways)",
    ),
    Number(
        "--gate-share",
        float,
        0.55,
        Range(0.0, 1.0),
        "score share a candidate needs to be kept",
        metavar="X",
    ),
    Number(
        "--mix",
        float,
        1.0,
        Range(0.0, 1.0),
        "a searched row's targets: X x the search's + (1 - X) x the final result",
        metavar="X",
    ),
    Number("--window", int, 3, Range(1, 100), "generations of positions each fit reads", "K"),
    Number("--players", int, (2, 3, 4), Range(2, 4), "standard player counts, e.g. 2,3,4", items=3),
    Number(
        "--rollouts",
        int,
        2,
        Range(1, 1000),
        "--labels rollouts: R, each candidate valued by 2R greedy rollouts",
        metavar="R",
    ),
)


def _expansion_sets(text: str) -> tuple[tuple[str, ...], ...]:
    from projectl_sim.rules import Rules

    sets = []
    for item in text.split(","):
        names = tuple(sorted(n for n in item.strip().split("+") if n and n != "none"))
        try:
            Rules(players=2, expansions=set(names))
        except Exception as exc:  # the rules' own one-line reason
            raise UsageError(f"--expansions {text!r}: {item.strip()!r}: {exc}") from None
        sets.append(names)
    return tuple(dict.fromkeys(sets))


def cmd_expit(args: argparse.Namespace) -> int:
    """Run (or go on with) an expert iteration."""
    from projectl_sim.learn.expit import Plan, iterate

    check_numbers(args, EXPIT_NUMBERS)
    rollouts = args.labels == "rollouts"
    if args.curve:
        raise UsageError("--curve is the one-off training's; --generations plays its own")
    if args.positions and not rollouts:
        raise UsageError("--positions is --labels rollouts' (the fit's outcome rows)")
    if rollouts and not args.positions:
        raise UsageError(
            "--labels rollouts needs --positions FILE: the outcome rows the fit holds games out "
            "of (a train-value run's positions.npz)"
        )
    if args.extra_weight != 1 and not rollouts:
        raise UsageError("--extra-weight is --labels rollouts' with --generations")
    if not rollouts:
        for flag in ("--player", "--scorer", "--rollouts"):
            dest = flag.lstrip("-")
            if getattr(args, dest) != dict((*EXPIT_FLAGS, ("--rollouts", 2)))[flag]:
                raise UsageError(f"{flag} is --labels rollouts'")
    for flag, path in [("--positions", args.positions)] + [
        ("--extra-positions", p) for p in args.extra_positions or ()
    ]:
        if path and not Path(path).is_file():
            raise UsageError(f"{flag} {path}: no such file")
    variants = tuple(dict.fromkeys(v.strip() for v in args.variants.split(",")))
    for v in variants:
        if v not in ("standard", "solo", "line_clear"):
            raise UsageError(f"--variants: {v!r} is none of standard, solo, line_clear")
    start = ""
    if args.start_model:
        from bots.value_model import model_name, model_path

        path = model_path(args.start_model)
        if not path.is_file():
            raise UsageError(f"--start-model {args.start_model}: no such file or shipped model")
        start = model_name(path)  # a shipped file by its bare name: the same plan anywhere
    plan = Plan(
        generations=args.generations,
        games=args.selfplay_games,
        iterations=args.iterations,
        every=args.every,
        players=tuple(args.players),
        variants=variants,
        expansions=_expansion_sets(args.expansions),
        hidden=tuple(args.hidden),
        mix=args.mix,
        window=args.window,
        gate_games=args.gate_games,
        gate_share=args.gate_share,
        seed=args.seed,
        start=start,
        test_share=args.test_share,
        fresh=args.fresh,
        anchor=args.anchor,
        labels=args.labels,
        player=args.player,
        scorer=args.scorer,
        rollouts=args.rollouts,
        extra_weight=args.extra_weight,
    )
    echo = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    gens = iterate(
        Path(args.out),
        plan,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        extra=[Path(name) for name in args.extra_positions or ()],
        base=Path(args.positions) if args.positions else None,
        quiet=args.quiet,
        echo=echo,
    )
    kept = [g for g in gens if g.kept]
    if kept:
        best = Path(args.out) / f"gen-{kept[-1].generation:03d}" / "model.json"
        print(f"model {best} (hash {kept[-1].candidate_hash}): play it as value:model={best}")
    else:
        print(f"no generation beat the start model ({len(gens)} played): see {args.out}")
    return 0


# expert iteration's other flags, with their defaults: the one-off training takes none of them
EXPIT_FLAGS: tuple[tuple[str, Any], ...] = (
    ("--variants", "standard"),
    ("--expansions", "none"),
    ("--start-model", None),
    ("--fresh", False),
    ("--anchor", False),
    ("--backend", "local"),
    ("--scheduler", None),
    ("--labels", "search"),
    ("--player", "value"),
    ("--scorer", "value:places=2,upgrades=0"),
)


def _refuse_expit_flags(args: argparse.Namespace) -> None:
    """Refuse, in one line, a flag of expert iteration given to the one-off training (which
    would ignore it): its value checked first, so a bad one is named as bad."""
    check_numbers(args, EXPIT_NUMBERS)
    given = [n.flag for n in EXPIT_NUMBERS if getattr(args, n.dest) != n.default]
    given += [
        flag
        for flag, default in EXPIT_FLAGS
        if getattr(args, flag.lstrip("-").replace("-", "_")) != default
    ]
    if given:
        raise UsageError(
            f"{given[0]} is expert iteration's: give --generations G (G > 0) to use it"
        )


def cmd_train_value(args: argparse.Namespace) -> int:
    """Train, export and score a value model."""
    from projectl_sim.learn.value import train

    check_numbers(args, NUMBERS)
    if args.generations:
        return cmd_expit(args)
    _refuse_expit_flags(args)
    positions = Path(args.positions) if args.positions else None
    extra = [Path(name) for name in args.extra_positions or ()]
    for flag, path in [("--positions", positions)] + [("--extra-positions", p) for p in extra]:
        if path is not None and not path.is_file():
            why = "a folder, not a positions file" if path.is_dir() else "no such file"
            raise UsageError(f"{flag} {path}: {why}")
    if args.extra_weight != 1 and not extra:
        raise UsageError(
            f"--extra-weight {args.extra_weight} weighs the --extra-positions rows: none given"
        )
    echo = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = train(
        Path(args.out),
        games=args.games,
        seed=args.seed,
        every=args.every,
        jobs=args.jobs,
        mcts_share=args.mcts_share,
        hidden=args.hidden,
        test_share=args.test_share,
        curve=args.curve,
        positions=positions,
        extra=extra,
        extra_weight=args.extra_weight,
        echo=echo,
    )
    print(
        f"model {result['model']} (hash {result['hash']}): play it as value:model={result['model']}"
    )
    return 0


def register(subparsers: Any) -> None:
    """Add ``train-value`` to the command line's subparsers."""
    tv = subparsers.add_parser(
        "train-value", help="train the value bots' evaluation on self-play", description=TRAIN_HELP
    )
    tv.add_argument("--out", required=True, metavar="DIR", help="folder for the model and tables")
    add_numbers(tv, NUMBERS)
    tv.add_argument(
        "--curve", action="store_true", help="also fit on growing shares (a learning curve)"
    )
    tv.add_argument("--positions", metavar="FILE", help="fit on the positions of an earlier run")
    tv.add_argument(
        "--extra-positions",
        metavar="FILE",
        action="append",
        help="more training rows (tools/value_oracle.py --out: rollout-labelled), never held "
        "out; give it again for more files, joined in the order given",
    )
    add_numbers(tv, EXPIT_NUMBERS)
    tv.add_argument(
        "--variants",
        default="standard",
        metavar="LIST",
        help="--generations: variants of the self-play, e.g. standard,solo,line_clear (solo at "
        "1 player, line_clear at 5)",
    )
    tv.add_argument(
        "--expansions",
        default="none",
        metavar="LIST",
        help="--generations: expansion sets of the self-play, e.g. none,finesse,finesse+phoenix",
    )
    tv.add_argument(
        "--start-model", metavar="FILE", help="--generations: the first incumbent (the shipped)"
    )
    tv.add_argument(
        "--fresh",
        action="store_true",
        help="--generations: fit each candidate afresh (--hidden), not from the current network",
    )
    tv.add_argument(
        "--anchor",
        action="store_true",
        help="--generations: rows no search labelled take the current model's values as "
        "targets (not the final result)",
    )
    tv.add_argument(
        "--labels",
        default="search",
        choices=("search", "rollouts"),
        help="--generations: what labels the rows: the search's values at its positions, or "
        "rollouts: every candidate of --scorer at --player's own decisions valued by greedy "
        "rollouts, fitted with --positions and --extra-positions as the one-off training fits",
    )
    tv.add_argument(
        "--player",
        default="value",
        metavar="SPEC",
        help="--labels rollouts: the player of the self-play and the gate (the model appended)",
    )
    tv.add_argument(
        "--scorer",
        default="value:places=2,upgrades=0",
        metavar="SPEC",
        help="--labels rollouts: the value bot whose candidates are scored",
    )
    tv.add_argument("--backend", default="local", help="--generations: the runner's backend")
    tv.add_argument("--scheduler", help="--generations: the Dask scheduler's address")
    tv.add_argument("--quiet", action="store_true", help="no progress lines")
    tv.set_defaults(func=cmd_train_value)
