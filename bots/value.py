"""The ``value`` bot: a shallow search on the learned evaluation.

Each decision deals one world consistent with the view (``bots._state.determinize``: the unseen
deck cards, and the others' hidden piles, dealt with the bot's ``rng``), plays each candidate in
it (``heuristics.candidate_actions``, the greedy choice first, as ``mcts`` searches them; in
Finesse each also as an Insert; shortlisted by ``shortlist`` and ``best_takes``), finishes the
turn the greedy way (``finish=1``: every candidate is then scored at the same point, the turn's
end), answers a reward, Level Up or Finishing Touches the greedy way, and scores the position
reached for the player with the learned evaluation (``bots.value_model``): its predicted win
chance plus ``margin`` times its predicted margin per 10 points, the real result where the game
has ended.
The greedy choice gets ``prior`` on top: another candidate must beat it by that much.
``ply=2`` searches further the ``width`` best candidates that leave the player an action this
turn: each is then worth its best continuation. A reward choice is the option of the best
value; solo's last actions are searched exactly (``bots.endgame``) as greedy does.

Why ``finish`` and ``prior`` (measured, 2 players against greedy, 40-60 games each, the first
shipped model): scored right after it, a candidate is compared with the others mid-turn, where
the evaluation is weakest (a Place that breaks another puzzle's plan looks worse than a Recycle
that changes nothing of one's own), and ``value`` lost every game; with the turn finished the
greedy way it won 20% (no prior), 35% (0.03) and 58% (0.1); with ``margin`` 0.5, 66%.

The model is the shipped one or a user's (``model=PATH``, trained by ``projectl-sim
train-value``); ``repr`` always names the file's hash (``value:hash=...``), so every record and
table row says which model played, and a spec naming another hash than the file's is refused.
Every expansion and variant is played through the engine's legal actions and the features'
public view (``bots.features``). Compiled with mypyc (``_native.MODULES``).
"""

from __future__ import annotations

import gc
import random
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from bots._state import FINISHING, LEVEL_UP, OVER, PLAY, REWARD, active_credits, determinize
from bots.base import Bot
from bots.endgame import solo_endgame
from bots.features import Plan, hidden_piles, mean_unseen_points, position_features
from bots.greedy import SOLO_PARAMS, GreedyBot
from bots.heuristics import UNREACHABLE, CostModel, Weights, candidate_actions, cost_model
from bots.params import Matches, OneOf, Param, Range
from bots.policies import BuilderBot, RecyclerBot, RusherBot, SetterBot
from bots.value_model import ValueModel, kept_name, load_model, model_name
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import (
    Action,
    Finish,
    Place,
    Recycle,
    Reward,
    Take,
    TakeBasic,
    Upgrade,
)
from projectl_sim.errors import UsageError
from projectl_sim.expansions.finesse import Insert

_WEIGHTS: Final = Weights()
_DISCOUNT: Final = 0.85  # per action a take's puzzle needs (as the features' best_take)
MAX_ROLLOUT_ACTIONS: Final = 2000  # a rollout is cut off after this many actions (stalled)
# the heuristic a value bot builds on (base=): its choice is the first candidate (the prior's),
# and it finishes every candidate's turn and answers rewards, Level Ups and Finishing Touches
BASES: Final[dict[str, type[GreedyBot]]] = {
    "greedy": GreedyBot,
    "rusher": RusherBot,
    "builder": BuilderBot,
    "setter": SetterBot,
    "recycler": RecyclerBot,
}

MODEL_PARAMS: Final[dict[str, Param]] = {
    "model": (
        "",
        "value model file (empty: the shipped model)",
        Matches(r"[^,]*", "a file path without commas (empty: the shipped model)"),
    ),
    "hash": (
        "",
        "the model file's hash, checked against the file (empty: any; the spec always names it)",
        Matches(r"[0-9a-f]{12}|", "12 hex digits (empty: any)"),
    ),
}


def check_model(owner: str, path: str, digest: str) -> ValueModel:
    """Return the model ``path`` names, refusing it when ``digest`` is given and differs."""
    model = load_model(path)
    if digest and digest != model.hash:
        where = path if path else "the shipped model"
        kept = kept_name(digest)  # a former default or a candidate, shipped beside it
        plays = f"; model={kept} plays that one" if kept else ""
        raise UsageError(
            f"bot {owner}: hash={digest} names another model than {where} (its hash is "
            f"{model.hash}): a table made with another model file{plays}"
        )
    return model


def model_spec(model: ValueModel, path: str) -> list[str]:
    """Return the spec items that name a model: its file (if not the shipped) and its hash."""
    items = [] if not path else [f"model={model_name(model.path)}"]
    return [*items, f"hash={model.hash}"]


def searched_candidates(
    state: GameState, greedy: GreedyBot, model: CostModel, weights: Weights = _WEIGHTS
) -> list[Action]:
    """Return the heuristic's candidates (by ``weights``; Finesse: each as an Insert too), the
    greedy choice first; empty when there are none (``candidates`` then falls back to every
    legal action). ``mcts`` searches the same, by its own weights."""
    cands = candidate_actions(state, weights, model)
    if active_credits(state, state.current) >= state.rules.insert_cost:
        cands += [Insert(a) for a in cands]  # Finesse: each candidate as an Insert too
    g = greedy.choose_with_insert(state)
    if g is not None:
        if g in cands:
            cands.remove(g)
        cands.insert(0, g)
    return cands


def candidates(state: GameState, greedy: GreedyBot, model: CostModel) -> list[Action]:
    """Return the actions the value search compares: the heuristic's, the greedy choice first."""
    cands = searched_candidates(state, greedy, model)
    if not cands:
        cands = state.legal_actions(master="none")
    return cands


def shortlist(
    cands: list[Action],
    levels: tuple[int, ...],
    per_card: int,
    upgrades: int = 0,
    basic: bool = True,
) -> list[Action]:
    """Return the candidates worth scoring: the greedy choice (first), and of the rest at most
    ``per_card`` Places a puzzle (its largest pieces) and one Upgrade per pair of levels (the
    first of the heuristic's order), at most ``upgrades`` of them (0: no limit, as an Insert
    apart), the level-1 take only with ``basic``; everything else as it is. (Measured on greedy
    games: of 26 candidates a decision, 7 are Places and 8 Upgrades; the features of a
    candidate's position cost most of a decision, so the cut is what keeps ``value`` near 1
    ms.)"""
    places: dict[tuple[bool, int], list[tuple[int, int]]] = {}
    for i in range(1, len(cands)):
        a = cands[i]
        inner = a.inner if isinstance(a, Insert) else a
        if isinstance(inner, Place):
            places.setdefault((inner is not a, inner.card), []).append((-levels[inner.piece], i))
    keep: set[int] = set()
    for group in places.values():
        group.sort()
        for _, i in group[:per_card]:
            keep.add(i)
    climbs: set[tuple[bool, int, int]] = set()
    kept = [0, 0]  # Upgrades kept: as themselves, as Inserts
    out = [cands[0]]
    for i in range(1, len(cands)):
        a = cands[i]
        inner = a.inner if isinstance(a, Insert) else a
        if isinstance(inner, Place):
            if i not in keep:
                continue
        elif isinstance(inner, Upgrade):
            insert = inner is not a
            slot = 1 if insert else 0
            key = (insert, levels[inner.give], levels[inner.get])
            if key in climbs or (upgrades and kept[slot] >= upgrades):
                continue
            climbs.add(key)
            kept[slot] += 1
        elif isinstance(inner, Recycle):
            continue  # only as greedy's choice (first): it changes nothing of one's own
        elif not basic and isinstance(inner, TakeBasic):
            continue
        out.append(a)
    return out


def best_takes(state: GameState, cands: list[Action], model: CostModel, keep: int) -> list[Action]:
    """Return the candidates with at most ``keep`` Takes of face-up puzzles (and as many as
    Inserts), the greedy choice (first) always kept: the best by discounted points per action
    with the pieces held (the features' ``best_take`` rate), ties in the heuristic's order.
    (Measured on value's games against greedy: of 14 candidates a decision, 6.7 are Takes.)"""
    t = model.tab
    supply = state.placeable_supply(state.current)
    code = model.code(supply)
    rates: dict[bool, list[tuple[float, int]]] = {}  # (as an Insert?) -> (-rate, index)
    for i in range(1, len(cands)):
        a = cands[i]
        inner = a.inner if isinstance(a, Insert) else a
        if isinstance(inner, Take):
            card = inner.card
            cost = model.cost_with(t.recess[card], supply, code)[0]
            pts = t.points[card] + 0.5 * t.reward_level[card]
            rate = pts * _DISCOUNT**cost / (1 + cost) if cost < UNREACHABLE else 0.0
            rates.setdefault(inner is not a, []).append((-rate, i))
    drop: set[int] = set()
    for group in rates.values():
        group.sort()
        for _, i in group[keep:]:
            drop.add(i)
    if not drop:
        return cands
    return [a for i, a in enumerate(cands) if i not in drop]


PLACES: Final = 1  # value's default ``places``
UPGRADES: Final = 1  # value's default ``upgrades``
BASIC: Final = 1  # value's default ``basic``
TAKES: Final = 4  # value's default ``takes``


def scored_candidates(
    state: GameState,
    greedy: GreedyBot,
    model: CostModel,
    places: int = PLACES,
    takes: int = TAKES,
    upgrades: int = UPGRADES,
    basic: int = BASIC,
) -> list[Action]:
    """Return the candidates ``value`` scores for the seat to move in ``state``: ``candidates``
    (the greedy choice first), shortlisted (``places`` Places a puzzle, ``upgrades`` and
    ``basic``: ``shortlist``; ``places`` 0 keeps them all) and cut to the ``takes`` best Takes
    (``best_takes``; 0 keeps them all); by default what a default ``value`` scores."""
    cands = candidates(state, greedy, model)
    if places > 0:
        cands = shortlist(cands, model.levels, places, upgrades, bool(basic))
    if takes > 0:
        cands = best_takes(state, cands, model, takes)
    return cands


def settle(state: GameState, greedy: GreedyBot, rng: random.Random) -> None:
    """Answer reward choices, Level Up steps and Finishing Touches the greedy way."""
    while state.phase in (REWARD, FINISHING, LEVEL_UP):
        if state.phase == REWARD:
            state.apply(Reward(greedy.choose_reward(state, state.reward_options, rng)))
        elif state.phase == LEVEL_UP:
            state.apply(greedy.choose_level_up(state, rng))
        else:
            state.apply(greedy.finishing_touches(state, rng))


def play_out(
    state: GameState, greedy: GreedyBot, rng: random.Random, max_actions: int = MAX_ROLLOUT_ACTIONS
) -> None:
    """Play ``state`` on with ``greedy`` in every seat (``settle`` answering the rest) until the
    game is over or ``max_actions`` actions were played (a stalled table)."""
    steps = 0
    while state.phase != OVER and steps < max_actions:
        settle(state, greedy, rng)
        if state.phase == OVER:
            break
        action = greedy.choose_with_insert(state)
        if action is None:
            action = rng.choice(state.legal_actions(master="none"))
        state.apply(action)
        steps += 1


def final_margin(state: GameState, player: int) -> float:
    """Return ``player``'s final margin over the best rival (solo: the mastermind)."""
    scores = state.final_scores()
    if state.rules.solo:
        return float(scores[player] - state.opponent_score())
    best = -1_000_000
    for q in range(state.n):
        if q != player and scores[q] > best:
            best = scores[q]
    return float(scores[player] - best)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled; users' bots may extend it
class ValueBot(Bot):
    name = "value"
    summary = (
        "one- or two-ply search on a learned evaluation (win chance and margin from the "
        "public view); model= a file of projectl-sim train-value"
    )
    params: ClassVar[dict[str, Param]] = {
        **MODEL_PARAMS,
        "ply": (
            1,
            "1: score each candidate's position; 2: the best `width` are searched one action on",
            Range(1, 2),
        ),
        "width": (3, "ply=2: how many of the best candidates are searched further", Range(1, 64)),
        "margin": (
            0.5,
            "weight of the predicted margin (per 10 points) beside the win chance",
            Range(0.0, 10.0),
        ),
        "prior": (
            0.1,
            "bonus of the greedy choice's value (the learned value must beat greedy by this)",
            Range(0.0, 1.0),
        ),
        "finish": (
            1,
            "1: each candidate's turn is finished the greedy way before it is scored; 0: scored "
            "right after it",
            Range(0, 1),
        ),
        "places": (
            PLACES,
            "Places scored per puzzle (its largest pieces; 0 = every candidate, no shortlist)",
            Range(0, 30),
        ),
        "upgrades": (
            UPGRADES,
            "Upgrades scored (one per pair of levels, the heuristic's first; 0 = every such one)",
            Range(0, 30),
        ),
        "basic": (
            BASIC,
            "1: the level-1 take is scored; 0: only as the greedy choice",
            Range(0, 1),
        ),
        "takes": (
            TAKES,
            "Takes of face-up puzzles scored, the best by points per action (0 = every one)",
            Range(0, 30),
        ),
        "rollouts": (
            0,
            "greedy rollouts to the end per candidate for the `top` best by value (0: none); "
            "common to the candidates (rollout r: the same dealt world, the same random stream)",
            Range(0, 1000),
        ),
        "top": (3, "rollouts>0: the candidates (best by value) the rollouts decide", Range(2, 64)),
        "base": (
            "greedy",
            "the heuristic built on: its choice gets the prior, it finishes each candidate's turn",
            OneOf(*BASES),
        ),
        "endgame": SOLO_PARAMS["endgame"],
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.places = int(self.options["places"])
        self.takes = int(self.options["takes"])
        self.upgrades = int(self.options["upgrades"])
        self.basic = bool(self.options["basic"])
        self.prior = float(self.options["prior"])
        self.finish = int(self.options["finish"])
        self.model = check_model(self.name, str(self.options["model"]), str(self.options["hash"]))
        self.margin_scale = self.model.margin_scale
        self.margin_w = float(self.options["margin"])
        self.ply = int(self.options["ply"])
        self.width = int(self.options["width"])
        self.endgame = int(self.options["endgame"])
        self.rollouts = int(self.options["rollouts"])
        self.top = int(self.options["top"])
        self.greedy = BASES[str(self.options["base"])](endgame=0)
        self.evaluations = 0  # over the bot's life (for benchmarks)

    def __repr__(self) -> str:
        items = [
            f"{k}={v}"
            for k, v in self.options.items()
            if k not in MODEL_PARAMS and v != self.params[k][0]
        ]
        items += model_spec(self.model, str(self.options["model"]))
        return self.name + ":" + ",".join(items)

    # -- values --------------------------------------------------------------------------------
    def values(
        self, states: list[GameState], player: int, hidden: int, per_card: float
    ) -> list[float]:
        """Return what each state is worth to ``player``: the predicted win chance plus
        ``margin`` times the predicted margin per 10 points (an ended game: the real ones),
        the positions scored in one batch."""
        out = [0.0] * len(states)
        rows: list[list[float]] = []
        at: list[int] = []
        scale = self.margin_scale
        memo: dict[tuple[int, ...], Plan] = {}  # the seats' plans the candidates share
        for i, state in enumerate(states):
            if state.phase == OVER:
                winners = state.winners()
                share = 1.0 / len(winners) if player in winners else 0.0
                out[i] = share + self.margin_w * final_margin(state, player) / scale
            else:
                rows.append(position_features(state, player, hidden, per_card, memo))
                at.append(i)
        if rows:
            self.evaluations += len(rows)
            for i, (win, margin) in zip(at, self.model.evaluate_rows(rows), strict=True):
                out[i] = win + self.margin_w * margin / scale
        return out

    def scored(self, state: GameState, model: CostModel) -> list[Action]:
        """Return the candidates this bot scores in ``state``, the greedy choice first: the
        heuristic's, shortlisted (``places``, ``upgrades``, ``basic``) and their Takes cut to the
        ``takes`` best."""
        return scored_candidates(
            state, self.greedy, model, self.places, self.takes, self.upgrades, self.basic
        )

    def after(self, world: GameState, action: Action, rng: random.Random) -> GameState:
        """Return the state this bot scores ``action`` of ``world`` by: a copy after it, settled,
        and (``finish``) the rest of its seat's turn played the base heuristic's way."""
        # with ``finish``, the rest of the turn the greedy way: every candidate is scored at the
        # same point, the turn's end, with greedy's follow-through of it
        return turn_after(world, action, self.greedy, rng, bool(self.finish))

    # -- decisions -----------------------------------------------------------------------------
    # A decision's temporaries (the candidates' states, feature rows) hold no reference cycles:
    # reference counting frees them, and the cyclic collector's passes over them while they live
    # find nothing and cost a tenth of a decision (measured: 0.713 -> 0.642 ms CPU on the same
    # 60 games). The collector is paused for the decision, and runs as before between them.
    def act(self, view: GameState, rng: random.Random) -> Action:
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            return self._act(view, rng)
        finally:
            if paused:
                gc.enable()

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            return self._choose_reward(view, options, rng)
        finally:
            if paused:
                gc.enable()

    def _act(self, view: GameState, rng: random.Random) -> Action:
        last = solo_endgame(view, rng, self.endgame)
        if last is not None:
            return last
        model = cost_model(view)
        cands = self.scored(view, model)
        if len(cands) == 1:
            return cands[0]
        me = view.current
        hidden = hidden_piles(view)
        per_card = mean_unseen_points(view) if hidden else 0.0
        world = determinize(view, rng)
        states = [self.after(world, a, rng) for a in cands]
        values = self.values(states, me, hidden, per_card)
        values[0] += self.prior  # the greedy choice is first
        if self.rollouts > 0:
            return cands[self._roll_off(view, cands, values, rng)]
        best = 0
        for i in range(1, len(values)):
            if values[i] > values[best]:
                best = i  # ties: the earlier candidate (the greedy choice)
        if self.ply < 2:
            return cands[best]
        # ply 2: the `width` best that leave the player an action this turn are worth their
        # best continuation (every continuation scored in one batch)
        order = sorted(range(len(cands)), key=lambda i: (-values[i], i))
        follow: list[GameState] = []
        owner: list[int] = []
        for i in order[: self.width]:
            s = states[i]
            if s.phase == PLAY and s.current == me:
                for b in self.scored(s, model):
                    follow.append(self.after(s, b, rng))
                    owner.append(i)
        if follow:
            deep = [-1e9] * len(cands)
            for i, v in zip(owner, self.values(follow, me, hidden, per_card), strict=True):
                if v > deep[i]:
                    deep[i] = v
            for i in set(owner):
                values[i] = deep[i] + (self.prior if i == 0 else 0.0)
            best = 0
            for i in range(1, len(values)):
                if values[i] > values[best]:
                    best = i
        return cands[best]

    def _roll_off(
        self, view: GameState, cands: list[Action], values: list[float], rng: random.Random
    ) -> int:
        """Return the index of the candidate that wins the rollouts among the ``top`` best by
        value (the base's choice always among them): each rollout deals one world and one random
        stream, the same for every candidate, so their differences are the candidates' own."""
        order = sorted(range(len(cands)), key=lambda i: (-values[i], i))[: self.top]
        if 0 not in order:
            order[-1] = 0
        me = view.current
        total = [0.0] * len(cands)
        for _ in range(self.rollouts):
            seed = rng.getrandbits(62)
            world = determinize(view, random.Random(seed))
            for i in order:
                state = self.after(world, cands[i], random.Random(seed + 1))
                total[i] += self._play_out(state, random.Random(seed + 2), me)
        best = order[0]
        for i in order:
            if total[i] > total[best] + 1e-9 or (abs(total[i] - total[best]) <= 1e-9 and i < best):
                best = i  # ties: the earlier candidate (the base's choice first)
        return best

    def _play_out(self, state: GameState, rng: random.Random, me: int) -> float:
        """Play ``state`` to the end with the base heuristic in every seat; return its value to
        ``me`` (the win share plus ``margin`` times the margin per 10 points)."""
        play_out(state, self.greedy, rng)
        if state.phase != OVER:
            return 0.0  # a rollout that does not end (a stalled table) counts as nothing
        winners = state.winners()
        share = 1.0 / len(winners) if me in winners else 0.0
        return share + self.margin_w * final_margin(state, me) / self.margin_scale

    def _choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        last = solo_endgame(view, rng, self.endgame)
        if isinstance(last, Reward):
            return last.piece
        if len(options) == 1:
            return options[0]
        me = view.current
        hidden = hidden_piles(view)
        per_card = mean_unseen_points(view) if hidden else 0.0
        world = determinize(view, rng)
        states = [self.after(world, Reward(piece), rng) for piece in options]
        values = self.values(states, me, hidden, per_card)
        best = 0
        for i in range(1, len(values)):
            if values[i] > values[best]:
                best = i
        return options[best]

    def choose_level_up(self, view: GameState, rng: random.Random) -> Action:
        return self.greedy.choose_level_up(view, rng)

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        return self.greedy.finishing_touches(view, rng)


__all__ = [
    "MODEL_PARAMS",
    "ValueBot",
    "best_takes",
    "candidates",
    "check_model",
    "final_margin",
    "scored_candidates",
    "settle",
    "shortlist",
]


def turn_after(
    world: GameState, action: Action, greedy: GreedyBot, rng: random.Random, finish: bool = True
) -> GameState:
    """Return a copy of ``world`` after ``action``, settled, and (``finish``) the rest of its
    seat's turn played the greedy way: the state ``value`` scores a candidate by."""
    state = world.copy()
    me = state.current
    state.apply(action)
    settle(state, greedy, rng)
    turn = state.turn
    while finish and state.phase == PLAY and state.current == me and state.turn == turn:
        nxt = greedy.choose_with_insert(state)
        if nxt is None:
            break
        state.apply(nxt)
        settle(state, greedy, rng)
    return state


__all__ += ["turn_after"]
