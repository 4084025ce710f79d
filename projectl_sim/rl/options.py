"""The rules options the learning environments take: every one ``Rules`` accepts, in one place.

``rule_options()`` is the one function that says which keyword arguments the PettingZoo
environment, the Gymnasium wrapper and the OpenSpiel game take besides ``players``,
``variant`` and ``expansions``, with each one's default and type: the environments build
their ``Rules`` through ``make_rules`` and OpenSpiel its parameter list from it. It reads the
options the base game, the variants and the expansions declare (``projectl_sim.rules.
every_option``, a user's expansion's too), then the grid keys that are not declared options
(``starting_supply``, ``added_puzzles``).

A bad argument of an environment is an ``EnvValueError`` or ``EnvTypeError`` (the libraries'
convention: a ``ValueError`` / ``TypeError`` whose message names the parameter), both
``UsageError`` too, so the command line (a ``--bots rl:`` seat) prints them as one line.
"""

from __future__ import annotations

import math
import operator
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


class EnvValueError(UsageError, ValueError):
    """A learning environment's argument of the right type but a wrong value."""


class EnvTypeError(UsageError, TypeError):
    """A learning environment's argument of the wrong type."""


class EnvOrderError(UsageError, RuntimeError):
    """A learning environment's method called out of order (``step`` before ``reset``)."""


def whole_number(name: str, value: Any, minimum: int, *, optional: bool = False) -> int | None:
    """Return ``value`` as an int of at least ``minimum`` (None too when ``optional``);
    anything else is an error naming ``name``."""
    if value is None and optional:
        return None
    wanted = f"a whole number >= {minimum}" + (" or None" if optional else "")
    if isinstance(value, bool):
        raise EnvTypeError(f"{name} must be {wanted}, got {value!r}")
    try:
        number = operator.index(value)  # int and numpy's integers; never 1.5 or "3"
    except TypeError:
        raise EnvTypeError(f"{name} must be {wanted}, got {value!r}") from None
    if number < minimum:
        raise EnvValueError(f"{name} must be {wanted}, got {number}")
    return number


def real_number(name: str, value: Any) -> float:
    """Return ``value`` as a finite float; anything else is an error naming ``name``."""
    if isinstance(value, (bool, str, bytes)):
        raise EnvTypeError(f"{name} must be a finite number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise EnvTypeError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(number):
        raise EnvValueError(f"{name} must be a finite number, got {value!r}")
    return number


def seed_of(seed: Any) -> int | None:
    """Return a ``reset`` seed: None or a whole number >= 0 (numpy's ``SeedSequence`` range)."""
    return whole_number("seed", seed, 0, optional=True)


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
    try:
        return _make_rules(players, variant, expansions, options)
    except (EnvValueError, EnvTypeError):
        raise
    except UsageError as exc:  # the rules' own one line, as the libraries' ValueError
        raise EnvValueError(str(exc)) from None


def _make_rules(players: Any, variant: Any, expansions: Any, options: dict[str, Any]) -> Rules:
    known = rule_options()
    whole_number("players", players, 1)
    if not isinstance(variant, str):
        raise EnvTypeError(f"variant must be a name (str), got {variant!r}")
    if variant not in VARIANTS:
        raise UsageError(unknown_name("variant", variant, VARIANTS))
    if isinstance(expansions, str):
        names, _files = parse_expansions(expansions, option="expansions")
    else:
        try:
            items = list(expansions or ())
        except TypeError:
            raise EnvTypeError(
                f"expansions must be a list of names or a text such as 'ghost+finesse', "
                f"got {expansions!r}"
            ) from None
        stray = [item for item in items if not isinstance(item, str)]
        if stray:
            raise EnvTypeError(f"expansions must hold names (str), got {stray[0]!r}")
        names, _files = parse_expansions(",".join(items), option="expansions")
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
