"""Text drawings of a game state: rows (solo: the grid, locks and opponent; Line Clear: the four
rows and the markers), each player's puzzles as 5x5 grids, supplies, scores."""

from __future__ import annotations

from projectl_sim.actions import BLACK, WHITE
from projectl_sim.catalogue import SIZE
from projectl_sim.engine import OVER, GameState
from projectl_sim.line_clear import MARKER_NAMES, SIDES, actions_left, sides
from projectl_sim.rules import GRID_COLUMNS
from projectl_sim.solo import EMPTY

# One letter per piece in the drawings (mono, domino, tri_I, tri_L, tet_I, tet_O, tet_T, ...).
_LETTERS = "mdilIOTLSpuvwxyz"


def piece_letter(index: int) -> str:
    """Return the letter drawing piece ``index`` in a grid."""
    return _LETTERS[index] if index < len(_LETTERS) else "?"


def draw_puzzle(state: GameState, card: int, placed: tuple[tuple[int, int], ...] = ()) -> list[str]:
    """Return 5 lines: '.' an empty recess cell, a piece letter a filled one, ' ' outside."""
    recess = state.t.recess[card]
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


def _side_by_side(blocks: list[tuple[str, list[str]]]) -> list[str]:
    if not blocks:
        return ["  (none)"]
    width = max(9, *(len(title) for title, _ in blocks))
    out = ["  " + "  ".join(title.ljust(width) for title, _ in blocks)]
    for r in range(SIZE):
        out.append("  " + "  ".join(body[r].ljust(width) for _, body in blocks))
    return out


def render(state: GameState) -> str:
    """Return a text drawing of the whole state."""
    cat = state.rules.catalogue
    t = state.t
    lines = [
        f"round {state.round}, phase {state.phase}"
        + (
            f" (ended: {state.end_reason})"
            if state.phase == OVER
            else f", player {state.current} to move"
        )
    ]
    if state.solo is not None:
        lines.extend(_solo_lines(state))
    rows = [("", state.rows)]
    if state.line_clear is not None:
        lines.append(_markers_line(state))
        left, right = sides(state)
        rows = [("left ", left), ("right ", right)]
    for side, side_rows in rows:
        for colour, name in ((WHITE, "white"), (BLACK, "black")):
            if state.solo is not None:
                break
            row = [
                (f"{cat.puzzles[c].id} {t.points[c]}p", draw_puzzle(state, c))
                for c in side_rows[colour]
            ]
            lines.append(f"{side}{name} row ({len(state.decks[colour])} in deck):")
            lines.extend(_side_by_side(row))
    final = state.final_scores() if state.phase == OVER else None
    for p in range(state.n):
        supply = ", ".join(
            f"{cat.pieces[i].id}({piece_letter(i)})x{c}" for i, c in enumerate(state.supply[p]) if c
        )
        score = f"score {final[p]}" if final else f"pile {state.scores[p]}"
        extra = ""
        if state.endless is not None:  # Endless: completed white puzzles shuffled back
            noted = " ".join("?" if c < 0 else cat.puzzles[c].id for c in state.endless.noted[p])
            extra += f", noted [{noted}]"
        if state.ambassadors is not None:
            extra += f", Ambassadors {state.ambassadors.held[p]}"
        lines.append(
            f"player {p}: {score}, completed {state.completed_count(p)} "
            f"[{' '.join(cat.puzzles[c].id for c in state.piles[p])}]{extra}, "
            f"supply: {supply or 'empty'}"
        )
        blocks = [
            (f"{cat.puzzles[card].id} {t.points[card]}p", draw_puzzle(state, card, placed))
            for card, _, placed in state.slots[p]
        ]
        lines.extend(_side_by_side(blocks))
    reserve = ", ".join(f"{cat.pieces[i].id}x{c}" for i, c in enumerate(state.reserve))
    lines.append(f"reserve: {reserve}")
    if state.finesse is not None:
        lines.extend(_finesse_lines(state))
    if state.phase == OVER:
        winners = state.winners()
        lines.append(f"winners: {', '.join(map(str, winners)) or 'the opponent'}")
    return "\n".join(lines)


def _markers_line(state: GameState) -> str:
    """Return who holds the markers (Line Clear), their actions left and the next passes."""
    lc = state.line_clear
    assert lc is not None
    held = [
        f"{name} player {lc.holder(h)} ({SIDES[h]} rows, "
        f"{actions_left(state, lc.holder(h))} actions left)"
        for h, name in enumerate(MARKER_NAMES)
    ]
    line = "markers: " + ", ".join(held)
    if state.trigger_round:
        got = [MARKER_NAMES[h] for h in (0, 1) if lc.received >> h & 1]
        line += f"; end triggered, the first player has received: {', '.join(got) or 'none'}"
    return line


def _solo_lines(state: GameState) -> list[str]:
    """Return the solo table: each grid row under its columns' locks, then the opponent."""
    solo = state.solo
    assert solo is not None
    cat = state.rules.catalogue
    t = state.t
    deck = len(state.decks[WHITE]) + len(state.decks[BLACK])
    lines = [f"grid ({deck} in deck: {len(state.decks[WHITE])} white on top, "
             f"{len(state.decks[BLACK])} black)"]  # fmt: skip
    locks = [" ".join(cat.pieces[p].id for p in col) or "-" for col in solo.locks]
    lines.append(
        "  locks: " + " | ".join(f"column {c + 1}: {locks[c]}" for c in range(GRID_COLUMNS))
    )
    for r in range(GRID_COLUMNS):
        blocks = []
        for c in range(GRID_COLUMNS):
            pos = r * GRID_COLUMNS + c
            card = solo.grid[pos]
            if card == EMPTY:
                blocks.append((f"{pos + 1}: empty", [""] * 5))
            else:
                blocks.append(
                    (
                        f"{pos + 1}: {cat.puzzles[card].id} {t.points[card]}p",
                        draw_puzzle(state, card),
                    )
                )
        lines.extend(_side_by_side(blocks))
    supply = " ".join(cat.pieces[p].id for p in solo.opponent_supply) or "empty"
    pile = " ".join(cat.puzzles[c].id for c in solo.opponent_pile)
    lines.append(
        f"opponent: score {solo.opponent_score}, completed {len(solo.opponent_pile)} [{pile}], "
        f"supply: {supply}"
    )
    return lines


def _finesse_lines(state: GameState) -> list[str]:
    """Return the Finesse row (the tile of this round marked) and everyone's Credits."""
    fin = state.finesse
    assert fin is not None
    tiles = [
        ("?" if tid is None else tid) + ("*" if r + 1 == state.round else "")
        for r, tid in enumerate(fin.row_ids())
    ]
    held = ", ".join(
        f"player {p} {fin.active[p]} active + {fin.inactive[p]} inactive" for p in range(state.n)
    )
    return [
        f"finesse tiles (* = this round's): {' '.join(tiles)}",
        f"credits: {held}; bank {fin.bank}",
    ]
