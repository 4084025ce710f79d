"""Solo: what the mastermind takes next, and what the player's takes do to it.

The mastermind is deterministic given the table (rulings, Solo variant): at the end of each player
turn it unlocks (if every column is locked, one piece from above each goes back), then takes the
most valuable puzzle in an unlocked column (tie: the lowest position), and in Finesse Solo also the
least valuable left in that column. So a player who knows the table knows its next take, and what
each of its own takes changes: a take from a column moves one lock piece from above it to the
mastermind's supply (which lands above the column it takes from next), and the card drawn into
the gap is unseen until then (valued here at the mean of the unseen cards of that colour). A blind
draw moves nothing. These are pure functions of the public table, through
``projectl_sim.variants.solo``'s own rules (``unlock``, ``mastermind_choice``,
``lock_to_opponent``, ...).
"""

from __future__ import annotations

from typing import Final

from projectl_sim.variants.solo import (
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


def mastermind_forecast(
    solo: Solo,
    points: tuple[int, ...],
    unseen: float,
    turns: int,
    second: bool,
    unlock_takes: bool = True,
    deck: int = 99,
) -> float:
    """Return the points the mastermind takes over its next ``turns`` turns if the player takes
    nothing more: each take's gap is refilled by an unseen card (worth ``unseen``) while the deck
    (``deck`` cards) lasts. Lock pieces are counted, not named (which piece moves never matters
    to what is locked). Positions marked ``UNSEEN`` hold an unseen card already.
    """
    values = [
        -1.0 if card == EMPTY else unseen if card == UNSEEN else float(points[card])
        for card in solo.grid
    ]
    locks = [len(col) for col in solo.locks]
    supply = len(solo.opponent_supply)
    total = 0.0
    for _ in range(turns):
        if locks[0] and locks[1] and locks[2]:
            locks = [k - 1 for k in locks]  # rulings: one piece from above each column returns
            if not unlock_takes:
                continue
        best, best_value = -1, -1.0
        for pos in range(9):
            if values[pos] >= 0 and not locks[pos % 3] and values[pos] > best_value:
                best, best_value = pos, values[pos]
        if best < 0:
            continue
        col = best % 3
        total += best_value
        gaps = [best]
        if second:
            low = -1
            for pos in range(col, 9, 3):
                if pos != best and values[pos] >= 0 and (low < 0 or values[pos] < values[low]):
                    low = pos
            if low >= 0:
                total += values[low]
                gaps.append(low)
        moved = 0
        for other in range(3):
            if other != col and locks[other]:
                locks[other] -= 1
                moved += 1
        locks[col] += supply + moved
        supply = 0
        for gap in gaps:
            values[gap] = unseen if deck > 0 else -1.0
            deck -= 1
    return total
