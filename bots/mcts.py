"""The ``mcts`` bot: determinized Monte Carlo tree search, one value per player.

Each decision grows one tree from the bot's view. Every iteration:

1. the root's rule picks a candidate (``root=halving``, the default: sequential halving, below;
   ``root=ucb``: each candidate once, in order, then UCB) and plays it in a *world*: the view
   determinized with the bot's ``rng`` (the other players' face-down victory piles get cards, the
   number of each colour being known from what is unseen, and the unseen deck cards are
   re-dealt). The k-th visit of every root child uses the same k-th world, so the candidates are
   compared on common deals (common random numbers: the deal's noise cancels out of their
   differences);
2. descends the tree below (``tree=full``: every player's decisions; ``tree=turn``: the rest of
   the root player's turn), each node choosing for its own player to move among that player's
   candidates (the greedy choice first), widened progressively with the node's visits, by UCB on
   that player's value;
3. adds one node, then plays the rollout policy (``rollout=greedy``: ``GreedyBot.choose`` for
   every seat; ``rollout=mixed``: each seat of each world played by one of greedy and the four
   other policies) to the end of the game (``horizon=0``, the default) or ``horizon`` rounds
   after the root's turn;
4. scores the leaf for every player: at the end, half the real win share and half a logistic of
   the real margin over the best opponent (the margin tells a close loss from a rout); at a
   horizon, a fitted estimate of each player's final score turned into a win chance the same
   way; and adds that vector to the path.

``leaf=value`` replaces step 3's rollout: the new leaf is played on the greedy way to the end of
a turn of the searching seat (the rest of its turn, or the others' turns and then its next one)
and that position is scored by the learned evaluation (``bots.value_model``, the shipped model or
``model=PATH``; the spec names its hash), each player's value half its predicted win chance and
half the logistic of its predicted margin, from that player's public view (the others' piles
hidden, as in the bot's own view). Every leaf is so scored where ``value`` scores its candidates,
at the end of one of the searching seat's turns, where the evaluation's rollout-labelled rows
taught it to order positions; scored at the end of whichever seat's turn the leaf fell in, leaves
deeper in the tree (after a rival's turn) were worth less than shallow ones for that alone, and
the search preferred the moves whose subtrees stayed shallow: it lost 95% of its games to greedy.
With the learned value the search also narrows and leans as ``value`` does: ``places`` keeps the
largest Places a puzzle, one Upgrade per pair of levels and no Recycle but the greedy choice at
every node, and ``prior`` gives the greedy choice's mean a bonus at the root. Their defaults with
``leaf=value`` are their own (``VALUE_LEAF_DEFAULTS``: 32 iterations, ``places=2``,
``prior=0.1``, ``width=0``; ``docs/benchmarks.md`` has the measurements); with rollouts both
are off, and ``mcts`` plays as it always has. An iteration costs a tree step and an evaluation
instead of a game played to the end, so a budget buys far more of them.

With ``width=0`` (``leaf=value``'s default) no node below the root tries anything but its
seat's greedy choice in the iteration's world, so each root candidate grows a greedy line, one
action deeper each visit: a candidate visited k times is scored by the evaluation after k
actions of greedy play and the rest of the searching seat's turn. A small budget scores the
candidates near the root, where the evaluation is what it was trained to be; a larger one looks
further down the game, towards greedy rollouts to the end. The search's strength then grows with
its budget, where a tree that also tried other actions below the root (``width=2``) lost
strength with it and ``tree=turn,width=0`` (the line ends with the searching seat's turn: more
visits only average more worlds) stopped gaining from about 48 iterations. Each visit is a new
world, though, and the worlds' lines part where their draws differ (a row refilled from the deck
changes the next greedy take): a visit stops at the first node its world adds, so past about a
dozen visits a candidate's leaves stay some 3 turns down the game. ``reach`` sends the k-th
visit on at least reach x k actions (new nodes on the way), and ``worlds=W`` cycles the visits
through W deals, so a world revisited replays its own line from the nodes it made (each
greedy choice is kept per node and world) and adds to it: deeper lines for less. Greedy lines
and the flat search score each leaf for the searching seat alone, the only value they compare
(no node below the root compares values in greedy lines, and every node of the flat search's
tree is the searching seat's).

That flat search (``tree=turn,width=0``) stops because its depth is fixed: past about 200
iterations more worlds at the same depth seldom change its choice (it has converged to the
evaluation's ranking one turn on), and that ranking is the ceiling. ``deepen=D`` gives it a
depth schedule: a root candidate's visits from the D-th on are scored one turn of the searching
seat further on (greedy play through the others' turns and its own), one turn more every D
visits, so the candidates that sequential halving keeps, which get most of a big budget, are
scored deeper and deeper; a search whose candidates never reach D visits is unchanged. Greedy
lines take the same schedule: their leaves stay some 3 turns down (the worlds' lines part), so
past about 400 iterations a bigger budget bought only more worlds at that depth; with
``deepen=D`` a candidate's visits from the D-th on are played on the greedy way one turn of the
searching seat further past their leaf, one more every D visits.

Sequential halving (Karnin, Koren and Somekh, "Almost optimal exploration in multi-armed bandits",
ICML 2013; the root rule of Gumbel MuZero, Danihelka et al. 2022) splits the budget into
ceil(log2 K) rounds; each round gives its share evenly to the candidates left, then keeps the
better half by mean value, so a bigger budget goes mostly to the few best candidates.

Candidates are ``candidate_actions`` (the heuristic's narrowing: plan placements, takes,
climbing upgrades, one Recycle order per row, a planned Master; in solo also the blind draw)
plus the greedy choice. Which children a node allows is decided by each world's own candidate
list, so draws that differ between worlds (a replacement card in a row, a blind draw) never lead
into an illegal action. Reward choices, Level Up steps (Ghost Piece) and Finishing Touches,
inside the search and as the bot's own answers, are the greedy bot's. Finesse: with 2 active
Credits each candidate is also searched as an Insert, and rollouts Insert the greedy way.

The budget is ``iterations`` per decision (default 200, about 0.1 s of CPU a decision here), or
``time`` seconds of CPU (``time.process_time``) per decision when it is not 0 (then the bot is
not reproducible; halving splits the time into its rounds). A decision with a single candidate
is not searched. Rollouts play to the end of the game by default because the game's own score is
the only leaf value whose errors a bigger budget does not find and exploit (the measurements are
in ``docs/benchmarks.md``, "The rollout search: what its budget buys").

The iterations are bounded in work too, counted, never timed, so a search cannot run away on the
largest positions (Ghost Piece with Phoenix at 4 players): a search by iterations stops once it
has made ``iterations`` x ``work`` (default 1,500) queries of the cost model
(``heuristics.CostModel.queries``: every completion cost and plan the candidates, the tree and
the rollouts' greedy play ask for, cached or not), and from each halving round on it plans the
iterations left by the work per iteration so far, so the remaining rounds still share them; the
choice is then made on what was searched. An iteration begun is finished, so a search passes its
budget by one iteration at most. Where the bound binds, and the tiling memo's size it needs, are
measured in ``docs/benchmarks.md`` ("CPU per decision").
"""

from __future__ import annotations

import math
import random
import time
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from bots._state import (
    OVER,
    PLAY,
    determinize,
    solo_table,
)
from bots.base import Bot
from bots.endgame import solo_endgame
from bots.features import Plan, hidden_piles, mean_unseen_points, position_features
from bots.greedy import SOLO_PARAMS, GreedyBot
from bots.heuristics import CostModel, Weights, cost_model, remaining_actions
from bots.params import OneOf, Param, Range
from bots.policies import BuilderBot, RecyclerBot, RusherBot, SetterBot
from bots.value import MODEL_PARAMS, check_model, model_spec, searched_candidates, settle, shortlist
from bots.value_model import ValueModel
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action, Finish, Reward
from projectl_sim.errors import UsageError

_Key = tuple[Any, ...]

# leaf=value's own defaults, for the parameters its spec leaves unset (measured: docs/benchmarks.md)
VALUE_LEAF_DEFAULTS: Final[dict[str, Any]] = {
    "iterations": 32,
    "places": 2,
    "prior": 0.1,
    # greedy lines: below a root candidate every seat plays its greedy choice, one action deeper
    # each visit (the tree that also tried other actions there lost strength as its budget grew)
    "width": 0.0,
}
MAX_LEAF_ACTIONS: Final = 200  # leaf=value: a leaf played on this far at most (a stalled table)
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
_BLACK: Final = 1  # the black deck (projectl_sim.engine.actions.BLACK)
_DISCOUNT: Final = 0.85
_BANKED: Final = 0.905  # per point in the victory pile (less Finishing Touches pieces)
_SUPPLY: Final = (0.051, 0.337)  # per level of a piece in the supply: (always, early)
_PLACED: Final = (0.136, 0.347)  # per level of a piece placed in a held puzzle
_HELD_POINTS: Final = (0.939, -0.127)  # per discounted point of a held puzzle
_HELD_REWARD: Final = (-0.173, 0.9)  # per discounted level of a held puzzle's reward piece
_HELD: Final = (-0.049, -1.129)  # per held puzzle
_HELD_COST: Final = -0.072  # per action the held puzzles still need
_UNREACHABLE: Final = -1.0  # per point of a held puzzle that can't be finished
_TO_MOVE: Final = 1.252  # the player about to move
_HORIZON_ACTIONS: Final = 30  # actions assumed left before the end is triggered


_BLACK_DECK: Final[dict[int, tuple[Any, int]]] = {}


def _black_deck_size(state: GameState) -> int:
    """Return the rules' black deck size (cached per rules object: a property that counts)."""
    rules = state.rules
    hit = _BLACK_DECK.get(id(rules))
    if hit is None or hit[0] is not rules:
        hit = _BLACK_DECK[id(rules)] = (rules, rules.black_deck_size)
    return hit[1]


def score_estimate(state: GameState, player: int, model: CostModel) -> float:
    """Return the fitted estimate of ``player``'s final score (the real one once it is over)."""
    if state.phase == OVER:
        return float(state.final_scores()[player])
    t = model.tab
    levels = t.levels
    left = remaining_actions(state, player)
    if left is None:
        early = min(
            1.0, len(state.decks[_BLACK]) / max(1, _black_deck_size(state) - state.rules.row_size)
        )
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


LEAF_FEATURES: Final = (
    "banked",
    "supply_levels",
    "supply_levels_early",
    "placed",
    "placed_early",
    "held_points",
    "held_points_early",
    "held_reward",
    "held_reward_early",
    "held",
    "held_early",
    "held_cost",
    "unreachable_points",
    "to_move",
)


def leaf_features(state: GameState, player: int, model: CostModel) -> list[float]:
    """Return the terms ``score_estimate`` weighs, in ``LEAF_FEATURES`` order (for fitting)."""
    t = model.tab
    levels = t.levels
    left = remaining_actions(state, player)
    if left is None:
        early = min(
            1.0, len(state.decks[_BLACK]) / max(1, _black_deck_size(state) - state.rules.row_size)
        )
        left = _HORIZON_ACTIONS
    else:
        early = 0.0
    supply = state.placeable_supply(player)
    supply_levels = float(sum(c * levels[i] for i, c in enumerate(state.supply[player]) if c))
    spare = list(supply)
    placed = points = reward = cost_sum = unreachable = 0.0
    slots = state.slots[player]
    for card, filled, pieces in slots:
        for piece, _ in pieces:
            placed += levels[piece]
        cost, use = model.cost(t.recess[card] & ~filled, spare)
        if cost > left:
            unreachable += t.points[card]
            continue
        left -= cost
        cost_sum += cost
        d = _DISCOUNT**cost
        points += t.points[card] * d
        reward += t.reward_level[card] * d
        for i, k in enumerate(use):
            if k:
                spare[i] = max(0, spare[i] - k)
    n = float(len(slots))
    return [
        float(state.scores[player] - state.ft_pieces[player]),
        supply_levels,
        supply_levels * early,
        placed,
        placed * early,
        points,
        points * early,
        reward,
        reward * early,
        n,
        n * early,
        cost_sum,
        unreachable,
        1.0 if state.current == player else 0.0,
    ]


class _Node:
    """A decision point of the tree: visits, summed values per player, children by action."""

    __slots__ = ("children", "n", "orders", "w")

    def __init__(self, players: int) -> None:
        self.n = 0
        self.w = [0.0] * players
        self.children: dict[Action, _Node] = {}
        # the candidates in the order they are tried, per world class (rows and held cards)
        self.orders: dict[_Key, list[Action]] = {}


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled; users' bots may extend it
class MCTSBot(Bot):
    name = "mcts"
    summary = (
        "determinized MCTS: heuristic candidates, sequential halving at the root, greedy "
        "rollouts to the end (or a horizon, scored by a fitted evaluation), common deals across "
        "root moves, one value per player"
    )
    params: ClassVar[dict[str, Param]] = {
        "iterations": (
            200,
            "iterations per decision (when time is 0; 32 with leaf=value)",
            Range(1),
        ),
        "time": (0.0, "seconds of CPU per decision; 0 = use iterations", Range(0.0, 3600.0)),
        "work": (
            1500,
            "the planner's work per iteration, on average: a search by iterations stops once "
            "it has made iterations x work queries of the cost model (0 = no work budget)",
            Range(0),
        ),
        "c": (
            0.25,
            "UCB exploration constant (values are win chances in [0, 1])",
            Range(0.0),
        ),
        "horizon": (
            0,
            "rollouts stop this many rounds after the root's turn, scored by the fitted leaf "
            "evaluation; 0 = they play to the end (scored by the game)",
            Range(0),
        ),
        "anchor": (
            "root",
            "where the horizon counts from: root (tree and rollouts stop there) or leaf (the "
            "tree may grow past it; each rollout plays horizon rounds from its leaf)",
            OneOf("root", "leaf"),
        ),
        "root": (
            "halving",
            "how the root shares the budget: halving (sequential halving: most of a big budget "
            "goes to the best few candidates) or ucb (UCB, every candidate once first)",
            OneOf("halving", "ucb"),
        ),
        "tree": (
            "full",
            "how deep the tree grows: full (every player's decisions up to the horizon) or turn "
            "(the rest of the root player's turn; greedy play after it)",
            OneOf("full", "turn"),
        ),
        "rollout": (
            "greedy",
            "the rollout policy: greedy (every seat, deterministic in a world) or mixed (each "
            "seat of each world's rollouts played by a policy drawn from greedy, rusher, builder, "
            "setter and recycler: a population of plausible continuations)",
            OneOf("greedy", "mixed"),
        ),
        "verify": (
            0,
            "root=halving with a horizon: once a round can give each candidate left this many "
            "visits, they are rollouts to the end instead (0 = never)",
            Range(0),
        ),
        "width": (
            2.0,
            "progressive widening below the root: 1 + width * sqrt(visits) children (0 with "
            "leaf=value: below the root only each seat's greedy choice, a line one action "
            "deeper each visit)",
            Range(0.0),
        ),
        "reach": (
            0.0,
            "leaf=value, greedy lines: a root candidate's k-th visit is played at least "
            "reach x k actions down its greedy line before the leaf (new tree nodes on the way, "
            "so the world's next visit replays them); 0 = one node more a visit, where the "
            "worlds' lines part (the rows' draws) they stop about 3 turns deep",
            Range(0.0, 8.0),
        ),
        "worlds": (
            0,
            "the deals a root candidate's visits cycle through: its k-th visit plays in world "
            "k mod worlds (0 = a new world each visit); a world revisited extends its own line",
            Range(0),
        ),
        "scale": (
            2.0,
            "points of margin per logistic unit when a leaf becomes a win chance",
            Range(0.0, open_low=True),
        ),
        "endgame": SOLO_PARAMS["endgame"],
        "leaf": (
            "rollout",
            "how a new leaf is scored: rollout (the rollout policy plays on; see horizon) or "
            "value (the learned evaluation of the leaf itself, no rollout: bots.value_model)",
            OneOf("rollout", "value"),
        ),
        "prior": (
            0.0,
            "bonus of the greedy choice's mean value at the root, in root=halving's halvings and "
            "final choice (root=ucb ignores it): another candidate must beat it by this (0.1 "
            "with leaf=value)",
            Range(0.0, 1.0),
        ),
        "places": (
            0,
            "Places searched per puzzle at every node (its largest pieces; one Upgrade per pair "
            "of levels, Recycles only as the greedy choice, as value shortlists; 0 = every "
            "candidate; 2 with leaf=value)",
            Range(0, 30),
        ),
        "deepen": (
            0,
            "the flat search or greedy lines (leaf=value with tree=turn or width=0): a root "
            "candidate's visits from the deepen-th on are scored one turn of the searching "
            "seat further on, and one more every deepen visits after (greedy play through "
            "them), so a budget past deepen visits a candidate buys depth instead of more "
            "worlds at one depth (0 = never)",
            Range(0),
        ),
        **MODEL_PARAMS,
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.options["leaf"] == "value":
            for k, v in VALUE_LEAF_DEFAULTS.items():
                if k not in self.given:
                    self.options[k] = v
        self.weights = Weights()
        # leaf=value: the learned evaluation scores the leaves (the model named by its hash)
        self.value_model: ValueModel | None = None
        if self.options["leaf"] == "value":
            self.value_model = check_model(
                self.name, str(self.options["model"]), str(self.options["hash"])
            )
        elif "model" in kwargs or "hash" in kwargs:
            raise UsageError(f"bot {self.name}: model= and hash= need leaf=value")
        self._private = 0  # the seats whose piles the searching seat's view hides
        self._root = 0  # the searching seat
        self.prior = float(self.options["prior"])
        # the learned leaf in greedy lines (width=0: no node below the root compares values) or
        # in the flat search (tree=turn: every node below the root is the searching seat's), and
        # the root compares the searching seat's values only, so a leaf is scored for that seat
        # alone (the same decisions; the others' rows were a third of a leaf's cost at 2 players
        # and more at 3-4)
        self._mover_only = self.value_model is not None and (
            float(self.options["width"]) == 0.0 or self.options["tree"] == "turn"
        )
        # deepen schedules the depth of exactly those leaves: elsewhere it would mean nothing
        self.deepen = int(self.options["deepen"])
        if self.deepen and not self._mover_only:
            raise UsageError(
                f"bot {self.name}: deepen= needs leaf=value and tree=turn or width=0 "
                "(the flat search or greedy lines)"
            )
        self.places = int(self.options["places"])
        self.reach = float(self.options["reach"])
        self.cycle = int(self.options["worlds"])
        if (self.reach > 0 or self.cycle > 0) and self.value_model is None:
            raise UsageError(f"bot {self.name}: reach= and worlds= need leaf=value")
        self._per_card = 0.0  # what a hidden pile's card is worth (the unseen cards' mean)
        self.endgame = int(self.options["endgame"])
        # the rollouts' policies never search solo's end (every rollout would pay for it); the bot
        # itself does, for its own last actions
        self.greedy = GreedyBot(endgame=0)
        # rollout=mixed: the policies a rollout's seats are drawn from (one per seat per world)
        self.pool: list[GreedyBot] = []
        if self.options["rollout"] == "mixed":
            self.pool = [
                GreedyBot(endgame=0),
                RusherBot(endgame=0),
                BuilderBot(endgame=0),
                SetterBot(endgame=0),
                RecyclerBot(endgame=0),
            ]
        self._casts: list[list[GreedyBot]] = []

        self.simulations = 0  # iterations run over this bot's life (for benchmarks)
        self.searches = 0
        # the chosen candidate's mean value for the mover at the last search (-1: not searched);
        # the value bots' training rows note it (projectl_sim.learn.value)
        self.root_value = -1.0
        # the last search's work (the cost model's queries), its largest single iteration's,
        # and whether the work budget ended it (fewer iterations than the budget's)
        self.work = 0
        self.work_step = 0
        self.work_stopped = False

    def __repr__(self) -> str:
        defaults = {k: entry[0] for k, entry in self.params.items()}
        if self.value_model is not None:
            defaults.update(VALUE_LEAF_DEFAULTS)
        items = [
            f"{k}={_fmt(v)}"
            for k, v in self.options.items()
            if k not in MODEL_PARAMS and v != defaults[k]
        ]
        if self.value_model is not None:
            items += model_spec(self.value_model, str(self.options["model"]))
        return self.name + (":" + ",".join(items) if items else "")

    # -- the protocol --------------------------------------------------------------------------
    def act(self, view: GameState, rng: random.Random) -> Action:
        last = solo_endgame(view, rng, self.endgame)  # solo's last actions: searched through
        if last is not None:
            return last
        model = cost_model(view)
        cands = self._candidates(view, model)
        self.root_value = -1.0
        self.work = self.work_step = 0
        self.work_stopped = False
        if len(cands) == 1:
            return cands[0]
        o = self.options
        rounds = self._horizon()
        if solo_table(view) is not None and "horizon" not in self.given:
            # solo: the game is short and the mastermind's coming takes decide it, which the
            # leaf evaluation does not see: rollouts play to the end
            rounds = 0
        stop = view.turn + rounds * view.n if rounds > 0 else math.inf
        self._root = view.current
        if self.value_model is not None:
            hidden = hidden_piles(view)
            # every seat's leaf value sees the others' piles as hidden, as its own view would
            self._private = hidden | (1 << view.current) if hidden else 0
            self._per_card = mean_unseen_points(view) if hidden else 0.0
        root = _Node(view.n)
        worlds: list[GameState] = []
        self._casts = []
        if o["root"] == "ucb":
            done = self._search_ucb(root, cands, view, worlds, rng, model, float(stop))
            best = self._best(root, cands, view.current)
        else:
            done, best = self._search_halving(root, cands, view, worlds, rng, model, float(stop))
        self.simulations += done
        self.searches += 1
        chosen = root.children.get(best)
        if chosen is not None and chosen.n:
            self.root_value = chosen.w[view.current] / chosen.n
        return best

    def _work_cap(self) -> int:
        """Return the search's work budget in cost-model queries (0: none; a time budget has
        none)."""
        o = self.options
        if float(o["time"]) > 0:
            return 0
        return int(o["iterations"]) * int(o["work"])

    def _horizon(self) -> int:
        """Return the rollout horizon in rounds after the root's turn (0: to the end)."""
        return int(self.options["horizon"])

    def _best(self, root: _Node, cands: list[Action], me: int) -> Action:
        """Return the root candidate with the most visits (ties: the better mean value)."""
        best = cands[0]
        best_key = (-1, 0.0)
        for a in cands:
            ch = root.children.get(a)
            key = (ch.n, ch.w[me] / ch.n) if ch is not None and ch.n else (0, 0.0)
            if key > best_key:
                best, best_key = a, key
        return best

    def _search_ucb(
        self,
        root: _Node,
        cands: list[Action],
        view: GameState,
        worlds: list[GameState],
        rng: random.Random,
        model: CostModel,
        stop: float,
    ) -> int:
        """Search with UCB at the root (every candidate once first); return the iterations."""
        o = self.options
        budget, limit = int(o["iterations"]), float(o["time"])
        c = float(o["c"])
        me = view.current
        deadline = time.process_time() + limit if limit > 0 else 0.0
        cap = self._work_cap()
        first = model.queries
        done = 0
        while True:
            pick = _select(root, cands, len(cands), me, c)
            before = model.queries
            self._iterate(root, pick, view, worlds, rng, model, stop)
            self.work_step = max(self.work_step, model.queries - before)
            done += 1
            self.work = model.queries - first
            if deadline:
                if time.process_time() >= deadline:
                    break
            elif done >= budget:
                break
            elif cap and self.work >= cap:
                self.work_stopped = True
                break
        return done

    def _search_halving(
        self,
        root: _Node,
        cands: list[Action],
        view: GameState,
        worlds: list[GameState],
        rng: random.Random,
        model: CostModel,
        stop: float,
    ) -> tuple[int, Action]:
        """Search by sequential halving at the root; return the iterations and the choice.

        Sequential halving (Karnin, Koren and Somekh, "Almost optimal exploration in multi-armed
        bandits", ICML 2013; the root rule of Gumbel MuZero, Danihelka et al. 2022): the budget is
        split into ceil(log2 K) rounds; each round gives its share evenly to the candidates left
        (their j-th visits all in the j-th world, so they are compared on common deals), then
        keeps the better half by mean value. A bigger budget so goes mostly to the few best
        candidates, whose subtrees grow deep enough to improve on greedy play, instead of to
        re-averaging the settled values of clearly worse ones (UCB's spread). A time budget is
        split into the same rounds by CPU time.
        """
        o = self.options
        budget, limit = int(o["iterations"]), float(o["time"])
        verify = int(o["verify"]) if stop != math.inf else 0
        me = view.current
        alive = list(cands)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        start = time.process_time()
        cap = self._work_cap()
        first = model.queries
        done = 0
        # verify=N: once a round has N visits or more for each candidate left, its visits are
        # flat rollouts to the end (scored by the game, not the fitted evaluation), kept apart
        checks: dict[Action, list[float]] | None = None
        for r in range(rounds):
            if limit > 0:
                round_end = start + limit * (r + 1) / rounds
                visits = 1 << 30  # until the round's share of the time is spent
                elapsed = time.process_time() - start
                expect = done / elapsed * limit / rounds / len(alive) if done and elapsed else 0
            else:
                if cap and done:
                    # the work budget binds: the iterations left are what the work left affords
                    # at the work per iteration so far (counted, so the same on any machine), so
                    # the remaining rounds still share them
                    spent = model.queries - first
                    afford = done + max(0, cap - spent) * done // max(1, spent)
                    if afford < budget:
                        budget = afford
                        self.work_stopped = True
                share = (budget - done) // (rounds - r)
                visits = max(1, share // len(alive))
                round_end = 0.0
                expect = visits
            if verify and checks is None and expect >= verify:
                checks = {}
            out = False
            for _ in range(visits):
                for a in alive:
                    before = model.queries
                    if checks is None:
                        self._iterate(root, a, view, worlds, rng, model, stop)
                    else:
                        self._check(a, checks, view, worlds, rng, model)
                    self.work_step = max(self.work_step, model.queries - before)
                    self.work = model.queries - first
                    done += 1
                    if limit <= 0 and cap and self.work >= cap and done < budget:
                        budget = done  # out of work: the choice is made on what was searched
                        self.work_stopped = True
                    if (limit <= 0 and done >= budget) or (
                        limit > 0 and time.process_time() >= round_end
                    ):
                        out = True
                        break
                if out:
                    break
            if (limit <= 0 and done >= budget) or len(alive) <= 1:
                break
            if limit > 0 and time.process_time() >= start + limit:
                break
            alive = (
                _better_half(root, alive, me, cands[0], self.prior)
                if checks is None
                else _better_checked(checks, alive)
            )
        # the choice: the best mean value among the candidates still in (the last halving's)
        if checks is not None:
            return done, _better_checked(checks, alive)[0]
        return done, _better_half(root, alive, me, cands[0], self.prior)[0]

    def _check(
        self,
        pick: Action,
        checks: dict[Action, list[float]],
        view: GameState,
        worlds: list[GameState],
        rng: random.Random,
        model: CostModel,
    ) -> None:
        """Play root candidate ``pick`` in its next world, greedy to the end; note the value."""
        stats = checks.get(pick)
        if stats is None:
            stats = checks[pick] = [0.0, 0.0]
        k = int(stats[0])
        if k == len(worlds):
            worlds.append(self._world(view, rng))
            if self.pool:
                self._casts.append(
                    [self.pool[int(rng.random() * len(self.pool))] for _ in range(view.n)]
                )
        state = worlds[k].copy()
        state.apply(pick)
        values = self._rollout(state, rng, model, math.inf, self._casts[k] if self.pool else None)
        stats[0] += 1.0
        stats[1] += values[view.current]

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        last = solo_endgame(view, rng, self.endgame)
        if isinstance(last, Reward):
            return last.piece
        return self.greedy.choose_reward(view, options, rng)

    def choose_level_up(self, view: GameState, rng: random.Random) -> Action:
        return self.greedy.choose_level_up(view, rng)

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        return self.greedy.finishing_touches(view, rng)

    # -- one iteration -------------------------------------------------------------------------
    def _iterate(
        self,
        root: _Node,
        pick: Action,
        view: GameState,
        worlds: list[GameState],
        rng: random.Random,
        model: CostModel,
        stop: float,
    ) -> None:
        """Play root candidate ``pick`` once more: in its next world, down the tree, a rollout."""
        o = self.options
        c, width = float(o["c"]), float(o["width"])
        # The root child's k-th visit plays in the k-th world (common deals across candidates).
        child = root.children.get(pick)
        if child is None:
            child = root.children[pick] = _Node(view.n)
        k = child.n
        w_index = k % self.cycle if self.cycle else k
        if w_index == len(worlds):
            worlds.append(self._world(view, rng))
            if self.pool:
                # rollout=mixed: who plays each seat in this world's rollouts, drawn with the
                # world, so every candidate meets the same cast in its k-th world
                self._casts.append(
                    [self.pool[int(rng.random() * len(self.pool))] for _ in range(view.n)]
                )
        state = worlds[w_index].copy()
        cast = self._casts[w_index] if self.pool else None
        state.apply(pick)
        node = child
        path = [root, child]
        fresh = k == 0
        leaf_anchor = self.options["anchor"] == "leaf"
        own_turn = o["tree"] == "turn"
        # reach: the visit goes on down the line, past a new node, to reach x k actions
        target = int(self.reach * k)
        while not fresh or len(path) - 2 < target:
            self._settle(state, rng)
            if state.phase == OVER or (state.turn >= stop and not leaf_anchor):
                break
            if own_turn and (state.turn != view.turn or state.current != view.current):
                break  # tree=turn: the tree searches the rest of the root's turn only
            key = _world_key(state)
            order = node.orders.get(key)
            if order is None:
                order = node.orders[key] = self._order(state, model, width)
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
            stop = float(state.turn + self._horizon() * view.n)
        if self.value_model is not None:
            values = self._leaf_values(state, rng, model, self._flat_turn_ends(k))
        else:
            values = self._rollout(state, rng, model, stop, cast)
        for nd in path:
            nd.n += 1
            w = nd.w
            for p, v in enumerate(values):
                w[p] += v

    def _flat_turn_ends(self, visit: int) -> int:
        """Return how many ends of the searching seat's turns a root candidate's ``visit``-th
        visit (from 0) plays its leaf through: 1, and with ``deepen`` one more every ``deepen``
        visits (the flat search's depth schedule; a small budget's visits are unchanged)."""
        d = self.deepen
        return 1 + visit // d if d else 1

    def _world(self, view: GameState, rng: random.Random) -> GameState:
        """Return a full state consistent with ``view``, what its seat can't see dealt with
        ``rng`` (a determinization; ``benchmarks/solo.py``'s ``Clairvoyant`` overrides it to see
        the deck)."""
        return determinize(view, rng)

    def _settle(self, state: GameState, rng: random.Random) -> None:
        """Answer reward choices, Level Up steps and Finishing Touches the greedy way (no tree
        node for them: ``value``'s ``settle``)."""
        settle(state, self.greedy, rng)

    def _rollout(
        self,
        state: GameState,
        rng: random.Random,
        model: CostModel,
        stop: float,
        cast: list[GreedyBot] | None = None,
    ) -> list[float]:
        """Play the rollout policy until ``stop`` (a turn) or the end; return the leaf values.

        ``cast``: the policy playing each seat (rollout=mixed), else greedy for all.
        """
        greedy = self.greedy
        while True:
            self._settle(state, rng)
            if state.phase == OVER or state.turn >= stop:
                break
            bot = greedy if cast is None else cast[state.current]
            action = bot.choose_with_insert(state)
            if action is None:
                action = rng.choice(state.legal_actions(master="none"))
            state.apply(action)
        return self._values(state, model)

    def _leaf_values(
        self, state: GameState, rng: random.Random, model: CostModel, turn_ends: int = 1
    ) -> list[float]:
        """Return each player's value of a leaf by the learned evaluation (leaf=value), played
        on the greedy way through ``turn_ends`` ends of the searching seat's turns (0: scored
        where it stands): half the predicted win chance, half the logistic of the predicted
        margin (as at the end)."""
        self._settle(state, rng)
        # played on the greedy way to the end of a turn of the searching seat (the rest of its
        # turn, or the others' turns and then its next): every leaf is scored at the point
        # value's candidates are, where the evaluation's rollout rows order positions
        me = self._root
        steps = 0
        ended = 0
        while state.phase == PLAY and ended < turn_ends and steps < MAX_LEAF_ACTIONS:
            mine = state.current == me
            turn = state.turn
            action = self.greedy.choose_with_insert(state)
            if action is None:
                action = rng.choice(state.legal_actions(master="none"))
            state.apply(action)
            self._settle(state, rng)
            steps += 1
            if mine and (state.current != me or state.turn != turn):
                ended += 1
        if state.phase == OVER:
            return self._values(state, model)
        vm = self.value_model
        assert vm is not None
        scale = float(self.options["scale"])
        memo: dict[tuple[int, ...], Plan] = {}  # each seat's plans, planned once for all views
        if self._mover_only:
            row = position_features(state, me, self._private & ~(1 << me), self._per_card, memo)
            win, margin = vm.evaluate_rows([row])[0]
            values = [0.0] * state.n
            values[me] = 0.5 * win + 0.5 * _logistic(margin / scale)
            return values
        rows = [
            position_features(state, p, self._private & ~(1 << p), self._per_card, memo)
            for p in range(state.n)
        ]
        return [
            0.5 * win + 0.5 * _logistic(margin / scale) for win, margin in vm.evaluate_rows(rows)
        ]

    def _values(self, state: GameState, model: CostModel) -> list[float]:
        """Return each player's value: a win chance from the score margin over the best rival.

        At the end, half the real win share and half the logistic of the real margin (the
        margin still tells a close loss from a rout, and a win by more from a win by less).
        """
        n = state.n
        scale = float(self.options["scale"])
        est = [score_estimate(state, p, model) for p in range(n)]
        # solo: the rival is the mastermind, whose score is its pile so far
        lone = float(state.opponent_score()) if solo_table(state) is not None else 0.0
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
    def _order(self, state: GameState, model: CostModel, width: float) -> list[Action]:
        """Return a node's candidates, the greedy choice first; with ``width`` 0 only the first
        is ever taken, so only it is found (the rest of the list costs most of a node)."""
        if width > 0:
            return self._candidates(state, model)
        first = self.greedy.choose_with_insert(state)
        return [first] if first is not None else self._candidates(state, model)[:1]

    def _candidates(self, state: GameState, model: CostModel) -> list[Action]:
        """Return the actions to search, the greedy choice first."""
        cands = searched_candidates(state, self.greedy, model, self.weights)
        if not cands:
            cands = state.legal_actions(master="none")
        elif self.places > 0:
            cands = shortlist(cands, model.levels, self.places)
        return cands


def _better_checked(checks: dict[Action, list[float]], alive: list[Action]) -> list[Action]:
    """Return the better half of ``alive`` by their checked mean (rollouts to the end)."""
    scored = []
    for i, a in enumerate(alive):
        stats = checks.get(a)
        value = stats[1] / stats[0] if stats is not None and stats[0] else -1.0
        scored.append((-value, i, a))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [a for _, _, a in scored[: (len(alive) + 1) // 2]]


def _better_half(
    root: _Node, alive: list[Action], me: int, favoured: Action, bonus: float
) -> list[Action]:
    """Return the better half of ``alive`` by the mover's mean value, ``favoured`` (the greedy
    choice) with ``bonus`` on top (stable: ties keep order)."""
    scored = []
    for i, a in enumerate(alive):
        ch = root.children.get(a)
        value = ch.w[me] / ch.n if ch is not None and ch.n else -1.0
        if a == favoured and ch is not None and ch.n:
            value += bonus
        scored.append((-value, i, a))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [a for _, _, a in scored[: (len(alive) + 1) // 2]]


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
    solo = solo_table(state)  # the solo variant's grid of face-up puzzles
    return (
        state.current,
        state.rows[0],
        state.rows[1],
        tuple(s[0] for s in state.slots[state.current]),
        solo.grid if solo is not None else (),
    )


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)
