"""The rules options the learning environments take: every one ``Rules`` accepts, in one place.

``rule_options()`` is the one function that says which keyword arguments the PettingZoo
environment, the Gymnasium wrapper and the OpenSpiel game take besides ``players``,
``variant`` and ``expansions``, with each one's default and type: the environments build
their ``Rules`` through ``make_rules`` and OpenSpiel its parameter list from it. It reads the
options the base game, the variants and the expansions declare (``projectl_sim.rules.
every_option``, a user's expansion's too), then the grid keys that are not declared options
(``starting_supply``, ``added_puzzles``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from projectl_sim.errors import RulesError, UsageError, unknown_name
from projectl_sim.rules import (
    RUN_SWITCHES,
    VARIANTS,
    Rules,
    every_option,
    parse_expansions,
    rules_keywords,
    switch_value,
)


@dataclass(frozen=True)
class RuleOption:
    """One option: its name, default, and type (``bool``, ``int``, ``str``) or its values."""

    name: str
    default: Any
    kind: type
    choices: tuple[Any, ...] = ()


def rule_options() -> dict[str, RuleOption]:
    """Return every rules option an environment takes (name -> option), in a stable order."""
    out: dict[str, RuleOption] = {}
    for name, option in every_option().items():
        out[name] = RuleOption(name, option.default, type(option.default), tuple(option.choices))
    for name, (default, allowed) in RUN_SWITCHES.items():
        if name not in out:
            choices = allowed if isinstance(allowed, tuple) else ()
            out[name] = RuleOption(name, default, type(default), choices)
    return out


def make_rules(
    players: int = 2,
    variant: str = "standard",
    expansions: Any = (),
    **options: Any,
) -> Rules:
    """Return the ``Rules`` of an environment's arguments; a bad one is a one-line ``UsageError``.

    ``expansions`` is a list of names or the command line's text (``"ghost+finesse"``,
    ``"all"``); ``options`` are ``rule_options()`` names with values in their rules form or as
    text (``"true"``, ``"12"``, ``"mono+domino"``).
    """
    known = rule_options()
    if variant not in VARIANTS:
        raise UsageError(unknown_name("variant", variant, VARIANTS))
    if isinstance(expansions, str):
        names, _files = parse_expansions(expansions, option="expansions")
    else:
        names, _files = parse_expansions(",".join(expansions), option="expansions")
    switches = []
    for key, raw in options.items():
        if key not in known:
            raise UsageError(unknown_name("rules option", key, list(known)))
        if key == "difficulty":
            switches.append((key, raw))
            continue
        value = switch_value(key, raw)
        if key in ("starting_supply", "added_puzzles"):
            value = () if value == "none" else tuple(value.split("+"))
        switches.append((key, value))
    try:
        return Rules(
            players=players,
            variant=variant,
            expansions=frozenset(names),
            **rules_keywords(switches),
        )
    except RulesError as exc:
        raise UsageError(str(exc)) from None
