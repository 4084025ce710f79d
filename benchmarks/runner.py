"""Runner speed: games per second at --jobs 1 and 2, the speed-up, the runner's overhead, the
cost of timing CPU per decision, and the cost of the flow tables (``events``, ``rounds``).

Run: ``.venv/bin/python benchmarks/runner.py [--games N] [--repeats R] [--lineups random ...]
[--flow-only]``. The flow tables' cost is measured with against without on the same games, in
the same process (``play_task`` CPU) and as whole runs (``--tables all`` against ``core``).
Each line-up plays 2-player games through ``projectl_sim.sim.runner.run`` into a temporary folder.
Each job count is timed ``--repeats`` times on fresh deals and the best time kept (other work on the
machine only ever slows a run down). The overhead is the first --jobs 1 run's wall time beyond the
games' own time (the ``duration`` column), and separately its CPU time against the same games
played by a bare ``play_game`` loop in a fresh process (the run's workers are fresh processes too,
their caches cold; CPU time of this process and the workers, because wall time on a shared
machine is noisier). The workers are started once before timing (a one-off ~1 s) and kept between
runs, as in any run longer than a few seconds. Seeds are fresh every run;
the root seed and the machine's load average (other work skews the figures) are printed, and,
as a control, the speed-up two independent bare loops get at the same time: the ceiling for two
jobs on the machine as it is.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import secrets
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
# so that ``import bots`` finds the package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from bots import REGISTRY, make_bot  # noqa: E402
from bots.random_bot import RandomBot  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim.sim import runner, tables, workers  # noqa: E402
from projectl_sim.sim import spec as run_spec  # noqa: E402
from projectl_sim.sim.play import play_game  # noqa: E402
from projectl_sim.sim.runner import RunOptions  # noqa: E402
from projectl_sim.sim.spec import RunSpec  # noqa: E402


def _cpu_of(pids: list[int]) -> float:
    """Return the CPU seconds (user and system) processes ``pids`` have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def timed_run(spec: RunSpec, folder: Path, jobs: int) -> tuple[float, float, float]:
    """Return wall seconds, the games' own seconds, and the CPU seconds of a run: this process's
    and its worker processes' (kept between runs, so their CPU is counted before and after)."""
    pids = workers.worker_pids()
    start, cpu = time.perf_counter(), time.process_time() + _cpu_of(pids)
    runner.run(spec, folder, options=RunOptions(jobs=jobs, quiet=True))
    pids = sorted(set(pids) | set(workers.worker_pids()))
    wall, cpu = time.perf_counter() - start, time.process_time() + _cpu_of(pids) - cpu
    games = tables.read_table(folder, "games")
    return wall, sum(games.column("duration").to_pylist()), cpu


def bare_loop(spec: RunSpec) -> tuple[float, float]:
    """Return the CPU and wall seconds a plain ``play_game`` loop takes over a run's games.

    Run it in a fresh process: the engine's caches would be warm from the same games here.
    """
    configs, tasks = run_spec.plan(spec, spec.seed or 0)
    rules = configs[0].rules()
    cpu, wall = time.process_time(), time.perf_counter()
    for task in tasks:
        seats = configs[task.config_id].seated(task.rotation)
        play_game(rules, [make_bot(s) for s in seats], task.seed, record=False)
    return time.process_time() - cpu, time.perf_counter() - wall


def clock_cost(spec: RunSpec, repeats: int) -> tuple[float, float]:
    """Return the CPU seconds of a run's games played by ``play_game`` timing each seat's decisions
    as the runner does, with the wall clock only and with the CPU clock too (``cpu=``), the best
    of ``repeats`` alternated passes over the same games (run it in a fresh process)."""
    configs, tasks = runner.plan(spec, spec.seed or 0)
    rules = configs[0].rules()
    best = [math.inf, math.inf]
    for _ in range(repeats):
        for with_cpu in (0, 1):
            start = time.process_time()
            for task in tasks:
                seats = configs[task.config_id].seated(task.rotation)
                play_game(
                    rules,
                    [make_bot(s) for s in seats],
                    task.seed,
                    record=False,
                    seconds=[0.0] * len(seats),
                    cpu_seconds=[0.0] * len(seats) if with_cpu else None,
                )
            best[with_cpu] = min(best[with_cpu], time.process_time() - start)
    return best[0], best[1]


def ceiling(spec: RunSpec, other: RunSpec) -> float:
    """Return the speed-up two independent bare loops get right now: what 2 jobs could reach."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
        for warm in [pool.submit(bare_loop, replace(spec, games=4)) for _ in range(2)]:
            warm.result()  # both processes up before timing
        alone = pool.submit(bare_loop, spec).result()[1]
        pair = [pool.submit(bare_loop, s) for s in (spec, other)]
        together = max(f.result()[1] for f in pair)
    return 2 * alone / together


def bench(lineup: str, games: int, repeats: int, root: int, folder: Path) -> None:
    def spec(seed: int, n: int = games) -> RunSpec:
        return RunSpec.from_mapping({"bots": [lineup], "players": [2], "games": n, "seed": seed})

    runner.run(spec(root - 1, 8), folder / f"warm-{lineup}", options=RunOptions(jobs=2, quiet=True))
    walls: dict[int, list[float]] = {1: [], 2: []}
    busy: dict[int, list[float]] = {1: [], 2: []}
    own1 = cpu1 = 0.0
    for rep in range(repeats):  # fresh deals each time, the same for both job counts
        for jobs in (1, 2):
            wall, own, cpu = timed_run(spec(root + rep), folder / f"{lineup}-{rep}-j{jobs}", jobs)
            walls[jobs].append(wall)
            busy[jobs].append(own / (wall * jobs))
            if (jobs, rep) == (1, 0):
                own1, cpu1 = own, cpu
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as fresh:
        bare = fresh.submit(bare_loop, spec(root)).result()[0]
        wall_only, with_cpu = fresh.submit(clock_cost, spec(root), repeats).result()
    limit = ceiling(spec(root + 100), spec(root + 101))
    wall1, wall2, first1 = min(walls[1]), min(walls[2]), walls[1][0]
    n = games
    print(
        f"{lineup:<16} --jobs 1: {n / wall1:7.1f} games/s   --jobs 2: {n / wall2:7.1f} games/s   "
        f"speed-up {wall1 / wall2:4.2f}x  (best of {repeats}; two independent bare loops at "
        f"once: {limit:4.2f}x)"
    )
    # Busy = the games' own time over workers x wall time: how well the runner feeds the workers,
    # whatever else the machine is doing (contention shows as a longer own time per game instead).
    print(
        f"{'':<16} workers busy (games' own time / jobs x wall): --jobs 1 {max(busy[1]):.0%}, "
        f"--jobs 2 {max(busy[2]):.0%}"
    )
    print(
        f"{'':<16} overhead per game at --jobs 1: {(first1 - own1) / n * 1e3:5.2f} ms = "
        f"{(first1 - own1) / own1:5.1%} of the game's own {own1 / n * 1e3:.2f} ms; "
        f"CPU time of the whole run vs a bare play_game loop: {(cpu1 - bare) / bare:+5.1%}"
    )
    print(
        f"{'':<16} CPU time per decision (play_game cpu=, a sample of fast seats' decisions): "
        f"{(with_cpu - wall_only) / n * 1e3:+6.3f} ms per game = "
        f"{(with_cpu - wall_only) / wall_only:+5.1%} (best of {repeats}, same games)"
    )


def task_cpu(spec: RunSpec, repeats: int) -> tuple[float, float]:
    """Return the CPU seconds ``play_task`` takes over a run's games without and with the flow
    tables' collection (``events`` and ``rounds``), the best of ``repeats`` alternated passes over
    the same games (run it in a fresh process)."""
    from projectl_sim.sim.task import play_task

    configs, tasks = runner.plan(spec, spec.seed or 0)
    best = [math.inf, math.inf]
    for task in tasks[:4]:  # caches warm for both
        play_task(task, configs[task.config_id], "bench", flow=True)
    for _ in range(repeats):
        for flow in (0, 1):
            start = time.process_time()
            for task in tasks:
                play_task(task, configs[task.config_id], "bench", flow=bool(flow))
            best[flow] = min(best[flow], time.process_time() - start)
    return best[0], best[1]


def flow_cost(lineup: str, games: int, repeats: int, root: int, folder: Path) -> None:
    """Print what the flow tables cost: in the game loop (``play_task`` CPU, same games), and in
    a whole run (``--tables all`` against ``core``: CPU of this process and its workers, and
    wall, at --jobs 1, the best of ``repeats`` alternated runs on the same deals)."""

    def spec(tables_: str, n: int = games) -> RunSpec:
        return RunSpec.from_mapping(
            {"bots": [lineup], "players": [2], "games": n, "seed": root, "tables": tables_}
        )

    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as fresh:
        core_cpu, flow_cpu = fresh.submit(task_cpu, spec("all"), repeats).result()
    runner.run(
        spec("all", 8), folder / f"warm-flow-{lineup}", options=RunOptions(jobs=1, quiet=True)
    )
    best = {"core": [math.inf, math.inf], "all": [math.inf, math.inf]}
    for rep in range(repeats):
        for which in ("core", "all"):
            wall, _, cpu = timed_run(spec(which), folder / f"flow-{lineup}-{rep}-{which}", 1)
            best[which] = [min(best[which][0], wall), min(best[which][1], cpu)]
    size = sum(
        f.stat().st_size
        for name in tables.FLOW_TABLES
        for f in (folder / f"flow-{lineup}-0-all").glob(f"{name}.*")
    )
    print(
        f"{lineup:<16} flow tables in the game loop (play_task CPU, same {games} games, best of "
        f"{repeats}): {(flow_cpu - core_cpu) / games * 1e3:+6.3f} ms per game = "
        f"{(flow_cpu - core_cpu) / core_cpu:+5.1%}"
    )
    (core_wall, core_run), (all_wall, all_run) = best["core"], best["all"]
    print(
        f"{'':<16} whole run --tables all vs core (--jobs 1): CPU "
        f"{(all_run - core_run) / core_run:+5.1%}, wall {(all_wall - core_wall) / core_wall:+5.1%}"
        "; events and rounds on disk: "
        f"{size / games:.0f} bytes per game"
    )


def decision_timing() -> None:
    """Print what ``play_game(seconds=...)`` gathers for a bot that sleeps 1 ms a decision,
    against that floor and the game's wall time (the clock itself is tested in the suite)."""

    class Slow(RandomBot):
        """Random play that takes a millisecond more over each decision."""

        name = "slow"

        def act(self, view, rng):  # type: ignore[no-untyped-def]
            time.sleep(0.001)
            return super().act(view, rng)

    seconds = [0.0, 0.0]
    start = time.perf_counter()
    outcome = play_game(Rules(players=2), [make_bot("random"), Slow()], 5, seconds=seconds)
    total = time.perf_counter() - start
    slow = sum(1 for seat, _ in outcome.record.moves if seat == 1)  # type: ignore[union-attr]
    print(
        f"decision time  random seat {seconds[0] * 1e3:6.2f} ms, 1 ms-sleep seat "
        f"{seconds[1] * 1e3:6.2f} ms over {slow} decisions ({seconds[1] / (0.001 * slow):4.2f}x "
        f"the sleep floor); both seats {sum(seconds) / total:5.1%} of the game's "
        f"{total * 1e3:.1f} ms wall time"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="games per line-up and repeat")
    parser.add_argument("--repeats", type=int, default=3, help="timings per job count (best kept)")
    parser.add_argument("--lineups", nargs="*", default=["random", "greedy,random"])
    parser.add_argument(
        "--flow-only",
        action="store_true",
        help="only the cost of the flow tables (events, rounds): with against without",
    )
    args = parser.parse_args()
    root = secrets.randbelow(2**31)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"root seed {root}, {args.games} two-player games per line-up, load average {load}")
    with tempfile.TemporaryDirectory() as tmp:
        for lineup in args.lineups:
            missing = [
                s for s in run_spec.split_lineup(lineup) if s.partition(":")[0] not in REGISTRY
            ]
            if missing:
                print(f"{lineup:<16} skipped: no {missing[0]!r} bot yet")
                continue
            if not args.flow_only:
                bench(lineup, args.games, args.repeats, root, Path(tmp))
            flow_cost(lineup, args.games, args.repeats, root, Path(tmp))
    if not args.flow_only:
        decision_timing()


if __name__ == "__main__":
    main()
