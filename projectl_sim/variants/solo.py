"""The solo variant: one player against the mastermind, a 3x3 grid, locks above its columns.

Rulings, Solo variant (document 000). ``SoloState`` is the base game's state with the table and
the turn order changed: the player takes from the grid (a lock piece of the column moves to the
mastermind's supply) or blind from the one deck, never Recycles, and after each of its turns the
engine plays the mastermind's turn by itself (it is not a seat and never asks a bot).

The single puzzle deck is 15 white puzzles on top of 10 black ones. The state keeps it as its
white and black decks, drawn white first: a seat's view hides both as usual, and re-dealing them
keeps whites among whites and blacks among blacks, and how many of each remain.

Grid positions are 1..9 row by row; in code a position is its index 0..8, and its column is
``index % 3``. Lock pieces above a column are a tuple in the order they were put there: when one
piece moves (to the opponent's supply, to another column, or back to the reserve) it is the last
one, the top of the pile. With level-1 pieces (the default) which one moves makes no difference.

Finesse Solo (rulings, Finesse Solo) changes the mastermind's turn: it takes two puzzles of one
column. That interaction is written here, in ``_mastermind_turn``, since it is the mastermind's
rule; the Finesse expansion itself removes its Recycle tiles in solo.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from projectl_sim.catalogue import Catalogue
from projectl_sim.engine.actions import BLACK, DECKS, PUZZLE, WHITE, Action, Recycle, Take, TakeDeck
from projectl_sim.engine.invariants import InvariantError
from projectl_sim.engine.render import draw_puzzle, side_by_side
from projectl_sim.engine.state import GameState
from projectl_sim.errors import IllegalActionError, RecordError
from projectl_sim.options import Option
from projectl_sim.registry import register_variant
from projectl_sim.rules import DIFFICULTIES, GRID_COLUMNS, GRID_SIZE, SOLO_LOCKS, Rules

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


class SoloState(GameState):
    """A solo game: the base game's state plus the mastermind's table ``solo`` (a ``Solo``)."""

    variant_name: ClassVar[str] = "solo"
    players: ClassVar[tuple[int, ...]] = (1,)
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "difficulty",
            "normal",
            "the mastermind starts with 6 (normal), 3 (hard) or 0 (unbeatable) pieces",
            choices=DIFFICULTIES,
        ),
        Option(
            "solo_opponent_pieces",
            "mono",
            "the locks and the opponent's supply are level-1 pieces (mono, document 000) or "
            "random pieces of any shape (random, rulebook 2.5)",
            choices=("mono", "random"),
        ),
        Option(
            "solo_unlock",
            "take",
            "after unlocking, the mastermind takes a puzzle in the same turn if it can (take, "
            "the rulebook's order) or unlocking is its whole turn (pass)",
            choices=("take", "pass"),
        ),
    )

    def _setup_table(self, setup: dict[str, Any]) -> None:
        """Deal the solo table: grid from the deck's top, locks and opponent from the reserve."""
        grid, white, black, locks, opponent = parse_solo_setup(setup, self.rules)
        cat = self.rules.catalogue
        for piece in [p for col in locks for p in col] + list(opponent):
            if self.reserve[piece] == 0:
                raise RecordError(
                    f"setup: the reserve has too few {cat.pieces[piece].id} pieces for the locks "
                    "and the opponent's supply"
                )
            self.reserve[piece] -= 1
        self.solo = Solo(grid, locks, opponent)
        # rulings, Finesse Solo: the mastermind takes two puzzles a turn
        self.two_takes = "finesse" in self.rules.expansions
        self.first_player = self.current = 0  # rulings, Solo: the player moves first
        on_grid = [c for c in grid if c != EMPTY]
        black_on_grid = sum(self.tables.is_black[c] for c in on_grid)
        self.cards_in_play = (
            len(on_grid) - black_on_grid + len(white),
            black_on_grid + len(black),
        )
        self.rows = [(), ()]
        self.decks = (tuple(white), tuple(black))  # one deck: drawn white first

    def copy(self) -> GameState:
        g = SoloState()
        self._copy_into(g)
        g.solo = self.solo  # immutable: shared
        g.two_takes = self.two_takes
        return g

    def shown_cards(self) -> list[int]:
        """The grid and the mastermind's pile are public."""
        return [*self.solo.grid, *self.solo.opponent_pile]

    # -- queries -------------------------------------------------------------------------------
    def opponent_score(self) -> int:
        """Return the solo opponent's score: the points of its pile."""
        return self.solo.opponent_score

    def winners(self) -> list[int]:
        """Return ``[0]`` when the player's score beats the opponent's, else ``[]`` (the opponent
        wins; rulings: a tie goes to the opponent)."""
        return [0] if self.final_scores()[0] > self.solo.opponent_score else []

    def take_actions(self) -> list[Action]:
        """Return the grid by position, then blind from the puzzle deck (no black limit)."""
        if not self.can_take():
            return []
        t = self.tables
        acts: list[Action] = [t.take_actions[c] for c in self.solo.grid if c != EMPTY]
        if self._deck_left():
            acts.append(TakeDeck(PUZZLE))
        return acts

    def cards_to_trigger(self) -> int:
        return len(self.decks[WHITE]) + len(self.decks[BLACK])

    def _deck_left(self) -> bool:
        """The puzzle deck (its white part on top of its black) ends the game when empty."""
        return bool(self.decks[WHITE] or self.decks[BLACK])

    def _has_take(self) -> bool:
        return self._deck_left() or any(c != EMPTY for c in self.solo.grid)

    def _pass_limit(self) -> int:
        # the mastermind plays on while the player passes, and the round cap still ends the game
        return self.rules.max_rounds + 1

    # -- checks ----------------------------------------------------------------------------------
    def _check_variant(self, player: int, action: Action) -> None:
        """Raise for what the solo variant forbids or reads differently (rulings, Solo)."""
        if isinstance(action, Take):
            if action.card < 0 or action.card not in self.solo.grid:
                raise IllegalActionError(
                    f"{self.tables.cat.puzzles[action.card].id} is not in the grid"
                )
        elif isinstance(action, TakeDeck):
            if action.colour != PUZZLE:
                raise IllegalActionError(
                    f"the solo variant has one deck: take from the puzzle deck, not the "
                    f"{DECKS[action.colour]} one"
                )
            if not self._deck_left():
                raise IllegalActionError("the puzzle deck is empty")
        elif isinstance(action, Recycle):
            raise IllegalActionError("no Recycle in the solo variant")

    def _check_take(self, card: int) -> None:
        """Checked by ``_check_variant`` (the grid, not a row)."""

    def _check_take_deck(self, colour: int) -> None:
        """Checked by ``_check_variant`` (the puzzle deck)."""

    # -- applying --------------------------------------------------------------------------------
    def draw_solo(self) -> int | None:
        """Draw the top card of the solo puzzle deck: its whites lie on top of its blacks."""
        return self.draw(WHITE if self.decks[WHITE] else BLACK)

    def _take(self, p: int, card: int) -> None:
        """Take a grid puzzle; a lock piece of its column goes to the opponent's supply.

        The gap refills from the deck at once, as a row does; with the deck empty it stays
        empty (a decision: the rulings are silent).
        """
        pos = self.solo.grid.index(card)
        solo = lock_to_opponent(self.solo, column(pos))
        self.solo = fill_gap(solo, pos, self.draw_solo())
        self.slots[p].append((card, 0, ()))

    def _take_deck(self, p: int, colour: int) -> None:
        # rulings, Solo: a blind draw from the deck moves no lock piece
        card = self.draw_solo()
        assert card is not None
        self.slots[p].append((card, 0, ()))

    def _after_turn(self) -> None:
        self._mastermind_turn()  # rulings, Solo: the opponent's turn follows the player's

    def _mastermind_turn(self) -> None:
        """Play the opponent's turn (rulings, Solo variant, "Opponent turn").

        If every column is locked, one piece from above each goes back to the reserve; then it
        takes the highest-value puzzle in an unlocked column (tie: lowest position) straight to
        its pile, or nothing when none is open. After a take its supply and one piece from above
        each other column go above the taken column, and the gap refills from the deck. With
        ``solo_unlock="pass"`` a turn that unlocks takes nothing (the switch's other reading).
        """
        points = self.tables.points
        solo, returned = unlock(self.solo)
        for piece in returned:
            self.reserve[piece] += 1
        if returned and self.rules.solo_unlock == "pass":
            self.solo = solo  # unlocking was the whole turn
            return
        pos = mastermind_choice(solo, points)
        if pos is not None:
            solo = mastermind_take(solo, pos, points)
            self.last_progress_round = self.round
            gaps = [pos]
            if self.two_takes:
                # rulings, Finesse Solo: a second puzzle, the least valuable of the same column
                # (tie: nearest the top); both gaps refill afterwards, the topmost first
                second = least_valuable_in_column(solo, column(pos), points)
                if second is not None:
                    solo = take_to_pile(solo, second, points)
                    gaps = sorted((pos, second))
            for gap in gaps:
                solo = fill_gap(solo, gap, self.draw_solo())
        self.solo = solo

    # -- setups and results --------------------------------------------------------------------
    @classmethod
    def deal_table(cls, rules: Rules, rng: random.Random) -> dict[str, Any]:
        return deal_solo(rules, rng)

    def table_json(self) -> dict[str, Any]:
        return setup_json(self.solo, self.decks[WHITE], self.decks[BLACK], self.rules.catalogue)

    def variant_result(self, result: dict[str, Any]) -> None:
        result["opponent"] = {
            "score": self.solo.opponent_score,
            "completed": len(self.solo.opponent_pile),
        }

    def variant_summary(self, out: dict[str, Any]) -> None:
        cat = self.rules.catalogue
        solo = self.solo
        out["opponent"] = {
            "score": solo.opponent_score,
            "completed": [cat.puzzles[c].id for c in solo.opponent_pile],
            "supply": [cat.pieces[p].id for p in solo.opponent_supply],
        }
        out["grid"] = [None if c < 0 else cat.puzzles[c].id for c in solo.grid]
        out["locks"] = [[cat.pieces[p].id for p in col] for col in solo.locks]

    def pieces_elsewhere(self) -> list[int]:
        return [p for col in self.solo.locks for p in col] + list(self.solo.opponent_supply)

    def check_variant_invariants(self) -> None:
        solo, t = self.solo, self.tables
        if len(solo.locks) != GRID_COLUMNS:
            raise InvariantError(f"{len(solo.locks)} columns of locks, not {GRID_COLUMNS}")
        if len(solo.grid) != GRID_SIZE:
            raise InvariantError(f"the grid has {len(solo.grid)} positions, not {GRID_SIZE}")
        if self.rows != [(), ()]:
            raise InvariantError("the solo variant has no rows")
        if EMPTY in solo.grid and any(self.decks):
            raise InvariantError("a grid gap is not refilled while the deck has cards")
        if solo.opponent_score != sum(t.points[c] for c in solo.opponent_pile):
            raise InvariantError(f"opponent score {solo.opponent_score} is not its pile's points")
        if self.first_player != 0 or self.current != 0:
            raise InvariantError("the solo player is seat 0")

    def table_lines(self) -> list[str] | None:
        """Return the grid, each row under its columns' locks, then the mastermind."""
        solo = self.solo
        cat = self.rules.catalogue
        t = self.tables
        white, black = len(self.decks[WHITE]), len(self.decks[BLACK])
        lines = [f"grid ({white + black} in deck: {white} white on top, {black} black)"]
        locks = [" ".join(cat.pieces[p].id for p in col) or "-" for col in solo.locks]
        lines.append(
            "  locks: " + " | ".join(f"column {c + 1}: {locks[c]}" for c in range(GRID_COLUMNS))
        )
        for r in range(GRID_COLUMNS):
            blocks: list[tuple[str, list[str]]] = []
            for c in range(GRID_COLUMNS):
                pos = r * GRID_COLUMNS + c
                card = solo.grid[pos]
                if card == EMPTY:
                    blocks.append((f"{pos + 1}: empty", [""] * 5))
                else:
                    title = f"{pos + 1}: {cat.puzzles[card].id} {t.points[card]}p"
                    blocks.append((title, draw_puzzle(self, card)))
            lines.extend(side_by_side(blocks))
        supply = " ".join(cat.pieces[p].id for p in solo.opponent_supply) or "empty"
        pile = " ".join(cat.puzzles[c].id for c in solo.opponent_pile)
        lines.append(
            f"opponent: score {solo.opponent_score}, completed {len(solo.opponent_pile)} "
            f"[{pile}], supply: {supply}"
        )
        return lines


register_variant()(SoloState)


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
        # it is after the player's starting supply; never a ghost piece (they come only as
        # rewards: rulings, Ghost Piece)
        pool = [
            p.id
            for p in cat.pieces
            if not p.reward_only
            for _ in range(p.copies - rules.starting_supply.count(p.id))
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


def setup_json(
    solo: Solo, white: tuple[int, ...], black: tuple[int, ...], cat: Catalogue
) -> dict[str, Any]:
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
