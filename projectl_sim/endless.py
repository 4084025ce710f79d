"""The Endless White Deck variant: completed white puzzles come back as a new white deck.

Rulings, Endless White Deck: when the white deck is empty, the completed white puzzles are noted
(their points kept) and shuffled into a new white deck. The engine keeps a block ``endless``
(None when the switch is off) and reshuffles from one named hook, ``_endless_reshuffle``; this
module holds the block and the shuffle.

Readings of the rulings (decisions, each written here and in the engine's hook):

- When: at the end of any action after which the white deck is empty and at
  least one completed white puzzle lies in a victory pile. So the deck is reshuffled in the
  action that empties it; if no white puzzle is completed yet, it stays empty (and the row
  shrinks as in the base game) until the first white puzzle is completed, and is reshuffled at
  the end of that action. No reshuffle during Finishing Touches (no puzzle is drawn any more).
- What: every white puzzle of every victory pile (all players), each noted on its owner's note
  (its points stay in the score, and it still counts as completed for the tie-break); the black
  puzzles stay in the piles. Unused Ambassadors are kept (they are not cards).
- The white row: its gaps (left by takes while the deck was empty) are filled from the new deck at
  once, at the row's end (the row's order means nothing to the rules).
- The order: the noted cards in catalogue order, shuffled by a ``random.Random`` seeded from the
  setup's ``reshuffle_seed`` and the reshuffle's number (0, 1, ...). The seed is dealt with the
  setup from the game's seed, so a record replays every reshuffle. A view hides the seed (a player
  cannot know a future deck order) and ``redeal`` draws a fresh one.
- A completed puzzle may be completed again after it comes back: its points count again, and its
  reward is given again.
- Solo: not played (a ``Rules`` error). The solo deck is one deck, whites on top of blacks, whose
  running out ends the game: a refilled white part would keep the blacks from ever coming up.
- Views: another player's noted cards are hidden like their victory pile (unless victory points
  are known); the number of noted cards is public, like the size of a pile.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from projectl_sim.errors import RecordError

SEED_BITS = 53  # a whole number that every JSON reader keeps exact


@dataclass(frozen=True, slots=True)
class Endless:
    """The reshuffle seed, how many reshuffles happened, and each player's noted white cards.

    Immutable, so a state's copies share it (it changes only when the deck is reshuffled).
    ``seed`` is None in a view: the next deck order is unknown until ``redeal``.
    """

    seed: int | None
    noted: tuple[tuple[int, ...], ...]
    reshuffles: int = 0

    @classmethod
    def start(cls, setup: dict[str, Any], players: int) -> Endless:
        """Return the block of a new game from the setup's ``reshuffle_seed``."""
        seed = setup.get("reshuffle_seed")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise RecordError(
                "setup.reshuffle_seed must be a whole number >= 0 (endless_white_deck), "
                f"got {seed!r}"
            )
        return cls(seed, ((),) * players)

    def noted_count(self, player: int) -> int:
        """Return how many white puzzles ``player`` completed that were shuffled back."""
        return len(self.noted[player])


def deal_seed(rng: random.Random) -> int:
    """Return a reshuffle seed for a new setup."""
    return rng.getrandbits(SEED_BITS)


def new_deck_order(cards: Sequence[int], seed: int, number: int) -> tuple[int, ...]:
    """Return the order (top first) of reshuffle ``number`` of ``cards`` from ``seed``."""
    state = np.random.SeedSequence((seed, number)).generate_state(2, dtype=np.uint64)
    order = sorted(cards)
    random.Random(int(state[0])).shuffle(order)
    return tuple(order)


def has_white(piles: Sequence[tuple[int, ...]], is_black: Sequence[bool]) -> bool:
    """Return whether a victory pile holds a completed white puzzle (hidden cards don't count)."""
    return any(c >= 0 and not is_black[c] for pile in piles for c in pile)


def reshuffle(
    endless: Endless, piles: list[tuple[int, ...]], is_black: Sequence[bool]
) -> tuple[Endless, tuple[int, ...]]:
    """Note the white cards of every pile (removing them from ``piles``) and return the block
    and the new white deck. The caller checks ``has_white`` first.

    A view whose piles are hidden (its determinization left them so) reshuffles only the white
    cards it can see; ``bots.mcts`` fills hidden piles before it simulates."""
    if endless.seed is None:
        raise ValueError("a view does not know the next white deck: redeal() it first")
    noted = list(endless.noted)
    cards: list[int] = []
    for p, pile in enumerate(piles):
        # a view's hidden pile cards (negative) are unknown: they stay where they are
        whites = tuple(c for c in pile if c >= 0 and not is_black[c])
        if whites:
            noted[p] += whites
            piles[p] = tuple(c for c in pile if c < 0 or is_black[c])
            cards.extend(whites)
    deck = new_deck_order(cards, endless.seed, endless.reshuffles)
    return Endless(endless.seed, tuple(noted), endless.reshuffles + 1), deck


def hide(endless: Endless, viewer: int, piles_hidden: bool, hidden: int) -> Endless:
    """Return the block a player sees: no seed, others' noted cards hidden with their piles."""
    noted = endless.noted
    if piles_hidden:
        noted = tuple(
            cards if q == viewer else (hidden,) * len(cards) for q, cards in enumerate(noted)
        )
    return replace(endless, seed=None, noted=noted)


def reseed(endless: Endless, rng: random.Random) -> Endless:
    """Return the block with a fresh seed (``redeal``: future reshuffles are unknown)."""
    return replace(endless, seed=deal_seed(rng))
