"""The solo variant's table: the 3x3 grid, the locks and the mastermind opponent.

Rulings, Solo variant (document 000). This module holds the variant's data and its pure rules;
the engine calls them from a few named hooks (dealing, the player's take from the grid, the
mastermind's turn after each player turn) and keeps everything else of the base game.

The single puzzle deck is 15 white puzzles on top of 10 black ones. The engine keeps it as its
white and black decks, drawn white first: a seat's view hides both as usual, and re-dealing them
keeps whites among whites and blacks among blacks, and how many of each remain.

Grid positions are 1..9 row by row; in code a position is its index 0..8, and its column is
``index % 3``. Lock pieces above a column are a tuple in the order they were put there: when one
piece moves (to the opponent's supply, to another column, or back to the reserve) it is the last
one, the top of the pile. With level-1 pieces (the default) which one moves makes no difference.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from projectl_sim.catalogue import Catalogue
from projectl_sim.errors import RecordError
from projectl_sim.rules import GRID_COLUMNS, GRID_SIZE, SOLO_LOCKS, STARTING_SUPPLY, Rules

EMPTY = -1  # a grid position whose puzzle was taken and not replaced (the deck was empty)

Locks = tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Solo:
    """The grid, the locks and the opponent: immutable, so a state's copies share it."""

    grid: tuple[int, ...]  # GRID_SIZE cards by position (row by row), EMPTY where taken
    locks: Locks  # per column, the piece indices above it, last = top
    opponent_supply: tuple[int, ...]  # piece indices, in the order received
    opponent_pile: tuple[int, ...] = ()  # the cards the opponent took, in order
    opponent_score: int = 0

    def locked(self, column: int) -> bool:
        """Return whether a column is locked (at least one piece above it)."""
        return bool(self.locks[column])


def column(position: int) -> int:
    """Return the column (0-2) of a grid position index (0-8)."""
    return position % GRID_COLUMNS


# -- setup -----------------------------------------------------------------------------------------
def deal_solo(rules: Rules, rng: random.Random) -> dict[str, Any]:
    """Deal a solo setup: the deck (whites on top of blacks), the locks, the opponent's supply."""
    cat = rules.catalogue
    white = rng.sample([cat.puzzles[c].id for c in cat.of_colour("white")], rules.white_deck_size)
    black = rng.sample([cat.puzzles[c].id for c in cat.of_colour("black")], rules.black_deck_size)
    wanted = sum(SOLO_LOCKS) + rules.opponent_supply_size
    if rules.solo_opponent_pieces == "mono":
        pieces = ["mono"] * wanted  # rulings: level-1 pieces, as document 000 says
    else:
        # switch "random" (rulebook 2.5): random pieces of any shape, drawn from the reserve as
        # it is after the player's starting supply; Ghost Piece: never a ghost (they come only as
        # rewards, ghost.py judgement call 8)
        pool = [
            p.id
            for p in cat.pieces
            if not p.is_ghost
            for _ in range(p.copies - STARTING_SUPPLY.count(p.id))
        ]
        pieces = rng.sample(pool, wanted)
    locks, start = [], 0
    for size in SOLO_LOCKS:
        locks.append(pieces[start : start + size])
        start += size
    return {
        "first_player": 0,
        "deck": white + black,
        "locks": locks,
        "opponent_supply": pieces[start:],
    }


def _piece_list(cat: Catalogue, value: Any, key: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise RecordError(f"setup.{key} must be a list of piece ids")
    out = []
    for pid in value:
        try:
            out.append(cat.piece_index(pid))
        except (KeyError, TypeError):
            raise RecordError(f"setup.{key}: unknown piece {pid!r}") from None
    return tuple(out)


def parse_solo_setup(
    setup: dict[str, Any], rules: Rules
) -> tuple[tuple[int, ...], list[int], list[int], Locks, tuple[int, ...]]:
    """Return ``(grid, white deck, black deck, locks, opponent supply)`` of a solo setup.

    ``deck`` lists every card top first; the grid takes the first 9 (positions 1-9), and the
    rest must be white puzzles on top of black ones (the solo deck's structure). The locks and
    the opponent's supply may be any pieces the reserve holds (a record may use a non-standard
    setup, like the base game's decks); dealing from a seed follows the rulings.
    """
    cat = rules.catalogue
    first = setup.get("first_player", 0)
    if first != 0 or isinstance(first, bool):
        raise RecordError(f"setup.first_player must be 0 in the solo variant, got {first!r}")
    ids = setup.get("deck")
    if not isinstance(ids, list):
        raise RecordError("setup.deck must be a list of puzzle ids (the solo variant's one deck)")
    deck: list[int] = []
    for pid in ids:
        try:
            card = cat.puzzle_index(pid)
        except (KeyError, TypeError):
            raise RecordError(f"setup.deck: unknown puzzle {pid!r}") from None
        if card in deck:
            raise RecordError(f"setup.deck: {pid} appears twice")
        deck.append(card)
    grid = tuple(deck[:GRID_SIZE]) + (EMPTY,) * max(0, GRID_SIZE - len(deck))
    rest = deck[GRID_SIZE:]
    white = [c for c in rest if not cat.puzzles[c].is_black]
    black = [c for c in rest if cat.puzzles[c].is_black]
    if rest != white + black:
        under = next(c for c in rest[rest.index(black[0]) :] if not cat.puzzles[c].is_black)
        raise RecordError(
            "setup.deck: below the grid the solo deck is white puzzles on top of black ones; "
            f"{cat.puzzles[under].id} lies under a black puzzle"
        )
    raw_locks = setup.get("locks")
    if not isinstance(raw_locks, list) or len(raw_locks) != GRID_COLUMNS:
        raise RecordError(f"setup.locks must be a list of {GRID_COLUMNS} lists of piece ids")
    locks = tuple(_piece_list(cat, col, "locks") for col in raw_locks)
    supply = _piece_list(cat, setup.get("opponent_supply"), "opponent_supply")
    return grid, white, black, locks, supply


def setup_json(solo: Solo, white: tuple[int, ...], black: tuple[int, ...], cat: Catalogue) -> dict:
    """Return the record setup of a solo game that has not moved yet."""
    pz, pc = cat.puzzles, cat.pieces
    return {
        "first_player": 0,
        "deck": [pz[c].id for c in solo.grid + white + black if c != EMPTY],
        "locks": [[pc[p].id for p in col] for col in solo.locks],
        "opponent_supply": [pc[p].id for p in solo.opponent_supply],
    }


# -- the player's take -----------------------------------------------------------------------------
def lock_to_opponent(solo: Solo, col: int) -> Solo:
    """Return the table after the player took from column ``col``.

    Rulings: one piece from above that column moves to the opponent's supply (none if no piece
    is there). A blind draw from the deck moves nothing (the engine doesn't call this).
    """
    above = solo.locks[col]
    if not above:
        return solo
    locks = list(solo.locks)
    locks[col] = above[:-1]
    return replace(solo, locks=tuple(locks), opponent_supply=(*solo.opponent_supply, above[-1]))


# -- the mastermind's turn -------------------------------------------------------------------------
def unlock(solo: Solo) -> tuple[Solo, tuple[int, ...]]:
    """If every column is locked, return one piece from above each: ``(table, returned)``.

    Rulings: the returned pieces go back to the reserve (the engine adds them there).
    """
    if not all(solo.locks):
        return solo, ()
    returned = tuple(col[-1] for col in solo.locks)
    return replace(solo, locks=tuple(col[:-1] for col in solo.locks)), returned


def mastermind_choice(solo: Solo, points: tuple[int, ...]) -> int | None:
    """Return the position the opponent takes, or None when nothing is open to it.

    Rulings: the highest-value puzzle in an unlocked column; a tie goes to the lowest position.
    An unlocked column without puzzles (the deck ran out) offers nothing.
    """
    best, best_points = None, -1
    for pos, card in enumerate(solo.grid):
        if card != EMPTY and not solo.locks[column(pos)] and points[card] > best_points:
            best, best_points = pos, points[card]
    return best


def mastermind_take(solo: Solo, pos: int, points: tuple[int, ...]) -> Solo:
    """Return the table after the opponent took the puzzle at ``pos`` (its gap left EMPTY).

    Rulings: the card goes straight to its pile; all of its supply goes above that column, then
    one piece from above each other column (left to right) moves there too. The engine refills
    the gap from the deck.
    """
    card = solo.grid[pos]
    col = column(pos)
    locks = list(solo.locks)
    target = locks[col] + solo.opponent_supply
    for other in range(GRID_COLUMNS):
        if other != col and locks[other]:
            target += (locks[other][-1],)
            locks[other] = locks[other][:-1]
    locks[col] = target
    grid = list(solo.grid)
    grid[pos] = EMPTY
    return Solo(
        grid=tuple(grid),
        locks=tuple(locks),
        opponent_supply=(),
        opponent_pile=(*solo.opponent_pile, card),
        opponent_score=solo.opponent_score + points[card],
    )


def fill_gap(solo: Solo, pos: int, card: int | None) -> Solo:
    """Return the table with ``card`` dealt to ``pos`` (the gap stays EMPTY for None)."""
    grid = list(solo.grid)
    grid[pos] = EMPTY if card is None else card
    return replace(solo, grid=tuple(grid))


# -- Finesse Solo ----------------------------------------------------------------------------------
def least_valuable_in_column(solo: Solo, col: int, points: tuple[int, ...]) -> int | None:
    """Return the position of the least valuable puzzle left in a column (None: none left).

    Rulings, Finesse Solo: the mastermind's second puzzle; a tie goes to the one nearest the top
    (the lowest position).
    """
    best, best_points = None, 0
    for pos in range(col, GRID_SIZE, GRID_COLUMNS):
        card = solo.grid[pos]
        if card != EMPTY and (best is None or points[card] < best_points):
            best, best_points = pos, points[card]
    return best


def take_to_pile(solo: Solo, pos: int, points: tuple[int, ...]) -> Solo:
    """Return the table after the opponent took the puzzle at ``pos`` without moving locks.

    Rulings, Finesse Solo: the second puzzle of the turn. The locks moved once, for the turn's
    first take (a decision: the rulings are silent on whether they move again).
    """
    card = solo.grid[pos]
    grid = list(solo.grid)
    grid[pos] = EMPTY
    return replace(
        solo,
        grid=tuple(grid),
        opponent_pile=(*solo.opponent_pile, card),
        opponent_score=solo.opponent_score + points[card],
    )
