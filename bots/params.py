"""What a bot parameter may be: the valid range each bot declares beside its default.

A bot's ``params`` maps a name to ``(default, help)`` or ``(default, help, check)``; ``check`` is
one of the values below (anything with ``accepts(value) -> bool`` and a ``str`` that names the
valid values does). ``make_bot`` parses a spec's values by the default's type and refuses a value
its check does not accept, in one line naming the bot, the parameter, the value and the range::

    params = {
        "iterations": (50, "iterations per decision", Range(1)),
        "time": (0.0, "seconds of CPU per decision; 0 = use iterations", Range(0.0)),
        "anchor": ("root", "where the horizon counts from", OneOf("root", "leaf")),
    }

A float parameter must be finite whatever its check (``nan`` and ``inf`` are never accepted).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from projectl_sim.errors import closest

# A ``params`` entry: ``(default, help)`` or ``(default, help, check)``.
Param = tuple[Any, ...]


@dataclass(frozen=True)
class Range:
    """Numbers from ``low`` to ``high`` (``None``: unbounded); ``open_low``/``open_high`` leave
    the bound itself out (``Range(0.0, open_low=True)`` is "> 0")."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False

    def accepts(self, value: Any) -> bool:
        """Return whether ``value`` is a finite number inside the range."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.open_low else value < self.low):
            return False
        return self.high is None or (value < self.high if self.open_high else value <= self.high)

    def __str__(self) -> str:
        low = None if self.low is None else f"{'>' if self.open_low else '>='} {self.low:g}"
        high = None if self.high is None else f"{'<' if self.open_high else '<='} {self.high:g}"
        return " and ".join(b for b in (low, high) if b) or "any finite number"


@dataclass(frozen=True)
class OneOf:
    """One of a few named values."""

    values: tuple[Any, ...]

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", values)

    def accepts(self, value: Any) -> bool:
        """Return whether ``value`` is one of the named values."""
        return value in self.values

    def __str__(self) -> str:
        return "one of " + ", ".join(str(v) for v in self.values)


@dataclass(frozen=True)
class Matches:
    """Text that matches a regular expression (the whole of it), described for the reader."""

    pattern: str
    description: str

    def accepts(self, value: Any) -> bool:
        """Return whether ``value`` is text matching the pattern."""
        return isinstance(value, str) and re.fullmatch(self.pattern, value) is not None

    def __str__(self) -> str:
        return self.description


def check_value(bot: str, key: str, value: Any, entry: tuple[Any, ...]) -> str | None:
    """Return why ``value`` is not valid for parameter ``key`` (its ``params`` entry), or None."""
    default, check = entry[0], (entry[2] if len(entry) > 2 else None)
    finite = not isinstance(value, float) or math.isfinite(value)
    if finite and (check is None or check.accepts(value)):
        return None
    if isinstance(check, Range) or check is None:
        kind = "a whole number" if isinstance(default, int) else "a finite number"
        valid = kind if check is None else f"{kind} {check}"
    else:
        valid = str(check)
    guess = None
    if isinstance(check, OneOf) and isinstance(value, str):
        guess = closest(value, [str(v) for v in check.values])
    hint = f"did you mean {guess!r}? " if guess else ""
    return f"bot {bot}: {key}={value} is out of range ({hint}valid: {valid})"


__all__ = ["Matches", "OneOf", "Param", "Range", "check_value"]
