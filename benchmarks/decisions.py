"""CPU per decision of every shipped bot, in every variant x expansion combination.

Run: ``.venv/bin/python benchmarks/decisions.py [--games N] [--mcts-games M] [--bots A,B]
[--variants V,W] [--expansions E,F] [--jobs J] [--seed S]``.

Every shipped bot at its default settings (``projectl-sim bots``, but the human seat) plays
``--games`` games (``--mcts-games`` for ``mcts``) in each combination: the standard game at 2 and
4 players, solo, and Line Clear at 5 and 6 players, each with every subset of the four
expansions and the Endless White Deck (a combination the rules refuse, such as 6 players without
24 black puzzles or the Endless White Deck in solo, is left out and counted). The bot sits in
seat 0, greedy in the others; only seat 0's decisions are timed, in CPU seconds
(``time.process_time``: robust to a busy machine). Per bot and variant it prints the decisions
timed, their median, 99.9th percentile and maximum CPU, and the combination of the slowest; then
each bot's maximum over everything; for ``mcts``, its searches' largest work (cost-model
queries) and how many of them its work budget ended. Every shipped bot's decision is bounded in
work (``bots.endgame.BUDGET`` for solo's end search, MCTS's iterations and its work budget,
``mcts:work``), never in time, so this is where a runaway would show. ``--expansions`` plays
some expansion sets only (``base,ghost_piece+phoenix``); a combination's game seeds are the
same with or without it. Game seeds come from one root seed (printed), so a run is repeatable.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import secrets
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

# benchmarks/bots.py is named like the ``bots`` package: drop this folder from the import path
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import numpy as np  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402

from bots import REGISTRY, make_bot  # noqa: E402
from projectl_sim import Rules  # noqa: E402
from projectl_sim._native import compiled  # noqa: E402
from projectl_sim.errors import ProjectLError  # noqa: E402
from projectl_sim.sim.play import play_game  # noqa: E402
from projectl_sim.sim.spec import split_lineup  # noqa: E402

# the four expansions, and the Endless White Deck (a rules switch: ``endless_white_deck``)
EXPANSIONS = ("ghost_piece", "ambassador_pack", "finesse", "phoenix", "endless")
SEATINGS = (("standard", 2), ("standard", 4), ("solo", 1), ("line_clear", 5), ("line_clear", 6))
NOT_SHIPPED = {"human"}  # a person at the terminal


def combinations(variants: frozenset[str] | None = None) -> list[tuple[str, int, tuple[str, ...]]]:
    """Return every (variant, players, expansions) combination the benchmark tries (of
    ``variants`` only, when given)."""
    subsets = [
        names for k in range(len(EXPANSIONS) + 1) for names in itertools.combinations(EXPANSIONS, k)
    ]
    return [(v, p, e) for v, p in SEATINGS for e in subsets if variants is None or v in variants]


def _label(variant: str, players: int, expansions: tuple[str, ...]) -> str:
    return f"{variant} {players}p {'+'.join(expansions) or 'base'}"


def play_cell(
    spec: str, variant: str, players: int, expansions: tuple[str, ...], seeds: list[int]
) -> tuple[list[float], bool, list[int]]:
    """Play one bot's games of one combination; return seat 0's CPU seconds per decision (and
    False when the rules refuse the combination), and for a bot with a work budget (``mcts``)
    the work of each search and of each search its budget ended (as negative numbers)."""
    sets = frozenset(expansions) - {"endless"}
    try:
        rules = Rules(
            players=players,
            variant=variant,
            expansions=sets,
            endless_white_deck="endless" in expansions,
        )
    except ProjectLError:
        return [], False, []
    times: list[float] = []
    works: list[int] = []
    bot = make_bot(spec)

    def timed(view: Any, rng: Any) -> Any:
        start = time.process_time()
        action = bot(view, rng)
        times.append(time.process_time() - start)
        work = getattr(bot, "work", 0)
        if work:
            works.append(-work if getattr(bot, "work_stopped", False) else work)
        return action

    others = [make_bot("greedy") for _ in range(players - 1)]
    start = time.process_time()
    for seed in seeds:
        play_game(rules, [timed, *others], seed, record=False)
    # one line per combination as it ends (stderr), so a long sweep shows where it is
    print(
        f"{spec} {_label(variant, players, expansions)}: {len(times)} decisions, max "
        f"{max(times, default=0.0) * 1000:.0f} ms, {time.process_time() - start:.0f} s of CPU",
        file=sys.stderr,
        flush=True,
    )
    return times, True, works


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:9.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games per bot and combination")
    parser.add_argument("--mcts-games", type=int, default=1, help="games per combination, mcts")
    parser.add_argument("--bots", default=None, help="comma list (default: every shipped bot)")
    parser.add_argument(
        "--variants", default=None, help="comma list of standard, solo, line_clear (default: all)"
    )
    parser.add_argument(
        "--expansions",
        default=None,
        help="comma list of the expansion sets to play, each a +-joined subset in the order "
        f"{'+'.join(EXPANSIONS)} or base (default: every one)",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=None, help="root seed (default: fresh)")
    args = parser.parse_args()
    root = args.seed if args.seed is not None else secrets.randbelow(2**63)
    # a spec's own parameters are comma-separated too (mcts:leaf=value,deepen=16): the runner's
    # split keeps them with their bot
    specs = split_lineup(args.bots) if args.bots else sorted(set(REGISTRY) - NOT_SHIPPED)
    for spec in specs:
        try:
            make_bot(spec)
        except ProjectLError as exc:
            parser.error(f"--bots: {exc}")
    known = {v for v, _ in SEATINGS}
    variants = frozenset(args.variants.split(",")) if args.variants else None
    if variants is not None and not variants <= known:
        parser.error(f"--variants: {', '.join(sorted(variants - known))} is not one of {known}")
    cells = combinations(variants)
    if args.expansions:
        wanted = {"" if e == "base" else e for e in args.expansions.split(",")}
        unknown = wanted - {"+".join(e) for _, _, e in cells}
        if unknown:
            parser.error(f"--expansions: {', '.join(sorted(unknown))} is not an expansion set")
    else:
        wanted = {"+".join(e) for _, _, e in cells}
    build = "compiled" if compiled() else "pure"
    print(f"root seed {root}; {build} build; {args.jobs} jobs; bots {' '.join(specs)}")
    jobs = []
    for b, spec in enumerate(specs):
        n = args.mcts_games if spec.startswith("mcts") else args.games
        for c, (variant, players, expansions) in enumerate(cells):
            if "+".join(expansions) not in wanted:
                continue  # skipped, the others' seeds unchanged (c counts every combination)
            ss = np.random.SeedSequence([root, b, c])
            seeds = [int(s) for s in ss.generate_state(n, dtype=np.uint32)]
            jobs.append((spec, variant, players, expansions, seeds))
    start = time.perf_counter()
    results = Parallel(n_jobs=args.jobs)(delayed(play_cell)(*job) for job in jobs)
    refused = sum(1 for _, ok, _ in results if not ok) // len(specs)
    print(
        f"{len(jobs) // len(specs) - refused} combinations ({refused} refused by the rules), "
        f"{time.perf_counter() - start:.0f} s wall"
    )
    header = f"{'bot':10s} {'variant':12s} {'decisions':>9s} {'median':>12s} {'p99.9':>12s} "
    print(header + f"{'max':>12s}  slowest in")
    overall: dict[str, tuple[float, str]] = {}
    by: dict[tuple[str, str], list[tuple[list[float], str]]] = defaultdict(list)
    works: dict[tuple[str, str], list[int]] = defaultdict(list)
    for (spec, variant, players, expansions, _), (times, _ok, w) in zip(jobs, results, strict=True):
        if times:
            by[spec, variant].append((times, _label(variant, players, expansions)))
            works[spec, variant].extend(w)
    for spec in specs:
        for variant in dict.fromkeys(v for v, _ in SEATINGS):
            groups = by.get((spec, variant), [])
            if not groups:
                continue
            every = np.concatenate([np.asarray(t) for t, _ in groups])
            worst_times, worst = max(groups, key=lambda g: max(g[0]))
            top = max(worst_times)
            print(
                f"{spec:10s} {variant:12s} {len(every):9d} {_ms(float(np.median(every)))} "
                f"{_ms(float(np.quantile(every, 0.999)))} {_ms(top)}  {worst}"
            )
            if works.get((spec, variant)):
                w = works[spec, variant]
                print(
                    f"{'':10s} {'':12s} searches {len(w)}, the most work {max(map(abs, w)):,} "
                    f"queries, {sum(1 for x in w if x < 0)} ended by the work budget"
                )
            if top > overall.get(spec, (-1.0, ""))[0]:
                overall[spec] = (top, worst)
    for spec, (top, worst) in overall.items():
        print(f"max {spec:10s} {_ms(top)}  ({worst})")
    # the tiling index's memo is the engine's largest memory (tiling.fill): its bound shows
    # here (--jobs 1 plays in this process; with more, the largest worker's ended ones count)
    who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    peak = max(resource.getrusage(w).ru_maxrss for w in who)
    print(f"peak memory of one process: {peak / 1024:.0f} MB")


if __name__ == "__main__":
    main()
