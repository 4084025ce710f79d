"""One game of a run, as a worker plays it: its rows, or the error row of a game that failed.

``play_task`` plays a game (``projectl_sim.sim.play``), checks its result
(``projectl_sim.engine.result_check``: the rules it ran under, the invariants, the scores, and
the replay of its record when it writes one) and turns it into its table rows
(``projectl_sim.sim.tables``); a game whose bot raises, that the engine cannot finish, or that
fails the check, is an error row. A game that fails the check is played again, checked after
every decision, to name the seat whose bot bent it; its worker is replaced
(``GameResult.replace_worker``). ``error_rows`` writes the row of a game stopped from outside its
worker (a time limit, a worker that died), from the deal's state. The runner and the workers
both build on this module and it imports neither (the runner starts the workers; the workers
play these games).
"""

from __future__ import annotations

import functools
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from bots import make_bot
from projectl_sim.engine import GameState, deal, new_game, setup_of
from projectl_sim.engine.actions import Action
from projectl_sim.engine.result_check import (
    ResultError,
    RulesPrint,
    check_decision,
    check_result,
    rules_print,
    state_key,
)
from projectl_sim.registry import users_classes
from projectl_sim.rules import Rules
from projectl_sim.sim import rows
from projectl_sim.sim.flow import FlowRecorder
from projectl_sim.sim.play import BotError, GameOutcome, check_step, game_seeds, play_game
from projectl_sim.sim.position_study import study_start_of as study_start
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
    # the game failed its result check: its worker may be bent too, and is replaced
    replace_worker: bool = field(default=False)


def dealt(task: GameTask, config: GameConfig, rules: Rules | None = None) -> GameState:
    """Return a game's state before its first decision (dealt again from its seed; with
    ``rules``, a rules object of the configuration other than the process's)."""
    rules = rules_of(config) if rules is None else rules
    if config.position:  # a study's game starts from its position
        return study_start(config)(game_seeds(task.seed, rules.players)[0])
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
        labels=config.labels(task.rotation),
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


@functools.lru_cache(maxsize=64)
def first_print(config: GameConfig) -> RulesPrint:
    """Return the print of a configuration's rules taken the first time this process asked
    (before it played any game of them: a bot that bends them later is found)."""
    return rules_print(rules_of(config))


class _Bent(Exception):
    """A decision of ``seat`` bent the game (raised out of ``play_game`` by ``_bending_seat``)."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.seat = seat


def _bending_seat(task: GameTask, config: GameConfig, beat: memoryview | None) -> int | None:
    """Play a game that failed its result check again, checked after every decision, and return
    the seat whose decision first bent it (None: the game played again did not show it).

    The game is played with a rules object of its own (the worker's may be the bent one) and new
    bots, from the same seeds, so a bot that bends every game it plays bends this one at the same
    decision. After each decision the state must pass ``check_decision``; then the states seen
    are compared, decision by decision, with those the actions give from the deal alone.
    ``beat`` is told of each decision, as in ``play_task``: the time limits hold here too.
    """
    setups: list[dict[str, Any]] = []
    moves: list[tuple[int, Action]] = []
    seen: list[tuple[Any, ...]] = []

    def on_step(state: GameState, seat: int, action: Action) -> None:
        moves.append((seat, action))
        if beat is not None:
            beat[BEAT_STEPS] += 1
            beat[BEAT_SEAT] = state.current
        try:
            check_decision(state, rules, expected)
        except ResultError:
            raise _Bent(seat) from None
        seen.append(state_key(state))

    try:
        rules = config.rules()
        expected = rules_print(rules)
        play_game(
            rules,
            [make_bot(spec) for spec in config.seated(task.rotation)],
            task.seed,
            replicate=task.replicate,
            record=False,
            on_step=on_step,
            on_start=lambda state: setups.append(setup_of(state)),
            start=study_start(config) if config.position else None,
        )
    except _Bent as bent:
        return bent.seat
    except Exception:  # played again, the game went otherwise (a bot raised this time)
        return None
    try:
        game = new_game(rules, setup=setups[0])
        for (seat, action), key in zip(moves, seen, strict=True):
            game.apply(action)
            if state_key(game) != key:
                return seat
    except Exception:  # the actions do not follow from the deal: the last one decided
        return moves[len(seen) - 1][0] if seen else None
    return None


def _bent_error(
    task: GameTask, config: GameConfig, problem: ResultError, beat: memoryview | None
) -> tuple[int | None, str]:
    """Return the error seat and the error of a game that failed its result check."""
    seat = _bending_seat(task, config, beat)
    what = f"failed its result check: {problem}; its worker was replaced"
    played = rules_of(config)
    suspects = users_classes(played.expansions, played.variant)
    if suspects:  # a user's class may have changed the state, not the seat deciding
        what += f" (it plays {' and '.join(suspects)}, whose hooks may have changed the state)"
    if seat is None:
        return None, (
            f"the game (game seed {task.seed}) {what} (played again, checked after every "
            "decision, no seat's decision showed it)"
        )
    bot = config.seated(task.rotation)[seat]
    return seat, f"bot {bot} (seat {seat}, game seed {task.seed}) bent the game: it {what}"


def checked(outcome: GameOutcome, rules: Rules, expected: RulesPrint) -> None:
    """Raise ``ResultError`` unless a game ``play_game`` recorded (``outcome.record``) passes
    the result check for ``rules``, printed before the game as ``expected``, its record's
    replay included."""
    assert outcome.record is not None
    check_result(outcome.state, rules, expected, outcome.record.setup, outcome.record.moves)


def check_played(outcome: GameOutcome, rules: Rules, expected: RulesPrint) -> None:
    """``checked`` for the ``play`` command: a game that fails is a ``BotError`` (one line, exit
    1) carrying the outcome, as a bot that raised."""
    try:
        checked(outcome, rules, expected)
    except ResultError as problem:
        suspects = users_classes(rules.expansions, rules.variant)
        err = BotError(
            f"the game (seed {outcome.seed}) failed its result check: {problem}; one of its "
            f"bots{''.join(f' or {s}' for s in suspects)} bent it",
            -1,
        )
        err.outcome = outcome  # type: ignore[attr-defined]
        raise err from None


def play_task(
    task: GameTask,
    config: GameConfig,
    run_id: str,
    beat: memoryview | None = None,
    flow: bool = True,
    expected: RulesPrint | None = None,
    check: bool = False,
) -> GameResult:
    """Play one game of a run and return its rows; a failing game becomes an error row.

    ``beat`` (a worker's page shared with the runner, ``sim.workers``) is told of each decision,
    so the watchdog can time them. ``flow`` collects the game's ``events`` and ``rounds`` rows
    (``sim.flow``). ``expected`` is the print of the configuration's rules (``rules_print``)
    taken before any bot of this process played (a worker takes it before its first game of
    them): the game's result is checked against it (by default, ``first_print``). ``check``
    checks the game's invariants after every action (``check_step``: a game that breaks one is an
    error row, naming a user's expansion or variant in play).
    """
    rules = rules_of(config)
    if expected is None:
        expected = first_print(config)
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
            check_step(state, seat)

    def on_deal(state: GameState) -> None:
        recorder.append(FlowRecorder(state))

    start = time.perf_counter()
    bent = False
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
            start=study_start(config) if config.position else None,
        )
        state = outcome.state
        if outcome.record is not None:  # its record is written: the check replays it too
            checked(outcome, rules, expected)
            record = outcome.record.to_json(state)
        else:
            check_result(state, rules, expected)
    except ResultError as problem:
        error_seat, error = _bent_error(task, config, problem, beat)
        bent = True
        # its record without a result (the bent state's is no game's); its rows at the deal,
        # with the decisions counted, as a game stopped from outside
        if outcome.record is not None:
            record = outcome.record.to_json()
        try:
            state = dealt(task, config, config.rules())
        except Exception:  # rules built again that cannot deal: the process's
            state = dealt(task, config)
        recorder.clear()  # its events are the bent game's: none are written
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
    result = _result(
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
    result.replace_worker = bent
    return result


__all__ = [
    "GameResult",
    "check_played",
    "checked",
    "dealt",
    "error_rows",
    "first_print",
    "play_task",
]
