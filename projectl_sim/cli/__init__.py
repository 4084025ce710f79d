"""The ``projectl-sim`` command line: one parser, one entry point.

Each command group is a module that adds its subcommands to the one parser (``register``):
``game`` (play, replay, bots), ``run`` (run, summary, report), ``puzzles`` (fill, puzzles),
``view`` (a record as an HTML page), ``notebook`` (execute an analysis notebook on a run),
``puzzle`` (check, try), ``deals`` (how much the deal decides), ``tune``, ``train_value`` (the
value bots' model) and ``ladder``.
Options several commands share (the catalogue, expansions, Finesse tiles, rules switches) are
built by ``options``. ``main`` is what the ``projectl-sim`` script, ``python -m projectl_sim``
and the tests call; a user mistake prints one line ``projectl-sim: error: ...`` and exits 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from projectl_sim.cli import (
    deals,
    game,
    ladder,
    notebook,
    puzzle,
    puzzles,
    run,
    train_value,
    tune,
    view,
)
from projectl_sim.cli.options import PROG
from projectl_sim.errors import ProjectLError, unknown_name


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog=PROG, description="Project L simulation toolkit")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in (game, run, deals, puzzles, view, notebook, puzzle, tune, train_value, ladder):
        group.register(sub)
    return parser


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    """Return the subcommands' names, in the order ``--help`` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; user mistakes print one line and exit non-zero."""
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    commands = _commands(parser)
    if given and not given[0].startswith("-") and given[0] not in commands:
        # argparse would print its usage and the choices; one line, with the closest, instead
        print(f"{PROG}: error: {unknown_name('command', given[0], commands)}", file=sys.stderr)
        return 2
    args = parser.parse_args(given)
    try:
        return int(args.func(args) or 0)
    except ProjectLError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:  # a run's says what it saved and how to go on
        print(f"{PROG}: {str(exc) or 'interrupted'}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a file or folder the user named (missing, read-only, a folder...)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{PROG}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


__all__ = ["PROG", "build_parser", "main"]
