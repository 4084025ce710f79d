"""Play one game with bots: seeding, the decision loop, and the record.

Seeding discipline: a game's seed is a numpy ``SeedSequence``; its first child deals the setup and
the next ones (one per seat) seed each bot's ``random.Random``. The engine itself draws nothing.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import perf_counter, thread_time
from typing import Any, Final

import numpy as np

from projectl_sim.engine import OVER, GameState, deal, new_game, rng_from_seed
from projectl_sim.engine.actions import Action
from projectl_sim.engine.record import RecordWriter
from projectl_sim.errors import IllegalActionError, ProjectLError
from projectl_sim.rules import Rules

BotFn = Callable[[GameState, random.Random], Action]

# A bot that keeps answering without ending the game is cut off after this many decisions.
MAX_DECISIONS = 20_000
# ``cpu_seconds``: the CPU clock is read around every CPU_EVERY-th decision of each seat (its
# first, fifth, ...), because one read costs about a microsecond, a tenth of a random bot's whole
# decision; the seat's total is that sample scaled to all its decisions
CPU_EVERY: Final = 4


class BotError(ProjectLError):
    """A bot raised or returned an illegal action; the message names the seat and the bot."""

    exit_code = 1

    def __init__(self, message: str, seat: int, detail: str = "") -> None:
        super().__init__(message)
        self.seat = seat
        self.detail = detail


def _describe(state: GameState, action: object) -> str:
    try:
        return state.describe(action)  # type: ignore[arg-type]
    except Exception:  # a bot may return anything at all
        return repr(action)


@dataclass
class GameOutcome:
    """A played game: final state, its record writer, and the seed it came from."""

    state: GameState
    record: RecordWriter | None
    seed: int | None

    def record_json(self) -> dict[str, Any]:
        assert self.record is not None
        return self.record.to_json(self.state)


def _scale_cpu(cpu_seconds: list[float], made: list[int], timed: list[int]) -> None:
    """Scale each seat's CPU seconds, read over ``timed`` of its decisions, to all ``made``."""
    for p, n in enumerate(timed):
        if n:
            cpu_seconds[p] *= made[p] / n


def game_seeds(
    seed: int | np.random.SeedSequence, players: int
) -> tuple[random.Random, list[random.Random]]:
    """Return the dealing rng and one rng per seat, all derived from one game seed."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    children = ss.spawn(1 + players)
    return rng_from_seed(children[0]), [rng_from_seed(c) for c in children[1:]]


def play_game(
    rules: Rules,
    bots: Sequence[BotFn],
    seed: int,
    *,
    record: bool = True,
    seat_names: Sequence[str] | None = None,
    on_step: Callable[[GameState, int, Action], None] | None = None,
    seconds: list[float] | None = None,
    cpu_seconds: list[float] | None = None,
) -> GameOutcome:
    """Play one game to the end; every bot decision is checked before it is applied.

    ``seconds`` (one entry per seat), when given, gathers the wall-clock time each seat's
    decisions take; ``cpu_seconds`` likewise their CPU time, which a busy machine does not
    inflate (this thread's: a bot that starts threads of its own is under-counted), estimated
    from every ``CPU_EVERY``-th decision of the seat.

    Raises ``BotError`` when a bot raises or answers an illegal action; the partial record is
    attached to it (``exc.outcome``) so nothing played is lost.
    """
    if len(bots) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} bots, got {len(bots)}")
    deal_rng, bot_rngs = game_seeds(seed, rules.players)
    state = new_game(rules, setup=deal(rules, deal_rng))
    names = list(seat_names) if seat_names is not None else [repr(b) for b in bots]
    writer = RecordWriter.start(state, seed, names) if record else None
    decisions = 0
    made = [0] * rules.players  # each seat's decisions, and how many of them had the CPU clock
    timed = [0] * rules.players
    try:
        while state.phase != OVER:
            seat = state.current
            view = state.view(seat)
            start = perf_counter() if seconds is not None else 0.0
            on_cpu = cpu_seconds is not None and made[seat] % CPU_EVERY == 0
            cpu_start = thread_time() if on_cpu else 0.0
            try:
                action = bots[seat](view, bot_rngs[seat])
            except Exception as exc:  # a bot's bug must not lose the game played so far
                err = BotError(
                    f"bot {names[seat]} (seat {seat}, game seed {seed}) raised "
                    f"{type(exc).__name__}: {exc}",
                    seat,
                    traceback.format_exc(limit=4),
                )
                err.outcome = GameOutcome(state, writer, seed)  # type: ignore[attr-defined]
                raise err from None
            finally:  # the decision's time, a failed one's too
                if seconds is not None:
                    seconds[seat] += perf_counter() - start
                if cpu_seconds is not None:
                    if on_cpu:
                        cpu_seconds[seat] += thread_time() - cpu_start
                        timed[seat] += 1
                    made[seat] += 1
            try:
                state.step(seat, action)
            except (IllegalActionError, IndexError, TypeError, AttributeError, ValueError) as exc:
                # anything a bot returns that the checked path can't accept is the bot's illegal
                # action (an out-of-range card or piece raises IndexError in the check)
                err = BotError(
                    f"bot {names[seat]} (seat {seat}, game seed {seed}) chose an illegal action: "
                    f"{_describe(state, action)}: {exc}",
                    seat,
                )
                err.outcome = GameOutcome(state, writer, seed)  # type: ignore[attr-defined]
                raise err from None
            if writer is not None:
                writer.add(seat, action)
            if on_step is not None:
                on_step(state, seat, action)
            decisions += 1
            if decisions > MAX_DECISIONS:
                state.truncate("max_decisions")
    finally:  # also when a bot fails: its rows keep the time it took
        if cpu_seconds is not None:
            _scale_cpu(cpu_seconds, made, timed)
    return GameOutcome(state, writer, seed)
