"""Runner memory: the parent's peak while it plays and while it writes the tables, for a small and
a large study, and their ratio (flat in the number of games: the large one within 10%).

Run: ``.venv/bin/python benchmarks/runner_memory.py [--games 1000 100000] [--jobs 2]
[--lineup random] [--tables all] [--no-summary]``. Each study is a fresh
``projectl_sim.sim.runner.run`` in a child process of its own (so that no study inherits
another's heap), into a temporary folder: the child prints its peak resident memory (``VmHWM``)
when the last game has been played, just before the tables are written from the parts, once
they are written, and at the end, after the summary that ``projectl-sim run`` prints when it
ends (``getrusage``: the whole process), and its workers' largest peak (``RUSAGE_CHILDREN``,
once they are stopped). Then a resume of the complete study, in another child: its peak after
checking the games written, and with its summary. Wall times are printed with the machine's load
average (other work slows a run, it does not change its memory).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
# so that ``import bots`` finds the package (in the child too).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

_CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import pyarrow as pa
from projectl_sim.sim import runner, tables, workers
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

args = json.loads(sys.argv[1])
seen = {}
consolidate = tables.consolidate
def timed(*a, **k):
    seen["played_peak"] = hwm()
    seen["played_at"] = time.perf_counter()
    seen["played_arrow"] = pa.default_memory_pool().max_memory()
    seen["played_blocks"] = sys.getallocatedblocks()
    return consolidate(*a, **k)
tables.consolidate = timed
spec = RunSpec.from_mapping(
    {"bots": [args["lineup"]], "players": [2], "games": args["games"], "seed": args["seed"],
     "tables": args["tables"]}
)
start = time.perf_counter()
if args["resume"]:  # a resume of the complete run: it checks the games written, plays none
    options = RunOptions(jobs=args["jobs"], quiet=True)
    runner.run(None, Path(args["out"]), resume=True, options=options)
    seen["played_peak"], seen["played_at"] = hwm(), time.perf_counter()
    seen["played_arrow"] = pa.default_memory_pool().max_memory()
    seen["played_blocks"] = sys.getallocatedblocks()
else:
    runner.run(spec, Path(args["out"]), options=RunOptions(jobs=args["jobs"], quiet=True))
end = time.perf_counter()
written_peak = hwm()
written_arrow = pa.default_memory_pool().max_memory()
written_blocks = sys.getallocatedblocks()
if args["summary"]:  # what ``projectl-sim run`` prints at its end, in the same process
    from projectl_sim.analysis.answers import summary_text
    summary_text(Path(args["out"]))
summary_end = time.perf_counter()
workers._stop_idle()
print(json.dumps({
    "played_peak": seen["played_peak"],
    "written_peak": written_peak,
    "played_arrow": seen["played_arrow"],
    "written_arrow": written_arrow,
    "played_blocks": seen["played_blocks"],
    "written_blocks": written_blocks,
    "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    "workers_peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
    "play_seconds": seen["played_at"] - start,
    "write_seconds": end - seen["played_at"],
    "summary_seconds": summary_end - end,
    "size": sum(f.stat().st_size for f in Path(args["out"]).glob("*.*")),
}))
"""


def load() -> str:
    """Return the machine's load averages (1, 5, 15 minutes)."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def study(
    games: int,
    jobs: int,
    lineup: str,
    tables: str,
    seed: int,
    out: Path,
    resume: bool = False,
    summary: bool = True,
) -> dict:
    """Run one study (or, with ``resume``, resume it once complete) in a fresh child process,
    then print its summary there unless told not to; return what it measured."""
    args = {
        "games": games,
        "jobs": jobs,
        "lineup": lineup,
        "tables": tables,
        "seed": seed,
        "out": str(out),
        "resume": resume,
        "summary": summary,
    }
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, "-P", "-c", _CHILD, json.dumps(args)],  # -P: not this folder first
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the study of {games} games failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mb(n: float) -> str:
    return f"{n / 1e6:7.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 100000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--lineup", default="random")
    parser.add_argument("--tables", default="all", choices=("all", "core"))
    parser.add_argument(
        "--no-summary",
        dest="summary",
        action="store_false",
        help="leave out the closing summary (the figures of the runner alone)",
    )
    args = parser.parse_args()
    seed = secrets.randbelow(2**31)
    print(
        f"root seed {seed}, {args.lineup} two-player games, --jobs {args.jobs}, "
        f"--tables {args.tables}"
    )
    found: dict[int, dict] = {}
    resumed: dict[int, dict] = {}
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        for n in args.games:
            out = Path(tmp) / f"run-{n}"
            before = load()
            got = study(n, args.jobs, args.lineup, args.tables, seed, out, summary=args.summary)
            found[n] = got
            print(
                f"{n:>9} games: parent peak playing {mb(got['played_peak'])}, with the tables "
                f"written {mb(got['written_peak'])}, with the closing summary {mb(got['peak'])}; "
                f"workers' peak {mb(got['workers_peak'])}; played in "
                f"{got['play_seconds']:.1f} s, tables written in {got['write_seconds']:.1f} s, "
                f"summary in {got['summary_seconds']:.1f} s ({got['size'] / n:.0f} bytes a game "
                f"on disk); load average {before} before, {load()} after"
            )
            print(
                f"{'':>9}  Arrow's memory pool peak {mb(got['played_arrow'])} playing, "
                f"{mb(got['written_arrow'])} with the tables written; Python's live blocks "
                f"{got['played_blocks']:,} playing, {got['written_blocks']:,} with the tables "
                "written"
            )
            got = study(n, args.jobs, args.lineup, args.tables, seed, out, True, args.summary)
            resumed[n] = got
            print(
                f"{'':>9}  its resume (complete: checked, nothing played): parent peak "
                f"{mb(got['written_peak'])} after the check, {mb(got['peak'])} with the summary; "
                f"checked in {got['play_seconds']:.1f} s"
            )
    small, large = min(found), max(found)
    if small != large:

        def ratio(of: dict[int, dict], key: str) -> str:
            return f"{of[large][key] / of[small][key]:.3f}"

        print(
            f"parent peak of {large} games / {small} games: with the closing summary "
            f"{ratio(found, 'peak')}, with the tables written {ratio(found, 'written_peak')}, "
            f"playing {ratio(found, 'played_peak')}; a resume's check "
            f"{ratio(resumed, 'written_peak')}, with its summary {ratio(resumed, 'peak')}"
        )


if __name__ == "__main__":
    main()
