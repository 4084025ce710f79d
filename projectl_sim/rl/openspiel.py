"""Project L as an OpenSpiel game: ``import projectl_sim.rl.openspiel`` registers it.

``pyspiel.load_game("python_project_l", {"players": 3, "expansions": "ghost+finesse"})`` takes
``players``, ``variant``, ``expansions`` and every rules option of
``projectl_sim.rl.options.rule_options()`` as OpenSpiel parameters (``known_victory_points``,
``row_size``, ``black_deck_2p`` ...; ``starting_supply`` as ``mono+domino``). Player actions are
the tokens of ``projectl_sim.rl.codec`` (one engine action is one to a few consecutive moves of
the same player), so the game agrees with the engine exactly.

Chance is explicit. The setup is dealt by chance nodes (the first player, each face-up card,
each face-up Finesse tile, the solo mastermind's random pieces), and so is every card a deck
gives during play: when a player's action is complete, one chance node per card it draws from
a deck's unknown part (refilling a row, a blind take, a Recycle, the mastermind's take) picks
that card uniformly among the cards of its colour nobody has seen; then the engine applies
the action with those cards on top of the deck (``projectl_sim.engine.chance.stack_deck``).
The two face-down Finesse tiles, which no rule ever reads, are not dealt by chance.

With ``known_victory_points=true`` nothing is hidden, and the game is one of perfect
information with chance (solo too: the mastermind's pile is public). Otherwise it is of
imperfect information: the victory piles of the others are face down (the rulings), so their
cards and points are hidden. A player's information state is its view of the game now
(``GameState.view``: the table, every player's unfinished puzzles, supply and pile size, its
own pile) with the decision in progress: that reading assumes a player keeps no count of the
cards the others completed (the rulings' face-down piles), so an algorithm that needs perfect
recall should play with ``known_victory_points=true``. ``resample_from_infostate`` deals the
others' hidden pile cards again among the cards the player has not seen (each for one of the
same colour and reward, so every count the player sees stays true), as OpenSpiel's ISMCTS asks.

Returns are win shares (1 for a win, 1/k for a win shared by k, else 0; solo: 1 for beating
the mastermind). Not offered: ``endless_white_deck`` (its reshuffle is not a chance node).

An action that is not legal at a node (a player's or chance's) is a ``ValueError`` naming it,
before the state changes; ``deserialize_state`` replays the text's history through the same
checks, so a text that is not a state of this game is a ``ValueError`` saying why.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pyspiel

from projectl_sim.engine import GameState, deal, new_game
from projectl_sim.engine.actions import BLACK, WHITE, Action
from projectl_sim.engine.chance import exchange_cards, stack_deck
from projectl_sim.engine.dealing import rng_from_seed
from projectl_sim.engine.state import END_RULES
from projectl_sim.expansions.finesse import FACE_DOWN, ROW_LENGTH, ROW_SETS, tileset_of
from projectl_sim.rl.codec import Decision, Observer, Vocabulary, action_tokens
from projectl_sim.rl.options import EnvValueError, make_rules, rule_options
from projectl_sim.rules import GRID_SIZE, SOLO_LOCKS, Rules

SHORT_NAME = "python_project_l"
BASE_SEED = 0  # the setup the chance nodes deal over (its deck order is never used as such)


def _parameters() -> dict[str, Any]:
    params: dict[str, Any] = {"players": 2, "variant": "standard", "expansions": "none"}
    for name, option in rule_options().items():
        params[name] = option.default
    return params


def _game_type(information: Any, utility: Any, min_players: int = 1) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Python Project L",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=information,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(),
    )


_PERFECT = pyspiel.GameType.Information.PERFECT_INFORMATION
_GAME_TYPE = _game_type(
    pyspiel.GameType.Information.IMPERFECT_INFORMATION, pyspiel.GameType.Utility.CONSTANT_SUM
)


def rules_of(params: dict[str, Any]) -> Rules:
    """Return the rules of a game's OpenSpiel parameters (a bad one is a one-line error)."""
    params = {**_parameters(), **params}
    options = {k: v for k, v in params.items() if k not in ("players", "variant", "expansions")}
    defaults = rule_options()
    changed = {k: v for k, v in options.items() if v != defaults[k].default}
    rules = make_rules(
        players=int(params["players"]),
        variant=str(params["variant"]),
        expansions=str(params["expansions"]),
        **changed,
    )
    if rules.endless_white_deck:
        raise EnvValueError(
            "python_project_l does not play endless_white_deck: its reshuffle is no chance node "
            "(the PettingZoo environment plays it)"
        )
    return rules


class ProjectLGame(pyspiel.Game):
    """Project L for the rules of its parameters (see the module's docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        rules = rules_of(params)
        self.rules = rules
        self.vocab = Vocabulary(rules)
        self.observer = Observer(self.vocab)
        self.tileset = tileset_of(rules) if rules.finesse else None
        n_tiles = len(self.tileset.tiles) if self.tileset is not None else 0
        perfect = rules.known_victory_points or rules.solo  # solo hides nothing: all is public
        info = pyspiel.GameType.Information
        utility = pyspiel.GameType.Utility
        game_type = _game_type(
            info.PERFECT_INFORMATION if perfect else info.IMPERFECT_INFORMATION,
            utility.GENERAL_SUM if rules.solo else utility.CONSTANT_SUM,
        )
        cat = rules.catalogue
        length = rules.max_rounds * rules.players * (rules.actions_per_turn + 2) * 32 + 64
        game_info = pyspiel.GameInfo(
            num_distinct_actions=self.vocab.n,
            max_chance_outcomes=max(len(cat.puzzles), n_tiles, len(cat.pieces), rules.players),
            num_players=rules.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None if rules.solo else 1.0,
            max_game_length=length,
        )
        super().__init__(game_type, game_info, params)
        self.base_setup = deal(rules, rng_from_seed(BASE_SEED))

    def __deepcopy__(self, memo: Any) -> ProjectLGame:
        return self  # immutable: its states' clones share it

    def __reduce__(self) -> tuple[Any, ...]:
        return (pyspiel.load_game, (str(self),))

    def new_initial_state(self) -> ProjectLState:
        return ProjectLState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SeatObserver:
        return SeatObserver(self)

    def deserialize_state(self, text: str) -> ProjectLState:
        """Return the state ``State.serialize`` wrote: its history replayed, each action checked."""
        if not isinstance(text, str):
            raise TypeError(f"deserialize_state takes the text serialize() wrote, got {text!r}")
        first = text.split("\n", 1)[0]
        if not first.startswith("history="):
            shown = first[:40] + ("..." if len(first) > 40 else "")
            raise ValueError(
                f"deserialize_state: not a serialized {SHORT_NAME} state (it begins "
                f"'history=...', this one {shown!r})"
            )
        state = self.new_initial_state()
        items = [i for i in first[len("history=") :].split(",") if i]
        for n, item in enumerate(items):
            player, _, action = item.rpartition(":")
            try:
                number = int(action)
                int(player)
            except ValueError:
                raise ValueError(
                    f"deserialize_state: history item {n} {item!r} is not PLAYER:ACTION"
                ) from None
            try:
                state.apply_action(number)
            except ValueError as exc:
                raise ValueError(f"deserialize_state: history item {n}: {exc}") from None
        return state


class _Replay:
    """What a serialized state's play unpickles to: it is rebuilt from the state's history."""


class _Play:
    """The engine's side of a state: its game (never changed again: each move makes a new
    one, so clones share it), the decision in progress, an action waiting for its draws."""

    __slots__ = ("action", "decision", "drawn", "draws", "state")

    def __init__(self) -> None:
        self.state: GameState | None = None
        self.decision: Decision | None = None
        self.action: Action | None = None  # an action waiting for the cards it draws
        self.draws: list[int] = []  # the colours of those cards, in order
        self.drawn: list[int] = []  # the cards chance picked for them so far

    def __deepcopy__(self, memo: Any) -> _Play:
        p = _Play()
        p.state, p.action = self.state, self.action
        p.decision = None if self.decision is None else self.decision.copy()
        p.draws, p.drawn = self.draws[:], self.drawn[:]
        return p

    def __reduce__(self) -> tuple[Any, ...]:
        return (_Replay, ())  # serialization keeps the history; the play is replayed from it


class ProjectLState(pyspiel.State):
    """A game in progress: the setup's chance nodes, then the engine's game token by token.

    The engine's state is copied before every change (``_changed``), never changed in place,
    so OpenSpiel's ``clone`` (a deep copy) shares it and costs a few list copies; a serialized
    state is its history, replayed when it is read back.
    """

    def __init__(self, game: ProjectLGame) -> None:
        super().__init__(game)
        self.g = game
        self._p: _Play | _Replay = _Play()
        self._setup_nodes()

    @property
    def p(self) -> _Play:
        play = self._p
        if isinstance(play, _Replay):  # read back from a serialized state: replay its history
            fresh = self.g.new_initial_state()
            for action in self.history():
                fresh.apply_action(action)
            self.chosen = fresh.chosen
            play = self._p = fresh.p
        return play

    @property
    def rules(self) -> Rules:
        return self.g.rules

    @property
    def state(self) -> GameState | None:
        return self.p.state

    @property
    def decision(self) -> Decision | None:
        return self.p.decision

    @decision.setter
    def decision(self, value: Decision | None) -> None:
        self.p.decision = value

    @property
    def action(self) -> Action | None:
        return self.p.action

    @property
    def draws(self) -> list[int]:
        return self.p.draws

    @property
    def drawn(self) -> list[int]:
        return self.p.drawn

    def _changed(self) -> GameState:
        """Return a copy of the state to change (the current one stays as clones see it)."""
        assert self.p.state is not None
        new = self.p.state.copy()
        self.p.state = new
        return new

    # -- the setup, dealt by chance ------------------------------------------------------------
    def _setup_nodes(self) -> None:
        rules = self.rules
        cat = rules.catalogue
        base = self.g.base_setup
        self.nodes: list[tuple[str, int]] = []  # (kind, colour or position)
        self.chosen: list[int] = []
        if not rules.solo:
            self.nodes.append(("first", 0))
            shell = new_game(rules, setup=base)
            for colour, key in ((WHITE, "white_deck"), (BLACK, "black_deck")):
                up = len(base[key]) - len(shell.decks[colour])
                self.nodes += [("card", colour)] * up
        else:
            self.nodes += [("card", WHITE)] * GRID_SIZE
            if rules.solo_opponent_pieces == "random":
                wanted = sum(SOLO_LOCKS) + rules.opponent_supply_size
                self.nodes += [("piece", 0)] * wanted
        if rules.finesse:
            self.nodes += [("tile", k) for k in range(FACE_DOWN, ROW_LENGTH)]
        del cat

    def _setup_outcomes(self) -> list[tuple[int, float]]:
        kind, arg = self.nodes[len(self.chosen)]
        done = [c for (k, _), c in zip(self.nodes, self.chosen, strict=False) if k == kind]
        cat = self.rules.catalogue
        if kind == "first":
            n = self.rules.players
            return [(p, 1.0 / n) for p in range(n)]
        if kind == "card":
            pool = [c for c in cat.of_colour(("white", "black")[arg]) if c not in done]
            return [(c, 1.0 / len(pool)) for c in pool]
        if kind == "piece":
            left = [p.copies - self.rules.starting_supply.count(p.id) for p in cat.pieces]
            for p in done:
                left[p] -= 1
            for p in cat.ghost_pieces:
                left[p] = 0
            total = sum(left)
            return [(p, k / total) for p, k in enumerate(left) if k]
        # a face-up Finesse tile: its set by the sets' places left, then uniform in the set
        assert self.g.tileset is not None
        tiles = self.g.tileset.tiles
        places = ROW_LENGTH - len(done)
        out = []
        for set_name, k in ROW_SETS:
            need = k - sum(tiles[t].set == set_name for t in done)
            pool = [
                t
                for t in self.g.tileset.pool(
                    set_name, self.rules.finesse_ambassador, self.rules.solo
                )
                if t not in done
            ]
            out += [(t, need / places / len(pool)) for t in pool] if need else []
        return sorted(out)

    def _start_game(self) -> None:
        rules = self.rules
        cat = rules.catalogue
        setup = {k: (list(v) if isinstance(v, list) else v) for k, v in self.g.base_setup.items()}
        picks = list(zip(self.nodes, self.chosen, strict=True))

        def ids(kind: str, colour: int | None = None) -> list[Any]:
            return [c for (k, a), c in picks if k == kind and (colour is None or a == colour)]

        if not rules.solo:
            setup["first_player"] = ids("first")[0]
            setup.pop("markers", None)  # Line Clear's: they follow the first player
            for colour, key in ((WHITE, "white_deck"), (BLACK, "black_deck")):
                setup[key] = _stack(setup[key], [cat.puzzles[c].id for c in ids("card", colour)])
        else:
            deck = setup["deck"]
            whites = rules.white_deck_size
            grid = [cat.puzzles[c].id for c in ids("card", WHITE)]
            setup["deck"] = _stack(deck[:whites], grid) + deck[whites:]
            pieces = [cat.pieces[p].id for p in ids("piece")]
            if pieces:
                locks, start = [], 0
                for size in SOLO_LOCKS:
                    locks.append(pieces[start : start + size])
                    start += size
                setup["locks"], setup["opponent_supply"] = locks, pieces[start:]
        if rules.finesse:
            assert self.g.tileset is not None
            tiles = self.g.tileset.tiles
            up = ids("tile")
            hidden: list[int] = []
            for set_name, k in ROW_SETS:
                need = k - sum(tiles[t].set == set_name for t in up)
                pool = self.g.tileset.pool(set_name, rules.finesse_ambassador, rules.solo)
                hidden += [t for t in pool if t not in up][:need]
            setup["finesse_tiles"] = [tiles[t].id for t in hidden + up]
        self.p.state = new_game(rules, setup=setup)
        self._next_decision()

    def _next_decision(self) -> None:
        assert self.state is not None
        self.decision = None if self.state.is_over else Decision(self.g.vocab, self.state)

    # -- chance during play --------------------------------------------------------------------
    def _chance_draws(self, action: Action) -> list[int]:
        """Return the colours of the unknown deck cards ``action`` draws, in order."""
        state = self.state
        assert state is not None
        trial = state.copy()
        trial.step(state.current, action)
        out: list[int] = []
        for colour in (WHITE, BLACK):
            deck = state.decks[colour]
            kept = set(trial.decks[colour])
            k = sum(1 for c in deck if c not in kept)
            unknown = len(deck) - state.known_bottom[colour]
            out += [colour] * min(k, unknown)
        return out

    def _apply_with_draws(self) -> None:
        state, action = self._changed(), self.action
        assert action is not None
        for colour in (WHITE, BLACK):
            cards = [c for c, col in zip(self.drawn, self.draws, strict=True) if col == colour]
            stack_deck(state, colour, cards)
        state.step(state.current, action)
        unseen = state.unseen_cards(WHITE) + state.unseen_cards(BLACK)
        if any(card in unseen for card in self.drawn):  # the dry run counted the draws wrong
            raise AssertionError(f"a dealt card was not drawn by {state.describe(action)}")
        self.p.action, self.p.draws, self.p.drawn = None, [], []
        self._next_decision()

    # -- the OpenSpiel State API ---------------------------------------------------------------
    def current_player(self) -> int:
        if self.state is None or self.action is not None:
            return pyspiel.PlayerId.CHANCE
        if self.decision is None:
            return pyspiel.PlayerId.TERMINAL
        return self.decision.seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.decision is not None and player == self.decision.seat
        return self.decision.tokens()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.state is None:
            return self._setup_outcomes()
        colour = self.draws[len(self.drawn)]
        done = {c for c, col in zip(self.drawn, self.draws, strict=False) if col == colour}
        pool = [c for c in self.state.unseen_cards(colour) if c not in done]
        return [(c, 1.0 / len(pool)) for c in pool]

    def apply_action(self, action: int) -> None:
        """Apply ``action`` (OpenSpiel's own check of a negative one is a bare C++ assertion)."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be a whole number (an int), got {action!r}")
        if action < 0:
            raise ValueError(f"action must be one of legal_actions() (>= 0), got {action}")
        super().apply_action(action)

    def _refuse(self, action: int, legal: list[int], who: str) -> None:
        shown = ", ".join(map(str, legal[:8])) + (", ..." if len(legal) > 8 else "")
        raise ValueError(f"action {action} is not legal for {who} now (legal: {shown})")

    def _apply_action(self, action: int) -> None:
        if self.state is None or self.action is not None:  # a chance node: few outcomes
            outcomes = [a for a, _ in self.chance_outcomes()]
            if action not in outcomes:
                self._refuse(action, outcomes, "chance")
        elif self.decision is not None and action not in self.decision.tokens():
            self._refuse(action, self.decision.tokens(), f"player {self.decision.seat}")
        if self.state is None:
            self.chosen.append(int(action))
            if len(self.chosen) == len(self.nodes):
                self._start_game()
            return
        if self.action is not None:
            self.p.drawn.append(int(action))
            if len(self.drawn) == len(self.draws):
                self._apply_with_draws()
            return
        assert self.decision is not None
        done = self.decision.push(int(action))
        if done is None:
            return
        draws = self._chance_draws(done)
        if draws:
            self.p.action, self.p.draws, self.p.drawn = done, draws, []
            return
        state = self._changed()
        state.step(state.current, done)
        self._next_decision()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            cat = self.rules.catalogue
            if self.state is None:
                kind = (
                    self.nodes[len(self.chosen)][0]
                    if len(self.chosen) < len(self.nodes)
                    else "card"
                )
                if kind == "first":
                    return f"first player {action}"
                if kind == "piece":
                    return f"mastermind piece {cat.pieces[action].id}"
                if kind == "tile":
                    assert self.g.tileset is not None
                    return f"finesse tile {self.g.tileset.tiles[action].id}"
            return f"deal {cat.puzzles[action].id}"
        return self.g.vocab.names[action]

    def is_terminal(self) -> bool:
        return self.state is not None and self.action is None and self.decision is None

    def returns(self) -> list[float]:
        n = self.rules.players
        if not self.is_terminal():
            return [0.0] * n
        assert self.state is not None
        winners = self.state.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    def truncated(self) -> bool:
        return self.is_terminal() and self.state.end_reason != END_RULES  # type: ignore[union-attr]

    def __str__(self) -> str:
        if self.state is None:
            return f"dealing the setup ({len(self.chosen)} of {len(self.nodes)} dealt)"
        from projectl_sim.engine.render import render

        text = render(self.state)
        if self.action is not None:
            text += f"\nwaiting for {len(self.draws) - len(self.drawn)} cards to be dealt"
        return text

    # -- information states (OpenSpiel asks the observer: ``SeatObserver``) ---------------
    def _tensor(self, player: int) -> np.ndarray:
        if self.state is None:
            out = np.zeros(self.g.observer.size, dtype=np.float32)
            return out
        decision = self.decision if self.action is None else None
        return self.g.observer.observe(self.state, player, decision)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> ProjectLState:
        """Return a state ``player_id`` cannot tell from this one: the others' face-down pile
        cards dealt again among the cards it has not seen (same colour and reward each)."""
        clone = self.clone()
        if self.state is None or self.g.get_type().information == _PERFECT:
            return clone
        rng = random.Random(int(probability_sampler() * 2**53))
        state = clone._changed()
        t = state.tables
        view = state.view(player_id)
        for colour in (WHITE, BLACK):
            hidden = [
                c
                for q in range(state.n)
                if q != player_id
                for c in state.piles[q]
                if t.is_black[c] == (colour == BLACK)
            ]
            pool = view.unseen_cards(colour)  # the hidden piles' cards are among them
            # (in the engine's unseen_cards of a view: not in a row, a slot or its own pile)
            for card in hidden:
                same = [
                    c for c in pool if t.reward[c] == t.reward[card] and c not in state.rows[colour]
                ]
                other = rng.choice(same)
                exchange_cards(state, card, other)
        clone._next_decision_keep()
        return clone

    def _next_decision_keep(self) -> None:
        """Rebuild the decision in progress on the resampled state, with its tokens so far."""
        if self.decision is None or self.state is None:
            return
        prefix = self.decision.prefix
        self.decision = Decision(self.g.vocab, self.state)
        for tok in prefix:
            self.decision.push(tok)


_GAMES: dict[Rules, ProjectLGame] = {}


def parameters_of(rules: Rules) -> dict[str, Any]:
    """Return the OpenSpiel parameters of ``rules`` (those that differ from the defaults)."""
    params: dict[str, Any] = {"players": rules.players, "variant": rules.variant}
    if rules.expansions:
        params["expansions"] = "+".join(sorted(rules.expansions))
    for name, option in rule_options().items():
        value = getattr(rules, name)
        if isinstance(value, tuple):
            value = "+".join(value) or "none"
        if value != option.default:
            params[name] = value
    return params


def game_of_rules(rules: Rules) -> ProjectLGame:
    """Return the ``python_project_l`` game of ``rules`` (one per rules in a process)."""
    game = _GAMES.get(rules)
    if game is None:
        game = _GAMES[rules] = pyspiel.load_game(SHORT_NAME, parameters_of(rules))
    return game


def state_at(game: ProjectLGame, state: GameState) -> ProjectLState:
    """Return an OpenSpiel state of ``game`` at an engine state (the setup's chance nodes
    skipped; its history holds only what is played from there)."""
    out = game.new_initial_state()
    out.chosen = [0] * len(out.nodes)
    out.p.state = state
    out._next_decision()
    return out


# -- projectl-sim's bots and evaluation in OpenSpiel's algorithms ------------------------------
class EngineBot(pyspiel.Bot):
    """A projectl-sim bot (any ``make_bot`` spec) as an OpenSpiel bot of ``python_project_l``:
    it decides an engine action from its seat's view, then answers its tokens one by one."""

    def __init__(self, spec: str, player: int, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        from bots import make_bot

        self.bot = make_bot(spec)
        self.player = player
        self.rng = random.Random(seed)
        self.queue: list[int] = []
        self.cpu = 0.0  # CPU seconds spent deciding (time.process_time)
        self.decisions = 0  # engine actions decided

    def restart_at(self, state: pyspiel.State) -> None:
        self.queue = []

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass

    def step(self, state: ProjectLState) -> int:
        if not self.queue:
            engine = state.state
            assert engine is not None and state.decision is not None
            assert not state.decision.prefix, "a decision started by someone else"
            start = time.process_time()
            action = self.bot(engine.view(self.player), self.rng)
            self.queue = action_tokens(state.g.vocab, engine, action, exact=False)
            self.cpu += time.process_time() - start
            self.decisions += 1
        return self.queue.pop(0)


class GreedyEvaluator:
    """An OpenSpiel MCTS evaluator: rollouts played to the end by projectl-sim's greedy bot.

    From a leaf, the decision in progress and pending chance are finished at random, the cards
    nobody has seen are dealt again (``GameState.redeal``: the chance nodes' distribution), and
    greedy plays every seat to the end; the value is the win shares. Priors are uniform.
    """

    def __init__(self, n_rollouts: int = 1, seed: int = 0, spec: str = "greedy") -> None:
        from bots import make_bot

        self.n_rollouts = n_rollouts
        self.bot = make_bot(spec)
        self.rng = random.Random(seed)
        self.np_rng = np.random.RandomState(seed)

    def evaluate(self, state: ProjectLState) -> np.ndarray:
        total = np.zeros(state.g.num_players())
        for _ in range(self.n_rollouts):
            work = state.clone()
            while not work.is_terminal() and (
                work.is_chance_node() or (work.decision is not None and work.decision.prefix)
            ):
                if work.is_chance_node():
                    outcomes, probs = zip(*work.chance_outcomes(), strict=True)
                    work.apply_action(int(self.np_rng.choice(outcomes, p=probs)))
                else:
                    work.apply_action(int(self.np_rng.choice(work.legal_actions())))
            if work.is_terminal():
                total += work.returns()
                continue
            engine = work.state.redeal(self.rng)  # type: ignore[union-attr]
            while not engine.is_over:
                seat = engine.to_move()
                engine.step(seat, self.bot(engine.view(seat), self.rng))
            winners = engine.winners()
            total += [1.0 / len(winners) if p in winners else 0.0 for p in range(engine.n)]
        return total / self.n_rollouts

    def prior(self, state: ProjectLState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


def _stack(deck: list[str], top: list[str]) -> list[str]:
    """Return ``deck`` with ``top`` as its first cards (the same length: a card from outside
    the deck pushes the last one out of the game)."""
    rest = [c for c in deck if c not in top]
    return (top + rest)[: len(deck)]


def _view_string(state: ProjectLState, player: int, tensor: np.ndarray) -> str:
    head = f"player {player}"
    if state.state is not None:
        s = state.state
        head += f", round {s.round}, {s.phase}, player {s.to_move()} to decide"
        if state.decision is not None and state.decision.seat == player and state.decision.prefix:
            head += ": " + " ".join(state.g.vocab.names[t] for t in state.decision.prefix)
    nonzero = np.flatnonzero(tensor)
    return head + " | " + " ".join(f"{i}:{tensor[i]:g}" for i in nonzero)


class SeatObserver:
    """OpenSpiel's observer protocol: the tensor and string of ``Observer``."""

    def __init__(self, game: ProjectLGame) -> None:
        self.tensor = np.zeros(game.observer.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ProjectLState, player: int) -> None:
        self.tensor[:] = state._tensor(player)

    def string_from(self, state: ProjectLState, player: int) -> str:
        return _view_string(state, player, state._tensor(player))


pyspiel.register_game(_GAME_TYPE, ProjectLGame)
