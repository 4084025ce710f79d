"""Design the provisional expansion puzzle sets (Ghost Piece, Ambassador Pack, Phoenix), seeded.

Run: ``.venv/bin/python tools/design_expansions.py [--seed 2026] [--out projectl_sim/data]``.
The real puzzles of these expansions are not public (rulings: "Other expansions and variants"),
so the project ships stand-ins, every one marked provisional. The same seed writes the same
files; the tests rerun this script and compare.

How a puzzle is made:
- Its colour, points and kind of reward come from a fixed plan per set (below): Ghost Piece has
  12 white (4 x 0, 5 x 1, 3 x 2 points, as the base game's 11/13/8 of 32) with one ghost reward
  per points value, and 12 black (5 x 3, 4 x 4, 3 x 5, as 8/7/5 of 20) of which four give ↑, four
  ⇈ and four a piece; Ambassador Pack has 1 white (1 point) and 2 black (3 and 4 points) giving
  ``ambassador``; Phoenix has 7 black worth 6 points giving a ``mono`` or a ``domino``.
- A piece reward left open by the plan is drawn from the rewards of the base puzzles of the same
  colour and points.
- Its size follows the base game, where cells = offset(colour, points) + what the reward is
  worth: the offset is the median of (cells - reward level) over the base puzzles of that colour
  and points (white 0/1/2 points: 0/2/4; black 3/4/5: 6/10/15). A reward is worth its level for a
  piece (5 for a ghost), 1 for ↑ and 2 for ⇈ (the Upgrade actions they save), 3 for
  ``ambassador`` (about a Master action). Sizes stay within the base game's: at least the
  smallest base puzzle of that colour and points, at most 16 cells (the largest base puzzle).
  Phoenix puzzles take offset 16 (larger than every 5-point puzzle): 17 or 18 cells.
- Its recess grows from a random cell, one cell at a time, each new cell drawn from the cells
  beside the shape with weight 4 ** (its neighbours already in the shape - 1), so shapes come
  out compact, as printed ones are. A shape is redrawn if it has a hole, repeats a base or an
  earlier recess up to rotation and reflection (shapes of 5 cells or more), cannot be filled
  with the level 1-4 pieces, or (Ghost Piece black puzzles) admits no ghost piece. At least
  half of the Ghost Piece puzzles must admit a ghost; the script stops with an error if not.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path

from projectl_sim.catalogue import (
    AMBASSADOR,
    LEVEL_UP_1,
    LEVEL_UP_2,
    SIZE,
    Catalogue,
    Mask25,
    Piece,
    mask_cells,
    orientations,
    render_mask,
)
from projectl_sim.loading import PuzzleSet, base_catalogue, combine
from projectl_sim.tiling.fill import admits_ghost, can_tile

SEED = 2026
MAX_CELLS = 16  # the largest base puzzle
PHOENIX_OFFSET = 16
ATTEMPTS = 500  # shapes tried per puzzle before giving up
UNIQUE_FROM = 5  # smaller shapes may repeat (the base game repeats them too: two dominoes)

# The three ghost pieces (rulings: Ghost Piece, 10 each of the P, U and L pentominoes).
GHOSTS = {
    "pent_P": ((0, 0), (0, 1), (1, 0), (1, 1), (2, 0)),
    "pent_U": ((0, 0), (0, 2), (1, 0), (1, 1), (1, 2)),
    "pent_L": ((0, 0), (1, 0), (2, 0), (3, 0), (3, 1)),
}
GHOST_COPIES = 10
GHOST_HEX = {"pent_P": "#D8D8E8", "pent_U": "#E0E8E0", "pent_L": "#E8DCD8"}

PIECE = None  # in a plan: a piece reward drawn from the base puzzles of the same colour and points
# (id, colour, points, reward) per set
PLANS: dict[str, list[tuple[str, str, int, str | None]]] = {
    "ghost_piece": [
        ("GW01", "white", 0, "pent_U"),
        ("GW02", "white", 0, PIECE),
        ("GW03", "white", 0, PIECE),
        ("GW04", "white", 0, PIECE),
        ("GW05", "white", 1, "pent_P"),
        ("GW06", "white", 1, PIECE),
        ("GW07", "white", 1, PIECE),
        ("GW08", "white", 1, PIECE),
        ("GW09", "white", 1, PIECE),
        ("GW10", "white", 2, "pent_L"),
        ("GW11", "white", 2, PIECE),
        ("GW12", "white", 2, PIECE),
        ("GB01", "black", 3, LEVEL_UP_1),
        ("GB02", "black", 3, LEVEL_UP_2),
        ("GB03", "black", 3, PIECE),
        ("GB04", "black", 3, LEVEL_UP_1),
        ("GB05", "black", 3, PIECE),
        ("GB06", "black", 4, LEVEL_UP_2),
        ("GB07", "black", 4, LEVEL_UP_1),
        ("GB08", "black", 4, PIECE),
        ("GB09", "black", 4, LEVEL_UP_2),
        ("GB10", "black", 5, LEVEL_UP_1),
        ("GB11", "black", 5, LEVEL_UP_2),
        ("GB12", "black", 5, PIECE),
    ],
    "ambassador_pack": [
        ("AW01", "white", 1, AMBASSADOR),
        ("AB01", "black", 3, AMBASSADOR),
        ("AB02", "black", 4, AMBASSADOR),
    ],
    "phoenix": [
        ("PB01", "black", 6, "mono"),
        ("PB02", "black", 6, "domino"),
        ("PB03", "black", 6, "mono"),
        ("PB04", "black", 6, "mono"),
        ("PB05", "black", 6, "domino"),
        ("PB06", "black", 6, "mono"),
        ("PB07", "black", 6, "domino"),
    ],
}
TITLES = {
    "ghost_piece": "Ghost Piece expansion: the 3 ghost pieces and 24 provisional puzzles",
    "ambassador_pack": "Ambassador Pack: 3 provisional puzzles rewarding an Ambassador action",
    "phoenix": "Phoenix: 7 provisional black puzzles worth 6 points",
}
REWARD_VALUE = {LEVEL_UP_1: 1, LEVEL_UP_2: 2, AMBASSADOR: 3}


def ghost_pieces() -> tuple[Piece, ...]:
    """Return the three ghost pieces."""
    return tuple(
        Piece(pid, i, len(cells), cells, GHOST_COPIES, GHOST_HEX[pid])
        for i, (pid, cells) in enumerate(GHOSTS.items())
    )


def offsets(base: Catalogue) -> dict[tuple[str, int], tuple[int, int]]:
    """Return, per (colour, points), the median of cells minus reward level in the base game,
    and the fewest cells of a base puzzle of that colour and points."""
    level = {p.id: p.level for p in base.pieces}
    spans: dict[tuple[str, int], list[int]] = {}
    for puzzle in base.puzzles:
        spans.setdefault((puzzle.colour, puzzle.points), []).append(
            puzzle.cells - level[puzzle.reward]
        )
    smallest: dict[tuple[str, int], int] = {}
    for puzzle in base.puzzles:
        key = (puzzle.colour, puzzle.points)
        smallest[key] = min(smallest.get(key, puzzle.cells), puzzle.cells)
    return {key: (round(statistics.median(v)), smallest[key]) for key, v in spans.items()}


def target_cells(
    cat: Catalogue,
    offset: dict[tuple[str, int], tuple[int, int]],
    colour: str,
    points: int,
    reward: str,
) -> int:
    """Return the size of a puzzle: its points' offset plus what its reward is worth."""
    worth = REWARD_VALUE.get(reward) or cat.pieces[cat.piece_index(reward)].level
    if (colour, points) not in offset:
        return PHOENIX_OFFSET + worth
    median, smallest = offset[colour, points]
    return min(MAX_CELLS, max(smallest, median + worth))


def _neighbours(cell: int) -> list[int]:
    r, c = divmod(cell, SIZE)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE:
            out.append((r + dr) * SIZE + c + dc)
    return out


def grow(rng: random.Random, cells: int) -> Mask25:
    """Return a compact connected shape of ``cells`` cells grown from a random cell."""
    shape = {rng.randrange(SIZE * SIZE)}
    while len(shape) < cells:
        frontier = sorted({n for cell in shape for n in _neighbours(cell)} - shape)
        weights = [4 ** (sum(n in shape for n in _neighbours(c)) - 1) for c in frontier]
        shape.add(rng.choices(frontier, weights)[0])
    return sum(1 << cell for cell in shape)


def has_hole(mask: Mask25) -> bool:
    """Return whether some cell outside the shape is enclosed by it (cut off from the border)."""
    outside = [c for c in range(SIZE * SIZE) if not mask >> c & 1]
    reached = {c for c in outside if c // SIZE in (0, SIZE - 1) or c % SIZE in (0, SIZE - 1)}
    todo = list(reached)
    while todo:
        for n in _neighbours(todo.pop()):
            if not mask >> n & 1 and n not in reached:
                reached.add(n)
                todo.append(n)
    return len(reached) < len(outside)


def shape_key(mask: Mask25) -> tuple[tuple[int, int], ...]:
    """Return a key equal for shapes that match up to translation, rotation and reflection."""
    return min(orientations(mask_cells(mask)))


def design(seed: int) -> dict[str, dict]:
    """Return the JSON form of every provisional set, designed with ``random.Random(seed)``."""
    rng = random.Random(seed)
    base = base_catalogue()
    ghosts = ghost_pieces()
    # A catalogue with the ghost pieces, to ask fillability questions with and without them.
    probe = combine(base, [PuzzleSet("ghost_piece", ghosts, ())], check_fillable=False)
    copies = tuple(p.copies for p in probe.pieces)
    levels_1_4 = probe.without_ghosts(copies)
    offset = offsets(base)
    base_rewards: dict[tuple[str, int], list[str]] = {}
    for puzzle in base.puzzles:
        base_rewards.setdefault((puzzle.colour, puzzle.points), []).append(puzzle.reward)
    used = {shape_key(p.recess) for p in base.puzzles}
    out: dict[str, dict] = {}
    for name, plan in PLANS.items():
        puzzles = []
        ghost_admitted = 0
        for pid, colour, points, planned in plan:
            reward = planned or rng.choice(base_rewards[colour, points])
            cells = target_cells(probe, offset, colour, points, reward)
            need_ghost = name == "ghost_piece" and colour == "black"
            for _ in range(ATTEMPTS):
                recess = grow(rng, cells)
                if has_hole(recess) or (cells >= UNIQUE_FROM and shape_key(recess) in used):
                    continue
                if not can_tile(probe, recess, levels_1_4):
                    continue
                if need_ghost and not admits_ghost(probe, recess):
                    continue
                break
            else:
                raise SystemExit(f"{pid}: no shape found in {ATTEMPTS} attempts")
            used.add(shape_key(recess))
            ghost_admitted += admits_ghost(probe, recess)
            puzzles.append(
                {
                    "id": pid,
                    "colour": colour,
                    "points": points,
                    "reward": reward,
                    "rows": render_mask(recess),
                    "provisional": True,
                }
            )
        if name == "ghost_piece" and 2 * ghost_admitted < len(plan):
            raise SystemExit(f"only {ghost_admitted} of {len(plan)} puzzles admit a ghost piece")
        out[name] = _document(name, seed, ghosts if name == "ghost_piece" else (), puzzles)
    return out


def _document(name: str, seed: int, pieces: tuple[Piece, ...], puzzles: list[dict]) -> dict:
    return {
        "format": "projectl-catalogue/1",
        "expansion": name,
        "title": TITLES[name],
        "provisional": True,
        "design": (
            "Provisional: the real puzzles are not public. Designed by "
            f"tools/design_expansions.py --seed {seed} (see its docstring): colours, points and "
            "kinds of reward from a fixed plan in the base game's proportions; piece rewards "
            "drawn from the base puzzles of the same colour and points; size = the base game's "
            "median cells-minus-reward-level for those points plus what the reward is worth "
            "(piece level, ghost 5, level_up_1 1, level_up_2 2, ambassador 3; Phoenix 16 + "
            "reward level), within the base sizes for those points; compact random shapes "
            "without holes, unlike every base and earlier recess from 5 cells up, each fillable "
            "with level 1-4 pieces. Replace it with the real puzzles through a file of the "
            f"same format: --expansions {name}=FILE."
        ),
        "conventions": {
            "rows": "5 strings, top row first; '#' = recessed cell to fill, '.' = not part of it",
            "reward": "a piece id, or level_up_1 (↑), level_up_2 (⇈) or ambassador",
        },
        "pieces": {
            p.id: {
                "level": p.level,
                "cells": [list(cell) for cell in p.cells],
                "orientations": len(orientations(p.cells)),
                "printed_colour": "translucent",
                "hex": p.colour,
                "copies": p.copies,
            }
            for p in pieces
        },
        "puzzles": puzzles,
    }


def main() -> None:
    """Write the provisional expansion sets as JSON files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, default=Path("projectl_sim/data"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, doc in design(args.seed).items():
        path = args.out / f"{name}.json"
        path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(path)


if __name__ == "__main__":
    main()
