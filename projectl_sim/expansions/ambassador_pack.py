"""The Ambassador Pack: each player's Ambassadors, kept face up until used.

Rulings, Ambassador Pack: completing one of its puzzles gives the player an Ambassador, a
one-time Ambassador action. This module holds the block (``Ambassadors``: each player's counts),
the action (``Ambassador``) and the hooks (``AmbassadorPack``: the reward, listing, checking and
applying the action, results). Its three puzzles (provisional) are the catalogue's
``ambassador_pack`` set, added by ``Rules``.

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

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from projectl_sim.catalogue import AMBASSADOR, SPECIAL_REWARD_CODES
from projectl_sim.engine.actions import (
    Action,
    Placement,
    field_of,
    placement_json,
    placements_of,
    placements_text,
    register_action,
)
from projectl_sim.engine.hooks import Expansion
from projectl_sim.engine.invariants import InvariantError
from projectl_sim.engine.state import HIDDEN, PLAY, GameState
from projectl_sim.errors import IllegalActionError
from projectl_sim.options import Column
from projectl_sim.registry import register_expansion

REWARD_AMBASSADOR = SPECIAL_REWARD_CODES[AMBASSADOR]


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


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Ambassador(Action):
    """Use one Ambassador (placements as a Master; any number per turn)."""

    placements: tuple[Placement, ...]


Ambassador.kind = "ambassador"  # after the body: a class attribute, not a field


register_action(
    "ambassador",
    (Ambassador,),
    lambda d, cat, player: Ambassador(placements_of(cat, field_of(d, "placements"))),
    lambda a, cat: {
        "type": "ambassador",
        "placements": [placement_json(cat, p) for p in a.placements],
    },
    lambda a, cat: f"ambassador ({placements_text(cat, a.placements)})",
    play=True,
)


def ambassadors(state: GameState) -> Ambassadors | None:
    """Return a game's Ambassadors block (held and used per player), or None without it."""
    block: Ambassadors | None = state.block(AmbassadorPack.name)
    return block


def _holds(state: GameState) -> bool:
    amb = ambassadors(state)
    return amb is not None and amb.held[state.current] > 0 and state.phase == PLAY


def ambassador_actions(state: GameState) -> Iterator[Ambassador]:
    """Yield every Ambassador action (placed as a Master) when the player to move holds one."""
    if not _holds(state):
        return
    for chosen in state.placement_sets(state.placeable_supply(state.current)):
        yield Ambassador(chosen)


def sample_ambassador(
    state: GameState, rng: random.Random, p_each: float = 0.75
) -> Ambassador | None:
    """Return a random legal Ambassador action, drawn as ``sample_master`` draws a Master."""
    if not _holds(state) or not state.slots[state.current]:
        return None
    chosen = state.sample_placements(rng, p_each)
    return Ambassador(chosen) if chosen else None


class AmbassadorPack(Expansion):
    """The Ambassador Pack's rules (rulings, Ambassador Pack; readings above)."""

    __slots__ = ()  # no instance dictionary (``Expansion``)

    name: ClassVar[str] = "ambassador_pack"
    abbreviation: ClassVar[str] = "AP"
    order: ClassVar[int] = 20
    action_kinds: ClassVar[tuple[str, ...]] = ("ambassador",)
    rewards: ClassVar[tuple[str, ...]] = (AMBASSADOR,)
    result_keys: ClassVar[tuple[str, ...]] = ("ambassadors",)
    columns: ClassVar[tuple[Column, ...]] = (
        Column("ambassadors_unused", "int", "Ambassadors left unused at the end"),
    )

    def block_of(self, state: GameState) -> Ambassadors:
        block: Ambassadors = state.blocks[self.slot]
        return block

    def start(self, state: GameState, setup: dict[str, Any]) -> Any:
        return Ambassadors.start(state.n)

    def add_actions(self, state: GameState, acts: list[Action], master: str) -> None:
        if master == "all" and state.slots[state.current]:
            acts.extend(ambassador_actions(state))

    def check_action(self, state: GameState, player: int, action: Action) -> None:
        """Like Master, any number per turn, one per Ambassador."""
        assert isinstance(action, Ambassador)
        if not self.block_of(state).held[player]:
            raise IllegalActionError("has no Ambassador to use")
        if not action.placements:
            raise IllegalActionError("an Ambassador action needs at least one placement")
        state.check_placements(player, action.placements, one_per_puzzle=True)

    def apply_action(self, state: GameState, action: Action) -> None:
        """Use one Ambassador: place like a Master (all from the supply as it was), then complete.

        One of the turn's 3 actions (the base game counts it); it leaves ``master_used`` alone.
        """
        assert isinstance(action, Ambassador)
        p = state.current
        state.blocks[self.slot] = self.block_of(state).use(p)
        for card, piece, mask in action.placements:
            state.place_piece(p, card, piece, mask)
        state.complete_puzzles(p)

    def resolve_reward(self, state: GameState, player: int, code: int) -> bool:
        """The Ambassador of a completed Ambassador puzzle, kept face up until used."""
        state.blocks[self.slot] = self.block_of(state).gain(player)
        return False

    def result_json(self, state: GameState, result: dict[str, Any]) -> None:
        result["ambassadors"] = list(self.block_of(state).held)  # unused at the end: score 0

    def summary_json(self, state: GameState, out: dict[str, Any]) -> None:
        amb = self.block_of(state)
        for p, row in enumerate(out["players"]):
            row["ambassadors"] = amb.held[p]

    def seat_columns(self, state: GameState, player: int) -> dict[str, Any]:
        return {"ambassadors_unused": self.block_of(state).held[player]}

    def player_text(self, state: GameState, player: int) -> str:
        return f", Ambassadors {self.block_of(state).held[player]}"

    def check_invariants(self, state: GameState) -> None:
        """Every Ambassador held or used came from a completed Ambassador puzzle (exactly, until
        Finishing Touches, whose completions give no reward)."""
        amb = self.block_of(state)
        t = state.tables
        for p in range(state.n):
            held, used = amb.held[p], amb.used[p]
            if held < 0 or used < 0:
                raise InvariantError(f"player {p}: a negative Ambassador count")
            cards = state.piles[p] + state.completed_elsewhere(p)
            if HIDDEN in cards:
                continue
            earned = sum(1 for c in cards if t.reward[c] == REWARD_AMBASSADOR)
            if p == state.current:
                earned -= state.pending.count(REWARD_AMBASSADOR)  # rewards still queued
            if held + used > earned or (state.in_turn() and held + used != earned):
                raise InvariantError(
                    f"player {p}: {held} Ambassadors held + {used} used, from {earned} completed"
                )


register_expansion(AmbassadorPack)
