"""What a new puzzle costs: fillable or not, its tilings, its cheapest pieces, the actions to finish
it from the starting supply, and where it ranks among the printed puzzles of its colour.

The figures are the atlas's (``tiling.atlas``), for one new card on the catalogue's pieces:
tilings and piece multisets count against every copy of the pieces; the cost to complete is the
atlas's estimate of the actions one player needs to get a multiset's pieces from the starting
supply (one ``mono``, one ``domino``) and place them, alone, ignoring the three-action turn,
Master and rewards. *Points per action* is the card's points over that cost, the atlas's way of
ranking cards: the rank counts the printed puzzles of the same colour with more points per
action (a printed card of the same id, the one a redraw stands for, is left out and shown apart).
A 0-point card's value is its reward, which this measure does not see.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from projectl_sim.catalogue import Catalogue, render_mask
from projectl_sim.puzzles.drawings import DrawnPuzzle
from projectl_sim.tiling.atlas import acquire_actions, atlas_row, atlas_rows, multiset_text
from projectl_sim.tiling.fill import tiling_index

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# cheapest multisets a check lists
SHOWN_MULTISETS = 3


@dataclass(frozen=True)
class Multiset:
    """One multiset of pieces that fills the recess, and what it costs from the start."""

    counts: tuple[int, ...]
    text: str
    pieces: int
    acquire_actions: int | None  # None: it holds a ghost piece (never bought with actions)
    tilings: int

    @property
    def total_actions(self) -> int | None:
        return None if self.acquire_actions is None else self.acquire_actions + self.pieces


@dataclass(frozen=True)
class PuzzleCheck:
    """The cost of one new puzzle (``check_puzzle``)."""

    puzzle: DrawnPuzzle
    row: dict[str, Any]  # its atlas row
    cheapest: tuple[Multiset, ...]  # by actions to finish, then pieces
    plan: tuple[tuple[int, int], ...]  # (piece, mask) placements of the cheapest multiset
    rank: int | None  # 1 = the most points per action among the printed cards of its colour
    among: int
    points_per_action: float | None
    # the printed cards of its colour: (id, points per action), most first
    field_ppa: tuple[tuple[str, float], ...] = field(repr=False)
    printed_same_id: dict[str, Any] | None = field(default=None, repr=False)
    piece_ids: tuple[str, ...] = field(default=(), repr=False)
    piece_colours: tuple[str, ...] = field(default=(), repr=False)

    @property
    def fillable(self) -> bool:
        return bool(self.row["multisets"])

    def text(self) -> str:
        """Return the check as the terminal shows it."""
        p = self.puzzle
        r = self.row
        points = f"{p.points} point{'s' if p.points != 1 else ''}"
        lines = [f"{p.id}: {p.colour}, {points}, reward {p.reward}, {p.cells} cells"]
        lines += [f"  {row}" for row in render_mask(p.recess)]
        if not self.fillable:
            lines.append("NOT fillable with the catalogue's pieces (no tiling with every copy)")
            return "\n".join(lines)
        lines.append(
            f"fillable: {r['tilings']} tilings, {r['multisets']} piece multisets, "
            f"{r['min_pieces']} piece{'s' if r['min_pieces'] != 1 else ''} at least"
        )
        lines.append("cheapest multisets (actions to finish from one mono and one domino):")
        for m in self.cheapest:
            cost = "a ghost piece" if m.total_actions is None else f"{m.total_actions} actions"
            got = "" if m.acquire_actions is None else f" ({m.acquire_actions} to get the pieces"
            lines.append(
                f"  {m.text:<32} {m.pieces} pieces, {cost}{got}, {m.pieces} to place), "
                f"{m.tilings} tilings"
            )
        if r["total_actions"] is not None:
            lines.append(
                f"to finish alone from the starting supply: {r['total_actions']} actions "
                f"({r['acquire_actions']} to get the pieces, the rest to place them)"
            )
        if self.points_per_action is not None and self.among:
            values = [v for _, v in self.field_ppa]
            best, worst = self.field_ppa[0], self.field_ppa[-1]
            lines.append(
                f"points per action {self.points_per_action:.2f}: ranks {_ordinal(self.rank)} of "
                f"{self.among + 1} among the printed {p.colour} puzzles and it (best "
                f"{best[0]} {best[1]:.2f}, median {statistics.median(values):.2f}, worst "
                f"{worst[0]} {worst[1]:.2f})"
            )
        if self.printed_same_id is not None:
            old = self.printed_same_id
            ppa = old["points"] / old["total_actions"] if old["total_actions"] else float("nan")
            lines.append(
                f"the printed {old['id']}: {old['points']} points, reward {old['reward']}, "
                f"{old['total_actions']} actions, {ppa:.2f} points per action"
            )
        if p.points == 0:
            lines.append("a 0-point card is worth its reward, which points per action leaves out")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """Return the check as one JSON object (``puzzle check --json``)."""
        return {
            "id": self.puzzle.id,
            "colour": self.puzzle.colour,
            "points": self.puzzle.points,
            "reward": self.puzzle.reward,
            "rows": render_mask(self.puzzle.recess),
            "fillable": self.fillable,
            "tilings": self.row["tilings"],
            "multisets": self.row["multisets"],
            "min_pieces": self.row["min_pieces"],
            "cheapest": [
                {
                    "pieces": m.text,
                    "count": m.pieces,
                    "acquire_actions": m.acquire_actions,
                    "total_actions": m.total_actions,
                    "tilings": m.tilings,
                }
                for m in self.cheapest
            ],
            "acquire_actions": self.row["acquire_actions"],
            "total_actions": self.row["total_actions"],
            "points_per_action": self.points_per_action,
            "rank": self.rank,
            "of": self.among + (self.rank is not None),  # the printed cards ranked, and it
        }


def _ordinal(n: int | None) -> str:
    if n is None:
        return "-"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _ppa(row: dict[str, Any]) -> float | None:
    total = row["total_actions"]
    return None if not total else row["points"] / total


def check_puzzle(
    cat: Catalogue, new: DrawnPuzzle, printed: list[dict] | None = None
) -> PuzzleCheck:
    """Return what ``new`` costs on ``cat``'s pieces and where it ranks among ``cat``'s puzzles
    of its colour (``printed``: ``cat``'s atlas rows, when already worked out)."""
    card = new.as_puzzle(len(cat.puzzles))
    row = atlas_row(cat, card)
    index = tiling_index(cat)
    supply = tuple(p.copies for p in cat.pieces)
    ghosts = set(cat.ghost_pieces)
    per_vector = index.tiling_counts(new.recess)
    found = []
    for v in index.covered(new.recess, supply):
        counts = index.unpack(v)
        ghost = any(counts[g] for g in ghosts)
        acquire = None if ghost else acquire_actions(cat, counts)
        found.append(
            Multiset(counts, multiset_text(cat, counts), sum(counts), acquire, per_vector[v])
        )
    found.sort(key=lambda m: (m.total_actions is None, m.total_actions or 0, m.pieces, m.text))
    plan: tuple[tuple[int, int], ...] = ()
    if found:
        v = index.pack(found[0].counts)
        plan = tuple(index.plan_for(new.recess, v) or ())
    rows = printed if printed is not None else atlas_rows(cat)
    same = [r for r in rows if r["id"] == new.id]
    field_rows = [r for r in rows if r["colour"] == new.colour and r["id"] != new.id]
    scored = sorted(
        ((r["id"], v) for r in field_rows if (v := _ppa(r)) is not None), key=lambda x: -x[1]
    )
    mine = _ppa(row)
    rank = None if mine is None else 1 + sum(1 for _, v in scored if v > mine + 1e-12)
    return PuzzleCheck(
        new,
        row,
        tuple(found[:SHOWN_MULTISETS]),
        plan,
        rank,
        len(scored),
        mine,
        tuple(scored),
        same[0] if same else None,
        cat.piece_ids,
        tuple(p.colour for p in cat.pieces),
    )


def plot_check(check: PuzzleCheck, fig: Figure | None = None) -> Figure:
    """Draw the puzzle with its cheapest tiling beside the points per action of its colour."""
    from matplotlib.patches import Rectangle

    if fig is None:
        from projectl_sim.figures import new_figure

        fig = new_figure(9, 4.2)
    grid, chart = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.6]})
    p = check.puzzle
    # each placed piece in a colour of its own, outlined, so the tiling reads piece by piece
    owner: dict[int, int] = {}
    for k, (_piece, mask) in enumerate(check.plan):
        for cell in range(25):
            if mask >> cell & 1:
                owner[cell] = k
    palette = [f"C{k % 10}" for k in range(len(check.plan))]
    for cell in range(25):
        r, c = divmod(cell, 5)
        inside = p.recess >> cell & 1
        face = palette[owner[cell]] if cell in owner else ("#dddddd" if inside else "white")
        grid.add_patch(
            Rectangle(
                (c, 4 - r),
                1,
                1,
                facecolor=face,
                edgecolor="#eeeeee" if not inside else face,
                lw=0.5,
            )
        )
    edges = []
    for cell in range(25):
        if not p.recess >> cell & 1:
            continue
        r, c = divmod(cell, 5)
        x, y = c, 4 - r
        for dr, dc, seg in (
            (-1, 0, ((x, y + 1), (x + 1, y + 1))),
            (1, 0, ((x, y), (x + 1, y))),
            (0, -1, ((x, y), (x, y + 1))),
            (0, 1, ((x + 1, y), (x + 1, y + 1))),
        ):
            nr, nc = r + dr, c + dc
            other = nr * 5 + nc if 0 <= nr < 5 and 0 <= nc < 5 else None
            same = (
                other is not None and p.recess >> other & 1 and owner.get(other) == owner.get(cell)
            )
            if not same:
                edges.append(seg)
    from matplotlib.collections import LineCollection

    grid.add_collection(LineCollection(edges, colors="black", linewidths=1.6, capstyle="round"))
    for piece, mask in check.plan:
        cells = [i for i in range(25) if mask >> i & 1]
        r, c = divmod(cells[len(cells) // 2], 5)
        grid.text(
            c + 0.5, 4 - r + 0.5, check.piece_ids[piece], ha="center", va="center", fontsize=7
        )
    grid.set_xlim(-0.1, 5.1)
    grid.set_ylim(-0.1, 5.1)
    grid.set_aspect("equal")
    grid.set_axis_off()
    how = check.cheapest[0].text if check.cheapest else "not fillable"
    grid.set_title(f"{p.id} ({p.colour}): {p.points} pt, reward {p.reward}\n{how}", fontsize=9)
    names = [name for name, _ in check.field_ppa]
    values = [v for _, v in check.field_ppa]
    if check.points_per_action is not None:
        at = (check.rank or 1) - 1
        names.insert(at, p.id)
        values.insert(at, check.points_per_action)
    ys = list(range(len(names)))[::-1]
    colours = ["#d62728" if n == p.id else "#7f7f7f" for n in names]
    chart.barh(ys, values, color=colours)
    chart.set_yticks(ys, names, fontsize=6)
    chart.set_xlabel("points per action to finish from the starting supply (atlas)")
    rank = f"ranks {_ordinal(check.rank)} of {check.among + 1}" if check.rank else "unranked"
    chart.set_title(f"{p.id} among the printed {p.colour} puzzles: {rank}", fontsize=9)
    return fig


def write_check_png(check: PuzzleCheck, path: str | Path) -> Path:
    """Write ``plot_check``'s picture as a PNG file and return its path."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    path = Path(path)
    fig = plot_check(check)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=120)
    return path
