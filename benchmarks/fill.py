"""Fillability speed: the tiling index against a fresh CP-SAT solve, on the same queries.

Run: ``.venv/bin/python benchmarks/fill.py [--queries N] [--seed S] [--expansions LIST]``.
A query is one real puzzle's recess (whole, partly filled by random placements, or with random
holes) and a random owned multiset; both solvers answer every query, and their minimum numbers
of pieces are compared.

Printed, all from this one run: the one-time index build for the whole catalogue; per-query time
of the index cold (first touch of a mask builds its entry) and warm; queries per second of the
index (``first``: fillable and cheapest multiset; ``plan``: that plus a placement plan, through
the public functions on the catalogue's shared index) and of
CP-SAT (model built and solved per query, one worker, fewest pieces); and the ratios.
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import time

from projectl_sim.catalogue import Catalogue
from projectl_sim.loading import load_catalogue
from projectl_sim.tiling.fill import TilingIndex, can_tile, plan

Query = tuple[int, list[int]]  # (empty mask, owned counts per piece index)


def make_queries(cat: Catalogue, n: int, rng: random.Random) -> list[Query]:
    queries = []
    for i in range(n):
        recess = rng.choice(cat.puzzles).recess
        kind = i % 3
        empty = recess
        if kind == 1:  # partly filled by a few real placements
            for _ in range(rng.randint(1, 4)):
                fits = [m for masks in cat.fits(empty) for m in masks]
                if fits:
                    empty &= ~rng.choice(fits)
        elif kind == 2:  # random holes
            cells = [c for c in range(25) if recess >> c & 1]
            for c in rng.sample(cells, rng.randint(1, len(cells) - 1)):
                empty &= ~(1 << c)
        counts = [0] * len(cat.pieces)
        for _ in range(rng.randint(1, 10)):
            counts[rng.randrange(len(counts))] += 1
        queries.append((empty, counts))
    return queries


def _timed(fn, queries: list[Query]) -> tuple[list[float], list]:
    """Return each query's time in microseconds and the answers."""
    times, answers = [], []
    clock = time.perf_counter_ns
    for empty, counts in queries:
        start = clock()
        answer = fn(empty, counts)
        times.append((clock() - start) / 1e3)
        answers.append(answer)
    return times, answers


def _line(label: str, times: list[float]) -> float:
    total = sum(times)
    qps = len(times) / total * 1e6
    p99 = statistics.quantiles(times, n=100)[98]
    print(
        f"{label:<26} {qps:>10.0f} q/s   mean {total / len(times):8.1f} us   "
        f"p99 {p99:8.1f} us   worst {max(times):8.1f} us"
    )
    return qps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--expansions",
        default="",
        help="expansion puzzle sets to add, e.g. ghost_piece,phoenix (queries then draw from "
        "every puzzle, with ghost pieces among the owned ones)",
    )
    args = parser.parse_args()
    root = args.seed if args.seed is not None else secrets.randbelow(2**63)
    print(f"root seed {root}, {args.queries} queries")
    cat = load_catalogue(expansions=[n for n in args.expansions.split(",") if n])
    print(f"catalogue {cat.name}: {len(cat.pieces)} pieces, {len(cat.puzzles)} puzzles")

    # One-time build: every whole recess of the catalogue, from an empty index. (can_tile uses the
    # catalogue's shared index, already built when the catalogue was validated.)
    index = TilingIndex(cat)
    start = time.perf_counter()
    for puzzle in cat.puzzles:
        index.vectors(puzzle.recess)
    build = time.perf_counter() - start
    most = max(len(index.vectors(p.recess)) for p in cat.puzzles)
    print(
        f"index build, {len(cat.puzzles)} recesses: {build * 1e3:.1f} ms, "
        f"{index.stored_masks} masks, {index.stored_vectors} vectors "
        f"(at most {most} for one recess)"
    )

    queries = make_queries(cat, args.queries, random.Random(root))

    def first(empty: int, counts: list[int]) -> int | None:
        v = index.first(empty, counts)
        return None if v is None else index.size(v)

    def planned(empty: int, counts: list[int]) -> int | None:
        steps = plan(cat, empty, counts)
        return None if steps is None else len(steps)

    def fillable(empty: int, counts: list[int]) -> bool:
        return can_tile(cat, empty, counts)

    from projectl_sim.tiling import cpsat

    cpsat.solve(cat, cat.puzzles[0].recess, [1] * len(cat.pieces))  # import OR-Tools untimed

    def solve(empty: int, counts: list[int]) -> int | None:
        found = cpsat.solve(cat, empty, counts)
        return None if found is None else len(found)

    cold, answers = _timed(first, queries)
    _line("index first, cold", cold)
    first_qps = _line("index first, warm", _timed(first, queries)[0])
    _timed(fillable, queries)  # warm the catalogue's shared index on these queries
    _line("can_tile (public), warm", _timed(fillable, queries)[0])
    _line("plan (public), first time", _timed(planned, queries)[0])
    plan_qps = _line("plan (public), warm", _timed(planned, queries)[0])
    cp_times, cp_answers = _timed(solve, queries)
    cp_qps = _line("cp-sat solve (fresh)", cp_times)

    disagree = sum(a != b for a, b in zip(answers, cp_answers, strict=True))
    fillable = sum(a is not None for a in answers)
    print(f"answers: {fillable} fillable, {disagree} disagreements on the minimum pieces")
    print(f"ratio index first / cp-sat: {first_qps / cp_qps:8.0f}x")
    print(f"ratio plan        / cp-sat: {plan_qps / cp_qps:8.0f}x")


if __name__ == "__main__":
    main()
