"""Worker processes that play a run's games, and the watchdog that can stop any of them.

A worker is a fresh Python process (``python -m projectl_sim.sim.workers``) joined to its parent
by pipes: the parent sends it batches of games, it answers one message per finished game. Each
worker also writes, into a page of memory it shares with the parent, the game it is playing and
how many decisions it has made (one store per decision, in ``sim.task.play_task``). The parent
reads those pages a few times a second: a decision that has not ended within
``Limits.decision`` seconds, or a game not over within ``Limits.game``, gets its worker killed
(``SIGKILL``, whatever the bot is doing: a pure-Python loop, a sleep or compiled code) and
replaced, and the game becomes an error row; the games queued behind it go to other workers. A
worker that dies on its own (killed from outside, out of memory) has its games played again
elsewhere; a game that takes three workers down with it is an error row. A game that fails its
result check (``sim.task``: a bot bent the game, its rules or its tables) is an error row, and its
worker retires after sending it: a new one, whose rules no bot has touched, plays the games that
were queued behind it.

Workers outlive one run in the same process (as joblib's are reused), so a notebook or a test
suite running many small runs starts them once. A worker exits when its parent does: a thread
waits on a pipe only the parent holds open, and on Linux the kernel kills it too (a worker hung in
compiled code never runs that thread). Workers run in a session of their own, so a terminal's
Ctrl-C reaches the run alone, which kills the busy ones.

``Pool.play`` is used by the runner for local runs (``--jobs J`` workers) and by every Dask task
(one worker per Dask worker thread), so time limits and replacement are the same on any backend.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import mmap
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from typing import Any

from bots import BotBuildError
from projectl_sim.engine.result_check import RulesPrint, rules_digest, rules_print
from projectl_sim.errors import ProjectLError
from projectl_sim.sim.spec import GameConfig, GameTask, rules_of
from projectl_sim.sim.task import BEAT_SEAT, BEAT_STEPS, GameResult, dealt, error_rows, play_task

# Defaults of --decision-timeout and --game-timeout: far beyond any shipped bot's decision
# (mcts at its default budget takes well under a second; a time budget is at most an hour) and
# any game (mcts games take a minute or so), yet finite, so a hung bot costs minutes, not a run.
# A part file holds at most this many games (unless --chunk says; ``sim.runner``): the games
# waiting for their part are what the parent holds while it plays (about 50 KB each with the flow
# tables, more while their part is written), so it is one constant for every run, not a share of
# the run: a run of a million games holds what a run of a thousand holds.
PART_GAMES = 200
DECISION_TIMEOUT = 120.0
GAME_TIMEOUT = 3600.0
# How often the parent reads the workers' pages (a limit is enforced within this much).
CHECK_SECONDS = 0.1
# A worker sends its finished games at least this often (and when its batch is done): one
# message, and one wake-up of the parent, per few games rather than per game.
SEND_SECONDS = 0.02
# A game whose worker dies this many times is an error row (not played again): a worker killed
# from outside costs nothing, a game that crashes its worker (a segfault, memory) costs three.
DEATHS_PER_GAME = 3
# A run starts one worker and, when games still wait this long after it could play, the rest of
# its --jobs: a run of a fraction of a second (a notebook's, a documentation page's, a test's)
# does not pay the start of workers it has no games for (about 0.3 s of CPU each); a longer one
# plays on every core a fraction of a second later. Workers kept idle since an earlier run of
# the process are taken up at once.
GROW_SECONDS = 0.2
# Workers that die before they could start, in a row, stop the run; so does one that has not
# started within START_SECONDS (importing a user's bot that hangs).
FAILED_STARTS = 3
START_SECONDS = 300.0

# A worker plays one game at a time on one core: numpy's BLAS gets one thread there (as joblib's
# workers do), unless the user set a count. Its pool of threads would compete with the other
# workers for the cores, and starting it cost each worker 0.08 s of CPU (a quarter of its start).
_ONE_THREAD = dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1")

_BEAT = 4  # int64 slots of a worker's page: game id, decisions made, seat to move, unused
_GAME, _STEPS, _SEAT = 0, BEAT_STEPS, BEAT_SEAT  # (play_task writes the last two)


class WorkerError(ProjectLError):
    """The workers cannot play (a bot that does not load there, workers that cannot start)."""

    exit_code = 1


@dataclass(frozen=True)
class Limits:
    """Time limits, in seconds of wall time: one decision, and one game."""

    decision: float = DECISION_TIMEOUT
    game: float = GAME_TIMEOUT

    def to_json(self) -> dict[str, float]:
        """Return the manifest form."""
        return {"decision_timeout": self.decision, "game_timeout": self.game}


# -- error rows ------------------------------------------------------------------------------
def timed_out(
    task: GameTask,
    config: GameConfig,
    run_id: str,
    seat: int | None,
    limit: float,
    what: str,
    spent: float,
) -> GameResult:
    """Return the error row of a game stopped by a time limit (``what``: decision or game).

    Its worker was killed, so the row has the deal's state: no decisions counted.
    """
    state = dealt(task, config)
    seat = state.current if seat is None or seat < 0 else seat
    bot = config.seated(task.rotation)[seat]
    flag = "--decision-timeout" if what == "decision" else "--game-timeout"
    which = "a decision" if what == "decision" else "the game"
    error = (
        f"bot {bot} (seat {seat}, game seed {task.seed}) timed out after {limit:g} s: "
        f"{which} went over {flag} {limit:g}; its worker was stopped"
    )
    return error_rows(task, config, run_id, error, error_seat=seat, duration=spent, state=state)


def lost(task: GameTask, config: GameConfig, run_id: str, how: str) -> GameResult:
    """Return the error row of a game whose workers died playing it (``how``: the last exit)."""
    error = (
        f"the game's worker died {DEATHS_PER_GAME} times while playing it ({how}); "
        f"game seed {task.seed}"
    )
    return error_rows(task, config, run_id, error)


# -- what a run tells its workers ----------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """What every worker of a run needs: its configurations, id, limits and extra bots."""

    configs: Mapping[int, GameConfig]
    run_id: str
    limits: Limits
    bots: bytes = b""  # cloudpickled {name: class} added to bots.REGISTRY in the parent
    path: tuple[str, ...] | None = None  # the parent's import path (local workers only)
    token: int = 0
    flow: bool = True  # collect the events and rounds rows (``--tables all``)
    check: bool = False  # check the invariants after every action (``--check-invariants``)
    # config id -> ``rules_digest`` of its rules as the parent built them (``Pool`` fills it)
    digests: Mapping[int, str] | None = None


def rules_digests(configs: Mapping[int, GameConfig]) -> dict[int, str]:
    """Return the ``rules_digest`` of each configuration's rules, built in this process."""
    return {cid: _digest_of(config) for cid, config in configs.items()}


@functools.lru_cache(maxsize=1024)
def _digest_of(config: GameConfig) -> str:
    # once per configuration and process: a Dask worker makes a pool for every batch
    return rules_digest(rules_of(config))


def job_bots() -> bytes:
    """Return the bots registered in this process beyond the built-in ones, for workers."""
    from bots import extra_bots

    extra = extra_bots()
    if not extra:
        return b""
    import cloudpickle  # pickles classes of __main__ (a notebook's) by value

    return cloudpickle.dumps(extra)


def _adopt(job: Job) -> None:
    """Set up this worker for a run: the import path, the extra bots, every seat's bot."""
    import pickle

    import bots

    if job.path is not None:
        sys.path[:] = list(job.path)
    if job.bots:
        bots.REGISTRY.update(pickle.loads(job.bots))
    for config in job.configs.values():
        for spec in config.lineup:
            bots.make_bot(spec)  # a bot this process cannot load stops the run, in one line
        rules_of(config)


def _print_of(job: Job, config_id: int) -> RulesPrint:
    """Return the print of a configuration's rules (``rules_print``), taken before this worker
    plays its first game of them, once their digest is found to be the parent's (else
    ``WorkerError``). Taken then, not when the worker starts: the print reads the catalogue's
    tables, which the first game builds anyway (a worker is ready to play sooner)."""
    rules = rules_of(job.configs[config_id])
    if job.digests is not None and rules_digest(rules) != job.digests.get(config_id):
        raise WorkerError(
            f"the rules of configuration {config_id} built in a worker differ from the run's "
            "(a plug-in file whose options or puzzles changed since the run began, or a bot of "
            "an earlier game that changed them)"
        )
    return rules_print(rules)


# -- the worker process --------------------------------------------------------------------------
def _die_with(parent: int) -> None:
    """Have the kernel kill this process when its parent ends (Linux), even mid-hang."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it ended before we asked
        os._exit(0)


def _worker_main(fd_in: int, fd_out: int, fd_life: int, fd_beat: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to decide

    def lifeline() -> None:
        while os.read(fd_life, 1):
            pass
        os._exit(0)  # the parent is gone: nobody wants the game

    threading.Thread(target=lifeline, daemon=True, name="lifeline").start()
    inbox = Connection(fd_in, writable=False)
    outbox = Connection(fd_out, readable=False)
    page = mmap.mmap(fd_beat, _BEAT * 8)
    beat = memoryview(page).cast("q")
    job: Job | None = None
    prints: dict[int, RulesPrint] = {}
    while True:
        try:
            kind, body = inbox.recv()
        except EOFError:
            return
        if kind == "stop":
            return
        if kind == "job":
            try:
                _adopt(body)
                prints = {}
            except BotBuildError as exc:  # what the bot itself raised, as the parent's line says
                outbox.send(("fatal", f"a worker cannot start the run: {exc.cause_line}"))
                continue
            except ProjectLError as exc:
                outbox.send(("fatal", f"{exc} (in a worker process, pid {os.getpid()})"))
                continue
            except Exception as exc:
                line = f"{type(exc).__name__}: {exc}"
                outbox.send(("fatal", f"a worker cannot start the run: {line}"))
                continue
            job = body
            outbox.send(("ready", body.token))
            continue
        assert kind == "games" and job is not None
        done: list[GameResult] = []
        sent = time.perf_counter()
        retire = False
        for task in body:
            beat[_STEPS] = 0
            beat[_SEAT] = -1
            beat[_GAME] = task.game_id
            try:
                if task.config_id not in prints:
                    prints[task.config_id] = _print_of(job, task.config_id)
            except ProjectLError as exc:
                outbox.send(("fatal", f"{exc} (in a worker process, pid {os.getpid()})"))
                break
            try:
                config = job.configs[task.config_id]
                expected = prints[task.config_id]
                result = play_task(
                    task, config, job.run_id, beat, job.flow, expected, check=job.check
                )
            except Exception as exc:  # building the rows failed: a runner bug, stop the run
                line = f"{type(exc).__name__}: {exc}"
                outbox.send(("fatal", f"game {task.game_id} could not be written ({line})"))
                break
            done.append(result)
            if result.replace_worker:  # a bot bent this process: it plays nothing more
                retire = True
                break
            now = time.perf_counter()
            if now - sent >= SEND_SECONDS:
                outbox.send(("done", done))
                done, sent = [], now
        beat[_GAME] = -1
        if done:
            outbox.send(("done", done))
        if retire:  # the parent, reading the bent game's result, replaces this worker
            return


# -- the parent's side ---------------------------------------------------------------------------
class _Worker:
    """One worker process as its parent sees it: pipes, shared page, the games sent to it."""

    def __init__(self) -> None:
        r_in, w_in = os.pipe()
        r_out, w_out = os.pipe()
        r_life, self._life = os.pipe()
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None  # memory, not a disk
        self._page_file = tempfile.TemporaryFile(dir=shm)  # noqa: SIM115 (closed in close())
        self._page_file.truncate(_BEAT * 8)
        self._page = mmap.mmap(self._page_file.fileno(), _BEAT * 8)
        self.beat = memoryview(self._page).cast("q")
        self.beat[_GAME] = -1
        fd_page = self._page_file.fileno()
        child = (r_in, w_out, r_life, fd_page)
        # -P: the current folder is not put first on its import path, where a folder named like
        # a package (a run written to --out bots) would hide the installed one
        args = [sys.executable, "-P", "-m", "projectl_sim.sim.workers", *map(str, child)]
        if threading.current_thread() is threading.main_thread():
            # the kernel's "parent died" signal follows the thread that started the child:
            # only the main thread lives as long as the process
            args.append(str(os.getpid()))
        self.proc = subprocess.Popen(
            args,
            env={**_ONE_THREAD, **os.environ},  # read now: a test or notebook may set some
            pass_fds=child,
            stdin=subprocess.DEVNULL,
            # its own session: a terminal's Ctrl-C reaches the run, which stops its workers
            # (a worker interrupted while it starts would print a traceback)
            start_new_session=True,
        )
        for fd in (r_in, w_out, r_life):
            os.close(fd)
        self.inbox = Connection(w_in, readable=False)  # what the worker reads
        self.outbox = Connection(r_out, writable=False)  # what it answers
        self.queue: deque[GameTask] = deque()  # sent and not answered; the first is playing
        self.token = -1  # the job it has taken up
        self.ready = False
        self.started = False  # answered at least once (it could start)
        self.seen: tuple[int, int] = (-1, -1)
        self.decision_since = self.game_since = time.monotonic()
        self.pace = 0.01  # seconds a game takes here (a running mean)
        self.last = self.spawned = time.monotonic()
        _ALL.add(self)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, message: tuple[str, Any]) -> bool:
        try:
            self.inbox.send(message)
            return True
        except OSError:  # it died: its pipe is closed
            return False

    def playing(self, queue: Iterable[GameTask]) -> int | None:
        """Return the index in ``queue`` of the game the worker's page says it plays."""
        game_id = self.beat[_GAME]
        if game_id < 0:
            return None
        for i, task in enumerate(queue):
            if task.game_id == game_id:
                return i
        return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.release()

    def release(self) -> None:
        """Wait for the process's end and close its pipes and page."""
        self.proc.wait()
        if self._life >= 0:
            self.close()

    def close(self) -> None:
        for conn in (self.inbox, self.outbox):
            conn.close()
        os.close(self._life)
        self._life = -1
        self.beat.release()
        self._page.close()
        self._page_file.close()

    def exit_text(self) -> str:
        code = self.proc.wait()
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exit code {code}"


_IDLE: list[_Worker] = []  # workers between runs, reused by the next one in this process
_ALL: weakref.WeakSet[_Worker] = weakref.WeakSet()


def worker_pids(playing: bool = False) -> list[int]:
    """Return the process ids of this process's live workers (``playing``: those playing a game
    now, not starting or idle)."""
    return sorted(
        w.proc.pid
        for w in list(_ALL)
        if w.proc.poll() is None and (not playing or (w.ready and w.queue))
    )


def _stop_idle() -> None:
    if threading.current_thread() is threading.main_thread():
        # at exit: a Ctrl-C now would only print "Exception ignored in atexit callback"
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    idle = [*_IDLE, *(w for ws in _BATCH_IDLE.values() for w in ws)]
    _IDLE.clear()
    _BATCH_IDLE.clear()
    while idle:
        worker = idle.pop()
        worker.send(("stop", None))
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.proc.wait(timeout=2)
        worker.kill()


atexit.register(_stop_idle)
_TOKENS = iter(range(1, 1 << 62))


class Pool:
    """Up to ``size`` worker processes playing one run's games under its time limits: one at
    first (or every idle one an earlier run kept), the rest once games still wait
    ``GROW_SECONDS`` after a worker could play."""

    def __init__(self, size: int, job: Job, idle: list[_Worker] | None = None) -> None:
        self.size = size
        self.idle = _IDLE if idle is None else idle  # where workers wait between runs
        digests = rules_digests(job.configs) if job.digests is None else job.digests
        self.job = replace(job, token=next(_TOKENS), digests=digests)
        self.workers: list[_Worker] = []
        self.deaths: dict[int, int] = {}
        self.failed_starts = 0

    def _start(self) -> _Worker:
        while self.idle and not self.idle[-1].alive():
            self.idle.pop().kill()  # died while idle (killed from outside)
        worker = self.idle.pop() if self.idle else _Worker()
        # START_SECONDS count from now: a worker kept idle since an earlier run was spawned
        # long ago, and must not be taken for one that never started
        worker.spawned = time.monotonic()
        worker.beat[_GAME] = -1
        worker.seen = (-1, -1)
        worker.ready = False
        worker.send(("job", self.job))
        self.workers.append(worker)
        return worker

    def play(self, todo: Iterable[GameTask]) -> Iterator[GameResult]:
        """Yield a result for every game of ``todo`` (in the order they finish).

        Closing the generator early (Ctrl-C, a full disk) kills the workers still playing; the
        idle ones are kept for the next run of this process.
        """
        games = iter(todo)
        again: deque[GameTask] = deque()  # games to play before the next of ``games``
        more = True
        grow_at: float | None = None  # when the rest of the workers start, if games still wait
        try:
            self._start()
            while len(self.workers) < self.size and any(w.alive() for w in self.idle):
                self._start()  # kept from an earlier run: free to take up (a dead one is not)
            while True:
                for worker in self.workers:
                    if worker.ready:
                        more = self._feed(worker, games, again, more)
                if not more and not again and not any(w.queue for w in self.workers):
                    return
                if len(self.workers) < self.size:
                    now = time.monotonic()
                    if grow_at is None and any(w.ready for w in self.workers):
                        grow_at = now + GROW_SECONDS
                    waiting = more or again or any(len(w.queue) > 1 for w in self.workers)
                    if grow_at is not None and now >= grow_at and waiting:
                        while len(self.workers) < self.size:
                            self._start()
                conns = [w.outbox for w in self.workers]
                for conn in wait(conns, timeout=CHECK_SECONDS):
                    worker = next(w for w in self.workers if w.outbox is conn)
                    yield from self._answers(worker, again)
                yield from self._watch(again)
        finally:
            for worker in self.workers:
                if worker.queue or not worker.ready or not worker.alive():
                    worker.kill()
                else:
                    self.idle.append(worker)
            self.workers = []

    def _feed(
        self, worker: _Worker, games: Iterator[GameTask], again: deque[GameTask], more: bool
    ) -> bool:
        # keep about a fifth of a second of games queued at each worker, so none waits on us;
        # two at most while more workers may start, so that they find games left to play
        target = max(2, min(256, int(0.2 / max(worker.pace, 1e-4))))
        if len(self.workers) < self.size:
            target = 2
        if len(worker.queue) > target // 2:
            return more
        batch: list[GameTask] = []
        while len(worker.queue) + len(batch) < target:
            if again:
                batch.append(again.popleft())
            elif more:
                task = next(games, None)
                if task is None:
                    more = False
                    break
                batch.append(task)
            else:
                break
        if batch:
            if not worker.queue:
                worker.last = time.monotonic()
            worker.queue.extend(batch)
            worker.send(("games", batch))  # a dead worker is found by its closed pipe
        return more

    def _answers(self, worker: _Worker, again: deque[GameTask]) -> Iterator[GameResult]:
        while True:
            try:
                if not worker.outbox.poll():
                    return
                kind, body = worker.outbox.recv()
            except (EOFError, OSError):
                yield from self._died(worker, again)
                return
            if kind == "done":
                now = time.monotonic()
                pace = (now - worker.last) / len(body)
                worker.pace = 0.8 * worker.pace + 0.2 * pace
                worker.last = now
                for result in body:
                    task = worker.queue.popleft()
                    assert task.game_id == result.game_id, (task.game_id, result.game_id)
                    yield result
                if body and body[-1].replace_worker:  # it played nothing more: it is ending
                    self._retired(worker, again)
                    return
            elif kind == "ready":
                if body == self.job.token:
                    worker.ready = worker.started = True
                    self.failed_starts = 0
                    worker.last = time.monotonic()
            elif kind == "fatal":
                raise WorkerError(body)

    def _retired(self, worker: _Worker, again: deque[GameTask]) -> None:
        """Replace a worker that ends after a game that failed its result check: the games sent
        to it and not played go to the others, and a new worker starts."""
        again.extendleft(reversed(worker.queue))
        worker.queue.clear()
        worker.release()
        self.workers.remove(worker)
        self._start()

    def _died(self, worker: _Worker, again: deque[GameTask]) -> Iterator[GameResult]:
        how = worker.exit_text()
        queue = list(worker.queue)
        playing = worker.playing(queue)  # its page outlives it
        worker.queue.clear()
        worker.release()
        self.workers.remove(worker)
        if not worker.started:
            self.failed_starts += 1
            if self.failed_starts >= FAILED_STARTS:
                raise WorkerError(
                    f"worker processes cannot start ({how}, {FAILED_STARTS} times in a row)"
                )
        if playing is not None:  # the game it died in (those before it were not yet sent)
            culprit = queue[playing]
            self.deaths[culprit.game_id] = self.deaths.get(culprit.game_id, 0) + 1
            if self.deaths[culprit.game_id] >= DEATHS_PER_GAME:
                del queue[playing]
                yield lost(culprit, self.job.configs[culprit.config_id], self.job.run_id, how)
        again.extendleft(reversed(queue))
        self._start()

    def _watch(self, again: deque[GameTask]) -> Iterator[GameResult]:
        now = time.monotonic()
        limits = self.job.limits
        for worker in list(self.workers):
            if not worker.ready:
                if now - worker.spawned > START_SECONDS:
                    raise WorkerError(f"a worker process did not start in {START_SECONDS:g} s")
                continue
            if not worker.queue:
                continue
            seen = (worker.beat[_GAME], worker.beat[_STEPS])
            if seen != worker.seen:
                if seen[0] != worker.seen[0]:
                    worker.game_since = now
                worker.seen = seen
                worker.decision_since = now
            playing = worker.playing(worker.queue)
            if playing is None:
                continue  # between batches
            current = worker.queue[playing]
            over = None
            if now - worker.decision_since > limits.decision:
                over = ("decision", limits.decision)
            elif now - worker.game_since > limits.game:
                over = ("game", limits.game)
            if over is None:
                continue
            seat = worker.beat[_SEAT]
            rest = list(worker.queue)
            del rest[playing]  # the games before it were played but not sent: played again
            worker.queue.clear()
            worker.kill()
            self.workers.remove(worker)
            again.extendleft(reversed(rest))
            config = self.job.configs[current.config_id]
            spent = now - worker.game_since
            yield timed_out(current, config, self.job.run_id, seat, over[1], over[0], spent)
            self._start()


_BATCH_LOCK = threading.Lock()
_BATCH_IDLE: dict[int, list[_Worker]] = {}  # a Dask worker's idle workers, by its thread


def play_batch(tasks: list[GameTask], job: Job) -> list[GameResult]:
    """Play a batch of games in a worker process of this one and return their results.

    What a Dask task runs: the games play in a child process this Dask worker keeps (one per
    thread), under the run's time limits, so a hung bot costs its game, never the Dask worker.
    """
    with _BATCH_LOCK:
        idle = _BATCH_IDLE.setdefault(threading.get_ident(), [])
    return list(Pool(1, job, idle).play(tasks))


def main(argv: list[str]) -> None:
    """Run a worker process: ``python -m projectl_sim.sim.workers IN OUT LIFE PAGE [PARENT]``
    (file descriptors; ``PARENT``: the parent's pid when the kernel may tie us to it)."""
    fd_in, fd_out, fd_life, fd_beat = (int(a) for a in argv[:4])
    if len(argv) > 4:
        _die_with(int(argv[4]))
    _worker_main(fd_in, fd_out, fd_life, fd_beat)


if __name__ == "__main__":
    # run the imported module's code, so what is pickled names projectl_sim.sim.workers
    from projectl_sim.sim import workers

    workers.main(sys.argv[1:])
