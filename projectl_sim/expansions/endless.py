"""The Endless White Deck variant: completed white puzzles come back as a new white deck.

Rulings, Endless White Deck: when the white deck is empty, the completed white puzzles are noted
(their points kept) and shuffled into a new white deck. It is played by the rules switch
``endless_white_deck`` (not by a name in ``expansions``). This module holds the block
(``Endless``: the reshuffle seed and each player's noted cards), the shuffle and the hooks
(``EndlessWhiteDeck``): the reshuffle after each action, the noted cards counting as completed.

Interaction written here: Line Clear's four rows (the reshuffle fills the gaps of every white row
on the table, ``state.row_sets()``, the left one first, as dealt).

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
from typing import Any, ClassVar

import numpy as np

from projectl_sim.engine.actions import WHITE
from projectl_sim.engine.hooks import Expansion
from projectl_sim.engine.invariants import InvariantError
from projectl_sim.engine.state import HIDDEN, GameState
from projectl_sim.engine.state_data import put
from projectl_sim.errors import IllegalActionError, RecordError, RulesError
from projectl_sim.options import Column, Option
from projectl_sim.registry import register_expansion
from projectl_sim.rules import Rules

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


def endless(state: GameState) -> Endless | None:
    """Return a game's Endless White Deck block, or None when not played."""
    block: Endless | None = state.block(EndlessWhiteDeck.name)
    return block


class EndlessWhiteDeck(Expansion):
    """The Endless White Deck's rules (rulings, Endless White Deck; readings above)."""

    __slots__ = ()  # no instance dictionary (``Expansion``)

    name: ClassVar[str] = "endless"
    order: ClassVar[int] = 50
    named: ClassVar[bool] = False  # played by the switch endless_white_deck
    result_keys: ClassVar[tuple[str, ...]] = ("reshuffles",)
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "endless_white_deck",
            False,
            "the Endless White Deck variant: the white deck is rebuilt when it runs out (2-6 "
            "players; not solo)",
        ),
    )
    columns: ClassVar[tuple[Column, ...]] = (
        Column("reshuffles", "int", "how often the white deck was rebuilt", table="games"),
    )

    @classmethod
    def check_rules(cls, rules: Rules) -> None:
        if rules.endless_white_deck and rules.variant == "solo":
            # a decision (see the module): the solo deck is one deck, whites on top of blacks,
            # whose running out ends the game; refilling its white part would keep the blacks
            # from coming up
            raise RulesError("endless_white_deck does not apply to the solo variant (one deck)")

    @classmethod
    def played(cls, rules: Rules) -> bool:
        return rules.endless_white_deck

    def block_of(self, state: GameState) -> Endless:
        block: Endless = state.blocks[self.slot]
        return block

    def start(self, state: GameState, setup: dict[str, Any]) -> Any:
        return Endless.start(setup, state.n)

    def view_block(self, state: GameState, block: Any, player: int) -> Any:
        # the next white deck's order is unknown (no seed), and the noted cards of the others
        # are as hidden as their piles
        return hide(block, player, not self.rules.known_victory_points, HIDDEN)

    def redeal_block(self, state: GameState, block: Any, rng: random.Random) -> Any:
        return reseed(block, rng)  # future reshuffles re-dealt too

    def resample_hidden(self, state: GameState, rng: random.Random) -> tuple[int, ...]:
        """The other players' noted white puzzles (hidden like their piles; only their number
        is public) are guessed among all white puzzles, as any may have been noted."""
        block = self.block_of(state)
        hidden = [q for q in range(state.n) if HIDDEN in block.noted[q]]
        if not hidden:
            return ()
        white = state.catalogue.of_colour("white")
        noted = list(block.noted)
        for q in hidden:
            noted[q] = tuple(rng.choice(white) for _ in noted[q])
        replace_noted(state, tuple(noted))
        return tuple(hidden)

    def deal(self, rules: Rules, rng: random.Random, setup: dict[str, Any]) -> None:
        setup["reshuffle_seed"] = deal_seed(rng)  # drawn last: other setups are unchanged

    def setup_json(self, state: GameState, setup: dict[str, Any]) -> None:
        setup["reshuffle_seed"] = self.block_of(state).seed

    def after_action(self, state: GameState) -> None:
        """After an action that leaves the white deck empty: if a completed white puzzle lies in
        any victory pile, note every such puzzle (points and count kept), shuffle them into a new
        white deck from the recorded seed, and fill the white rows' gaps from it."""
        if state.decks[WHITE] or not state.in_turn():
            return  # rulings reading: no reshuffle during Finishing Touches
        is_black = state.tables.is_black
        if not has_white(state.piles, is_black):
            return  # nothing completed to shuffle: the deck stays empty for now
        block = self.block_of(state)
        if block.seed is None:
            raise IllegalActionError("this view hides the next white deck: redeal() it first")
        piles = list(state.piles)
        block, deck = reshuffle(block, piles, is_black)
        state.piles = tuple(piles)
        state.blocks[self.slot] = block
        state.known_bottom = put(state.known_bottom, WHITE, 0)
        state.last_progress_round = state.round
        size = state.row_size()
        for rows in state.row_sets():
            gap = size - len(rows[WHITE])
            rows[WHITE] += deck[:gap]
            deck = deck[gap:]
        state.decks = put(state.decks, WHITE, deck)

    def completed_elsewhere(self, state: GameState, player: int) -> tuple[int, ...]:
        return self.block_of(state).noted[player]

    def result_json(self, state: GameState, result: dict[str, Any]) -> None:
        result["reshuffles"] = self.block_of(state).reshuffles

    def summary_json(self, state: GameState, out: dict[str, Any]) -> None:
        cat = state.rules.catalogue
        noted = self.block_of(state).noted
        for p, row in enumerate(out["players"]):
            row["noted"] = [cat.puzzles[c].id for c in noted[p]]

    def game_columns(self, state: GameState) -> dict[str, Any]:
        return {"reshuffles": self.block_of(state).reshuffles}

    def player_text(self, state: GameState, player: int) -> str:
        cat = state.rules.catalogue
        noted = self.block_of(state).noted[player]
        return f", noted [{' '.join('?' if c < 0 else cat.puzzles[c].id for c in noted)}]"

    def check_invariants(self, state: GameState) -> None:
        """Noted cards are white; an empty white deck while a completed white puzzle lies in a
        pile means a missed reshuffle (in a turn); no row gap while the deck has cards."""
        block = self.block_of(state)
        t = state.tables
        if state.rules.solo:
            raise InvariantError("the Endless White Deck is not played in solo")
        if block.reshuffles < 0 or (not block.reshuffles and any(block.noted)):
            raise InvariantError("noted cards without a reshuffle")
        for p, noted in enumerate(block.noted):
            if any(c != HIDDEN and t.is_black[c] for c in noted):
                raise InvariantError(f"player {p} has a black puzzle noted")
        white_in_piles = any(
            c != HIDDEN and not t.is_black[c] for pile in state.piles for c in pile
        )
        if state.in_turn() and not state.decks[WHITE] and white_in_piles:
            raise InvariantError("the white deck is empty while completed white puzzles wait")
        size = state.row_size()
        if state.decks[WHITE] and any(len(rows[WHITE]) < size for rows in state.row_sets()):
            raise InvariantError("a gap in a white row while the white deck has cards")


register_expansion(EndlessWhiteDeck)


def replace_noted(state: GameState, noted: tuple[tuple[int, ...], ...]) -> None:
    """Set each player's noted cards of a state (a search bot's guess for a view's hidden ones)."""
    x = state.hooks.get(EndlessWhiteDeck.name)
    assert x is not None
    state.blocks[x.slot] = replace(state.blocks[x.slot], noted=noted)
