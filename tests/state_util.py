"""Helpers shared by the tests: seeded positions and state snapshots."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from bots import make_bot
from projectl_sim.engine import OVER, PLAY, GameState, new_game
from projectl_sim.engine.actions import Action
from projectl_sim.errors import IllegalActionError
from projectl_sim.expansions.ambassador_pack import ambassadors as ambassadors_of
from projectl_sim.expansions.endless import endless as endless_of
from projectl_sim.expansions.finesse import credits as credits_of
from projectl_sim.expansions.ghost_piece import ghosts as ghosts_of
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


def listing_matches_check(
    rules: Rules,
    seeds: Iterable[int],
    candidates: Callable[[GameState], Iterable[Action]],
    *,
    bot: str = "random",
    phases: tuple[str, ...] = (PLAY,),
    share: float = 0.1,
    rng_seed: int = 5,
) -> int:
    """Play seeded games; at a ``share`` of the decisions in ``phases``, check that each of
    ``candidates(state)`` is accepted by ``check`` exactly when ``legal_actions(master="none")``
    lists it (and that the listing's order is deterministic). Return how many were compared."""
    rng = random.Random(rng_seed)
    player = make_bot(bot)
    checked = 0
    for seed in seeds:
        state = new_game(rules, seed=seed)
        while state.phase != OVER:
            if state.phase in phases and rng.random() < share:
                listed = state.legal_actions(master="none")
                assert listed == state.legal_actions(master="none")
                legal = set(listed)
                for action in candidates(state):
                    try:
                        state.check(state.current, action)
                        ok = True
                    except IllegalActionError:
                        ok = False
                    assert ok == (action in legal), (state.describe(action), ok)
                    checked += 1
            state.step(state.current, player(state.view(state.current), rng))
    return checked


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
        getattr(state, "solo", None),
        _credits(state),
        _ghosts(state),
        _line_clear(state),
        ambassadors_of(state),
        endless_of(state),
    )


def _line_clear(state: GameState) -> tuple | None:
    """Return the Line Clear markers, other side's rows and waiting turn (None without)."""
    lc = getattr(state, "line_clear", None)
    if lc is None:
        return None
    turns = [t[:] for t in lc.turns]
    return (lc.white, lc.black, lc.moving, lc.other_rows[:], turns, lc.received, lc.pairs)


def _credits(state: GameState) -> tuple | None:
    """Return the Finesse Credits and tile row (None without Finesse)."""
    fin = credits_of(state)
    if fin is None:
        return None
    return (fin.bank, fin.active[:], fin.inactive[:], fin.earned[:], fin.spent[:], fin.row)


def _ghosts(state: GameState) -> tuple | None:
    """Return the Ghost Piece block's Level Up steps and counters (None without the expansion)."""
    gs = ghosts_of(state)
    if gs is None:
        return None
    return (gs.steps, gs.earned[:], gs.levelled[:], gs.forgone[:], gs.exchanges[:])
