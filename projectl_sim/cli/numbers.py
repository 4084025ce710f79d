"""A command's numeric flags, each declared once with its range, and checked in one place.

A command lists its numeric flags as ``Number`` declarations (flag, type, default, range, help),
as the rules declare their options (``projectl_sim.options.Option``) and the bots their
parameters (``bots.params``, whose ``Range`` is the range here: a float must also be finite, so
``nan`` and ``inf`` are never accepted). ``add_numbers`` puts them on the parser with the range
in the help, so ``--help`` and the generated reference say what is accepted; ``check_numbers``
refuses a value outside it with one line naming the flag (``UsageError``: exit 2) before any
work starts. A ``Number`` with ``items`` takes a comma-separated list of up to that many values
(``--hidden 32,16``), each in the range.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from bots.params import Range
from projectl_sim.errors import UsageError


@dataclass(frozen=True)
class Number:
    """One numeric flag: its name, type (``int`` or ``float``), default, range and help.

    ``items`` > 0: a comma-separated list of 1 to ``items`` values (a tuple once checked).
    """

    flag: str
    kind: type
    default: Any
    range: Range
    help: str
    metavar: str = "N"
    items: int = 0

    @property
    def dest(self) -> str:
        """Return the attribute argparse stores the flag in."""
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def values(self) -> str:
        """Return the values the flag takes, in words (for the help and the errors)."""
        kind = "a whole number" if self.kind is int else "a number"
        r = self.range
        if r.low is not None and r.high is not None:
            if r.open_low and r.open_high:
                span = f"{kind} strictly between {_text(r.low)} and {_text(r.high)}"
            else:
                low = _text(r.low) + (" (excluded)" if r.open_low else "")
                high = _text(r.high) + (" (excluded)" if r.open_high else "")
                span = f"{kind} from {low} to {high}"
        elif r.low is not None:
            span = (
                f"{kind} above {_text(r.low)}" if r.open_low else f"{kind}, {_text(r.low)} or more"
            )
        else:
            span = f"{kind} {r}"
        return f"1 to {self.items} values separated by commas, each {span}" if self.items else span

    def parse(self, raw: Any) -> Any:
        """Return the flag's value checked against the range (a tuple for a list, from its
        text or its values); a bad one is a ``UsageError`` naming the flag."""
        if not self.items:
            return self._one(raw, raw)
        if isinstance(raw, (tuple, list)):
            values = list(raw)
        else:
            parts = [p.strip() for p in str(raw).split(",")]
            values = [self._read(p, raw) for p in parts] if all(parts) else []
        if not 1 <= len(values) <= self.items:
            raise UsageError(f"{self.flag} {raw!r}: expected {self.values}")
        return tuple(self._one(v, raw) for v in values)

    def _read(self, text: str, raw: Any) -> Any:
        try:
            return self.kind(text)
        except ValueError:
            raise UsageError(f"{self.flag} {raw!r}: expected {self.values}") from None

    def _one(self, value: Any, raw: Any) -> Any:
        number = isinstance(value, int) or (self.kind is float and isinstance(value, float))
        if number and not isinstance(value, bool) and self.range.accepts(value):
            return value
        raise UsageError(f"{self.flag} {raw}: out of range (valid: {self.values})")


def _text(bound: float) -> str:
    """Return a bound as the help writes it: 100,000 rather than 1e+05."""
    if float(bound).is_integer():
        return f"{int(bound):,}"
    return f"{bound:g}"


def add_numbers(parser: argparse.ArgumentParser, numbers: tuple[Number, ...]) -> None:
    """Add each declared number to ``parser``, its range and default in the help."""
    for n in numbers:
        shown = ",".join(map(str, n.default)) if isinstance(n.default, tuple) else n.default
        parser.add_argument(
            n.flag,
            type=str if n.items else n.kind,
            default=shown if n.items else n.default,
            metavar=n.metavar,
            help=f"{n.help} ({n.values}; default {shown})",
        )


def check_numbers(args: argparse.Namespace, numbers: tuple[Number, ...]) -> None:
    """Check every declared number of ``args`` against its range, in declaration order; a list
    flag's text is replaced by its tuple of values."""
    for n in numbers:
        setattr(args, n.dest, n.parse(getattr(args, n.dest)))


__all__ = ["Number", "add_numbers", "check_numbers"]
