"""The Ambassador Pack: each player's Ambassadors, kept face up until used.

Rulings, Ambassador Pack: completing one of its puzzles gives the player an Ambassador, a
one-time Ambassador action. The engine keeps the counts in a block ``ambassadors`` (None when the
expansion is not played) and plays the rest from a few named hooks (``_gain_ambassador``,
``_use_ambassador`` and the Ambassador case of ``check``); this module holds the block.

Readings of the rulings (each a decision, the rulings say only "like Master, but usable once per
such puzzle, not limited to once per turn"):

- Using one is an action like Master: one of the player's 3 actions (Master is one of them), up
  to one piece from the supply into each own unfinished puzzle, all pieces taken from the supply
  as it was when the action began (a puzzle completed by it returns its pieces only afterwards).
- Any number per turn, before or after the turn's Master, which it neither uses nor needs.
- Not during Finishing Touches (no action is, only the placements of the Finish), and a puzzle
  completed in Finishing Touches gives no reward, so no Ambassador either.
- The counts are public (face up). Unused Ambassadors score nothing.
- Solo: the mastermind taking an Ambassador puzzle gets nothing (it takes puzzles straight to its
  pile, with no reward of any kind).
- Finesse: the "Using Master" tile (trigger ``master``) reads "Master or Ambassador" and counts
  the pieces an Ambassador places; an Insert may carry an Ambassador action.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class Ambassadors:
    """Per player, the Ambassadors held and used: immutable, so a state's copies share it."""

    held: tuple[int, ...]
    used: tuple[int, ...]

    @classmethod
    def start(cls, players: int) -> Ambassadors:
        """Return the block of a new game: nobody holds an Ambassador."""
        return cls((0,) * players, (0,) * players)

    def gain(self, player: int) -> Ambassadors:
        """Return the block after ``player`` completed an Ambassador puzzle."""
        held = list(self.held)
        held[player] += 1
        return replace(self, held=tuple(held))

    def use(self, player: int) -> Ambassadors:
        """Return the block after ``player`` used one Ambassador."""
        held, used = list(self.held), list(self.used)
        held[player] -= 1
        used[player] += 1
        return Ambassadors(tuple(held), tuple(used))
