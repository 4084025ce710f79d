"""MkDocs hook: write the command-line reference from the parser itself at build time.

A page holding the marker ``<!-- cli-reference -->`` gets, in its place, one section per
subcommand of ``projectl_sim.cli.build_parser()``: its help line, description, usage and a table
per argument group (option, help with defaults expanded). Nothing is written by hand, so the page
cannot drift from the parser; ``tests/docs/test_docs.py`` checks every subcommand and option is
there.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

MARKER = "<!-- cli-reference -->"
WIDTH = "88"  # usage lines wrap at this many columns, whatever the terminal building the site


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Return (name, help, parser) of every subcommand, in the parser's order."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                out.append((name, helps.get(name, ""), sub))
    return out


def _option_cell(action: argparse.Action) -> str:
    """Return the option strings with their metavar, as code: ``--games N`` or ``FILE``."""
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    if action.nargs == 0:
        return ", ".join(f"`{s}`" for s in action.option_strings)
    metavar = action.metavar or action.dest.upper()
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    return ", ".join(f"`{s} {metavar}`" for s in action.option_strings)


def _cell(text: str) -> str:
    """Return text fit for one table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _section(name: str, help_line: str, sub: argparse.ArgumentParser) -> list[str]:
    formatter = sub._get_formatter()
    # a subcommand's help line is %-formatted by argparse (``95%%`` prints ``95%``): likewise
    help_line = help_line % {"prog": sub.prog}
    lines = [f"## `projectl-sim {name}`", "", _cell(help_line).capitalize() + ".", ""]
    lines += ["```text", sub.format_usage().strip(), "```", ""]
    if sub.description:
        lines += [" ".join(sub.description.split()), ""]
    for group in sub._action_groups:
        actions = [a for a in group._group_actions if a.help is not argparse.SUPPRESS]
        actions = [a for a in actions if not isinstance(a, argparse._HelpAction)]
        if not actions:
            continue
        lines += [f"**{group.title}**", "", "| option | what it does |", "|---|---|"]
        for action in actions:
            help_text = formatter._expand_help(action) if action.help else ""
            lines.append(f"| {_option_cell(action)} | {_cell(help_text)} |")
        lines.append("")
    return lines


def cli_reference_markdown() -> str:
    """Return the Markdown of every subcommand's reference, read from the parser."""
    from projectl_sim.cli import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = build_parser()
        lines = ["```text", parser.format_usage().strip(), "```", ""]
        for name, help_line, sub in _subcommands(parser):
            lines += _section(name, help_line, sub)
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Put the generated reference where a page asks for it."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_reference_markdown())
