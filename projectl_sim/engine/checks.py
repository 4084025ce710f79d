"""Checking an action before it is applied: ``GameState.check`` past its fast path.

Each illegal action raises one ``IllegalActionError`` saying what is wrong; the expansions check
their own actions and phases through their hooks, the variants through the state's methods
marked *variant* (``_check_variant``, ``_check_take``, ...). Functions of the state's data
(``StateData``, ``GameState``'s base class), so that the state's class stays the game's flow and
this module, which ``state`` imports, does not import it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from projectl_sim.engine.actions import (
    COLOURS,
    Action,
    Finish,
    Master,
    Place,
    Placement,
    Recycle,
    Reward,
    Take,
    TakeBasic,
    TakeDeck,
    Upgrade,
)
from projectl_sim.engine.moves import upgrade_targets
from projectl_sim.engine.phases import FINISHING, OVER, PLAY, REWARD
from projectl_sim.engine.state_data import StateData
from projectl_sim.errors import IllegalActionError
from projectl_sim.registry import expansion_classes


def check_placements(
    state: StateData,
    player: int,
    placements: Sequence[Placement],
    one_per_puzzle: bool,
    supply: Sequence[int] | None = None,
) -> None:
    """Raise unless the placements are legal for ``player``; the pieces come from its
    placeable supply, or from ``supply`` when given (an expansion's new pieces)."""
    t = state.tables
    cat = t.cat
    if supply is None:
        supply = state.placeable_supply(player)
    filled_of = {s[0]: s[1] for s in state.slots[player]}
    used = [0] * t.n_pieces
    placed: set[int] = set()
    for card, piece, mask in placements:
        # the common, legal case pays for no message: names are built only to raise
        if card not in filled_of:
            raise IllegalActionError(f"{cat.puzzles[card].id} is not an own unfinished puzzle")
        if one_per_puzzle and card in placed:
            raise IllegalActionError(f"places two pieces on {cat.puzzles[card].id} in one action")
        used[piece] += 1
        why = ""
        if used[piece] > supply[piece]:
            why = "needs a {name} the supply does not have"
        elif piece not in t.piece_of_mask.get(mask, ()):
            why = "cells do not form a {name}"
        elif mask & ~t.recess[card]:
            why = "lies outside the recess"
        elif mask & filled_of[card]:
            why = "overlaps a placed piece"
        if why:
            name = cat.pieces[piece].id
            for x in state.hooks.placement_error:
                why = x.placement_error(state, piece) or why
            # a single Place is already named by the action; name the placement in a list
            prefix = f"{name} on {cat.puzzles[card].id} " if len(placements) > 1 else ""
            raise IllegalActionError(prefix + why.format(name=name))
        filled_of[card] |= mask
        placed.add(card)


def check_action(state: StateData, player: int, action: Action) -> None:
    """Raise ``IllegalActionError`` (saying why) unless ``player`` may take ``action`` now (the
    body of ``GameState.check`` past its fast path, a Place in the play phase)."""
    phase = state.phase
    if phase == OVER:
        raise IllegalActionError("the game is over")
    hooks = state.hooks
    if isinstance(action, Finish):
        if phase != FINISHING:
            raise IllegalActionError("Finishing Touches only come after the last round")
        if not 0 <= player < state.n or state.finished[player]:
            raise IllegalActionError("this player has already made Finishing Touches")
        check_placements(state, player, action.placements, one_per_puzzle=False)
        if type(action) is not Finish:  # an expansion's Finishing Touches, paid its own way
            owner = hooks.action_owner.get(action.kind)
            if owner is None:
                raise IllegalActionError(_unplayed(action))
            owner.check_finish(state, player, action)
        return
    if player != state.current:
        raise IllegalActionError(state._wait_message(player))
    if phase == REWARD:
        if not isinstance(action, Reward):
            raise IllegalActionError("a reward piece must be chosen first")
        if action.piece not in state.reward_options:
            names = ", ".join(state.tables.cat.pieces[p].id for p in state.reward_options)
            raise IllegalActionError(f"the reward must be one of {names}")
        return
    if phase == FINISHING:
        owner = hooks.action_owner.get(getattr(action, "kind", ""))
        why = owner.finishing_refusal(action) if owner is not None else ""
        raise IllegalActionError(why or "only Finishing Touches are allowed now")
    if phase != PLAY:
        owner = hooks.phase_owner.get(phase)
        if owner is None:
            raise IllegalActionError(f"no action is open in phase {phase!r}")
        owner.check_phase(state, player, action)
        return
    for x in hooks.check:
        action = x.check(state, player, action)
    state._check_variant(player, action)
    t = state.tables
    if isinstance(action, Take):
        if not state.can_take():
            raise IllegalActionError(f"already has {state.max_unfinished} unfinished puzzles")
        state._check_take(action.card)
    elif isinstance(action, TakeDeck):
        if not state.can_take():
            raise IllegalActionError(f"already has {state.max_unfinished} unfinished puzzles")
        state._check_take_deck(action.colour)
    elif isinstance(action, Recycle):
        row = state.rows[action.colour]
        if not row:
            raise IllegalActionError(f"the {COLOURS[action.colour]} row is empty")
        if action.order and sorted(action.order) != sorted(row):
            raise IllegalActionError(
                f"the order must list exactly the {COLOURS[action.colour]} row"
            )
    elif isinstance(action, TakeBasic):
        if state.basic_piece() is None:
            raise IllegalActionError("the reserve has no piece to take")
    elif isinstance(action, Upgrade):
        give, get = action.give, action.get
        if not state.supply[player][give]:
            raise IllegalActionError(f"has no {t.cat.pieces[give].id} to give")
        if get not in upgrade_targets(state, give, state.reserve):
            if get == give:
                why = "must take a different piece"
            elif not t.upgradable[get]:
                why = f"the Upgrade action never takes a {t.cat.pieces[get].id}"
                for x in hooks.upgrade_error:
                    why = x.upgrade_error(state, get) or why
            elif state.reserve[get] == 0:
                why = f"the reserve has no {t.cat.pieces[get].id}"
            else:
                why = "may only take the same level, a lower one or one level higher"
            raise IllegalActionError(why)
    elif isinstance(action, Place):
        check_placements(
            state, player, ((action.card, action.piece, action.mask),), one_per_puzzle=True
        )
    elif isinstance(action, Master):
        if state.master_used:
            raise IllegalActionError("Master was already used this turn")
        if not action.placements:
            raise IllegalActionError("Master needs at least one placement")
        check_placements(state, player, action.placements, one_per_puzzle=True)
    elif isinstance(action, Reward):
        raise IllegalActionError("no reward choice is open")
    else:
        owner = hooks.action_owner.get(getattr(action, "kind", ""))
        if owner is None:
            raise IllegalActionError(_unplayed(action))
        owner.check_action(state, player, action)


def _unplayed(action: Any) -> str:
    """Return why an action no expansion in play owns is illegal."""
    kind = getattr(action, "kind", None)
    for cls in expansion_classes():
        if kind in cls.action_kinds:
            return f"{type(action).__name__} actions need the {cls.name} expansion"
    return f"unknown action {action!r}"
