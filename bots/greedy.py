"""The ``greedy`` family: plan-driven heuristic play.

Each decision the bot plans with the tiling index: for every held puzzle, the cheapest way to
finish it (placements, plus the upgrades or takes for pieces it lacks) and its rate, the value of
its points and reward per action. Then, in order:

1. complete a puzzle now if a Place (or a Master on several puzzles) does it;
2. Master when two or more held puzzles can each take a piece of their plan;
3. take the face-up puzzle with the best rate when fewer than ``min_held`` are held, or when it
   beats every held puzzle's rate (only if it can be finished before the game ends);
4. work on the held puzzle with the best rate: place the largest piece of its plan, or get a
   piece the plan lacks (an upgrade of a spare piece, or a level-1 piece);
5. otherwise build the engine (upgrade the smallest spare piece) or recycle a row.

It knows the end: after the trigger it counts the actions it has left, never takes a puzzle it
can't finish in them, and stops working on one it can't save. Finishing Touches are taken only
when they pay; a reward choice takes the highest level. Solo: once the deck is empty, its last
``endgame`` actions (default 2) and their rewards are searched exactly (``bots.endgame``).

Ambassador Pack: an Ambassador is used where a second Master would be: once the turn's Master is
used (or when it is not free), for the same completions of several puzzles (step 1) or the same
plan steps on two or more puzzles (step 2); so Master first, then Ambassadors, any number a turn.

Ghost Piece: it plans with the ghosts it holds like any piece (unless they are only exchanged),
makes a Ghost action when the new pieces shorten its plans by more than the action costs, and takes
the Level Up steps that best serve its plans (declining one that would only spoil them).

Finesse: it Inserts its greedy action when that completes a puzzle, or when it places pieces on a
plan and enough Credits stay for a later completing Insert. Finishing Touches are paid with
Credits first (at the end Credits only break ties). Credits are not otherwise chased: the tiles
pay for what it does.

Presets (``preset=``): ``balanced`` (default), ``engine`` (upgrades spare pieces before working
on cheap puzzles, values rewards), ``rush_black`` (black puzzles' points count 1.8x), ``cautious``
(white puzzles only, holds few, risk-averse). Any weight can be overridden, e.g.
``greedy:preset=engine,reward=1.2``.
"""

from __future__ import annotations

import math
import random
from dataclasses import fields, replace
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from bots._state import (
    TAKE_BASIC,
    active_credits,
    ambassadors_held,
    ghost_block,
    plays_finesse,
    solo_table,
    solo_unlock_takes,
)
from bots.base import Bot
from bots.endgame import solo_endgame
from bots.heuristics import (
    UNREACHABLE,
    CostModel,
    Weights,
    actions_left_estimate,
    cost_model,
    largest_step,
)
from bots.params import OneOf, Param, Range
from bots.random_bot import best_finish, completing_places
from bots.solo_sense import after_take, mastermind_forecast
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import (
    Action,
    Finish,
    Master,
    Place,
    Placement,
    Recycle,
    Reward,
    Take,
    Upgrade,
)
from projectl_sim.errors import UsageError, unknown_name
from projectl_sim.expansions.ambassador_pack import Ambassador
from projectl_sim.expansions.finesse import Insert
from projectl_sim.expansions.ghost_piece import Ghost, LevelUp, ghost_takes, level_up_actions

PRESETS: Final[dict[str, Weights]] = {
    "balanced": Weights(),
    "engine": Weights(reward=1.0, build=0.45, min_held=2),
    "rush_black": Weights(black_bias=1.8, reward=0.3, min_held=3),
    "cautious": Weights(white_only=True, risk=1.5, min_held=1),
}

# Solo: the weights greedy plays against the mastermind where the spec sets none, and the denial
# (SOLO_PARAMS). `tools/tune_solo.py --objective both --games 3000 --trials 100 --seed 5000`
# (Optuna, 100 settings on the same 3000 Normal deals, the win rate and the mean score both made
# large) gave a front of settings from 19.3 points at 3.1% wins to 15.8 points at 8.2%, validated
# on 3000 fresh deals (seed 5001). With the last actions searched exactly (``endgame``,
# bots.endgame) the three with the most points, played again on those 3000 deals, scored 20.28,
# 20.20 and 19.97 points with 14.8%, 14.7% and 17.8% wins; this is the first (the weights before,
# searched for wins alone: 15.8 points, 6.2% wins without the end search). Black puzzles weigh
# about twice as much, a take's denial counts little (0.19 a point, over the mastermind's next 6
# turns), takes are moderately bold (risk 0.48) with no puzzle held for its own sake, the actions
# left are estimated from the deck's pace but at least 14 until the end is triggered, and spare
# pieces are upgraded while the best plan pays less than 0.77 a point per action.
SOLO_WEIGHTS: Final[dict[str, Any]] = {
    "black_bias": 2.12,
    "reward": 0.372,
    "risk": 0.483,
    "horizon": 14,
    "min_held": 0,
    "build": 0.771,
}
# The policies (bots.policies) keep their own holding and building rules in solo: only these
# (greedy's solo weights before any search; no search has tried the policies).
POLICY_SOLO_WEIGHTS: Final[dict[str, Any]] = {"black_bias": 3.0, "reward": 0.2, "risk": 0.8}

_WEIGHT_HELP: Final = {
    "points": "value of one victory point",
    "reward": "value per level of a puzzle's reward piece",
    "black_bias": "multiplier on black puzzles' points",
    "white_only": "never take black puzzles (0/1)",
    "risk": "safety factor on the actions a new puzzle needs before the end (1 = exact)",
    "horizon": "fewest actions assumed left before the end is triggered",
    "min_held": "keep at least this many puzzles in progress",
    "build": "upgrade spare pieces first while the best rate is below this",
}
# The valid values of each weight (make_bot refuses others, e.g. risk=nan or min_held=-1).
_WEIGHT_RANGE: Final[dict[str, Any]] = {
    "points": Range(0.0, open_low=True),
    "reward": Range(0.0),
    "black_bias": Range(0.0),
    "white_only": OneOf(False, True),
    "risk": Range(0.0, open_low=True),
    "horizon": Range(0, 100),
    "min_held": Range(0, 4),  # at most 4 puzzles are held (rulings: unfinished puzzles)
    "build": Range(0.0),
}


def weight_params(base: Weights | None = None) -> dict[str, Param]:
    """Return the ``params`` entries of the greedy weights (defaults from ``base``)."""
    base = base if base is not None else Weights()
    return {
        f.name: (getattr(base, f.name), _WEIGHT_HELP[f.name], _WEIGHT_RANGE[f.name])
        for f in fields(Weights)
    }


SOLO_PARAMS: Final[dict[str, Param]] = {
    "deny": (
        0.189,
        "solo: value of a point a take denies the mastermind's coming takes",
        Range(0.0),
    ),
    "lookahead": (6, "solo: the mastermind's turns a take's denial is counted over", Range(1, 20)),
    "endgame": (
        2,
        "solo: once the deck is empty, search the last N actions exactly (0 = off)",
        Range(0, 3),
    ),
}


class Target:
    """A held puzzle as the plan sees it: its empty cells, cost, planned pieces and rate.

    (A plain class: compiled, a dataclass here cost a dictionary per instance.)
    """

    __slots__ = ("card", "cost", "empty", "need", "rate")

    def __init__(
        self, card: int, empty: int, cost: int, need: tuple[int, ...], rate: float
    ) -> None:
        self.card = card
        self.empty = empty
        self.cost = cost
        self.need = need
        self.rate = rate


def in_plan_order(
    model: CostModel, supply: list[int], empties: list[int]
) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """Plan regions cheapest first, each with what the cheaper ones leave of ``supply``; return
    ``(index in empties, empty, cost, need)`` in that order."""
    code = model.code(supply)
    first = [model.cost_with(e, supply, code)[0] for e in empties]
    order = sorted(range(len(empties)), key=lambda i: first[i])
    out = []
    n = model.n
    for i in order:
        cost, need = model.cost(empties[i], supply)
        out.append((i, empties[i], cost, need))
        rest = [0] * n
        for j in range(n):
            d = supply[j] - need[j]
            if d > 0:
                rest[j] = d
        supply = rest
    return out


def gain(model: CostModel, card: int, w: Weights) -> float:
    """Return what completing ``card`` is worth by the weights: points (black bias) and reward."""
    t = model.tab
    bias = w.black_bias if t.is_black[card] else 1.0
    return w.points * t.points[card] * bias + w.reward * t.reward_level[card]


def _worth_holding(
    best: Action | None, best_rate: float, targets: list[Target], left: int, held: int, w: Weights
) -> Action | None:
    """Return the best take when it pays: below ``min_held`` puzzles, or beating the held plans.

    A take must promise more points per action than the best held plan that fits in the actions
    left, unless the bot holds fewer puzzles than it wants to (``min_held``).
    """
    if best is None:
        return None
    held_rate = 0.0
    first = True
    for tg in targets:
        if tg.cost <= left and (first or tg.rate > held_rate):
            held_rate, first = tg.rate, False
    if held < w.min_held or best_rate > held_rate:
        return best
    return None


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled; other policies extend it
class GreedyBot(Bot):
    name = "greedy"
    summary = (
        "plans completions with the tiling index, takes and works on the best points per "
        "action, knows the end game; presets balanced/engine/rush_black/cautious"
    )
    params: ClassVar[dict[str, Param]] = {
        "preset": ("balanced", f"weights preset: {', '.join(PRESETS)}", OneOf(*PRESETS)),
        **weight_params(),
        **SOLO_PARAMS,
    }
    presets: ClassVar[dict[str, Weights]] = PRESETS
    # solo: the weights that replace the preset's where the spec sets none
    solo_overrides: ClassVar[dict[str, Any]] = SOLO_WEIGHTS

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.deny = float(self.options["deny"])
        self.lookahead = int(self.options["lookahead"])
        self.endgame = int(self.options["endgame"])
        preset = self.options["preset"]
        if preset not in self.presets:
            raise UsageError(unknown_name(f"{self.name} preset", preset, self.presets))
        overrides = {k: v for k, v in kwargs.items() if k != "preset" and hasattr(Weights(), k)}
        self.weights: Weights = replace(self.presets[preset], **overrides)
        for k in self.options:
            if hasattr(self.weights, k):
                self.options[k] = getattr(self.weights, k)
        # solo: the weights that fight the mastermind, where the spec does not set them
        self.base_weights = self.weights
        solo = {k: v for k, v in self.solo_overrides.items() if k not in kwargs}
        self.solo_weights: Weights = replace(self.weights, **solo)

    def __repr__(self) -> str:
        preset = self.options["preset"]
        base = self.presets[preset]
        changed = [f"preset={preset}"] if preset != next(iter(self.presets)) else []
        for k, v in self.options.items():
            if k == "preset":
                continue
            default = getattr(base, k) if hasattr(base, k) else self.params[k][0]
            if v != default:
                changed.append(f"{k}={_fmt(v)}")
        return self.name + (":" + ",".join(changed) if changed else "")

    # -- decisions -----------------------------------------------------------------------------
    def act(self, view: GameState, rng: random.Random) -> Action:
        last = solo_endgame(view, rng, self.endgame)
        if last is not None:
            return last
        action = self.choose_with_insert(view)
        return action if action is not None else rng.choice(view.legal_actions(master="none"))

    def choose_with_insert(self, state: GameState) -> Action | None:
        """Return ``choose``'s action, as an Insert when Finesse Credits make that pay."""
        action = self.choose(state)
        credits = active_credits(state, state.current)
        if action is None or credits < state.rules.insert_cost:
            return action
        if isinstance(action, Place):
            placements: tuple[Placement, ...] = ((action.card, 0, action.mask),)
        elif isinstance(action, (Master, Ambassador)):
            placements = action.placements
        else:
            return action
        recess = cost_model(state).tab.recess
        filled = {card: f for card, f, _ in state.slots[state.current]}
        for card, _piece, mask in placements:
            filled[card] |= mask
        # a completion as an extra action leaves the turn's own action for more progress
        for card, _, _ in placements:
            if filled[card] == recess[card]:
                return Insert(action)
        # progress on a plan pays when 2 Credits would still be left for a completing Insert
        if credits >= 2 * state.rules.insert_cost:
            return Insert(action)
        return action

    def choose(self, state: GameState) -> Action | None:
        """Return the greedy action for the player to move (None: nothing sensible).

        The steps are methods, so that the other policies (``bots.policies``) change one step
        and keep the rest: ``_complete_now``, the Ghost action, ``_prepare`` (none here),
        ``_master_step``, ``_take``, ``_work``, ``_fallback``.
        """
        solo = solo_table(state) is not None
        self.weights = w = self.solo_weights if solo else self.base_weights
        model = cost_model(state)
        me = state.current
        multi = not state.master_used or ambassadors_held(state, me) > 0
        done = self._complete_now(state, model, multi)
        if done is not None:
            return done
        left = actions_left_estimate(state, me, w)
        targets = self._targets(state, model, left)
        ghost = self._plan_ghost(state, model, targets, left)
        if ghost is not None:
            return ghost
        prepared = self._prepare(state, model, targets, left)
        if prepared is not None:
            return prepared
        if multi:
            master = self._master_step(state, model, targets)
            if master is not None:
                return master
        take = self._take(state, model, targets, left)
        if take is not None:
            return take
        live = [tg for tg in targets if tg.cost <= left]
        work = self._work(state, model, live)
        if work is not None:
            return work
        return self._fallback(state, model, live)

    def _complete_now(self, state: GameState, model: CostModel, multi: bool) -> Action | None:
        """Return the action that completes puzzles now, if any: a Master (or an Ambassador) of
        several completions, else the most valuable completing Place."""
        done = completing_places(state)
        if not done:
            return None
        if multi:
            master = self._multi(state, self._completing_placements(state, model))
            if master is not None:
                return master
        w = self.weights
        best = done[0]
        best_gain = gain(model, best.card, w)
        for a in done:
            g = gain(model, a.card, w)
            if g > best_gain:
                best, best_gain = a, g
        return best

    def _prepare(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Action | None:
        """Return a policy's own move before the Master and the take (greedy: none)."""
        return None

    def _master_step(
        self, state: GameState, model: CostModel, targets: list[Target]
    ) -> Action | None:
        """Return a Master (or an Ambassador) of one plan step in each of 2+ held puzzles."""
        return self._multi(state, self._plan_placements(state, model, targets))

    def _take(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Action | None:
        """Return the take to make now, if any (solo: the one that fights the mastermind)."""
        if solo_table(state) is not None:
            return self._solo_take(state, model, targets, left)
        return self._best_take(state, model, targets, left)

    def _work(self, state: GameState, model: CostModel, live: list[Target]) -> Action | None:
        """Return progress on the held puzzle with the best rate (unless building comes first)."""
        if not live:
            return None
        best_tg = live[0]
        for tg in live:
            if tg.rate > best_tg.rate or (tg.rate == best_tg.rate and tg.cost < best_tg.cost):
                best_tg = tg
        if (
            best_tg.rate >= self.weights.build
            or self._spare_upgrade(state, model, best_tg.need) is None
        ):
            return self._work_on(state, model, best_tg)
        return None

    def _fallback(self, state: GameState, model: CostModel, live: list[Target]) -> Action | None:
        """Return what to do with nothing to work on: build, a level-1 piece, or a Recycle."""
        build = self._spare_upgrade(state, model, live[0].need if live else ())
        if build is not None:
            return build
        if state.basic_piece() is not None and sum(state.supply[state.current]) < 4:
            return TAKE_BASIC
        if state.may_recycle():
            for colour in (0, 1):
                if state.rows[colour]:
                    return Recycle(colour, state.rows[colour])
        return None

    def _targets(self, state: GameState, model: CostModel, left: int) -> list[Target]:
        t = model.tab
        me = state.current
        out = []
        slots = state.slots[me]
        regions = [t.recess[card] & ~filled for card, filled, _ in slots]
        penalty = state.rules.unfinished_penalty
        for i, empty, cost, need in in_plan_order(model, list(state.placeable_supply(me)), regions):
            card = slots[i][0]
            rate = gain(model, card, self.weights) / max(1, cost) if cost < UNREACHABLE else 0.0
            if penalty:
                rate += t.points[card] / max(1, cost)  # finishing also saves the penalty
            out.append(Target(card, empty, cost, need, rate))
        return out

    def _best_take(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Action | None:
        w = self.weights
        t = model.tab
        me = state.current
        held = len(state.slots[me])
        if held >= state.max_unfinished:  # the rules in force (rulebook: 4)
            return None
        supply = spare_supply(model, state.placeable_supply(me), targets)
        committed = 0
        for tg in targets:
            if tg.cost <= left:
                committed += tg.cost
        best: Action | None = None
        best_rate = 0.0
        code = model.code(supply)
        for a in state.take_actions():
            if not isinstance(a, Take):
                continue
            card = a.card
            if w.white_only and t.is_black[card]:
                continue
            cost = model.cost_with(t.recess[card], supply, code)[0]
            if w.risk * (1 + cost) + committed > left:
                continue  # rulings: an unfinished puzzle costs its points at the end
            rate = self._take_rate(state, model, card, cost)
            if rate > best_rate:
                best, best_rate = a, rate
        return _worth_holding(best, best_rate, targets, left, held, w)

    def _take_rate(self, state: GameState, model: CostModel, card: int, cost: int) -> float:
        """Return what taking ``card`` is worth per action (points and reward per action)."""
        return gain(model, card, self.weights) / (1 + cost)

    def _solo_take(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Action | None:
        """Return the take that best fights the mastermind (solo), or None.

        As ``_best_take``, each take's rate is its gain per action, plus what it denies the
        mastermind: the points of the mastermind's next take with the table as it is, less with
        the table after this take (the card goes, a lock piece of its column moves to the
        mastermind's supply, the gap holds an unseen card). A blind draw denies nothing and moves
        no lock: its rate is the mean rate of the unseen cards of the colour on top of the deck.
        """
        solo = solo_table(state)
        assert solo is not None
        w = self.weights
        t = model.tab
        me = state.current
        held = len(state.slots[me])
        if held >= state.max_unfinished:  # the rules in force (rulebook: 4)
            return None
        supply = spare_supply(model, state.placeable_supply(me), targets)
        committed = 0
        for tg in targets:
            if tg.cost <= left:
                committed += tg.cost
        points = t.points
        colour = 0 if state.decks[0] else 1  # the solo deck: its whites lie on top
        unseen_cards = state.unseen_cards(colour)
        unseen = sum(points[c] for c in unseen_cards) / max(1, len(unseen_cards))
        second = plays_finesse(state)
        unlock_takes = solo_unlock_takes(state)
        turns = self.lookahead
        deck = len(state.decks[0]) + len(state.decks[1])
        now = mastermind_forecast(solo, points, unseen, turns, second, unlock_takes, deck)
        best: Action | None = None
        best_rate = 0.0
        for a in state.take_actions():
            if isinstance(a, Take):
                card = a.card
                cost = model.cost(t.recess[card], supply)[0]
                if w.risk * (1 + cost) + committed > left:
                    continue  # rulings: an unfinished puzzle costs its points at the end
                pos = solo.grid.index(card)
                after = mastermind_forecast(
                    after_take(solo, pos), points, unseen, turns, second, unlock_takes, deck - 1
                )
                # the denial is had now, by this one action; the gain over the actions it needs
                rate = self.deny * (now - after) + gain(model, card, w) / (1 + cost)
            else:
                total = 0.0
                for card in unseen_cards:
                    cost = model.cost(t.recess[card], supply)[0]
                    if w.risk * (1 + cost) + committed <= left:
                        total += gain(model, card, w) / (1 + cost)
                rate = total / max(1, len(unseen_cards))
            if rate > best_rate:
                best, best_rate = a, rate
        return _worth_holding(best, best_rate, targets, left, held, w)

    @staticmethod
    def _multi(state: GameState, placements: tuple[Placement, ...]) -> Action | None:
        """Return a Master of 2+ placements if Master is free this turn, else an Ambassador
        action if the player holds one, else None."""
        if len(placements) < 2:
            return None
        if not state.master_used:
            return Master(placements)
        if ambassadors_held(state, state.current):
            return Ambassador(placements)
        return None

    def _plan_placements(
        self, state: GameState, model: CostModel, targets: list[Target]
    ) -> tuple[Placement, ...]:
        """Return one plan step (its largest piece) for each target that can take one now."""
        left = list(state.placeable_supply(state.current))
        chosen: list[Placement] = []
        for tg in targets:
            v = model.first(tg.empty, left)
            if v is None:
                continue
            piece, mask = largest_step(model, tg.empty, v)
            left[piece] -= 1
            chosen.append((tg.card, piece, mask))
        return tuple(chosen)

    def _completing_placements(self, state: GameState, model: CostModel) -> tuple[Placement, ...]:
        """Return one completing placement for each puzzle a supply piece completes."""
        t = model.tab
        me = state.current
        left = list(state.placeable_supply(me))
        chosen: list[Placement] = []
        for card, filled, _ in state.slots[me]:
            empty = t.recess[card] & ~filled
            for piece in t.piece_of_mask.get(empty, ()):
                if left[piece]:
                    left[piece] -= 1
                    chosen.append((card, piece, empty))
                    break
        return tuple(chosen)

    def _work_on(self, state: GameState, model: CostModel, tg: Target) -> Action | None:
        levels = model.levels
        supply = state.placeable_supply(state.current)
        v = model.first(tg.empty, supply)
        if v is not None:
            steps = model.placements(tg.empty, v)
            # the largest piece; among equals, the lowest mask
            piece, mask = steps[0]
            for p, m in steps:
                if levels[p] > levels[piece] or (levels[p] == levels[piece] and m < mask):
                    piece, mask = p, m
            return model.tab.place(tg.card, piece, mask)
        return self._acquire(state, model, tg.need)

    def _acquire(self, state: GameState, model: CostModel, need: tuple[int, ...]) -> Action | None:
        """Return the action that best moves the supply towards ``need``."""
        t = model.tab
        supply = state.supply[state.current]
        levels = t.levels
        n = t.n_pieces
        missing = [i for i in range(n) if need[i] > supply[i]]
        spares = [i for i in range(n) if supply[i] > need[i]]
        if missing and spares:
            legal = upgrade_pairs(state)
            # biggest missing piece first: it takes the longest to build
            for want in sorted(missing, key=lambda i: -levels[i]):
                # the spare whose level is closest below (or at) the wanted level
                lw = levels[want]
                for give in sorted(spares, key=lambda i: (abs(lw - 1 - levels[i]), i)):
                    if (give, want) in legal:
                        return t.upgrades[give][want]
                # climb one level towards it from the largest spare below
                below = [i for i in spares if levels[i] < lw - 1]
                for give in sorted(below, key=lambda i: -levels[i]):
                    for get in t.by_level.get(levels[give] + 1, ()):
                        if (give, get) in legal:
                            return t.upgrades[give][get]
        if missing and state.basic_piece() is not None:
            return TAKE_BASIC
        return None

    def _spare_upgrade(
        self, state: GameState, model: CostModel, need: tuple[int, ...]
    ) -> Action | None:
        """Return an upgrade of the smallest spare piece one level up (engine building)."""
        t = model.tab
        supply = state.supply[state.current]
        if not need:
            need = model.zero
        spares = [i for i in range(t.n_pieces) if supply[i] > need[i]]
        if not spares:
            return None
        legal = upgrade_pairs(state)
        for give in sorted(spares, key=lambda i: t.levels[i]):
            for get in t.by_level.get(t.levels[give] + 1, ()):
                if (give, get) in legal:
                    return t.upgrades[give][get]
        return None

    # -- Ghost Piece --------------------------------------------------------------------------
    def _plan_cost(
        self, state: GameState, model: CostModel, supply: list[int], empties: list[int]
    ) -> int:
        """Return the actions the regions ``empties`` need with ``supply`` (cheapest first,
        each planned with what the cheaper ones leave, as ``_targets`` does)."""
        gs = ghost_block(state)
        if gs is not None:
            supply = gs.placeable(supply)
        total = 0
        for _, _, cost, _ in in_plan_order(model, supply, empties):
            total += min(cost, UNREACHABLE)
        return total

    def _plan_ghost(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Ghost | None:
        """Return the Ghost action that most shortens the plans of the puzzles it can finish.

        For each ghost held and each take: the new pieces go into the held puzzles where their
        plan (with the supply after the exchange) uses one, the largest first, at most one per
        puzzle; the exchange is chosen when the plans then need fewer actions in all, the
        exchange itself included unless it is free.
        """
        gs = ghost_block(state)
        if gs is None:
            return None
        live = [tg for tg in targets if tg.cost <= left]
        if not live:
            return None
        me = state.current
        supply = state.supply[me]
        held = [g for g in gs.tables.ghosts if supply[g]]
        if not held:
            return None
        levels = model.levels
        n = model.n
        empties = [tg.empty for tg in live]
        best: Ghost | None = None
        best_cost = self._plan_cost(state, model, list(supply), empties) - (0 if gs.free else 1)
        for g in held:
            for take in ghost_takes(state, g):
                after = list(supply)
                after[g] -= 1
                new = [0] * n
                for piece in take:
                    after[piece] += 1
                    new[piece] += 1
                chosen: list[Placement] = []
                rest = []
                for tg in live:
                    empty = tg.empty
                    v = model.first(empty, gs.placeable(after))
                    if v is not None:
                        steps = [s for s in model.placements(empty, v) if new[s[0]]]
                        if steps:
                            piece, mask = steps[0]
                            for p, m in steps:
                                if levels[p] > levels[piece] or (
                                    levels[p] == levels[piece] and m < mask
                                ):
                                    piece, mask = p, m
                            new[piece] -= 1
                            after[piece] -= 1
                            chosen.append((tg.card, piece, mask))
                            empty &= ~mask
                    if empty:
                        rest.append(empty)
                cost = self._plan_cost(state, model, after, rest)
                if cost < best_cost:
                    best, best_cost = Ghost(g, take, tuple(chosen)), cost
        return best

    def choose_level_up(self, view: GameState, rng: random.Random) -> Action:
        """Return the Level Up step that best serves the plans of the held puzzles.

        Each step (and declining) is valued by the actions the held puzzles' plans then need,
        less a little per level in the supply (a bigger piece is worth more later); a step that
        spoils a plan loses to another, or to declining.
        """
        model = cost_model(view)
        t = model.tab
        me = view.current
        empties = [t.recess[card] & ~filled for card, filled, _ in view.slots[me]]
        best: Action | None = None
        best_value = (-math.inf, 0)
        for action in level_up_actions(view):
            assert isinstance(action, LevelUp)
            supply = list(view.supply[me])
            give, get = action.give, action.get
            if give is not None and get is not None:
                supply[give] -= 1
                supply[get] += 1
            levels = 0
            for i in range(t.n_pieces):
                levels += supply[i] * t.levels[i]
            got = t.levels[get] if get is not None else 0
            value = (-self._plan_cost(view, model, supply, empties) + 0.25 * levels, got)
            if best is None or value > best_value:
                best, best_value = action, value
        assert best is not None
        return best

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        last = solo_endgame(view, rng, self.endgame)
        if isinstance(last, Reward):
            return last.piece
        levels = cost_model(view).levels
        best = options[0]
        for p in options:
            if levels[p] > levels[best] or (levels[p] == levels[best] and p < best):
                best = p
        return best

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        # the first option of the most finish_gain, paid with Credits (none if it gains nothing):
        # the random bot's choice, made from counts without listing the options
        return best_finish(view)


def spare_supply(model: CostModel, supply: list[int], targets: list[Target]) -> list[int]:
    """Return what ``supply`` keeps once every target's planned pieces are set aside."""
    n = model.n
    left = list(supply)
    for tg in targets:
        need = tg.need
        for j in range(n):
            d = left[j] - need[j]
            left[j] = d if d > 0 else 0
    return left


def upgrade_pairs(state: GameState) -> set[tuple[int, int]]:
    """Return the (give, get) pairs of the legal Upgrade B actions."""
    out: set[tuple[int, int]] = set()
    for a in state.upgrade_actions():
        if isinstance(a, Upgrade):
            out.add((a.give, a.get))
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)
