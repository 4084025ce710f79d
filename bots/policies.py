"""Four policies that play differently from ``greedy``, each by changing some of its steps.

Each is a ``GreedyBot`` that replaces one or two steps of ``GreedyBot.choose`` with its own plan,
and keeps the rest (completions, the end game, Finishing Touches, every expansion and variant):

- ``builder``, an engine builder: while the end is far and its pieces are few, it plans each held
  puzzle with the tiling that needs the fewest placements even if it lacks the pieces, and gets
  them first (Upgrades, level-1 takes), since a piece built stays in the supply for every later
  puzzle; it values puzzles' reward pieces more and upgrades its spare pieces.
- ``rusher``, a black rusher: it takes black puzzles only (a white one only when its own pieces
  finish it in one or two placements), builds its pieces up towards level 4 for them, and draws a
  black puzzle blind when the unseen black puzzles promise more than the face-up ones.
- ``setter``, a Master setter: it holds three or four puzzles and brings them to one-piece gaps,
  holding back a lone completion while another held puzzle can be set to its last piece this turn,
  so that one Master completes several puzzles at once.
- ``recycler``, a digger: it takes the puzzles that its pieces fill as they are (no upgrades
  needed), and when no face-up puzzle does while fresh cards promise more, it Recycles the row.

They are registered in ``bots.REGISTRY``; ``benchmarks/bots.py --sections policies`` plays the
round robin and prints their action mix per game.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from bots._state import TAKE_BASIC, solo_table
from bots.greedy import (
    POLICY_SOLO_WEIGHTS,
    SOLO_PARAMS,
    GreedyBot,
    Target,
    gain,
    spare_supply,
    upgrade_pairs,
    weight_params,
)
from bots.heuristics import UNREACHABLE, CostModel, Weights, remaining_actions
from bots.params import OneOf, Param, Range
from bots.random_bot import completing_places
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action, Placement, Recycle, Take, TakeDeck

_SCAN: Final = 24  # tilings looked at per region, cheapest first (as the cost model does)
_BLACK: Final = 1  # the black row and deck (projectl_sim.engine.actions.BLACK)
# each policy's weights (the greedy weights it starts from)
_BUILDER: Final = Weights(reward=0.7)
_RUSHER: Final = Weights(reward=0.2, min_held=2)
_SETTER: Final = Weights(min_held=3, risk=1.2)
_RECYCLER: Final = Weights()


def _one_preset(weights: Weights) -> dict[str, Weights]:
    return {"standard": weights}


def _policy_params(weights: Weights, extra: dict[str, Param]) -> dict[str, Param]:
    """Return a policy's params: its one preset, the greedy weights (its defaults), solo's and
    its own."""
    return {
        "preset": ("standard", "weights preset: standard (its own weights)", OneOf("standard")),
        **weight_params(weights),
        **SOLO_PARAMS,
        **extra,
    }


def owned_cells(state: GameState, model: CostModel, player: int) -> int:
    """Return the cells of ``player``'s pieces, in the supply and placed in held puzzles."""
    levels = model.levels
    cells = 0
    for i, c in enumerate(state.supply[player]):
        cells += c * levels[i]
    for _, _, placed in state.slots[player]:
        for piece, _ in placed:
            cells += levels[piece]
    return cells


def invested_plan(
    model: CostModel, empty: int, supply: list[int], invest: float
) -> tuple[float, tuple[int, ...], int]:
    """Return ``(score, need, acquisitions)`` of the tiling of ``empty`` an engine builder plans.

    Over the cheapest tilings: placements, plus the acquisitions of the pieces the supply lacks
    (as ``CostModel`` counts them: an Upgrade per level climbed from the best spare, a level-1
    take and climbs from nothing), less ``invest`` per level the acquisitions add to the supply
    for good (the pieces come back when the puzzle is completed).
    """
    index = model.index
    levels = model.levels
    n = model.n
    best: tuple[float, tuple[int, ...], int] = (float(UNREACHABLE), model.zero, 0)
    vecs = index.vectors(empty)
    for j in range(min(_SCAN, len(vecs))):
        v = vecs[j]
        need = index.unpack(v)
        if any(need[g] > supply[g] for g in model.ghosts):
            continue  # a ghost can't be had by an action
        spare = [0] * (model.max_level + 1)
        for i in range(n):
            if supply[i] > need[i]:
                spare[levels[i]] += supply[i] - need[i]
        extra = gained = 0
        top = model.max_level
        for i in range(n):
            missing = need[i] - supply[i]
            lv = levels[i]
            for _ in range(missing if missing > 0 else 0):
                while top > 0 and spare[top] == 0:
                    top -= 1
                if top > 0:
                    spare[top] -= 1
                    extra += max(1, lv - top)
                    gained += max(0, lv - top)
                else:
                    extra += lv
                    gained += lv
        score = index.size(v) + extra - invest * gained
        if score < best[0]:
            best = (score, need, extra)
    return best


@mypyc_attr(allow_interpreted_subclasses=True)
class BuilderBot(GreedyBot):
    name = "builder"
    summary = (
        "engine builder: while the end is far and its pieces few, gets the pieces of each held "
        "puzzle's fewest-placements plan first (Upgrades, level-1 takes), values reward pieces"
    )
    params: ClassVar[dict[str, Param]] = _policy_params(
        _BUILDER,
        {
            "invest": (0.6, "actions a level of pieces gained for good is worth", Range(0.0, 5.0)),
            "engine": (20, "cells of pieces owned at which it stops investing", Range(0, 200)),
            "until": (3, "the last round in which it invests", Range(0, 100)),
            "pieces": (3, "while investing, take a level-1 piece when it owns fewer", Range(0, 30)),
        },
    )
    solo_overrides: ClassVar[dict[str, Any]] = POLICY_SOLO_WEIGHTS
    presets: ClassVar[dict[str, Weights]] = _one_preset(_BUILDER)

    def _investing(self, state: GameState, model: CostModel) -> bool:
        """Return whether it still builds its engine: end not triggered, pieces below target."""
        if remaining_actions(state, state.current) is not None:
            return False
        if state.round > int(self.options["until"]):
            return False
        return owned_cells(state, model, state.current) < int(self.options["engine"])

    def _prepare(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Action | None:
        if not self._investing(state, model):
            return None
        invest = float(self.options["invest"])
        me = state.current
        if sum(state.supply[me]) < int(self.options["pieces"]) and state.basic_piece() is not None:
            return TAKE_BASIC  # raw material: a level-1 piece to climb later
        supply = list(state.placeable_supply(me))
        # the held puzzles by rate: the first whose invested plan lacks pieces gets them now
        for tg in sorted(targets, key=lambda tg: -tg.rate):
            if tg.cost > left:
                continue
            _, need, extra = invested_plan(model, tg.empty, supply, invest)
            if extra:
                action = self._acquire(state, model, need)
                if action is not None:
                    return action
            # its plan's pieces are set aside for it; the next puzzle plans with the rest
            supply = [max(0, s - k) for s, k in zip(supply, need, strict=True)]
        return None

    def _fallback(self, state: GameState, model: CostModel, live: list[Target]) -> Action | None:
        if self._investing(state, model):
            # more pieces to build on: a level-1 piece while it has few, else climb a spare one
            me = state.current
            if state.basic_piece() is not None and sum(state.supply[me]) < 5:
                return TAKE_BASIC
        return super()._fallback(state, model, live)


@mypyc_attr(allow_interpreted_subclasses=True)
class RusherBot(GreedyBot):
    name = "rusher"
    summary = (
        "black rusher: takes black puzzles only (quick whites aside), builds level-4 pieces for "
        "them, draws black blind when the unseen black puzzles promise more than the row"
    )
    params: ClassVar[dict[str, Param]] = _policy_params(
        _RUSHER,
        {
            "quick": (
                2,
                "a white puzzle is taken only if this many placements finish it",
                Range(0, 25),
            ),
            "tetrominoes": (3, "level-4 pieces it builds towards before the end", Range(0, 15)),
        },
    )
    solo_overrides: ClassVar[dict[str, Any]] = POLICY_SOLO_WEIGHTS
    presets: ClassVar[dict[str, Weights]] = _one_preset(_RUSHER)

    def _take_rate(self, state: GameState, model: CostModel, card: int, cost: int) -> float:
        t = model.tab
        if not t.is_black[card]:
            # a white puzzle only as a quick filler: its own pieces finish it in a few placements
            supply = list(state.placeable_supply(state.current))
            v = model.first(t.recess[card], supply)
            if v is None or model.index.size(v) > int(self.options["quick"]):
                return 0.0
        return gain(model, card, self.weights) / (1 + cost)

    def _take(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Action | None:
        take = super()._take(state, model, targets, left)
        if solo_table(state) is not None or len(state.slots[state.current]) >= state.max_unfinished:
            return take
        blind = None
        for a in state.take_actions():
            if isinstance(a, TakeDeck) and a.colour == _BLACK:
                blind = a
        if blind is None:
            return take
        # the face-up black puzzles' best rate against the mean rate of an unseen black one
        me = state.current
        supply = spare_supply(model, state.placeable_supply(me), targets)
        committed = sum(tg.cost for tg in targets if tg.cost <= left)
        t = model.tab
        row_best = 0.0
        for c in state.rows[_BLACK]:
            cost = model.cost(t.recess[c], supply)[0]
            if committed + 1 + cost <= left:
                row_best = max(row_best, gain(model, c, self.weights) / (1 + cost))
        unseen = state.unseen_cards(_BLACK)
        if not unseen:
            return take
        total = 0.0
        for c in unseen:
            cost = model.cost(t.recess[c], supply)[0]
            if committed + 1 + cost <= left:
                total += gain(model, c, self.weights) / (1 + cost)
        blind_rate = total / len(unseen)
        held = len(state.slots[me])
        # a take is due (greedy's step chose one, or too few are held): blind beats the row
        if blind_rate > row_best and (take is not None or held < self.weights.min_held):
            return blind
        return take

    def _fallback(self, state: GameState, model: CostModel, live: list[Target]) -> Action | None:
        # nothing to place or take: climb a spare piece towards level 4 (black puzzles need them)
        t = model.tab
        me = state.current
        supply = state.supply[me]
        level4 = sum(supply[p] for p in t.by_level.get(4, ()))
        if remaining_actions(state, me) is None and level4 < int(self.options["tetrominoes"]):
            legal = upgrade_pairs(state)
            need = live[0].need if live else model.zero
            spares = [i for i in range(t.n_pieces) if supply[i] > need[i] and t.levels[i] < 4]
            for give in sorted(spares, key=lambda i: -t.levels[i]):
                for get in t.by_level.get(t.levels[give] + 1, ()):
                    if (give, get) in legal:
                        return t.upgrades[give][get]
            if state.basic_piece() is not None and sum(supply) < 4:
                return TAKE_BASIC
        return super()._fallback(state, model, live)


@mypyc_attr(allow_interpreted_subclasses=True)
class SetterBot(GreedyBot):
    name = "setter"
    summary = (
        "Master setter: holds 3-4 puzzles, brings them to one-piece gaps and holds back a lone "
        "completion so that one Master completes several"
    )
    params: ClassVar[dict[str, Param]] = _policy_params(_SETTER, {})
    solo_overrides: ClassVar[dict[str, Any]] = POLICY_SOLO_WEIGHTS
    presets: ClassVar[dict[str, Weights]] = _one_preset(_SETTER)

    def _complete_now(self, state: GameState, model: CostModel, multi: bool) -> Action | None:
        done = completing_places(state)
        if not done:
            return None
        completing = self._completing_placements(state, model)
        if multi and len(completing) >= 2:
            return self._multi(state, completing)
        # one completion only: while the turn's Master is free and an action is left after the
        # next one, set another puzzle to a one-piece gap first; the Master then completes both
        if not state.master_used and state.actions_left >= 2:
            step = self._gap_step(state, model, completing)
            if step is not None:
                return step
        return super()._complete_now(state, model, multi)

    def _master_step(
        self, state: GameState, model: CostModel, targets: list[Target]
    ) -> Action | None:
        # a Master of two pieces waits while the turn has another action to set a third puzzle
        # (take one, or bring one to a plan step): a Master of 3-4 pieces is 3-4 placements in
        # one action
        placements = self._plan_placements(state, model, targets)
        wait = (
            len(placements) == 2
            and len(state.slots[state.current]) >= 3
            and state.actions_left >= 2
            and not state.master_used
        )
        if wait:
            return None
        return self._multi(state, placements)

    def _gap_step(
        self, state: GameState, model: CostModel, completing: tuple[Placement, ...]
    ) -> Action | None:
        """Return a Place that leaves a held puzzle one piece short, with that piece (and the
        pieces of ``completing``) still in the supply afterwards; None if there is none."""
        t = model.tab
        me = state.current
        left = list(state.placeable_supply(me))
        for _, piece, _ in completing:
            left[piece] -= 1
        done = {card for card, _, _ in completing}
        for card, filled, _ in state.slots[me]:
            if card in done:
                continue
            empty = t.recess[card] & ~filled
            v = model.first(empty, left)
            if v is None or model.index.size(v) != 2:
                continue
            steps = model.placements(empty, v)
            for piece, mask in steps:
                rest = empty & ~mask
                after = list(left)
                after[piece] -= 1
                if any(after[p] > 0 for p in t.piece_of_mask.get(rest, ())):
                    return t.place(card, piece, mask)
        return None


@mypyc_attr(allow_interpreted_subclasses=True)
class RecyclerBot(GreedyBot):
    name = "recycler"
    summary = (
        "digger: takes puzzles its pieces fill as they are, and Recycles a row when no face-up "
        "puzzle fits while fresh cards promise more"
    )
    params: ClassVar[dict[str, Param]] = _policy_params(
        _RECYCLER,
        {
            "fit": (
                1.0,
                "bonus on the rate of a puzzle its pieces fill as they are",
                Range(0.0, 10.0),
            ),
            "dig": (
                1.3,
                "recycle when fresh cards promise this many times the row's best",
                Range(1.0, 10.0),
            ),
        },
    )
    solo_overrides: ClassVar[dict[str, Any]] = POLICY_SOLO_WEIGHTS
    presets: ClassVar[dict[str, Weights]] = _one_preset(_RECYCLER)

    def _take_rate(self, state: GameState, model: CostModel, card: int, cost: int) -> float:
        rate = gain(model, card, self.weights) / (1 + cost)
        supply = list(state.placeable_supply(state.current))
        if model.first(model.tab.recess[card], supply) is not None:
            rate *= 1.0 + float(self.options["fit"])  # filled as it is: no upgrade on the way
        return rate

    def _take(
        self, state: GameState, model: CostModel, targets: list[Target], left: int
    ) -> Action | None:
        take = super()._take(state, model, targets, left)
        me = state.current
        if (
            solo_table(state) is not None
            or not state.may_recycle()
            or len(state.slots[me]) >= state.max_unfinished
            or remaining_actions(state, me) is not None
        ):
            return take
        # the rate a row's best fitting puzzle offers, against the mean of the unseen cards of
        # its colour (what a Recycle reveals): dig the row where fresh cards promise the most
        supply = spare_supply(model, state.placeable_supply(me), targets)
        t = model.tab
        best_colour, best_gain = -1, 0.0
        for colour in (0, 1):
            row = state.rows[colour]
            if not row or len(state.decks[colour]) < len(row):
                continue
            row_best = 0.0
            for c in row:
                cost = model.cost(t.recess[c], supply)[0]
                row_best = max(row_best, self._take_rate(state, model, c, cost))
            unseen = state.unseen_cards(colour)
            if not unseen:
                continue
            fresh = 0.0
            for c in unseen:
                cost = model.cost(t.recess[c], supply)[0]
                fresh += self._take_rate(state, model, c, cost)
            fresh /= len(unseen)
            if fresh > float(self.options["dig"]) * row_best and fresh - row_best > best_gain:
                best_colour, best_gain = colour, fresh - row_best
        if best_colour < 0:
            return take
        if take is not None and isinstance(take, Take):
            rate = self._take_rate(state, model, take.card, 0)
            held_fit = rate > 0 and model.first(t.recess[take.card], supply) is not None
            if held_fit:
                return take  # a fitting puzzle is face up: take it
        return Recycle(best_colour, state.rows[best_colour])


POLICIES: Final[tuple[Any, ...]] = (BuilderBot, RusherBot, SetterBot, RecyclerBot)
