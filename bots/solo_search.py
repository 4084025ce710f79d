"""A solo player that chooses its takes by playing each one out in many deals of the unseen deck.

In solo the mastermind is deterministic given the table (rulings, Solo variant), so what decides
a take is what it does to the mastermind's coming takes, and those hang on the cards that refill
the grid, which the player cannot see. ``solosearch`` plays as greedy, except where a take is
chosen (``when=take``: where greedy's own choice is a take; ``when=always``: wherever a take is
legal, greedy's choice then a candidate too): there it deals ``worlds`` orders of the unseen deck
from its view (the unseen cards are a known multiset, whites on top of blacks), plays every
candidate (each take of the grid, the blind draw, greedy's choice) in each of the same worlds,
greedy playing on to the end against the mastermind, and takes the candidate with the best mean
of a win (1) plus ``margin`` a point of final margin over the mastermind. A flat search over
determinizations (perfect-information Monte Carlo), with common deals across the candidates so
that their differences are not the deals'. ``halving`` rounds drop the worse half of the
candidates after each quarter of the worlds (0: every candidate meets every world). ``soft``
scores a world's win as a logistic of its margin instead of 0 or 1; ``prior`` is a bonus of
greedy's own choice that another candidate must beat; ``confirm`` plays a candidate that beat
greedy's choice again with it in fresh worlds, and keeps it only if it wins there too;
``points`` values the player's own points beside the margin; ``leaf=N`` stops each play-out N
of the player's turns on and asks the value model (``model``, ``hash``) instead of playing to
the end.

It reads the rules in force (difficulty, ``solo_unlock``, Finesse Solo's two takes) through the
game it copies, sees only its view (the deck order is dealt, never read), and outside solo, or
once the deck is empty (greedy's exact end search takes over), it is greedy.
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar

from bots._state import determinize, solo_table
from bots.base import Bot
from bots.features import hidden_piles, mean_unseen_points, position_features
from bots.greedy import GreedyBot
from bots.params import OneOf, Param, Range
from bots.value import (
    MAX_ROLLOUT_ACTIONS,
    MODEL_PARAMS,
    check_model,
    model_spec,
    play_out,
    settle,
)
from bots.value_model import ValueModel
from projectl_sim.engine import OVER, PLAY, GameState
from projectl_sim.engine.actions import Action, Finish, TakeDeck
from projectl_sim.errors import UsageError


def _is_take(action: Action, takes: list[Action]) -> bool:
    return action in takes or isinstance(action, TakeDeck)


class SoloSearchBot(Bot):
    name = "solosearch"
    summary = (
        "solo: greedy, each take chosen by playing every take out to the end in many deals of "
        "the unseen deck (wins, then margin over the mastermind)"
    )
    params: ClassVar[dict[str, Param]] = {
        "worlds": (
            16,
            "deals of the unseen deck a searched decision plays each candidate in",
            Range(1, 100_000),
        ),
        "when": (
            "take",
            "search where greedy's choice is a take (take) or wherever a take is legal (always)",
            OneOf("take", "always"),
        ),
        "margin": (
            0.05,
            "value of a point of final margin over the mastermind (a win is worth 1)",
            Range(0.0),
        ),
        "points": (
            0.0,
            "value of a point of the player's own final score (on top of the margin's)",
            Range(0.0),
        ),
        "soft": (
            0.0,
            "score a world's win as a logistic of the margin with this scale in points (0: a win "
            "is 1, a loss 0)",
            Range(0.0),
        ),
        "prior": (
            0.0,
            "bonus of greedy's own choice in the mean (another candidate must beat it by this)",
            Range(0.0),
        ),
        "confirm": (
            0,
            "a candidate that beats greedy's choice is played again with it in this many fresh "
            "worlds and kept only if it beats it there too (by ``prior``); 0: no second deal",
            Range(0, 100_000),
        ),
        "leaf": (
            0,
            "0: play each candidate out to the end; N: play on N of the player's turns (the "
            "mastermind's replies and their refills dealt by the world), then score the position "
            "with the value model",
            Range(0, 100),
        ),
        **MODEL_PARAMS,
        "halving": (
            0,
            "after each of this many quarters of the worlds drop the worse half (0: none)",
            Range(0, 3),
        ),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.worlds = int(self.options["worlds"])
        self.always = self.options["when"] == "always"
        self.margin = float(self.options["margin"])
        self.halving = int(self.options["halving"])
        self.soft = float(self.options["soft"])
        self.points = float(self.options["points"])
        self.leaf = int(self.options["leaf"])
        self.prior = float(self.options["prior"])
        self.confirm = int(self.options["confirm"])
        self.model: ValueModel | None = None
        path, digest = str(self.options["model"]), str(self.options["hash"])
        if self.leaf > 0:
            self.model = check_model(self.name, path, digest)
        elif path or digest:
            raise UsageError(
                f"bot {self.name}: model= and hash= name the leaf's model: give leaf=N"
            )
        self.hidden = 0  # the view's hidden piles and unseen cards' mean points (the features')
        self.per_card = 0.0
        self.greedy = GreedyBot()  # the bot's own play where it does not search (end search on)
        self.rollout = GreedyBot(endgame=0)  # the rollouts' play (no end search: too dear)
        self.searches = 0  # decisions searched over this bot's life (for benchmarks)
        self.rollouts = 0

    def __repr__(self) -> str:
        # a leaf's model is named by its file and hash (as ``mcts:leaf=value`` names it), so a
        # table's line stays one model after the shipped file changes
        items = [
            f"{k}={v}"
            for k, v in self.options.items()
            if k not in MODEL_PARAMS and v != self.params[k][0]
        ]
        if self.model is not None:
            items += model_spec(self.model, str(self.options["model"]))
        return self.name + (":" + ",".join(items) if items else "")

    # -- the protocol --------------------------------------------------------------------------
    def act(self, view: GameState, rng: random.Random) -> Action:
        choice = self.greedy.act(view, rng)
        if solo_table(view) is None or view.cards_to_trigger() == 0:
            return choice  # not solo, or the deck is out: greedy (its end search) decides
        takes = view.take_actions()
        if not takes or (not self.always and not _is_take(choice, takes)):
            return choice
        cands = [choice] + [a for a in takes if a != choice]
        if len(cands) == 1:
            return choice
        return self._search(view, cands, rng)

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        return self.greedy.choose_reward(view, options, rng)

    def choose_level_up(self, view: GameState, rng: random.Random) -> Action:
        return self.greedy.choose_level_up(view, rng)

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        return self.greedy.finishing_touches(view, rng)

    # -- the search ----------------------------------------------------------------------------
    def _search(self, view: GameState, cands: list[Action], rng: random.Random) -> Action:
        """Return the candidate with the best mean value over the same dealt worlds (ties: the
        earlier candidate, greedy's choice first)."""
        self.searches += 1
        self.hidden = hidden_piles(view)
        self.per_card = mean_unseen_points(view) if self.hidden else 0.0
        worlds = [(self._world(view, rng), rng.getrandbits(32)) for _ in range(self.worlds)]
        totals = [0.0] * len(cands)
        alive = list(range(len(cands)))
        rounds = self.halving
        # the worlds' share of each round: a quarter each for the halving rounds, the rest last
        bounds = [len(worlds) * (r + 1) // 4 for r in range(rounds)] + [len(worlds)]
        start = 0
        for end in bounds:
            for i in alive:
                for world, seed in worlds[start:end]:
                    totals[i] += self._play_out(world, cands[i], seed)
            start = end
            if end < len(worlds) and len(alive) > 1:
                alive.sort(key=lambda i: (-totals[i], i))
                alive = sorted(alive[: (len(alive) + 1) // 2])
        if 0 in alive:  # greedy's choice is the first candidate
            totals[0] += self.prior * len(worlds)
        best = max(alive, key=lambda i: (totals[i], -i))
        if best != 0 and self.confirm > 0 and not self._confirmed(view, cands[0], cands[best], rng):
            best = 0
        return cands[best]

    def _confirmed(
        self, view: GameState, greedys: Action, best: Action, rng: random.Random
    ) -> bool:
        """Return whether ``best`` beats greedy's choice by ``prior`` in ``confirm`` fresh worlds.

        The best of several noisy means overrates itself (the winner's curse); in worlds that
        did not choose it the two candidates' means are unbiased, so a candidate that won the
        first deal by luck is dropped there about as often as not."""
        gap = 0.0
        for _ in range(self.confirm):
            world, seed = self._world(view, rng), rng.getrandbits(32)
            gap += self._play_out(world, best, seed) - self._play_out(world, greedys, seed)
        return gap > self.prior * self.confirm

    def _world(self, view: GameState, rng: random.Random) -> GameState:
        """Return one full state consistent with ``view``: the unseen deck dealt with ``rng``."""
        return determinize(view, rng)

    def _play_out(self, world: GameState, action: Action, seed: int) -> float:
        """Play ``action`` in a copy of ``world``, then greedy to the end; return its value."""
        self.rollouts += 1
        state = world.copy()
        rng = random.Random(seed)
        state.apply(action)
        if self.model is not None:
            return self._leaf(state, rng)
        play_out(state, self.rollout, rng)
        return self._ended(state)

    def _ended(self, state: GameState) -> float:
        """Return what an ended world is worth: a win (``soft``: a logistic of the margin) plus
        ``margin`` a point of final margin and ``points`` a point of the player's own score."""
        own = float(state.final_scores()[0])
        margin = own - state.opponent_score()
        extra = self.margin * margin + self.points * own
        if self.soft > 0.0:
            # a win needs a margin of 1 or more (a tie goes to the mastermind): centred at 0.5
            return 1.0 / (1.0 + math.exp(-(margin - 0.5) / self.soft)) + extra
        return (1.0 if state.winners() else 0.0) + extra

    def _leaf(self, state: GameState, rng: random.Random) -> float:
        """Play ``state`` on with greedy until ``leaf`` more of the player's turns have begun (or
        the end); return its value: the model's win chance and margin there (ended: the real)."""
        assert self.model is not None
        target = state.turn + self.leaf
        steps = 0
        while state.phase != OVER and steps < MAX_ROLLOUT_ACTIONS:
            settle(state, self.rollout, rng)
            if state.phase == OVER or (state.turn >= target and state.phase == PLAY):
                break
            action = self.rollout.choose_with_insert(state)
            if action is None:
                action = rng.choice(state.legal_actions(master="none"))
            state.apply(action)
            steps += 1
        if state.phase == OVER:
            return self._ended(state)
        row = position_features(state, 0, self.hidden, self.per_card, {})
        win, margin = self.model.evaluate_rows([row])[0]
        return win + self.margin * margin
