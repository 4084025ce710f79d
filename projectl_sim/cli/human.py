"""A person in a seat, at the terminal: ``projectl-sim play --bots human,greedy``.

``HumanBot`` is a ``Bot`` like any other (registered as ``human`` when the command line is
imported), so the game loop, the record and the views are the bots' own. At each decision it
draws what its seat may know (the rows or the solo grid, the other players in a line each, its
own puzzles), lists the legal actions numbered and grouped (take, recycle, upgrade, place,
Master...) and reads a choice; a placement is chosen by picking the puzzle, then one of the
drawn placements. Rewards, Level Up steps and Finishing Touches are asked when they come.
``undo`` takes back the seat's own last action of the turn (``TakeBacks`` of the game loop),
``?`` prints the help, ``q`` or the end of input leaves the game (the record so far is kept).

``Terminal`` is the session: what it reads and writes, the seats' names, and what the other
seats did (``observe``, the game loop's ``on_step``), told in words as it happens.

The terminal belongs to the command line, which is why this lives here and not in ``bots``
(which the simulation layer imports); ``projectl-sim run`` refuses it (``interactive``).
"""

from __future__ import annotations

import random
import shutil
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from bots import BUILTIN, REGISTRY
from bots.base import Bot
from projectl_sim.catalogue import SIZE, Mask25
from projectl_sim.engine import FINISHING, PLAY, REWARD, GameState, finish_options
from projectl_sim.engine.actions import (
    BLACK,
    COLOURS,
    WHITE,
    Action,
    Finish,
    Master,
    Place,
    Placement,
    Recycle,
    Reward,
)
from projectl_sim.engine.record import state_json
from projectl_sim.engine.render import draw_puzzle, piece_letter, side_by_side
from projectl_sim.errors import IllegalActionError
from projectl_sim.expansions.ambassador_pack import Ambassador, ambassadors
from projectl_sim.expansions.finesse import INSERT_COST, Insert, credits, finish_paying
from projectl_sim.expansions.ghost_piece import LEVEL_UP, Ghost
from projectl_sim.sim.play import TAKE_BACK, TakeBacks
from projectl_sim.variants.line_clear import LineClearState
from projectl_sim.variants.solo import EMPTY, SoloState
from projectl_sim.view.steps import events

NEW = "#"  # the cells of the piece being placed, in a drawn placement
REWARD_SHORT = {"level_up_1": "\u2191", "level_up_2": "\u21c8", "ambassador": "amb."}
# Kinds of Play action, grouped in this order on the menu (a user's expansion's come after).
GROUPS = ("take", "recycle", "upgrade", "place", "master", "ambassador", "ghost")
GROUP_OF = {
    "take": "take",
    "take_deck": "take",
    "recycle": "recycle",
    "take_basic": "upgrade",
    "upgrade": "upgrade",
    "place": "place",
}
# more drawn placements than this: the piece is asked first
DRAW_AT_ONCE = 24

HELP = """\
How to play: type the number of an action and press Enter.
  place / Master / Ambassador / Ghost: pick the puzzle (or each puzzle in turn), then one of
    the drawn placements; Enter skips a puzzle where skipping is allowed, b goes back.
    {new} marks the new piece; letters are the pieces already placed:
{letters}
  i<number>  (Finesse) Insert that action: an extra action for {cost} active Credits
  undo       take back your last action of this turn (not after a card was drawn)
  board      draw the table and the actions again
  ?          this help
  q          leave the game (the record so far is written)"""


def game_help(view: GameState) -> str:
    """Return what ``?`` says about the game itself: the turn, the actions, the end and the
    score, from the rules in force (``actions_per_turn``, ``max_unfinished``, the switches)."""
    rules = view.rules
    n = rules.actions_per_turn
    lines = [
        f"The game: each turn is {n} actions, in any order, repeats allowed; complete puzzles "
        "with your pieces for their points.",
        f"  take       a face-up puzzle, or the top card of a deck blind (at most "
        f"{rules.max_unfinished} unfinished)",
        *(
            []
            if isinstance(view, SoloState)
            else ["  recycle    a whole row under its deck, new cards revealed"]
        ),
        "  upgrade    a mono from the reserve, or a piece of yours for one of the same or a lower "
        "level, or one level higher",
        "  place      one piece from your supply into one of your unfinished puzzles",
        "  master     once a turn: one piece into each of your unfinished puzzles",
        "  A completed puzzle gives back its pieces, plus its reward piece.",
    ]
    if isinstance(view, SoloState):
        lines.append(
            "  Solo: the mastermind takes puzzles from the grid between your turns; beat its "
            "score (a tie is its win)."
        )
    elif isinstance(view, LineClearState):
        lines.append("  Line Clear: the row markers say who takes from which rows this turn.")
    else:
        lines.append(
            "  End: once the black deck is empty the round is finished and one more round is "
            "played."
        )
    unfinished = (
        "minus the points of each unfinished puzzle"
        if rules.unfinished_penalty
        else "unfinished puzzles score 0"
    )
    lines.append(
        "  Then Finishing Touches: place any pieces from your supply, -1 point each. Score: "
        f"completed puzzles' points, {unfinished}."
    )
    return "\n".join(textwrap.fill(line, 96, subsequent_indent=" " * 13) for line in lines)


class SeatLeft(Exception):
    """The person left the game (``q``, the end of input or Ctrl-C)."""


@dataclass
class _Entry:
    """One numbered line of the menu: its group, text, and how it becomes an action."""

    group: str
    label: str
    resolve: Callable[[], Action | None]  # None: the person went back to the menu


class Terminal:
    """The terminal session of a game with people in it: input, output, and the story so far.

    ``read`` and ``write`` default to ``input`` and ``print``; ``seats`` names every seat;
    ``humans`` are the seats at this terminal; ``take_backs`` is the game loop's.
    """

    def __init__(
        self,
        seats: Sequence[str],
        humans: Sequence[int],
        take_backs: TakeBacks | None = None,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.seats = list(seats)
        self.humans = set(humans)
        self.take_backs = take_backs
        self.read_line = read
        self.write = write
        self.left = ""  # why the person left ("" while playing)
        self.history: list[dict[str, Any]] = []  # each state seen, to tell what happened

    # -- input -----------------------------------------------------------------------------------
    def ask(self, prompt: str) -> str:
        """Return one line typed by the person (stripped); raise ``SeatLeft`` when they leave."""
        try:
            line = self.read_line(prompt)
        except EOFError:
            self.left = "end of input"
            self.write("")
            raise SeatLeft(self.left) from None
        except KeyboardInterrupt:
            self.left = "interrupted"
            self.write("")
            raise SeatLeft(self.left) from None
        line = line.strip()
        if line.lower() in ("q", "quit", "exit"):
            self.left = "left the game"
            raise SeatLeft(self.left)
        return line

    def name(self, seat: int) -> str:
        """Return how the story names a seat ("you" for the person's own, with one person)."""
        if seat in self.humans and len(self.humans) == 1:
            return "you"
        return f"seat {seat} ({self.seats[seat]})"

    # -- the story -------------------------------------------------------------------------------
    def start(self, state: GameState) -> None:
        """Remember the first state (what ``observe`` tells the changes against)."""
        self.history = [state_json(state)]

    def observe(self, state: GameState, seat: int, action: Action) -> None:
        """Tell an action in words, and what followed (the game loop's ``on_step``)."""
        now = state_json(state)
        then = events(self.history[-1], now) if self.history else []
        self.history.append(now)
        text = f"{self.name(seat)}: {state.describe(action)}"
        self.write(text + (f" ({'; '.join(then)})" if then else ""))

    def taken_back(self) -> None:
        """Forget the last state told (its action was taken back)."""
        if len(self.history) > 1:
            self.history.pop()


class HumanBot(Bot):
    """A person at the terminal: every decision of its seat is asked (see the module)."""

    name: ClassVar[str] = "human"
    summary: ClassVar[str] = (
        "a person at the terminal (projectl-sim play only): numbered actions, undo, ? for help"
    )
    interactive: ClassVar[bool] = True  # a run of many games refuses it

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.terminal: Terminal | None = None

    def __call__(self, view: GameState, rng: random.Random) -> Action:
        if self.terminal is None:  # outside the command line: a session of its own
            self.terminal = Terminal([f"seat {p}" for p in range(view.n)], [view.current])
        return _Decision(self.terminal, view).run()


class _Decision:
    """One decision of a person's seat: draw, list, read, resolve."""

    def __init__(self, terminal: Terminal, view: GameState) -> None:
        self.term = terminal
        self.view = view
        self.seat = view.to_move()
        self.cat = view.rules.catalogue
        self.t = view.tables

    # -- the loop --------------------------------------------------------------------------------
    def run(self) -> Action:
        view = self.view
        if view.phase == PLAY:
            entries, inserts = self.play_entries()
            title = self.turn_line()
        else:
            entries, inserts = self.phase_entries(), set()
            title = self.phase_line()
        self.write_board(title)
        self.write_menu(entries, inserts)
        while True:
            line = self.term.ask(f"seat {self.seat}> ")
            chosen = self.choose(line, entries, inserts)
            if isinstance(chosen, Action):
                if chosen is TAKE_BACK:
                    self.term.taken_back()
                return chosen
            if chosen == _BOARD:
                self.write_board(title)
            if chosen in (_BOARD, _MENU):
                self.write_menu(entries, inserts)

    def choose(self, line: str, entries: list[_Entry], inserts: set[Action]) -> Action | str:
        """Return the action a line picks, or what to show before asking again: ``_MENU``
        (after help or a dialog left), ``_BOARD``, or ``_AGAIN`` (a mistake: one line said it)."""
        low = line.lower()
        numbers = f"a number from 1 to {len(entries)}" if entries else "no number"
        if low in ("?", "h", "help"):
            letters = ", ".join(f"{piece_letter(i)} {p.id}" for i, p in enumerate(self.cat.pieces))
            wrapped = textwrap.fill(
                letters, width=96, initial_indent="    ", subsequent_indent="    "
            )
            self.term.write(HELP.format(new=NEW, letters=wrapped, cost=INSERT_COST))
            self.term.write(game_help(self.view))
            return _MENU
        if low in ("board", "draw"):
            return _BOARD
        if low in ("u", "undo"):
            return self.undo()
        insert = low.startswith("i") and low[1:].strip().isdigit() and bool(inserts)
        digits = low[1:].strip() if insert else low
        if not digits.isdigit() or not 1 <= int(digits) <= len(entries):
            self.term.write(
                f"not an option: {line!r} (type {numbers}"
                + (", i<number> to Insert" if inserts else "")
                + ", undo, ? for help, q to leave)"
            )
            return _AGAIN
        action = entries[int(digits) - 1].resolve()
        if action is None:
            return _MENU
        if insert:
            action = Insert(action)
        try:
            self.view.check(self.seat, action)
        except IllegalActionError as exc:
            self.term.write(f"not legal: {exc}")
            return _AGAIN
        return action

    def undo(self) -> Action | str:
        backs = self.term.take_backs
        if backs is None:
            self.term.write("nothing to undo: this game keeps no actions to take back")
            return _AGAIN
        available = backs.available(self.seat)
        if not available:
            self.term.write(f"nothing to undo: {backs.why_not(self.seat)}")
            return _AGAIN
        self.term.write(f"taking back: {available[0]}")
        return TAKE_BACK

    # -- drawing the table -----------------------------------------------------------------------
    def turn_line(self) -> str:
        view = self.view
        left = view.actions_left
        parts = [f"round {view.round}", f"seat {self.seat} to move"]
        parts.append(f"{left} action{'s' if left != 1 else ''} left")
        if view.slots[self.seat]:
            parts.append("Master used" if view.master_used else "Master available")
        if view.trigger_round:
            parts.append(f"the end was triggered in round {view.trigger_round}")
        fin = credits(view)
        if fin is not None:
            parts.append(f"{fin.active[self.seat]} active Credits")
        return " \u00b7 ".join(parts)

    def phase_line(self) -> str:
        what = {
            REWARD: "choose a reward piece",
            FINISHING: "Finishing Touches",
            LEVEL_UP: "a Level Up step",
        }.get(self.view.phase, self.view.phase)
        return f"round {self.view.round} \u00b7 seat {self.seat}: {what}"

    def title(self, card: int) -> str:
        pz = self.cat.puzzles[card]
        reward = REWARD_SHORT.get(pz.reward, pz.reward)
        return f"{pz.id} {pz.points}p {reward}"

    def row_block(self, name: str, cards: Sequence[int], deck: int | None) -> list[str]:
        left = f" ({deck} in deck)" if deck is not None else ""
        out = [f"{name}{left}:"]
        if cards:
            out.extend(side_by_side([(self.title(c), draw_puzzle(self.view, c)) for c in cards]))
        else:
            out.append("  (empty)")
        return out

    def table(self) -> list[str]:
        view = self.view
        if isinstance(view, SoloState):
            solo = view.solo
            white, black = len(view.decks[WHITE]), len(view.decks[BLACK])
            locks = [" ".join(self.cat.pieces[p].id for p in col) or "open" for col in solo.locks]
            lines = [
                f"grid ({white + black} in deck: {white} white on top, {black} black); locks: "
                + " | ".join(f"column {c + 1} {lock}" for c, lock in enumerate(locks))
            ]
            for r in range(3):
                blocks = []
                for c in range(3):
                    pos = 3 * r + c
                    card = solo.grid[pos]
                    if card == EMPTY:
                        blocks.append((f"{pos + 1}: empty", [""] * SIZE))
                    else:
                        blocks.append((f"{pos + 1}: {self.title(card)}", draw_puzzle(view, card)))
                lines.extend(side_by_side(blocks))
            supply = " ".join(self.cat.pieces[p].id for p in solo.opponent_supply) or "none"
            pile = " ".join(self.cat.puzzles[c].id for c in solo.opponent_pile)
            lines.append(f"the mastermind: {solo.opponent_score} points [{pile}], supply: {supply}")
            return lines
        lines = []
        sets = view.row_sets()
        sides = ("left, white marker: ", "right, black marker: ")
        for k, rows in enumerate(sets):
            side = ""
            if isinstance(view, LineClearState):
                lc = view.line_clear
                side = sides[k] + f"seat {lc.black if k else lc.white}; "
            for colour in (WHITE, BLACK):
                deck = len(view.decks[colour]) if k == 0 else None
                lines.extend(self.row_block(f"{side}{COLOURS[colour]} row", rows[colour], deck))
        return lines

    def supply_text(self, supply: Sequence[int]) -> str:
        held = [
            f"{p.id}({piece_letter(i)})x{supply[i]}"
            for i, p in enumerate(self.cat.pieces)
            if supply[i]
        ]
        return " ".join(held) or "none"

    def write_board(self, title: str) -> None:
        view, seat = self.view, self.seat
        width = min(shutil.get_terminal_size((100, 24)).columns, 100)
        lines = ["", f"\u2500\u2500 {title} ".ljust(width, "\u2500")]
        lines.extend(self.table())
        for x in view.hooks.render_lines:
            lines.extend(x.render_lines(view))
        for q in range(view.n):
            if q == seat:
                continue
            extra = "".join(x.player_text(view, q) for x in view.hooks.player_text)
            if not view.piles[q]:
                pile = "nothing completed"
            elif view.pile_hidden(q):
                pile = f"{len(view.piles[q])} completed (face down)"
            else:
                pile = f"{view.scores[q]} points [{self.pile_text(q)}]"
            unfinished = " ".join(
                f"{self.cat.puzzles[c].id}({_count(f)}/{_count(self.t.recess[c])})"
                for c, f, _ in view.slots[q]
            )
            supply = self.supply_text(view.supply[q])
            lines.append(
                f"seat {q} {self.term.seats[q]}: {pile}{extra}; supply {supply}; "
                f"unfinished: {unfinished or 'none'}"
            )
        extra = "".join(x.player_text(view, seat) for x in view.hooks.player_text)
        lines.append(
            f"you, seat {seat}: {view.scores[seat]} points [{self.pile_text(seat)}]{extra}; "
            f"supply {self.supply_text(view.supply[seat])}"
        )
        blocks = [
            (self.title(c), draw_puzzle(view, c, placed)) for c, _, placed in view.slots[seat]
        ]
        lines.extend(side_by_side(blocks) if blocks else ["  no unfinished puzzle"])
        self.term.write("\n".join(lines))

    def pile_text(self, seat: int) -> str:
        return " ".join(self.cat.puzzles[c].id for c in self.view.piles[seat])

    # -- the menu --------------------------------------------------------------------------------
    def write_menu(self, entries: list[_Entry], inserts: set[Action]) -> None:
        width = min(shutil.get_terminal_size((100, 24)).columns, 100)
        lines = []
        groups: dict[str, list[str]] = {}
        for n, entry in enumerate(entries, 1):
            groups.setdefault(entry.group, []).append(f"{n:>2} {entry.label}")
        for group, items in groups.items():
            line = f"{group:<10}"
            for item in items:
                if len(line) + len(item) + 3 > width and line.strip():
                    lines.append(line.rstrip())
                    line = " " * 10
                line += item + "   "
            lines.append(line.rstrip())
        if inserts:
            lines.append(
                f"{'insert':<10}i<number>: that action as an extra one, for {INSERT_COST} Credits"
            )
        lines.append(f"{'':<10}undo \u00b7 board \u00b7 ? help \u00b7 q leave")
        self.term.write("\n".join(lines))

    def play_entries(self) -> tuple[list[_Entry], set[Action]]:
        view, seat, cat = self.view, self.seat, self.cat
        acts = view.legal_actions("none")
        inserts = {a.inner for a in acts if isinstance(a, Insert)}
        plain = [a for a in acts if not isinstance(a, Insert)]
        entries: list[_Entry] = []
        kinds = {a.kind for a in plain}
        # take, recycle, upgrade: one line each
        for a in plain:
            group = GROUP_OF.get(a.kind)
            if group in ("take", "upgrade"):
                entries.append(_Entry(group, self.short(a), _fixed(a)))
        for colour in (WHITE, BLACK):
            if any(isinstance(a, Recycle) and a.colour == colour for a in plain):
                entries.append(_Entry("recycle", f"{COLOURS[colour]} row", self.recycler(colour)))
        # place: one line per puzzle, then the drawn placements
        supply = view.placeable_supply(seat)
        for card, filled, _ in view.slots[seat]:
            options = self.fits(card, filled, supply)
            if options:
                label = f"on {cat.puzzles[card].id} ({len(options)} ways)"
                entries.append(_Entry("place", label, self.placer(card, filled, supply)))
        if "place" in kinds and not view.master_used and view.slots[seat]:
            entries.append(_Entry("master", "a piece into each puzzle", self.multi(Master, supply)))
        amb = ambassadors(view)
        if amb is not None and amb.held[seat] and "place" in kinds:
            label = f"like Master ({amb.held[seat]} held)"
            entries.append(_Entry("ambassador", label, self.multi(Ambassador, supply)))
        for a in plain:
            if isinstance(a, Ghost):
                took = "+".join(cat.pieces[p].id for p in a.take)
                label = f"{cat.pieces[a.ghost].id} for {took}"
                entries.append(_Entry("ghost", label, self.ghoster(a)))
        known = {*GROUP_OF, "master", "ambassador", "ghost", "insert"}
        for a in plain:
            if a.kind not in known:  # a user's expansion's actions: as they describe themselves
                entries.append(_Entry(a.kind, view.describe(a), _fixed(a)))
        order = {g: k for k, g in enumerate(GROUPS)}
        entries.sort(key=lambda e: order.get(e.group, len(GROUPS)))  # stable: within a group
        return entries, inserts

    def short(self, a: Action) -> str:
        text = self.view.describe(a)
        for prefix in ("take blind from the ", "take ", "upgrade "):
            if text.startswith(prefix):
                text = text[len(prefix) :]
                break
        if a.kind == "take":
            card: int = a.card  # type: ignore[attr-defined]
            text = self.title(card)
        elif a.kind == "take_deck":
            text = "blind " + text.replace(" deck", "")
        elif a.kind == "take_basic":
            piece = self.view.basic_piece()
            text = f"take a {self.cat.pieces[piece].id}" if piece is not None else text
        elif a.kind == "upgrade":
            text = text.replace(" to ", "\u2192")
        return text

    def phase_entries(self) -> list[_Entry]:
        view, cat = self.view, self.cat
        if view.phase == REWARD:
            return [
                _Entry("reward", cat.pieces[p].id, _fixed(Reward(p))) for p in view.reward_options
            ]
        if view.phase == FINISHING:
            return self.finish_entries()
        return [_Entry("choose", view.describe(a), _fixed(a)) for a in view.legal_actions()]

    # -- the dialogs -----------------------------------------------------------------------------
    def fits(self, card: int, filled: Mask25, supply: Sequence[int]) -> list[tuple[int, Mask25]]:
        """Return every (piece, cells) of ``supply`` that fits the empty cells of a puzzle."""
        empty = self.t.recess[card] & ~filled
        return [
            (piece, mask)
            for piece, masks in self.t.fit_groups(card, empty)
            if supply[piece]
            for mask in masks
        ]

    def drawn(self, card: int, mask: Mask25) -> list[str]:
        """Return a puzzle drawn with a new piece on ``mask`` (its placed pieces as letters)."""
        placed = next((p for c, _, p in self.view.slots[self.seat] if c == card), ())
        lines = draw_puzzle(self.view, card, placed)
        out = []
        for r, line in enumerate(lines):
            row = list(line)
            for c in range(SIZE):
                if mask >> (r * SIZE + c) & 1:
                    row[c] = NEW
            out.append("".join(row))
        return out

    def pick_placement(
        self, card: int, options: list[tuple[int, Mask25]], optional: bool
    ) -> tuple[int, Mask25] | _Back | None:
        """Draw the placements of a puzzle and return the one picked (None: skipped)."""
        cat = self.cat
        name = cat.puzzles[card].id
        shown = options
        pieces = sorted({p for p, _ in options})
        if len(options) > DRAW_AT_ONCE and len(pieces) > 1:
            counts = {p: sum(1 for q, _ in options if q == p) for p in pieces}
            listing = "   ".join(
                f"{k} {cat.pieces[p].id} ({counts[p]})" for k, p in enumerate(pieces, 1)
            )
            self.term.write(f"{name}: which piece?  {listing}")
            while True:
                line = self.term.ask(f"{name} piece> ").lower()
                if line in ("b", "back"):
                    return _BACK
                if optional and line == "":
                    return None
                by_name = [p for p in pieces if cat.pieces[p].id.lower() == line]
                if line.isdigit() and 1 <= int(line) <= len(pieces):
                    by_name = [pieces[int(line) - 1]]
                if by_name:
                    shown = [o for o in options if o[0] == by_name[0]]
                    break
                self.term.write(
                    f"not a piece here: {line!r} (1 to {len(pieces)} or a piece name"
                    + (", Enter for none" if optional else "")
                    + ", b to go back)"
                )
        blocks = [
            (f"{k} {cat.pieces[p].id}", self.drawn(card, mask))
            for k, (p, mask) in enumerate(shown, 1)
        ]
        per_line = max(1, min(shutil.get_terminal_size((100, 24)).columns, 100) // 13)
        lines = [f"placements on {name} ({NEW} = the new piece):"]
        for start in range(0, len(blocks), per_line):
            lines.extend(side_by_side(blocks[start : start + per_line]))
        self.term.write("\n".join(lines))
        hint = f"1 to {len(shown)}" + (", Enter for none" if optional else "") + ", b to go back"
        while True:
            line = self.term.ask(f"{name} placement ({hint})> ").lower()
            if line in ("b", "back"):
                return _BACK
            if optional and line == "":
                return None
            if line.isdigit() and 1 <= int(line) <= len(shown):
                return shown[int(line) - 1]
            self.term.write(f"not a placement: {line!r} ({hint})")

    def placer(
        self, card: int, filled: Mask25, supply: Sequence[int]
    ) -> Callable[[], Action | None]:
        def resolve() -> Action | None:
            picked = self.pick_placement(card, self.fits(card, filled, supply), optional=False)
            if picked is None or isinstance(picked, _Back):
                return None
            return Place(card, picked[0], picked[1])

        return resolve

    def placements_per_puzzle(self, pieces: Sequence[int]) -> tuple[Placement, ...] | None:
        """Ask, puzzle by puzzle, for at most one piece each from ``pieces`` (None: went back)."""
        left = list(pieces)
        chosen: list[Placement] = []
        for card, filled, _ in self.view.slots[self.seat]:
            options = self.fits(card, filled, left)
            if not options:
                continue
            picked = self.pick_placement(card, options, optional=True)
            if isinstance(picked, _Back):
                return None
            if picked is not None:
                left[picked[0]] -= 1
                chosen.append((card, picked[0], picked[1]))
        return tuple(chosen)

    def multi(self, cls: type, supply: Sequence[int]) -> Callable[[], Action | None]:
        def resolve() -> Action | None:
            chosen = self.placements_per_puzzle(supply)
            if chosen is None:
                return None
            if not chosen:
                self.term.write("no piece chosen: back to the actions")
                return None
            action: Action = cls(chosen)
            return action

        return resolve

    def ghoster(self, exchange: Ghost) -> Callable[[], Action | None]:
        def resolve() -> Action | None:
            taken = [0] * self.t.n_pieces
            for piece in exchange.take:
                taken[piece] += 1
            self.term.write("place some of the new pieces at once? (Enter skips a puzzle)")
            chosen = self.placements_per_puzzle(taken)
            if chosen is None:
                return None
            return Ghost(exchange.ghost, exchange.take, chosen)

        return resolve

    def recycler(self, colour: int) -> Callable[[], Action | None]:
        def resolve() -> Action | None:
            row = self.view.rows[colour]
            ids = [self.cat.puzzles[c].id for c in row]
            listing = "  ".join(f"{k} {pid}" for k, pid in enumerate(ids, 1))
            self.term.write(
                f"the {COLOURS[colour]} row goes under its deck: {listing}; type the order they "
                "will be drawn (e.g. '2 1 3 4'), Enter keeps it, b goes back"
            )
            while True:
                line = self.term.ask("order> ").lower()
                if line in ("b", "back"):
                    return None
                if line == "":
                    return Recycle(colour, tuple(row))
                parts = line.replace(",", " ").split()
                if sorted(parts) == [str(k) for k in range(1, len(row) + 1)]:
                    return Recycle(colour, tuple(row[int(k) - 1] for k in parts))
                self.term.write(f"not an order of 1 to {len(row)}: {line!r}")

        return resolve

    def finish_entries(self) -> list[_Entry]:
        view, cat, t = self.view, self.cat, self.t
        entries = []
        penalty = sum(t.points[c] for c, _, _ in view.slots[self.seat])
        unfinished_penalty = view.rules.unfinished_penalty
        for option in finish_options(view):
            assert isinstance(option, Finish)
            cards = sorted(
                {c for c, _, _ in option.placements},
                key=lambda c: view.unfinished(self.seat).index(c),
            )
            if not cards:
                left = f", -{penalty} for the unfinished" if unfinished_penalty and penalty else ""
                entries.append(_Entry("finish", f"place nothing{left}", _fixed(option)))
                continue
            gain = sum(t.points[c] * (2 if unfinished_penalty else 1) for c in cards)
            n = len(option.placements)
            label = (
                f"complete {' '.join(cat.puzzles[c].id for c in cards)} with {n} piece"
                f"{'s' if n != 1 else ''} ({gain - n:+d} points)"
            )
            entries.append(_Entry("finish", label, self.finisher(option, cards)))
        return entries

    def finisher(self, option: Finish, cards: list[int]) -> Callable[[], Action | None]:
        def resolve() -> Action | None:
            blocks = []
            for card in cards:
                mask = 0
                for c, _, m in option.placements:
                    if c == card:
                        mask |= m
                blocks.append((self.title(card), self.drawn(card, mask)))
            self.term.write("\n".join(side_by_side(blocks)))
            fin = credits(self.view)
            most = min(fin.active[self.seat], len(option.placements)) if fin is not None else 0
            if not most:
                return option
            while True:
                line = self.term.ask(
                    f"pay how many of the {len(option.placements)} pieces with a Credit instead "
                    f"of a point (0 to {most}, Enter {most}, b back)> "
                ).lower()
                if line in ("b", "back"):
                    return None
                if line == "":
                    return finish_paying(option, most)
                if line.isdigit() and int(line) <= most:
                    return finish_paying(option, int(line))
                self.term.write(f"not a number from 0 to {most}: {line!r}")

        return resolve


class _Back:
    """The person went back from a dialog."""


_BACK = _Back()
# what to show before asking again
_AGAIN, _MENU, _BOARD = "again", "menu", "board"


def _fixed(action: Action) -> Callable[[], Action | None]:
    return lambda: action


def _count(mask: int) -> int:
    return bin(mask).count("1")


def human_seats(bots: Sequence[Any]) -> list[int]:
    """Return the seats taken by people (an ``interactive`` bot)."""
    return [seat for seat, bot in enumerate(bots) if getattr(bot, "interactive", False)]


# ``make_bot("human")`` and ``--bots human`` know it once the command line is imported; it ships
# with the package, so it is a built-in bot (no plugin, nothing for a run's workers to be given)
REGISTRY.setdefault(HumanBot.name, HumanBot)
BUILTIN.setdefault(HumanBot.name, HumanBot)

__all__ = ["HumanBot", "SeatLeft", "Terminal", "human_seats"]
