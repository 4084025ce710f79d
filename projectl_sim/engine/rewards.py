"""Completing puzzles and resolving their rewards, in the order the puzzles were taken.

Functions of the state's data (``StateData``; ``GameState.complete_puzzles`` delegates here, and
this module does not import it back); a special reward is resolved by the expansion that owns it,
a reward whose shape is gone by the reserve shortage rule (rulings: reserve shortage), a choice
between shapes stops for the player's Reward.
"""

from __future__ import annotations

from projectl_sim.engine.phases import PLAY, REWARD
from projectl_sim.engine.state_data import StateData, put
from projectl_sim.engine.tables import shortage_options


def resolve_rewards(state: StateData, p: int) -> None:
    # Rewards in the order the puzzles were taken; a choice stops the queue until made.
    hooks = state.hooks
    t = state.tables
    while state.pending:
        wanted = state.pending[0]
        for x in hooks.reward_received:
            x.reward_received(state, p, wanted)
        if wanted < 0:
            # a special reward: its expansion resolves it (rules refuse a catalogue with
            # special rewards none of the expansions played resolves)
            state.pending = state.pending[1:]
            owner = hooks.reward_names.get(t.special_reward[wanted])
            if owner is None:
                raise NotImplementedError(f"no expansion in play gives {wanted} rewards")
            if owner.resolve_reward(state, p, wanted):
                return
            continue
        options = shortage_options(state.reserve, wanted, t)
        if len(options) > 1:
            state.phase = REWARD
            state.reward_options = options
            return
        state.pending = state.pending[1:]
        if options:
            state.reserve[options[0]] -= 1
            state.supply[p][options[0]] += 1
    state.reward_options = ()
    if state.phase == REWARD:
        state.phase = PLAY


def complete_puzzles(state: StateData, p: int) -> None:
    """Complete every full puzzle of ``p``: pieces back, card to the pile, rewards."""
    t = state.tables
    slots = state.slots[p]
    done = [s for s in slots if s[1] == t.recess[s[0]]]
    if not done:
        return
    state.slots[p] = [s for s in slots if s[1] != t.recess[s[0]]]
    supply = state.supply[p]
    for card, _, placed in done:
        for piece, _ in placed:
            supply[piece] += 1
        state.piles = put(state.piles, p, (*state.piles[p], card))
        state.scores = put(state.scores, p, state.scores[p] + t.points[card])
    for x in state.hooks.puzzle_completed:
        for card, _, _ in done:
            x.puzzle_completed(state, p, card)
    state.last_progress_round = state.round
    state.pending = state.pending + tuple(t.reward[card] for card, _, _ in done)
    resolve_rewards(state, p)
