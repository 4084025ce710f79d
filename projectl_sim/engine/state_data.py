"""The fields of a game's state, and the queries the engine's helper modules ask of it.

``StateData`` is ``GameState``'s base class: what a game holds (see ``GameState`` for each field)
and the few methods that ``checks``, ``moves`` and ``rewards`` call on the state, among them the
*variant* ones a variant overrides. Those modules work on a ``StateData``, so that ``state``,
which calls them, is the only module that names ``GameState`` and none of them imports it back.
A native class (mypyc), so that their functions read the fields as fast as the state's methods.
"""

from __future__ import annotations

from typing import Any, TypeVar

from mypy_extensions import mypyc_attr

from projectl_sim.catalogue import Mask25
from projectl_sim.engine.actions import BLACK, COLOURS, PUZZLE, WHITE, Action
from projectl_sim.engine.hooks import Hooks
from projectl_sim.engine.tables import Tables, shortage_options
from projectl_sim.errors import IllegalActionError
from projectl_sim.rules import Rules

# a player's unfinished puzzle: (card, filled mask, the (piece, mask) placed on it)
Slot = tuple[int, Mask25, tuple[tuple[int, Mask25], ...]]

T = TypeVar("T")


def put(items: tuple[T, ...], i: int, value: T) -> tuple[T, ...]:
    """Return ``items`` with item ``i`` replaced by ``value`` (a tuple field's update)."""
    if len(items) == 2:  # a pair (white and black, or two seats): one tuple made
        if i == 0:
            return (value, items[1])
        if i == 1:
            return (items[0], value)
    out = list(items)
    out[i] = value
    return tuple(out)


# open to subclasses: GameState and the variants, and a variant of a user's own (``registry``)
@mypyc_attr(allow_interpreted_subclasses=True)
class StateData:
    """A game's fields (set by ``GameState``) and the queries its helper modules make."""

    rules: Rules
    tables: Tables
    hooks: Hooks
    n: int
    # the rules' numbers the hot paths read, as native fields (rulings, Base game; each a
    # parameter of Rules): a module constant's speed, not a Python attribute's
    max_unfinished: int
    actions_per_turn: int
    # the fields that are tuples (piles, scores, ft_pieces, decks, known_bottom, finished) change
    # a few times a game, not at each step: a copy, and so a bot's view (one a decision), shares
    # them, and the engine replaces them (``put``); the lists are copied
    reserve: list[int]
    supply: list[list[int]]
    slots: list[list[Slot]]
    piles: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    ft_pieces: tuple[int, ...]
    rows: list[tuple[int, ...]]
    decks: tuple[tuple[int, ...], ...]
    first_player: int
    current: int
    cards_in_play: tuple[int, int]
    known_bottom: tuple[int, ...]
    actions_left: int
    master_used: bool
    round: int
    turn: int
    trigger_round: int
    black_taken: int
    phase: str
    pending: tuple[int, ...]
    reward_options: tuple[int, ...]
    finished: tuple[bool, ...]
    end_reason: str | None
    last_progress_round: int
    viewer: int | None
    blocks: list[Any]

    def copy(self) -> StateData:
        """Return an independent copy (``GameState.copy``)."""
        raise NotImplementedError

    def shown_cards(self) -> list[int]:
        """*Variant*: return the cards face up beyond the rows, slots, piles and decks."""
        return []

    def completed_elsewhere(self, player: int) -> tuple[int, ...]:
        """Return the cards ``player`` completed that left its pile (Endless: noted ones)."""
        out: tuple[int, ...] = ()
        for x in self.hooks.completed_elsewhere:
            out += x.completed_elsewhere(self, player)
        return out

    def can_take(self) -> bool:
        """Return whether the player to move may take another puzzle (``max_unfinished``: 4)."""
        return len(self.slots[self.current]) < self.max_unfinished

    def may_recycle(self) -> bool:
        """*Variant*: return whether the player to move may Recycle its rows at all."""
        return True

    def basic_piece(self) -> int | None:
        """Return the piece Upgrade A would take (a mono, or the shortage substitute)."""
        mono = self.tables.mono
        if self.reserve[mono]:
            return mono  # the usual case, without building the options
        options = shortage_options(self.reserve, mono, self.tables)
        return options[0] if options else None

    def placeable_supply(self, player: int) -> list[int]:
        """Return the pieces ``player`` may place: the supply itself (do not mutate it), or what
        an expansion's rules leave of it."""
        supply = self.supply[player]
        for x in self.hooks.placeable:
            supply = x.placeable(self, supply)
        return supply

    # -- checking (``checks``) -------------------------------------------------------------------
    def _check_variant(self, player: int, action: Action) -> None:
        """*Variant*: raise for a Play action the variant forbids (the base game: none)."""

    def _check_take(self, card: int) -> None:
        """*Variant*: raise unless ``card`` may be taken face up (the base game: from a row)."""
        t = self.tables
        colour = BLACK if t.is_black[card] else WHITE
        if card not in self.rows[colour]:
            raise IllegalActionError(f"{t.cat.puzzles[card].id} is not in a row")
        if colour == BLACK and self.trigger_round and self.black_taken >= 1:
            raise IllegalActionError("only one black puzzle per turn after the end trigger")

    def _check_take_deck(self, colour: int) -> None:
        """*Variant*: raise unless the top card of deck ``colour`` may be taken blind."""
        if colour == PUZZLE:
            raise IllegalActionError("the puzzle deck is the solo variant's")
        if not self.decks[colour]:
            raise IllegalActionError(f"the {COLOURS[colour]} deck is empty")
        if colour == BLACK and self.trigger_round and self.black_taken >= 1:
            raise IllegalActionError("only one black puzzle per turn after the end trigger")

    def _wait_message(self, player: int) -> str:
        """*Variant*: return why ``player`` may not act now."""
        return f"it is player {self.current}'s turn"
