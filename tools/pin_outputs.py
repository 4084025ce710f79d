"""Pin what users read: the text of summary, report, compare, cards, deals, ladder and puzzle try
on a few small seeded runs, one file each, so that a change to the analysis shows up as a diff.

    python tools/pin_outputs.py OUT [--runs DIR]

plays the runs into DIR (default OUT/../pin-runs; kept, and reused when they are there: the runs
are the input, the outputs under test are what the analysis makes of them), then writes one text
file per output into OUT. Run it on the code before a change and after, and ``diff -r`` the two
OUT folders: every difference should be one the change meant. The commands run with this
checkout first on the path, one worker each (``--jobs 1``). The report's embedded charts are
replaced by a placeholder naming their size, so the HTML diffs as text.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the puzzle of docs/how-to/designer-loop.md, tried in the place of W25
N01 = """\
id = "N01"
color = "white"
points = 0
reward = "domino"
drawing = '''
.....
..#..
..#..
..##.
.....
'''
"""

# the trial's report and the ladder, made again from their runs by the code under test
TRY_REPORT = """
import sys
from pathlib import Path
from projectl_sim.experiments.trial import trial_report
out = Path(sys.argv[1])
print(trial_report(out / "without", out / "with", "N01", "W25").text())
"""
LADDER = """
import sys
from projectl_sim.experiments.ladder import format_ladder, ladder_table
from projectl_sim.sim.tables import read_table
table = ladder_table(read_table(sys.argv[1], "seats").to_pandas())
print(table.to_csv(index=False))
print(format_ladder(table))
"""

# name -> the arguments of `run` (each run gets --out, --jobs 1 and --quiet)
RUNS: dict[str, str] = {
    # 2 player counts x 2 expansion sets of one mixed line-up
    "grid": "--bots greedy,random --players 2,3 --expansions none,ghost --games 40 --seed 1",
    # three bots, every pair on the same deals
    "bots": "--round-robin greedy,random,builder --games 20 --seed 2",
    "solo": "--variant solo --bots greedy --games 40 --seed 3",
    # a deal played twice under each seating, for `deals`
    "deals": "--bots greedy --players 2 --games 20 --deal-replicates 2 --seed 4",
    # the two sides of `compare`: the same seed and line-up, Ghost Piece in one
    "plain": "--bots greedy,random --players 2 --games 40 --seed 5",
    "ghost": "--bots greedy,random --players 2 --expansions ghost --games 40 --seed 5",
    "mirror": "--bots greedy --players 2,3 --games 40 --seed 6",
}


def _cli(args: list[str], cwd: Path | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PROJECTL_SIM_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "projectl_sim", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
    )
    out = done.stdout
    if done.returncode:
        out += f"\n[exit {done.returncode}]\n{done.stderr}"
    return out


def _python(code: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PROJECTL_SIM_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False
    )
    return done.stdout + (f"\n[exit {done.returncode}]\n{done.stderr}" if done.returncode else "")


def _html_text(path: Path) -> str:
    html = path.read_text()
    return re.sub(
        r"data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+",
        lambda m: f"data:image[{len(m.group(0))} chars]",
        html,
    )


def play_runs(runs: Path) -> None:
    """Play every run of RUNS into RUNS_DIR/NAME that is not there yet."""
    runs.mkdir(parents=True, exist_ok=True)
    for name, args in RUNS.items():
        if (runs / name / "manifest.json").exists():
            continue
        _cli(["run", *args.split(), "--out", str(runs / name), "--jobs", "1", "--quiet"])
    trial = runs / "try"
    if not (trial / "report.txt").exists():
        (runs / "n01.toml").write_text(N01)
        _cli(
            [
                "puzzle", "try", str(runs / "n01.toml"), "--replaces", "W25",
                "--bots", "greedy,random", "--games", "40", "--seed", "2026",
                "--out", str(trial), "--jobs", "1", "--quiet",
            ]
        )  # fmt: skip
    ladder = runs / "ladder"
    if not (ladder / "ladder.csv").exists():
        _cli(
            [
                "ladder", "--bots", "greedy,random,builder", "--games", "10", "--seed", "7",
                "--out", str(ladder), "--jobs", "1", "--quiet",
            ]
        )  # fmt: skip


def write_pins(runs: Path, out: Path) -> None:
    """Write the text of every output of the runs in RUNS into OUT, one file each."""
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    for name in RUNS:
        files[f"summary-{name}.txt"] = _cli(["summary", str(runs / name)])
        page = out / f"report-{name}.html"
        log = _cli(["report", str(runs / name), "--out", str(page)])
        if page.exists():
            files[f"report-{name}.html"] = _html_text(page)
        files[f"report-{name}.log"] = log
        files[f"cards-{name}.txt"] = _cli(["cards", str(runs / name)])
    deal_out = out / "deal-records"
    files["deals-deals.txt"] = _cli(["deals", str(runs / "deals"), "--out", str(deal_out)])
    files["deals-grid.txt"] = _cli(["deals", str(runs / "grid"), "--write", "0"])
    shutil.rmtree(deal_out, ignore_errors=True)
    files["compare-plain-ghost.txt"] = _cli(["compare", str(runs / "plain"), str(runs / "ghost")])
    files["compare-grid-grid.txt"] = _cli(["compare", str(runs / "grid"), str(runs / "grid")])
    files["try-report.txt"] = _python(TRY_REPORT, str(runs / "try"))
    files["ladder.txt"] = _python(LADDER, str(runs / "ladder" / "run"))
    files["summary-ladder.txt"] = _cli(["summary", str(runs / "ladder" / "run")])
    for name, text in files.items():
        # the folders differ between checkouts: name them the same in every pin
        (out / name).write_text(text.replace(str(runs), "RUNS").replace(str(out), "OUT"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the pinned outputs")
    parser.add_argument("--runs", type=Path, help="folder of the runs (default OUT/../pin-runs)")
    args = parser.parse_args()
    runs = (args.runs or args.out.parent / "pin-runs").resolve()
    play_runs(runs)
    write_pins(runs, args.out.resolve())


if __name__ == "__main__":
    main()
