"""The bot protocol: given a view of the game and an ``rng``, return a legal action."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from projectl_sim.engine import FINISHING, REWARD, GameState
from projectl_sim.engine.actions import Action, Finish, Reward
from projectl_sim.expansions.ghost_piece import LEVEL_UP, level_up_actions


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, and the base of every bot
class Bot:
    """Base class: ``act`` picks a Play action; reward, Level Up (Ghost Piece) and Finishing
    Touches have defaults.

    A bot receives ``view`` (what its seat may know; never the deck order) and must not mutate
    it. Parameters are keyword arguments declared in ``params``: name -> ``(default, help)`` or
    ``(default, help, check)``, the check a ``bots.params.Range`` or ``OneOf`` naming the valid
    values (``make_bot`` refuses others); ``repr`` gives the normalised spec string, the bot's id
    in result tables.
    """

    name: ClassVar[str] = "bot"
    summary: ClassVar[str] = ""
    params: ClassVar[dict[str, tuple[Any, ...]]] = {}

    def __init__(self, **kwargs: Any) -> None:
        self.options = {k: entry[0] for k, entry in self.params.items()}
        self.options.update(kwargs)
        self.given = frozenset(kwargs)  # the parameters the spec sets (the rest: defaults)

    def __call__(self, view: GameState, rng: random.Random) -> Action:
        """Answer whatever the engine asks of this seat now."""
        if view.phase == REWARD:
            return Reward(self.choose_reward(view, view.reward_options, rng))
        if view.phase == FINISHING:
            return self.finishing_touches(view, rng)
        if view.phase == LEVEL_UP:
            return self.choose_level_up(view, rng)
        return self.act(view, rng)

    def act(self, view: GameState, rng: random.Random) -> Action:
        """Return one legal Play-phase action."""
        raise NotImplementedError

    def draws_legal_actions(self) -> bool:
        """Return whether this bot promises that each answer is an action the engine listed or
        drew for the view it was given, unchanged.

        ``play_game`` then applies its answers unchecked (the engine's fast path); the runner's
        result check still checks every game's invariants and scores, and replays the games it
        writes records of. The base class promises nothing. A bot that promises must do so for
        its own class only (``type(self) is ...``), so that a subclass deciding otherwise does
        not inherit the promise.
        """
        return False

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        """Return the reward piece to take among ``options`` (default: a random one)."""
        return rng.choice(options)

    def choose_level_up(self, view: GameState, rng: random.Random) -> Action:
        """Return one Level Up step, or declining it (default: a random one of them)."""
        return rng.choice(level_up_actions(view))

    def finishing_touches(self, view: GameState, rng: random.Random) -> Finish:
        """Return this seat's Finishing Touches (default: none)."""
        return Finish(())

    def __repr__(self) -> str:
        changed = [f"{k}={_fmt(v)}" for k, v in self.options.items() if v != self.params[k][0]]
        return self.name + (":" + ",".join(changed) if changed else "")


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    return str(value)
