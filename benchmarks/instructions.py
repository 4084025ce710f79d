"""Instructions per decision of every shipped bot and per random game, beside the last release's.

Run: ``.venv/bin/python benchmarks/instructions.py [--builds compiled,pure] [--only A,B]
[--save FILE]``.

CPU time on a shared machine moves by tens of percent with the load; an instruction count does
not, so a regression of a few percent shows. Each figure is counted by ``valgrind
--tool=callgrind`` on whole processes (valgrind's client requests are out of Python's reach):
a process that does everything but the measured work (imports, the positions, each bot's
warm-up decisions, a few warm-up games), and one per item that then does the measured work too;
the difference, divided by the decisions or games, cancels the start-up. Both builds are counted:
the compiled one (mypyc) and the pure source (``PROJECTL_SIM_PURE=1``).

The items: a random 2-player game of the base game (``random game``, as
``benchmarks/engine.py`` plays them, record kept) and one decision of each shipped bot at its
defaults (``projectl-sim bots``, but the human seat) in the same positions: 2-player base games
of random play, the bot deciding for the seat to move on its view. Each counted decision was
made once before, uncounted, so the tiling index holds its regions, as in a long run (a cold
index's building would otherwise be most of a planning bot's figure). The index fills as games
are played, so the random game's figure depends on the warm-up (``WARM_GAMES``). The items run
in their order in one process, after the set-up.

The previous release's figures (``instructions_ec32e0b.json``, measured on that commit by
``--save``) are printed beside this checkout's, with their ratio. Everything is seeded and
``PYTHONHASHSEED`` is fixed: two runs of one build count the same (measured: to the instruction).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "instructions_ec32e0b.json"
# item -> (unit, how many measured): a bot's decisions, or random games
ITEMS: dict[str, tuple[str, int]] = {
    "random game": ("game", 30),
    "random": ("decision", 100),
    "greedy": ("decision", 50),
    "builder": ("decision", 50),
    "rusher": ("decision", 50),
    "setter": ("decision", 50),
    "recycler": ("decision", 50),
    "value": ("decision", 10),
    "mcts": ("decision", 1),
}
# Each bot's decisions before the measured ones (its tables, its model), by a bot of its spec
# here (mcts's warm-up searches little: the same code and tables, a fraction of the time); then
# the measured decisions are made once uncounted, so that each counted one finds what a long
# run would have built (the tiling index's regions), as a large study's decisions do
WARM_DECISIONS = 2
WARM_SPECS = {"mcts": "mcts:iterations=8"}
WARM_GAMES = 20  # random games before the measured ones (the tiling index fills as they play)
POSITIONS_SEED = 20261205

# The child process: ``python -c CHILD ITEMS ...`` sets up (imports, positions, every bot's
# warm-up, the warm-up games), then does each item's measured work in turn, calling
# ``os.getppid()`` before each item and after the last: callgrind (``--dump-before=getppid``)
# writes the instructions since the previous mark at each, so each part is one item's work.
CHILD = r"""
import os, random, sys
import numpy as np
from bots import make_bot
from projectl_sim import Rules, new_game, play_game
from projectl_sim.engine import PLAY

items, warm_specs, warm_decisions, warm_games, seed = (
    eval(sys.argv[1]), eval(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
)
rules = Rules(players=2)
player = make_bot("random")
deciders = max([n for unit, n in items.values() if unit == "decision"] + [0]) + warm_decisions
positions = []
source = np.random.SeedSequence(seed)
k = 0
while len(positions) < deciders:
    k += 1
    state = new_game(rules, seed=int(source.generate_state(k)[-1]))
    rng = random.Random(k)
    for _ in range(rng.randrange(6, 120)):
        if state.phase != PLAY:
            break
        state.step(state.current, player(state.view(state.current), rng))
    if state.phase == PLAY:
        positions.append(state.view(state.current))
bots = {name: make_bot(name) for name, (unit, _) in items.items() if unit == "decision"}
for name, bot in bots.items():
    warm = make_bot(warm_specs.get(name, name))
    for i in range(warm_decisions):
        warm(positions[i], random.Random(i))
    # the measured decisions once before they are counted, so that what a long run has built
    # (the tiling index's regions of these positions) is there (a cheaper search for mcts)
    measured = range(warm_decisions, warm_decisions + items[name][1])
    for i in measured:
        (bot if name not in warm_specs else warm)(positions[i], random.Random(i))
played = items.get("random game", ("game", 0))[1]
games = np.random.SeedSequence(seed + 1).generate_state(warm_games + played)
for s in games[:warm_games]:
    play_game(rules, [player, player], int(s), record=True)
for item, (unit, n) in items.items():
    os.getppid()
    if item == "random game":
        for s in games[warm_games:]:
            play_game(rules, [player, player], int(s), record=True)
    else:
        bot = bots[item]
        for i in range(warm_decisions, warm_decisions + n):
            bot(positions[i], random.Random(i))
os.getppid()
"""


def measure_build(python: str, pure: bool, items: dict[str, tuple[str, int]]) -> dict[str, float]:
    """Return item -> instructions per unit, counted in one process under callgrind."""
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    env.pop("PROJECTL_SIM_PURE", None)
    if pure:
        env["PROJECTL_SIM_PURE"] = "1"
    args = [
        repr(items),
        repr(WARM_SPECS),
        str(WARM_DECISIONS),
        str(WARM_GAMES),
        str(POSITIONS_SEED),
    ]
    with tempfile.TemporaryDirectory() as tmp:  # not this folder: ``bots`` is the package
        out_file = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out_file}",
                "--dump-before=getppid",
                python,
                "-c",
                CHILD,
                *args,
            ],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
        )
        if run.returncode:
            tail = run.stderr.strip().splitlines()[-3:]
            raise SystemExit(f"instructions.py: the counted process failed: {tail}")
        # part k (k >= 2) holds the instructions between mark k-1 and mark k: item k-1's work
        parts = {}
        for path in Path(tmp).glob("callgrind.out.*"):
            text = path.read_text(errors="replace")
            found = re.search(r"^totals:\s+(\d+)", text, re.MULTILINE)
            if found is not None:
                parts[int(path.suffix[1:])] = int(found.group(1))
    if len(parts) != len(items) + 1:
        raise SystemExit(
            f"instructions.py: expected {len(items) + 1} parts from callgrind, got {len(parts)}"
        )
    return {item: parts[k + 2] / n for k, (item, (_, n)) in enumerate(items.items())}


def measure(
    python: str, builds: list[str], items: dict[str, tuple[str, int]]
) -> dict[str, dict[str, float]]:
    """Return build -> item -> instructions per unit (decision or game)."""
    out: dict[str, dict[str, float]] = {}
    for build in builds:
        start = time.time()
        out[build] = measure_build(python, build == "pure", items)
        print(f"  {build}: counted in {time.time() - start:.0f} s", file=sys.stderr)
    return out


def _compiled(python: str) -> bool:
    code = "from projectl_sim._native import compiled; print(compiled())"
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([python, "-c", code], cwd=tmp, capture_output=True, text=True)
    return out.stdout.strip() == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--builds", default="compiled,pure", help="compiled, pure or both")
    parser.add_argument("--only", default="", help="some items only (comma-separated)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to count")
    parser.add_argument("--save", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--label", default="", help="what the saved figures are of (a commit)")
    parser.add_argument(
        "--figures", type=Path, help="print the figures a --save wrote instead of counting"
    )
    args = parser.parse_args()
    builds = [b for b in args.builds.split(",") if b]
    if any(b not in ("compiled", "pure") for b in builds):
        parser.error("--builds: compiled, pure or both")
    only = [i for i in args.only.split(",") if i] or list(ITEMS)
    unknown = [i for i in only if i not in ITEMS]
    if unknown:
        parser.error(f"--only: no item {unknown[0]!r} (items: {', '.join(ITEMS)})")
    if "compiled" in builds and not args.figures and not _compiled(args.python):
        print("instructions.py: this interpreter runs the pure build; counting pure only")
        builds = [b for b in builds if b != "compiled"] or ["pure"]
    items = {name: ITEMS[name] for name in only}
    if args.figures:
        figures = json.loads(args.figures.read_text())["figures"]
        builds = [b for b in builds if b in figures]
    else:
        figures = measure(args.python, builds, items)
    if args.save:
        saved = {
            "label": args.label,
            "items": {k: list(v) for k, v in ITEMS.items()},
            "warm_games": WARM_GAMES,
            "warm_decisions": WARM_DECISIONS,
            "warm_specs": WARM_SPECS,
            "figures": figures,
        }
        args.save.write_text(json.dumps(saved, indent=1) + "\n")
    old = json.loads(BASELINE.read_text()) if BASELINE.exists() else {"figures": {}}
    label = old.get("label", "previous")
    print(f"instructions per unit (callgrind), {label} beside this checkout")
    header = f"{'item':<12} {'unit':<8}"
    for build in builds:
        header += f" {build + ' ' + label:>20} {build + ' now':>16} {'ratio':>6}"
    print(header)
    for item in only:
        line = f"{item:<12} {ITEMS[item][0]:<8}"
        for build in builds:
            new = figures[build][item]
            before = old["figures"].get(build, {}).get(item)
            ratio = f"{new / before:6.3f}" if before else f"{'':>6}"
            shown = f"{before:,.0f}" if before else "-"
            line += f" {shown:>20} {new:>16,.0f} {ratio}"
        print(line)


if __name__ == "__main__":
    main()
