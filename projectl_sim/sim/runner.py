"""Play a run's games in parallel: the writer's lock, workers, part files, the manifest, stops.

The tasks come from ``projectl_sim.sim.spec`` (decided in the parent, made as they are needed,
so results are the same for any number of jobs and any backend). Games play in worker processes
the runner can kill (``projectl_sim.sim.workers``: local ones, or one per thread of each
``dask.distributed`` worker), under the run's time limits; finished games are appended as part
files (see ``projectl_sim.sim.tables``), and ``resume`` plays only the games missing from them.
One process writes a run folder at a time (an OS file lock). However a session ends (finished,
Ctrl-C, a full disk, workers that cannot play, a kill), the manifest says so and lists it.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import secrets
import shutil
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from bots import declared_name, make_bot, split_spec
from bots.base import Bot
from projectl_sim.engine.record import read_record
from projectl_sim.errors import ProjectLError, RunFailed, RunInterrupted, UsageError, unknown_name
from projectl_sim.rules import Rules
from projectl_sim.sim import manifest as run_manifest
from projectl_sim.sim import tables, workers
from projectl_sim.sim.play import play_game  # noqa: F401  (where it was imported from before)
from projectl_sim.sim.spec import (
    SEED_SCHEME,
    GameConfig,
    GameTask,
    RunSpec,
    Tasks,
    plan,
    run_id_of,
    seed_scheme_of,
)
from projectl_sim.sim.task import GameResult, play_task
from projectl_sim.sim.workers import PART_GAMES, Job, Limits, WorkerError

# A part file at least this often, so a killed run loses little; in a long run, every 1% of the
# time so far (a ten-hour run writes a few hundred parts, not thousands).
FLUSH_SECONDS = 5.0
# ... and at most PART_GAMES games in one (``sim.workers``, unless --chunk says)
# Progress where stderr is no terminal (a pipe, a log file, a notebook's cell): a line with the
# games done and the time left at most this often, and one at the end
PROGRESS_SECONDS = 30.0
PROGRESS_LINE = (
    "{n_fmt}/{total_fmt} games ({percentage:.0f}%), {elapsed} elapsed, about {remaining} left"
)
# What a game takes on disk, for the free-space check (measured: about 40 bytes per game and 50
# per seat in the tables, as much again in its parts before consolidation, and a margin), and
# what one game record takes.
BYTES_PER_GAME, BYTES_PER_SEAT = 120, 150
BYTES_PER_FLOW_SEAT = 400  # the events and rounds rows of one seat of a game (and their parts)
BYTES_PER_RECORD = 20_000
BACKENDS = ("local", "dask")


# -- running ---------------------------------------------------------------------------------
@dataclass
class RunOptions:
    """How to run (none of it changes the results)."""

    jobs: int | None = None  # default: every core
    backend: str = "local"  # local worker processes, or dask (``loky`` is an old name of local)
    scheduler: str | None = None
    quiet: bool = False
    chunk: int | None = None  # games per part file (default: sized from the run)
    echo: Callable[[str], None] | None = None  # where info lines go (default: stderr)
    decision_timeout: float = workers.DECISION_TIMEOUT  # seconds one decision may take
    game_timeout: float = workers.GAME_TIMEOUT  # seconds one game may take
    notes: tuple[str, ...] = ()  # info lines said as the run starts (cli: rounding, time)
    # check the game's invariants after every action (a game that breaks one: an error row)
    check_invariants: bool = False


@dataclass
class RunResult:
    """A finished run: where it is and what it did."""

    out: Path
    run_id: str
    root_seed: int
    games: int
    played: int
    failed: int
    seconds: float
    complete: bool
    manifest: dict[str, Any] = field(repr=False, default_factory=dict)


def _writable(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"cannot write to output folder {out}: {exc.strerror}") from None


def _jobs(options: RunOptions) -> int:
    if options.jobs is None or options.jobs == -1:
        return os.cpu_count() or 1
    if options.jobs < 1:
        raise UsageError(f"--jobs must be at least 1 (or -1 for every core), got {options.jobs}")
    return options.jobs


def _backend_name(options: RunOptions) -> str:
    return "local" if options.backend == "loky" else options.backend


def _check_scheduler(address: str) -> None:
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            host, port = parse_host_port(location)
            if not host or not port:
                raise ValueError
    except (ValueError, TypeError):
        raise UsageError(
            f"--scheduler {address!r} is not a scheduler address such as tcp://HOST:8786"
        ) from None


def _check_options(options: RunOptions) -> None:
    """Check how-to-run options before anything is created."""
    backend = _backend_name(options)
    if backend not in BACKENDS:
        raise UsageError(unknown_name("backend", options.backend, BACKENDS))
    if backend == "local" and options.scheduler:
        raise UsageError("--scheduler needs --backend dask")
    if backend == "dask":
        if not options.scheduler:
            raise UsageError("--backend dask needs --scheduler tcp://HOST:PORT")
        _check_scheduler(options.scheduler)
    if options.chunk is not None and options.chunk < 1:
        raise UsageError(f"--chunk must be at least 1, got {options.chunk}")
    for flag, value in (
        ("--decision-timeout", options.decision_timeout),
        ("--game-timeout", options.game_timeout),
    ):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise UsageError(f"{flag} must be a number of seconds above 0, got {value!r}")
    _jobs(options)


def echo_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _session(options: RunOptions, jobs: int) -> dict[str, Any]:
    limits = Limits(options.decision_timeout, options.game_timeout)
    return {
        "started": tables.now(),
        "jobs": jobs,
        "backend": _backend_name(options),
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "limits": limits.to_json(),
        "status": "running",
    }


def _settings(spec: RunSpec, seed: int | None) -> dict[str, Any]:
    """Return what must match on ``--resume``: every setting but ``games``."""
    return spec.to_json() | {"seed": seed, "games": None}


def _resumed(
    spec: RunSpec | None, out: Path, stored: RunSpec, history: list[int]
) -> tuple[RunSpec, list[int]]:
    """Return the spec a resume plays and its games history (a larger ``games`` grows it)."""
    history = list(history)
    if spec is None:
        return stored, history
    seed = spec.seed if spec.seed is not None else stored.seed
    if _settings(spec, seed) != _settings(stored, stored.seed):
        raise UsageError(
            f"--resume: the settings differ from the run in {out} (only --games may grow); "
            "drop them to finish that run, or choose another --out"
        )
    if spec.games < stored.games:
        raise UsageError(
            f"--resume --games {spec.games}: the run in {out} plays {stored.games} games per "
            "configuration; a run can grow, not shrink"
        )
    if spec.games > stored.games:
        history.append(spec.games)
    return replace(stored, games=spec.games), history


def _complete(written: tables.Written | None) -> tuple[int, int] | None:
    """Return the games done and failed of a run whose manifest says it is complete, counted in
    what its tables hold (``written``, against the games planned); None when they do not hold
    every game once (the resume then plays the missing ones)."""
    if written is None or written.tally.problems():
        return None
    return written.tally.rows, written.tally.failed


def _space_needed(
    configs: list[GameConfig], tasks: Tasks, todo: int, records: str, flow: bool = False
) -> int:
    """Return about how many bytes ``todo`` more games of this run take on disk."""
    total = len(tasks)
    if not total:
        return 0
    seats = sum(c.players * c.per_deal for c in configs) / sum(c.per_deal for c in configs)
    need = todo * (BYTES_PER_GAME + BYTES_PER_SEAT * seats)
    if flow:
        need += todo * BYTES_PER_FLOW_SEAT * seats
    if records == "all":
        need += todo * BYTES_PER_RECORD
    elif records.startswith("sample:"):
        need += min(int(records.partition(":")[2]), todo) * BYTES_PER_RECORD
    return int(need)


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} PB"


def _check_space(out: Path, need: int, todo: int) -> None:
    free = tables.free_bytes(out)
    if need > free:
        raise UsageError(
            f"{todo} games need about {_size(need)} on disk and {tables.device_of(out)} has "
            f"{_size(free)} free: play fewer games (--games), or choose another --out"
        )


def _missing(tasks: Tasks, done: np.ndarray) -> Iterator[GameTask]:
    """Yield the games of ``tasks`` whose ids are not in ``done`` (sorted, unique)."""
    total = len(tasks)
    starts = np.concatenate([[0], done + 1])
    ends = np.concatenate([done, [total]])
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        if end > start:
            yield from itertools.islice(tasks.from_id(start), end - start)


def _remove_new_folder(out: Path) -> None:
    """Remove a run folder this call created, when it stops before holding a run."""
    if not (out / tables.MANIFEST).exists():
        shutil.rmtree(out, ignore_errors=True)


def bot_names(configs: Sequence[GameConfig]) -> dict[str, str]:
    """Return the names the analysis shows for the users' bots of these configurations: each
    module or file source (``/abs/placer.py:Placer``) whose class declares a name of its own
    (``placer``), when no other source of the run declares the same one."""
    sources = {split_spec(s)[0] for c in configs for s in c.lineup}
    found = {s: declared_name(s) for s in sorted(sources) if ":" in s}
    named = [n for n in found.values() if n]
    return {s: n for s, n in found.items() if n and named.count(n) == 1}


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C while a run plays (its tables and manifest are closed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(
    spec: RunSpec | None,
    out: str | Path,
    *,
    resume: bool = False,
    options: RunOptions | None = None,
    manifest_extra: Mapping[str, Any] | None = None,
) -> RunResult:
    """Play a run into ``out`` (or finish or grow one there with ``resume``); return what
    happened.

    ``manifest_extra`` is stored in the manifest as it is (kept by later sessions): what a
    caller driving the run wants to find there again, such as the ``--until-precision``
    request (``manifest["precision"]``, which ``summary`` reads).

    Everything a user can get wrong (bots, combinations, the folder, the scheduler, the disk
    space) is checked before the first game and raises ``UsageError``. A stop raises
    ``RunInterrupted`` (Ctrl-C) or ``RunFailed`` (a full disk, workers that cannot play), after
    the tables and the manifest are written; either message says how to go on.
    """
    options = options or RunOptions()
    if not str(out).strip():  # Path("") is the current folder: never a run folder by accident
        raise UsageError("--out '' names no folder: give the run folder, such as results/NAME")
    out = Path(out)
    _check_options(options)
    if not resume and spec is None:
        raise UsageError("nothing to run: give --bots, --config or --preset")
    if resume:
        tables.read_manifest(out)  # no run there: one line, nothing created
    created = not out.exists()
    _writable(out)
    try:
        with ExitStack() as stack:
            stack.enter_context(tables.writer_lock(out))
            return _run_locked(spec, out, resume, options, stack, dict(manifest_extra or {}))
    except BaseException:
        if created:
            _remove_new_folder(out)
        raise


def _run_locked(
    spec: RunSpec | None,
    out: Path,
    resume: bool,
    options: RunOptions,
    stack: ExitStack,
    extra: dict[str, Any],
) -> RunResult:
    echo = options.echo or echo_stderr
    if resume:
        manifest = tables.read_manifest(out)
        stored, stored_history = run_manifest.stored_run(out, manifest)
        spec, history = _resumed(spec, out, stored, stored_history)
        grows = len(history) > len(stored_history)
        # what the games written hold, read window by window: the parts while the run has
        # some (they are its tables: a stopped run's consolidated files are made from them
        # again), else its tables; a resume of a million games does not hold their columns
        assert stored.seed is not None
        _, planned = plan(stored, stored.seed, stored_history, seed_scheme_of(manifest, out))
        written = run_manifest.read_written(out, len(planned))
        # nothing of the manifest is believed before it matches its own settings and games
        run_manifest.check_resume(out, manifest, stored, stored_history, written)
        if manifest.get("status") == "complete" and not grows:
            done = _complete(written)
            if done is not None:
                if not options.quiet:
                    echo(f"run {manifest['run_id']} in {out} is already complete")
                if any(manifest.get(k) != v for k, v in extra.items()):
                    manifest |= extra
                    tables.write_manifest(out, manifest)
                n, failed = done
                return RunResult(
                    out, manifest["run_id"], stored.seed or 0, n, 0, failed, 0.0, True, manifest
                )
    else:
        assert spec is not None
        if (out / tables.MANIFEST).exists():
            raise UsageError(
                f"{out} already holds a run: add --resume to finish it, or choose another --out"
            )
        if spec.seed is None:
            spec = replace(spec, seed=secrets.randbelow(2**31))
        history = [spec.games]
        manifest = {}
        grows = False
    assert spec.seed is not None
    seed = spec.seed
    scheme = seed_scheme_of(manifest, out) if resume else SEED_SCHEME  # a run resumes with its own
    configs, tasks = plan(spec, seed, history, scheme)
    run_id = manifest.get("run_id") or run_id_of(spec, seed, scheme)
    jobs = _jobs(options)
    if resume:
        tables.clean_parts(out)
        tables.reopen(out, spec.format)  # a complete run's tables back to parts, to grow it
        done = tables.done_game_ids(out)
        problems = tables.merge(out).doubles()  # window by window: no table held whole
        if problems:
            raise UsageError(
                f"{out}: its parts are inconsistent ({'; '.join(problems)}): two processes "
                "wrote it at once; play it again in a new folder"
            )
    else:
        done = np.empty(0, dtype=np.int64)
    todo = len(tasks) - len(done)
    need = _space_needed(configs, tasks, todo, spec.records, spec.tables == "all")
    _check_space(out, need, todo)
    if not options.quiet:
        for note in options.notes:
            echo(note)
        verb = "growing" if grows else ("resuming" if resume else "running")
        echo(
            f"{verb} run {run_id}: {len(configs)} configuration(s), {len(tasks)} games"
            f"{f' ({todo} left)' if resume else ''}, root seed {seed} -> {out}"
        )
    job = Job(
        {c.config_id: c for c in configs},
        run_id,
        Limits(options.decision_timeout, options.game_timeout),
        workers.job_bots(),
        tuple(sys.path) if _backend_name(options) == "local" else None,
        flow=spec.tables == "all",
        check=options.check_invariants,
    )
    results, jobs = stack.enter_context(
        _results(options, _missing(tasks, done), job, min(jobs, max(1, todo)))
    )
    # the run is on: from here its manifest tells how each session went
    if not resume:
        manifest = run_manifest.new_manifest(spec, seed, run_id, configs, len(tasks))
    for old in manifest.get("sessions", []):
        if old.get("status") == "running":  # its process ended without a word: killed
            old["status"] = "killed"
    session = _session(options, jobs)
    manifest["sessions"] = [*manifest.get("sessions", []), session]
    manifest |= {
        "status": "running",
        "games_planned": len(tasks),
        "games_history": history,
        "config": spec.to_json() | {"seed": seed},
        "limits": session["limits"],
    }
    names = bot_names(configs)
    if names:
        manifest["bot_names"] = names
    manifest |= extra
    stack.enter_context(_sigterm_as_interrupt())
    held = _HeldInterrupt()  # a stop from here on waits for the games' loop, which closes it up
    try:
        try:
            tables.reserve_space(out)
            tables.drop_tables(out)  # while it plays, the parts are the tables
            tables.write_manifest(out, manifest)
        except tables.WriteError as exc:
            tables.release_space(out)
            what = "no space left" if exc.full else exc.strerror
            raise UsageError(
                f"{what} on {tables.device_of(out)} while writing {exc.path}: free space first"
            ) from None
        return _play(out, spec, tasks, todo, results, run_id, manifest, session, options, held)
    finally:
        held.restore()


class _HeldInterrupt:
    """Ctrl-C (and SIGTERM) held back from the moment the manifest says "running" until the
    games' loop, whose close-up writes the manifest and the one-line stop: a stop in between
    would leave a "running" manifest and no word of how to go on."""

    def __init__(self) -> None:
        self.hit = False
        self.previous: list[tuple[int, Any]] = []
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self.previous.append((signum, signal.signal(signum, self._hold)))

    def _hold(self, signum: int, frame: Any) -> None:
        self.hit = True

    def restore(self) -> None:
        """Put the stops' own handlers back (once)."""
        while self.previous:
            signum, handler = self.previous.pop()
            signal.signal(signum, handler)

    def release(self) -> None:
        """Put the handlers back and raise the stop held back, if one came."""
        self.restore()
        if self.hit:
            self.hit = False
            raise KeyboardInterrupt


@contextmanager
def _results(
    options: RunOptions, todo: Iterator[GameTask], job: Job, jobs: int
) -> Iterator[tuple[Iterator[GameResult], int]]:
    """Yield the results of ``todo`` as they come, and how many workers play them."""
    if _backend_name(options) == "local":
        games = workers.Pool(jobs, job).play(todo)
        try:
            yield games, jobs
        finally:
            games.close()
        return
    import logging

    from distributed import Client

    address = options.scheduler
    # the run says in one line what went wrong (a scheduler gone, say): Dask's own logs of it
    # are dozens of lines and tracebacks, so its client's loggers keep quiet while it plays
    quiet = [
        log
        for name, log in list(logging.Logger.manager.loggerDict.items())
        if isinstance(log, logging.Logger)
        and name.startswith(("distributed", "tornado", "asyncio"))
    ]
    quiet += [logging.getLogger(name) for name in ("distributed", "tornado", "asyncio")]
    was = [log.disabled for log in quiet]
    for log in quiet:
        log.disabled = True
    try:
        try:
            client = Client(address, timeout="10s")
        except Exception as exc:  # OSError, TimeoutError, and whatever a bad address raises
            raise UsageError(
                f"cannot reach the dask scheduler at {address}: {_one_line(exc)}"
            ) from None
        try:
            threads = sum(client.nthreads().values()) or 1
            games = _dask_games(client, todo, job, threads, str(address))
            try:
                yield games, threads
            finally:
                games.close()
        finally:
            with contextlib.suppress(Exception):  # a scheduler gone: nothing left to close
                client.close(timeout=5)
    finally:
        for log, disabled in zip(quiet, was, strict=True):
            log.disabled = disabled


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _dask_games(
    client: Any, todo: Iterator[GameTask], job: Job, threads: int, address: str = "?"
) -> Iterator[GameResult]:
    """Yield the results of ``todo`` played in batches on a Dask cluster (each batch in a
    worker process of a Dask worker, under the run's limits)."""
    from distributed import as_completed

    pending = as_completed()
    submitted: set[Any] = set()
    size = 8  # games per batch: about a second of them once their pace is known
    batches = itertools.count()

    def submit() -> bool:
        batch = list(itertools.islice(todo, size))
        if not batch:
            return False
        key = f"projectl-{job.run_id}-{job.token}-{next(batches)}-{batch[0].game_id}"
        future = client.submit(workers.play_batch, batch, job, key=key, pure=False)
        submitted.add(future)
        pending.add(future)
        return True

    try:
        more = True
        while more and len(submitted) < 2 * threads:
            more = submit()
        for future in pending:
            submitted.discard(future)
            try:
                results = future.result()
            except ProjectLError:
                raise
            except Exception as exc:
                if "connection-lost" in str(exc) or client.status in ("closed", "closing"):
                    raise WorkerError(
                        f"lost the connection to the dask scheduler at {address} "
                        "(it stopped, or the network failed)"
                    ) from None
                raise WorkerError(
                    f"a dask task failed ({type(exc).__name__}: {_one_line(exc)})"
                ) from None
            if results:
                pace = sum(r.game["duration"] or 0.0 for r in results) / len(results)
                size = max(4, min(1000, int(1.0 / max(pace, 1e-4))))
            yield from results
            while more and len(submitted) < 2 * threads:
                more = submit()
    finally:
        if submitted:
            client.cancel(list(submitted))


def _play(
    out: Path,
    spec: RunSpec,
    tasks: Tasks,
    todo: int,
    results: Iterator[GameResult],
    run_id: str,
    manifest: dict[str, Any],
    session: dict[str, Any],
    options: RunOptions,
    held: _HeldInterrupt,
) -> RunResult:
    chunk = options.chunk or PART_GAMES
    numbers = tables.part_numbers(out)  # of earlier sessions (read before "running")
    next_part = (numbers[-1] + 1) if numbers else 0
    buffer: list[GameResult] = []
    played = 0
    start = last_flush = time.perf_counter()

    def flush() -> None:
        nonlocal next_part, last_flush
        if buffer:
            tables.write_records(out, [(r.game_id, r.record) for r in buffer if r.record])
            seats = [row for r in buffer for row in r.seats]
            flow = None
            if spec.tables == "all":  # a game stopped from outside has no flow rows
                idents = [{k: r.game[k] for k in tables.CONFIG_COLUMNS} for r in buffer]
                flow = {
                    name: tables.flow_table(
                        [(i, r.flow[name]) for i, r in zip(idents, buffer, strict=True) if r.flow],
                        name,
                    )
                    for name in tables.FLOW_TABLES
                }
            tables.write_part(out, next_part, seats, [r.game for r in buffer], flow)
            next_part += 1
            buffer.clear()
        last_flush = time.perf_counter()

    stop: BaseException | None = None
    bar = None
    try:  # from the moment the manifest says "running", any stop is closed up below
        held.release()
        from tqdm import tqdm

        bar = _progress(tqdm, len(tasks), len(tasks) - todo, options.quiet)
        for result in results:
            buffer.append(result)
            played += 1
            bar.update()
            now = time.perf_counter()
            every = max(FLUSH_SECONDS, (now - start) / 100)
            if len(buffer) >= chunk or now - last_flush >= every:
                flush()
    except BaseException as exc:  # Ctrl-C, a full disk, workers that cannot play: close up
        stop = exc
    finally:
        if bar is not None:
            bar.close()
    with _shielded():  # a second Ctrl-C must not leave the manifest half told
        close = getattr(results, "close", None)
        if close is not None:
            close()  # stop the workers still playing
        if not isinstance(stop, tables.WriteError):  # a part that could not be written is lost
            try:
                flush()
            except tables.WriteError as exc:
                stop = stop or exc
        seconds = time.perf_counter() - start
        return _close(out, spec, tasks, run_id, manifest, session, options, played, seconds, stop)


class _Lines:
    """A stream for tqdm that writes each of its refreshes as a line of its own (tqdm redraws
    one line with carriage returns: in a pipe or a log file they would run into one)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> None:
        text = text.strip("\r\n ")
        if text:
            self.stream.write(text + "\n")

    def flush(self) -> None:
        self.stream.flush()


def _progress(tqdm: Any, total: int, done: int, quiet: bool) -> Any:
    """Return the run's progress bar: tqdm's own on a terminal, else a line with the time left
    every ``PROGRESS_SECONDS`` (none with ``quiet``)."""
    if quiet or sys.stderr.isatty():
        return tqdm(total=total, initial=done, unit="game", disable=quiet, dynamic_ncols=True)
    return tqdm(
        total=total,
        initial=done,
        unit="game",
        file=_Lines(sys.stderr),
        mininterval=PROGRESS_SECONDS,
        maxinterval=PROGRESS_SECONDS,
        delay=PROGRESS_SECONDS,  # a run shorter than that: its closing line says it all
        bar_format=PROGRESS_LINE,
    )


@contextmanager
def _shielded() -> Iterator[None]:
    """Ignore Ctrl-C while a stopped run writes its tables and manifest (a second or so)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _close(
    out: Path,
    spec: RunSpec,
    tasks: Tasks,
    run_id: str,
    manifest: dict[str, Any],
    session: dict[str, Any],
    options: RunOptions,
    played: int,
    seconds: float,
    stop: BaseException | None,
) -> RunResult:
    """Consolidate what was saved, write the manifest's account of the session, and raise the
    one-line stop (if any)."""
    full = isinstance(stop, tables.WriteError) and stop.full
    if full:
        tables.release_space(out)  # room for the manifest
    tally = None
    if not full:
        try:  # window by window: the parent's memory does not grow with the games
            tally = tables.consolidate(out, spec.format, len(tasks))
        except tables.WriteError as exc:
            full, stop = exc.full, stop or exc
            tables.release_space(out)
        except UsageError as exc:  # the parts hold a game twice, or one cannot be read
            stop = stop or exc
        except (pa.ArrowException, MemoryError, OSError) as exc:  # the parts are kept
            stop = stop or _unconsolidated(exc)
        except KeyboardInterrupt as exc:  # SIGTERM while a long run's tables are written
            stop = stop or exc
    if tally is None:
        tables.drop_tables(out)
        try:
            tally = tables.merge(out, None, len(tasks))  # counted from the parts
        except (ProjectLError, pa.ArrowException, MemoryError, OSError) as exc:
            stop = stop or (exc if isinstance(exc, ProjectLError) else _unconsolidated(exc))
            tally = tables.Tally(len(tasks))
    problems = tally.problems()
    done, failed = tally.ids, tally.failed
    if full:
        assert isinstance(stop, tables.WriteError)
        where = stop.path
        rel = where.relative_to(out) if where.is_relative_to(out) else where
        status = f"failed: no space left on {tables.device_of(out)} while writing {out / rel}"
    elif isinstance(stop, KeyboardInterrupt):
        status = "interrupted"
    elif stop is not None:
        status = (
            f"failed: {stop}"
            if isinstance(stop, ProjectLError)
            else (f"failed: {type(stop).__name__}: {stop}")
        )
    elif problems:
        status = f"failed: {'; '.join(problems)}"
    else:
        status = "complete"
    complete = status == "complete"
    session |= {"finished": tables.now(), "games_played": played, "status": status}
    manifest |= {
        "status": status,
        "finished": session["finished"],
        "games_done": done,
        "games_failed": failed,
        "failures": tally.failures,
    }
    try:
        tables.write_manifest(out, manifest)
    except tables.WriteError as exc:  # even the reserve is gone: say so, in the same line
        full = full or exc.full
        stop = stop or exc
        status += f" (the manifest could not be written: {exc.strerror})"
    if complete:
        tables.remove_parts(out)
    tables.release_space(out)  # set aside again by the next session
    saved = f"{done}/{len(tasks)} games saved in {out}"
    resume = f"projectl-sim run --out {out} --resume"
    if full:
        raise RunFailed(
            f"{status.removeprefix('failed: ')}; free space and --resume ({saved})"
        ) from None
    if isinstance(stop, KeyboardInterrupt):
        raise RunInterrupted(f"interrupted: {saved}; finish with: {resume}") from None
    if isinstance(stop, UsageError):
        raise stop
    if isinstance(stop, ProjectLError):
        raise RunFailed(f"{stop} ({saved}; fix it, then: {resume})") from None
    if stop is not None:
        raise stop  # a bug: its traceback, after the manifest says what happened
    if problems:
        raise RunFailed(f"{out}: {'; '.join(problems)} after playing every game")
    if not options.quiet:
        (options.echo or echo_stderr)(
            f"{played} games played in {seconds:.1f} s ({speed(played, seconds)}); "
            f"{done}/{len(tasks)} done, {failed} failed; tables in {out}"
        )
    return RunResult(
        out, run_id, manifest["root_seed"], len(tasks), played, failed, seconds, complete, manifest
    )


def _unconsolidated(exc: BaseException) -> RunFailed:
    """Return the stop of a consolidation that failed otherwise than on a full disk."""
    text = " ".join(str(exc).split())
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return RunFailed(f"writing the tables from the parts failed ({line}); the parts are kept")


def speed(games: int, seconds: float) -> str:
    """Return how fast games went, readable for slow bots too: ``12 games/s``, ``2.5 games/s``,
    or ``10.4 s per game`` below one a second (never ``0 games/s``)."""
    if games <= 0 or seconds <= 0:
        return "no games timed"
    rate = games / seconds
    if rate >= 10:
        return f"{rate:.0f} games/s"
    if rate >= 1:
        return f"{rate:.1f} games/s"
    return f"{seconds / games:.1f} s per game"


# -- one game back from its row --------------------------------------------------------------
def _game_row(run_dir: str | Path, game_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return a run's manifest and the games-table row of one of its games."""
    manifest = tables.read_manifest(run_dir)
    games = tables.read_table(run_dir, "games")
    rows = games.filter(pc.equal(games.column("game_id"), game_id)).to_pylist()
    if not rows:
        raise UsageError(f"{run_dir} has no game {game_id} ({games.num_rows} games in its tables)")
    return manifest, rows[0]


def game_from_run(run_dir: str | Path, game_id: int) -> tuple[Rules, list[Bot], int]:
    """Return the rules, bots (in seat order) and seed that replay one game of a run.

    ``play_game(*game_from_run(run, game_id))`` plays the game of that row again, move for move
    (in this process, with no time limit: ``play_from_run`` plays it under the run's), when the
    row's ``replicate`` is 0; another replicate needs ``replicate=`` too (``play_from_run``
    passes it).
    """
    manifest, row = _game_row(run_dir, game_id)
    config = GameConfig.from_json(manifest["configs"][row["config_id"]])
    bots = [make_bot(spec) for spec in config.seated(row["rotation"])]
    return config.rules(), bots, row["seed"]


def run_limits(manifest: Mapping[str, Any]) -> Limits:
    """Return the time limits a run was played under (its last session's; the defaults for a
    run written before they were stored)."""
    stored = manifest.get("limits") or {}
    return Limits(
        float(stored.get("decision_timeout", workers.DECISION_TIMEOUT)),
        float(stored.get("game_timeout", workers.GAME_TIMEOUT)),
    )


def play_from_run(run_dir: str | Path, game_id: int) -> tuple[dict[str, Any], Rules, str | None]:
    """Play one game of a run again from its row, in a worker process under the run's time
    limits (a game that hung in the run stops again, never hangs this process), and return its
    record, its rules and the error its game ended with (None: it ended by the rules).

    Raises ``RunFailed`` (one line) when the game goes over a limit or takes its worker down:
    then there is no record to show.
    """
    manifest, row = _game_row(run_dir, game_id)
    config = GameConfig.from_json(manifest["configs"][row["config_id"]])
    task = GameTask(
        game_id,
        config.config_id,
        row["deal"],
        row["rotation"],
        row["seed"],
        True,
        row.get("replicate") or 0,
    )
    limits = run_limits(manifest)
    job = Job(
        {config.config_id: config},
        str(manifest.get("run_id")),
        limits,
        workers.job_bots(),
        tuple(sys.path),
    )
    games = workers.Pool(1, job).play([task])
    try:
        result = next(iter(games))
    finally:
        games.close()
    error = result.game["error"]
    if result.record is None:  # timed out, or its workers died: the row's error says which
        line = (error or "it could not be played").splitlines()[0]
        raise RunFailed(f"game {game_id} of {run_dir}: {line}")
    return result.record, config.rules(), error.splitlines()[0] if error else None


def record_from_run(run_dir: str | Path, game_id: int) -> tuple[dict[str, Any], Rules, bool]:
    """Return one game of a run as a record, its rules, and whether the run had written it.

    The run's record file when ``--records`` wrote one, else the game played again from its row
    under the run's time limits (``play_from_run``; its decision times are today's). A game
    whose bot fails is a ``RunFailed`` (one line).
    """
    path = Path(run_dir) / tables.RECORDS / f"game-{game_id:08d}.json"
    if path.is_file():
        manifest, row = _game_row(run_dir, game_id)
        config = GameConfig.from_json(manifest["configs"][row["config_id"]])
        return read_record(path), config.rules(), True
    record, rules, error = play_from_run(run_dir, game_id)
    if error is not None:
        raise RunFailed(f"game {game_id} of {run_dir}: {error}")
    return record, rules, False


__all__ = [
    "GameResult",
    "RunOptions",
    "RunResult",
    "game_from_run",
    "play_from_run",
    "play_task",
    "record_from_run",
    "run",
    "run_limits",
]
