"""One seat of Project L as a Gymnasium environment, the other seats played by projectl-sim bots.

``gymnasium.make("projectl_sim/ProjectL-v0", opponents="greedy,greedy", ...)`` (registered by
``import projectl_sim.rl``) plays the PettingZoo environment's game from one seat (``seat``, 0
by default): each step is one token of the learner (``projectl_sim.rl.codec``), and between the
learner's decisions the opponents decide through the bot protocol (any spec ``make_bot``
takes, ``random``, ``mcts:iterations=200``, a module's bot), with their own ``random.Random``
per seat from the game seed, as ``play_game`` seeds them. The number of players is the
opponents' plus one; solo (``variant="solo"``) has none.

Observations, the action mask and ``info["score"]`` are the PettingZoo environment's. The
reward comes at the end: the learner's win share (1 for a win, ``1/k`` for a win shared by
k, else 0). An illegal token (the mask says which are legal) ends the episode with
``illegal_reward`` (-1), as PettingZoo's classic games do; ``truncated`` is the game cut
short by the rules' caps or by ``max_steps`` learner steps.

Seeding is Gymnasium's: ``reset(seed=s)`` seeds ``np_random`` and deals the game of seed
``s`` (the game ``projectl-sim play --seed s`` deals, with the same opponents' draws); a later
``reset()`` deals a seed drawn from ``np_random``.

A bad argument is a ``ValueError`` or ``TypeError`` naming the parameter (the PettingZoo
environment's, ``projectl_sim.rl.options``); ``step`` before ``reset`` (or after the episode's
end) is ``gymnasium.error.ResetNeeded``, an action outside the action space
``gymnasium.error.InvalidAction``, and a bad ``reset`` seed Gymnasium's own error.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np

from bots import make_bot
from projectl_sim.errors import UsageError
from projectl_sim.rl.aec import raw_env
from projectl_sim.rl.options import (
    EnvTypeError,
    EnvValueError,
    real_number,
    whole_number,
)
from projectl_sim.rules import Rules

ENV_ID = "projectl_sim/ProjectL-v0"  # registered by ``import projectl_sim.rl``


def opponent_specs(opponents: Any) -> list[str]:
    """Return the bot specs of ``opponents``: a list, or text like ``greedy,mcts:iterations=50``
    (a ``key=value`` item continues the spec before it)."""
    from projectl_sim.sim.spec import split_lineup

    if isinstance(opponents, str):
        return split_lineup(opponents)
    if not isinstance(opponents, (list, tuple)) or not all(isinstance(s, str) for s in opponents):
        raise EnvTypeError(
            "opponents must be bot specs: a list of str or a text such as 'greedy,random', "
            f"got {opponents!r}"
        )
    return list(opponents)


class ProjectLEnv(gymnasium.Env):
    """Project L from one seat against bots (see the module's docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        opponents: Any = "greedy",
        seat: int = 0,
        variant: str = "standard",
        expansions: Any = (),
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
        max_steps: int | None = None,
        rules: Rules | None = None,
        **options: Any,
    ) -> None:
        specs = opponent_specs(opponents)
        players = len(specs) + 1 if rules is None else rules.players
        if len(specs) != players - 1:
            raise EnvValueError(
                f"opponents: {players} players need {players - 1} opponents, got {len(specs)}"
            )
        seat = whole_number("seat", seat, 0)
        if seat >= players:
            raise EnvValueError(f"seat must be 0-{players - 1}, got {seat}")
        try:
            self.bots = [make_bot(s) for s in specs]
        except UsageError as exc:
            raise EnvValueError(f"opponents: {exc}") from None
        self.specs = specs
        self.seat = seat
        self.illegal_reward = real_number("illegal_reward", illegal_reward)
        self.max_steps = whole_number("max_steps", max_steps, 1, optional=True)
        self.env = raw_env(
            players=players,
            variant=variant,
            expansions=expansions,
            render_mode=render_mode,
            rules=rules,
            **options,
        )
        self.rules = self.env.rules
        self.render_mode = render_mode
        self.agent = self.env.possible_agents[seat]
        self.observation_space = self.env.observation_space(self.agent)
        self.action_space = self.env.action_space(self.agent)
        self._opponent = {
            q: self.bots[i] for i, q in enumerate(s for s in range(players) if s != seat)
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(2**62))
        names = [
            repr(self._opponent[q]) if q in self._opponent else "rl"
            for q in range(self.rules.players)
        ]
        self.env.seat_names = names
        self.env.reset(seed=game_seed)
        self.steps = 0
        self._play_opponents()
        return self._observe(), dict(self.env.infos[self.agent])

    def _play_opponents(self) -> None:
        """Let the bots decide until the learner's turn or the game's end."""
        e = self.env
        while e.decision is not None and e.decision.seat != self.seat:
            q = e.decision.seat
            state = e.game
            action = self._opponent[q](state.view(q), e.seat_rngs[q])
            e.step_action(action)

    def _observe(self) -> dict[str, np.ndarray]:
        return self.env.observe(self.agent)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        e = self.env
        if e.game is None:
            raise gymnasium.error.ResetNeeded("step() before reset(): call reset(seed=...) first")
        if e.decision is None:
            raise gymnasium.error.ResetNeeded("step() after the episode's end: call reset()")
        try:
            token = e.token_of(action)
        except (EnvTypeError, EnvValueError) as exc:
            raise gymnasium.error.InvalidAction(str(exc)) from None
        if token not in e.decision.tokens():
            info = dict(e.infos[self.agent]) | {"illegal_action": token}
            e.decision = None
            return self._observe(), float(self.illegal_reward), True, False, info
        e.step(token)
        self.steps += 1
        self._play_opponents()
        if e.decision is not None and self.max_steps is not None and self.steps >= self.max_steps:
            e.game.truncate("max_steps")
            e._decide()
        over = e.decision is None
        reward = float(e.rewards[self.agent]) if over else 0.0
        info = dict(e.infos[self.agent])
        terminated = over and e.terminations[self.agent]
        truncated = over and e.truncations[self.agent]
        return self._observe(), reward, terminated, truncated, info

    def record(self) -> dict[str, Any]:
        """Return the game so far as a projectl-sim record (seats named by their specs)."""
        return self.env.record()

    def render(self) -> str | None:
        return self.env.render()

    def close(self) -> None:
        self.env.close()
