"""What the learned evaluation sees of a position: a short vector of numbers, from one seat's
public view.

``position_features(state, player, hidden)`` describes the game as ``player`` may know it: the
game's stage and kind, ``player``'s own position, the strongest rival's (by the points banked and
the discounted points of held puzzles) and, at 3 or more players, the rivals' mean. A rival
whose victory pile the rules hide (``hidden``, from ``hidden_piles``) is credited its completed
cards times ``per_card``, the mean points of the cards nobody can see (``mean_unseen_points``),
never the pile itself, so a determinized world (whose hidden piles hold guessed cards) gives the
same features as the view it was dealt from. Nothing else is hidden in a view: supplies, held
puzzles, rows and the expansions' blocks are public.

Every rule parameter comes from the rules in force (``remaining_actions`` and
``actions_left_estimate`` read the end's schedule, the tables the catalogue); ``FEATURE_VERSION``
changes whenever the vector's meaning does, and a model file names the version it was trained on.

Compiled with mypyc (``_native.MODULES``): the value bot and the search's leaves call it for
every candidate position.
"""

from __future__ import annotations

from typing import Final

from bots._state import (
    OVER,
    active_credits,
    ambassadors_held,
    ghost_pieces_of,
    plays_finesse,
    plays_line_clear,
    solo_table,
    solo_unlock_takes,
)
from bots.heuristics import UNREACHABLE, CostModel, Weights, actions_left_estimate, cost_model
from bots.heuristics import remaining_actions as _remaining
from bots.solo_sense import mastermind_forecast
from projectl_sim.engine import HIDDEN, GameState
from projectl_sim.engine.state import Slot

# 2: solo's rival block holds the mastermind's coming takes (held_value: its next take;
# reachable_points: its takes over the player's turns left), as greedy's solo takes count them
FEATURE_VERSION: Final = 2
_DISCOUNT: Final = 0.85  # per action a held puzzle still needs (its points and reward, discounted)
_ESTIMATE: Final = Weights()  # the estimate of the actions left before the trigger (horizon 6)

# Per seat: the same block for the player, the strongest rival and (3+ players) the rivals' mean.
SEAT_FEATURES: Final = (
    "banked",  # points in the victory pile (a hidden pile: its cards times the unseen mean)
    "completed",  # puzzles completed
    "supply_levels",  # the levels of the pieces in the supply
    "supply_pieces",  # pieces in the supply
    "big_pieces",  # pieces of level 3 or more
    "held",  # unfinished puzzles held
    "held_points",  # their points
    "held_reward",  # their reward pieces' levels
    "held_cost",  # the actions their plans need (cheapest first)
    "held_value",  # points and half the reward levels, discounted per action needed
    "reachable_points",  # points of the held puzzles finishable in the actions left
    "lost_points",  # points of held puzzles that can't be finished in the actions left
    "placed_cells",  # cells filled in held puzzles
    "best_take",  # the best face-up puzzle's discounted points per action
    "actions_left",  # the actions left to the end (exact after the trigger, else estimated)
    "turn_actions",  # actions left in this turn (0 unless the seat is the one to move)
    "wait",  # seats to play before this seat's next turn
    "credits",  # Finesse: active Credits
    "specials",  # Ambassadors and ghosts held
)
GAME_FEATURES: Final = (
    "players",
    "solo",
    "line_clear",
    "finesse",
    "ghost",
    "triggered",  # the end is triggered (or the schedule known)
    "cards_to_trigger",  # cards in the deck whose emptying triggers the end
    "round",
)
DIFF_FEATURES: Final = ("banked", "held_value", "reachable_points", "strength")
FEATURE_NAMES: Final[tuple[str, ...]] = (
    GAME_FEATURES
    + tuple("me_" + f for f in SEAT_FEATURES)
    + tuple("rival_" + f for f in SEAT_FEATURES)
    + tuple("others_" + f for f in SEAT_FEATURES)
    + tuple("diff_" + f for f in DIFF_FEATURES)
)
N_FEATURES: Final = len(FEATURE_NAMES)
_NS: Final = len(SEAT_FEATURES)
_BANKED: Final = 0
_HELD_VALUE: Final = 9
_REACHABLE: Final = 10
_ACTIONS_LEFT: Final = 14


def hidden_piles(view: GameState) -> int:
    """Return the seats whose victory piles this view hides, as a bit mask (bit q: seat q)."""
    out = 0
    for q in range(view.n):
        if HIDDEN in view.piles[q]:
            out |= 1 << q
    return out


def mean_unseen_points(view: GameState) -> float:
    """Return the mean points of the cards nobody can see in ``view`` (hidden piles, decks)."""
    points = cost_model(view).tab.points
    total = 0
    count = 0
    for colour in (0, 1):
        for c in view.unseen_cards(colour):
            total += points[c]
            count += 1
    return total / count if count else 0.0


def _face_up(state: GameState) -> list[int]:
    """Return the face-up puzzles a seat may take (the rows; solo: the grid)."""
    solo = solo_table(state)
    if solo is not None:
        return [c for c in solo.grid if c >= 0]
    return list(state.rows[0]) + list(state.rows[1])


Plan = tuple[tuple[float, ...], list[int], int]


def _held_plan(model: CostModel, slots: list[Slot], supply: list[int], left: int) -> Plan:
    """Return the held puzzles planned cheapest first, each with what the cheaper ones leave
    (greedy's): (held points, reward levels, cost, value, reachable points, lost points, placed
    cells), the pieces the plans leave (do not mutate it) and the actions left after them."""
    t = model.tab
    n_pieces = t.n_pieces
    spare = list(supply)
    budget = left
    held_points = held_reward = held_cost = 0
    held_value = reachable = lost = 0.0
    placed = 0
    planned: list[tuple[int, int, int]] = []
    code = model.code(spare)  # one supply for the first pass: its key part computed once
    for card, filled, _ in slots:
        empty = t.recess[card] & ~filled
        placed += filled.bit_count()
        planned.append((model.cost_with(empty, spare, code)[0], card, empty))
    planned.sort()
    for _, card, empty in planned:
        cost, need = model.cost(empty, spare)
        for j in range(n_pieces):
            d = spare[j] - need[j]
            spare[j] = d if d > 0 else 0
        pts = t.points[card]
        held_points += pts
        held_reward += t.reward_level[card]
        if cost >= UNREACHABLE or cost > budget:
            lost += pts
            held_cost += min(cost, 30)
            continue
        budget -= cost
        held_cost += cost
        reachable += pts
        held_value += (pts + 0.5 * t.reward_level[card]) * _DISCOUNT**cost
    totals = (
        float(held_points),
        float(held_reward),
        float(held_cost),
        held_value,
        reachable,
        lost,
        float(placed),
    )
    return totals, spare, budget


def _best_take(model: CostModel, face_up: list[int], spare: list[int], budget: int) -> float:
    """Return the best face-up puzzle's discounted points per action with ``spare`` pieces
    (0: none finishable in ``budget`` actions after it is taken)."""
    t = model.tab
    best = 0.0
    code = model.code(spare)
    for card in face_up:
        cost = model.cost_with(t.recess[card], spare, code)[0]
        if cost >= UNREACHABLE or cost + 1 > budget:
            continue
        rate = (t.points[card] + 0.5 * t.reward_level[card]) * _DISCOUNT**cost / (1 + cost)
        if rate > best:
            best = rate
    return best


def _seat(
    state: GameState,
    q: int,
    model: CostModel,
    hidden: int,
    per_card: float,
    face_up: list[int],
    with_takes: bool,
    memo: dict[tuple[int, ...], Plan] | None = None,
) -> list[float]:
    """Return seat ``q``'s block (``SEAT_FEATURES`` order)."""
    t = model.tab
    levels = t.levels
    n_pieces = t.n_pieces
    if hidden >> q & 1:
        banked = state.completed_count(q) * per_card
    else:
        banked = float(state.scores[q] - state.ft_pieces[q])
    supply = state.supply[q]
    supply_levels = 0
    supply_pieces = 0
    big = 0
    for i in range(n_pieces):
        c = supply[i]
        if c:
            supply_levels += c * levels[i]
            supply_pieces += c
            if levels[i] >= 3:
                big += c
    left = actions_left_estimate(state, q, _ESTIMATE)  # exact after the trigger
    slots = state.slots[q]
    pieces = state.placeable_supply(q)
    plan: Plan | None = None
    key: tuple[int, ...] = ()
    if memo is not None:
        # what the held puzzles' plan depends on: each puzzle and its filled cells, the pieces
        # and the actions left (the candidates of a decision mostly share a rival's)
        key = (left, *pieces, *[x for card, filled, _ in slots for x in (card, filled)])
        plan = memo.get(key)
    if plan is None:
        plan = _held_plan(model, slots, pieces, left)
        if memo is not None:
            memo[key] = plan
    totals, spare, budget = plan
    best_take = 0.0
    if with_takes and len(slots) < state.max_unfinished:
        if memo is not None:
            # the best take depends on the pieces and actions the plans leave and on the
            # face-up puzzles: after a planned Place, the same as before it (-1: no seat's key)
            key = (-1, budget, *spare, *face_up)
            hit = memo.get(key)
            if hit is not None:
                best_take = hit[0][0]
            else:
                best_take = _best_take(model, face_up, spare, budget)
                memo[key] = ((best_take,), spare, budget)
        else:
            best_take = _best_take(model, face_up, spare, budget)
    n = state.n
    if state.phase == OVER:
        turn_actions = 0
        wait = 0
    else:
        turn_actions = state.actions_left if q == state.current else 0
        wait = (q - state.current) % n
    specials = ambassadors_held(state, q)
    for g in ghost_pieces_of(state):
        specials += supply[g]
    return [
        banked,
        float(state.completed_count(q)),
        float(supply_levels),
        float(supply_pieces),
        float(big),
        float(len(slots)),
        *totals,  # held points, reward, cost, value, reachable, lost, placed cells
        best_take,
        float(min(left, 60)),
        float(turn_actions),
        float(wait),
        float(active_credits(state, q)),
        float(specials),
    ]


def _strength(block: list[float]) -> float:
    return block[_BANKED] + block[_HELD_VALUE]


def position_features(
    state: GameState,
    player: int,
    hidden: int,
    per_card: float,
    memo: dict[tuple[int, ...], Plan] | None = None,
) -> list[float]:
    """Return the position as ``player`` sees it (``FEATURE_NAMES`` order). ``memo`` (a dict
    the caller keeps for positions of one catalogue, e.g. a decision's candidates) shares the
    held puzzles' plans between calls: a seat whose puzzles, pieces and actions left are
    unchanged is planned once."""
    model = cost_model(state)
    face_up = _face_up(state)
    n = state.n
    me = _seat(state, player, model, hidden, per_card, face_up, True, memo)
    solo = solo_table(state)
    others: list[list[float]] = []
    for q in range(n):
        if q != player:
            others.append(_seat(state, q, model, hidden, per_card, face_up, False, memo))
    rival: list[float]
    if solo is not None:
        # solo: the rival is the mastermind, its pile public, its coming takes the grid's (a
        # pure function of the public table: bots.solo_sense), each gap refilled by a card worth
        # the unseen cards' mean
        rival = [0.0] * _NS
        rival[_BANKED] = float(solo.opponent_score)
        rival[1] = float(len(solo.opponent_pile))
        points = model.tab.points
        colour = 0 if state.decks[0] else 1  # the solo deck: its whites lie on top
        unseen_cards = state.unseen_cards(colour)
        unseen = sum(points[c] for c in unseen_cards) / max(1, len(unseen_cards))
        second = plays_finesse(state)
        unlock_takes = solo_unlock_takes(state)
        deck = len(state.decks[0]) + len(state.decks[1])
        per_turn = max(1, state.rules.actions_per_turn)
        turns = min(20, max(1, (int(me[_ACTIONS_LEFT]) + per_turn - 1) // per_turn))
        rival[_HELD_VALUE] = mastermind_forecast(
            solo, points, unseen, 1, second, unlock_takes, deck
        )
        rival[_REACHABLE] = mastermind_forecast(
            solo, points, unseen, turns, second, unlock_takes, deck
        )
        mean = list(rival)
    elif not others:
        rival = [0.0] * _NS
        mean = list(rival)
    else:
        rival = others[0]
        for o in others:
            if _strength(o) > _strength(rival):
                rival = o
        if len(others) > 1:
            mean = [0.0] * _NS
            for o in others:
                for i in range(_NS):
                    mean[i] += o[i]
            k = float(len(others))
            for i in range(_NS):
                mean[i] /= k
        else:
            mean = [0.0] * _NS  # 2 players: the rival is all the others
    triggered = _remaining(state, player) is not None
    game = [
        float(n),
        1.0 if solo is not None else 0.0,
        1.0 if plays_line_clear(state) else 0.0,
        1.0 if plays_finesse(state) else 0.0,
        1.0 if ghost_pieces_of(state) else 0.0,
        1.0 if triggered else 0.0,
        float(state.cards_to_trigger()),
        float(state.round),
    ]
    diff = [
        me[_BANKED] - rival[_BANKED],
        me[_HELD_VALUE] - rival[_HELD_VALUE],
        me[_REACHABLE] - rival[_REACHABLE],
        _strength(me) - _strength(rival),
    ]
    return game + me + rival + mean + diff


__all__ = [
    "FEATURE_NAMES",
    "FEATURE_VERSION",
    "N_FEATURES",
    "hidden_piles",
    "mean_unseen_points",
    "position_features",
]
