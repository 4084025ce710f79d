"""Play a run's games in parallel: workers, part files, the manifest, interrupts and resume.

The tasks come from ``projectl_sim.sim.spec`` (decided in the parent, so results are the same for
any number of jobs and any backend). Games run through joblib (``loky`` processes, or a
``dask.distributed`` cluster through joblib's Dask backend); finished games are appended as part
files (see ``projectl_sim.sim.tables``), and ``resume`` plays only the games missing from them.
"""

from __future__ import annotations

import secrets
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import joblib
import pyarrow.compute as pc
from tqdm import tqdm

from bots import make_bot
from bots.base import Bot
from projectl_sim.engine import GameState, deal, new_game
from projectl_sim.engine.actions import Action
from projectl_sim.engine.record import read_record
from projectl_sim.errors import UsageError
from projectl_sim.rules import Rules
from projectl_sim.sim import tables
from projectl_sim.sim.play import BotError, game_seeds, play_game
from projectl_sim.sim.spec import (
    GameConfig,
    GameTask,
    RunSpec,
    plan,
    rules_of,
    run_id_of,
)

# A part file at least this often, so a killed run loses little; in a long run, every 1% of the
# time so far (a ten-hour run writes a few hundred parts, not thousands).
FLUSH_SECONDS = 5.0


@dataclass
class GameResult:
    """What a worker sends back: the rows of one game and, when asked, its record."""

    game_id: int
    seats: list[dict[str, Any]]
    game: dict[str, Any]
    record: dict[str, Any] | None


def play_task(task: GameTask, config: GameConfig, run_id: str) -> GameResult:
    """Play one game of a run and return its rows; a failing game becomes an error row."""
    rules = rules_of(config)
    seats = config.seated(task.rotation)
    bots = [make_bot(spec) for spec in seats]
    seconds = [0.0] * len(seats)  # each seat's decision time
    actions = [dict.fromkeys(tables.ACTION_KINDS, 0) for _ in seats]
    last: list[GameState] = []
    kind_of = tables.RECORD_KIND

    def on_step(state: GameState, seat: int, action: Action) -> None:
        kind = kind_of.get(action.kind)
        if kind is not None:  # (a user's expansion's own actions have no column)
            actions[seat][kind] += 1
        if not last:
            last.append(state)

    start = time.perf_counter()
    error_seat: int | None = None
    error: str | None = None
    record: dict[str, Any] | None = None
    try:
        outcome = play_game(
            rules,
            bots,
            task.seed,
            record=task.record,
            seat_names=seats,
            on_step=on_step,
            seconds=seconds,
            timed=task.record,  # a written record carries each decision's seconds
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
        state = (
            last[0]
            if last
            else new_game(rules, setup=deal(rules, game_seeds(task.seed, rules.players)[0]))
        )
    duration = time.perf_counter() - start
    ident = {"run_id": run_id, "game_id": task.game_id, "seed": task.seed}
    ident |= config.columns() | {"deal": task.deal}
    seat_rows, game_row = tables.game_rows(
        ident,
        rotation=task.rotation,
        seats=seats,
        state=state,
        actions=actions,
        decision_seconds=seconds,
        duration=duration,
        error_seat=error_seat,
        error=error,
    )
    return GameResult(task.game_id, seat_rows, game_row, record)


# -- running ---------------------------------------------------------------------------------
@dataclass
class RunOptions:
    """How to run (none of it changes the results)."""

    jobs: int | None = None  # default: every core
    backend: str = "loky"
    scheduler: str | None = None
    quiet: bool = False
    chunk: int | None = None  # games per part file (default: sized from the run)
    echo: Callable[[str], None] | None = None  # where info lines go (default: stderr)


@dataclass
class RunResult:
    """A finished (or interrupted) run: where it is and what it did."""

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
        return joblib.cpu_count()
    if options.jobs < 1:
        raise UsageError(f"--jobs must be at least 1 (or -1 for every core), got {options.jobs}")
    return options.jobs


def _check_options(options: RunOptions) -> None:
    """Check how-to-run options before anything is created."""
    if options.backend not in ("loky", "dask"):
        raise UsageError(f"unknown backend {options.backend!r} (valid: loky, dask)")
    if options.backend == "loky" and options.scheduler:
        raise UsageError("--scheduler needs --backend dask")
    if options.backend == "dask" and not options.scheduler:
        raise UsageError("--backend dask needs --scheduler tcp://HOST:PORT")
    if options.chunk is not None and options.chunk < 1:
        raise UsageError(f"--chunk must be at least 1, got {options.chunk}")
    _jobs(options)


@contextmanager
def _backend(options: RunOptions) -> Iterator[int]:
    """Set up joblib's backend; yield the n_jobs to ask for."""
    _check_options(options)
    if options.backend == "loky":
        with joblib.parallel_config(backend="loky"):
            yield _jobs(options)
        return
    from distributed import Client

    try:
        client = Client(options.scheduler, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the dask scheduler at {options.scheduler}: {exc}") from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield -1  # the cluster's workers decide
    finally:
        client.close()


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _session_manifest(
    spec: RunSpec, seed: int, run_id: str, configs: list[GameConfig], n_games: int
) -> dict[str, Any]:
    return {
        "format": "projectl-run/1",
        "run_id": run_id,
        "root_seed": seed,
        "config": spec.to_json() | {"seed": seed},
        "configs": [c.to_json() for c in configs],
        "games_planned": n_games,
        "versions": tables.versions(),
        "git": tables.git_commit(),
        "started": tables.now(),
        "sessions": [],
        "status": "running",
    }


def run(
    spec: RunSpec | None,
    out: str | Path,
    *,
    resume: bool = False,
    options: RunOptions | None = None,
) -> RunResult:
    """Play a run into ``out`` (or finish one there with ``resume``); return what happened.

    Everything a user can get wrong (bots, combinations, the folder, the scheduler) is checked
    before the first game and raises ``UsageError``.
    """
    options = options or RunOptions()
    echo = options.echo or _stderr
    out = Path(out)
    if resume:
        manifest = tables.read_manifest(out)
        stored = RunSpec.from_mapping(manifest["config"])
        if spec is not None:
            mine = spec.to_json() | {"seed": spec.seed if spec.seed is not None else stored.seed}
            if mine != stored.to_json():
                raise UsageError(
                    f"--resume: the settings differ from the run in {out}; "
                    "drop them to finish that run, or choose another --out"
                )
        spec = stored
        if manifest.get("status") == "complete":  # its parts are gone: the tables are all
            if not options.quiet:
                echo(f"run {manifest['run_id']} in {out} is already complete")
            n, failed = manifest["games_done"], manifest["games_failed"]
            return RunResult(
                out, manifest["run_id"], manifest["root_seed"], n, 0, failed, 0.0, True, manifest
            )
    else:
        if spec is None:
            raise UsageError("nothing to run: give --bots, --config or --preset")
        if (out / tables.MANIFEST).exists():
            raise UsageError(
                f"{out} already holds a run: add --resume to finish it, or choose another --out"
            )
        if spec.seed is None:
            spec = replace(spec, seed=secrets.randbelow(2**31))
        manifest = {}
    assert spec.seed is not None
    seed = spec.seed
    configs, tasks = plan(spec, seed)
    run_id = run_id_of(spec, seed)
    _check_options(options)
    created = not out.exists()
    _writable(out)
    with ExitStack() as stack:
        try:
            n_jobs = stack.enter_context(_backend(options))  # connects to a cluster: no game yet
        except UsageError:
            if created:
                out.rmdir()
            raise
        if not resume:
            manifest = _session_manifest(spec, seed, run_id, configs, len(tasks))
            tables.write_manifest(out, manifest)
        tables.clean_parts(out)
        done = tables.done_game_ids(out)
        todo = [t for t in tasks if t.game_id not in done]
        if not options.quiet:
            verb = "resuming" if resume else "running"
            echo(
                f"{verb} run {run_id}: {len(configs)} configuration(s), {len(tasks)} games"
                f"{f' ({len(todo)} left)' if resume else ''}, root seed {seed} -> {out}"
            )
        result = _play(out, spec, configs, tasks, todo, run_id, manifest, n_jobs, options)
    return result


def _play(
    out: Path,
    spec: RunSpec,
    configs: list[GameConfig],
    tasks: list[GameTask],
    todo: list[GameTask],
    run_id: str,
    manifest: dict[str, Any],
    n_jobs: int,
    options: RunOptions,
) -> RunResult:
    workers = n_jobs if n_jobs > 0 else 1
    chunk = options.chunk or max(10, min(1000, len(todo) // (8 * workers) or 1))
    session = {"started": tables.now(), "jobs": n_jobs, "backend": options.backend}
    numbers = tables.part_numbers(out)
    next_part = (numbers[-1] + 1) if numbers else 0
    buffer: list[GameResult] = []
    played = 0
    start = last_flush = time.perf_counter()
    status = "interrupted"

    def flush() -> None:
        nonlocal next_part, last_flush
        if buffer:
            tables.write_records(out, [(r.game_id, r.record) for r in buffer if r.record])
            seats = [row for r in buffer for row in r.seats]
            tables.write_part(out, next_part, seats, [r.game for r in buffer])
            next_part += 1
            buffer.clear()
        last_flush = time.perf_counter()

    bar = tqdm(
        total=len(tasks),
        initial=len(tasks) - len(todo),
        unit="game",
        disable=options.quiet or not sys.stderr.isatty(),
        dynamic_ncols=True,
    )
    results = None
    try:
        if todo:
            by_id = {c.config_id: c for c in configs}
            parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            results = parallel(
                joblib.delayed(play_task)(t, by_id[t.config_id], run_id) for t in todo
            )
            for result in results:
                buffer.append(result)
                played += 1
                bar.update()
                now = time.perf_counter()
                every = max(FLUSH_SECONDS, (now - start) / 100)
                if len(buffer) >= chunk or now - last_flush >= every:
                    flush()
        status = "complete"
    finally:
        if results is not None:
            results.close()  # stops the workers on an interrupt
        bar.close()
        flush()
        seconds = time.perf_counter() - start
        written = tables.consolidate(out, spec.format)
        games = written["games"]
        complete = status == "complete" and games.num_rows == len(tasks)
        failed = games.num_rows - pc.sum(pc.is_null(games.column("error"))).as_py()
        session |= {"finished": tables.now(), "games_played": played, "status": status}
        manifest["sessions"] = [*manifest.get("sessions", []), session]
        manifest |= {
            "status": "complete" if complete else status,
            "finished": session["finished"],
            "games_done": games.num_rows,
            "games_failed": failed,
            "failures": tables.failure_list(games),
        }
        tables.write_manifest(out, manifest)
        if complete:
            tables.remove_parts(out)
        elif not options.quiet:
            (options.echo or _stderr)(
                f"stopped: {games.num_rows}/{len(tasks)} games saved in {out}; "
                f"finish with: projectl-sim run --out {out} --resume"
            )
    if not options.quiet:
        rate = played / seconds if seconds else 0.0
        (options.echo or _stderr)(
            f"{played} games played in {seconds:.1f} s ({rate:.0f} games/s); "
            f"{games.num_rows}/{len(tasks)} done, {failed} failed; tables in {out}"
        )
    return RunResult(
        out, run_id, manifest["root_seed"], len(tasks), played, failed, seconds, complete, manifest
    )


# -- one game back from its row --------------------------------------------------------------
def game_from_run(run_dir: str | Path, game_id: int) -> tuple[Rules, list[Bot], int]:
    """Return the rules, bots (in seat order) and seed that replay one game of a run.

    ``play_game(*game_from_run(run, game_id))`` plays the game of that row again, move for move.
    """
    manifest = tables.read_manifest(run_dir)
    games = tables.read_table(run_dir, "games")
    rows = games.filter(pc.equal(games.column("game_id"), game_id)).to_pylist()
    if not rows:
        raise UsageError(f"{run_dir} has no game {game_id} ({games.num_rows} games in its tables)")
    row = rows[0]
    config = GameConfig.from_json(manifest["configs"][row["config_id"]])
    bots = [make_bot(spec) for spec in config.seated(row["rotation"])]
    return config.rules(), bots, row["seed"]


def record_from_run(run_dir: str | Path, game_id: int) -> tuple[dict[str, Any], Rules, bool]:
    """Return one game of a run as a record, its rules, and whether the run had written it.

    The run's record file when ``--records`` wrote one, else the game played again from its row
    (the run's rules, seats and seed, as ``play --from`` does; its decision times are today's).
    """
    rules, bots, seed = game_from_run(run_dir, game_id)
    path = Path(run_dir) / tables.RECORDS / f"game-{game_id:08d}.json"
    if path.is_file():
        return read_record(path), rules, True
    outcome = play_game(rules, bots, seed, seat_names=[repr(b) for b in bots], timed=True)
    return outcome.record_json(), rules, False
