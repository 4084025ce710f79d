"""Bots that misbehave on purpose, for the fault-injection tests (``fault_bots:HangBot``).

Each draws its misbehaviour from its own ``rng``, so the same games misbehave in every run.
"""

from __future__ import annotations

import os
import random
import signal
import time
from typing import Any, ClassVar

from bots.base import Bot
from bots.params import OneOf, Range
from bots.random_bot import RandomBot
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Action


class HangBot(RandomBot):
    """Random play that hangs at a few decisions: a pure-Python loop, or a long sleep."""

    name = "hang"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "p": (0.0, "chance that a decision hangs", Range(0.0, 1.0)),
        "how": ("spin", "spin (a busy loop) or sleep", OneOf("spin", "sleep")),
    }

    def act(self, view: GameState, rng: random.Random) -> Action:
        if rng.random() < self.options["p"]:
            if self.options["how"] == "sleep":
                time.sleep(3600)
            while True:
                pass
        return super().act(view, rng)


class SlowBot(RandomBot):
    """Random play that takes ``delay`` seconds over each of its first ``first`` decisions of a
    game (every decision when ``first`` is 0)."""

    name = "slow"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "delay": (0.01, "seconds slept each decision", Range(0.0)),
        "first": (0, "sleep over this many decisions only (0: every one)", Range(0)),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.decided = 0

    def act(self, view: GameState, rng: random.Random) -> Action:
        self.decided += 1
        if not self.options["first"] or self.decided <= self.options["first"]:
            time.sleep(self.options["delay"])
        return super().act(view, rng)


class RaiseBot(RandomBot):
    """Random play that raises at a few decisions."""

    name = "raise"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "p": (0.02, "chance that a decision raises", Range(0.0, 1.0)),
    }

    def act(self, view: GameState, rng: random.Random) -> Action:
        if rng.random() < self.options["p"]:
            raise RuntimeError("boom")
        return super().act(view, rng)


class CrashBot(RandomBot):
    """Random play that crashes its whole process (a segfault) at a few decisions."""

    name = "crash"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "p": (0.0, "chance that a decision crashes the process", Range(0.0, 1.0)),
    }

    def act(self, view: GameState, rng: random.Random) -> Action:
        if rng.random() < self.options["p"]:
            os.kill(os.getpid(), signal.SIGSEGV)
        return super().act(view, rng)


class ParentOnlyBot(RandomBot):
    """A bot that can be built only in the process named by ``FAULT_PARENT_PID``: workers can't."""

    name = "parent_only"

    def __init__(self, **kwargs: Any) -> None:
        if os.environ.get("FAULT_PARENT_PID") != str(os.getpid()):
            raise RuntimeError("this bot needs a licence server only the parent can reach")
        super().__init__(**kwargs)


class NotABot:
    """Not a ``Bot``: naming it is a one-line error."""


__all__ = ["Bot", "CrashBot", "HangBot", "NotABot", "ParentOnlyBot", "RaiseBot", "SlowBot"]
