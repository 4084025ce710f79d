"""Text drawings of a game state: the table, each player's puzzles as 5x5 grids, supplies, scores.

The base game's rows are drawn here; a variant draws its own table (``table_lines``: the solo
grid, locks and mastermind; Line Clear's four rows and markers) and each expansion in play adds
its part of a player's line (``player_text``) and its own lines (``render_lines``).
"""

from __future__ import annotations

from projectl_sim.catalogue import SIZE
from projectl_sim.engine.actions import BLACK, WHITE
from projectl_sim.engine.state import OVER, GameState

# One letter per piece in the drawings (mono, domino, tri_I, tri_L, tet_I, tet_O, tet_T, ...).
_LETTERS = "mdilIOTLSpuvwxyz"


def piece_letter(index: int) -> str:
    """Return the letter drawing piece ``index`` in a grid."""
    return _LETTERS[index] if index < len(_LETTERS) else "?"


def draw_puzzle(state: GameState, card: int, placed: tuple[tuple[int, int], ...] = ()) -> list[str]:
    """Return 5 lines: '.' an empty recess cell, a piece letter a filled one, ' ' outside."""
    recess = state.tables.recess[card]
    owner = {}
    for piece, mask in placed:
        for i in range(SIZE * SIZE):
            if mask >> i & 1:
                owner[i] = piece_letter(piece)
    lines = []
    for r in range(SIZE):
        line = ""
        for c in range(SIZE):
            i = r * SIZE + c
            line += owner.get(i, "." if recess >> i & 1 else " ")
        lines.append(line)
    return lines


def side_by_side(blocks: list[tuple[str, list[str]]]) -> list[str]:
    """Return titled 5-line drawings next to each other ("(none)" for no drawing)."""
    if not blocks:
        return ["  (none)"]
    width = max(9, *(len(title) for title, _ in blocks))
    out = ["  " + "  ".join(title.ljust(width) for title, _ in blocks)]
    for r in range(SIZE):
        out.append("  " + "  ".join(body[r].ljust(width) for _, body in blocks))
    return out


def row_lines(state: GameState) -> list[str]:
    """Return the base game's white and black rows with the cards left in each deck."""
    cat = state.rules.catalogue
    t = state.tables
    lines = []
    for colour, name in ((WHITE, "white"), (BLACK, "black")):
        row = [
            (f"{cat.puzzles[c].id} {t.points[c]}p", draw_puzzle(state, c))
            for c in state.rows[colour]
        ]
        lines.append(f"{name} row ({len(state.decks[colour])} in deck):")
        lines.extend(side_by_side(row))
    return lines


def render(state: GameState) -> str:
    """Return a text drawing of the whole state."""
    cat = state.rules.catalogue
    t = state.tables
    hooks = state.hooks
    lines = [
        f"round {state.round}, phase {state.phase}"
        + (
            f" (ended: {state.end_reason})"
            if state.phase == OVER
            else f", player {state.current} to move"
        )
    ]
    table = state.table_lines()
    lines.extend(row_lines(state) if table is None else table)
    final = state.final_scores() if state.phase == OVER else None
    for p in range(state.n):
        supply = ", ".join(
            f"{cat.pieces[i].id}({piece_letter(i)})x{c}" for i, c in enumerate(state.supply[p]) if c
        )
        score = f"score {final[p]}" if final else f"pile {state.scores[p]}"
        extra = "".join(x.player_text(state, p) for x in hooks.player_text)
        lines.append(
            f"player {p}: {score}, completed {state.completed_count(p)} "
            f"[{' '.join(cat.puzzles[c].id for c in state.piles[p])}]{extra}, "
            f"supply: {supply or 'empty'}"
        )
        blocks = [
            (f"{cat.puzzles[card].id} {t.points[card]}p", draw_puzzle(state, card, placed))
            for card, _, placed in state.slots[p]
        ]
        lines.extend(side_by_side(blocks))
    reserve = ", ".join(f"{cat.pieces[i].id}x{c}" for i, c in enumerate(state.reserve))
    lines.append(f"reserve: {reserve}")
    for x in hooks.render_lines:
        lines.extend(x.render_lines(state))
    if state.phase == OVER:
        winners = state.winners()
        lines.append(f"winners: {', '.join(map(str, winners)) or 'the opponent'}")
    return "\n".join(lines)
