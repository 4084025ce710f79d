"""The ``mcts`` bot: determinized Monte Carlo tree search, one value per player.

Each decision grows one tree from the bot's view. Every iteration:

1. picks a child of the root (each candidate once, in order, then UCB) and plays it in a
   *world*: the view determinized with the bot's ``rng`` (the other players' face-down victory
   piles get cards, the number of each colour being known from what is unseen, and the unseen
   deck cards are re-dealt). The k-th visit of every root child uses the same k-th world, so the
   candidates are compared on common deals (common random numbers: the deal's noise cancels out
   of their differences);
2. descends the tree below, each node choosing for its own player to move among that player's
   candidates (the greedy choice first), widened progressively with the node's visits, by UCB
   on that player's value;
3. adds one node, then plays the greedy policy (``GreedyBot.choose``) until ``horizon`` rounds
   after the root's turn (or the end), so every leaf is scored at the same moment of the game;
4. scores the leaf for every player: a fitted estimate of each player's final score, turned into
   a win chance by a logistic of the margin over the best opponent (at the end, half the real
   win share and half the logistic of the real margin), and adds that vector to the path.

Candidates are ``candidate_actions`` (the heuristic's narrowing: plan placements, takes,
climbing upgrades, one Recycle order per row, a planned Master) plus the greedy choice. Which
children a node allows is decided by each world's own candidate list, so draws that differ
between worlds (a replacement card in a row, a blind draw) never lead into an illegal action.
Reward choices, Level Up steps (Ghost Piece) and Finishing Touches, inside the search and as the
bot's own answers, are the greedy bot's. Finesse: with 2 active Credits each candidate is also
searched as an Insert, and rollouts Insert the greedy way.

The budget is ``iterations`` per decision, or ``time`` seconds of CPU per decision when it is
not 0 (then the bot is not reproducible). A decision with a single candidate is not searched.
The default, 50, is about two visits per root candidate (26 on average over the positions of
``benchmarks/mcts_settle.py``). Rollouts are deterministic in a world and the root compares its
children on common deals, so a candidate's value settles within a few deals: picking by k deals
instead of 48 loses 0.017 win chance at k = 1, 0.008 at 2, 0.005 at 4, 0.002 at 8 and 0.001 at 16
(the two best candidates are 0.019 apart on average). Past a few visits per candidate, more
iterations re-average a settled estimate and grow the tree below, which did not play better:
``benchmarks/bots.py`` measured 4x the iterations winning 59.8% of 200 games at 50 (200 against
50), but 52.5% of 60 at 100 (400 against 100) and 46.0% of 200 at 400 (1600 against 400).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, ClassVar

from bots.base import Bot
from bots.greedy import GreedyBot
from bots.heuristics import CostModel, Weights, candidate_actions, cost_model, remaining_actions
from bots.params import OneOf, Range
from projectl_sim.engine import FINISHING, HIDDEN, OVER, REWARD, GameState
from projectl_sim.engine.actions import BLACK, Action, Finish, Reward
from projectl_sim.errors import UsageError
from projectl_sim.expansions.endless import endless as endless_block
from projectl_sim.expansions.endless import replace_noted
from projectl_sim.expansions.finesse import Insert, credits
from projectl_sim.expansions.ghost_piece import LEVEL_UP
from projectl_sim.rules import ROW_SIZE

_Key = tuple[Any, ...]

# The leaf evaluation: a linear estimate of a player's final score, fitted by least squares to
# the final score margins of 100,000 positions of 2-player greedy self-play (with random
# deviations early on, so that unusual positions are seen too). "early" terms are multiplied by
# the share of the black deck still to draw (1 at the start, 0 once the end is triggered); held
# puzzles are those the player can still finish in the actions left, their points and reward
# levels discounted by _DISCOUNT per action they still need; the unfinished penalty of one that
# can't be finished is counted in full. Margins predicted this way correlate 0.73 with the final
# ones. Offline, over 200 positions with every candidate rolled out in 12 common deals, picking
# by greedy rollouts 3 rounds deep scored this way gains 93% of what rollouts to the end gain
# over the greedy move, 2 rounds deep 75%; 2 rounds (the default) is 1.5x cheaper and, at equal
# CPU time, wins more.
_DISCOUNT = 0.85
_BANKED = 0.905  # per point in the victory pile (less Finishing Touches pieces)
_SUPPLY = (0.051, 0.337)  # per level of a piece in the supply: (always, early)
_PLACED = (0.136, 0.347)  # per level of a piece placed in a held puzzle
_HELD_POINTS = (0.939, -0.127)  # per discounted point of a held puzzle
_HELD_REWARD = (-0.173, 0.9)  # per discounted level of a held puzzle's reward piece
_HELD = (-0.049, -1.129)  # per held puzzle
_HELD_COST = -0.072  # per action the held puzzles still need
_UNREACHABLE = -1.0  # per point of a held puzzle that can't be finished
_TO_MOVE = 1.252  # the player about to move
_HORIZON_ACTIONS = 30  # actions assumed left before the end is triggered


def score_estimate(state: GameState, player: int, model: CostModel) -> float:
    """Return the fitted estimate of ``player``'s final score (the real one once it is over)."""
    if state.phase == OVER:
        return float(state.final_scores()[player])
    t = state.tables
    levels = t.levels
    left = remaining_actions(state, player)
    if left is None:
        early = min(1.0, len(state.decks[BLACK]) / max(1, state.rules.black_deck_size - ROW_SIZE))
        left = _HORIZON_ACTIONS
    else:
        early = 0.0
    supply = state.placeable_supply(player)
    supply_levels = sum(c * levels[i] for i, c in enumerate(state.supply[player]) if c)
    value = _BANKED * (state.scores[player] - state.ft_pieces[player])
    value += supply_levels * (_SUPPLY[0] + _SUPPLY[1] * early)
    slots = state.slots[player]
    if slots:
        spare = list(supply)
        placed = points = reward = cost_sum = 0.0
        for card, filled, pieces in slots:
            for piece, _ in pieces:
                placed += levels[piece]
            cost, use = model.cost(t.recess[card] & ~filled, spare)
            if cost > left:
                value += _UNREACHABLE * t.points[card]
                continue
            left -= cost
            cost_sum += cost
            d = _DISCOUNT**cost
            points += t.points[card] * d
            reward += t.reward_level[card] * d
            for i, k in enumerate(use):
                if k:
                    spare[i] = max(0, spare[i] - k)
        n_held = len(slots)
        value += placed * (_PLACED[0] + _PLACED[1] * early)
        value += points * (_HELD_POINTS[0] + _HELD_POINTS[1] * early)
        value += reward * (_HELD_REWARD[0] + _HELD_REWARD[1] * early)
        value += n_held * (_HELD[0] + _HELD[1] * early) + _HELD_COST * cost_sum
    if state.current == player:
        value += _TO_MOVE
    return value


class _Node:
    """A decision point of the tree: visits, summed values per player, children by action."""

    __slots__ = ("children", "n", "orders", "w")

    def __init__(self, players: int) -> None:
        self.n = 0
        self.w = [0.0] * players
        self.children: dict[Action, _Node] = {}
        # the candidates in the order they are tried, per world class (rows and held cards)
        self.orders: dict[_Key, list[Action]] = {}


class MCTSBot(Bot):
    name = "mcts"
    summary = (
        "determinized MCTS: heuristic candidates, greedy rollouts a few rounds deep scored by a "
        "fitted evaluation, common deals across root moves, one value per player"
    )
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "iterations": (50, "iterations per decision (when time is 0)", Range(1)),
        "time": (0.0, "seconds of CPU per decision; 0 = use iterations", Range(0.0, 3600.0)),
        "c": (0.25, "UCB exploration constant (values are win chances in [0, 1])", Range(0.0)),
        "horizon": (
            2,
            "rollouts stop this many rounds after the root's turn; 0 = at the end",
            Range(0),
        ),
        "anchor": (
            "root",
            "where the horizon counts from: root (tree and rollouts stop there) or leaf (the "
            "tree may grow past it; each rollout plays horizon rounds from its leaf)",
            OneOf("root", "leaf"),
        ),
        "width": (
            2.0,
            "progressive widening below the root: 1 + width * sqrt(visits) children",
            Range(0.0),
        ),
        "scale": (
            2.0,
            "points of margin per logistic unit when a leaf becomes a win chance",
            Range(0.0, open_low=True),
        ),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.options["anchor"] not in ("root", "leaf"):
            raise UsageError(f"unknown mcts anchor {self.options['anchor']!r} (valid: root, leaf)")
        self.weights = Weights()
        self.greedy = GreedyBot()
        self.simulations = 0  # iterations run over this bot's life (for benchmarks)
        self.searches = 0

    # -- the protocol --------------------------------------------------------------------------
    def act(self, view: GameState, rng: random.Random) -> Action:
        model = cost_model(view)
        cands = self._candidates(view, model)
        if len(cands) == 1:
            return cands[0]
        o = self.options
        budget, limit = int(o["iterations"]), float(o["time"])
        rounds = int(o["horizon"])
        stop = view.turn + rounds * view.n if rounds > 0 else math.inf
        root = _Node(view.n)
        worlds: list[GameState] = []
        deadline = time.process_time() + limit if limit > 0 else 0.0
        done = 0
        while True:
            self._iterate(root, cands, view, worlds, rng, model, stop)
            done += 1
            if deadline:
                if time.process_time() >= deadline:
                    break
            elif done >= budget:
                break
        self.simulations += done
        self.searches += 1
        me = view.current
        best = max(
            cands,
            key=lambda a: (
                (ch.n, ch.w[me] / ch.n) if (ch := root.children.get(a)) and ch.n else (0, 0.0)
            ),
        )
        return best

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        return self.greedy.choose_reward(view, options, rng)

    def choose_level_up(self, view: GameState, rng: random.Random) -> Action:
        return self.greedy.choose_level_up(view, rng)

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        return self.greedy.finishing_touches(view, rng)

    # -- one iteration -------------------------------------------------------------------------
    def _iterate(
        self,
        root: _Node,
        cands: list[Action],
        view: GameState,
        worlds: list[GameState],
        rng: random.Random,
        model: CostModel,
        stop: float,
    ) -> None:
        o = self.options
        c, width = float(o["c"]), float(o["width"])
        me = view.current
        # The root: every candidate once, then UCB; its k-th visit plays in the k-th world.
        pick = _select(root, cands, len(cands), me, c)
        child = root.children.get(pick)
        if child is None:
            child = root.children[pick] = _Node(view.n)
        k = child.n
        if k == len(worlds):
            worlds.append(_determinize(view, rng))
        state = worlds[k].copy()
        state.apply(pick)
        node = child
        path = [root, child]
        fresh = k == 0
        leaf_anchor = self.options["anchor"] == "leaf"
        while not fresh:
            self._settle(state, rng)
            if state.phase == OVER or (state.turn >= stop and not leaf_anchor):
                break
            key = _world_key(state)
            order = node.orders.get(key)
            if order is None:
                order = node.orders[key] = self._candidates(state, model)
            allowed = 1 + int(width * math.sqrt(node.n))
            pick = _select(node, order, allowed, state.current, c)
            state.apply(pick)
            child = node.children.get(pick)
            if child is None:
                child = node.children[pick] = _Node(view.n)
                fresh = True
            node = child
            path.append(node)
        if leaf_anchor and stop != math.inf:
            # the horizon counts from the leaf: deeper trees still see as far past their leaves
            stop = state.turn + int(o["horizon"]) * view.n
        values = self._rollout(state, rng, model, stop)
        for nd in path:
            nd.n += 1
            w = nd.w
            for p, v in enumerate(values):
                w[p] += v

    def _settle(self, state: GameState, rng: random.Random) -> None:
        """Answer reward choices, Level Up steps and Finishing Touches the greedy way (no tree
        node for them)."""
        greedy = self.greedy
        while state.phase in (REWARD, FINISHING, LEVEL_UP):
            if state.phase == REWARD:
                state.apply(Reward(greedy.choose_reward(state, state.reward_options, rng)))
            elif state.phase == LEVEL_UP:
                state.apply(greedy.choose_level_up(state, rng))
            else:
                state.apply(greedy.finishing_touches(state, rng))

    def _rollout(
        self, state: GameState, rng: random.Random, model: CostModel, stop: float
    ) -> list[float]:
        greedy = self.greedy
        while True:
            self._settle(state, rng)
            if state.phase == OVER or state.turn >= stop:
                break
            action = greedy.choose_with_insert(state)
            if action is None:
                action = rng.choice(state.legal_actions(master="none"))
            state.apply(action)
        return self._values(state, model)

    def _values(self, state: GameState, model: CostModel) -> list[float]:
        """Return each player's value: a win chance from the score margin over the best rival.

        At the end, half the real win share and half the logistic of the real margin (the
        margin still tells a close loss from a rout, and a win by more from a win by less).
        """
        n = state.n
        scale = float(self.options["scale"])
        est = [score_estimate(state, p, model) for p in range(n)]
        # solo: the rival is the mastermind, whose score is its pile so far
        lone = float(state.opponent_score()) if getattr(state, "solo", None) else 0.0
        out = [
            _logistic((est[p] - max(est[:p] + est[p + 1 :], default=lone)) / scale)
            for p in range(n)
        ]
        if state.phase == OVER:
            winners = state.winners()
            share = 0.5 / len(winners) if winners else 0.0  # solo: none when the mastermind wins
            out = [0.5 * v + (share if p in winners else 0.0) for p, v in enumerate(out)]
        return out

    # -- candidates ----------------------------------------------------------------------------
    def _candidates(self, state: GameState, model: CostModel) -> list[Action]:
        """Return the actions to search, the greedy choice first."""
        cands = candidate_actions(state, self.weights, model)
        fin = credits(state)
        if fin is not None and fin.active[state.current] >= state.rules.insert_cost:
            cands += [Insert(a) for a in cands]  # Finesse: each candidate as an Insert too
        g = self.greedy.choose_with_insert(state)
        if g is not None:
            if g in cands:
                cands.remove(g)
            cands.insert(0, g)
        if not cands:
            cands = state.legal_actions(master="none")
        return cands


def _select(node: _Node, order: list[Action], allowed: int, player: int, c: float) -> Action:
    """Return the first untried action among the first ``allowed``, else the best by UCB."""
    children = node.children
    log_n = math.log(node.n + 1)
    pick = order[0]
    best = -math.inf
    for a in order[:allowed]:
        child = children.get(a)
        if child is None or not child.n:
            return a
        score = child.w[player] / child.n + c * math.sqrt(log_n / child.n)
        if score > best:
            best, pick = score, a
    return pick


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -30.0 else 0.0


def _world_key(state: GameState) -> _Key:
    """Return what can differ between worlds at one tree node: the face-up and held cards, and
    (Line Clear, where a holder with no legal action passes) who moves."""
    solo = getattr(state, "solo", None)  # the solo variant's grid of face-up puzzles
    return (
        state.current,
        state.rows[0],
        state.rows[1],
        tuple(s[0] for s in state.slots[state.current]),
        solo.grid if solo is not None else (),
    )


def _determinize(view: GameState, rng: random.Random) -> GameState:
    """Return a full state consistent with ``view``: hidden piles filled, unseen decks dealt.

    Endless White Deck: the other players' noted white puzzles (hidden like their piles; only
    their number is public) are guessed among all white puzzles, as any may have been noted, and
    count in their scores.
    """
    endless = endless_block(view)
    noted_hidden = [q for q in range(view.n) if endless is not None and HIDDEN in endless.noted[q]]
    hidden = [q for q in range(view.n) if HIDDEN in view.piles[q]]
    if not hidden and not noted_hidden:
        return view.redeal(rng)
    g = view.copy()
    # The cards nobody can see are the hidden deck cards and the hidden pile cards, so the number
    # of white cards in the hidden piles is the unseen whites less the hidden white deck cards.
    pools = [view.unseen_cards(colour) for colour in (0, 1)]
    in_decks = [len(d) - kb for d, kb in zip(view.decks, view.known_bottom, strict=True)]
    slots = [q for q in hidden for _ in view.piles[q]]
    whites = min(len(slots), max(0, len(pools[0]) - in_decks[0]))
    colours = [0] * whites + [1] * (len(slots) - whites)
    rng.shuffle(colours)
    drawn = [
        rng.sample(pools[colour], min(colours.count(colour), len(pools[colour])))
        for colour in (0, 1)
    ]
    piles: dict[int, list[int]] = {q: [] for q in hidden}
    for q, colour in zip(slots, colours, strict=True):
        if drawn[colour]:
            piles[q].append(drawn[colour].pop())
    points = view.tables.points
    for q, cards in piles.items():
        g.piles[q] = tuple(cards)
    if endless is not None and noted_hidden:
        white = view.catalogue.of_colour("white")
        noted = list(endless.noted)
        for q in noted_hidden:
            noted[q] = tuple(rng.choice(white) for _ in noted[q])
        replace_noted(g, tuple(noted))
    for q in set(hidden) | set(noted_hidden):
        g.scores[q] = sum(points[c] for c in g.piles[q] + g.completed_elsewhere(q))
    return g.redeal(rng)
