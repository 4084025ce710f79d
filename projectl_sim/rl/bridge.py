"""A learned policy at a projectl-sim table: the bot source ``rl:MODULE:CALLABLE``.

``--bots rl:mypolicy:act`` (or ``rl:path/to/file.py:act``) seats a policy written for the
learning environments, so it plays ``run``, round robins and ratings like any bot. Each engine
decision is made token by token (``projectl_sim.rl.codec``), exactly as in the environments:

- ``kind=pettingzoo`` (the default): ``CALLABLE(observation)`` or ``CALLABLE(observation,
  agent)`` with the PettingZoo environment's observation dict (``"observation"``,
  ``"action_mask"``) and agent name, returns a token;
- ``kind=openspiel``: ``CALLABLE(game)`` or ``CALLABLE(game, player)`` returns an OpenSpiel bot
  (anything with ``step(state)``, a ``pyspiel.Bot``) or policy (``action_probabilities(state)``,
  sampled with the seat's rng), made once per seat and game rules; it is handed an OpenSpiel
  ``python_project_l`` state of the seat's view, the cards it cannot see dealt at random
  (``GameState.redeal``).

The seat's view is all the policy sees, as for every bot. A token the mask does not allow is
the bot's illegal action (``BotError``, like any bot's). The bot goes by its spec in tables.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import random
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from bots.base import Bot
from bots.params import OneOf
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action
from projectl_sim.errors import UsageError
from projectl_sim.rl.codec import Decision, Observer, Vocabulary

PREFIX = "rl:"


def _load(where: str, name: str, source: str) -> Any:
    """Return ``name`` of a module or a Python file (``UsageError`` if it cannot be loaded)."""
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise UsageError(f"bot {source}: no such file {where}")
            mod_name = "projectl_sim_rl_policy_" + str(abs(hash(str(path.resolve()))))
            module = sys.modules.get(mod_name)
            if module is None:
                spec = importlib.util.spec_from_file_location(mod_name, path)
                assert spec is not None and spec.loader is not None
                module = importlib.util.module_from_spec(spec)
                sys.modules[mod_name] = module
                spec.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.append(os.getcwd())
            module = importlib.import_module(where)
    except UsageError:
        raise
    except Exception as exc:
        raise UsageError(
            f"bot {source}: cannot load {where} ({type(exc).__name__}: {exc})"
        ) from None
    if not hasattr(module, name):
        raise UsageError(f"bot {source}: {where} has no {name!r}")
    obj = getattr(module, name)
    if not callable(obj):
        raise UsageError(f"bot {source}: {where}:{name} is not callable")
    return obj


def _arity(fn: Any) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return 2 if len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params) else 1


class PolicyBot(Bot):
    """A PettingZoo or OpenSpiel policy deciding through the environments' tokens."""

    name: ClassVar[str] = "rl"
    summary: ClassVar[str] = "a learned policy: rl:MODULE:CALLABLE (PettingZoo or OpenSpiel)"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "kind": ("pettingzoo", "what the callable is", OneOf("pettingzoo", "openspiel")),
    }
    target: ClassVar[Any] = None  # the loaded callable (set on the class bot_class makes)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._codecs: dict[Any, tuple[Vocabulary, Observer]] = {}
        self._openspiel: dict[tuple[Any, int], tuple[Any, Any]] = {}

    def _codec(self, view: GameState) -> tuple[Vocabulary, Observer]:
        key = view.rules
        hit = self._codecs.get(key)
        if hit is None:
            vocab = Vocabulary(view.rules)
            hit = self._codecs[key] = (vocab, Observer(vocab))
        return hit

    def __call__(self, view: GameState, rng: random.Random) -> Action:
        vocab, observer = self._codec(view)
        seat = view.to_move()
        decision = Decision(vocab, view)
        if self.options["kind"] == "openspiel":
            return self._openspiel_decision(view, decision, rng)
        policy = type(self).target
        two = _arity(policy) == 2
        agent = f"player_{seat}"
        while True:
            obs = {
                "observation": observer.encode(view, seat, decision),
                "action_mask": decision.mask(),
            }
            token = int(policy(obs, agent) if two else policy(obs))
            done = self._push(decision, token)
            if done is not None:
                return done

    def _push(self, decision: Decision, token: int) -> Action | None:
        if token not in decision.tokens():
            vocab = decision.vocab
            name = vocab.names[token] if 0 <= token < vocab.n else "out of range"
            raise ValueError(f"token {token} ({name}) is not legal now (see the action mask)")
        return decision.push(token)

    def _openspiel_decision(
        self, view: GameState, decision: Decision, rng: random.Random
    ) -> Action:
        from projectl_sim.rl.openspiel import game_of_rules, state_at

        game = game_of_rules(view.rules)
        seat = view.to_move()
        key = (view.rules, seat)
        made = self._openspiel.get(key)
        if made is None:
            factory = type(self).target
            player = factory(game, seat) if _arity(factory) == 2 else factory(game)
            made = self._openspiel[key] = (game, player)
        player = made[1]
        state = state_at(game, view.redeal(rng))
        while True:
            if hasattr(player, "step"):
                token = int(player.step(state))
            else:
                probs = player.action_probabilities(state)
                tokens = list(probs)
                weights = np.array([probs[t] for t in tokens], dtype=float)
                token = int(tokens[rng.choices(range(len(tokens)), weights=weights)[0]])
            done = self._push(decision, token)
            if done is not None:
                return done
            state.apply_action(token)


def bot_class(source: str) -> type[Bot]:
    """Return the bot class of ``rl:MODULE:CALLABLE`` (the ``projectl_sim.bot_sources`` entry)."""
    body = source[len(PREFIX) :] if source.startswith(PREFIX) else source
    where, sep, name = body.rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"bot {source}: write rl:MODULE:CALLABLE or rl:FILE.py:CALLABLE")
    target = _load(where, name, source)
    return type(
        "PolicyBot",
        (PolicyBot,),
        {"name": source, "target": staticmethod(target), "__module__": __name__},
    )
