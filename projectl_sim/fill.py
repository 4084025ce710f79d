"""Fillability: can an empty region be tiled with owned pieces, and how.

Provisional minimal implementation (depth-first exact cover); the tiling index and the CP-SAT
reference solver replace the internals behind the same functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from projectl_sim.catalogue import Catalogue, Mask25


def _lowest_cell(mask: Mask25) -> int:
    return (mask & -mask).bit_length() - 1


def plan(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> list[tuple[int, Mask25]] | None:
    """Return placements ``(piece, mask)`` exactly tiling ``empty`` within ``counts``, or None."""
    left = list(counts)
    out: list[tuple[int, Mask25]] = []

    def go(mask: Mask25) -> bool:
        if not mask:
            return True
        cell = _lowest_cell(mask)
        for piece, masks in enumerate(cat.placements_at[cell]):
            if left[piece] <= 0:
                continue
            for m in masks:
                if m & mask == m:
                    left[piece] -= 1
                    out.append((piece, m))
                    if go(mask ^ m):
                        return True
                    out.pop()
                    left[piece] += 1
        return False

    return out if go(empty) else None


def can_tile(cat: Catalogue, empty: Mask25, counts: Sequence[int]) -> bool:
    """Return whether ``empty`` can be tiled exactly using at most ``counts[i]`` of piece i."""
    return plan(cat, empty, counts) is not None
