"""Heuristic knowledge shared by the greedy and MCTS bots.

- ``completion_cost``: how many actions a puzzle still needs (placements plus the upgrades or
  takes to get missing pieces), from the tiling index.
- ``Weights``: the greedy family's named weights.
- ``remaining_actions``: how many actions a player has left, once the end is triggered.
- ``candidate_actions``: the few actions worth considering (a plan's placements instead of every
  placement, one order per Recycle, upgrades that climb, a Master built from one plan step per
  puzzle, and the same placements as an Ambassador action while the player holds one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from projectl_sim.engine import OVER, GameState
from projectl_sim.engine.actions import (
    BLACK,
    Action,
    Master,
    Place,
    Placement,
    Recycle,
    TakeBasic,
    TakeDeck,
    Upgrade,
)
from projectl_sim.expansions.ambassador_pack import Ambassador, ambassadors
from projectl_sim.expansions.finesse import last_round
from projectl_sim.fill import TilingIndex, tiling_index
from projectl_sim.variants import line_clear
from projectl_sim.variants.line_clear import LineClearState

# How many of a recess's tilings (cheapest first) the cost estimate looks at.
_SCAN = 24
_CACHE_CAP = 200_000
UNREACHABLE = 99


@dataclass(frozen=True)
class Weights:
    """The greedy family's named weights (all in victory points)."""

    points: float = 1.0  # per point of a completed puzzle
    reward: float = 0.5  # per level of a puzzle's reward piece
    black_bias: float = 1.0  # multiplier on black puzzles' points
    white_only: bool = False  # never take a black puzzle
    risk: float = 1.0  # safety factor on the actions a new puzzle needs before the end
    horizon: int = 6  # fewest actions assumed left before the end is triggered
    min_held: int = 2  # keep at least this many puzzles in progress
    build: float = 0.0  # rate (points per action) below which spare pieces are upgraded first


class CostModel:
    """Cached completion costs for one catalogue."""

    def __init__(self, index: TilingIndex) -> None:
        self.index = index
        self.levels = index._levels
        self.n = len(self.levels)
        # Ghost Piece: a ghost comes only as a reward, never from an action
        self.ghosts = index.cat.ghost_pieces
        self._cache: dict[tuple[int, bytes], tuple[int, tuple[int, ...]]] = {}

    def cost(self, empty: int, supply: Sequence[int]) -> tuple[int, tuple[int, ...]]:
        """Return (actions to complete ``empty``, the pieces of the tiling it plans with)."""
        if not empty:
            return 0, (0,) * self.n
        key = (empty, bytes(min(c, 255) for c in supply))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        index = self.index
        v = index.first(empty, supply)
        if v is not None:
            need = index.unpack(v)
            result = (sum(need), need)
        else:
            result = self._with_acquisitions(empty, supply)
        if len(self._cache) > _CACHE_CAP:
            self._cache.clear()
        self._cache[key] = result
        return result

    def _with_acquisitions(self, empty: int, supply: Sequence[int]) -> tuple[int, tuple[int, ...]]:
        # Each missing piece of level L costs one Upgrade from a spare piece one level below (or
        # an exchange at the same level), more from lower spares, and L actions from nothing
        # (take a level-1 piece, then upgrade it L-1 times).
        index = self.index
        levels = self.levels
        best = UNREACHABLE
        best_need: tuple[int, ...] = (0,) * self.n
        for v in index.vectors(empty)[:_SCAN]:
            need = index.unpack(v)
            placements = sum(need)
            if placements >= best:
                break
            if any(need[g] > supply[g] for g in self.ghosts):
                continue  # a ghost it lacks can't be had by an action
            spare = [s - k if s > k else 0 for s, k in zip(supply, need, strict=True)]
            spare_levels = sorted(
                (levels[i] for i, c in enumerate(spare) for _ in range(c)), reverse=True
            )
            extra = 0
            for i, (k, s) in enumerate(zip(need, supply, strict=True)):
                for _ in range(k - s if k > s else 0):
                    top = spare_levels.pop(0) if spare_levels else 0
                    extra += max(1, levels[i] - top) if top else levels[i]
            total = placements + extra
            if total < best:
                best = total
                best_need = need
        return best, best_need


_MODELS: dict[int, CostModel] = {}


def cost_model(state: GameState) -> CostModel:
    """Return the cost model of a state's catalogue (one per catalogue)."""
    cat = state.rules.catalogue
    model = _MODELS.get(id(cat))
    if model is None or model.index.cat is not cat:
        model = _MODELS[id(cat)] = CostModel(tiling_index(cat))
    return model


def remaining_actions(state: GameState, player: int) -> int | None:
    """Return the actions ``player`` has left before the game ends, or None before the trigger."""
    if state.phase == OVER:
        return 0
    if isinstance(state, LineClearState):  # the markers' schedule decides (Finesse too)
        return line_clear.remaining_actions(state, player, last_round(state))
    last = state.trigger_round + 1 if state.trigger_round else None
    finesse_end = last_round(state)  # rulings, Finesse: the game also ends after round 10
    if finesse_end is not None:
        last = finesse_end if last is None else min(last, finesse_end)
    if last is None:
        return None
    n = state.n
    rounds_after = last - state.round
    pos = (player - state.first_player) % n
    cur = (state.current - state.first_player) % n
    if pos == cur:
        return state.actions_left + 3 * rounds_after
    if pos > cur:
        return 3 * (rounds_after + 1)
    return 3 * rounds_after


def actions_left_estimate(state: GameState, player: int, w: Weights) -> int:
    """Return the actions ``player`` has left: exact after the trigger, estimated before."""
    left = remaining_actions(state, player)
    if left is not None:
        return left
    # Before the trigger, estimate the rounds until it from the cards left in the deck that
    # triggers it: greedy play draws about 0.35 black cards per player per round; in solo the
    # mastermind takes one each round and the player about 0.6.
    per_round = 1.6 if state.rules.solo else 0.35 * state.n
    estimate = int(3 * (state.cards_to_trigger() / per_round + 1))
    return max(w.horizon, estimate)


def plan_places(state: GameState, model: CostModel) -> list[Place]:
    """Return the placements of each puzzle's cheapest plan with the current supply.

    A puzzle the supply can't complete offers the placements that keep it completable with the
    pieces owned or left in the reserve.
    """
    t = state.tables
    p = state.current
    supply = state.placeable_supply(p)
    index = model.index
    out: list[Place] = []
    seen: set[Place] = set()
    avail = [s + r for s, r in zip(supply, state.reserve, strict=True)]
    for card, filled, _ in state.slots[p]:
        empty = t.recess[card] & ~filled
        v = index.first(empty, supply)
        if v is not None:
            for piece, mask in index._placements(empty, v):
                a = Place(card, piece, mask)
                if a not in seen:
                    seen.add(a)
                    out.append(a)
            continue
        for piece, masks in enumerate(t.cat.fits_in(t.recess[card], empty)):
            if not supply[piece]:
                continue
            for mask in masks:
                rest = empty ^ mask
                if not rest or index.first(rest, avail) is not None:
                    out.append(Place(card, piece, mask))
    return out


def plan_master(state: GameState, model: CostModel) -> Master | None:
    """Return a Master of one plan placement per puzzle (largest piece first), if 2+ fit."""
    t = state.tables
    p = state.current
    left = list(state.placeable_supply(p))
    index = model.index
    chosen: list[Placement] = []
    for card, filled, _ in state.slots[p]:
        empty = t.recess[card] & ~filled
        v = index.first(empty, left)
        if v is None:
            continue
        steps = index._placements(empty, v)
        piece, mask = max(steps, key=lambda s: t.levels[s[0]])
        left[piece] -= 1
        chosen.append((card, piece, mask))
    return Master(tuple(chosen)) if len(chosen) >= 2 else None


def candidate_actions(state: GameState, w: Weights, model: CostModel) -> list[Action]:
    """Return the actions worth considering now (a narrowing of the legal Play actions)."""
    acts: list[Action] = []
    blind: list[Action] = []
    for a in state.take_actions():
        if isinstance(a, TakeDeck):
            if not (w.white_only and a.colour == BLACK):
                blind.append(a)
        elif not (w.white_only and state.tables.is_black[a.card]):  # type: ignore[union-attr]
            acts.append(a)
    if not acts:
        acts.extend(blind[:1])  # a blind draw only when no face-up puzzle is wanted
    for colour in (0, 1):
        if state.rows[colour] and state.may_recycle():
            acts.append(Recycle(colour, state.rows[colour]))
    if state.basic_piece() is not None:
        acts.append(TakeBasic())
    # Upgrades that climb a level (or two, by the shortage ruling): exchanges and downgrades are
    # rarely the best action (under 5% of searched positions), and the greedy plan that needs
    # one proposes it itself.
    levels = state.tables.levels
    acts.extend(
        a
        for a in state.upgrade_actions()
        if isinstance(a, Upgrade) and levels[a.get] > levels[a.give]
    )
    acts.extend(plan_places(state, model))
    amb = ambassadors(state)
    held = amb is not None and amb.held[state.current] > 0
    if not state.master_used or held:
        m = plan_master(state, model)
        if m is not None:
            if not state.master_used:
                acts.append(m)
            if held:
                acts.append(Ambassador(m.placements))  # Ambassador Pack: the same placements
    return acts
