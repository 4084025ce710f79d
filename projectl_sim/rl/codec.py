"""The learning environments' action tokens, sub-step decisions and observations.

Every environment of ``projectl_sim.rl`` (PettingZoo, Gymnasium, OpenSpiel) plays the engine's
own actions through this module, so they agree with the engine exactly:

- ``Vocabulary``: the fixed ``Discrete(N)`` action space, a list of tokens in regions (the
  how-to page lists them and N per game). An engine action is a short sequence of tokens: a
  Take one token, an Upgrade two (the piece given, the piece taken), a Place three (the puzzle
  slot, the oriented shape, the cell of the shape's top-left corner), a Master one for itself,
  three per placement and one to end it. So N stays small (87 in the base game for two players)
  though a Master alone may have millions of combinations.
- ``Decision``: one engine decision being made token by token. It lists the legal next tokens
  (the action mask) from the engine's legal actions (``GameState.legal_actions``,
  ``finish_options``) and, for the actions of Master's kind (Master, an Ambassador, a Ghost
  action's placements), from the engine's own rule for them (``placement_sets``: at most one
  piece per puzzle, puzzles in the order taken), so the token sequences reach exactly the
  engine's actions, never more (a test compares the two on many positions). In Finesse a
  Finishing Touches that places pieces has one more token: paid with points, or with as many
  Credits as it can (what the bots pay).
- ``Observer``: a fixed-length float32 encoding of what one seat may know, read from the
  engine's view of that seat (``GameState.view``) and nothing else, so nothing hidden leaks
  (a test changes the hidden cards and checks the observation stays the same).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bots.random_bot import with_credits
from projectl_sim.catalogue import SIZE, orientations
from projectl_sim.engine.actions import (
    BLACK,
    WHITE,
    Action,
    Finish,
    Master,
    Place,
    Placement,
    Recycle,
    Reward,
    Take,
    TakeBasic,
    TakeDeck,
    Upgrade,
)
from projectl_sim.engine.state import (
    FINISHING,
    HIDDEN,
    OVER,
    PLAY,
    REWARD,
    GameState,
    finish_options,
)
from projectl_sim.expansions.ambassador_pack import Ambassador, ambassadors
from projectl_sim.expansions.finesse import HIDDEN_TILE, Insert, credits, paid_credits
from projectl_sim.expansions.ghost_piece import LEVEL_UP, Ghost, LevelUp, ghost_takes, ghosts
from projectl_sim.rules import Rules

CELLS = SIZE * SIZE
# The action kinds the tokens encode: the base game's and the shipped expansions'.
KNOWN_KINDS = frozenset(
    {
        "take",
        "take_deck",
        "recycle",
        "take_basic",
        "upgrade",
        "place",
        "master",
        "reward",
        "finish",
        "ambassador",
        "ghost",
        "level_up",
        "insert",
        "finish_credits",
    }
)
# One-token actions and markers, in the vocabulary's order
SINGLES = ("take_basic", "master", "ambassador", "ghost", "insert", "end", "decline", "pay_credits")
DECK_NAMES = ("white", "black", "puzzle")
PHASES = (PLAY, REWARD, LEVEL_UP, FINISHING, OVER)
MAX_PREFIX = 64  # the observation's cap on a decision's token count (a Master of 6 puzzles: 20)


class EncodingError(ValueError):
    """A game the tokens cannot encode (a user's expansion's own action kinds)."""


def table_length(rules: Rules) -> int:
    """Return how many face-up places the table has: the solo grid, or the rows."""
    if rules.solo:
        return 9
    if rules.line_clear:
        return 2 * 2 * 3
    return 2 * rules.row_size


def table_cards(state: GameState) -> list[int]:
    """Return the face-up card at each table place (-1 where none): the solo grid by position;
    else each row set's white row, then its black row, left to right (Line Clear: the left
    rows, then the right ones)."""
    if state.rules.solo:
        return list(state.solo.grid)  # type: ignore[attr-defined]
    size = state.row_size()
    out: list[int] = []
    for row_set in state.row_sets():
        for colour in (WHITE, BLACK):
            row = row_set[colour]
            out.extend(row)
            out.extend([-1] * (size - len(row)))
    return out


class Vocabulary:
    """The action tokens of one game's rules: ``n`` tokens in regions, each with a name.

    Regions, in order: ``table`` (one per face-up place: take it, or name it in a Recycle's
    drawing order), ``deck`` (take blind: white, black, the solo puzzle deck), ``recycle``
    (white, black row), the singles (``take_basic``, ``master``, ``ambassador``, ``ghost``,
    ``insert``, ``end``, ``decline``, ``pay_credits``), ``slot`` (an own unfinished puzzle, in
    the order taken), ``piece`` (give, get, a reward, a ghost, a Ghost action's pieces),
    ``shape`` (a piece in one orientation) and ``cell`` (the top-left cell of a shape's
    bounding box, row by row).
    """

    def __init__(self, rules: Rules) -> None:
        unknown = [
            f"{x.name} ({', '.join(sorted(set(x.action_kinds) - KNOWN_KINDS))})"
            for x in _expansion_objects(rules)
            if set(x.action_kinds) - KNOWN_KINDS
        ]
        if unknown:
            raise EncodingError(
                "the learning environments encode the shipped expansions' actions only, not "
                + ", ".join(unknown)
            )
        cat = rules.catalogue
        self.rules = rules
        self.n_table = table_length(rules)
        self.n_slots = rules.max_unfinished
        self.n_pieces = len(cat.pieces)
        names: list[str] = []
        self.start: dict[str, int] = {}

        def region(name: str, items: Sequence[str]) -> None:
            self.start[name] = len(names)
            names.extend(f"{name}:{item}" for item in items)

        region("table", [str(i) for i in range(self.n_table)])
        region("deck", DECK_NAMES)
        region("recycle", ("white", "black"))
        for single in SINGLES:
            self.start[single] = len(names)
            names.append(single)
        region("slot", [str(i) for i in range(self.n_slots)])
        region("piece", [p.id for p in cat.pieces])
        # each piece's orientations, and each placement mask -> (shape token, cell token)
        shapes: list[str] = []
        self.code: list[dict[int, tuple[int, int]]] = []
        self.shape_piece: list[int] = []
        self.shape_cells: list[tuple[tuple[int, int], ...]] = []
        first_shape = len(names)
        for piece in cat.pieces:
            codes: dict[int, tuple[int, int]] = {}
            for o, cells in enumerate(orientations(piece.cells)):
                token = first_shape + len(shapes)
                shapes.append(f"{piece.id}/{o}")
                self.shape_piece.append(piece.index)
                self.shape_cells.append(cells)
                height = max(r for r, _ in cells) + 1
                width = max(c for _, c in cells) + 1
                for dr in range(SIZE - height + 1):
                    for dc in range(SIZE - width + 1):
                        mask = 0
                        for r, c in cells:
                            mask |= 1 << ((r + dr) * SIZE + c + dc)
                        codes[mask] = (token, dr * SIZE + dc)
            self.code.append(codes)
        region("shape", shapes)
        region("cell", [f"{i // SIZE},{i % SIZE}" for i in range(CELLS)])
        self.names = names
        self.n = len(names)
        self.table = self.start["table"]
        self.deck = self.start["deck"]
        self.recycle = self.start["recycle"]
        self.take_basic = self.start["take_basic"]
        self.master = self.start["master"]
        self.ambassador = self.start["ambassador"]
        self.ghost = self.start["ghost"]
        self.insert = self.start["insert"]
        self.end = self.start["end"]
        self.decline = self.start["decline"]
        self.pay_credits = self.start["pay_credits"]
        self.slot = self.start["slot"]
        self.piece = self.start["piece"]
        self.shape = self.start["shape"]
        self.cell = self.start["cell"]
        self.n_shapes = len(shapes)

    def placement_tokens(self, slot: int, piece: int, mask: int) -> tuple[int, int, int]:
        """Return the three tokens of one placement: its slot, oriented shape and corner cell."""
        shape, cell = self.code[piece][mask]
        return (self.slot + slot, shape, self.cell + cell)

    def mask_of(self, shape_token: int, cell_token: int) -> int:
        """Return the placement mask of an oriented shape with its corner at a cell."""
        cell = cell_token - self.cell
        dr, dc = divmod(cell, SIZE)
        mask = 0
        for r, c in self.shape_cells[shape_token - self.shape]:
            mask |= 1 << ((r + dr) * SIZE + c + dc)
        return mask


def _expansion_objects(rules: Rules) -> list[Any]:
    from projectl_sim.engine.hooks import hooks_of

    return list(hooks_of(rules).all)


# -- one decision, token by token --------------------------------------------------------------
class Node:
    """A point inside a decision: its legal next tokens and where each leads."""

    def tokens(self) -> list[int]:
        raise NotImplementedError

    def push(self, token: int) -> Node | Action:
        """Return the node after ``token``, or the engine action it completes."""
        raise NotImplementedError


class Trie(Node):
    """Token sequences of listed actions (children: a node, or the action a sequence ends)."""

    __slots__ = ("children",)

    def __init__(self) -> None:
        self.children: dict[int, Node | Action] = {}

    def add(self, tokens: Sequence[int], leaf: Node | Action) -> None:
        node: Trie = self
        for tok in tokens[:-1]:
            child = node.children.get(tok)
            if child is None:
                child = node.children[tok] = Trie()
            if not isinstance(child, Trie):
                raise AssertionError(f"token sequence {tokens} extends another action")
            node = child
        last = tokens[-1]
        if last in node.children:
            raise AssertionError(f"token sequence {tokens} is another action's prefix")
        node.children[last] = leaf

    def tokens(self) -> list[int]:
        return sorted(self.children)

    def push(self, token: int) -> Node | Action:
        return self.children[token]


class PlacementSet(Node):
    """Placements of Master's kind, chosen one at a time: at most one per own unfinished
    puzzle, puzzles in the order taken (the engine's ``placement_sets``), pieces from ``left``.

    Each placement is a slot token, a shape token and a cell token; ``end`` closes the set
    (open once ``min_one`` is met). ``make`` turns the placements into the engine action.
    """

    __slots__ = (
        "after",
        "chosen",
        "left",
        "make",
        "min_one",
        "shape",
        "slot",
        "state",
        "vocab",
    )

    def __init__(
        self,
        vocab: Vocabulary,
        state: GameState,
        left: Sequence[int],
        make: Callable[[tuple[Placement, ...]], Action],
        min_one: bool,
        chosen: tuple[Placement, ...] = (),
        after: int = 0,
        slot: int = -1,
        shape: int = -1,
    ) -> None:
        self.vocab = vocab
        self.state = state
        self.left = tuple(left)
        self.make = make
        self.min_one = min_one
        self.chosen = chosen
        self.after = after  # the first slot still open
        self.slot = slot  # the slot being placed into (-1: choosing one)
        self.shape = shape  # the shape token chosen for it (-1: choosing one)

    def _groups(self, slot: int) -> list[tuple[int, tuple[int, ...]]]:
        t = self.state.tables
        card, filled, _ = self.state.slots[self.state.current][slot]
        groups = t.fit_groups(card, t.recess[card] & ~filled)
        return [(piece, masks) for piece, masks in groups if self.left[piece]]

    def any_placement(self) -> bool:
        """Return whether some open slot takes some piece left (a set can be started)."""
        n = len(self.state.slots[self.state.current])
        return any(self._groups(j) for j in range(self.after, n))

    def tokens(self) -> list[int]:
        v = self.vocab
        if self.slot < 0:
            n = len(self.state.slots[self.state.current])
            out = [v.slot + j for j in range(self.after, n) if self._groups(j)]
            if self.chosen or not self.min_one:
                out.append(v.end)
            return sorted(out)
        groups = self._groups(self.slot)
        if self.shape < 0:
            return sorted({v.code[piece][m][0] for piece, masks in groups for m in masks})
        piece = v.shape_piece[self.shape - v.shape]
        return sorted(
            v.cell + v.code[piece][m][1]
            for p, masks in groups
            if p == piece
            for m in masks
            if v.code[piece][m][0] == self.shape
        )

    def _with(self, **changes: Any) -> PlacementSet:
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields.update(changes)
        return PlacementSet(**fields)

    def push(self, token: int) -> Node | Action:
        v = self.vocab
        if token not in self.tokens():
            raise KeyError(token)
        if self.slot < 0:
            if token == v.end:
                return self.make(self.chosen)
            return self._with(slot=token - v.slot)
        if self.shape < 0:
            return self._with(shape=token)
        piece = v.shape_piece[self.shape - v.shape]
        mask = v.mask_of(self.shape, token)
        card = self.state.slots[self.state.current][self.slot][0]
        left = list(self.left)
        left[piece] -= 1
        return self._with(
            chosen=(*self.chosen, (card, piece, mask)),
            left=tuple(left),
            after=self.slot + 1,
            slot=-1,
            shape=-1,
        )


def _wrap(inner: Callable[[tuple[Placement, ...]], Action]) -> Callable[..., Action]:
    return lambda placements: Insert(inner(placements))


class Decision:
    """The decision of the seat to move, made one token at a time (``tokens``, ``push``).

    ``push`` returns the engine action once its last token is in, else None; the caller applies
    the action to the state (the decision does not change it).
    """

    def __init__(self, vocab: Vocabulary, state: GameState) -> None:
        self.vocab = vocab
        self.state = state
        self.seat = state.to_move()
        self.prefix: list[int] = []
        self.node: Node = self._root()
        self._tokens: list[int] | None = None

    def tokens(self) -> list[int]:
        """Return the legal next tokens, ascending."""
        if self._tokens is None:
            self._tokens = self.node.tokens()
        return self._tokens

    def mask(self) -> np.ndarray:
        """Return the action mask: 1 for each legal next token (int8, length N)."""
        out = np.zeros(self.vocab.n, dtype=np.int8)
        out[self.tokens()] = 1
        return out

    def push(self, token: int) -> Action | None:
        """Take one more token (a ``KeyError`` if illegal); return the action it completes."""
        nxt = self.node.push(token)
        self.prefix.append(token)
        self._tokens = None
        if isinstance(nxt, Node):
            self.node = nxt
            return None
        return nxt

    def copy(self) -> Decision:
        """Return an independent copy (nodes are immutable and shared)."""
        d = Decision.__new__(Decision)
        d.vocab, d.state, d.seat = self.vocab, self.state, self.seat
        d.prefix = self.prefix[:]
        d.node = self.node
        d._tokens = self._tokens
        return d

    def __deepcopy__(self, memo: Any) -> Decision:
        return self.copy()  # the state it reads is the caller's, never changed mid-decision

    def placed(self) -> tuple[Placement, ...]:
        """Return the placements chosen so far in an unfinished set (none outside one)."""
        return self.node.chosen if isinstance(self.node, PlacementSet) else ()

    # -- the tokens of the engine's actions ----------------------------------------------------
    def tokens_of(self, action: Action) -> list[int]:
        """Return the tokens of a listed action (not one of Master's kind)."""
        v = self.vocab
        kind = action.kind
        if kind == "take":
            return [v.table + self._places[action.card]]  # type: ignore[attr-defined]
        if kind == "take_deck":
            return [v.deck + action.colour]  # type: ignore[attr-defined]
        if kind == "recycle":
            assert isinstance(action, Recycle)
            return [v.recycle + action.colour] + [
                v.table + self._places[c] for c in action.order[:-1]
            ]
        if kind == "take_basic":
            return [v.take_basic]
        if kind == "upgrade":
            assert isinstance(action, Upgrade)
            return [v.piece + action.give, v.piece + action.get]
        if kind == "place":
            assert isinstance(action, Place)
            return list(v.placement_tokens(self._slot_of[action.card], action.piece, action.mask))
        if kind == "reward":
            return [v.piece + action.piece]  # type: ignore[attr-defined]
        if kind == "level_up":
            assert isinstance(action, LevelUp)
            if action.give is None or action.get is None:
                return [v.decline]
            return [v.piece + action.give, v.piece + action.get]
        raise EncodingError(f"no tokens for a {kind} action here")

    def _root(self) -> Node:
        state = self.state
        phase = state.phase
        root = Trie()
        if phase == OVER:
            return root
        p = state.current
        self._slot_of = {card: i for i, (card, _, _) in enumerate(state.slots[p])}
        if phase == FINISHING:
            for option in finish_options(state):
                assert isinstance(option, Finish)
                done = sorted({self._slot_of[c] for c, _, _ in option.placements})
                leaf: Node | Action = option
                paid = with_credits(state, option)
                if paid_credits(paid):
                    choice = Trie()
                    choice.add([self.vocab.end], option)
                    choice.add([self.vocab.pay_credits], paid)
                    leaf = choice
                root.add([self.vocab.slot + s for s in done] + [self.vocab.end], leaf)
            return root
        if phase != PLAY:  # a reward, a Level Up step: one or two tokens each
            for action in state.legal_actions():
                root.add(self.tokens_of(action), action)
            return root
        self._places = {c: i for i, c in enumerate(table_cards(state)) if c >= 0}
        acts = state.legal_actions(master="none")
        inserted = [a.inner for a in acts if isinstance(a, Insert)]  # type: ignore[attr-defined]
        plain = [a for a in acts if not isinstance(a, Insert)]
        for a in plain:
            if not isinstance(a, Ghost):
                root.add(self.tokens_of(a), a)
        self._add_sets(root, plain, None)
        if inserted:
            sub = Trie()
            for a in inserted:
                if not isinstance(a, Ghost):
                    sub.add(self.tokens_of(a), Insert(a))
            self._add_sets(sub, inserted, _wrap)
            root.children[self.vocab.insert] = sub
        return root

    def _add_sets(self, trie: Trie, listed: list[Action], wrap: Any) -> None:
        """Add Master, the Ambassador and the Ghost action, as their rules allow now."""
        state, v = self.state, self.vocab
        p = state.current

        def made(inner: Callable[[tuple[Placement, ...]], Action]) -> Any:
            return inner if wrap is None else wrap(inner)

        if state.slots[p] and not state.master_used:
            node = PlacementSet(v, state, state.placeable_supply(p), made(Master), True)
            if node.any_placement():
                trie.children[v.master] = node
        amb = ambassadors(state)
        if amb is not None and amb.held[p] and state.slots[p]:
            node = PlacementSet(v, state, state.placeable_supply(p), made(Ambassador), True)
            if node.any_placement():
                trie.children[v.ambassador] = node
        if ghosts(state) is not None and any(isinstance(a, Ghost) for a in listed):
            sub = Trie()
            for g in {a.ghost for a in listed if isinstance(a, Ghost)}:
                for take in ghost_takes(state, g):
                    taken = [0] * state.tables.n_pieces
                    for piece in take:
                        taken[piece] += 1

                    def inner(pls: tuple[Placement, ...], g: int = g, take: Any = take) -> Action:
                        return Ghost(g, take, pls)

                    node = PlacementSet(v, state, taken, made(inner), False)
                    sub.add([v.piece + g] + [v.piece + x for x in take] + [v.end], node)
            trie.children[v.ghost] = sub


def action_tokens(
    vocab: Vocabulary, state: GameState, action: Action, exact: bool = True
) -> list[int]:
    """Return the token sequence of a legal ``action`` of the seat to move (records to tokens).

    A set of placements is tokenised in the order of the puzzles (the order the tokens choose
    them in). A Finishing Touches that is not one of ``finish_options``'s (a bot's own plan) has
    no tokens: ``EncodingError``, as for any action the tokens cannot reach; with ``exact``
    False it gets the tokens of the listed plan that completes the same puzzles.
    """
    decision = Decision(vocab, state)
    v = vocab
    slot_of = {card: i for i, (card, _, _) in enumerate(state.slots[state.current])}

    def placements(pls: Sequence[Placement]) -> list[int]:
        out: list[int] = []
        for card, piece, mask in sorted(pls, key=lambda p: slot_of[p[0]]):
            out.extend(v.placement_tokens(slot_of[card], piece, mask))
        return [*out, v.end]

    def seq(a: Action) -> list[int]:
        if isinstance(a, Insert):
            return [v.insert, *seq(a.inner)]
        if isinstance(a, Master):
            return [v.master, *placements(a.placements)]
        if isinstance(a, Ambassador):
            return [v.ambassador, *placements(a.placements)]
        if isinstance(a, Ghost):
            gs = ghosts(state)
            assert gs is not None
            take = [v.piece + x for x in gs.tables.canonical(a.take)]
            return [v.ghost, v.piece + a.ghost, *take, v.end, *placements(a.placements)]
        if isinstance(a, Finish):
            done = sorted({slot_of[c] for c, _, _ in a.placements})
            out = [v.slot + s for s in done] + [v.end]
            if paid_credits(with_credits(state, Finish(a.placements))):
                out.append(v.pay_credits if paid_credits(a) else v.end)
            return out
        return decision.tokens_of(a)

    tokens = seq(action)
    made: Action | None = None
    try:
        for tok in tokens:
            made = decision.push(tok)
    except KeyError:
        made = None
    near = not exact and isinstance(action, Finish) and made is not None
    if made is None or (_normal(made) != _normal(action) and not near):
        raise EncodingError(f"no token sequence reaches {state.describe(action)} here")
    return tokens


def _normal(action: Action) -> Any:
    """Return an action with its placements in a canonical order (they apply as a set)."""
    if isinstance(action, Insert):
        return ("insert", _normal(action.inner))
    pls = getattr(action, "placements", None)
    if pls is None:
        return action
    return (
        type(action).__name__,
        getattr(action, "ghost", None),
        getattr(action, "take", None),
        getattr(action, "credits", None),
        tuple(sorted(pls)),
    )


# -- the observation -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Feature:
    """One block of the observation: its name, length and the highest value it takes."""

    name: str
    size: int
    high: float
    doc: str


class Observer:
    """Encode what one seat may know as a fixed-length float32 vector (``layout`` documents it).

    Seats are relative: block 0 is the observing seat, then the next seats in turn order. Cards
    are described by their features (colour, points, reward, recess cells), so an agent sees
    a card it never met as it sees any other; each catalogue card's status (unseen, face up,
    known at a deck's bottom, on an unfinished puzzle, in the observer's pile, in a pile it
    may see) is a block of its own. The sub-step block shows the decision in progress to the
    seat making it (zeros for the others).
    """

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        rules = vocab.rules
        self.rules = rules
        cat = rules.catalogue
        self.n = rules.players
        self.n_cards = len(cat.puzzles)
        p = vocab.n_pieces
        self.card_size = 3 + p + 3 + CELLS
        copies = max(piece.copies for piece in cat.pieces)
        points = sum(pz.points for pz in cat.puzzles) + 1
        self.max_points = max(pz.points for pz in cat.puzzles)
        self.finesse = rules.finesse
        self.ghost = rules.ghost
        self.ambassador = rules.ambassador
        self.endless = rules.endless_white_deck
        bank = rules.finesse_bank
        feats = [
            Feature(
                "phase", len(PHASES), 1, "one-hot: play, reward, level_up, finishing_touches, over"
            ),
            Feature("to_move", self.n, 1, "one-hot relative seat deciding now"),
            Feature("first_player", self.n, 1, "one-hot relative seat of the first player"),
            Feature("round", 1, rules.max_rounds + 1, "the round"),
            Feature(
                "turn_state",
                4,
                max(rules.actions_per_turn + 1, 4),
                "actions left, Master used, end triggered, black puzzles taken this turn",
            ),
            Feature(
                "decks",
                4,
                self.n_cards,
                "white and black deck: cards left, of them known "
                "at the bottom (the solo deck: its white and black parts)",
            ),
            Feature(
                "table",
                vocab.n_table * self.card_size,
                self.max_points + 1,
                "each face-up place: card features (present, black, points, reward one-hot "
                "over the pieces then level_up_1, level_up_2, ambassador, 25 recess cells)",
            ),
            Feature(
                "cards",
                6 * self.n_cards,
                1,
                "each catalogue card: one-hot status (unseen, "
                "face up, known at a deck's bottom, on an unfinished puzzle, in the "
                "observer's pile, in another pile it may see)",
            ),
            Feature("reserve", p, copies, "pieces in the reserve"),
        ]
        self.slot_size = self.card_size + CELLS + p  # card, cells filled, pieces placed
        self.seat_size = p + 5 + vocab.n_slots * self.slot_size
        extra = []
        if self.finesse:
            extra.append("credits active, inactive")
        if self.ambassador:
            extra.append("Ambassadors held")
        if self.endless:
            extra.append("noted white puzzles")
        if rules.line_clear:
            extra.append("holds the white marker, the black marker")
        self.seat_extra = (2 if self.finesse else 0) + int(self.ambassador) + int(self.endless)
        self.seat_extra += 2 if rules.line_clear else 0
        self.seat_size += self.seat_extra
        feats.append(
            Feature(
                "seats",
                self.n * self.seat_size,
                max(points, copies, bank + 1),
                "per relative seat: supply, pile size, its points (0 where hidden), "
                "puzzles completed, Finishing Touches done, pieces placed in them, then "
                "each slot's card features, filled cells and pieces placed on it"
                + (", then " + ", ".join(extra) if extra else ""),
            )
        )
        if rules.solo:
            feats.append(
                Feature(
                    "solo",
                    3 * p + p + 2,
                    points,
                    "locks per column, the mastermind's supply, score, pile size",
                )
            )
        if self.finesse:
            self.n_tiles = len(self._tileset().tiles)
            feats.append(
                Feature(
                    "finesse",
                    10 * (self.n_tiles + 1) + 1,
                    bank + 1,
                    "each tile of the row one-hot (last: face down), the bank",
                )
            )
        if self.ghost:
            feats.append(Feature("ghost_piece", 1, 2, "Level Up steps open"))
        feats.append(
            Feature(
                "decision",
                1 + 2 * vocab.n + vocab.n_slots * CELLS,
                MAX_PREFIX,
                "the decision in progress (the deciding seat only): tokens chosen, each "
                "token's count, the position of its last use, cells filled so far per slot",
            )
        )
        self.layout = feats
        self.size = sum(f.size for f in feats)
        self.high = np.concatenate([np.full(f.size, f.high, dtype=np.float32) for f in feats])

    def _tileset(self) -> Any:
        from projectl_sim.expansions.finesse import tileset_of

        return tileset_of(self.rules)

    def _card(self, out: np.ndarray, at: int, view: GameState, card: int) -> None:
        if card < 0:
            return
        t = view.tables
        out[at] = 1
        out[at + 1] = t.is_black[card]
        out[at + 2] = t.points[card]
        reward = t.reward[card]
        p = self.vocab.n_pieces
        out[at + 3 + (reward if reward >= 0 else p - 1 - reward)] = 1
        recess = t.recess[card]
        base = at + 3 + p + 3
        for i in range(CELLS):
            if recess >> i & 1:
                out[base + i] = 1

    def observe(self, state: GameState, seat: int, decision: Decision | None = None) -> np.ndarray:
        """Return the observation of ``seat`` (``decision``: the one in progress, if any)."""
        view = state.view(seat)
        return self.encode(view, seat, decision)

    def encode(self, view: GameState, seat: int, decision: Decision | None) -> np.ndarray:
        """Return the observation from ``view``, the engine's view of ``seat``."""
        out = np.zeros(self.size, dtype=np.float32)
        n = self.n
        rel = [(seat + k) % n for k in range(n)]
        pos = 0
        out[pos + PHASES.index(view.phase) if view.phase in PHASES else pos] = 1
        pos += len(PHASES)
        out[pos + rel.index(view.to_move())] = 1
        pos += n
        out[pos + rel.index(view.first_player)] = 1
        pos += n
        out[pos] = view.round
        pos += 1
        out[pos : pos + 4] = (
            view.actions_left,
            view.master_used,
            bool(view.trigger_round),
            view.black_taken,
        )
        pos += 4
        for colour in (WHITE, BLACK):
            out[pos] = len(view.decks[colour])
            out[pos + 1] = view.known_bottom[colour]
            pos += 2
        table = table_cards(view)
        for k, card in enumerate(table):
            self._card(out, pos + k * self.card_size, view, card)
        pos += self.vocab.n_table * self.card_size
        # each card's status, from what this view shows
        status = np.zeros((self.n_cards, 6), dtype=np.float32)
        status[:, 0] = 1
        seen: list[tuple[int, int]] = [(c, 1) for c in table if c >= 0]
        seen += [(c, 1) for c in view.shown_cards() if c >= 0]
        for deck, known in zip(view.decks, view.known_bottom, strict=True):
            seen += [(c, 2) for c in deck[len(deck) - known :]]
        for slots in view.slots:
            seen += [(s[0], 3) for s in slots]
        for q in range(n):
            kind = 4 if q == seat else 5
            seen += [(c, kind) for c in view.piles[q] + view.completed_elsewhere(q)]
        for card, kind in seen:
            if card >= 0:
                status[card] = 0
                status[card, kind] = 1
        out[pos : pos + status.size] = status.ravel()
        pos += status.size
        out[pos : pos + self.vocab.n_pieces] = view.reserve
        pos += self.vocab.n_pieces
        fin = credits(view) if self.finesse else None
        amb = ambassadors(view) if self.ambassador else None
        for q in rel:
            base = pos
            out[pos : pos + self.vocab.n_pieces] = view.supply[q]
            pos += self.vocab.n_pieces
            pile = view.piles[q]
            out[pos] = len(pile)
            out[pos + 1] = view.scores[q] if not view.pile_hidden(q) else 0
            out[pos + 2] = view.completed_count(q)
            out[pos + 3] = view.finished[q] if view.phase in (FINISHING, OVER) else 0
            out[pos + 4] = view.ft_pieces[q]
            pos += 5
            for j, (card, filled, placed) in enumerate(view.slots[q]):
                at = pos + j * self.slot_size
                self._card(out, at, view, card)
                for i in range(CELLS):
                    if filled >> i & 1:
                        out[at + self.card_size + i] = 1
                for piece, _mask in placed:
                    out[at + self.card_size + CELLS + piece] += 1
            pos += self.vocab.n_slots * self.slot_size
            if fin is not None:
                out[pos : pos + 2] = (fin.active[q], fin.inactive[q])
                pos += 2
            if amb is not None:
                out[pos] = amb.held[q]
                pos += 1
            if self.endless:
                out[pos] = len(view.completed_elsewhere(q))
                pos += 1
            if self.rules.line_clear:
                lc = view.line_clear  # type: ignore[attr-defined]
                out[pos : pos + 2] = (lc.white == q, lc.black == q)
                pos += 2
            assert pos - base == self.seat_size
        if self.rules.solo:
            solo = view.solo  # type: ignore[attr-defined]
            p = self.vocab.n_pieces
            for col, lock in enumerate(solo.locks):
                for piece in lock:
                    out[pos + col * p + piece] += 1
            pos += 3 * p
            for piece in solo.opponent_supply:
                out[pos + piece] += 1
            pos += p
            out[pos] = solo.opponent_score
            out[pos + 1] = len(solo.opponent_pile)
            pos += 2
        if fin is not None:
            for k, tile in enumerate(fin.row):
                width = self.n_tiles + 1
                out[pos + k * width + (self.n_tiles if tile == HIDDEN_TILE else tile)] = 1
            pos += 10 * (self.n_tiles + 1)
            out[pos] = fin.bank
            pos += 1
        if self.ghost:
            gs = ghosts(view)
            out[pos] = gs.steps if gs is not None else 0
            pos += 1
        if decision is not None and decision.seat == seat and decision.prefix:
            v = self.vocab
            out[pos] = len(decision.prefix)
            for i, tok in enumerate(decision.prefix[:MAX_PREFIX]):
                out[pos + 1 + tok] += 1
                out[pos + 1 + v.n + tok] = i + 1
            cells = pos + 1 + 2 * v.n
            slot_of = {c: j for j, (c, _, _) in enumerate(view.slots[seat])}
            for card, _piece, mask in decision.placed():
                j = slot_of[card]
                for i in range(CELLS):
                    if mask >> i & 1:
                        out[cells + j * CELLS + i] = 1
        pos += 1 + 2 * self.vocab.n + self.vocab.n_slots * CELLS
        assert pos == self.size, (pos, self.size)
        return out


def hidden_count(view: GameState) -> int:
    """Return how many cards of a view are hidden (its decks' unseen cards, others' piles)."""
    return sum(d.count(HIDDEN) for d in view.decks) + sum(p.count(HIDDEN) for p in view.piles)


__all__ = [
    "Decision",
    "EncodingError",
    "Observer",
    "Vocabulary",
    "action_tokens",
    "table_cards",
]
# (Reward, Take, TakeBasic, TakeDeck are re-exported for the type checker's sake of callers.)
_ = (Reward, Take, TakeBasic, TakeDeck)
