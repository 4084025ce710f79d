"""The reference fillability solver: exact cover with OR-Tools CP-SAT.

One boolean per placement lying inside the empty cells; every empty cell covered exactly once;
at most the owned count of each piece type. It is slow next to the tiling index in
``tiling.fill`` (milliseconds, not microseconds), and exists so the index can be checked
against an independent solver.

OR-Tools is imported lazily (it costs ~0.3 s), the solver runs with one worker (small models solve
2-3x slower with more), and the model's ``.Proto()`` is never touched (it crashes in 9.15).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from projectl_sim.catalogue import Catalogue, Mask25

# The OR-Tools version the agreement tests were run against (pinned in pyproject.toml too).
TESTED_ORTOOLS_VERSION = "9.15.6755"

Placement = tuple[int, Mask25]  # (piece index, placement mask)


def _cp_model() -> Any:
    from ortools.sat.python import cp_model  # lazy: importing OR-Tools costs ~0.3 s

    return cp_model


def _build(
    cat: Catalogue, empty: Mask25, counts: Sequence[int], using_one_of: Collection[int] = ()
) -> tuple[Any, list[Placement], list[Any], list[Any]]:
    """Return the model, its placements, their booleans and one used-count variable per piece.

    With ``using_one_of``, a tiling must use at least one piece of those types (a ghost, say).
    """
    cp_model = _cp_model()
    model = cp_model.CpModel()
    placements: list[Placement] = []
    literals: list[Any] = []
    covering: dict[int, list[Any]] = {cell: [] for cell in range(25) if empty >> cell & 1}
    per_piece: list[list[Any]] = [[] for _ in cat.pieces]
    for piece, masks in enumerate(cat.placements):
        if counts[piece] <= 0:
            continue
        for mask in masks:
            if mask & empty != mask:
                continue
            x = model.new_bool_var(f"p{piece}_{mask}")
            placements.append((piece, mask))
            literals.append(x)
            per_piece[piece].append(x)
            m = mask
            while m:
                low = m & -m
                covering[low.bit_length() - 1].append(x)
                m ^= low
    for xs in covering.values():
        model.add_exactly_one(xs)  # an empty list makes the model infeasible, as it should
    used = []
    for piece, xs in enumerate(per_piece):
        n = model.new_int_var(0, max(0, counts[piece]), f"n{piece}")
        model.add(n == sum(xs))
        used.append(n)
    if using_one_of:
        model.add(sum(used[piece] for piece in set(using_one_of)) >= 1)
    return model, placements, literals, used


def _solver(*, enumerate_all: bool = False) -> Any:
    solver = _cp_model().CpSolver()
    solver.parameters.num_workers = 1
    if enumerate_all:
        solver.parameters.enumerate_all_solutions = True
        # Without the LP relaxation, enumeration runs ~70x faster here (B06: 0.5 s, not 35 s).
        solver.parameters.linearization_level = 0
    return solver


def solve(
    cat: Catalogue,
    empty: Mask25,
    counts: Sequence[int],
    *,
    minimise_pieces: bool = True,
    using_one_of: Collection[int] = (),
) -> list[Placement] | None:
    """Return a tiling of ``empty`` within ``counts`` (fewest pieces by default), or None.

    ``using_one_of`` asks for a tiling with at least one piece of those types. Minimising the
    total level is not offered: an exact cover's total level is its cell count.
    """
    if not empty:
        return None if using_one_of else []
    model, placements, literals, used = _build(cat, empty, counts, using_one_of)
    if minimise_pieces:
        model.minimize(sum(used))
    solver = _solver()
    status = solver.solve(model)
    cp_model = _cp_model()
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return [p for p, x in zip(placements, literals, strict=True) if solver.boolean_value(x)]


def can_tile(
    cat: Catalogue, empty: Mask25, counts: Sequence[int], *, using_one_of: Collection[int] = ()
) -> bool:
    """Return whether ``empty`` can be tiled within ``counts`` (a pure feasibility solve)."""
    return solve(cat, empty, counts, minimise_pieces=False, using_one_of=using_one_of) is not None


def tiling_vectors(
    cat: Catalogue, empty: Mask25, counts: Sequence[int]
) -> Counter[tuple[int, ...]]:
    """Enumerate every tiling of ``empty`` within ``counts``; count them per piece-count vector."""
    found: Counter[tuple[int, ...]] = Counter()
    if not empty:
        found[tuple(0 for _ in cat.pieces)] += 1
        return found
    cp_model = _cp_model()
    model, _, _, used = _build(cat, empty, counts)

    class _Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            # Reading the nine counts, not every placement boolean, keeps the callback cheap.
            found[tuple(self.value(n) for n in used)] += 1

    solver = _solver(enumerate_all=True)
    solver.solve(model, _Collect())
    return found


def enumerate_tilings(
    cat: Catalogue, empty: Mask25, counts: Sequence[int], *, limit: int | None = None
) -> list[list[Placement]]:
    """Return every tiling of ``empty`` within ``counts`` (the first ``limit`` if given)."""
    if not empty:
        return [[]]
    cp_model = _cp_model()
    model, placements, literals, _ = _build(cat, empty, counts)
    tilings: list[list[Placement]] = []

    class _Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            tilings.append(
                [p for p, x in zip(placements, literals, strict=True) if self.boolean_value(x)]
            )
            if limit is not None and len(tilings) >= limit:
                self.stop_search()

    solver = _solver(enumerate_all=True)
    solver.solve(model, _Collect())
    return tilings
