"""Phoenix: 7 black puzzles worth 6 points each, and no new rule.

Rulings, Phoenix: its puzzles' shapes are not public, so the project ships a provisional set
(``data/phoenix.json``, the catalogue's ``phoenix`` set: 17-18 cells each, larger than every
5-point puzzle, rewarding a mono or a domino, each fillable with level 1-4 pieces). ``Rules``
adds them to the catalogue; the base game plays them as they are, so the hook class overrides
nothing. 6 players need its (or Ghost Piece's) black puzzles.
"""

from __future__ import annotations

from typing import ClassVar

from projectl_sim.engine.hooks import Expansion
from projectl_sim.registry import register_expansion


class Phoenix(Expansion):
    """Phoenix's rules: none beyond the base game's (its puzzles are data)."""

    __slots__ = ()  # no instance dictionary (``Expansion``)

    name: ClassVar[str] = "phoenix"
    abbreviation: ClassVar[str] = "Ph"
    order: ClassVar[int] = 40


register_expansion(Phoenix)
