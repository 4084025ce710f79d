"""The cost of the result check (``projectl_sim.engine.result_check``) in greedy-vs-greedy games.

Run: ``.venv/bin/python benchmarks/result_check.py [--games N] [--repeats R] [--callgrind]``.

Greedy 2-player games (fresh seeds from a printed root) are played in passes without the
check and with it, as a run's worker plays them (``sim.task.play_task``): without, ``play_game``
with an ``on_step``; with, the same and ``check_result`` at the end, timed around each call.
``--records`` records every game and builds its record's JSON (a run's ``--records``); the check
then replays the record too. The two
kinds of pass alternate, ``--repeats`` times, each on games of its own (a game played again finds
the tables' and the bots' caches warm and runs several times faster, which would inflate the
check's share). The line prints the CPU per game of each kind (other games: their difference is
within the spread of game lengths) and the check's own CPU as a share of the games it checked,
the figure to read. ``--callgrind`` also counts the instructions of the same games played both
ways, each in a fresh process under ``valgrind --tool=callgrind`` (the process's start counted
alone and taken off; the cyclic garbage collector off in the counted games, as when it runs
depends on every allocation before); counts don't move with the machine's load. The build that
runs (compiled or pure) is printed: the game runs several times faster compiled and the check is
not compiled, so the compiled build's share is the one that matters.
"""

from __future__ import annotations

import argparse
import gc
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
# so that ``import bots`` finds the package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402

from bots import make_bot  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim._native import compiled  # noqa: E402
from projectl_sim.engine import GameState  # noqa: E402
from projectl_sim.engine.actions import Action  # noqa: E402
from projectl_sim.engine.result_check import check_result, rules_print  # noqa: E402
from projectl_sim.sim.play import play_game  # noqa: E402

BOT = "greedy"
WARM = 10  # games played before a callgrind pass counts


def _count(state: GameState, seat: int, action: Action) -> None:
    """What ``play_task``'s ``on_step`` costs at least: a call per action."""


def _pass(seeds: list[int], check: bool, records: bool) -> tuple[float, float]:
    """Play the games of ``seeds`` (with the check or without; with ``records``, each recorded
    and its record's JSON built, as ``--records`` does); return the CPU seconds of the pass and,
    of those, the check's own (``check_result``, timed around each call)."""
    rules = Rules(players=2)
    expected = rules_print(rules)
    checking = 0.0
    start = time.process_time()
    for seed in seeds:
        bots = [make_bot(BOT), make_bot(BOT)]  # new bots every game, as a run's
        outcome = play_game(rules, bots, seed, record=records, on_step=_count)
        if check:
            before = time.process_time()
            if outcome.record is not None:  # as play_task: a recorded game is replayed too
                check_result(
                    outcome.state, rules, expected, outcome.record.setup, outcome.record.moves
                )
            else:
                check_result(outcome.state, rules, expected)
            checking += time.process_time() - before
        if outcome.record is not None:
            outcome.record.to_json(outcome.state)
    return time.process_time() - start, checking


def _callgrind(games: int, root: int, check: bool, records: bool) -> int:
    """Return the instructions a pass of ``games`` games runs under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        cmd = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--pass-only",
            "check" if check else "plain",
            *(["--records"] if records else []),
            "--games",
            str(games),
            "--root",
            str(root),
        ]
        # a fixed hash seed: the same dict and set orders in both, so the counts compare
        env = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run(cmd, env=env, capture_output=True, check=True)
        for line in out.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals")


def _seeds(games: int, root: int) -> list[int]:
    return [int(s) for s in np.random.SeedSequence(root).generate_state(games)]


def main() -> None:
    """Print the line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="greedy games per pass")
    parser.add_argument("--repeats", type=int, default=5, help="alternations of the two passes")
    parser.add_argument(
        "--records", action="store_true", help="record every game (the check replays it)"
    )
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    parser.add_argument("--callgrind-games", type=int, default=10, help="games under callgrind")
    parser.add_argument("--root", type=int, default=None, help="root seed (default: fresh)")
    parser.add_argument("--pass-only", choices=("plain", "check"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    root = args.root if args.root is not None else secrets.randbits(63)
    if args.pass_only:  # one pass, for callgrind
        # the same warm-up as the in-process passes (the first games build the caches): its
        # instructions are in the process's start that the 0-game count takes off
        warm = _seeds(WARM + args.games, root)
        _pass(warm[:WARM], True, args.records)
        # no cyclic collection in the counted games: when one runs depends on every allocation
        # before it, and its instructions would swamp the check's
        gc.collect()
        gc.disable()
        _pass(warm[WARM:], args.pass_only == "check", args.records)
        return
    # fresh games for every pass: a game played again finds the caches of the tables and of the
    # bots warm (and runs several times faster), which would inflate the check's share
    n = args.games
    seeds = _seeds(n * (2 * args.repeats + 1), root)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    build = "compiled" if compiled() else "pure Python"
    print(f"{build} build, root seed {root}, load average {load}")
    _pass(seeds[:n], True, args.records)  # warm up (the first games build the tables' caches)
    cpu = [0.0, 0.0]
    checking = 0.0
    for rep in range(args.repeats):
        for check in (rep % 2 == 0, rep % 2 == 1):  # which goes first alternates too
            chunk = seeds[n * (1 + 2 * rep + check) : n * (2 + 2 * rep + check)]
            spent, alone = _pass(chunk, check, args.records)
            cpu[check] += spent
            checking += alone
    plain, checked = (c / (n * args.repeats) for c in cpu)
    alone = checking / (n * args.repeats)
    print(
        f"{BOT} vs {BOT}, 2 players, {'recorded, ' if args.records else ''}"
        f"{args.repeats} x {n} games each way: "
        f"{plain * 1e3:.3f} ms a game without the check, {checked * 1e3:.3f} ms with it "
        f"({(checked - plain) / plain:+.1%}: other games, alternated passes); the check alone "
        f"{alone * 1e6:.0f} us a game = {alone / (checked - alone):.2%} of the game it checks"
    )
    if args.callgrind:
        n = args.callgrind_games
        # the process's start and imports, counted alone, come off both
        start = _callgrind(0, root, True, args.records)
        plain_i, check_i = (_callgrind(n, root, c, args.records) - start for c in (False, True))
        print(
            f"callgrind, {n} games: {plain_i / n / 1e6:.1f} M instructions a game without, "
            f"{check_i / n / 1e6:.1f} M with: {(check_i - plain_i) / plain_i:+.2%}"
        )


if __name__ == "__main__":
    main()
