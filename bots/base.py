"""The bot protocol: given a view of the game and an ``rng``, return a legal action.

Parameters: each bot class declares ``params``, ``{name: (default, help, valid)}``, where
``valid`` says which values are allowed: a ``Range`` (numbers between two bounds, inclusive; NaN
never), a tuple of the allowed values (choices), or None (anything of the default's type).
``check_params`` turns a value outside them into a one-line ``UsageError``; ``Bot.__init__`` calls
it, so ``mcts:iterations=-5`` or ``greedy:risk=nan`` never build a bot.
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from projectl_sim.actions import Action, Finish, Reward
from projectl_sim.engine import FINISHING, LEVEL_UP, REWARD, GameState
from projectl_sim.errors import UsageError


class Range:
    """The valid values of a numeric parameter: ``lo <= value <= hi`` (a None bound is open)."""

    def __init__(self, lo: float | None = None, hi: float | None = None) -> None:
        self.lo = lo
        self.hi = hi

    def allows(self, value: Any) -> bool:
        """Return whether ``value`` is a number (not NaN) within the bounds."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, float) and math.isnan(value):
            return False
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    def __repr__(self) -> str:
        lo = "-inf" if self.lo is None else f"{self.lo:g}"
        hi = "inf" if self.hi is None else f"{self.hi:g}"
        return f"[{lo}, {hi}]"


# (default, help, valid): see the module docstring
Param = tuple[Any, str, Any]


def valid_text(valid: Any) -> str:
    """Return how ``describe_bots`` and error messages show a parameter's valid values."""
    if isinstance(valid, Range):
        return repr(valid)
    if isinstance(valid, tuple):
        return "one of " + ", ".join(_fmt(v) for v in valid)
    return "any"


def check_params(bot: str, params: dict[str, Param], values: dict[str, Any]) -> None:
    """Raise ``UsageError`` naming the first value that is not a parameter or not valid."""
    for key, value in values.items():
        spec = params.get(key)
        if spec is None:
            raise UsageError(
                f"bot {bot!r} has no parameter {key!r} (valid: {', '.join(params) or 'none'})"
            )
        valid = spec[2] if len(spec) > 2 else None
        if isinstance(valid, Range):
            # a whole-number parameter takes whole numbers only
            whole = isinstance(spec[0], int) and not isinstance(spec[0], bool)
            ok = valid.allows(value) and not (whole and not isinstance(value, int))
        elif isinstance(valid, tuple):
            ok = value in valid and type(value) is type(spec[0])
        else:
            ok = True
        if not ok:
            raise UsageError(
                f"bot parameter {bot}:{key}={_fmt(value)} is out of range "
                f"(valid: {valid_text(valid)})"
            )


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, and the base of every bot
class Bot:
    """Base class: ``act`` picks a Play action; reward, Level Up (Ghost Piece) and Finishing
    Touches have defaults.

    A bot receives ``view`` (what its seat may know; never the deck order) and must not mutate
    it. Parameters are keyword arguments declared in ``params`` (name -> (default, help, valid));
    ``repr`` gives the normalised spec string, the bot's id in result tables.
    """

    name: ClassVar[str] = "bot"
    summary: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}

    def __init__(self, **kwargs: Any) -> None:
        check_params(self.name, self.params, kwargs)
        self.options = {k: spec[0] for k, spec in self.params.items()}
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

    def choose_reward(self, view: GameState, options: tuple[int, ...], rng: random.Random) -> int:
        """Return the reward piece to take among ``options`` (default: a random one)."""
        return rng.choice(options)

    def choose_level_up(self, view: GameState, rng: random.Random) -> Action:
        """Return one Level Up step, or declining it (default: a random one of them)."""
        return rng.choice(view.level_up_actions())

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
