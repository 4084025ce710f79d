"""The ``projectl-sim`` command line: one parser, one entry point.

Each command group is a module that adds its subcommands to the one parser (``register``):
``game`` (play, replay, bots), ``run`` (run, summary, report), ``cards`` (card and piece
strength), ``puzzles`` (fill, puzzles),
``view`` (a record as an HTML page), ``notebook`` (execute an analysis notebook on a run),
``puzzle`` (check, try), ``deals`` (how much the deal decides), ``tune``, ``train_value`` (the
value bots' model), ``ladder`` and ``board`` (analyse, study: the analysis board).
Options several commands share (the catalogue, expansions, Finesse tiles, rules switches) are
built by ``options``. ``main`` is what the ``projectl-sim`` script, ``python -m projectl_sim``
and the tests call; a user mistake prints one line ``projectl-sim: error: ...`` and exits 2,
a mistyped flag too (``--seeds``: the closest flag of that command is named, not argparse's usage).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from projectl_sim.cli import (
    board,
    cards,
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
from projectl_sim.errors import ProjectLError, closest, unknown_name
from projectl_sim.registry import PluginError

TRACEBACK = "--traceback"  # print the user's traceback of an error in their own code


class FlagError(Exception):
    """A command line argparse refuses; ``prog`` is the (sub)command whose flags it broke."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class Parser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one line (``main`` prints it), not the usage."""

    def error(self, message: str) -> NoReturn:  # argparse prints the usage here, then exits
        raise FlagError(self.prog, message)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of every subcommand."""
    parser = Parser(prog=PROG, description="Project L simulation toolkit")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="when your own expansion, variant or bot raises, print its traceback after the "
        "error's line (anywhere on the command line)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    commands = (game, run, cards, deals, puzzles, view, notebook, puzzle, tune, train_value)
    for group in (*commands, ladder, board):
        group.register(sub)
    return parser


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    """Return the subcommands' names, in the order ``--help`` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _innermost(parser: argparse.ArgumentParser, given: Sequence[str]) -> argparse.ArgumentParser:
    """Return the (sub)command parser that ``given`` reaches (``puzzle check`` nests)."""
    for word in given:
        if word.startswith("-"):
            continue
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or word not in subs[0].choices:
            break
        parser = subs[0].choices[word]
    return parser


def _stray_line(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """Return the one line for arguments no flag takes: the first flag, its closest spelling."""
    flags = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    for word in extras:
        if word.startswith("-") and len(word) > 1:
            flag = word.partition("=")[0]
            guess = closest(flag, flags)
            hint = f"did you mean {guess}? " if guess else ""
            return (
                f"{parser.prog}: error: unknown flag {flag} ({hint}{parser.prog} --help lists them)"
            )
    return f"{parser.prog}: error: unexpected argument {extras[0]!r} ({parser.prog} --help)"


# the values that name a file or folder: an empty one would silently mean "not given" (or the
# current folder), so it is refused (a positional without a metavar goes by its name: replay's
# FILE, view's RECORD)
_PATH_METAVARS = frozenset({"FILE", "DIR", "RUN", "RUN_A", "RUN_B", "PATH", "RECORD"})


def _empty_path_line(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """Return the one line for a file or folder value given as an empty string, if any."""
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        label = action.metavar or ("" if action.option_strings else action.dest.upper())
        if label in _PATH_METAVARS and isinstance(value, str) and not value.strip():
            name = action.option_strings[-1] if action.option_strings else label
            kind = "file" if label in ("FILE", "PATH", "RECORD") else "folder"
            return f"{parser.prog}: error: {name} {value!r} names no {kind}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; user mistakes print one line and exit non-zero."""
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    # --traceback is taken anywhere on the line (it is most often added at its end)
    show_traceback = TRACEBACK in given
    given = [word for word in given if word != TRACEBACK]
    commands = _commands(parser)
    if given and not given[0].startswith("-") and given[0] not in commands:
        # argparse would print its usage and the choices; one line, with the closest, instead
        print(f"{PROG}: error: {unknown_name('command', given[0], commands)}", file=sys.stderr)
        return 2
    try:
        args, extras = parser.parse_known_args(given)
    except FlagError as exc:  # a missing value, an ambiguous flag, a value of the wrong type
        print(f"{exc.prog}: error: {exc} ({exc.prog} --help)", file=sys.stderr)
        return 2
    if extras:
        print(_stray_line(_innermost(parser, given), extras), file=sys.stderr)
        return 2
    empty = _empty_path_line(_innermost(parser, given), args)
    if empty is not None:
        print(empty, file=sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except ProjectLError as exc:
        detail = str(getattr(exc, "detail", "") or "")
        hint = f" ({TRACEBACK} shows where)" if isinstance(exc, PluginError) and detail else ""
        print(f"{PROG}: error: {exc}{'' if show_traceback else hint}", file=sys.stderr)
        if show_traceback and detail:
            print(detail, file=sys.stderr)
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


__all__ = ["PROG", "FlagError", "Parser", "build_parser", "main"]
