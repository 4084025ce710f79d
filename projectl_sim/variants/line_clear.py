"""The Line Clear variant (5-6 players): four rows of 3, two markers, two turns at a time.

Rulings, Line Clear (document 000, "Line Clear Variant"). ``LineClearState`` is the base game's
state with the table and the turn order changed; its block ``line_clear`` (a ``LineClear``)
holds the markers, the other side's rows and the waiting holder's turn.

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
(an expansion's ``end_turn`` hooks: Finesse's blue tiles and Credits), which happen when that
holder's turn ends (its last action, or its pass), not when the pair ends. Decisions (a reward
choice, Finishing Touches) are made at once by the player concerned. ``to_move()`` is always the
seat that decides next, and ``legal_actions()`` are that seat's.

The state keeps the rows of the side of the player to move in ``rows`` (so every base rule about
rows applies unchanged) and the other side's in ``LineClear.other_rows``; it swaps them, and the
two holders' turn counters, when the mover changes. ``sides(state)`` returns the four rows by
side, whoever moves.

A Line Clear *round* is one marker cycle: a new round starts when the first player receives the
white marker again (rulings, Finesse Line Clear: that is when the next Finesse tile starts). The
round is what ``max_rounds`` caps and what stall detection counts (``stall_rounds`` rounds without
a completed puzzle or a card drawn). An expansion that ends the game at a round's end (Finesse's
10th tile) ends it when the first player receives the white marker at the end of that round.
``state.turn`` counts player turns (each holder's turn counts when it ends).

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
  ends by the rules (not by ``max_rounds`` or a stall); an expansion's round-end game end and the
  markers' end are the same moment's "game over" whichever comes first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from projectl_sim.engine.actions import BLACK, WHITE, Action, Recycle, Take, TakeDeck
from projectl_sim.engine.invariants import InvariantError
from projectl_sim.engine.render import draw_puzzle, side_by_side
from projectl_sim.engine.state import END_STALL, PLAY, GameState, parse_setup
from projectl_sim.errors import IllegalActionError, RecordError
from projectl_sim.options import Option
from projectl_sim.registry import register_variant

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
    black) while it waits; the moving holder's live values are the state's own fields. Small
    lists, copied by ``copy()``.
    """

    def __init__(
        self, white: int, black: int, other_rows: Rows, interleave: bool, actions: int
    ) -> None:
        self.white = white  # the seat holding the white marker
        self.black = black  # the seat holding the black marker
        self.moving = WHITE_HOLDER  # whose side's rows are the state's ``rows``
        self.other_rows = other_rows
        self.interleave = interleave
        self.turns: list[list[Any]] = [[actions, False, 0], [actions, False, 0]]
        self.received = 0  # markers passed to the first player since the trigger (bits 1, 2)
        self.pairs = 0  # turn pairs played

    def copy(self) -> LineClear:
        """Return an independent copy."""
        c = LineClear(self.white, self.black, self.other_rows[:], self.interleave, 0)
        c.moving = self.moving
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


class LineClearState(GameState):
    """A Line Clear game: the base game's state plus the markers' block ``line_clear``."""

    variant_name: ClassVar[str] = "line_clear"
    players: ClassVar[tuple[int, ...]] = (5, 6)  # rulings, Line Clear: 5 and 6 players
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "line_clear_order",
            INTERLEAVE,
            "the two marker holders' turns: their actions alternate one by one, white marker "
            "first (interleave), or the white holder's whole turn first (white_first)",
            choices=(INTERLEAVE, WHITE_FIRST),
        ),
    )

    def _setup_table(self, setup: dict[str, Any]) -> None:
        """Deal the left rows, then the right rows, of 3; give out the markers."""
        first, white, black = parse_setup(setup, self.rules)
        self.first_player = first
        self.current = first
        self.cards_in_play = (len(white), len(black))
        left, right, decks = deal_rows(white, black)
        self.rows, self.decks = left, tuple(decks)
        markers = markers_of(first, self.n)
        check_markers(setup.get("markers"), markers, self.n)
        self.line_clear = LineClear(
            *markers, right, self.rules.line_clear_order == INTERLEAVE, self.actions_per_turn
        )

    def _begin(self) -> None:
        self._advance(pair_start=True)

    def copy(self) -> GameState:
        g = LineClearState()
        self._copy_into(g)
        g.line_clear = self.line_clear.copy()
        return g

    def shown_cards(self) -> list[int]:
        """The rows of the side not moving are face up too."""
        other = self.line_clear.other_rows
        return [*other[WHITE], *other[BLACK]]

    def row_size(self) -> int:
        return ROW_SIZE

    def row_sets(self) -> list[list[tuple[int, ...]]]:
        """The left rows (dealt first), then the right rows."""
        left, right = sides(self)
        return [left, right]

    # -- what only one holder may do -----------------------------------------------------------
    def take_actions(self) -> list[Action]:
        """The white holder's as in the base game; the black holder takes no blind card."""
        if self.current == self.line_clear.white:
            return super().take_actions()
        if not self.can_take():
            return []
        t = self.tables
        acts: list[Action] = [t.take_actions[c] for c in self.rows[WHITE]]
        if not (self.trigger_round and self.black_taken >= 1):
            acts.extend(t.take_actions[c] for c in self.rows[BLACK])
        return acts

    def may_recycle(self) -> bool:
        """Only the white-marker holder Recycles (its rows are the left ones)."""
        return self.current == self.line_clear.white

    def _check_variant(self, player: int, action: Action) -> None:
        """Raise for what only one marker holder may do (rulings, Line Clear)."""
        lc = self.line_clear
        if player == lc.white:
            if isinstance(action, Take):
                self._check_side(action.card, WHITE_HOLDER)
            return
        if isinstance(action, TakeDeck):
            raise IllegalActionError("only the white-marker holder may take blind from a deck")
        if isinstance(action, Recycle):
            raise IllegalActionError("only the white-marker holder may Recycle")
        if isinstance(action, Take):
            self._check_side(action.card, BLACK_HOLDER)

    def _check_side(self, card: int, h: int) -> None:
        if any(card in row for row in self.line_clear.other_rows):
            mine, theirs = SIDES[h], SIDES[1 - h]
            raise IllegalActionError(
                f"{self.tables.cat.puzzles[card].id} is in the {theirs} rows: the "
                f"{MARKER_NAMES[h]}-marker holder takes from the {mine} rows"
            )

    def _wait_message(self, player: int) -> str:
        """Return why ``player`` may not act now (who moves, in which order)."""
        lc = self.line_clear
        if self.phase != PLAY or lc.holder_of(player) is None:
            return f"it is player {self.current}'s turn"
        order = self.rules.line_clear_order
        return (
            f"player {self.current} is to move (the marker holders' actions come in the "
            f"{order} order)"
        )

    def _has_play_action(self) -> bool:
        """Return whether the holder to move has a legal Play action on its side.

        The black-marker holder takes no blind card and doesn't Recycle; after the trigger a
        black row counts only while the holder's one black puzzle of the turn is still open.
        """
        if self.current == self.line_clear.white:
            return super()._has_play_action()
        if self.can_take() and (
            self.rows[WHITE]
            or (self.rows[BLACK] and not (self.trigger_round and self.black_taken >= 1))
        ):
            return True
        return self._has_piece_action()

    # -- the turn flow of two holders ----------------------------------------------------------
    def _advance(self, pair_start: bool = False) -> None:
        """After an action (or at the start), pick whose action comes next.

        A holder whose last action was just played ends its turn. Then the holder to ask next:
        ``interleave``, the other one first; ``white_first``, the same one first; at the start
        of a pair, the white holder. A holder asked with no legal action passes the rest of its
        turn (rulings). When both turns are over, the markers pass and the next pair starts.
        """
        lc = self.line_clear
        if not pair_start and self.actions_left == 0:
            self._end_holder_turn()
        idle = 0  # holder turns passed in a row (nobody could act)
        while self.phase == PLAY:
            me = lc.moving
            if pair_start:
                order = (WHITE_HOLDER, BLACK_HOLDER)
            elif lc.interleave:
                order = (1 - me, me)
            else:
                order = (me, 1 - me)
            for h in order:
                left = self.actions_left if h == lc.moving else lc.turns[h][0]
                if not left:
                    continue
                self._install(h)
                if self._has_play_action():
                    return
                self.actions_left = 0  # rulings: no legal action -> pass the rest of the turn
                self._end_holder_turn()
                idle += 1
            self._end_pair()
            pair_start = True
            if idle >= 8 * self.n and self.phase == PLAY:  # 4n turn pairs with no action
                self._end_game(END_STALL)

    def _install(self, h: int) -> None:
        """Make holder ``h`` (0 white, 1 black) the player to move: its turn, its side's rows."""
        lc = self.line_clear
        if h == lc.moving:
            return
        waiting = lc.turns[h]
        lc.turns[lc.moving] = [self.actions_left, self.master_used, self.black_taken]
        self.actions_left, self.master_used, self.black_taken = waiting
        self.rows, lc.other_rows = lc.other_rows, self.rows
        lc.moving = h
        self.current = lc.holder(h)

    def _end_holder_turn(self) -> None:
        """End the turn of the holder to move: its end-of-turn effects."""
        self.end_turn_effects()
        self.turn += 1

    def _end_pair(self) -> None:
        """Pass both markers clockwise; end the round, or the game, when the rulings say so.

        A new round starts when the first player receives the white marker. After the trigger,
        the game ends the moment the first player has received both markers again (rulings,
        Line Clear "Game end"; the judgement calls are in the module's docstring).
        """
        lc = self.line_clear
        self._install(WHITE_HOLDER)
        n, first = self.n, self.first_player
        lc.white, lc.black = (lc.white + 1) % n, (lc.black + 1) % n
        lc.pairs += 1
        lc.turns = [[self.actions_per_turn, False, 0], [self.actions_per_turn, False, 0]]
        self.current = lc.white
        self.actions_left = self.actions_per_turn
        self.master_used = False
        self.black_taken = 0
        if self.trigger_round:
            lc.received |= (lc.white == first) | (lc.black == first) << 1
            if lc.received == 3:
                self._start_finishing()
                return
        if lc.white != first:
            return
        self._end_round(final=False)  # the end of a Line Clear round (its end is the markers')

    # -- setups and results --------------------------------------------------------------------
    def table_json(self) -> dict[str, Any]:
        """The left rows were dealt first, then the right rows (rulings, Line Clear setup)."""
        cat = self.rules.catalogue
        left, right = sides(self)
        lc = self.line_clear
        return {
            "first_player": self.first_player,
            "white_deck": [
                cat.puzzles[c].id for c in left[WHITE] + right[WHITE] + self.decks[WHITE]
            ],
            "black_deck": [
                cat.puzzles[c].id for c in left[BLACK] + right[BLACK] + self.decks[BLACK]
            ],
            "markers": markers_json((lc.white, lc.black)),
        }

    def variant_summary(self, out: dict[str, Any]) -> None:
        cat = self.rules.catalogue
        lc = self.line_clear
        left, right = sides(self)
        out["line_clear"] = {
            "markers": markers_json((lc.white, lc.black)),
            "rows": {
                f"{side}_{colour}": [cat.puzzles[c].id for c in rows[k]]
                for side, rows in (("left", left), ("right", right))
                for k, colour in enumerate(("white", "black"))
            },
            "round": self.round,
        }

    def check_variant_invariants(self) -> None:
        """Four rows of 3, refilled while their deck lasts; markers, turns and rounds."""
        lc = self.line_clear
        n = self.n
        for side in (self.rows, lc.other_rows):
            for colour in (WHITE, BLACK):
                if len(side[colour]) > ROW_SIZE:
                    raise InvariantError(f"a Line Clear row holds {len(side[colour])} puzzles")
                if len(side[colour]) < ROW_SIZE and self.decks[colour]:
                    raise InvariantError(
                        "a Line Clear row is not refilled while its deck has cards"
                    )
        if (lc.white - self.first_player) % n != lc.pairs % n:
            raise InvariantError(
                f"the white marker is at seat {lc.white} after {lc.pairs} turn pairs"
            )
        if (lc.black - lc.white) % n != BLACK_MARKER_OFFSET[n]:
            raise InvariantError(f"the markers are at seats {lc.white} and {lc.black}")
        if lc.received and not self.trigger_round:
            raise InvariantError("markers counted for the end before the trigger")
        in_turn = self.in_turn()
        if not 0 <= lc.received <= 3 or (in_turn and lc.received == 3):
            raise InvariantError(f"received markers {lc.received} in phase {self.phase}")
        rounds = lc.pairs // n + 1
        if self.round != rounds and not (
            not in_turn and lc.pairs % n == 0 and self.round == rounds - 1
        ):
            raise InvariantError(f"round {self.round} after {lc.pairs} turn pairs of {n} players")
        waiting = lc.turns[1 - lc.moving]
        if not 0 <= waiting[0] <= self.actions_per_turn or not 0 <= waiting[2] <= 1:
            raise InvariantError(f"the waiting holder's turn is {waiting}")
        if in_turn:
            if self.current != lc.holder(lc.moving):
                raise InvariantError(f"player {self.current} moves but holds no marker")
            if not 0 <= self.black_taken <= 1:
                raise InvariantError(f"{self.black_taken} black puzzles taken after the trigger")
            if not lc.interleave and lc.moving == 1 and waiting[0]:
                raise InvariantError("white_first: the black holder moves before the white is done")

    def in_turn_seats(self) -> list[int]:
        """Return the seats whose turn is being played (the two holders while both play)."""
        lc = self.line_clear
        seats = [self.current]
        if self.in_turn() and lc.turns[1 - lc.moving][0]:
            seats.append(lc.holder(1 - lc.moving))
        return seats

    def table_lines(self) -> list[str] | None:
        """Return the markers, then the left and the right rows."""
        cat = self.rules.catalogue
        t = self.tables
        lines = [markers_line(self)]
        left, right = sides(self)
        for side, side_rows in (("left ", left), ("right ", right)):
            for colour, name in ((WHITE, "white"), (BLACK, "black")):
                row = [
                    (f"{cat.puzzles[c].id} {t.points[c]}p", draw_puzzle(self, c))
                    for c in side_rows[colour]
                ]
                lines.append(f"{side}{name} row ({len(self.decks[colour])} in deck):")
                lines.extend(side_by_side(row))
        return lines


register_variant()(LineClearState)


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
def sides(state: LineClearState) -> tuple[Rows, Rows]:
    """Return the left (white marker's) and right (black marker's) rows, whoever moves."""
    lc = state.line_clear
    if lc.moving == WHITE_HOLDER:
        return state.rows, lc.other_rows
    return lc.other_rows, state.rows


def actions_left(state: LineClearState, seat: int) -> int:
    """Return the actions ``seat`` has left in the current turn pair (0 if it holds no marker)."""
    lc = state.line_clear
    h = lc.holder_of(seat)
    if h is None:
        return 0
    return state.actions_left if h == lc.moving else lc.turns[h][0]


def remaining_actions(state: LineClearState, player: int, last_round: int | None) -> int | None:
    """Return the actions ``player`` has left before the game ends, or None when unknown.

    Known after the trigger (the markers' schedule is fixed) or with a last round (Finesse: the
    end of round ``last_round``); the current pair's turns count their actions left, each later
    turn 3. ``max_rounds`` is ignored, as in the base game's estimate.
    """
    lc = state.line_clear
    if not state.in_turn():
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


def markers_line(state: LineClearState) -> str:
    """Return who holds the markers, their actions left and the next passes."""
    lc = state.line_clear
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
