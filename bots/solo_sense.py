"""Solo: what the mastermind takes next, and what the player's takes do to it.

The mastermind is deterministic given the table (rulings, Solo variant): at the end of each player
turn it unlocks (if every column is locked, one piece from above each goes back), then takes the
most valuable puzzle in an unlocked column (tie: the lowest position), and in Finesse Solo also the
least valuable left in that column. So a player who knows the table knows its next take, and what
each of its own takes changes: a take from a column moves one lock piece from above it to the
mastermind's supply (which lands above the column it takes from next), and the card drawn into
the gap is unseen until then (valued here at the mean of the unseen cards of that colour). A blind
draw moves nothing. These are pure functions of the public table, through ``projectl_sim.solo``'s
own rules (``unlock``, ``mastermind_choice``, ``lock_to_opponent``, ...).
"""

from __future__ import annotations

from typing import Final

from projectl_sim.solo import (
    EMPTY,
    Solo,
    column,
    least_valuable_in_column,
    lock_to_opponent,
    mastermind_choice,
    mastermind_take,
    take_to_pile,
    unlock,
)

# a gap refilled by an unseen card: its position holds this marker, valued at ``unseen``
UNSEEN: Final = -2


def mastermind_points(
    solo: Solo, points: tuple[int, ...], unseen: float, second: bool, unlock_takes: bool = True
) -> float:
    """Return the points the mastermind takes at its next turn if the table stays ``solo``.

    ``second``: Finesse Solo (a second puzzle from the same column). ``unlock_takes``: after an
    unlock it takes in the same turn (the rulebook's order; False: the unlock is its whole turn).
    Positions marked ``UNSEEN`` hold a card not seen yet, worth ``unseen`` points.
    """
    table, returned = unlock(solo)
    if returned and not unlock_takes:
        return 0.0
    best, best_points = -1, -1.0
    for pos, card in enumerate(table.grid):
        if card == EMPTY or table.locks[column(pos)]:
            continue
        value = unseen if card == UNSEEN else float(points[card])
        if value > best_points:
            best, best_points = pos, value
    if best < 0:
        return 0.0
    if not second:
        return best_points
    # Finesse Solo: the least valuable puzzle left in the same column (none: nothing more)
    low = -1.0
    for pos in range(column(best), len(table.grid), 3):
        card = table.grid[pos]
        if pos == best or card == EMPTY:
            continue
        value = unseen if card == UNSEEN else float(points[card])
        if low < 0 or value < low:
            low = value
    return best_points + max(0.0, low)


def after_take(solo: Solo, pos: int) -> Solo:
    """Return the table after the player takes the puzzle at ``pos``: a lock piece of its column
    goes to the mastermind's supply, and the gap holds an unseen card (``UNSEEN``)."""
    table = lock_to_opponent(solo, column(pos))
    grid = list(table.grid)
    grid[pos] = UNSEEN
    return Solo(
        grid=tuple(grid),
        locks=table.locks,
        opponent_supply=table.opponent_supply,
        opponent_pile=table.opponent_pile,
        opponent_score=table.opponent_score,
    )


def play_mastermind(
    solo: Solo, points: tuple[int, ...], second: bool, unlock_takes: bool = True
) -> tuple[Solo, int]:
    """Return the table after the mastermind's turn on known cards, and the points it took (the
    gaps stay EMPTY: what refills them is not known)."""
    table, returned = unlock(solo)
    if returned and not unlock_takes:
        return table, 0
    pos = mastermind_choice(table, points)
    if pos is None:
        return table, 0
    before = table.opponent_score
    table = mastermind_take(table, pos, points)
    if second:
        low = least_valuable_in_column(table, column(pos), points)
        if low is not None:
            table = take_to_pile(table, low, points)
    return table, table.opponent_score - before
