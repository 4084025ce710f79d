"""Bots whose strength the deal or the seat decides, for the deal-variance tests.

``planted:side=S`` plays greedy in the deals whose first player is seat S and random play in the
others: seated against ``side=1-S``, the deal decides which of the two wins, wherever each sits.
``seated:tag=T`` plays greedy at seat 0 and random play elsewhere: two of them (different tags)
on one deal each win at seat 0, so under both seatings a deal splits its wins evenly (the
mirrored toy: the deal decides nothing).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from bots.base import Bot
from bots.greedy import GreedyBot
from bots.params import Range
from bots.random_bot import RandomBot
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action


class PlantedBot(Bot):
    name = "planted"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "side": (0, "the first player's seat of the deals it plays greedy in", Range(0, 5)),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.strong, self.weak = GreedyBot(), RandomBot()

    def __call__(self, view: GameState, rng: random.Random) -> Action:
        good = view.first_player == self.options["side"]
        return (self.strong if good else self.weak)(view, rng)


class SeatedBot(Bot):
    name = "seated"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "tag": (0, "a name apart (two seated bots, one line-up)", Range(0, 9)),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.strong, self.weak = GreedyBot(), RandomBot()

    def __call__(self, view: GameState, rng: random.Random) -> Action:
        return (self.strong if view.current == 0 else self.weak)(view, rng)
