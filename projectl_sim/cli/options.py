"""Options several commands share, and turning them into catalogues, tiles and rules switches.

``game_options`` adds what a game is played on (``--catalogue``, ``--expansions``, ``--tiles``)
to a parser or group, with each command's own help text; ``catalogue_of``, ``finesse_options``
and ``parse_switches`` read them back; ``refuse_empty`` refuses a flag given an empty value.
Every mistake is a ``UsageError`` (one line, exit 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from projectl_sim.catalogue import EXPANSIONS as CATALOGUE_SETS
from projectl_sim.catalogue import Catalogue
from projectl_sim.errors import UsageError, unknown_name
from projectl_sim.expansions.finesse import load_tiles
from projectl_sim.loading import base_catalogue, load_catalogue
from projectl_sim.registry import (
    is_class_spec,
    kind_of,
    load_class,
    load_expansion,
    load_variant,
)
from projectl_sim.rules import (
    is_run_switch,
    parse_expansions,
    rules_keywords,
    run_switches,
    switch_value,
)

PROG = "projectl-sim"


def game_options(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    *,
    catalogue: str = "use this catalogue file",
    expansions: str | None = None,
    tiles: str | None = "finesse: use this Finesse tiles file",
    expansions_metavar: str = "LIST",
) -> None:
    """Add ``--catalogue``, ``--expansions`` (when ``expansions`` has a help text) and
    ``--tiles`` (when ``tiles`` has one) to ``parser``."""
    parser.add_argument("--catalogue", metavar="FILE", help=catalogue)
    if expansions is not None:
        parser.add_argument("--expansions", metavar=expansions_metavar, help=expansions)
    if tiles is not None:
        parser.add_argument("--tiles", metavar="FILE", help=tiles)


def catalogue_of(args: argparse.Namespace, played: Sequence[str] = ()) -> Catalogue:
    """Return the catalogue of ``--catalogue`` with the puzzle sets of the expansions played.

    ``--expansions NAME=FILE`` replaces a set's shipped (provisional) data with the user's file.
    """
    _names, files = parse_expansions(getattr(args, "expansions", None))
    sets = [n for n in played if n in CATALOGUE_SETS]
    stray = sorted(set(files) - set(sets))
    if stray:
        raise UsageError(f"--expansions: {stray[0]}=FILE replaces a set this game does not play")
    path = getattr(args, "catalogue", None)
    if not path and not sets:
        return base_catalogue()
    return load_catalogue(path, expansions=sets, overrides=files)


def drawn_puzzles(args: argparse.Namespace) -> tuple[Catalogue, list[Any]]:
    """Return the catalogue of ``--catalogue`` / ``--expansions`` and the puzzles drawn in
    ``args.file`` (``puzzle check``, ``puzzle try``)."""
    from projectl_sim.puzzles.drawings import read_puzzles

    names, _ = parse_expansions(getattr(args, "expansions", None))
    cat = catalogue_of(args, names)
    return cat, read_puzzles(args.file, cat.piece_ids)


def finesse_options(args: argparse.Namespace, cat: Catalogue) -> dict[str, Any]:
    """Return the Rules keywords of ``--expansions``, ``--ambassador`` and ``--tiles``."""
    names, _files = parse_expansions(getattr(args, "expansions", None))
    out: dict[str, Any] = {"expansions": frozenset(names)} if names else {}
    if getattr(args, "ambassador", False):
        out["finesse_ambassador"] = True
    if getattr(args, "tiles", None):
        out["finesse_tiles"] = load_tiles(args.tiles, cat.piece_ids)
    return out


def refuse_empty(args: argparse.Namespace, *flags: str) -> None:
    """Refuse a flag given an empty value: it would silently mean "not given"."""
    for flag in flags:
        value = getattr(args, flag.lstrip("-").replace("-", "_"), None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and not item.strip():
                raise UsageError(f"{flag} {item!r} names nothing: give a value, or leave it out")


def one_expansion_set(text: str | None, command: str = "play") -> None:
    """Refuse a comma list of expansion sets where one game is played: in ``run`` a comma
    separates the sets of its grid (``none,ghost``: two configurations), and ``+`` joins the
    expansions of one set (``ghost+finesse``), so a single game takes ``+`` alone."""
    if text is not None and not text.strip():  # as run refuses it (sim/spec.py)
        raise UsageError(
            f"expansions: {text!r} names no expansion set: give none for the base game, or "
            "names such as ghost+finesse"
        )
    items = [i.strip() for i in (text or "").split(",") if i.strip()]
    if len(items) > 1:
        joined = "+".join(i for i in items if i != "none") or "none"
        raise UsageError(
            f"--expansions {text!r}: {command} plays one game, on one expansion set; join its "
            f"expansions with + ({joined}), as in run, where a comma separates the sets of a grid"
        )


def load_user_classes(*values: Any) -> None:
    """Load the users' classes named in ``--expansions`` / ``--variant`` values (``FILE.py:CLASS``,
    ``MODULE:CLASS``; a string, or a list of them, of names joined with ``,`` or ``+``), so that
    their options are known before ``--rule`` is read."""
    for value in values:
        for text in [value] if isinstance(value, str) else list(value or ()):
            for item in str(text).replace("+", ",").split(","):
                if is_class_spec(item.strip()):
                    target = item.strip()
                    cls = load_class(target)
                    if kind_of(cls) == "variant":  # by the class it extends (else: refused)
                        load_variant(target)
                    else:
                        load_expansion(target)


def rule_grid(items: Sequence[str] | None) -> dict[str, str] | None:
    """Return the grid of ``--rule KEY=VALUE[,VALUE...]`` items, values unparsed (a run sweeps
    them), or None without any; an unknown key is one line naming the closest valid one."""
    if not items:
        return None
    out = {}
    for item in items:
        key, raw = _rule_item(item, "KEY=VALUE[,VALUE...]")
        out[key] = raw
    return out


def _rule_item(item: str, form: str) -> tuple[str, str]:
    """Return a ``--rule`` item's key and its unparsed value; a misspelt or malformed item is
    one line (``form``: how the item is written)."""
    key, eq, raw = item.partition("=")
    if eq and not is_run_switch(key) and "." not in key:  # a misspelt switch
        known = unknown_name("rules switch", key, run_switches(), more=("points.ID", "reward.ID"))
        raise UsageError(f"--rule {item!r}: {known}")
    if not eq or not is_run_switch(key):
        valid = ", ".join([*run_switches(), "points.ID", "reward.ID"])
        raise UsageError(f"--rule {item!r}: use {form} with KEY one of {valid}")
    return key, raw


def parse_switches(items: Sequence[str]) -> dict[str, Any]:
    """Return the ``Rules`` keywords of ``--rule KEY=VALUE`` items (one value each).

    Keys are the switches, the rulebook's numbers (``row_size=3``) and a puzzle's ``points.ID``
    or ``reward.ID``.
    """
    pairs: list[tuple[str, Any]] = []
    for item in items:
        key, raw = _rule_item(item, "KEY=VALUE")
        try:
            pairs.append((key, switch_value(key, raw)))
        except UsageError as exc:
            raise UsageError(f"--{exc}") from None
    return rules_keywords(pairs)
