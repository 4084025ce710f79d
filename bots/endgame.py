"""Solo's last actions, searched exactly.

Once the solo deck is empty nothing is hidden and nothing is left to chance: the grid no longer
refills and the mastermind's takes follow from the table. The player's last actions are then a
one-player planning problem, and ``solo_endgame`` solves it by searching every sequence of them
down to the Finishing Touches (scored as the bots play them: the option that gains the most
points). A sequence is worth a win first (the rulings: a tie goes to the mastermind), then the
player's final score, then the fewest points for the mastermind. Finesse Solo mostly ends at
round 10 with cards left in the deck: its last turn is searched on one re-deal of the unseen cards
(``bots._state.determinize``). The player's score does not depend on them (blind draws are not
tried); only the mastermind's last takes can, through the refills of the grid.

The actions tried: every Play action but an Insert (Finesse), a blind draw and a Place; as
Places, those of each held puzzle's cheapest plan (``heuristics.plan_places``); as Masters, those
of 2+ puzzles that give each puzzle one of its ``TOP`` best Places (by their value alone) or none.
Measured on 100 deals, the plans' Places scored as many points as every Place (17.35 and 17.30 a
game) in half the time; on 20 deals the Masters lost one point in one game against every Master,
a hundred times faster. Without the search greedy ends its solo games with Upgrades that change
nothing and puzzles left to the Finishing Touches: with it (the last 2 actions), on 300 deals,
15.7 -> 17.7 points and 5.7% -> 13.0% wins with the same weights; in Finesse Solo, on 100 deals
with today's weights, 19.4 -> 21.1 points and 8% -> 24% wins.

In any other phase than Play (a reward, Ghost Piece's Level Up) every legal action is tried. The
search is bounded by ``BUDGET`` (work, not time): past it, ``solo_endgame`` gives no action.
"""

from __future__ import annotations

import random
from typing import Final

from bots._state import active_credits, determinize, solo_table
from bots.heuristics import cost_model, plan_places, remaining_actions
from bots.random_bot import finish_gain
from projectl_sim.engine import FINISHING, OVER, PLAY, GameState, finish_options
from projectl_sim.engine.actions import Action, Finish, Master, Place, Placement

TOP: Final = 2  # a Master is tried with each puzzle's 2 best Places (by their value alone)
_WIN: Final = 1000.0  # a win is worth more than any score
_RIVAL: Final = 0.01  # a point of the mastermind's, against one of the player's
# not tried: Inserts, blind draws (none once the deck is empty), and Places but the plans' (below)
_NOT_TRIED: Final = frozenset({"insert", "take_deck", "place"})
# The search's budget, in work: positions searched plus Finishing Touches options scored. A
# search that would go past it stops there and gives no action: the bot decides as it does before
# its last turn, and searches again at its next decision, one action shorter. Counted in work,
# never in time, so a game plays the same on any machine. Measured (greedy, seeds 10000-11999):
# the largest of the 4,000 searches of 2,000 base solo deals took 51,618 (median 878), so base
# solo plays as it did without a budget; with Ghost Piece 15 of 235 searches in 100 deals went
# past 20,000, the largest past 1,000,000 (its Level Up rewards and ghost exchanges multiply the
# last actions). About 10-25 us of CPU a unit: benchmarks/decisions.py prints the decisions.
BUDGET: Final = 60_000


class OutOfBudget(Exception):
    """The search went past its budget (caught by ``solo_endgame``)."""


class _Search:
    """One search's memory of scored Finishing Touches positions, and its work left."""

    def __init__(self, budget: int) -> None:
        self.seen: dict[tuple[object, ...], float] = {}
        self.left = budget

    def spend(self, work: int) -> None:
        self.left -= work
        if self.left < 0:
            raise OutOfBudget


def endgame_applies(state: GameState, depth: int) -> bool:
    """Return whether ``state`` is solo with at most ``depth`` actions left (its last turn)."""
    if depth <= 0 or solo_table(state) is None:
        return False
    left = remaining_actions(state, state.current)
    return left is not None and left <= depth


def solo_endgame(
    view: GameState, rng: random.Random, depth: int, budget: int = BUDGET
) -> Action | None:
    """Return the action of the best sequence of the player's last actions, when at most
    ``depth`` are left in a solo game (None: not the end, no choice, or a search that would
    take more than ``budget`` work: see ``BUDGET``).

    In the Reward phase the action is the best reward. With cards left in the deck (Finesse
    Solo's round 10), the search plays on one re-deal of what the view hides, drawn with ``rng``.
    ``view`` is not changed.
    """
    if not endgame_applies(view, depth):
        return None
    world = determinize(view, rng) if view.cards_to_trigger() else view
    try:
        return best_ending(world, budget)[1]
    except OutOfBudget:
        return None


def best_ending(state: GameState, budget: int = BUDGET) -> tuple[float, Action | None]:
    """Return the value of the best sequence of the player's last actions, and its action.

    Raises ``OutOfBudget`` when that takes more than ``budget`` work (see ``BUDGET``).
    """
    return _search(state, state.current, _Search(budget))


def ending_work(state: GameState, budget: int = BUDGET) -> int | None:
    """Return the work the search of ``state``'s last actions takes (None: more than
    ``budget``), as ``BUDGET`` counts it."""
    search = _Search(budget)
    try:
        _search(state, state.current, search)
    except OutOfBudget:
        return None
    return budget - search.left


def ending_value(state: GameState, me: int) -> float:
    """Return what an ended game, or one at its Finishing Touches, is worth to ``me``."""
    return _value(state, me, _Search(1 << 62))


def _value(state: GameState, me: int, search: _Search) -> float:
    """``ending_value``; ``search.seen`` keeps the values of the Finishing Touches positions
    already scored (their options are most of the search's time, and many sequences end in the
    same position)."""
    rival = float(state.opponent_score())
    key: tuple[object, ...] = ()
    if state.phase == OVER:
        mine = float(state.final_scores()[me])
    else:
        key = (
            tuple([(card, filled) for card, filled, _ in state.slots[me]]),
            tuple(state.supply[me]),
            state.scores[me],
            state.ft_pieces[me],
            active_credits(state, me),
            rival,
        )
        known = search.seen.get(key)
        if known is not None:
            return known
        best = 0
        options = finish_options(state)
        search.spend(len(options))
        for a in options:
            assert isinstance(a, Finish)
            g = finish_gain(state, a)
            if g > best:
                best = g
        penalty = 0
        if state.rules.unfinished_penalty:
            points = state.tables.points
            for card, _, _ in state.slots[me]:
                penalty += points[card]
        mine = float(state.scores[me] - penalty - state.ft_pieces[me] + best)
    value = (_WIN if mine > rival else 0.0) + mine - _RIVAL * rival
    if key:
        search.seen[key] = value
    return value


def _search(state: GameState, me: int, search: _Search) -> tuple[float, Action | None]:
    search.spend(1)
    if state.phase in (OVER, FINISHING):
        return _value(state, me, search), None
    if state.phase != PLAY:  # a reward, an expansion's phase (Ghost Piece's Level Up): all
        acts = state.legal_actions()
    else:
        acts = [a for a in state.legal_actions(master="none") if a.kind not in _NOT_TRIED]
        acts.extend(plan_places(state, cost_model(state)))
    best_value = -_WIN
    best: Action | None = None
    per_card: dict[int, list[tuple[float, Place]]] = {}
    for a in acts:
        after = state.copy()
        after.apply(a)
        v = _search(after, me, search)[0]
        if best is None or v > best_value:
            best, best_value = a, v
        if isinstance(a, Place):
            per_card.setdefault(a.card, []).append((v, a))
    if state.phase == PLAY and not state.master_used and len(per_card) > 1:
        for m in _masters(state, per_card):
            after = state.copy()
            after.apply(m)
            v = _search(after, me, search)[0]
            if v > best_value:
                best, best_value = m, v
    return best_value, best


def _masters(state: GameState, per_card: dict[int, list[tuple[float, Place]]]) -> list[Master]:
    """Return the Masters of 2+ puzzles, each given one of its ``TOP`` best Places or none."""
    options: list[list[Place]] = []
    for places in per_card.values():
        ranked = sorted(places, key=lambda vp: -vp[0])
        options.append([p for _, p in ranked[:TOP]])
    supply = state.placeable_supply(state.current)
    out: list[Master] = []
    chosen: list[Placement] = []
    used = [0] * len(supply)

    def go(i: int) -> None:
        if i == len(options):
            if len(chosen) >= 2:
                out.append(Master(tuple(chosen)))
            return
        go(i + 1)
        for p in options[i]:
            if used[p.piece] < supply[p.piece]:
                used[p.piece] += 1
                chosen.append((p.card, p.piece, p.mask))
                go(i + 1)
                chosen.pop()
                used[p.piece] -= 1

    go(0)
    return out
