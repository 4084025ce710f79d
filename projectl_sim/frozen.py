"""Read-only containers for the tables every game and every bot's view of it share.

A catalogue and its derived tables (``engine.tables.Tables``) are built once per process and
shared by every game, copy and view: a bot that wrote into one of their dictionaries would change
the rules of the game it plays, and of every game after it in that process. Their dictionaries
are ``ReadOnlyDict``: a ``dict`` (so it reads, and type-checks in the compiled build, as one) whose
every write raises ``TypeError``. The code that owns a table (its lazily filled caches) writes
through ``put`` and ``wipe``, which go around the guard.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ReadOnlyDict(dict[K, V]):
    """A ``dict`` that refuses every write (``put`` and ``wipe`` are its owner's way in)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(
            "this table is read-only: it is shared by every game and view of this catalogue "
            "(a bot must not change it; copy it to keep a changed one)"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # pickled and copied whole, never item by item
        return (type(self), (dict(self),))

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse


def put(table: dict[K, V], key: K, value: V) -> None:
    """Store ``value`` under ``key`` in a table its owner fills (a cache)."""
    dict.__setitem__(table, key, value)


def wipe(table: dict[K, V]) -> None:
    """Empty a table its owner fills (a cache at its cap)."""
    dict.clear(table)


__all__ = ["ReadOnlyDict", "put", "wipe"]
