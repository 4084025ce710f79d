"""The Line Clear variant (5-6 players): four rows of 3, two markers, two turns at a time.

Rulings, Line Clear (document 000, "Line Clear Variant"). This module holds the variant's data
(the table block ``LineClear``) and its pure rules; the engine calls them from a few named hooks
(``GameState._lc_*``: dealing, whose action comes next, the end of a turn pair, the checks of
what only one marker holder may do) and keeps everything else of the base game.

The table: a white and a black row of 3 on the left, dealt first (the top 3 cards of each deck),
and a second white and black row of 3 on the right (the next 3 of each deck). Both sides draw from
the same two decks. The white marker starts with the first player, the black marker with the 3rd
player (5 players) or the 4th (6 players), counting the first player as the 1st.

A *turn pair*: the white-marker holder plays a 3-action turn on the left rows and the black-marker
holder one on the right rows, "at the same time". Only the white holder may take blind from a deck
or Recycle (a left row). After both turns each holder passes its marker clockwise (to the next
seat), so the two markers stay 2 (5 players) or 3 (6 players) seats apart and the first player
never receives both at once.

Simultaneity, resolved in a fixed order (switch ``line_clear_order``):

- ``interleave`` (default): the two holders' actions alternate one by one, the white holder first;
  when one has no actions left (or must pass: no legal action, rulings), the other plays on. A
  holder is asked when its action comes: with no legal action then, it passes the rest of its
  turn, as in the base game, even if the other's later actions would open one (a piece returned
  to the reserve). A Finesse Insert is one action of the alternation (the other holder moves
  next), though it doesn't count towards its player's 3.
- ``white_first``: the white holder's whole turn, then the black holder's.

Each holder's turn has its own action count, Master once per turn, black-puzzle limit after the
trigger (black puzzles taken earlier in the triggering turn don't count) and end-of-turn effects
(Finesse: blue tiles pay, Credits become active), which happen when that holder's turn ends (its
last action, or its pass), not when the pair ends. Decisions (a reward choice, Finishing Touches)
are made at once by the player concerned. ``GameState.to_move()`` is always the seat that decides
next, and ``legal_actions()`` are that seat's.

The engine keeps the rows of the side of the player to move in ``state.rows`` (so every base rule
about rows applies unchanged) and the other side's in ``LineClear.other_rows``; it swaps them, and
the two holders' turn counters, when the mover changes. ``sides(state)`` returns the four rows by
side, whoever moves.

A Line Clear *round* is one marker cycle: a new round starts when the first player receives the
white marker again (rulings, Finesse Line Clear: that is when the next Finesse tile starts). The
round is what ``max_rounds`` caps and what stall detection counts (``stall_rounds`` rounds without
a completed puzzle or a card drawn). Finesse: the 10th tile is removed, and the game ends, when the
first player receives the white marker at the end of round 10. ``state.turn`` counts player turns
(each holder's turn counts when it ends).

End (rulings): when the black deck becomes empty the end is triggered; from then on taken black
puzzles aren't replaced and each holder may take at most one black puzzle per turn. The game ends
when the first player has received both markers again, in any order, at the moment the first
player gets the second one (so neither new holder plays that pair): then Finishing Touches (from
the first player, in seat order) and scoring as usual. Judgement calls:

- Only markers passed to the first player after the trigger count; the passes at the end of the
  triggering pair count (they come after the deck ran out). A marker the first player holds when
  the trigger happens does not count: it must come round to the first player again.
- A deck that is already empty at the setup triggers the end before the first pair.
- When the second marker reaches the first player at the same moment as a round ends, the game
  ends by the rules (not by ``max_rounds`` or a stall); Finesse's round-10 end and the markers'
  end are the same moment's "game over" whichever comes first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from projectl_sim.errors import RecordError

if TYPE_CHECKING:
    from projectl_sim.engine import GameState

ROW_SIZE = 3  # rulings, Line Clear: rows of 3
SIDES = ("left", "right")  # the white marker's rows, the black marker's rows
WHITE_HOLDER, BLACK_HOLDER = 0, 1  # the two marker holders (= their sides)
MARKER_NAMES = ("white", "black")
# rulings, Line Clear setup: the black marker goes to the 3rd player (5 players) or the 4th (6),
# counting the first player as the 1st: 2 or 3 seats after the first player.
BLACK_MARKER_OFFSET = {5: 2, 6: 3}
INTERLEAVE, WHITE_FIRST = "interleave", "white_first"

Rows = list[tuple[int, ...]]  # [white row, black row] of one side


class LineClear:
    """The markers, the rows of the side not moving, and the two holders' turns.

    ``turns[h]`` is ``[actions_left, master_used, black_taken]`` of holder ``h`` (0 white, 1
    black) while it waits; the moving holder's live values are the engine's own fields. Small
    lists, copied by ``copy()``.
    """

    __slots__ = (
        "black",
        "interleave",
        "moving",
        "other_rows",
        "pairs",
        "received",
        "turns",
        "white",
    )

    def __init__(
        self, white: int, black: int, other_rows: Rows, interleave: bool, actions: int
    ) -> None:
        self.white = white  # the seat holding the white marker
        self.black = black  # the seat holding the black marker
        self.moving = WHITE_HOLDER  # whose side's rows are the engine's ``rows``
        self.other_rows = other_rows
        self.interleave = interleave
        self.turns: list[list[Any]] = [[actions, False, 0], [actions, False, 0]]
        self.received = 0  # markers passed to the first player since the trigger (bits 1, 2)
        self.pairs = 0  # turn pairs played

    def copy(self) -> LineClear:
        """Return an independent copy."""
        c = object.__new__(LineClear)
        c.white = self.white
        c.black = self.black
        c.moving = self.moving
        c.other_rows = self.other_rows[:]
        c.interleave = self.interleave
        c.turns = [self.turns[0][:], self.turns[1][:]]
        c.received = self.received
        c.pairs = self.pairs
        return c

    def holder(self, h: int) -> int:
        """Return the seat holding marker ``h`` (0 white, 1 black)."""
        return self.black if h else self.white

    def holder_of(self, seat: int) -> int | None:
        """Return the marker ``seat`` holds (0 white, 1 black), or None."""
        if seat == self.white:
            return WHITE_HOLDER
        if seat == self.black:
            return BLACK_HOLDER
        return None


# -- setup -----------------------------------------------------------------------------------------
def markers_of(first_player: int, players: int) -> tuple[int, int]:
    """Return the seats that start with the white and the black marker."""
    return first_player, (first_player + BLACK_MARKER_OFFSET[players]) % players


def deal_rows(white: Sequence[int], black: Sequence[int]) -> tuple[Rows, Rows, Rows]:
    """Return the left rows, the right rows and the decks dealt from two decks (top first)."""
    left = [tuple(white[:ROW_SIZE]), tuple(black[:ROW_SIZE])]
    right = [tuple(white[ROW_SIZE : 2 * ROW_SIZE]), tuple(black[ROW_SIZE : 2 * ROW_SIZE])]
    decks = [tuple(white[2 * ROW_SIZE :]), tuple(black[2 * ROW_SIZE :])]
    return left, right, decks


def check_markers(value: Any, expected: tuple[int, int], players: int) -> None:
    """Raise ``RecordError`` unless a setup's ``markers`` (when present) are the derived ones."""
    if value is None:
        return
    want = markers_json(expected)
    if value != want:
        nth = "3rd" if BLACK_MARKER_OFFSET[players] == 2 else "4th"
        raise RecordError(
            f"setup.markers must be {json.dumps(want)} (the white marker with the first player, "
            f"the black with the {nth}), got {json.dumps(value, default=repr)}"
        )


def markers_json(markers: tuple[int, int]) -> dict[str, int]:
    """Return the record form of the markers' seats."""
    return {"white": markers[0], "black": markers[1]}


# -- reading the table -----------------------------------------------------------------------------
def sides(state: GameState) -> tuple[Rows, Rows]:
    """Return the left (white marker's) and right (black marker's) rows, whoever moves."""
    lc = state.line_clear
    assert lc is not None
    if lc.moving == WHITE_HOLDER:
        return state.rows, lc.other_rows
    return lc.other_rows, state.rows


def actions_left(state: GameState, seat: int) -> int:
    """Return the actions ``seat`` has left in the current turn pair (0 if it holds no marker)."""
    lc = state.line_clear
    assert lc is not None
    h = lc.holder_of(seat)
    if h is None:
        return 0
    return state.actions_left if h == lc.moving else lc.turns[h][0]


def remaining_actions(state: GameState, player: int, last_round: int | None) -> int | None:
    """Return the actions ``player`` has left before the game ends, or None when unknown.

    Known after the trigger (the markers' schedule is fixed) or with a last round (Finesse: the
    end of round ``last_round``); the current pair's turns count their actions left, each later
    turn 3. ``max_rounds`` is ignored, as in the base game's estimate.
    """
    from projectl_sim.engine import LEVEL_UP, PLAY, REWARD  # the engine imports this module

    lc = state.line_clear
    assert lc is not None
    if state.phase not in (PLAY, REWARD, LEVEL_UP):
        return 0
    triggered = bool(state.trigger_round)
    if not triggered and last_round is None:
        return None
    n, first = state.n, state.first_player
    left = actions_left(state, player)
    white, black, received, rnd = lc.white, lc.black, lc.received, state.round
    while True:  # the pairs to come: at most a marker cycle after the trigger, or to last_round
        white, black = (white + 1) % n, (black + 1) % n
        if triggered:
            received |= (white == first) | (black == first) << 1
            if received == 3:
                break
        if white == first:
            if last_round is not None and rnd >= last_round:
                break
            rnd += 1
        left += 3 * ((player == white) + (player == black))
    return left
