"""Helpers shared by the bot tests."""

from __future__ import annotations

from projectl_sim.engine import GameState


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
    )


def _credits(state: GameState) -> tuple | None:
    """Return the Finesse Credits and tile row (None without Finesse)."""
    fin = state.finesse
    if fin is None:
        return None
    return (fin.bank, fin.active[:], fin.inactive[:], fin.earned[:], fin.spent[:], fin.row)
