"""What an expansion, a variant or the base game declares about itself: options and table columns.

OpenSpiel's game parameters are the model: each rules option is an ``Option`` (name, default,
range or choices, help) declared by the class that owns it (``Expansion.options``, a variant state
class's ``options``, the base game's ``rules.BASE_OPTIONS``), and each outcome-table column an
expansion or variant fills is a ``Column`` (name, type, table, help) declared beside the hook that
fills it. Nothing lists them by name elsewhere: ``Rules`` validates its options against the
declarations of what it plays (``projectl_sim.registry``), and the command line, run grids
(``--rule``), records, the run tables' schemas, the summary's labels and the docs' switch table
are generated from them, so a user's expansion or variant is as complete as a shipped one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from projectl_sim.errors import RulesError, UsageError, unknown_name

# how a text value (a flag, a grid cell) reads as true or false
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")
# a column's type, as the tables store it (pyarrow types by these names in projectl_sim.sim.tables)
COLUMN_TYPES = ("int", "float", "bool", "string")
TABLES = ("seats", "games", "rounds")


@dataclass(frozen=True)
class Option:
    """One rules option: its name (as records, ``--rule`` and ``Rules`` spell it) and its values.

    The type is the default's: ``bool``, ``int`` (``low``-``high``, both inclusive) or ``str``
    (one of ``choices``). ``recorded``: ``"always"`` writes it in every record of a game it
    applies to (a judgement-call switch), ``"changed"`` only when it differs from its default
    (a rulebook number: the records of the rulebook's game stay as they were).
    """

    name: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    recorded: str = "always"

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise RulesError(f"an option needs a name that is an identifier, got {self.name!r}")
        kind = type(self.default)
        if kind not in (bool, int, str):
            raise RulesError(f"option {self.name}: the default must be a bool, int or str")
        if kind is str and self.default not in self.choices:
            raise RulesError(f"option {self.name}: its default is not one of its choices")
        if kind is int and (self.low is None or self.high is None):
            raise RulesError(f"option {self.name}: a whole-number option needs low and high")
        if kind is int and not self.low <= self.default <= self.high:  # type: ignore[operator]
            raise RulesError(f"option {self.name}: its default is outside {self.low}-{self.high}")
        if self.recorded not in ("always", "changed"):
            raise RulesError(f"option {self.name}: recorded is 'always' or 'changed'")

    @property
    def kind(self) -> type:
        """Return the option's type: bool, int or str."""
        return type(self.default)

    @property
    def values(self) -> str:
        """Return the values it takes, as the command line and the docs show them."""
        if self.kind is bool:
            return "true, false"
        if self.kind is int:
            return f"{self.low}-{self.high}"
        return ", ".join(self.choices)

    def error(self, value: Any) -> str:
        """Return the one line saying what is wrong with ``value`` ("" when it is valid)."""
        if self.kind is bool:
            return (
                ""
                if isinstance(value, bool)
                else f"{self.name} must be true or false, got {value!r}"
            )
        if self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            if ok and self.low <= value <= self.high:  # type: ignore[operator]
                return ""
            return f"{self.name} must be a whole number {self.low}-{self.high}, got {value!r}"
        return "" if value in self.choices else unknown_name(self.name, value, self.choices)

    def check(self, value: Any) -> Any:
        """Return ``value`` when it is valid, else raise ``RulesError`` naming the option."""
        problem = self.error(value)
        if problem:
            raise RulesError(problem)
        return value

    def parse(self, raw: Any) -> Any:
        """Return a flag's or grid cell's text (or a config file's value) in the option's type;
        a bad one is a ``UsageError`` naming the option."""
        if self.kind is bool:
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            raise UsageError(f"rule {self.name}: expected true or false, got {raw!r}")
        if self.kind is int:
            if isinstance(raw, bool):
                raise UsageError(f"rule {self.name}: expected a whole number, got {raw!r}")
            try:
                value = raw if isinstance(raw, int) else int(str(raw).strip())
            except ValueError:
                raise UsageError(
                    f"rule {self.name}: expected a whole number, got {raw!r}"
                ) from None
            if not self.low <= value <= self.high:  # type: ignore[operator]
                raise UsageError(
                    f"rule {self.name}: expected a whole number {self.low}-{self.high}, got {value}"
                )
            return value
        value = str(raw).strip()
        if value not in self.choices:
            raise UsageError(f"rule {self.name}: {unknown_name('value', value, self.choices)}")
        return value


@dataclass(frozen=True)
class Column:
    """One outcome-table column an expansion or variant fills: its name, type and table.

    ``type`` is ``int``, ``float``, ``bool`` or ``string``; ``table`` is ``seats`` (one row per
    game and seat: the ``seat_columns`` hook), ``games`` (``game_columns``) or ``rounds`` (one
    row per seat at each round's end: ``round_columns``). Games that do not
    play the declaring class leave it null.
    """

    name: str
    type: str
    help: str
    table: str = "seats"

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise RulesError(f"a column needs a name that is an identifier, got {self.name!r}")
        if self.type not in COLUMN_TYPES:
            raise RulesError(f"column {self.name}: {unknown_name('type', self.type, COLUMN_TYPES)}")
        if self.table not in TABLES:
            raise RulesError(f"column {self.name}: {unknown_name('table', self.table, TABLES)}")


def check_declarations(owner: str, options: Iterable[Any], columns: Iterable[Any]) -> None:
    """Refuse declarations that are not ``Option`` / ``Column`` values, or repeat a name."""
    seen: set[str] = set()
    for option in options:
        if not isinstance(option, Option):
            raise RulesError(f"{owner}: options must be Option values, got {option!r}")
        if option.name in seen:
            raise RulesError(f"{owner}: two options are called {option.name!r}")
        seen.add(option.name)
    names: set[tuple[str, str]] = set()
    for column in columns:
        if not isinstance(column, Column):
            raise RulesError(f"{owner}: columns must be Column values, got {column!r}")
        if (column.table, column.name) in names:
            raise RulesError(f"{owner}: two {column.table} columns are called {column.name!r}")
        names.add((column.table, column.name))
