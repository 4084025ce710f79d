"""Rows labelled by greedy rollouts: every candidate of a decision, its after-state valued by
play to the end.

A decision's candidates are those the value bot compares (``bots.value.scored_candidates`` with
the scoring bot's ``places``, ``takes``, ``upgrades`` and ``basic``, the greedy choice first, each
candidate's turn finished the greedy way). Each candidate's after-state is played to the end
``2 R`` times by greedy in every seat, the rollouts common to the candidates (rollout ``r`` deals
the same hidden cards and draws from the same random stream for each), and its row is its
features from the deciding seat's view with its mean win share and margin: targets that compare
the candidates a decision chooses among, with less noise than one game's end.

``tools/value_oracle.py`` scores the positions of games it plays (and reports how much a one-step
choice could buy); expert iteration (``learn.expit``, ``--labels rollouts``) scores those of its
self-play's records. Both label with ``score_position`` and turn its result into rows with
``decision_rows``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from bots.features import hidden_piles, mean_unseen_points, position_features
from bots.greedy import GreedyBot
from bots.heuristics import cost_model
from bots.value import final_margin, play_out, scored_candidates
from projectl_sim.engine import OVER, GameState
from projectl_sim.engine.actions import Action


def rollout(
    state: GameState, greedy: GreedyBot, rng: random.Random, me: int
) -> tuple[float, float]:
    """Play ``state`` to the end with greedy in every seat; return ``me``'s win share, margin."""
    play_out(state, greedy, rng, 5000)
    winners = state.winners()
    share = 1.0 / len(winners) if me in winners else 0.0
    return share, final_margin(state, me)


def score_position(
    view: GameState, bot: Any, greedy: GreedyBot, rollouts: int, seed: int
) -> tuple[list[Action], np.ndarray, np.ndarray, list[float], list[list[float]]]:
    """Return the candidates of ``view`` (the mover's view), their rollout win shares and
    margins (candidates x 2R), the value bot ``bot``'s values of them and their after-states'
    features (from the first world; an ended game's: an empty list)."""
    model = cost_model(view)
    cands = scored_candidates(view, greedy, model, bot.places, bot.takes, bot.upgrades, bot.basic)
    me = view.current
    hidden = hidden_piles(view)
    per_card = mean_unseen_points(view) if hidden else 0.0
    wins = np.zeros((len(cands), 2 * rollouts))
    margins = np.zeros((len(cands), 2 * rollouts))
    feats: list[list[float]] = []
    values: list[float] = []
    for r in range(2 * rollouts):
        world = view.determinize(random.Random(seed * 7919 + r))
        afters = [bot.after(world, a, random.Random(seed + r)) for a in cands]
        if r == 0:
            values = bot.values(afters, me, hidden, per_card)
            values[0] += bot.prior
            feats = [
                position_features(s, me, hidden, per_card) if s.phase != OVER else []
                for s in afters
            ]
        for i, s in enumerate(afters):
            wins[i, r], margins[i, r] = rollout(s, greedy, random.Random(seed * 31 + r), me)
    return cands, wins, margins, values, feats


def decision_rows(
    wins: np.ndarray, margins: np.ndarray, feats: list[list[float]]
) -> tuple[list[list[float]], list[float], list[float]]:
    """Return a scored decision's training rows: each candidate's after-state features (those
    of a game not over) with its mean rollout win share and margin."""
    x, win, margin = [], [], []
    for i, f in enumerate(feats):
        if f:
            x.append(f)
            win.append(float(wins[i].mean()))
            margin.append(float(margins[i].mean()))
    return x, win, margin


__all__ = ["decision_rows", "rollout", "score_position"]
