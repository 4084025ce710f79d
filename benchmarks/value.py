"""The learned evaluation's costs, compiled against pure Python in the same run.

Run: ``.venv/bin/python benchmarks/value.py [--games N] [--seed S]``.

Replays the Play positions of ``--games`` 2-player greedy games and times, in each build's own
process (CPU time, ``time.process_time``): one feature vector (``bots.features``), one
evaluation of the shipped model (``bots.value_net``), and one decision of ``value``,
``value:ply=2`` and ``mcts:leaf=value`` (every 5th position). Prints microseconds per call and
the compiled/pure ratios.

``--play N`` measures ``value`` on new positions instead: ``N`` 2-player games of ``value``
against greedy (seats alternating, deal seeds from ``--seed``), every decision of ``value``
timed by its thread's CPU clock, in this build and, with ``--baseline PYTHON`` (another
checkout's interpreter, e.g. main's ``.venv/bin/python``), that build, the two playing the same
deals in turns of ``--chunk`` games so that a busy spell falls on both. Prints each build's CPU
per decision with a 95% interval (games as clusters), their ratio, and ``value``'s win share
in each, with the paired difference (the package's paired 95% interval, deals as clusters):
whether a change to ``value`` kept its strength. ``--baseline-spec SPEC`` plays another spec as
the baseline (in ``--baseline``'s build, else in this one): two settings of ``value`` compared
on the same deals.
With ``--instructions``, each build's games are instead counted by ``valgrind --tool=callgrind``,
collecting only inside ``value``'s decisions (the compiled functions ``ValueBot.act`` and
``ValueBot.choose_reward``), less a process that plays only the warm-up: instructions per
decision, exact on a loaded machine. Each process first plays ``--warm`` games on other deals,
uncounted (the tiling index and the planner's caches fill as in a long run; a cold index's
building would be a quarter of the figure). Every counted position is new to the process,
unlike a decision made twice.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

WORKER = r"""
import json, random, sys, time
from bots import make_bot
from bots.features import hidden_piles, mean_unseen_points, position_features
from bots.value_model import load_model
from projectl_sim import Rules, play_game
from projectl_sim._native import compiled

games, seed = int(sys.argv[1]), int(sys.argv[2])
views = []
def note(state, seat, action):
    if state.phase == "play":
        views.append(state.view(state.current))
for s in range(games):
    play_game(Rules(players=2), [make_bot("greedy"), make_bot("greedy")], seed + s,
              record=False, on_step=note)
model = load_model()
out = {"build": "compiled" if compiled() else "pure", "positions": len(views)}
hidden = [hidden_piles(v) for v in views]
per = [mean_unseen_points(v) if h else 0.0 for v, h in zip(views, hidden)]
t = time.process_time()
xs = [position_features(v, v.current, h, p) for v, h, p in zip(views, hidden, per)]
out["features_us"] = (time.process_time() - t) / len(views) * 1e6
t = time.process_time()
for _ in range(5):
    for x in xs:
        model.net.evaluate(x)
out["eval_us"] = (time.process_time() - t) / (5 * len(xs)) * 1e6
for spec in ("value", "value:ply=2", "mcts:leaf=value"):
    bot, rng = make_bot(spec), random.Random(1)
    chosen = views[::5]
    t = time.process_time()
    for v in chosen:
        bot(v, rng)
    out[spec] = (time.process_time() - t) / len(chosen) * 1e6
print(json.dumps(out))
"""


PLAY = r"""
import json, sys, time
from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim._native import compiled

spec, first, games, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
warm = int(sys.argv[5])


class Timed:
    def __init__(self, bot):
        self.bot, self.cpu, self.n = bot, 0.0, 0

    def __call__(self, view, rng):
        t = time.thread_time()
        action = self.bot(view, rng)
        self.cpu += time.thread_time() - t
        self.n += 1
        return action

    def __repr__(self):
        return repr(self.bot)


rows = []
# the warm-up games first (other deals), then the measured ones
games_played = [(g, seed + 10**6 + g // 2) for g in range(warm)]
games_played += [(g, seed + g // 2) for g in range(first, first + games)]
for k, (g, deal_seed) in enumerate(games_played):
    bot, seat = Timed(make_bot(spec)), g % 2
    bots = [bot, make_bot("greedy")] if seat == 0 else [make_bot("greedy"), bot]
    end = play_game(Rules(players=2), bots, deal_seed, record=False).state
    winners = end.winners()
    if k >= warm:
        rows.append([bot.cpu, bot.n, 1.0 / len(winners) if seat in winners else 0.0])
print(json.dumps({"build": "compiled" if compiled() else "pure", "rows": rows}))
"""
ACT_SYMBOLS = ("CPyDef_value___ValueBot___act", "CPyDef_value___ValueBot___choose_reward")


def play(
    python: str, here: bool, spec: str, first: int, games: int, seed: int, warm: int, count: bool
) -> dict:
    """Play ``games`` games in ``python``'s own process; return its rows (and instructions)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PROJECTL_SIM_PURE", "PYTHONPATH")}
    if here and "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]  # this checkout, as it was imported
    env["OPENBLAS_NUM_THREADS"] = "1"
    env["PYTHONHASHSEED"] = "0"
    cmd = [python, "-c", PLAY, spec, str(first), str(games), str(seed), str(warm)]
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "cg.out"
        if count:
            toggles = [f"--toggle-collect={s}" for s in ACT_SYMBOLS]
            cmd = [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out_file}",
                *toggles,
                *cmd,
            ]
        # run outside any checkout: `-c` puts the working folder first on the import path
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp)
        if done.returncode != 0:
            raise SystemExit(f"{python}: the games failed: {done.stderr.strip().splitlines()[-1:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        if count:
            totals = re.search(r"^summary:\s+(\d+)", out_file.read_text(), re.M)
            if totals is None:
                raise SystemExit("callgrind wrote no summary line")
            result["instructions"] = int(totals.group(1))
    return result


def per_decision(rows: list[list[float]]) -> tuple[float, float, float]:
    """Return CPU ms per decision and its 95% interval (a ratio over games: the delta method)."""
    cpu = np.array([r[0] for r in rows]) * 1e3
    n = np.array([r[1] for r in rows], dtype=float)
    est = cpu.sum() / n.sum()
    k = len(rows)
    resid = cpu - est * n
    se = math.sqrt((resid**2).sum() / max(1, k - 1) * k) / n.sum()
    return est, est - 1.96 * se, est + 1.96 * se


def play_main(args: argparse.Namespace) -> None:
    builds = [("this", sys.executable)]
    specs = {"this": args.spec, "baseline": args.baseline_spec or args.spec}
    if args.baseline or args.baseline_spec:
        builds.append(("baseline", args.baseline or sys.executable))
    rows: dict[str, list[list[float]]] = {name: [] for name, _ in builds}
    counted: dict[str, list[int]] = {name: [0, 0] for name, _ in builds}
    kind: dict[str, str] = {}
    step = args.games if args.instructions else args.chunk
    for first in range(0, args.games, step):
        n = min(step, args.games - first)
        for name, python in builds if first // step % 2 == 0 else builds[::-1]:
            here = name == "this" or not args.baseline
            spec = specs[name]
            res = play(python, here, spec, first, n, args.seed, args.warm, args.instructions)
            kind[name] = res["build"]
            rows[name] += res["rows"]
            if args.instructions:
                # less a process that plays the warm-up alone: the measured games' count
                alone = play(python, here, spec, first, 0, args.seed, args.warm, True)
                counted[name][0] += res["instructions"] - alone["instructions"]
                counted[name][1] += sum(int(r[1]) for r in res["rows"])
    names = args.spec if not args.baseline_spec else f"{args.spec} (baseline {specs['baseline']})"
    print(f"{args.games} games of {names} against greedy (2 players, deals from {args.seed})")
    from projectl_sim.analysis.stats import paired_difference, wilson

    for name, _ in builds:
        r = rows[name]
        wins = sum(x[2] for x in r) / len(r)
        low, high = wilson(wins * len(r), len(r))
        share = f"{wins:.1%} [{float(low) * 100:.1f}, {float(high) * 100:.1f}]"
        decisions = sum(int(x[1]) for x in r)
        if args.instructions:
            total, made = counted[name]
            print(
                f"{name:8s} {kind[name]:8s} {total / made:12,.0f} instructions a decision "
                f"({made} decisions); wins {share}"
            )
        else:
            est, lo, hi = per_decision(r)
            print(
                f"{name:8s} {kind[name]:8s} {est:.3f} ms CPU a decision [{lo:.3f}, {hi:.3f}] "
                f"({decisions} decisions); wins {share}"
            )
    if len(builds) > 1:
        if args.instructions:
            ratio = (counted["this"][0] / counted["this"][1]) / (
                counted["baseline"][0] / counted["baseline"][1]
            )
        else:
            ratio = per_decision(rows["this"])[0] / per_decision(rows["baseline"])[0]
        print(f"this / baseline: {ratio:.3f}")
        # the same deals in the same seats: the change in value's win share, paired by deal
        a = np.array([x[2] for x in rows["baseline"]])
        b = np.array([x[2] for x in rows["this"]])
        deals = np.arange(len(a)) // 2
        d = paired_difference(a, b, deals, "rate")
        if d is not None:
            print(
                f"wins: this {d['value_b']:.1%}, baseline {d['value_a']:.1%}; paired difference "
                f"{d['diff']:+.1%} [{d['ci_low']:+.1%}, {d['ci_high']:+.1%}] over {d['deals']} "
                f"deals (p {d['p_value']:.2f})"
            )


def measure(pure: bool, games: int, seed: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PROJECTL_SIM_PURE"}
    if pure:
        env["PROJECTL_SIM_PURE"] = "1"
    env["OPENBLAS_NUM_THREADS"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(games), str(seed)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--play", type=int, default=0, metavar="N", help="N games on new positions")
    parser.add_argument("--spec", default="value", help="--play: the bot measured (a value bot)")
    parser.add_argument("--baseline", default="", metavar="PYTHON", help="--play: another build")
    parser.add_argument(
        "--baseline-spec", default="", metavar="SPEC", help="--play: the baseline's spec"
    )
    parser.add_argument("--chunk", type=int, default=20, help="--play: games a turn")
    parser.add_argument("--instructions", action="store_true", help="--play: callgrind counts")
    parser.add_argument(
        "--warm", type=int, default=10, help="--play: games first played in each process, uncounted"
    )
    args = parser.parse_args()
    if args.games < 1 or args.play < 0 or args.chunk < 1 or args.warm < 0:
        parser.error("--games and --chunk must be at least 1, --play and --warm at least 0")
    if args.play:
        args.games = args.play
        play_main(args)
        return
    fast, slow = measure(False, args.games, args.seed), measure(True, args.games, args.seed)
    print(f"{fast['positions']} positions of {args.games} greedy games; {fast['build']} vs pure")
    for key, label in (
        ("features_us", "features (one seat's vector)"),
        ("eval_us", "model evaluation"),
        ("value", "value decision"),
        ("value:ply=2", "value:ply=2 decision"),
        ("mcts:leaf=value", "mcts:leaf=value decision"),
    ):
        print(
            f"{label:30s} {fast[key]:10.2f} us   pure {slow[key]:10.2f} us   "
            f"x{slow[key] / fast[key]:5.2f}"
        )


if __name__ == "__main__":
    main()
