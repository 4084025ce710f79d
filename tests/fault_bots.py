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


__all__ = [
    "Bot",
    "CrashBot",
    "GcPiecesBot",
    "GcScoreBot",
    "GcTakeBot",
    "HangBot",
    "NotABot",
    "ParentOnlyBot",
    "RaiseBot",
    "RulesWriterBot",
    "SlowBot",
]


class RewriteBot(RandomBot):
    """Random play that first makes every puzzle worth 100 points in the tables it is shown."""

    name = "rewrite"

    def act(self, view: GameState, rng: random.Random) -> Action:
        view.tables.points = (100,) * len(view.tables.points)  # type: ignore[misc]
        return super().act(view, rng)


# what a vandal writes: nothing the game could take for a real value
JUNK = object()


def vandalise(view: Any, limit: int = 40) -> tuple[list[str], int]:
    """Try every assignment reachable through public names from the tables, catalogue and rules
    a view shares with the game (the pieces, puzzles and placements, the actions the tables hand
    out, the caches): rebind and delete each attribute, write, delete and clear each dictionary,
    list and set (at most ``limit`` items of each); return the writes that went through, and
    how many were tried."""
    roots = {"view.tables": view.tables, "view.rules": view.rules, "view.catalogue": view.catalogue}
    return vandalise_from(roots, limit)


def vandalise_from(
    roots: dict[str, Any], limit: int = 40, visited: set[str] | None = None
) -> tuple[list[str], int]:
    """``vandalise`` from the objects of ``roots`` (path -> object), in order; the class names of
    the objects walked are added to ``visited``."""
    done: list[str] = []
    seen: set[int] = set()
    tried = [0]

    def attempt(what: str, write: Any) -> None:
        tried[0] += 1
        try:
            write()
        except Exception:
            return
        done.append(what)

    def walk(obj: Any, path: str, depth: int) -> None:
        if id(obj) in seen or depth > 6 or obj is None or isinstance(obj, (int, float, str)):
            return
        seen.add(id(obj))
        if visited is not None:
            visited.add(type(obj).__name__)
        if isinstance(obj, (tuple, frozenset)):
            for i, item in enumerate(list(obj)[:limit]):
                walk(item, f"{path}[{i}]", depth + 1)
            return
        if isinstance(obj, dict):
            items = list(obj.items())[:limit]
            for key, value in items:
                attempt(f"{path}[{key!r}] =", lambda k=key: obj.__setitem__(k, JUNK))
                walk(value, f"{path}[{key!r}]", depth + 1)
            attempt(f"{path}[new] =", lambda: obj.__setitem__(("junk",), JUNK))
            for name in ("clear", "popitem"):
                attempt(f"{path}.{name}()", getattr(obj, name))
            attempt(f"{path}.update()", lambda: obj.update({("junk",): JUNK}))
            attempt(f"{path}.setdefault()", lambda: obj.setdefault(("junk",), JUNK))
            if items:
                attempt(f"del {path}[...]", lambda: obj.__delitem__(items[0][0]))
                attempt(f"{path}.pop()", lambda: obj.pop(items[0][0]))
            return
        if isinstance(obj, (list, set)):
            for i, item in enumerate(list(obj)[:limit]):
                walk(item, f"{path}[{i}]", depth + 1)
            if isinstance(obj, list) and obj:
                attempt(f"{path}[0] =", lambda: obj.__setitem__(0, JUNK))
            attempt(f"{path}.clear()", obj.clear)
            return
        if not type(obj).__module__.startswith(("projectl_sim", "bots")):
            return
        for name in dir(obj):
            if name.startswith("_"):  # private: no bot's business (nor a documented table)
                continue
            try:
                value = getattr(obj, name)
            except Exception:
                continue
            if callable(value) and not isinstance(value, type):
                continue
            walk(value, f"{path}.{name}", depth + 1)
            attempt(f"{path}.{name} =", lambda n=name: setattr(obj, n, JUNK))
            attempt(f"del {path}.{name}", lambda n=name: delattr(obj, n))

    for path, obj in roots.items():
        walk(obj, path, 0)
    return done, tried[0]


class VandalBot(RandomBot):
    """Random play that first tries every assignment it can reach in what its view shares with
    the game (``vandalise``), and keeps what went through in ``writes``."""

    name = "vandal"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.writes: list[str] | None = None  # None: not tried yet
        self.tried = 0

    def act(self, view: GameState, rng: random.Random) -> Action:
        if self.writes is None:
            self.writes, self.tried = vandalise(view)
        return super().act(view, rng)


class WholeViewVandalBot(RandomBot):
    """Random play that first tries every assignment it can reach from a copy of its whole view
    (the state's own fields, its blocks, the hooks and expansions of its rules, the tables they
    hold), and keeps what went through in ``writes``. The copy is its own; what it shares with the
    game must refuse every write."""

    name = "whole_view_vandal"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.writes: list[str] | None = None  # None: not tried yet
        self.tried = 0
        self.visited: set[str] = set()

    def act(self, view: GameState, rng: random.Random) -> Action:
        if self.writes is None:
            roots = {"copy": view.copy()}
            self.writes, self.tried = vandalise_from(roots, limit=12, visited=self.visited)
        return super().act(view, rng)


class InitRaiseBot(RandomBot):
    """A bot whose constructor fails (a user's bot with a bug in its ``__init__``)."""

    name = "init_raise"

    def __init__(self, **kwargs: Any) -> None:
        raise ValueError("no model file here")


# -- bots that bend the game past their view (the result check finds them) ---------------------
class RulesWriterBot(RandomBot):
    """Random play that, at its first decision, writes ``actions_per_turn`` into the rules object
    its view shares with the game (and with every game of those rules in its process)."""

    name = "rules_writer"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "actions": (5, "the actions per turn it writes", Range(1)),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.wrote = False

    def act(self, view: GameState, rng: random.Random) -> Action:
        if not self.wrote:
            object.__setattr__(view.rules, "actions_per_turn", self.options["actions"])
            self.wrote = True
        return super().act(view, rng)


def real_states(view: GameState) -> list[GameState]:
    """Return the states in this process that are the game ``view`` shows (found through ``gc``):
    every live ``GameState`` but the view at the same turn, seat and phase."""
    import gc

    return [
        o
        for o in gc.get_objects()
        if isinstance(o, GameState)
        and o is not view
        and o.turn == view.turn
        and o.current == view.current
        and o.phase == view.phase
    ]


class _GcBot(RandomBot):
    """Random play that finds the real state at its first decision of a game and changes it at
    every decision (``bend``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.targets: list[GameState] | None = None

    def bend(self, state: GameState, seat: int) -> None:
        raise NotImplementedError

    def act(self, view: GameState, rng: random.Random) -> Action:
        if self.targets is None:
            self.targets = real_states(view)
        for state in self.targets:
            self.bend(state, view.current)
        return super().act(view, rng)


class GcScoreBot(_GcBot):
    """Random play that adds ``points`` to its seat's score in the real state at every decision."""

    name = "gc_score"
    params: ClassVar[dict[str, tuple[Any, ...]]] = {
        "points": (13, "points added at every decision", Range(1)),
    }

    def bend(self, state: GameState, seat: int) -> None:
        scores = list(state.scores)
        scores[seat] += self.options["points"]
        state.scores = tuple(scores)


class GcPiecesBot(_GcBot):
    """Random play that creates a mono in its seat's supply in the real state at every decision."""

    name = "gc_pieces"

    def bend(self, state: GameState, seat: int) -> None:
        state.supply[seat][state.tables.mono] += 1


class GcTakeBot(_GcBot):
    """Random play that moves a piece from the reserve to its seat's supply in the real state at
    its first decision: every count stays conserved, and only the game's replay shows it."""

    name = "gc_take"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.took = False

    def bend(self, state: GameState, seat: int) -> None:
        if self.took:
            return
        for piece, left in enumerate(state.reserve):
            if left:
                state.reserve[piece] -= 1
                state.supply[seat][piece] += 1
                self.took = True
                return
