"""Helpers shared by the fillability tests."""

from __future__ import annotations

from collections import Counter

from projectl_sim.catalogue import Catalogue


def supply(cat: Catalogue) -> tuple[int, ...]:
    return tuple(p.copies for p in cat.pieces)


def assert_tiling(cat: Catalogue, empty: int, placements, counts) -> None:
    """Check cell by cell that ``placements`` cover ``empty`` exactly, within ``counts``."""
    covered = [0] * 25
    used = Counter()
    for piece, mask in placements:
        assert mask in cat.placements[piece], f"{mask} is not a placement of piece {piece}"
        used[piece] += 1
        for cell in range(25):
            if mask >> cell & 1:
                covered[cell] += 1
    for cell in range(25):
        assert covered[cell] == (empty >> cell & 1), (
            f"cell {divmod(cell, 5)} covered {covered[cell]}x"
        )
    for piece, n in used.items():
        assert n <= counts[piece]
