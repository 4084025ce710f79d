"""Project L as a PettingZoo AEC environment: ``projectl_sim.rl.env(...)``, ``raw_env(...)``.

One agent per seat (``player_0`` ...; solo has one, the mastermind plays itself). Each step is
one token of ``projectl_sim.rl.codec``: an engine action takes one to a few consecutive steps
of the same agent, and the engine applies it when its last token is in (checked, so an
environment step can never break a rule). Observations are ``{"observation": float32 vector,
"action_mask": int8 vector}``; the mask is all zeros for an agent that is not deciding.

Rewards come at the end: each winner gets ``1 / number of winners`` (a shared win is split),
the others 0; ``info["score"]`` holds the agent's score (its final score at the end).
Termination is the game's end by the rules; a game cut short by the rules' safety caps
(``max_rounds``, a stall) or by the environment's ``max_cycles`` is scored as it stands and
reported as truncated.

Seeding: ``reset(seed=s)`` deals the game ``projectl-sim play --seed s`` deals (the engine's
convention: the seed's first child deals, the next ones seed each seat's ``random.Random``,
``seat_rngs``); a later ``reset()`` without a seed deals from a seed drawn from
``numpy.random.default_rng(s)``, so a seeded environment plays the same games in the same order
(``pettingzoo.test.seed_test``). A ``reset()`` before any seed draws from fresh entropy, the
Gymnasium convention. ``info["game_seed"]`` names each game's seed.

A bad argument is a ``ValueError`` or ``TypeError`` naming the parameter (``max_cycles``,
``seed``, ``action``; ``projectl_sim.rl.options``), and a call out of order (``step`` before
``reset``) a ``RuntimeError`` saying so.
"""

from __future__ import annotations

import operator
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from projectl_sim.engine import deal, new_game
from projectl_sim.engine.actions import Action
from projectl_sim.engine.record import RecordWriter
from projectl_sim.engine.render import render as render_text
from projectl_sim.engine.state import END_RULES, GameState
from projectl_sim.rl.codec import Decision, Observer, Vocabulary
from projectl_sim.rl.options import (
    EnvOrderError,
    EnvTypeError,
    EnvValueError,
    make_rules,
    seed_of,
    whole_number,
)
from projectl_sim.rules import Rules
from projectl_sim.sim.play import game_seeds

MAX_CYCLES = "max_cycles"  # the end reason of a game the environment's max_cycles cut short


class raw_env(AECEnv):  # the PettingZoo convention's name
    """Project L for any rules: ``players``, ``variant``, ``expansions`` and every rules option
    of ``projectl_sim.rl.options.rule_options()`` as keyword arguments (or ``rules=``)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "projectl_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        variant: str = "standard",
        expansions: Any = (),
        render_mode: str | None = None,
        max_cycles: int | None = None,
        rules: Rules | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if rules is None:
            rules = make_rules(players=players, variant=variant, expansions=expansions, **options)
        elif not isinstance(rules, Rules):
            raise EnvTypeError(f"rules must be a projectl_sim Rules, got {rules!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.rules = rules
        self.render_mode = render_mode
        self.max_cycles = whole_number("max_cycles", max_cycles, 1, optional=True)
        self.vocab = Vocabulary(rules)
        self.observer = Observer(self.vocab)
        self.possible_agents = [f"player_{i}" for i in range(rules.players)]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    0.0, self.observer.high, shape=(self.observer.size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(self.vocab.n,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.vocab.n) for a in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self.game: GameState | None = None
        self.seat_names: list[str] | None = None  # the record's seats (default: "rl" each)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the episode ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = seed_of(seed)
        if seed is not None or self._np_random is None:
            self._np_random = np.random.default_rng(seed)
        self.game_seed = int(seed) if seed is not None else int(self._np_random.integers(2**62))
        deal_rng, self.seat_rngs = game_seeds(self.game_seed, self.rules.players)
        self.game = state = new_game(self.rules, setup=deal(self.rules, deal_rng))
        seats = self.seat_names or ["rl"] * self.rules.players
        self.writer = RecordWriter.start(state, self.game_seed, seats)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.steps_taken = dict.fromkeys(self.agents, 0)
        self._decide()

    def _decide(self) -> None:
        """Start the next decision, or end the episode when the game is over."""
        state = self.game
        assert state is not None
        scores = state.final_scores()
        self.infos = {
            a: {"score": scores[i], "game_seed": self.game_seed} for i, a in enumerate(self.agents)
        }
        if state.is_over:
            self._finish()
            return
        self.decision = Decision(self.vocab, state)
        self.agent_selection = self.possible_agents[self.decision.seat]

    def _finish(self) -> None:
        state = self.game
        assert state is not None
        winners = state.winners()
        truncated = state.end_reason != END_RULES
        for i, a in enumerate(self.agents):
            self.rewards[a] = 1.0 / len(winners) if i in winners else 0.0
            self.terminations[a] = not truncated
            self.truncations[a] = truncated
            self.infos[a] |= {"winners": winners, "end_reason": state.end_reason}
            if self.rules.solo:
                self.infos[a]["opponent_score"] = state.opponent_score()
        self.decision = None

    def _started(self, method: str) -> GameState:
        """Return the game, or say that ``method`` needs a ``reset()`` first."""
        if self.game is None:
            raise EnvOrderError(f"{method}() before reset(): call reset(seed=...) first")
        return self.game

    def token_of(self, action: Any) -> int:
        """Return ``action`` as a token of the action space, or say why it is none."""
        n = self.vocab.n
        if isinstance(action, bool):
            raise EnvTypeError(f"action must be a token 0-{n - 1} (an int), got {action!r}")
        try:
            token = operator.index(action)
        except TypeError:
            raise EnvTypeError(
                f"action must be a token 0-{n - 1} (an int), got {action!r}"
            ) from None
        if not 0 <= token < n:
            raise EnvValueError(f"action must be a token 0-{n - 1}, got {token}")
        return token

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._started("observe")
        if agent not in self.possible_agents:
            raise EnvValueError(f"agent must be one of {self.possible_agents}, got {agent!r}")
        seat = self.possible_agents.index(agent)
        decision = self.decision
        mine = decision is not None and decision.seat == seat
        obs = self.observer.observe(state, seat, decision if mine else None)
        mask = decision.mask() if mine else np.zeros(self.vocab.n, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        self._started("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        decision = self.decision
        assert decision is not None and self.game is not None
        token = self.token_of(action)
        if token not in decision.tokens():
            raise EnvValueError(
                f"action {token} ({self.vocab.names[token]}) is not legal for {agent} now "
                "(see the action mask)"
            )
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.steps_taken[agent] += 1
        done = decision.push(token)
        if done is not None:
            self.game.step(decision.seat, done)
            self.writer.add(decision.seat, done)
            self._decide()
        if (
            self.max_cycles is not None
            and not self.game.is_over
            and self.steps_taken[agent] >= self.max_cycles
        ):
            self.game.truncate(MAX_CYCLES)
            self._decide()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def step_action(self, action: Action) -> None:
        """Apply an engine action of the seat to move at once (a bot's: checked, recorded)."""
        decision = self.decision
        assert decision is not None and self.game is not None
        self._clear_rewards()
        self.game.step(decision.seat, action)
        self.writer.add(decision.seat, action)
        self._decide()
        self._accumulate_rewards()

    # -- records and drawing -------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """Return the game so far as a projectl-sim record (its result once it is over)."""
        return self.writer.to_json(self._started("record"))

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode ('human' or 'ansi')")
            return None
        text = render_text(self._started("render"))
        if self.decision is not None and self.decision.prefix:
            chosen = " ".join(self.vocab.names[t] for t in self.decision.prefix)
            text += f"\ndeciding: {chosen}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return f"projectl_v0({self.rules.players} players, {self.rules.variant})"


class _InBounds(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's out-of-bounds check, raising an error that names the action (its own is a
    bare ``assert``)."""

    def step(self, action: Any) -> None:
        base = self.unwrapped
        base._started("step")
        agent = base.agent_selection
        dead = base.terminations[agent] or base.truncations[agent]
        if not (action is None and dead):
            base.token_of(action)
        super().step(action)


class _InOrder(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order check, raising a ``RuntimeError`` that says what to call first (its
    own is an ``AssertionError``, gone under ``python -O``)."""

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise EnvOrderError("step() before reset(): call reset(seed=...) first")
        super().step(action)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            raise EnvOrderError("observe() before reset(): call reset(seed=...) first")
        return super().observe(agent)


def env(**kwargs: Any) -> AECEnv:
    """Return the environment with PettingZoo's usual wrappers (an illegal token ends the game
    with -1 for its agent; actions out of range and calls out of order raise)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = _InBounds(e)
    return _InOrder(e)
