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

from bots.heuristics import CostModel
from bots.mcts import MCTSBot
from projectl_sim.engine import GameState


class TurnEnd0(MCTSBot):
    """The search with every leaf scored at the end of the searching seat's current turn."""

    name = "turnend0"
    depth: ClassVar[int] = 0

    def _leaf_values(
        self, state: GameState, rng: random.Random, model: CostModel, turn_ends: int = 1
    ) -> list[float]:
        # the search's own leaf, played through the ends of the searching seat's turns that
        # reach ``depth`` turns on: one more where the leaf stands in that seat's turn
        self._settle(state, rng)
        own = int(state.current == self._root)
        return super()._leaf_values(state, rng, model, self.depth + own)


class TurnEnd1(TurnEnd0):
    """The search with every leaf scored at the end of the searching seat's next turn."""

    name = "turnend1"
    depth: ClassVar[int] = 1
