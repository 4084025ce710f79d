"""Helpers shared by the tests: seeded positions and state snapshots."""

from __future__ import annotations

import random

from bots import make_bot
from projectl_sim.engine import OVER, GameState, new_game
from projectl_sim.rules import Rules


def play_steps(rules: Rules, seed: int, steps: int, bot: str = "random") -> GameState:
    """Return the state after ``steps`` decisions of ``bot`` in every seat from a seeded deal."""
    state = new_game(rules, seed=seed)
    player = make_bot(bot)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.phase == OVER:
            break
        state.step(state.current, player(state.view(state.current), rng))
    return state


def snapshot(state: GameState) -> tuple:
    """Return everything a bot could change in a state, to compare before and after a call."""
    return (
        state.reserve[:],
        [s[:] for s in state.supply],
        [s[:] for s in state.slots],
        state.piles[:],
        state.scores[:],
        state.rows[:],
        state.decks[:],
        state.known_bottom[:],
        state.phase,
        state.current,
        state.actions_left,
        state.turn,
        state.reward_options,
        state.solo,
        _credits(state),
        _ghosts(state),
        _line_clear(state),
        state.ambassadors,
        state.endless,
    )


def _line_clear(state: GameState) -> tuple | None:
    """Return the Line Clear markers, other side's rows and waiting turn (None without)."""
    lc = state.line_clear
    if lc is None:
        return None
    turns = [t[:] for t in lc.turns]
    return (lc.white, lc.black, lc.moving, lc.other_rows[:], turns, lc.received, lc.pairs)


def _credits(state: GameState) -> tuple | None:
    """Return the Finesse Credits and tile row (None without Finesse)."""
    fin = state.finesse
    if fin is None:
        return None
    return (fin.bank, fin.active[:], fin.inactive[:], fin.earned[:], fin.spent[:], fin.row)


def _ghosts(state: GameState) -> tuple | None:
    """Return the Ghost Piece block's Level Up steps and counters (None without the expansion)."""
    gs = state.ghost
    if gs is None:
        return None
    return (gs.steps, gs.earned[:], gs.levelled[:], gs.forgone[:], gs.exchanges[:])
