"""A position as a study: each action of the seat to move played out, on shared deals.

"What should I do here": from a position (``board.position``), each action the seat to move may
take is played, then the game to its end by the chosen bots, ``games`` times. Game ``g`` of
every action is played on the same deal of what that seat cannot see and with the same seeds
for the bots (common random numbers, as a run's paired games): the root seed spawns one child
seed per game in the parent (``SeedSequence.spawn``); the child deals the hidden information
again from the seat's view (``GameState.determinize``: the unseen deck cards, the others'
face-down piles) and seeds each seat's ``random.Random``. So the actions differ by the action
alone, and the table is the same for any number of workers.

The actions studied are the ``value`` bot's candidates (its heuristic's narrowing of the legal
actions: every take and upgrade, the placements worth considering) or, with ``every``, each
legal action. The result is one row per action and game (the seat's win share, its margin over
the best rival; the root seed and the game's index, its child seed) and, per action, the win
rate with its 95% interval (Wilson, a tie's shared win
counted as its share), best first.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from bots import make_bot
from bots.greedy import GreedyBot
from bots.heuristics import cost_model
from bots.value import candidates, final_margin
from projectl_sim.analysis.stats.intervals import wilson
from projectl_sim.board.position import Position, position_of
from projectl_sim.board.winprob import MAX_ROLLOUT_ACTIONS, label, result_shares
from projectl_sim.engine.actions import Action
from projectl_sim.engine.state import OVER, PLAY, GameState
from projectl_sim.errors import UsageError


@dataclass(frozen=True)
class StudySpec:
    """What a study plays: the bots of the seats (seat order), games per action, root seed."""

    bots: tuple[str, ...]
    games: int = 100
    seed: int = 0
    every: bool = False  # every legal action, not only the value bot's candidates


def study_actions(state: GameState, every: bool = False) -> list[Action]:
    """Return the actions a study compares for the seat to move (see the module's text)."""
    view = state.view(state.current)
    legal = list(view.legal_actions(master="none"))
    if every or state.phase != PLAY:
        return legal
    cands = candidates(view, GreedyBot(endgame=0), cost_model(view))
    return [a for a in cands if a in legal] or legal


def _game(
    state: GameState, actions: Sequence[Action], bots: Sequence[str], seed: np.random.SeedSequence
) -> list[tuple[float, float]]:
    """Play game ``seed`` of every action: (the seat's win share, its final margin) each."""
    seat = state.current
    players = [make_bot(b) for b in bots]
    deal_seed, *seat_seeds = seed.spawn(1 + state.n)
    world = state.view(seat).determinize(random.Random(int(deal_seed.generate_state(1)[0])))
    out = []
    for action in actions:
        g = world.copy()
        rngs = [random.Random(int(s.generate_state(1)[0])) for s in seat_seeds]
        g.step(seat, action)
        steps = 0
        while g.phase != OVER and steps < MAX_ROLLOUT_ACTIONS:
            q = g.current
            g.step(q, players[q](g.view(q), rngs[q]))
            steps += 1
        if g.phase != OVER:
            out.append((0.0, 0.0))  # a stalled table: no one's win
        else:
            out.append((result_shares(g)[seat], final_margin(g, seat)))
    return out


def _games(
    state: GameState | dict[str, Any],
    actions: Sequence[Action],
    bots: Sequence[str],
    seeds: Sequence[tuple[int, np.random.SeedSequence]],
) -> list[tuple[int, list[tuple[float, float]]]]:
    """Play the games ``seeds`` names (a worker is sent the position's record and replays it:
    a record pickles on every build, a state need not)."""
    if isinstance(state, dict):
        state = position_of(state, -1).state
    return [(i, _game(state, actions, bots, s)) for i, s in seeds]


def check_study(position: Position, spec: StudySpec) -> None:
    """Refuse a study of a finished game, or with bots that do not fit its seats."""
    if position.over:
        raise UsageError(f"the game is over at step {position.step}: no decision to study")
    state = position.state
    if len(spec.bots) != state.n:
        raise UsageError(
            f"--bots names {len(spec.bots)} bot{'s' if len(spec.bots) != 1 else ''} for a game "
            f"of {state.n} seats (one per seat, in seat order)"
        )
    for b in spec.bots:
        make_bot(b)  # a bad spec: one line before anything is played


def play_study(
    position: Position, spec: StudySpec, workers: int = 1, also: Sequence[Action] = ()
) -> list[dict[str, Any]]:
    """Return one row per studied action and game: the seat's win share and margin (``also``:
    actions studied beside the candidates, such as the one the record played)."""
    check_study(position, spec)
    state = position.state
    actions = study_actions(state, spec.every)
    actions += [a for a in also if a not in actions]
    children = list(enumerate(np.random.SeedSequence(spec.seed).spawn(spec.games)))
    if workers <= 1:
        results = _games(state, actions, spec.bots, children)
    else:
        chunks = [children[w::workers] for w in range(workers)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            jobs = [(position.record, actions, spec.bots, c) for c in chunks]
            parts = pool.map(_games, *zip(*jobs, strict=True))
            results = sorted((r for part in parts for r in part), key=lambda r: r[0])
    cat = state.rules.catalogue
    names = [label(a, cat) for a in actions]
    rows = []
    for g, per_action in results:
        for k, (share, margin) in enumerate(per_action):
            rows.append(
                {
                    "step": position.step,
                    "seat": state.current,
                    "action": names[k],
                    "seed": spec.seed,
                    "game": g,
                    "win_share": share,
                    "margin": margin,
                }
            )
    return rows


def study_summary(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return per action: games, win rate and its 95% Wilson interval, mean margin; best
    first (by win rate, then margin)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["action"], []).append(r)
    out = []
    for action, mine in by.items():
        n = len(mine)
        wins = sum(r["win_share"] for r in mine)
        low, high = wilson(wins, n)
        out.append(
            {
                "action": action,
                "games": n,
                "win_rate": round(wins / n, 4),
                "low": round(float(low), 4),
                "high": round(float(high), 4),
                "margin": round(float(np.mean([r["margin"] for r in mine])), 2),
            }
        )
    out.sort(key=lambda r: (-r["win_rate"], -r["margin"], r["action"]))
    return out


__all__ = ["StudySpec", "check_study", "play_study", "study_actions", "study_summary"]
