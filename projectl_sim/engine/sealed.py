"""Objects built once and then shared by every game, copy and view of them.

A catalogue's tables (``Tables``, Ghost Piece's ``GhostTables``) and the hook lists of the
expansions a rules object plays (``Hooks``) are built once per process and reached from every
game and every bot's view: a bot that rebound one of their attributes would change the rules of
the game it plays, and of every game after it in that process. Such a class extends ``Sealed``
and calls ``seal`` when it is built; from then on every attribute assignment and deletion raises
``AttributeError`` naming it. Their dictionaries are ``frozen.ReadOnlyDict``. (The expansions
themselves guard their attributes otherwise: ``engine.hooks.Expansion``.)
"""

from __future__ import annotations


class Sealed:
    """An object whose attributes are fixed once ``seal`` has been called."""

    _sealed: bool = False

    def seal(self) -> None:
        """Refuse every attribute assignment and deletion from now on."""
        object.__setattr__(self, "_sealed", True)

    def __setattr__(self, name: str, value: object) -> None:
        if self._sealed:
            raise AttributeError(
                f"{type(self).__name__}.{name} is read-only: it is shared by every game and view "
                "that uses it (a bot must not change it)"
            )
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self._sealed:
            raise AttributeError(f"{type(self).__name__}.{name} is read-only: it cannot be deleted")
        object.__delattr__(self, name)


__all__ = ["Sealed"]
