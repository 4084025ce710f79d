"""The base game's state: legal actions, checked and fast application, turns, scoring.

State is a handful of lists and tuples of ints, copied by a hand-written ``copy()``. What changes a
few times a game is a tuple (the decks, top first; the piles, scores, known bottoms...), which
copies and views share and the engine replaces; a row is a tuple too; a player's puzzle slot is a
tuple ``(card, filled_mask, placed)`` where ``placed`` is a tuple of ``(piece, mask)``.

``apply`` is the fast path (no checks); ``check`` raises ``IllegalActionError`` saying why an
action is illegal, and ``step`` is ``check`` then ``apply``. After every transition the engine
advances by itself through what needs no decision: end of turn, passing when no action is legal,
the end of the round, the final round, and scoring.

This module is the base game only. Expansions extend it through the hooks of
``projectl_sim.engine.hooks`` (each game holds their blocks in ``blocks``); variants that change
the table or the turn order (Solo, Line Clear) are subclasses that override the methods marked
*variant* below (python-chess's variant boards). The engine names no expansion and no variant.

The state's fields, and the queries ``checks``, ``moves`` and ``rewards`` make of it, are declared
in its base class ``StateData`` (``state_data``): those modules work on it, so that none of the
modules this one imports imports it back.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Final, cast

from mypy_extensions import mypyc_attr

from projectl_sim.catalogue import Catalogue, Mask25
from projectl_sim.engine import checks, moves, rewards
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
    Take,
    TakeBasic,
    TakeDeck,
    Upgrade,
    describe,
)
from projectl_sim.engine.hooks import hooks_of

# the engine's constants, re-exported: the expansions, variants and bots import them from here
from projectl_sim.engine.phases import (
    BASE_PHASES as BASE_PHASES,
)
from projectl_sim.engine.phases import (
    END_MAX_ROUNDS as END_MAX_ROUNDS,
)
from projectl_sim.engine.phases import (
    END_RULES as END_RULES,
)
from projectl_sim.engine.phases import (
    END_STALL as END_STALL,
)
from projectl_sim.engine.phases import (
    FINISHING as FINISHING,
)
from projectl_sim.engine.phases import (
    HIDDEN as HIDDEN,
)
from projectl_sim.engine.phases import (
    OVER as OVER,
)
from projectl_sim.engine.phases import (
    PLAY as PLAY,
)
from projectl_sim.engine.phases import (
    REWARD as REWARD,
)
from projectl_sim.engine.phases import (
    hide as hide,
)
from projectl_sim.engine.state_data import Slot as Slot
from projectl_sim.engine.state_data import StateData, put
from projectl_sim.engine.tables import tables_of
from projectl_sim.errors import IllegalActionError, RecordError
from projectl_sim.options import Column, Option
from projectl_sim.registry import register_variant
from projectl_sim.rules import Rules
from projectl_sim.tiling.fill import plan, tiling_index

# the action classes the unchecked step tests, as compiled statics (a name imported from an
# interpreted module is looked up in this module's dictionary at each use)
_FINISH: Final = Finish
_PLACE: Final = Place
_RECYCLE: Final = Recycle
_TAKE: Final = Take
_TAKE_DECK: Final = TakeDeck
_UPGRADE: Final = Upgrade
_TAKE_BASIC: Final = TakeBasic
_MASTER: Final = Master
_REWARD: Final = Reward


def _kind(action: Action) -> str:
    """Return ``action.kind``: the base game's classes by their type (an identity test of a
    compiled static), where reading the class attribute of an action (not a native class) is a
    call into the interpreter; a subclass or an expansion's action by the attribute."""
    cls = type(action)
    if cls is _PLACE:
        return "place"
    if cls is _RECYCLE:
        return "recycle"
    if cls is _TAKE:
        return "take"
    if cls is _UPGRADE:
        return "upgrade"
    if cls is _TAKE_BASIC:
        return "take_basic"
    if cls is _MASTER:
        return "master"
    if cls is _TAKE_DECK:
        return "take_deck"
    if cls is _REWARD:
        return "reward"
    return action.kind


class _Cards:
    """A catalogue's puzzles as each game's deal, setup and record read them: a ``Puzzle``'s
    fields are Python attributes (a few hundred instructions a read), these are native."""

    def __init__(self, cat: Catalogue) -> None:
        self.cat = cat
        self.ids: tuple[str, ...] = tuple(p.id for p in cat.puzzles)
        self.colours: tuple[str, ...] = tuple(p.colour for p in cat.puzzles)
        self.index: dict[str, int] = {pid: card for card, pid in enumerate(self.ids)}
        # the ids of each colour's puzzles in catalogue order (``Catalogue.of_colour``)
        self.white: tuple[str, ...] = tuple(self.ids[c] for c in cat.of_colour("white"))
        self.black: tuple[str, ...] = tuple(self.ids[c] for c in cat.of_colour("black"))
        self.copies: tuple[int, ...] = tuple(p.copies for p in cat.pieces)


class _Numbers:
    """The numbers of one ``Rules`` that the turn flow reads at every Recycle and round end (a
    field of the frozen ``Rules`` is a Python attribute, a few hundred instructions a read)."""

    def __init__(self, rules: Rules | None) -> None:
        self.rules = rules
        self.row_size = rules.row_size if rules is not None else 0
        self.max_rounds = rules.max_rounds if rules is not None else 0
        self.stall_rounds = rules.stall_rounds if rules is not None else 0


# the last rules' numbers (a process plays one Rules after another): replaced whole, and holding
# its Rules, so an identity test is an equality test
_LAST_NUMBERS: Final = [_Numbers(None)]


def _numbers(rules: Rules) -> _Numbers:
    """Return ``rules``' ``_Numbers``."""
    last = _LAST_NUMBERS[0]
    if last.rules is rules:
        return last
    made = _Numbers(rules)
    _LAST_NUMBERS[0] = made
    return made


# catalogue id -> its _Cards (each holds its catalogue, so an id is never reused while kept)
_CARDS: Final[dict[int, _Cards]] = {}


def _cards(cat: Catalogue) -> _Cards:
    """Return ``cat``'s ``_Cards`` (made on its first game)."""
    hit = _CARDS.get(id(cat))
    if hit is not None and hit.cat is cat:
        return hit
    made = _CARDS[id(cat)] = _Cards(cat)
    return made


# open to subclasses: a variant of a user's own, loaded from a file, is one (``registry``)
@mypyc_attr(allow_interpreted_subclasses=True)
class GameState(StateData):
    """One game of Project L: the base game (2-4 players) and, through hooks, its expansions.

    Public, read-only outside the engine and the hooks: ``rules``, ``tables`` (the catalogue's
    ``Tables``), ``n`` (players), ``reserve``, ``supply`` (per seat, per piece), ``slots`` (per
    seat, the unfinished puzzles), ``piles`` and ``scores`` (victory piles and their points),
    ``rows`` and ``decks`` (white, black), ``current`` (the seat to decide), ``first_player``,
    ``round``, ``turn``, ``phase``, ``actions_left``, ``master_used``, ``trigger_round`` (0
    until the end is triggered), ``end_reason``, ``blocks`` (the expansions' blocks: see
    ``block``).

    The fields are declared in ``StateData``, with the methods the engine's helper modules call
    (some of them *variant*).

    A variant is a subclass registered under its ``variant_name``, declaring the player counts
    it is for (``players``), its rules options and its table columns (``projectl_sim.options``;
    it fills its columns in ``variant_seat_columns`` / ``variant_game_columns``).
    """

    variant_name: ClassVar[str] = "standard"
    players: ClassVar[tuple[int, ...]] = (2, 3, 4)
    options: ClassVar[tuple[Option, ...]] = ()
    columns: ClassVar[tuple[Column, ...]] = ()

    @classmethod
    def check_rules(cls, rules: Rules) -> None:
        """Raise ``RulesError`` for rules this variant cannot be played with (called when a
        ``Rules`` of it is built, its options already checked one by one)."""

    def __init__(self, rules: Rules | None = None, setup: Any = None) -> None:
        """Start a game from an explicit setup (see ``new_game`` to deal from a seed).

        Without arguments, an empty shell for ``copy`` to fill. ``setup`` is a record's: checked
        here (typed ``Any`` so that a compiled build, which checks declared types on entry,
        reports a malformed one as the source does).
        """
        if rules is None:
            if setup is None:
                return
            raise TypeError("a game needs its rules")
        if not isinstance(setup, dict):
            raise RecordError("setup must be an object")
        self.rules = rules
        cat = rules.catalogue
        self.tables = t = tables_of(cat)
        self.hooks = hooks = hooks_of(rules)
        self.n = n = rules.players
        # the rules' numbers the hot paths read, as native fields (rulings, Base game; each a
        # parameter of Rules): a module constant's speed, not a Python attribute's
        self.max_unfinished = rules.max_unfinished
        self.actions_per_turn = rules.actions_per_turn
        self.reserve = list(_cards(cat).copies)
        self.supply = [[0] * t.n_pieces for _ in range(n)]
        for pid in rules.starting_supply:
            i = cat.piece_index(pid)
            for s in self.supply:
                s[i] += 1
                self.reserve[i] -= 1
        self.slots = [[] for _ in range(n)]
        self.piles = ((),) * n
        self.scores = (0,) * n
        self.ft_pieces = (0,) * n
        self.rows = [(), ()]
        self.decks = ((), ())
        self.first_player = 0
        self.current = 0
        self.cards_in_play = (0, 0)
        self._setup_table(setup)
        self.known_bottom = (0, 0)
        self.actions_left = self.actions_per_turn
        self.master_used = False
        self.round = 1
        self.turn = 1
        self.trigger_round = 0
        self.black_taken = 0
        self.phase = PLAY
        self.pending = ()
        self.reward_options = ()
        self.finished = (False,) * n
        self.end_reason = None
        self.last_progress_round = 1
        self.viewer = None
        self.blocks = [x.start(self, setup) for x in hooks.all]
        if not self._deck_left():  # a tiny deck is empty from the start
            self.trigger_round = 1
        self._begin()

    def _setup_table(self, setup: dict[str, Any]) -> None:
        """*Variant*: lay out the table of ``setup`` (base game: two rows of 4 from the decks)."""
        first, white, black = parse_setup(setup, self.rules)
        self.first_player = first
        self.current = first
        self.cards_in_play = (len(white), len(black))
        size = self.rules.row_size
        self.rows = [tuple(white[:size]), tuple(black[:size])]
        self.decks = (tuple(white[size:]), tuple(black[size:]))

    def _begin(self) -> None:
        """*Variant*: move on to the first decision."""
        self._advance()

    # -- copying and views ---------------------------------------------------------------------
    def copy(self) -> GameState:
        """Return an independent copy (its tuples shared: decks, rows, piles, scores...)."""
        g = GameState()
        self._copy_into(g)
        return g

    def _copy_into(self, g: GameState) -> None:
        """Copy the base game's state and every block into the empty shell ``g``."""
        g.rules = self.rules
        g.tables = self.tables
        g.hooks = self.hooks
        g.n = self.n
        g.max_unfinished = self.max_unfinished
        g.actions_per_turn = self.actions_per_turn
        g.reserve = self.reserve[:]
        g.supply = [s[:] for s in self.supply]
        g.slots = [s[:] for s in self.slots]
        g.piles = self.piles
        g.scores = self.scores
        g.ft_pieces = self.ft_pieces
        g.first_player = self.first_player
        g.cards_in_play = self.cards_in_play
        g.current = self.current
        g.rows = self.rows[:]
        g.decks = self.decks
        g.known_bottom = self.known_bottom
        g.actions_left = self.actions_left
        g.master_used = self.master_used
        g.round = self.round
        g.turn = self.turn
        g.trigger_round = self.trigger_round
        g.black_taken = self.black_taken
        g.phase = self.phase
        g.pending = self.pending
        g.reward_options = self.reward_options
        g.finished = self.finished
        g.end_reason = self.end_reason
        g.last_progress_round = self.last_progress_round
        g.viewer = self.viewer
        blocks = self.blocks[:]
        for x in self.hooks.copy_block:
            blocks[x.slot] = x.copy_block(blocks[x.slot])
        g.blocks = blocks

    def view(self, player: int) -> GameState:
        """Return what ``player`` may know: a copy whose unseen deck cards are ``HIDDEN``.

        The order of the cards recycled to the bottom of a deck is public (the recycling player
        chose it in the open), so those stay visible. Unless the rules say victory points are
        known, the other players' piles are ``HIDDEN`` cards and their scores read 0.
        """
        return cast(GameState, moves.view(self, player))

    def unseen_cards(self, colour: int) -> list[int]:
        """Return the cards of a colour that are not visible anywhere (candidates for the deck)."""
        return moves.unseen_cards(self, colour)

    def redeal(self, rng: random.Random) -> GameState:
        """Return a copy whose unseen deck cards are re-dealt at random (determinization).

        Works on a view (fills its ``HIDDEN`` cards) and on a full state alike. Each colour is
        re-dealt among its own unseen cards, so the counts of each stay as they are.
        """
        return cast(GameState, moves.redeal(self, rng))

    def determinize(self, rng: random.Random) -> GameState:
        """Return a full state consistent with this view, what it hides drawn at random."""
        return cast(GameState, moves.determinize(self, rng))

    # -- queries -------------------------------------------------------------------------------
    @property
    def catalogue(self) -> Catalogue:
        return self.rules.catalogue

    def block(self, name: str) -> Any:
        """Return the block of the expansion ``name`` in this game, or None when not played."""
        if not self.blocks:
            return None  # the base game: no expansion (the bots ask at every decision)
        slot = self.hooks.slots.get(name)
        return None if slot is None else self.blocks[slot]

    def pile_hidden(self, player: int) -> bool:
        """Return whether this view hides ``player``'s victory pile."""
        return HIDDEN in self.piles[player]

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def truncated(self) -> bool:
        return self.end_reason not in (None, END_RULES)

    def in_turn(self) -> bool:
        """Return whether a turn is being played (not Finishing Touches, not over)."""
        return self.phase != FINISHING and self.phase != OVER

    def in_turn_seats(self) -> list[int]:
        """*Variant*: return the seats whose turn is being played (the player to move)."""
        return [self.current]

    def unfinished(self, player: int) -> list[int]:
        """Return the cards of a player's unfinished puzzles, in the order taken."""
        return [s[0] for s in self.slots[player]]

    def completed(self, player: int) -> list[int]:
        """Return the cards of a player's victory pile, in the order completed."""
        return list(self.piles[player])

    def completed_count(self, player: int) -> int:
        """Return how many puzzles a player completed (those that left its pile included)."""
        n = len(self.piles[player])
        for x in self.hooks.completed_elsewhere:
            n += len(x.completed_elsewhere(self, player))
        return n

    def opponent_score(self) -> int:
        """*Variant*: return the solo opponent's score (only the solo variant has one)."""
        raise ValueError("only the solo variant has an opponent")

    def final_scores(self) -> list[int]:
        """Return each player's score: victory pile, minus unfinished puzzles, minus touches."""
        out = []
        for p in range(self.n):
            score = self.scores[p] - self.ft_pieces[p]
            if self.rules.unfinished_penalty:
                score -= sum(self.tables.points[s[0]] for s in self.slots[p])
            out.append(score)
        return out

    def winners(self) -> list[int]:
        """Return the winning seats (several on a shared win), by the configured tie-break."""
        scores = self.final_scores()
        best = max(scores)
        tied = [p for p in range(self.n) if scores[p] == best]
        for x in self.hooks.tie_break:
            if len(tied) > 1:
                tied = x.tie_break(self, tied)
        if len(tied) == 1:
            return tied
        if self.rules.tie_break == "later_in_turn_order":
            return [max(tied, key=lambda p: (p - self.first_player) % self.n)]
        key = {p: (self.completed_count(p), sum(self.supply[p])) for p in tied}
        top = max(key.values())
        return [p for p in tied if key[p] == top]

    def to_move(self) -> int:
        """Return the seat that decides next (also during Finishing Touches)."""
        return self.current

    # -- legal actions -------------------------------------------------------------------------
    def legal_actions(self, master: str = "all") -> list[Action]:
        """Return the legal actions of the player to move, in a deterministic order.

        ``master``: ``"all"`` enumerates every Master combination (can be large), and every
        expansion action of Master's kind (an Ambassador's, a Ghost action's placements);
        ``"none"`` leaves them out (see ``master_actions`` / ``sample_master``). During
        Finishing Touches the list holds the empty Finish plus one Finish per completable set
        found by ``finish_options`` (any Finish is checked exactly by ``check``).
        """
        phase = self.phase
        hooks = self.hooks
        if phase == PLAY:
            acts = self._play_actions()
            if master == "all" and self.slots[self.current] and not self.master_used:
                acts.extend(self.master_actions())
            for x in hooks.add_actions:
                x.add_actions(self, acts, master)
            for x in hooks.wrap_actions:
                x.wrap_actions(self, acts)
            for x in hooks.free_actions:
                x.free_actions(self, acts, master)
            return acts
        if phase == REWARD:
            return [self.tables.reward_actions[p] for p in self.reward_options]
        if phase == FINISHING:
            return finish_options(self)
        owner = hooks.phase_owner.get(phase)
        return owner.phase_actions(self) if owner is not None else []

    def take_actions(self) -> list[Action]:
        """*Variant*: return the legal Take actions (rows left to right, then blind from each
        deck)."""
        if not self.can_take():
            return []
        t = self.tables
        acts: list[Action] = [t.take_actions[c] for c in self.rows[WHITE]]
        black_ok = not (self.trigger_round and self.black_taken >= 1)
        if black_ok:
            acts.extend(t.take_actions[c] for c in self.rows[BLACK])
        if self.decks[WHITE]:
            acts.append(t.take_deck_actions[WHITE])
        if black_ok and self.decks[BLACK]:
            acts.append(t.take_deck_actions[BLACK])
        return acts

    def recycle_actions(self) -> list[Action]:
        """Return every Recycle: each non-empty row in each drawing order."""
        acts: list[Action] = []
        if not self.may_recycle():
            return acts
        for colour in (WHITE, BLACK):
            row = self.rows[colour]
            if row:
                acts.extend(self.tables.recycle_actions(colour, row))
        return acts

    def sample_recycle(self, rng: random.Random) -> Recycle | None:
        """Return a uniformly random legal Recycle without listing them all (None: none)."""
        return moves.sample_recycle(self, rng)

    def upgrade_actions(self) -> list[Action]:
        """Return every Upgrade B (give, get) pair the reserve allows."""
        return moves.upgrade_actions(self)

    def upgrade_targets(self, give: int, reserve: Sequence[int]) -> list[int]:
        """Return the pieces an Upgrade B giving ``give`` may take from ``reserve``."""
        return moves.upgrade_targets(self, give, reserve)

    def place_actions(self) -> list[Action]:
        """Return every Place of an owned piece into an own unfinished puzzle."""
        return moves.place_actions(self)

    def _play_actions(self) -> list[Action]:
        acts = self.take_actions()
        acts.extend(self.recycle_actions())
        if self.basic_piece() is not None:
            acts.append(TakeBasic())
        acts.extend(self.upgrade_actions())
        acts.extend(self.place_actions())
        return acts

    def master_actions(self) -> Iterator[Master]:
        """Yield every Master action (one or more placements, at most one per puzzle)."""
        return moves.master_actions(self)

    def placement_sets(self, pieces: Sequence[int]) -> Iterator[tuple[Placement, ...]]:
        """Yield every non-empty set of placements into the mover's unfinished puzzles, at most
        one per puzzle, using at most ``pieces[p]`` of each piece ``p`` (puzzles in the order
        taken; in each, nothing first, then every placement in piece and mask order)."""
        return moves.placement_sets(self, pieces)

    def sample_master(self, rng: random.Random, p_each: float = 0.75) -> Master | None:
        """Return a random legal Master (each puzzle gets a piece with probability ``p_each``)."""
        return moves.sample_master(self, rng, p_each)

    def sample_placements(self, rng: random.Random, p_each: float) -> tuple[Placement, ...]:
        """Return random placements of Master's kind (empty when none was drawn)."""
        return moves.sample_placements(self, rng, p_each)

    # -- checking ------------------------------------------------------------------------------
    def check(self, player: int, action: Action) -> None:
        """Raise ``IllegalActionError`` (saying why) unless ``player`` may take ``action`` now."""
        if type(action) is Place and self.phase == PLAY and player == self.current:
            # the most frequent action first (no rule forbids a Place during play)
            self.check_placements(player, ((action.card, action.piece, action.mask),), True)
            return
        checks.check_action(self, player, action)

    def check_placements(
        self,
        player: int,
        placements: Sequence[Placement],
        one_per_puzzle: bool,
        supply: Sequence[int] | None = None,
    ) -> None:
        """Raise unless the placements are legal for ``player``; the pieces come from its
        placeable supply, or from ``supply`` when given (an expansion's new pieces)."""
        return checks.check_placements(self, player, placements, one_per_puzzle, supply)

    def step(self, player: int, action: Action) -> None:
        """Check ``action`` for ``player`` and apply it (raises ``IllegalActionError``)."""
        self.check(player, action)
        if isinstance(action, Finish):
            self._finish(player, action)
        else:
            self.apply(action)

    def step_unchecked(self, player: int, action: Action) -> None:
        """``step`` without its check: for an action the engine itself listed or drew for
        ``player``, the player to move, in this very state (a bot's promise:
        ``Bot.draws_legal_actions``)."""
        # the base game's Play actions by their type first: an isinstance of a class that is not
        # native is a call into the interpreter (about 250 instructions)
        cls = type(action)
        if (
            cls is not _PLACE
            and cls is not _RECYCLE
            and cls is not _TAKE
            and cls is not _UPGRADE
            and cls is not _TAKE_BASIC
            and cls is not _MASTER
            and isinstance(action, _FINISH)
        ):
            self._finish(player, action)
        else:
            self.apply(action)

    # -- applying (fast path: no checks) -------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply a legal action of the player to move (no checks: see ``step``)."""
        hooks = self.hooks
        for x in hooks.before_apply:
            if x.before_apply(self, action):
                return
        kind = _kind(action)
        p = self.current
        counts = True
        if kind == "place":
            self.place_piece(p, action.card, action.piece, action.mask)  # type: ignore[attr-defined]
            self.complete_puzzles(p)
        elif kind == "reward":
            self._take_reward(p, action.piece)  # type: ignore[attr-defined]
            rewards.resolve_rewards(self, p)
            if self.phase == REWARD:
                return
            counts = False
        elif kind == "take":
            self._take(p, action.card)  # type: ignore[attr-defined]
        elif kind == "take_deck":
            self._take_deck(p, action.colour)  # type: ignore[attr-defined]
        elif kind == "upgrade":
            give: int = action.give  # type: ignore[attr-defined]
            get: int = action.get  # type: ignore[attr-defined]
            self.supply[p][give] -= 1
            self.reserve[give] += 1
            self.reserve[get] -= 1
            self.supply[p][get] += 1
        elif kind == "take_basic":
            piece = self.basic_piece()
            if piece is not None:
                self.reserve[piece] -= 1
                self.supply[p][piece] += 1
        elif kind == "recycle":
            self._recycle(action.colour, action.order)  # type: ignore[attr-defined]
        elif kind == "master":
            self.master_used = True
            for card, piece, mask in action.placements:  # type: ignore[attr-defined]
                self.place_piece(p, card, piece, mask)
            self.complete_puzzles(p)
        elif isinstance(action, Finish):  # the base game's, or an expansion's own
            self._finish(p, action)
            return
        else:
            owner = hooks.action_owner.get(kind)
            if owner is None:
                raise IllegalActionError(f"unknown action {action!r}")
            owner.apply_action(self, action)
            counts = owner.counts_as_action(self, action)
        for x in hooks.after_action:
            x.after_action(self)
        if counts:
            self.actions_left -= 1
        if self.phase == PLAY or (self.phase == REWARD and not self.reward_options):
            self.phase = PLAY
            self._advance()

    def place_piece(self, p: int, card: int, piece: int, mask: Mask25) -> None:
        """Put a supply piece of ``p`` on its unfinished puzzle ``card`` (no checks)."""
        slots = self.slots[p]
        for i, (c, filled, placed) in enumerate(slots):
            if c == card:
                slots[i] = (c, filled | mask, (*placed, (piece, mask)))
                self.supply[p][piece] -= 1
                return

    def complete_puzzles(self, p: int) -> None:
        """Complete every full puzzle of ``p``: pieces back, card to the pile, rewards."""
        return rewards.complete_puzzles(self, p)

    def resume_rewards(self, p: int) -> None:
        """Resolve the rest of the reward queue after a decision an expansion opened."""
        rewards.resolve_rewards(self, p)

    def _take_reward(self, p: int, piece: int) -> None:
        self.pending = self.pending[1:]
        self.reward_options = ()
        self.reserve[piece] -= 1
        self.supply[p][piece] += 1

    def draw(self, colour: int) -> int | None:
        """Draw the top card of deck ``colour`` (None when empty); the end trigger included."""
        deck = self.decks[colour]
        if not deck:
            return None
        card = deck[0]
        if card == HIDDEN:
            raise IllegalActionError("this view hides the deck order: redeal() it first")
        deck = deck[1:]
        self.decks = put(self.decks, colour, deck)
        if self.known_bottom[colour] > len(deck):
            self.known_bottom = put(self.known_bottom, colour, len(deck))
        self.last_progress_round = self.round
        if not deck and not self.trigger_round and not self._deck_left():
            # rulings, End: the deck whose emptying ends the game just became empty; black
            # puzzles taken earlier in this turn don't count towards the one-per-turn limit.
            self.trigger_round = self.round
            self.black_taken = 0
        return card

    def cards_to_trigger(self) -> int:
        """*Variant*: return how many cards the deck whose emptying triggers the end holds."""
        return len(self.decks[BLACK])

    def _deck_left(self) -> bool:
        """*Variant*: return whether the deck whose emptying ends the game still has cards."""
        return bool(self.decks[BLACK])

    def _take(self, p: int, card: int) -> None:
        """*Variant*: take a face-up puzzle (the base game: from a row, refilled at once)."""
        colour = BLACK if self.tables.is_black[card] else WHITE
        row = list(self.rows[colour])
        i = row.index(card)
        if colour == BLACK and self.trigger_round:
            self.black_taken += 1
        new = self.draw(colour)
        if new is None:
            del row[i]
        else:
            row[i] = new
        self.rows[colour] = tuple(row)
        self.slots[p].append((card, 0, ()))

    def _take_deck(self, p: int, colour: int) -> None:
        """*Variant*: take the top card of a deck blind."""
        if colour == BLACK and self.trigger_round:
            self.black_taken += 1
        card = self.draw(colour)
        assert card is not None
        self.slots[p].append((card, 0, ()))

    def row_size(self) -> int:
        """*Variant*: return how many face-up cards a full row holds."""
        return _numbers(self.rules).row_size

    def row_sets(self) -> list[list[tuple[int, ...]]]:
        """*Variant*: return every pair of [white, black] rows on the table, as dealt."""
        return [self.rows]

    def _recycle(self, colour: int, order: tuple[int, ...]) -> None:
        # The row goes under the deck and the top cards come up: draw's bookkeeping, done once
        # for the whole row. Cycling a row is no progress (last_progress_round kept).
        order = order or self.rows[colour]
        deck = self.decks[colour] + tuple(order)
        n = min(self.row_size(), len(deck))
        if HIDDEN in deck[:n]:
            raise IllegalActionError("this view hides the deck order: redeal() it first")
        self.rows[colour] = deck[:n]
        deck = deck[n:]
        self.decks = put(self.decks, colour, deck)
        known = min(self.known_bottom[colour] + len(order), len(deck))
        self.known_bottom = put(self.known_bottom, colour, known)
        if n and not deck and not self.trigger_round and not self._deck_left():
            self.trigger_round = self.round  # rulings, End (as in draw)
            self.black_taken = 0

    def _finish(self, p: int, action: Finish) -> None:
        # rulings, Finishing Touches: all pieces are placed before anything counts as completed;
        # a completed puzzle goes to the pile and its pieces back to supply (completion step 1),
        # but it gives no reward. Each placement costs a point, but those an expansion's own
        # Finish pays for (``pay_finishing``).
        placements = action.placements
        for card, piece, mask in placements:
            self.place_piece(p, card, piece, mask)
        paid = 0
        if type(action) is not Finish:
            paid = self.hooks.action_owner[action.kind].pay_finishing(self, p, action)
        self.ft_pieces = put(self.ft_pieces, p, self.ft_pieces[p] + len(placements) - paid)
        t = self.tables
        keep = []
        for slot in self.slots[p]:
            card, filled, placed = slot
            if filled != t.recess[card]:
                keep.append(slot)
                continue
            for piece, _ in placed:
                self.supply[p][piece] += 1
            self.piles = put(self.piles, p, (*self.piles[p], card))
            self.scores = put(self.scores, p, self.scores[p] + t.points[card])
        self.slots[p] = keep
        self.finished = put(self.finished, p, True)
        self._next_finisher()

    # -- turn flow -----------------------------------------------------------------------------
    def _has_take(self) -> bool:
        """*Variant*: return whether there is any puzzle to take (rows or decks)."""
        return bool(self.rows[WHITE] or self.rows[BLACK] or self.decks[WHITE] or self.decks[BLACK])

    def _has_play_action(self) -> bool:
        """*Variant*: return whether the player to move has any legal Play action."""
        if self.can_take() and self._has_take():
            return True
        if self.rows[WHITE] or self.rows[BLACK]:
            return True  # Recycle
        return self._has_piece_action()

    def _has_piece_action(self) -> bool:
        """Return whether the player to move may act on pieces: Upgrade A or B, Place, or an
        expansion's action on pieces."""
        if self.basic_piece() is not None:
            return True
        if self.upgrade_actions():
            return True
        if self.place_actions():
            return True
        return any(x.has_piece_action(self) for x in self.hooks.has_piece_action)

    def advance(self) -> None:
        """Move on through what needs no decision (after a decision an expansion resolved)."""
        self._advance()

    def _pass_limit(self) -> int:
        """*Variant*: return how many turns in a row may pass before the game is a stall."""
        return 4 * self.n

    def _advance(self) -> None:
        """*Variant*: move on through everything that needs no decision: turn end, passes,
        round end."""
        guard = 0
        limit = self._pass_limit()
        while self.phase == PLAY:
            if self.actions_left > 0:
                if self._has_play_action():
                    return
                self.actions_left = 0  # rulings: no legal action -> pass the rest of the turn
            self._end_turn()
            guard += 1
            if guard > limit:
                self._end_game(END_STALL)

    def end_turn_effects(self) -> None:
        """Apply the expansions' end-of-turn effects for the player to move."""
        for x in self.hooks.end_turn:
            x.end_turn(self)

    def _after_turn(self) -> None:
        """*Variant*: what happens after a player's turn, before the next one (Solo: the
        mastermind's turn)."""

    def _end_turn(self) -> None:
        self.end_turn_effects()
        self._after_turn()
        self.current = (self.current + 1) % self.n
        self.actions_left = self.actions_per_turn
        self.master_used = False
        self.black_taken = 0
        self.turn += 1
        if self.current != self.first_player:
            return
        # end of a round: the final round after the trigger's round ends the game
        self._end_round(bool(self.trigger_round) and self.round >= self.trigger_round + 1)

    def _end_round(self, final: bool) -> None:
        """End a round: the game when it was the ``final`` one or an expansion ends it now (then
        Finishing Touches), else the safety cap or a stall (truncated), else the next round."""
        ends = final
        for x in self.hooks.ends_game_at_round_end:
            ends = ends or x.ends_game_at_round_end(self)
        numbers = _numbers(self.rules)
        if ends:
            self._start_finishing()
        elif self.round >= numbers.max_rounds:
            self._end_game(END_MAX_ROUNDS)
        elif self.round - self.last_progress_round >= numbers.stall_rounds:
            self._end_game(END_STALL)
        else:
            self.round += 1

    def _start_finishing(self) -> None:
        for x in self.hooks.start_finishing:
            x.start_finishing(self)
        self.phase = FINISHING
        self.finished = (False,) * self.n
        self.current = self.first_player
        self._next_finisher()

    def _next_finisher(self) -> None:
        for k in range(self.n):
            p = (self.first_player + k) % self.n
            if not self.finished[p]:
                self.current = p
                return
        self._end_game(END_RULES)

    def truncate(self, reason: str) -> None:
        """End the game now, scored as it stands and flagged with ``reason`` (a safety cap)."""
        self._end_game(reason)

    def _end_game(self, reason: str) -> None:
        self.phase = OVER
        self.end_reason = reason

    # -- setups and results --------------------------------------------------------------------
    @classmethod
    def deal_table(cls, rules: Rules, rng: random.Random) -> dict[str, Any]:
        """*Variant*: deal the table of a setup (the base game: shuffled white deck, a random
        black deck of the player count's size, a random first player)."""
        cards = _cards(rules.catalogue)
        white = list(cards.white)
        black = list(cards.black)
        if rules.added_puzzles:  # dealt in afterwards (dealing.deal_added)
            white = [pid for pid in white if pid not in rules.added_puzzles]
            black = [pid for pid in black if pid not in rules.added_puzzles]
        # rng.shuffle and rng.sample: the same draws, compiled
        moves.shuffle(rng, white)
        black = moves.sample(rng, black, rules.black_deck_size)
        first = rng.randrange(rules.players)
        return {"first_player": first, "white_deck": white, "black_deck": black}

    def table_json(self) -> dict[str, Any]:
        """*Variant*: return the table part of the setup of a game that has not moved yet."""
        ids = _cards(self.rules.catalogue).ids
        return {
            "first_player": self.first_player,
            "white_deck": [ids[c] for c in self.rows[WHITE] + self.decks[WHITE]],
            "black_deck": [ids[c] for c in self.rows[BLACK] + self.decks[BLACK]],
        }

    def variant_result(self, result: dict[str, Any]) -> None:
        """*Variant*: add the variant's part to a finished game's record ``result``."""

    def variant_seat_columns(self, player: int) -> dict[str, Any]:
        """Variant: return its declared columns of a seat row of the outcome tables."""
        return {}

    def variant_game_columns(self) -> dict[str, Any]:
        """Variant: return its declared columns of a game row of the outcome tables."""
        return {}

    def variant_summary(self, out: dict[str, Any]) -> None:
        """*Variant*: add the variant's part to ``replay --json``'s state."""

    def pieces_elsewhere(self) -> list[int]:
        """*Variant*: return pieces (indices, repeated) held beyond the reserve, supplies and
        puzzles (Solo: the locks and the mastermind's supply), for the invariants."""
        return []

    def check_variant_invariants(self) -> None:
        """*Variant*: raise ``InvariantError`` unless the variant's invariants hold."""

    def table_lines(self) -> list[str] | None:
        """*Variant*: return the drawing of the table, or None for the base game's rows."""
        return None

    # -- text ----------------------------------------------------------------------------------
    def describe(self, action: Action) -> str:
        """Return a short text form of an action."""
        return describe(action, self.tables.cat)

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} round {self.round} player {self.current} phase "
            f"{self.phase} scores {self.scores}>"
        )


# registered after the class: mypyc compiles no class decorator on a native class
register_variant()(GameState)


def finish_options(state: GameState) -> list[Action]:
    """Return Finishing Touches candidates: none, and each completable set of puzzles.

    For each subset of the unfinished puzzles (largest first), one plan that completes exactly
    those puzzles with the pieces in supply, found by the fillability module.
    """
    index = tiling_index(state.tables.cat)
    p = state.current
    t = state.tables
    supply = state.placeable_supply(p)
    options: list[Action] = [Finish(())]
    slots = state.slots[p]
    # Each puzzle's cheapest plan with the whole supply, once: when a subset's remaining pieces
    # still cover it, it is also the cheapest plan with those pieces (the same answer plan gives).
    whole: dict[int, list[tuple[int, Mask25]] | None] = {}
    for card, filled, _ in slots:
        empty = t.recess[card] & ~filled
        # a one-tiling search rules most puzzles out far cheaper than the full plan
        whole[card] = plan(t.cat, empty, supply) if index.exists(empty, supply) else None
    seen: set[tuple[Placement, ...]] = set()
    for size in range(len(slots), 0, -1):
        for subset in itertools.combinations(slots, size):
            left = supply[:]
            placements: list[Placement] = []
            ok = True
            for card, filled, _ in subset:
                found = whole[card]
                if found is None:
                    ok = False
                    break
                need = [0] * len(left)
                for piece, _ in found:
                    need[piece] += 1
                if any(n > h for n, h in zip(need, left, strict=True)):
                    empty = t.recess[card] & ~filled
                    found = plan(t.cat, empty, left) if index.exists(empty, left) else None
                    if found is None:
                        ok = False
                        break
                for piece, mask in found:
                    left[piece] -= 1
                    placements.append((card, piece, mask))
            key = tuple(placements)
            if ok and key not in seen:
                seen.add(key)
                options.append(Finish(key))
    return options


def parse_setup(setup: dict[str, Any], rules: Rules) -> tuple[int, list[int], list[int]]:
    """Return ``(first player, white deck, black deck)`` of a base-game setup (cards top first);
    raise ``RecordError`` for a malformed one."""
    cards = _cards(rules.catalogue)
    if not isinstance(setup, dict):
        raise RecordError("setup must be an object")
    first = setup.get("first_player")
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < rules.players:
        raise RecordError(f"setup.first_player must be a seat 0-{rules.players - 1}, got {first!r}")
    decks = []
    seen = [False] * len(cards.ids)  # by card: an id is one card's
    for colour in COLOURS:
        key = f"{colour}_deck"
        ids = setup.get(key)
        if not isinstance(ids, list):
            raise RecordError(f"setup.{key} must be a list of puzzle ids")
        deck = []
        for pid in ids:
            card = cards.index.get(pid, -1) if isinstance(pid, str) else -1
            if card < 0:
                raise RecordError(f"setup.{key}: unknown puzzle {pid!r}")
            if cards.colours[card] != colour:
                raise RecordError(f"setup.{key}: {pid} is not a {colour} puzzle")
            if seen[card]:
                raise RecordError(f"setup.{key}: {pid} appears twice")
            seen[card] = True
            deck.append(card)
        decks.append(deck)
    return first, decks[0], decks[1]
