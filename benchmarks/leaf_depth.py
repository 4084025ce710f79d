"""Where the flat search's gain comes from: the same search scoring every visit at one depth.

Bots for ``benchmarks/strength.py`` (``FILE.py:CLASS`` specs), each the flat search
(``mcts:leaf=value,tree=turn,width=0``) with every leaf scored at the end of the searching
seat's own turn ``depth`` turns on: ``TurnEnd0`` at the end of the turn it is playing, where
``value`` scores its candidates; ``TurnEnd1`` at the end of its next one. The flat search itself
mixes the two: a visit whose line ends inside the turn is scored at that turn's end, one whose
line has reached the turn's end plays on through the others' turns and its next one. E.g.::

    benchmarks/strength.py --out DIR --games 200 --scaling \\
        "benchmarks/leaf_depth.py:TurnEnd0:leaf=value,tree=turn,width=0,iterations={it}" \\
        --budgets 12

(docs/benchmarks.md, "Search that scales": at depth 0, 48 iterations hardly beat 12.)
"""

from __future__ import annotations

import random
from typing import ClassVar

from bots._state import PLAY
from bots.features import position_features
from bots.heuristics import CostModel
from bots.mcts import MAX_LEAF_ACTIONS, MCTSBot, _logistic
from projectl_sim.engine import GameState


class TurnEnd0(MCTSBot):
    """The search with every leaf scored at the end of the searching seat's current turn."""

    name = "turnend0"
    depth: ClassVar[int] = 0

    def _leaf_values(self, state: GameState, rng: random.Random, model: CostModel) -> list[float]:
        self._settle(state, rng)
        me = self._root
        at = -1 if state.current == me else 0  # the searching seat's turn ends reached so far
        steps = 0
        while state.phase == PLAY and at < self.depth and steps < MAX_LEAF_ACTIONS:
            mine = state.current == me
            turn = state.turn
            action = self.greedy.choose_with_insert(state)
            if action is None:
                action = rng.choice(state.legal_actions(master="none"))
            state.apply(action)
            self._settle(state, rng)
            steps += 1
            if mine and (state.current != me or state.turn != turn):
                at += 1
        if state.phase != PLAY:
            return self._values(state, model)
        vm = self.value_model
        assert vm is not None
        scale = float(self.options["scale"])
        rows = [
            position_features(state, p, self._private & ~(1 << p), self._per_card)
            for p in range(state.n)
        ]
        return [0.5 * w + 0.5 * _logistic(m / scale) for w, m in vm.evaluate_rows(rows)]


class TurnEnd1(TurnEnd0):
    """The search with every leaf scored at the end of the searching seat's next turn."""

    name = "turnend1"
    depth: ClassVar[int] = 1
