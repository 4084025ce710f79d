"""What ``summary`` and ``report`` of a large grid cost: this checkout against an older commit,
side by side in one run.

Run: ``.venv/bin/python benchmarks/analysis.py [--run DIR] [--old-ref REF] [--repeats N]``.

The run (kept in ``--run``, played once when the folder holds none) is a grid of 96
configurations: the line-ups ``greedy`` and ``greedy,random`` at 2, 3 and 4 players, every
subset of the four expansions, 6 games each. The code of ``--old-ref`` (default ``123862d``, the
commit before the findings table) is unpacked with ``git archive`` into a temporary folder.
Each line is the mean CPU time (user + system of the process and the children it waited for)
of ``--repeats`` fresh ``projectl-sim summary RUN`` (or ``report RUN --out FILE``) processes,
one with this checkout first on the path and one with the old code, alternating so that other
work on a shared machine weighs on both alike; then the ratio new / old. Both run the
pure-Python build (``PROJECTL_SIM_PURE=1``): the analysis is not compiled.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAY = (
    "--bots greedy --bots greedy,random --players 2,3,4 --expansions all-subsets --games 6 "
    "--seed 92 --jobs 1 --quiet"
)


def cpu_of(argv: list[str], tree: Path) -> float:
    """Return the CPU seconds of one process run with ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PROJECTL_SIM_PURE": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"{' '.join(argv)} failed with {tree} first on the path:\n{done.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def old_tree(ref: str, into: Path) -> Path:
    """Unpack the package of commit ``ref`` into ``into`` and return the folder."""
    archive = into / "old.tar"
    with archive.open("wb") as out:
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref, "projectl_sim"], stdout=out, check=True
        )
    with tarfile.open(archive) as tar:
        tar.extractall(into / "old", filter="data")
    return into / "old"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, default=Path(tempfile.gettempdir()) / "analysis-96")
    parser.add_argument("--old-ref", default="123862d")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "projectl_sim"]
    if not (args.run / "manifest.json").exists():
        subprocess.run([*cli, "run", *PLAY.split(), "--out", str(args.run)], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"old": old_tree(args.old_ref, Path(tmp)), "new": ROOT}
        page = Path(tmp) / "report.html"
        commands = {
            "summary": [*cli, "summary", str(args.run)],
            "report": [*cli, "report", str(args.run), "--out", str(page)],
        }
        print(f"CPU seconds, mean of {args.repeats} (new: this checkout, old: {args.old_ref})")
        for name, argv in commands.items():
            seconds: dict[str, list[float]] = {"old": [], "new": []}
            for _ in range(args.repeats):
                for which, tree in trees.items():
                    seconds[which].append(cpu_of(argv, tree))
            old, new = (sum(seconds[w]) / args.repeats for w in ("old", "new"))
            print(f"{name:8s} old {old:6.2f}  new {new:6.2f}  new / old {new / old:.2f}")


if __name__ == "__main__":
    main()
