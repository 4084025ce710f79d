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
when they pay; a reward choice takes the highest level.

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

import random
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from bots.base import Bot
from bots.heuristics import UNREACHABLE, CostModel, Weights, actions_left_estimate, cost_model
from bots.params import OneOf, Range
from bots.random_bot import completing_places, finish_gain, with_credits
from projectl_sim.engine import GameState, finish_options
from projectl_sim.engine.actions import (
    Action,
    Finish,
    Master,
    Place,
    Placement,
    Recycle,
    Take,
    TakeBasic,
    Upgrade,
)
from projectl_sim.errors import UsageError, unknown_name
from projectl_sim.expansions.ambassador_pack import Ambassador, ambassadors
from projectl_sim.expansions.finesse import Insert, credits
from projectl_sim.expansions.ghost_piece import Ghost, ghost_takes, ghosts, level_up_actions

PRESETS: dict[str, Weights] = {
    "balanced": Weights(),
    "engine": Weights(reward=1.0, build=0.45, min_held=2),
    "rush_black": Weights(black_bias=1.8, reward=0.3, min_held=3),
    "cautious": Weights(white_only=True, risk=1.5, min_held=1),
}

_WEIGHT_HELP = {
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
_WEIGHT_RANGE = {
    "points": Range(0.0, open_low=True),
    "reward": Range(0.0),
    "black_bias": Range(0.0),
    "white_only": OneOf(False, True),
    "risk": Range(0.0, open_low=True),
    "horizon": Range(0, 100),
    "min_held": Range(0, 4),  # at most 4 puzzles are held (rulings: unfinished puzzles)
    "build": Range(0.0),
}


@dataclass
class _Target:
    card: int
    empty: int
    cost: int
    need: tuple[int, ...]
    rate: float


def _in_plan_order(
    model: CostModel, supply: list[int], empties: list[int]
) -> Iterator[tuple[int, int, int, tuple[int, ...]]]:
    """Plan regions cheapest first, each with what the cheaper ones leave of ``supply``; yield
    ``(index in empties, empty, cost, need)`` in that order."""
    order = sorted(range(len(empties)), key=lambda i: model.cost(empties[i], supply)[0])
    for i in order:
        cost, need = model.cost(empties[i], supply)
        yield i, empties[i], cost, need
        supply = [max(0, s - k) for s, k in zip(supply, need, strict=True)]


def _gain(state: GameState, card: int, w: Weights) -> float:
    t = state.tables
    bias = w.black_bias if t.is_black[card] else 1.0
    return w.points * t.points[card] * bias + w.reward * t.reward_level[card]


class GreedyBot(Bot):
    name = "greedy"
    summary = (
        "plans completions with the tiling index, takes and works on the best points per "
        "action, knows the end game; presets balanced/engine/rush_black/cautious"
    )
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "preset": ("balanced", f"weights preset: {', '.join(PRESETS)}", OneOf(*PRESETS)),
        **{
            f.name: (getattr(Weights(), f.name), _WEIGHT_HELP[f.name], _WEIGHT_RANGE[f.name])
            for f in fields(Weights)
        },
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        preset = self.options["preset"]
        if preset not in PRESETS:
            raise UsageError(unknown_name("greedy preset", preset, PRESETS))
        overrides = {k: v for k, v in kwargs.items() if k != "preset"}
        self.weights = replace(PRESETS[preset], **overrides)
        for k in self.options:
            if k != "preset":
                self.options[k] = getattr(self.weights, k)

    def __repr__(self) -> str:
        preset = self.options["preset"]
        base = PRESETS[preset]
        changed = [f"preset={preset}"] if preset != "balanced" else []
        changed += [
            f"{f.name}={_fmt(getattr(self.weights, f.name))}"
            for f in fields(Weights)
            if getattr(self.weights, f.name) != getattr(base, f.name)
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    # -- decisions -----------------------------------------------------------------------------
    def act(self, view: GameState, rng: random.Random) -> Action:
        action = self.choose_with_insert(view)
        return action if action is not None else rng.choice(view.legal_actions(master="none"))

    def choose_with_insert(self, state: GameState) -> Action | None:
        """Return ``choose``'s action, as an Insert when Finesse Credits make that pay."""
        action = self.choose(state)
        fin = credits(state)
        if action is None or fin is None or fin.active[state.current] < state.rules.insert_cost:
            return action
        if not isinstance(action, (Place, Master, Ambassador)):
            return action
        t = state.tables
        filled = {card: f for card, f, _ in state.slots[state.current]}
        placements = (
            ((action.card, 0, action.mask),) if isinstance(action, Place) else action.placements
        )
        for card, _piece, mask in placements:
            filled[card] |= mask
        # a completion as an extra action leaves the turn's own action for more progress
        if any(filled[card] == t.recess[card] for card, _, _ in placements):
            return Insert(action)
        # progress on a plan pays when 2 Credits would still be left for a completing Insert
        if fin.active[state.current] >= 2 * state.rules.insert_cost:
            return Insert(action)
        return action

    def choose(self, state: GameState) -> Action | None:
        """Return the greedy action for the player to move (None: nothing sensible)."""
        w = self.weights
        model = cost_model(state)
        me = state.current
        done = completing_places(state)
        amb = ambassadors(state)
        multi = not state.master_used or (amb is not None and amb.held[me] > 0)
        if done:
            # Master (or an Ambassador) finishes several at once; else the most valuable one.
            if multi:
                master = self._multi(state, self._completing_placements(state))
                if master is not None:
                    return master
            return max(done, key=lambda a: _gain(state, a.card, w))
        left = actions_left_estimate(state, me, w)
        targets = self._targets(state, model, left)
        ghost = self._plan_ghost(state, model, targets, left)
        if ghost is not None:
            return ghost
        if multi:
            master = self._multi(state, self._plan_placements(state, model, targets))
            if master is not None:
                return master
        take = self._best_take(state, model, targets, left)
        if take is not None:
            return take
        live = [tg for tg in targets if tg.cost <= left]
        if live:
            best = max(live, key=lambda tg: (tg.rate, -tg.cost))
            if best.rate >= w.build or not self._spare_upgrade(state, best.need):
                action = self._work_on(state, model, best)
                if action is not None:
                    return action
        build = self._spare_upgrade(state, live[0].need if live else ())
        if build is not None:
            return build
        if state.basic_piece() is not None and sum(state.supply[me]) < 4:
            return TakeBasic()
        for colour in (0, 1):
            if state.rows[colour] and state.may_recycle():
                return Recycle(colour, state.rows[colour])
        return None

    def _targets(self, state: GameState, model: CostModel, left: int) -> list[_Target]:
        t = state.tables
        me = state.current
        out = []
        regions = [t.recess[card] & ~filled for card, filled, _ in state.slots[me]]
        plans = _in_plan_order(model, list(state.placeable_supply(me)), regions)
        for i, empty, cost, need in plans:
            card = state.slots[me][i][0]
            rate = _gain(state, card, self.weights) / max(1, cost) if cost < UNREACHABLE else 0.0
            if state.rules.unfinished_penalty:
                rate += t.points[card] / max(1, cost)  # finishing also saves the penalty
            out.append(_Target(card, empty, cost, need, rate))
        return out

    def _best_take(
        self, state: GameState, model: CostModel, targets: list[_Target], left: int
    ) -> Action | None:
        w = self.weights
        t = state.tables
        me = state.current
        held = len(state.slots[me])
        if held >= 4:
            return None
        supply = list(state.placeable_supply(me))
        for tg in targets:
            supply = [max(0, s - k) for s, k in zip(supply, tg.need, strict=True)]
        committed = sum(tg.cost for tg in targets if tg.cost <= left)
        best, best_rate = None, 0.0
        for a in state.take_actions():
            if not isinstance(a, Take):
                continue
            card = a.card
            if w.white_only and t.is_black[card]:
                continue
            cost, _ = model.cost(t.recess[card], supply)
            if w.risk * (1 + cost) + committed > left:
                continue  # rulings: an unfinished puzzle costs its points at the end
            rate = _gain(state, card, w) / (1 + cost)
            if rate > best_rate:
                best, best_rate = a, rate
        if best is None:
            return None
        held_rate = max((tg.rate for tg in targets if tg.cost <= left), default=0.0)
        if held < w.min_held or best_rate > held_rate:
            return best
        return None

    @staticmethod
    def _multi(state: GameState, placements: tuple[Placement, ...]) -> Master | Ambassador | None:
        """Return a Master of 2+ placements if Master is free this turn, else an Ambassador
        action if the player holds one, else None."""
        if len(placements) < 2:
            return None
        if not state.master_used:
            return Master(placements)
        amb = ambassadors(state)
        if amb is not None and amb.held[state.current]:
            return Ambassador(placements)
        return None

    def _plan_placements(
        self, state: GameState, model: CostModel, targets: list[_Target]
    ) -> tuple[Placement, ...]:
        """Return one plan step (its largest piece) for each target that can take one now."""
        t = state.tables
        left = list(state.placeable_supply(state.current))
        index = model.index
        chosen: list[Placement] = []
        for tg in targets:
            v = index.first(tg.empty, left)
            if v is None:
                continue
            steps = index._placements(tg.empty, v)
            piece, mask = max(steps, key=lambda s: t.levels[s[0]])
            left[piece] -= 1
            chosen.append((tg.card, piece, mask))
        return tuple(chosen)

    def _completing_placements(self, state: GameState) -> tuple[Placement, ...]:
        """Return one completing placement for each puzzle a supply piece completes."""
        t = state.tables
        me = state.current
        left = list(state.placeable_supply(me))
        chosen: list[Placement] = []
        for card, filled, _ in state.slots[me]:
            empty = t.recess[card] & ~filled
            for piece in t.cat.piece_of_mask.get(empty, ()):
                if left[piece]:
                    left[piece] -= 1
                    chosen.append((card, piece, empty))
                    break
        return tuple(chosen)

    def _work_on(self, state: GameState, model: CostModel, tg: _Target) -> Action | None:
        t = state.tables
        me = state.current
        supply = state.placeable_supply(me)
        index = model.index
        v = index.first(tg.empty, supply)
        if v is not None:
            steps = index._placements(tg.empty, v)
            piece, mask = max(steps, key=lambda s: (t.levels[s[0]], -s[1]))
            return Place(tg.card, piece, mask)
        return self._acquire(state, tg.need)

    def _acquire(self, state: GameState, need: tuple[int, ...]) -> Action | None:
        """Return the action that best moves the supply towards ``need``."""
        t = state.tables
        me = state.current
        supply = state.supply[me]
        levels = t.levels
        missing = [i for i, (k, s) in enumerate(zip(need, supply, strict=True)) if k > s]
        spares = [i for i, (k, s) in enumerate(zip(need, supply, strict=True)) if s > k]
        legal = set(state.upgrade_actions())
        # biggest missing piece first: it takes the longest to build
        for want in sorted(missing, key=lambda i: -levels[i]):
            # the spare whose level is closest below (or at) the wanted level
            for give in sorted(spares, key=lambda i: (abs(levels[want] - 1 - levels[i]), i)):
                a = Upgrade(give, want)
                if a in legal:
                    return a
            # climb one level towards it from the largest spare below
            below = [i for i in spares if levels[i] < levels[want] - 1]
            for give in sorted(below, key=lambda i: -levels[i]):
                for get in t.by_level.get(levels[give] + 1, ()):
                    a = Upgrade(give, get)
                    if a in legal:
                        return a
        if missing and state.basic_piece() is not None:
            return TakeBasic()
        return None

    def _spare_upgrade(self, state: GameState, need: tuple[int, ...]) -> Action | None:
        """Return an upgrade of the smallest spare piece one level up (engine building)."""
        t = state.tables
        supply = state.supply[state.current]
        need = need or (0,) * t.n_pieces
        legal = set(state.upgrade_actions())
        spares = [i for i, (k, s) in enumerate(zip(need, supply, strict=True)) if s > k]
        for give in sorted(spares, key=lambda i: t.levels[i]):
            for get in t.by_level.get(t.levels[give] + 1, ()):
                a = Upgrade(give, get)
                if a in legal:
                    return a
        return None

    # -- Ghost Piece --------------------------------------------------------------------------
    def _plan_cost(
        self, state: GameState, model: CostModel, supply: list[int], empties: list[int]
    ) -> int:
        """Return the actions the regions ``empties`` need with ``supply`` (cheapest first,
        each planned with what the cheaper ones leave, as ``_targets`` does)."""
        gs = ghosts(state)
        if gs is not None:
            supply = gs.placeable(supply)
        return sum(
            min(cost, UNREACHABLE) for _, _, cost, _ in _in_plan_order(model, supply, empties)
        )

    def _plan_ghost(
        self, state: GameState, model: CostModel, targets: list[_Target], left: int
    ) -> Ghost | None:
        """Return the Ghost action that most shortens the plans of the puzzles it can finish.

        For each ghost held and each take: the new pieces go into the held puzzles where their
        plan (with the supply after the exchange) uses one, the largest first, at most one per
        puzzle; the exchange is chosen when the plans then need fewer actions in all, the
        exchange itself included unless it is free.
        """
        gs = ghosts(state)
        live = [tg for tg in targets if tg.cost <= left]
        if gs is None or not live:
            return None
        me = state.current
        supply = state.supply[me]
        held = [g for g in gs.tables.ghosts if supply[g]]
        if not held:
            return None
        t = state.tables
        index = model.index
        empties = [tg.empty for tg in live]
        best: Ghost | None = None
        best_cost = self._plan_cost(state, model, list(supply), empties) - (0 if gs.free else 1)
        for g in held:
            for take in ghost_takes(state, g):
                after = list(supply)
                after[g] -= 1
                new = [0] * t.n_pieces
                for piece in take:
                    after[piece] += 1
                    new[piece] += 1
                chosen: list[Placement] = []
                rest = []
                for tg in live:
                    empty = tg.empty
                    v = index.first(empty, gs.placeable(after))
                    if v is not None:
                        steps = [s for s in index._placements(empty, v) if new[s[0]]]
                        if steps:
                            piece, mask = max(steps, key=lambda s: (t.levels[s[0]], -s[1]))
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
        t = view.tables
        me = view.current
        empties = [t.recess[card] & ~filled for card, filled, _ in view.slots[me]]

        def value(action: Action) -> tuple[float, int]:
            supply = list(view.supply[me])
            give, get = action.give, action.get  # type: ignore[union-attr]
            if give is not None and get is not None:
                supply[give] -= 1
                supply[get] += 1
            levels = sum(k * t.levels[i] for i, k in enumerate(supply))
            got = t.levels[get] if get is not None else 0
            return (-self._plan_cost(view, model, supply, empties) + 0.25 * levels, got)

        return max(level_up_actions(view), key=value)

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        levels = view.tables.levels
        return max(options, key=lambda p: (levels[p], -p))

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        best = max(finish_options(view), key=lambda a: finish_gain(view, a))  # type: ignore[arg-type]
        if finish_gain(view, best) <= 0:  # type: ignore[arg-type]
            return Finish(())
        return with_credits(view, best)  # type: ignore[arg-type]


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)
