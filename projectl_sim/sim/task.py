"""One game of a run, as a worker plays it: its rows, or the error row of a game that failed.

``play_task`` plays a game (``projectl_sim.sim.play``) and turns it into its table rows
(``projectl_sim.sim.tables``); a game whose bot raises, or that the engine cannot finish, is an
error row. ``error_rows`` writes the row of a game stopped from outside its worker (a time limit,
a worker that died), from the deal's state. The runner and the workers both build on this module
and it imports neither (the runner starts the workers; the workers play these games).
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from bots import make_bot
from projectl_sim.engine import GameState, deal, new_game
from projectl_sim.engine.actions import Action
from projectl_sim.sim import rows
from projectl_sim.sim.flow import FlowRecorder
from projectl_sim.sim.play import BotError, check_step, game_seeds, play_game
from projectl_sim.sim.spec import GameConfig, GameTask, rules_of

# a worker's page (``sim.workers``): the slots play_task writes at each decision
BEAT_STEPS, BEAT_SEAT = 1, 2


@dataclass
class GameResult:
    """What a worker sends back: the rows of one game and, when asked, its record; ``flow``
    holds its ``events`` and ``rounds`` columns (``FlowRecorder.columns``: without the
    configuration's, which its game row has; None: the run writes no flow tables)."""

    game_id: int
    seats: list[dict[str, Any]]
    game: dict[str, Any]
    record: dict[str, Any] | None
    flow: dict[str, dict[str, list[Any]]] | None = field(default=None)


def dealt(task: GameTask, config: GameConfig) -> GameState:
    """Return a game's state before its first decision (dealt again from its seed)."""
    rules = rules_of(config)
    return new_game(rules, setup=deal(rules, game_seeds(task.seed, rules.players)[0]))


def _result(
    task: GameTask,
    config: GameConfig,
    run_id: str,
    state: GameState,
    *,
    actions: list[dict[str, int]] | None = None,
    decision_seconds: list[float] | None = None,
    decision_cpu_seconds: list[float] | None = None,
    duration: float = 0.0,
    error_seat: int | None = None,
    error: str | None = None,
    record: dict[str, Any] | None = None,
    flow: FlowRecorder | None = None,
    with_flow: bool = False,
) -> GameResult:
    seats = config.seated(task.rotation)
    n = len(seats)
    ident = {"run_id": run_id, "game_id": task.game_id, "seed": task.seed}
    ident |= config.columns() | {"deal": task.deal, "replicate": task.replicate}
    seat_rows, game_row = rows.game_rows(
        ident,
        rotation=task.rotation,
        seats=seats,
        state=state,
        actions=actions or [dict.fromkeys(rows.ACTION_KINDS, 0) for _ in range(n)],
        decision_seconds=decision_seconds or [0.0] * n,
        decision_cpu_seconds=decision_cpu_seconds or [0.0] * n,
        duration=duration,
        error_seat=error_seat,
        error=error,
    )
    columns: dict[str, dict[str, list[Any]]] | None = None
    if flow is not None:
        columns = flow.columns(seats)
    elif with_flow:  # a game stopped from outside: no events known
        columns = {"events": {}, "rounds": {}}
    return GameResult(task.game_id, seat_rows, game_row, record, columns)


def error_rows(
    task: GameTask,
    config: GameConfig,
    run_id: str,
    error: str,
    *,
    error_seat: int | None = None,
    duration: float = 0.0,
    state: GameState | None = None,
    flow: bool = True,
) -> GameResult:
    """Return the error row of a game stopped from outside (by default at its deal's state:
    the worker that played it is gone, and no decision is counted; ``flow``: with empty
    events and rounds)."""
    state = dealt(task, config) if state is None else state
    return _result(
        task,
        config,
        run_id,
        state,
        duration=duration,
        error_seat=error_seat,
        error=error,
        with_flow=flow,
    )


def play_task(
    task: GameTask,
    config: GameConfig,
    run_id: str,
    beat: memoryview | None = None,
    flow: bool = True,
    check: bool = False,
) -> GameResult:
    """Play one game of a run and return its rows; a failing game becomes an error row.

    ``beat`` (a worker's page shared with the runner, ``sim.workers``) is told of each decision,
    so the watchdog can time them. ``flow`` collects the game's ``events`` and ``rounds`` rows
    (``sim.flow``). ``check`` checks the game's invariants after every action (``check_step``:
    a game that breaks one is an error row, naming a user's expansion or variant in play).
    """
    rules = rules_of(config)
    seats = config.seated(task.rotation)
    bots = [make_bot(spec) for spec in seats]
    seconds = [0.0] * len(seats)  # each seat's decision time, wall clock
    cpu = [0.0] * len(seats)  # and CPU
    actions = [dict.fromkeys(rows.ACTION_KINDS, 0) for _ in seats]
    last: list[GameState] = []
    kind_of = rows.RECORD_KIND
    recorder: list[FlowRecorder] = []  # made from the dealt state, before the first step

    def on_step(state: GameState, seat: int, action: Action) -> None:
        kind = kind_of.get(action.kind)
        if kind is not None:  # (a user's expansion's own actions have no column)
            actions[seat][kind] += 1
        if beat is not None:
            beat[BEAT_STEPS] += 1  # decisions made, and the seat to move
            beat[BEAT_SEAT] = state.current
        if recorder:
            recorder[0].step(state, seat, action)
        if not last:
            last.append(state)
        if check:
            check_step(state)

    def on_deal(state: GameState) -> None:
        recorder.append(FlowRecorder(state))

    start = time.perf_counter()
    error_seat: int | None = None
    error: str | None = None
    record: dict[str, Any] | None = None
    try:
        outcome = play_game(
            rules,
            bots,
            task.seed,
            replicate=task.replicate,
            record=task.record,
            seat_names=seats,
            on_step=on_step,
            seconds=seconds,
            cpu_seconds=cpu,
            timed=task.record,  # a written record carries each decision's seconds
            on_start=on_deal if flow else None,
        )
        state = outcome.state
        if outcome.record is not None:
            record = outcome.record.to_json(state)
    except BotError as exc:
        partial = exc.outcome  # type: ignore[attr-defined]
        state, error_seat = partial.state, exc.seat
        error = f"{exc}\n{exc.detail}".strip()
        if partial.record is not None:
            record = partial.record.to_json(state)
    except Exception as exc:  # an engine or bot bug must not stop a long run: it is a row
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}".strip()
        # play_game keeps one state object throughout; before any step, deal it again.
        state = last[0] if last else dealt(task, config)
    if recorder:
        recorder[0].finish(state)
    return _result(
        task,
        config,
        run_id,
        state,
        actions=actions,
        decision_seconds=seconds,
        decision_cpu_seconds=cpu,
        duration=time.perf_counter() - start,
        error_seat=error_seat,
        error=error,
        record=record,
        flow=recorder[0] if recorder else None,
        with_flow=flow,
    )


__all__ = ["GameResult", "dealt", "error_rows", "play_task"]
