"""The engine: state, legal actions, checked and fast application, scoring.

State is a handful of lists of ints and tuples, copied by a hand-written ``copy()``. Decks and rows
are tuples (top of a deck first) so copies share them; a player's puzzle slot is a tuple
``(card, filled_mask, placed)`` where ``placed`` is a tuple of ``(piece, mask)``.

``apply`` is the fast path (no checks); ``check`` raises ``IllegalActionError`` saying why an
action is illegal, and ``step`` is ``check`` then ``apply``. After every transition the engine
advances by itself through what needs no decision: end of turn, passing when no action is legal,
the end of the round, the final round, and scoring.

The solo variant (``projectl_sim.solo``) is the base game plus a table block ``solo`` (grid,
locks, opponent) and a few named hooks: dealing, taking from the grid, drawing from its one deck,
and the mastermind's turn, which the engine plays by itself at the end of each player turn.

The Finesse expansion (``projectl_sim.finesse``) adds a block ``finesse`` (the tile row and the
Credits) and named hooks (``_finesse_*``): each is behind one ``self.finesse is not None`` test, so
the base game pays nothing for them.

The Line Clear variant (``projectl_sim.line_clear``, 5-6 players) adds a block ``line_clear`` (the
markers, the other side's rows, the waiting holder's turn) and hooks (``_lc_*``): the turn flow of
two marker holders playing at once is its own ``_lc_advance``, reached by one ``is not None`` test
in ``_advance``. ``rows`` are the rows of the side of the player to move.
The Ambassador Pack (``projectl_sim.ambassador``) adds a block ``ambassadors`` (each player's
Ambassadors) and the Ambassador action; the Endless White Deck (``projectl_sim.endless``) a block
``endless`` (the reshuffle seed and the noted cards) and one hook, ``_endless_reshuffle``. Both
blocks are immutable (copies share them) and None when not played. Phoenix is puzzle data only.
The Ghost Piece expansion (``projectl_sim.ghost``) adds a block ``ghost`` (the switches, the Level
Up being resolved, counters), the ``level_up`` phase and named hooks (``_ghost_*``), the same way.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from projectl_sim.actions import (
    BLACK,
    COLOURS,
    DECKS,
    PUZZLE,
    WHITE,
    Action,
    Ambassador,
    Finish,
    Ghost,
    Insert,
    LevelUp,
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
from projectl_sim.ambassador import Ambassadors
from projectl_sim.catalogue import AMBASSADOR, LEVEL_UP_1, LEVEL_UP_2, Catalogue, Mask25
from projectl_sim.endless import Endless, deal_seed, has_white, reseed, reshuffle
from projectl_sim.endless import hide as hide_noted
from projectl_sim.errors import IllegalActionError, RecordError
from projectl_sim.finesse import (
    INSERT_COST,
    ROW_LENGTH,
    Credits,
    deal_tiles,
    end_of_turn_count,
    hide_face_down,
    level_up_count,
    parse_row,
    pink_count,
    redeal_row,
)
from projectl_sim.ghost import Ghosts, ghost_tables
from projectl_sim.line_clear import (
    BLACK_HOLDER,
    MARKER_NAMES,
    SIDES,
    WHITE_HOLDER,
    LineClear,
    check_markers,
    deal_rows,
    markers_json,
    markers_of,
    sides,
)
from projectl_sim.line_clear import ROW_SIZE as LC_ROW_SIZE
from projectl_sim.rules import ACTIONS_PER_TURN, MAX_UNFINISHED, ROW_SIZE, STARTING_SUPPLY, Rules
from projectl_sim.solo import (
    EMPTY,
    Solo,
    column,
    deal_solo,
    fill_gap,
    least_valuable_in_column,
    lock_to_opponent,
    mastermind_choice,
    mastermind_take,
    parse_solo_setup,
    setup_json,
    take_to_pile,
    unlock,
)

# Phases (Ghost Piece: LEVEL_UP, a Level Up reward's steps)
PLAY, REWARD, FINISHING, OVER = "play", "reward", "finishing_touches", "over"
LEVEL_UP = "level_up"
# Why a game ended
END_RULES, END_MAX_ROUNDS, END_STALL = "rules", "max_rounds", "stall"

HIDDEN = -1  # a deck card the viewing player cannot see

# Rewards that are not a piece, as codes in the reward table (piece rewards are indices >= 0).
REWARD_LEVEL_UP_1, REWARD_LEVEL_UP_2, REWARD_AMBASSADOR = -1, -2, -3
SPECIAL_REWARD_CODES = {
    LEVEL_UP_1: REWARD_LEVEL_UP_1,
    LEVEL_UP_2: REWARD_LEVEL_UP_2,
    AMBASSADOR: REWARD_AMBASSADOR,
}
_SPECIAL_REWARD_LEVELS = {REWARD_LEVEL_UP_1: 1, REWARD_LEVEL_UP_2: 2, REWARD_AMBASSADOR: 2}
# rulings, Ghost Piece: a Level Up reward's upgrade steps (↑ one, ⇈ two)
LEVEL_UP_STEPS = {REWARD_LEVEL_UP_1: 1, REWARD_LEVEL_UP_2: 2}

Slot = tuple[int, Mask25, tuple[tuple[int, Mask25], ...]]

# Hidden decks of each length, shared by every view (a deck is an immutable tuple).
_HIDDEN_DECKS: list[tuple[int, ...]] = [(HIDDEN,) * n for n in range(64)]


# Every order of the positions of a row of n cards (n <= ROW_SIZE), for sampling a Recycle.
_ORDERS = [tuple(itertools.permutations(range(n))) for n in range(ROW_SIZE + 1)]


def _hide(deck: tuple[int, ...], known_bottom: int) -> tuple[int, ...]:
    """Return ``deck`` with all but its ``known_bottom`` cards ``HIDDEN``."""
    unseen = len(deck) - known_bottom
    hidden = _HIDDEN_DECKS[unseen] if unseen < len(_HIDDEN_DECKS) else (HIDDEN,) * unseen
    return hidden + deck[unseen:] if known_bottom else hidden


def rng_from_seed(seed: int | np.random.SeedSequence) -> random.Random:
    """Return a fast ``random.Random`` derived from a seed or a numpy ``SeedSequence``."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return random.Random(int(ss.generate_state(2, dtype=np.uint64)[0]))


class _Tables:
    """Per-catalogue derived tables and caches shared by every game in the process."""

    def __init__(self, cat: Catalogue) -> None:
        self.cat = cat
        self.n_pieces = len(cat.pieces)
        self.levels = tuple(p.level for p in cat.pieces)
        self.by_level: dict[int, tuple[int, ...]] = {}
        for p in cat.pieces:
            self.by_level.setdefault(p.level, ())
            self.by_level[p.level] += (p.index,)
        self.max_level = max(self.by_level)
        self.recess = tuple(p.recess for p in cat.puzzles)
        self.points = tuple(p.points for p in cat.puzzles)
        self.is_black = tuple(p.is_black for p in cat.puzzles)
        # a puzzle's reward: a piece index, or one of the special rewards (negative codes)
        self.reward = tuple(
            SPECIAL_REWARD_CODES[p.reward]
            if p.reward in SPECIAL_REWARD_CODES
            else cat.piece_index(p.reward)
            for p in cat.puzzles
        )
        # what a reward is worth in piece levels, for the bots' evaluations: a piece its level, a
        # Level Up its steps, an Ambassador (a free Master) as much as a level-2 piece
        self.reward_level = tuple(
            self.levels[r] if r >= 0 else _SPECIAL_REWARD_LEVELS[r] for r in self.reward
        )
        self.mono = cat.piece_index("mono")
        self.take_actions = tuple(Take(c) for c in range(len(cat.puzzles)))
        self.upgrade_actions = {
            (g, t): Upgrade(g, t) for g in range(self.n_pieces) for t in range(self.n_pieces)
        }
        self.reward_actions = tuple(Reward(p) for p in range(self.n_pieces))
        # rulings: Upgrade B = same level (another shape), any lower level, or exactly one level
        # higher; reserve shortage: if that higher level is empty, one level above it. Per piece
        # given: the level above it, and the candidate targets (in piece order) without and with
        # the shortage, so that a query only filters on the reserve. Rulings, Ghost Piece: the
        # Upgrade action never reaches level 5, so no ghost is a target (a ghost may be given).
        levels = self.levels
        ghost = tuple(p.is_ghost for p in cat.pieces)
        self.upgrade_up: tuple[tuple[int, ...], ...] = tuple(
            tuple(p for p in self.by_level.get(levels[g] + 1, ()) if not ghost[p])
            for g in range(self.n_pieces)
        )

        def targets(g: int, step: int) -> tuple[int, ...]:
            return tuple(
                p
                for p in range(self.n_pieces)
                if p != g
                and not ghost[p]
                and (levels[p] <= levels[g] or levels[p] == levels[g] + step)
            )

        self.upgrade_targets: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
            (targets(g, 1), targets(g, 2)) for g in range(self.n_pieces)
        )
        # rulings, reserve shortage: per wanted piece, the other shapes of its level, then the
        # shapes one level higher or of any lower level (each in piece order)
        self.shortage_candidates: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
            (
                tuple(p for p in self.by_level[levels[w]] if p != w),
                tuple(
                    p
                    for p in range(self.n_pieces)
                    if levels[p] == levels[w] + 1 or levels[p] < levels[w]
                ),
            )
            for w in range(self.n_pieces)
        )
        # per piece given, its Upgrade actions while no piece of the reserve is out (the usual
        # case): no shortage then, unless no level lies above the piece given
        self.upgrade_full: tuple[tuple[Upgrade, ...], ...] = tuple(
            tuple(
                self.upgrade_actions[g, get]
                for get in self.upgrade_targets[g][0 if self.upgrade_up[g] else 1]
            )
            for g in range(self.n_pieces)
        )
        # (colour, row) -> every Recycle of that row, one per drawing order
        self.recycle_cache: dict[tuple[int, tuple[int, ...]], tuple[Recycle, ...]] = {}
        # (card, empty mask) -> per piece, the Place actions that fit
        self.place_cache: dict[tuple[int, Mask25], tuple[tuple[Place, ...], ...]] = {}
        # card -> per piece, mask -> its Place action (every placement inside the recess)
        self.place_objects: list[tuple[dict[Mask25, Place], ...] | None] = [None] * len(cat.puzzles)
        # empty mask -> the pieces that fit in it, each with its placements there
        self.group_cache: dict[Mask25, tuple[tuple[int, tuple[Mask25, ...]], ...]] = {}

    def fit_groups(self, card: int, empty: Mask25) -> tuple[tuple[int, tuple[Mask25, ...]], ...]:
        """Return the pieces that fit in a puzzle's empty cells, each with its placements there,
        in piece order (``Catalogue.fits_in`` less the pieces that don't fit; cached: the hot
        loops of play then skip those pieces)."""
        hit = self.group_cache.get(empty)
        if hit is None:
            # the puzzle's own placements (cached per recess) that lie in the empty cells
            groups = []
            for piece, masks in enumerate(self.cat.fits(self.recess[card])):
                inside = tuple([m for m in masks if m & empty == m])
                if inside:
                    groups.append((piece, inside))
            hit = tuple(groups)
            if len(self.group_cache) > 300_000:
                self.group_cache.clear()
            self.group_cache[empty] = hit
        return hit

    def recycle_actions(self, colour: int, row: tuple[int, ...]) -> tuple[Recycle, ...]:
        hit = self.recycle_cache.get((colour, row))
        if hit is None:
            hit = tuple(Recycle(colour, order) for order in itertools.permutations(row))
            if len(self.recycle_cache) > 100_000:
                self.recycle_cache.clear()
            self.recycle_cache[colour, row] = hit
        return hit

    def place_actions(self, card: int, empty: Mask25) -> tuple[tuple[Place, ...], ...]:
        key = (card, empty)
        hit = self.place_cache.get(key)
        if hit is None:
            # the Place objects are made once per puzzle (for its whole recess) and shared by
            # every empty region of it: a miss only looks them up (~10x cheaper than making them)
            objects = self.place_objects[card]
            if objects is None:
                objects = self.place_objects[card] = tuple(
                    {m: Place(card, piece, m) for m in masks}
                    for piece, masks in enumerate(self.cat.fits(self.recess[card]))
                )
            fits = self.cat.fits_in(self.recess[card], empty)
            hit = tuple(
                tuple([by_mask[m] for m in masks]) if masks else ()
                for by_mask, masks in zip(objects, fits, strict=True)
            )
            if len(self.place_cache) > 300_000:
                self.place_cache.clear()
            self.place_cache[key] = hit
        return hit


_TABLES: dict[int, _Tables] = {}


def tables(cat: Catalogue) -> _Tables:
    """Return the derived tables of a catalogue (built once per catalogue object)."""
    t = _TABLES.get(id(cat))
    if t is None or t.cat is not cat:
        t = _TABLES[id(cat)] = _Tables(cat)
    return t


def shortage_options(reserve: Sequence[int], wanted: int, t: _Tables) -> tuple[int, ...]:
    """Return the shapes a player may take when asking the reserve for ``wanted``.

    Rulings, reserve shortage: the wanted shape if there is one; else any other shape of the same
    level; if that level is empty, a shape one level higher or of any lower level; else nothing.
    """
    if reserve[wanted] > 0:
        return (wanted,)
    same, fallback = t.shortage_candidates[wanted]
    found = tuple([p for p in same if reserve[p] > 0])
    if found:
        return found
    return tuple([p for p in fallback if reserve[p] > 0])


class GameState:
    """One game of Project L (base game, 2-4 players; solo, 1 player; Line Clear, 5-6 players)."""

    __slots__ = (
        "actions_left",
        "ambassadors",
        "black_taken",
        "cards_in_play",
        "current",
        "decks",
        "end_reason",
        "endless",
        "finesse",
        "finished",
        "first_player",
        "ft_pieces",
        "ghost",
        "known_bottom",
        "last_progress_round",
        "line_clear",
        "master_used",
        "n",
        "pending",
        "phase",
        "piles",
        "reserve",
        "reward_options",
        "round",
        "rows",
        "rules",
        "scores",
        "slots",
        "solo",
        "supply",
        "t",
        "trigger_round",
        "turn",
        "viewer",
    )

    def __init__(self, rules: Rules | None = None, setup: Any = None) -> None:
        """Start a game from an explicit setup (see ``new_game`` to deal from a seed).

        Without arguments, an empty shell for ``copy`` to fill (compiled, ``__new__`` calls this).
        ``setup`` is a record's: checked here (typed ``Any`` so that a compiled build, which checks
        declared types on entry, reports a malformed one as the source does).
        """
        if rules is None:
            if setup is None:
                return
            raise TypeError("a game needs its rules")
        if not isinstance(setup, dict):
            raise RecordError("setup must be an object")
        self.rules = rules
        cat = rules.catalogue
        self.t = t = tables(cat)
        self.n = n = rules.players
        self.reserve = [p.copies for p in cat.pieces]
        self.supply = [[0] * t.n_pieces for _ in range(n)]
        for pid in STARTING_SUPPLY:
            i = cat.piece_index(pid)
            for s in self.supply:
                s[i] += 1
                self.reserve[i] -= 1
        self.slots: list[list[Slot]] = [[] for _ in range(n)]
        self.piles: list[tuple[int, ...]] = [() for _ in range(n)]
        self.scores = [0] * n
        self.ft_pieces = [0] * n
        self.solo: Solo | None = None
        self.line_clear: LineClear | None = None
        if rules.solo:
            self._setup_solo(setup)
        else:
            first, white, black = _parse_setup(setup, rules)
            self.first_player = first
            self.current = first
            self.cards_in_play = (len(white), len(black))
            self.rows = [tuple(white[:ROW_SIZE]), tuple(black[:ROW_SIZE])]
            self.decks = [tuple(white[ROW_SIZE:]), tuple(black[ROW_SIZE:])]
            if rules.line_clear:
                self._lc_setup(setup, white, black)
        self.known_bottom = [0, 0]
        self.actions_left = ACTIONS_PER_TURN
        self.master_used = False
        self.round = 1
        self.turn = 1
        self.trigger_round = 0
        self.black_taken = 0
        self.phase = PLAY
        self.pending: tuple[int, ...] = ()
        self.reward_options: tuple[int, ...] = ()
        self.finished = [False] * n
        self.end_reason: str | None = None
        self.last_progress_round = 1
        self.viewer: int | None = None
        self.finesse: Credits | None = None
        if rules.finesse:
            self._setup_finesse(setup)
        self.ghost: Ghosts | None = None
        if rules.ghost:
            self.ghost = Ghosts(
                ghost_tables(cat),
                n,
                free=rules.ghost_action == "free",
                exchange_only=rules.ghost_placement == "exchange_only",
            )
        self.ambassadors = Ambassadors.start(n) if rules.ambassador else None
        self.endless = Endless.start(setup, n) if rules.endless_white_deck else None
        if not self._deck_left():  # a tiny deck is empty from the start
            self.trigger_round = 1
        # (the rules, not self.line_clear: a compiled build takes the None assigned above as
        # the attribute's type here, not seeing that _lc_setup set it)
        if rules.line_clear:
            self._lc_advance(pair_start=True)
        else:
            self._advance()

    def _setup_solo(self, setup: dict[str, Any]) -> None:
        """Deal the solo table: grid from the deck's top, locks and opponent from the reserve."""
        if not isinstance(setup, dict):
            raise RecordError("setup must be an object")
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
        self.first_player = self.current = 0  # rulings, Solo: the player moves first
        on_grid = [c for c in grid if c != EMPTY]
        black_on_grid = sum(self.t.is_black[c] for c in on_grid)
        self.cards_in_play = (
            len(on_grid) - black_on_grid + len(white),
            black_on_grid + len(black),
        )
        self.rows = [(), ()]
        self.decks = [tuple(white), tuple(black)]  # one deck: drawn white first

    def _setup_finesse(self, setup: dict[str, Any]) -> None:
        """Finesse: lay out the tile row of the setup and fill the bank."""
        rules = self.rules
        row = parse_row(
            setup.get("finesse_tiles"), rules.finesse_tiles, rules.finesse_ambassador, rules.solo
        )
        index = {p.id: p.index for p in rules.catalogue.pieces}
        try:
            self.finesse = Credits(rules.finesse_tiles, row, index, self.n)
        except KeyError as exc:
            raise RecordError(f"a Finesse tile depicts an unknown piece: {exc}") from None

    def _lc_setup(self, setup: dict[str, Any], white: list[int], black: list[int]) -> None:
        """Line Clear: deal the left rows, then the right rows, of 3; give out the markers."""
        left, right, decks = deal_rows(white, black)
        self.rows, self.decks = left, decks
        markers = markers_of(self.first_player, self.n)
        check_markers(setup.get("markers"), markers, self.n)
        self.line_clear = LineClear(
            *markers, right, self.rules.line_clear_order == "interleave", ACTIONS_PER_TURN
        )

    # -- copying and views ---------------------------------------------------------------------
    def copy(self) -> GameState:
        """Return an independent copy (decks, rows, slots and piles are shared tuples)."""
        g = GameState.__new__(GameState)  # no __init__ (compiled: one without arguments)
        g.rules = self.rules
        g.t = self.t
        g.n = self.n
        g.reserve = self.reserve[:]
        g.supply = [s[:] for s in self.supply]
        g.slots = [s[:] for s in self.slots]
        g.piles = self.piles[:]
        g.scores = self.scores[:]
        g.ft_pieces = self.ft_pieces[:]
        g.first_player = self.first_player
        g.cards_in_play = self.cards_in_play
        g.current = self.current
        g.rows = self.rows[:]
        g.decks = self.decks[:]
        g.known_bottom = self.known_bottom[:]
        g.actions_left = self.actions_left
        g.master_used = self.master_used
        g.round = self.round
        g.turn = self.turn
        g.trigger_round = self.trigger_round
        g.black_taken = self.black_taken
        g.phase = self.phase
        g.pending = self.pending
        g.reward_options = self.reward_options
        g.finished = self.finished[:]
        g.end_reason = self.end_reason
        g.last_progress_round = self.last_progress_round
        g.viewer = self.viewer
        g.solo = self.solo  # immutable: shared
        g.finesse = None if self.finesse is None else self.finesse.copy()
        g.ghost = None if self.ghost is None else self.ghost.copy()
        g.line_clear = None if self.line_clear is None else self.line_clear.copy()
        g.ambassadors = self.ambassadors  # immutable: shared
        g.endless = self.endless  # immutable: shared
        return g

    def view(self, player: int) -> GameState:
        """Return what ``player`` may know: a copy whose unseen deck cards are ``HIDDEN``.

        The order of the cards recycled to the bottom of a deck is public (the recycling player
        chose it in the open), so those stay visible. Unless the rules say victory points are
        known, the other players' piles are ``HIDDEN`` cards and their scores read 0. In solo the
        grid, the locks and the opponent's pile are public (the opponent takes face-up puzzles).
        """
        g = self.copy()
        g.viewer = player
        if not self.rules.known_victory_points:
            # rulings: victory piles are face down unless "known victory points" is played;
            # the viewer sees how many cards the others completed, not which, nor their points.
            piles, scores = g.piles, g.scores
            for q in range(self.n):
                if q != player:
                    piles[q] = (HIDDEN,) * len(piles[q])
                    scores[q] = 0
        decks, known = self.decks, self.known_bottom
        g.decks = [_hide(decks[0], known[0]), _hide(decks[1], known[1])]  # white, black
        if g.finesse is not None:
            hide_face_down(g.finesse)  # Credits are public; face-down tiles are not
        if g.endless is not None:
            # Endless: the next white deck's order is unknown (no seed), and the noted cards of
            # the others are as hidden as their piles
            g.endless = hide_noted(g.endless, player, not self.rules.known_victory_points, HIDDEN)
        return g

    def unseen_cards(self, colour: int) -> list[int]:
        """Return the cards of a colour that are not visible anywhere (candidates for the deck)."""
        seen: set[int] = set(self.rows[colour])
        if self.line_clear is not None:
            seen.update(self.line_clear.other_rows[colour])
        for d, kb in zip(self.decks, self.known_bottom, strict=True):
            seen.update(d[len(d) - kb :])
        for slots in self.slots:
            seen.update(s[0] for s in slots)
        for pile in self.piles:
            seen.update(pile)
        if self.solo is not None:
            seen.update(self.solo.grid)
            seen.update(self.solo.opponent_pile)
        seen.discard(HIDDEN)  # also EMPTY, the same value
        cat = self.rules.catalogue
        return [c for c in cat.of_colour(COLOURS[colour]) if c not in seen]

    def redeal(self, rng: random.Random) -> GameState:
        """Return a copy whose unseen deck cards are re-dealt at random (determinization).

        Works on a view (fills its ``HIDDEN`` cards) and on a full state alike. Each colour is
        re-dealt among its own unseen cards, so the solo deck keeps its whites on top of its
        blacks, and how many of each remain.
        """
        g = self.copy()
        decks = []
        for colour, (d, kb) in enumerate(zip(self.decks, self.known_bottom, strict=True)):
            hidden = len(d) - kb
            pool = self.unseen_cards(colour)
            decks.append(tuple(rng.sample(pool, hidden)) + d[hidden:])
        g.decks = decks
        if g.finesse is not None:
            redeal_row(g.finesse, self.rules, rng)
        if g.endless is not None:
            g.endless = reseed(g.endless, rng)  # Endless: future reshuffles re-dealt too
        return g

    # -- queries -------------------------------------------------------------------------------
    @property
    def catalogue(self) -> Catalogue:
        return self.rules.catalogue

    def pile_hidden(self, player: int) -> bool:
        """Return whether this view hides ``player``'s victory pile."""
        return HIDDEN in self.piles[player]

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def truncated(self) -> bool:
        return self.end_reason not in (None, END_RULES)

    def unfinished(self, player: int) -> list[int]:
        """Return the cards of a player's unfinished puzzles, in the order taken."""
        return [s[0] for s in self.slots[player]]

    def completed(self, player: int) -> list[int]:
        """Return the cards of a player's victory pile, in the order completed."""
        return list(self.piles[player])

    def completed_count(self, player: int) -> int:
        """Return how many puzzles a player completed (Endless: noted white puzzles included)."""
        if self.endless is None:
            return len(self.piles[player])
        return len(self.piles[player]) + self.endless.noted_count(player)

    def opponent_score(self) -> int:
        """Return the solo opponent's score: the points of its pile (solo variant only)."""
        if self.solo is None:
            raise ValueError("only the solo variant has an opponent")
        return self.solo.opponent_score

    def final_scores(self) -> list[int]:
        """Return each player's score: victory pile, minus unfinished puzzles, minus touches."""
        out = []
        for p in range(self.n):
            score = self.scores[p] - self.ft_pieces[p]
            if self.rules.unfinished_penalty:
                score -= sum(self.t.points[s[0]] for s in self.slots[p])
            out.append(score)
        return out

    def winners(self) -> list[int]:
        """Return the winning seats (several on a shared win), by the configured tie-break.

        Solo: ``[0]`` when the player's score beats the opponent's, else ``[]`` (the opponent
        wins; rulings: a tie goes to the opponent).
        """
        scores = self.final_scores()
        if self.solo is not None:
            return [0] if scores[0] > self.solo.opponent_score else []
        best = max(scores)
        tied = [p for p in range(self.n) if scores[p] == best]
        if len(tied) > 1 and self.finesse is not None:
            tied = self.finesse.richest(tied)  # rulings, Finesse: ties go to the most Credits
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
        Ambassador one when the player holds an Ambassador; ``"none"`` leaves both out (see
        ``master_actions`` / ``sample_master``, ``ambassador_actions`` / ``sample_ambassador``).
        During Finishing Touches the list holds the empty Finish plus one Finish per completable
        set found by ``finish_options`` (any Finish is checked exactly by ``check``). Ghost Piece:
        ``"all"`` also enumerates every Ghost action with its placements, ``"none"`` only the
        exchanges that place nothing (see ``ghost_actions`` / ``sample_ghost``); a Level Up step
        lists ``level_up_actions``.
        """
        phase = self.phase
        if phase == PLAY:
            acts = self._play_actions()
            if master == "all" and self.slots[self.current]:
                if not self.master_used:
                    acts.extend(self.master_actions())
                if self.ambassadors is not None and self.ambassadors.held[self.current]:
                    acts.extend(self.ambassador_actions())
            ghost = self.ghost
            if ghost is not None and not ghost.free:
                acts.extend(self.ghost_actions(placements=master == "all"))
            if self.finesse is not None and self.finesse.active[self.current] >= INSERT_COST:
                acts.extend([Insert(a) for a in acts])  # rulings, Finesse: Insert any action
            if ghost is not None and ghost.free:
                # a free Ghost action is no action: never inserted (ghost.py, judgement call 6)
                acts.extend(self.ghost_actions(placements=master == "all"))
            return acts
        if phase == REWARD:
            return [self.t.reward_actions[p] for p in self.reward_options]
        if phase == FINISHING:
            return finish_options(self)
        if phase == LEVEL_UP:
            return self.level_up_actions()
        return []

    def _can_take(self) -> bool:
        return len(self.slots[self.current]) < MAX_UNFINISHED

    def take_actions(self) -> list[Action]:
        """Return the legal Take actions (rows left to right, then blind from each deck).

        Solo: the grid by position, then blind from the puzzle deck (no black-puzzle limit).
        """
        if not self._can_take():
            return []
        t = self.t
        if self.solo is not None:
            acts: list[Action] = [t.take_actions[c] for c in self.solo.grid if c != EMPTY]
            if self._deck_left():
                acts.append(TakeDeck(PUZZLE))
            return acts
        acts = [t.take_actions[c] for c in self.rows[WHITE]]
        black_ok = not (self.trigger_round and self.black_taken >= 1)
        if black_ok:
            acts.extend(t.take_actions[c] for c in self.rows[BLACK])
        if self.line_clear is not None and self.current != self.line_clear.white:
            return acts  # rulings, Line Clear: only the white-marker holder takes blind
        if self.decks[WHITE]:
            acts.append(TakeDeck(WHITE))
        if black_ok and self.decks[BLACK]:
            acts.append(TakeDeck(BLACK))
        return acts

    def may_recycle(self) -> bool:
        """Return whether the player to move may Recycle its rows at all (if it has any).

        Line Clear: only the white-marker holder (its rows are the left ones). Solo has no rows.
        """
        return self.line_clear is None or self.current == self.line_clear.white

    def recycle_actions(self) -> list[Action]:
        """Return every Recycle: each non-empty row in each drawing order (none in solo)."""
        acts: list[Action] = []
        if self.line_clear is not None and self.current != self.line_clear.white:
            return acts  # rulings, Line Clear: only the white-marker holder Recycles
        for colour in (WHITE, BLACK):
            row = self.rows[colour]
            if row:
                acts.extend(self.t.recycle_actions(colour, row))
        return acts

    def sample_recycle(self, rng: random.Random) -> Recycle | None:
        """Return a uniformly random legal Recycle without listing them all (None: none)."""
        if self.line_clear is not None and self.current != self.line_clear.white:
            return None  # rulings, Line Clear: only the white-marker holder Recycles
        weights = [math.factorial(len(row)) if row else 0 for row in self.rows[:2]]
        total = sum(weights)
        if not total:
            return None
        colour = WHITE if rng.random() * total < weights[WHITE] else BLACK
        row = self.rows[colour]
        orders = _ORDERS[len(row)]
        order = orders[int(rng.random() * len(orders))]  # uniform: cheaper than a shuffle
        return Recycle(colour, tuple([row[i] for i in order]))

    def upgrade_actions(self) -> list[Action]:
        """Return every Upgrade B (give, get) pair the reserve allows."""
        t = self.t
        reserve = self.reserve
        supply = self.supply[self.current]
        acts: list[Action] = []
        if all(reserve):  # nothing out: the targets are fixed per piece given
            full = t.upgrade_full
            for give, held in enumerate(supply):
                if held:
                    acts.extend(full[give])
            return acts
        table = t.upgrade_actions
        for give in range(t.n_pieces):
            if supply[give]:
                acts.extend([table[give, get] for get in self._upgrade_targets(give, reserve)])
        return acts

    def _upgrade_targets(self, give: int, reserve: Sequence[int]) -> list[int]:
        # rulings: Upgrade B and the reserve shortage (see _Tables.upgrade_targets)
        t = self.t
        shortage = 1
        for p in t.upgrade_up[give]:
            if reserve[p]:
                shortage = 0
                break
        return [p for p in t.upgrade_targets[give][shortage] if reserve[p]]

    def basic_piece(self) -> int | None:
        """Return the piece Upgrade A would take (a mono, or the shortage substitute)."""
        mono = self.t.mono
        if self.reserve[mono]:
            return mono  # the usual case, without building the options
        options = shortage_options(self.reserve, mono, self.t)
        return options[0] if options else None

    def placeable_supply(self, player: int) -> list[int]:
        """Return the pieces ``player`` may place: the supply itself (do not mutate it), or with
        Ghost Piece's ``exchange_only`` a copy without the ghosts."""
        supply = self.supply[player]
        return supply if self.ghost is None else self.ghost.placeable(supply)

    def place_actions(self) -> list[Action]:
        """Return every Place of an owned piece into an own unfinished puzzle."""
        t = self.t
        supply = self.supply[self.current]
        if self.ghost is not None:
            supply = self.ghost.placeable(supply)
        acts: list[Action] = []
        for card, filled, _ in self.slots[self.current]:
            per_piece = t.place_actions(card, t.recess[card] & ~filled)
            for piece, places in enumerate(per_piece):
                if supply[piece] and places:
                    acts.extend(places)
        return acts

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
        if self.master_used or self.phase != PLAY:
            return
        yield from self._one_per_puzzle(Master)

    def ambassador_actions(self) -> Iterator[Ambassador]:
        """Yield every Ambassador action (placed as a Master) when the player holds one."""
        if self.ambassadors is None or not self.ambassadors.held[self.current]:
            return
        if self.phase != PLAY:
            return
        yield from self._one_per_puzzle(Ambassador)

    def _one_per_puzzle(self, make: type[Master] | type[Ambassador]) -> Iterator[Any]:
        """Yield ``make(placements)`` for every set of placements of Master's kind: one or more
        pieces of the supply, at most one per own unfinished puzzle."""
        for chosen in self._placement_sets(self.placeable_supply(self.current)):
            yield make(chosen)

    def _placement_sets(self, pieces: Sequence[int]) -> Iterator[tuple[Placement, ...]]:
        """Yield every non-empty set of placements into the mover's unfinished puzzles, at most
        one per puzzle, using at most ``pieces[p]`` of each piece ``p`` (puzzles in the order
        taken; in each, nothing first, then every placement in piece and mask order)."""
        t = self.t
        left = list(pieces)
        per_slot = []
        for card, filled, _ in self.slots[self.current]:
            groups = t.fit_groups(card, t.recess[card] & ~filled)
            per_slot.append(
                [(card, piece, m) for piece, masks in groups if left[piece] for m in masks]
            )

        def go(i: int, chosen: list[Placement]) -> Iterator[tuple[Placement, ...]]:
            if i == len(per_slot):
                if chosen:
                    yield tuple(chosen)
                return
            yield from go(i + 1, chosen)
            for pl in per_slot[i]:
                piece = pl[1]
                if left[piece]:
                    left[piece] -= 1
                    chosen.append(pl)
                    yield from go(i + 1, chosen)
                    chosen.pop()
                    left[piece] += 1

        yield from go(0, [])

    def sample_master(self, rng: random.Random, p_each: float = 0.75) -> Master | None:
        """Return a random legal Master (each puzzle gets a piece with probability ``p_each``)."""
        if self.master_used or self.phase != PLAY or not self.slots[self.current]:
            return None
        chosen = self._sample_one_per_puzzle(rng, p_each)
        return Master(chosen) if chosen else None

    def sample_ambassador(self, rng: random.Random, p_each: float = 0.75) -> Ambassador | None:
        """Return a random legal Ambassador action, drawn as ``sample_master`` draws a Master."""
        if self.ambassadors is None or not self.ambassadors.held[self.current]:
            return None
        if self.phase != PLAY or not self.slots[self.current]:
            return None
        chosen = self._sample_one_per_puzzle(rng, p_each)
        return Ambassador(chosen) if chosen else None

    def _sample_one_per_puzzle(self, rng: random.Random, p_each: float) -> tuple[Placement, ...]:
        """Return random placements of Master's kind (empty when none was drawn)."""
        t = self.t
        left = self.supply[self.current][:]
        if self.ghost is not None:
            left = self.ghost.placeable(left)
        chosen: list[Placement] = []
        for card, filled, _ in self.slots[self.current]:
            if rng.random() >= p_each and chosen:
                continue
            groups = t.fit_groups(card, t.recess[card] & ~filled)
            # uniform over this puzzle's placements of the pieces left, without listing them
            total = 0
            for piece, masks in groups:
                if left[piece]:
                    total += len(masks)
            if not total:
                continue
            r = int(rng.random() * total)  # cheaper than randrange in hot loops
            for piece, masks in groups:
                if left[piece]:
                    if r < len(masks):
                        left[piece] -= 1
                        chosen.append((card, piece, masks[r]))
                        break
                    r -= len(masks)
        return tuple(chosen)

    # -- Ghost Piece: legal Ghost actions and Level Up steps (rulings, Ghost Piece) ----------------
    def ghost_takes(self, ghost: int) -> list[tuple[int, ...]]:
        """Return the piece multisets a Ghost action of ``ghost`` may take now (ghost.py)."""
        if self.ghost is None:
            return []
        return self.ghost.tables.takes(ghost, self.reserve)

    def ghost_actions(self, placements: bool = True) -> Iterator[Ghost]:
        """Yield every Ghost action of the player to move (ghost order, then take order).

        Each exchange comes first without placements, then (``placements``) with each non-empty
        set of placements of its new pieces, at most one per own unfinished puzzle.
        """
        gs = self.ghost
        if gs is None or self.phase != PLAY:
            return
        supply = self.supply[self.current]
        for g in gs.tables.ghosts:
            if not supply[g]:
                continue
            for take in gs.tables.takes(g, self.reserve):
                yield Ghost(g, take)
                if placements:
                    taken = [0] * self.t.n_pieces
                    for piece in take:
                        taken[piece] += 1
                    for chosen in self._placement_sets(taken):
                        yield Ghost(g, take, chosen)

    def sample_ghost(self, rng: random.Random, p_each: float = 0.5) -> Ghost | None:
        """Return a random legal Ghost action (None: none): a random ghost held, a random take,
        and each puzzle gets one of the new pieces with probability ``p_each`` where one fits."""
        gs = self.ghost
        if gs is None or self.phase != PLAY:
            return None
        supply = self.supply[self.current]
        held = [g for g in gs.tables.ghosts if supply[g]]
        if not held:
            return None
        g = held[int(rng.random() * len(held))]
        takes = gs.tables.takes(g, self.reserve)
        if not takes:
            return None
        take = takes[int(rng.random() * len(takes))]
        t = self.t
        left = [0] * t.n_pieces
        for piece in take:
            left[piece] += 1
        chosen: list[Placement] = []
        for card, filled, _ in self.slots[self.current]:
            if rng.random() >= p_each:
                continue
            groups = t.fit_groups(card, t.recess[card] & ~filled)
            options = [(card, p, m) for p, masks in groups if left[p] for m in masks]
            if options:
                pl = options[int(rng.random() * len(options))]
                left[pl[1]] -= 1
                chosen.append(pl)
        return Ghost(g, take, tuple(chosen))

    def level_up_actions(self) -> list[Action]:
        """Return the Level Up steps open now: each (give, get) in piece order, then declining."""
        gs = self.ghost
        if gs is None or self.phase != LEVEL_UP:
            return []
        supply = self.supply[self.current]
        acts: list[Action] = [
            LevelUp(give, get)
            for give in range(self.t.n_pieces)
            if supply[give]
            for get in gs.tables.level_up_targets(give, self.reserve)
        ]
        acts.append(LevelUp(None, None))  # a decision: a step may be declined (ghost.py, 4)
        return acts

    def _ghost_level_up_possible(self, p: int) -> bool:
        assert self.ghost is not None
        tables = self.ghost.tables
        supply = self.supply[p]
        return any(
            supply[give] and tables.level_up_targets(give, self.reserve)
            for give in range(self.t.n_pieces)
        )

    # -- checking ------------------------------------------------------------------------------
    def check(self, player: int, action: Action) -> None:
        """Raise ``IllegalActionError`` (saying why) unless ``player`` may take ``action`` now."""
        if type(action) is Place and self.phase == PLAY and player == self.current:
            # the most frequent action first (no variant forbids a Place during play)
            self._check_placements(player, ((action.card, action.piece, action.mask),), True)
            return
        if self.phase == OVER:
            raise IllegalActionError("the game is over")
        if isinstance(action, Finish):
            if self.phase != FINISHING:
                raise IllegalActionError("Finishing Touches only come after the last round")
            if not 0 <= player < self.n or self.finished[player]:
                raise IllegalActionError("this player has already made Finishing Touches")
            self._check_placements(player, action.placements, one_per_puzzle=False)
            if action.credits:
                self._finesse_check_finishing(player, action)
            return
        if player != self.current:
            if self.line_clear is not None:
                raise IllegalActionError(self._lc_wait_message(player))
            raise IllegalActionError(f"it is player {self.current}'s turn")
        if self.phase == REWARD:
            if not isinstance(action, Reward):
                raise IllegalActionError("a reward piece must be chosen first")
            if action.piece not in self.reward_options:
                names = ", ".join(self.t.cat.pieces[p].id for p in self.reward_options)
                raise IllegalActionError(f"the reward must be one of {names}")
            return
        if self.phase == LEVEL_UP:
            self._ghost_check_level_up(player, action)
            return
        if self.phase == FINISHING:
            if isinstance(action, Ghost):
                raise IllegalActionError("no Ghost action during Finishing Touches")
            raise IllegalActionError("only Finishing Touches are allowed now")
        if self.finesse is not None:
            action = self._finesse_check(player, action)
        if self.line_clear is not None:
            self._lc_check(player, action)
        t = self.t
        supply = self.supply[player]
        if self.solo is not None:
            self._check_solo(action)
        match action:
            case Take(card):
                if not self._can_take():
                    raise IllegalActionError(f"already has {MAX_UNFINISHED} unfinished puzzles")
                if self.solo is not None:
                    return  # checked by _check_solo
                colour = BLACK if t.is_black[card] else WHITE
                if card not in self.rows[colour]:
                    raise IllegalActionError(f"{t.cat.puzzles[card].id} is not in a row")
                if colour == BLACK and self.trigger_round and self.black_taken >= 1:
                    raise IllegalActionError("only one black puzzle per turn after the end trigger")
            case TakeDeck(colour):
                if not self._can_take():
                    raise IllegalActionError(f"already has {MAX_UNFINISHED} unfinished puzzles")
                if self.solo is not None:
                    return  # checked by _check_solo
                if colour == PUZZLE:
                    raise IllegalActionError("the puzzle deck is the solo variant's")
                if not self.decks[colour]:
                    raise IllegalActionError(f"the {COLOURS[colour]} deck is empty")
                if colour == BLACK and self.trigger_round and self.black_taken >= 1:
                    raise IllegalActionError("only one black puzzle per turn after the end trigger")
            case Recycle(colour, order):
                row = self.rows[colour]
                if not row:
                    raise IllegalActionError(f"the {COLOURS[colour]} row is empty")
                if order and sorted(order) != sorted(row):
                    raise IllegalActionError(
                        f"the order must list exactly the {COLOURS[colour]} row"
                    )
            case TakeBasic():
                if self.basic_piece() is None:
                    raise IllegalActionError("the reserve has no piece to take")
            case Upgrade(give, get):
                if not supply[give]:
                    raise IllegalActionError(f"has no {t.cat.pieces[give].id} to give")
                if get not in self._upgrade_targets(give, self.reserve):
                    if get == give:
                        why = "must take a different piece"
                    elif t.cat.pieces[get].is_ghost:
                        why = "the Upgrade action never takes a ghost piece (level 5)"
                    elif self.reserve[get] == 0:
                        why = f"the reserve has no {t.cat.pieces[get].id}"
                    else:
                        why = "may only take the same level, a lower one or one level higher"
                    raise IllegalActionError(why)
            case Place(card, piece, mask):
                self._check_placements(player, ((card, piece, mask),), one_per_puzzle=True)
            case Master(placements):
                if self.master_used:
                    raise IllegalActionError("Master was already used this turn")
                if not placements:
                    raise IllegalActionError("Master needs at least one placement")
                self._check_placements(player, placements, one_per_puzzle=True)
            case Ambassador(placements):
                # rulings, Ambassador Pack: like Master, any number per turn, one per Ambassador
                if self.ambassadors is None:
                    raise IllegalActionError(
                        "Ambassador actions need the ambassador_pack expansion"
                    )
                if not self.ambassadors.held[player]:
                    raise IllegalActionError("has no Ambassador to use")
                if not placements:
                    raise IllegalActionError("an Ambassador action needs at least one placement")
                self._check_placements(player, placements, one_per_puzzle=True)
            case Reward():
                raise IllegalActionError("no reward choice is open")
            case Ghost():
                self._ghost_check(player, action)
            case LevelUp():
                raise IllegalActionError("no Level Up is open")
            case _:
                raise IllegalActionError(f"unknown action {action!r}")

    def _check_solo(self, action: Action) -> None:
        """Raise for what the solo variant forbids or reads differently (rulings, Solo)."""
        assert self.solo is not None
        match action:
            case Take(card):
                if card < 0 or card not in self.solo.grid:
                    raise IllegalActionError(f"{self.t.cat.puzzles[card].id} is not in the grid")
            case TakeDeck(colour):
                if colour != PUZZLE:
                    raise IllegalActionError(
                        f"the solo variant has one deck: take from the puzzle deck, not the "
                        f"{DECKS[colour]} one"
                    )
                if not self._deck_left():
                    raise IllegalActionError("the puzzle deck is empty")
            case Recycle():
                raise IllegalActionError("no Recycle in the solo variant")

    def _check_placements(
        self,
        player: int,
        placements: Sequence[Placement],
        one_per_puzzle: bool,
        supply: Sequence[int] | None = None,
    ) -> None:
        """Raise unless the placements are legal for ``player``; the pieces come from its
        placeable supply, or from ``supply`` when given (a Ghost action's new pieces)."""
        t = self.t
        cat = t.cat
        if supply is None:
            supply = self.supply[player]
            if self.ghost is not None:
                supply = self.ghost.placeable(supply)
        filled_of = {s[0]: s[1] for s in self.slots[player]}
        used = [0] * t.n_pieces
        placed: set[int] = set()
        for card, piece, mask in placements:
            # the common, legal case pays for no message: names are built only to raise
            if card not in filled_of:
                raise IllegalActionError(f"{cat.puzzles[card].id} is not an own unfinished puzzle")
            if one_per_puzzle and card in placed:
                raise IllegalActionError(
                    f"places two pieces on {cat.puzzles[card].id} in one action"
                )
            used[piece] += 1
            why = ""
            if used[piece] > supply[piece]:
                why = "needs a {name} the supply does not have"
            elif piece not in cat.piece_of_mask.get(mask, ()):
                why = "cells do not form a {name}"
            elif mask & ~t.recess[card]:
                why = "lies outside the recess"
            elif mask & filled_of[card]:
                why = "overlaps a placed piece"
            if why:
                name = cat.pieces[piece].id
                gs = self.ghost
                if gs is not None and gs.exchange_only and cat.pieces[piece].is_ghost:
                    why = "ghost pieces are only exchanged (ghost_placement=exchange_only)"
                # a single Place is already named by the action; name the placement in a list
                prefix = f"{name} on {cat.puzzles[card].id} " if len(placements) > 1 else ""
                raise IllegalActionError(prefix + why.format(name=name))
            filled_of[card] |= mask
            placed.add(card)

    def step(self, player: int, action: Action) -> None:
        """Check ``action`` for ``player`` and apply it (raises ``IllegalActionError``)."""
        self.check(player, action)
        if isinstance(action, Finish):
            self._finish(player, action.placements, action.credits)
        else:
            self.apply(action)

    # -- applying (fast path: no checks) -------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply a legal action of the player to move (no checks: see ``step``)."""
        if self.finesse is not None and self._finesse_apply(action):
            return
        if self.ghost is not None and self._ghost_apply(action):
            return
        kind = action.kind
        p = self.current
        if kind == "place":
            self._place(p, action.card, action.piece, action.mask)  # type: ignore[union-attr]
            self._complete(p)
        elif kind == "reward":
            self._take_reward(p, action.piece)  # type: ignore[union-attr]
            self._resolve_rewards(p)
            if self.phase == REWARD:
                return
        elif kind == "take":
            self._take(p, action.card)  # type: ignore[union-attr]
        elif kind == "take_deck":
            self._take_deck(p, action.colour)  # type: ignore[union-attr]
        elif kind == "upgrade":
            give: int = action.give  # type: ignore[union-attr, assignment]
            get: int = action.get  # type: ignore[union-attr, assignment]
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
            self._recycle(action.colour, action.order)  # type: ignore[union-attr]
        elif kind == "master":
            self.master_used = True
            for card, piece, mask in action.placements:  # type: ignore[union-attr]
                self._place(p, card, piece, mask)
            self._complete(p)
        elif kind == "finish":
            self._finish(p, action.placements, action.credits)  # type: ignore[union-attr]
            return
        elif kind == "ambassador":
            self._use_ambassador(p, action.placements)  # type: ignore[union-attr]
        elif kind == "ghost":
            self._ghost_exchange(p, action)  # type: ignore[arg-type]
        else:
            raise IllegalActionError(f"unknown action {action!r}")
        if self.endless is not None and not self.decks[WHITE]:
            self._endless_reshuffle()
        # a free Ghost action (ghost_action=free) is no action of the turn
        if kind != "reward" and not (kind == "ghost" and self.ghost.free):  # type: ignore[union-attr]
            self.actions_left -= 1
        if self.phase == PLAY or (self.phase == REWARD and not self.reward_options):
            self.phase = PLAY
            self._advance()
        elif self.phase == REWARD:
            return

    def _place(self, p: int, card: int, piece: int, mask: Mask25) -> None:
        slots = self.slots[p]
        for i, (c, filled, placed) in enumerate(slots):
            if c == card:
                slots[i] = (c, filled | mask, (*placed, (piece, mask)))
                self.supply[p][piece] -= 1
                return

    def _complete(self, p: int) -> None:
        """Complete every full puzzle of ``p``: pieces back, card to the pile, rewards."""
        t = self.t
        slots = self.slots[p]
        done = [s for s in slots if s[1] == t.recess[s[0]]]
        if not done:
            return
        self.slots[p] = [s for s in slots if s[1] != t.recess[s[0]]]
        supply = self.supply[p]
        for card, _, placed in done:
            for piece, _ in placed:
                supply[piece] += 1
            self.piles[p] = (*self.piles[p], card)
            self.scores[p] += t.points[card]
        self.last_progress_round = self.round
        self.pending = self.pending + tuple(t.reward[card] for card, _, _ in done)
        self._resolve_rewards(p)

    def _resolve_rewards(self, p: int) -> None:
        # Rewards in the order the puzzles were taken; a choice stops the queue until made.
        while self.pending:
            wanted = self.pending[0]
            if wanted == REWARD_AMBASSADOR:
                self.pending = self.pending[1:]
                self._gain_ambassador(p)
                continue
            if wanted < 0:
                # a special reward (Level Up): its expansion's hook
                if wanted in LEVEL_UP_STEPS and self.ghost is not None:
                    if self._ghost_open_level_up(p, LEVEL_UP_STEPS[wanted]):
                        return
                    continue
                raise NotImplementedError(f"special reward {wanted} is not played yet")
            options = shortage_options(self.reserve, wanted, self.t)
            if len(options) > 1:
                self.phase = REWARD
                self.reward_options = options
                return
            self.pending = self.pending[1:]
            if options:
                self.reserve[options[0]] -= 1
                self.supply[p][options[0]] += 1
        self.reward_options = ()
        if self.phase == REWARD:
            self.phase = PLAY

    def _take_reward(self, p: int, piece: int) -> None:
        self.pending = self.pending[1:]
        self.reward_options = ()
        self.reserve[piece] -= 1
        self.supply[p][piece] += 1

    def _draw(self, colour: int) -> int | None:
        deck = self.decks[colour]
        if not deck:
            return None
        card = deck[0]
        if card == HIDDEN:
            raise IllegalActionError("this view hides the deck order: redeal() it first")
        self.decks[colour] = deck = deck[1:]
        if self.known_bottom[colour] > len(deck):
            self.known_bottom[colour] = len(deck)
        self.last_progress_round = self.round
        if not deck and not self.trigger_round and not self._deck_left():
            # rulings, End: the black deck (solo: the puzzle deck) just became empty; black
            # puzzles taken earlier in this turn don't count towards the one-per-turn limit.
            self.trigger_round = self.round
            self.black_taken = 0
        return card

    def cards_to_trigger(self) -> int:
        """Return how many cards the deck whose emptying triggers the end still holds."""
        if self.solo is not None:
            return len(self.decks[WHITE]) + len(self.decks[BLACK])
        return len(self.decks[BLACK])

    def _deck_left(self) -> bool:
        """Return whether the deck whose emptying ends the game still has cards.

        Base game: the black deck. Solo: the puzzle deck (its white part on top of its black).
        """
        if self.solo is not None:
            return bool(self.decks[WHITE] or self.decks[BLACK])
        return bool(self.decks[BLACK])

    def _draw_solo(self) -> int | None:
        """Draw the top card of the solo puzzle deck: its whites lie on top of its blacks."""
        return self._draw(WHITE if self.decks[WHITE] else BLACK)

    def _take(self, p: int, card: int) -> None:
        if self.solo is not None:
            self._take_from_grid(p, card)
            return
        colour = BLACK if self.t.is_black[card] else WHITE
        row = list(self.rows[colour])
        i = row.index(card)
        if colour == BLACK and self.trigger_round:
            self.black_taken += 1
        new = self._draw(colour)
        if new is None:
            del row[i]
        else:
            row[i] = new
        self.rows[colour] = tuple(row)
        self.slots[p].append((card, 0, ()))

    def _take_deck(self, p: int, colour: int) -> None:
        if colour == BLACK and self.trigger_round:
            self.black_taken += 1
        # rulings, Solo: a blind draw from the deck moves no lock piece
        card = self._draw_solo() if colour == PUZZLE else self._draw(colour)
        assert card is not None
        self.slots[p].append((card, 0, ()))

    def _take_from_grid(self, p: int, card: int) -> None:
        """Solo: take a grid puzzle; a lock piece of its column goes to the opponent's supply.

        The gap refills from the deck at once, as a row does; with the deck empty it stays
        empty (a decision: the rulings are silent).
        """
        assert self.solo is not None
        pos = self.solo.grid.index(card)
        solo = lock_to_opponent(self.solo, column(pos))
        self.solo = fill_gap(solo, pos, self._draw_solo())
        self.slots[p].append((card, 0, ()))

    def _mastermind_turn(self) -> None:
        """Solo: play the opponent's turn (rulings, Solo variant, "Opponent turn").

        If every column is locked, one piece from above each goes back to the reserve; then it
        takes the highest-value puzzle in an unlocked column (tie: lowest position) straight to
        its pile, or nothing when none is open. After a take its supply and one piece from above
        each other column go above the taken column, and the gap refills from the deck. With
        ``solo_unlock="pass"`` a turn that unlocks takes nothing (the switch's other reading).
        """
        assert self.solo is not None
        solo, returned = unlock(self.solo)
        for piece in returned:
            self.reserve[piece] += 1
        if returned and self.rules.solo_unlock == "pass":
            self.solo = solo  # unlocking was the whole turn
            return
        pos = mastermind_choice(solo, self.t.points)
        if pos is not None:
            solo = mastermind_take(solo, pos, self.t.points)
            self.last_progress_round = self.round
            gaps = [pos]
            if self.finesse is not None:
                # rulings, Finesse Solo: a second puzzle, the least valuable of the same column
                # (tie: nearest the top); both gaps refill afterwards, the topmost first
                second = least_valuable_in_column(solo, column(pos), self.t.points)
                if second is not None:
                    solo = take_to_pile(solo, second, self.t.points)
                    gaps = sorted((pos, second))
            for gap in gaps:
                solo = fill_gap(solo, gap, self._draw_solo())
        self.solo = solo

    def _recycle(self, colour: int, order: tuple[int, ...]) -> None:
        # The row goes under the deck and the top ROW_SIZE cards come up: _draw's bookkeeping,
        # done once for the whole row. Cycling a row is no progress (last_progress_round kept).
        order = order or self.rows[colour]
        deck = self.decks[colour] + tuple(order)
        n = min(ROW_SIZE if self.line_clear is None else LC_ROW_SIZE, len(deck))
        if HIDDEN in deck[:n]:
            raise IllegalActionError("this view hides the deck order: redeal() it first")
        self.rows[colour] = deck[:n]
        self.decks[colour] = deck = deck[n:]
        self.known_bottom[colour] = min(self.known_bottom[colour] + len(order), len(deck))
        if n and not deck and not self.trigger_round and not self._deck_left():
            self.trigger_round = self.round  # rulings, End (as in _draw)
            self.black_taken = 0

    def _finish(self, p: int, placements: Sequence[Placement], credits: int = 0) -> None:
        # rulings, Finishing Touches: all pieces are placed before anything counts as completed;
        # a completed puzzle goes to the pile and its pieces back to supply (completion step 1),
        # but it gives no reward. Finesse: ``credits`` placements cost a Credit, not a point.
        for card, piece, mask in placements:
            self._place(p, card, piece, mask)
        self.ft_pieces[p] += len(placements) - credits
        if credits:
            assert self.finesse is not None
            self.finesse.spend(p, credits)
            self.finesse.finishing[p] += credits
        t = self.t
        keep = []
        for slot in self.slots[p]:
            card, filled, placed = slot
            if filled != t.recess[card]:
                keep.append(slot)
                continue
            for piece, _ in placed:
                self.supply[p][piece] += 1
            self.piles[p] = (*self.piles[p], card)
            self.scores[p] += t.points[card]
        self.slots[p] = keep
        self.finished[p] = True
        self._next_finisher()

    # -- turn flow -----------------------------------------------------------------------------
    def _has_play_action(self) -> bool:
        if self.solo is not None:
            if self._can_take() and (self._deck_left() or any(c != EMPTY for c in self.solo.grid)):
                return True
        elif self._can_take() and (self.rows[WHITE] or self.rows[BLACK] or any(self.decks)):
            return True
        if self.rows[WHITE] or self.rows[BLACK]:
            return True  # Recycle
        return self._has_piece_action()

    def _has_piece_action(self) -> bool:
        """Return whether the player to move may act on pieces: Upgrade A or B, Place, or (Ghost
        Piece) a Ghost action."""
        if self.basic_piece() is not None:
            return True
        if self.upgrade_actions():
            return True
        if self.place_actions():
            return True
        return self.ghost is not None and any(True for _ in self.ghost_actions(placements=False))

    def _advance(self) -> None:
        """Move on through everything that needs no decision: turn end, passes, round end."""
        if self.line_clear is not None:
            self._lc_advance()
            return
        guard = 0
        # Solo: the mastermind plays on while the player passes, and the round cap still ends
        # the game; elsewhere nobody acting for a few turns is a stall.
        limit = 4 * self.n if self.solo is None else self.rules.max_rounds + 1
        while self.phase == PLAY:
            if self.actions_left > 0:
                if self._has_play_action():
                    return
                self.actions_left = 0  # rulings: no legal action -> pass the rest of the turn
            self._end_turn()
            guard += 1
            if guard > limit:
                self._end_game(END_STALL)

    def _end_turn(self) -> None:
        if self.finesse is not None:
            self._finesse_end_turn()
        if self.solo is not None:
            self._mastermind_turn()  # rulings, Solo: the opponent's turn follows the player's
        self.current = (self.current + 1) % self.n
        self.actions_left = ACTIONS_PER_TURN
        self.master_used = False
        self.black_taken = 0
        self.turn += 1
        if self.current != self.first_player:
            return
        # end of a round: the final round after the trigger's round ends the game
        self._end_round(bool(self.trigger_round) and self.round >= self.trigger_round + 1)

    def _end_round(self, final: bool) -> None:
        """End a round: the game when it was the ``final`` one or Finesse's 10th tile goes (then
        Finishing Touches), else the safety cap or a stall (truncated), else the next round."""
        # rulings, Finesse: removing the 10th tile ends the game, with no extra round
        if final or (self.finesse is not None and self.round >= ROW_LENGTH):
            self._start_finishing()
        elif self.round >= self.rules.max_rounds:
            self._end_game(END_MAX_ROUNDS)
        elif self.round - self.last_progress_round >= self.rules.stall_rounds:
            self._end_game(END_STALL)
        else:
            self.round += 1

    def _start_finishing(self) -> None:
        if self.finesse is not None:
            for q in range(self.n):  # rulings, Finesse: Credits first become active
                self.finesse.activate(q)
        self.phase = FINISHING
        self.finished = [False] * self.n
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

    # -- Finesse hooks (rulings, Finesse expansion) --------------------------------------------
    def _finesse_check(self, player: int, action: Action) -> Action:
        """Check an Insert (rulings, Finesse: "Insert"); return the action the base checks see.

        Ruling reading: an Insert is open at any time in the turn (while the turn lasts, i.e.
        before its 3rd regular action ends it), as often as 2 active Credits pay for it; the
        inserted action doesn't count towards the 3, and Master stays once per turn.
        """
        assert self.finesse is not None
        if not isinstance(action, Insert):
            return action
        if isinstance(action.inner, Insert):
            raise IllegalActionError("an Insert holds one Play action, not another Insert")
        if isinstance(action.inner, Ghost) and self.ghost is not None and self.ghost.free:
            raise IllegalActionError("a free Ghost action (ghost_action=free) is not inserted")
        if self.finesse.active[player] < INSERT_COST:
            raise IllegalActionError(
                f"Insert needs {INSERT_COST} active Credits, has {self.finesse.active[player]}"
            )
        return action.inner

    def _finesse_check_finishing(self, player: int, action: Finish) -> None:
        """Check the Credits a Finish pays with: at most one per placement and per Credit."""
        if self.finesse is None:
            raise IllegalActionError("paying with Credits needs the Finesse expansion")
        if action.credits > len(action.placements):
            raise IllegalActionError("pays more Credits than it places pieces")
        if action.credits > self.finesse.active[player]:
            raise IllegalActionError(f"has only {self.finesse.active[player]} Credits")

    def _finesse_apply(self, action: Action) -> bool:
        """Apply an Insert, and pay pink tiles before any other Play action.

        Returns True when the action was applied here. Pink Credits are paid before the base
        code applies the action because that may end the turn (which activates them). An
        Insert pays its own tile (X04) after its 2 Credits are spent and before its inner
        action: rulings, "after each Insert action"; a decision, so the Credit is the inserting
        player's, earned within its own turn, whatever the inner action does to the turn.
        """
        assert self.finesse is not None
        kind = action.kind
        p = self.current
        if kind == "insert":
            self.finesse.spend(p, INSERT_COST)
            self.finesse.inserts[p] += 1
        if self.phase == PLAY:
            rule = self.finesse.tile_rule(self.round)
            if rule is not None:
                count = pink_count(rule[0], rule[1], action, self.slots[p], self.t.recess)
                if count:
                    self.finesse.gain(p, count * rule[2])
        if kind == "insert":
            self.actions_left += 1  # an extra action: the inner one does not count
            self.apply(action.inner)  # type: ignore[union-attr]
            return True
        return False

    def _finesse_level_up(self, p: int, steps: int) -> None:
        """Pay the Upgrade tile for a Level Up reward received (rulings, Set C: C05/C06)."""
        assert self.finesse is not None
        rule = self.finesse.tile_rule(self.round)
        if rule is not None:
            count = level_up_count(rule[0], steps)
            if count:
                self.finesse.gain(p, count * rule[2])

    def _finesse_end_turn(self) -> None:
        """Pay a blue tile's Credits, then make the player's Credits active.

        Rulings: Credits a blue tile pays at the end of a turn become active at that same end
        of turn (the Credits move across the mat after the blue tile is checked).
        """
        assert self.finesse is not None
        p = self.current
        rule = self.finesse.tile_rule(self.round)
        if rule is not None and self.phase == PLAY:
            count = end_of_turn_count(
                rule[0], rule[1], self.supply[p], self.slots[p], self.t.levels
            )
            if count:
                self.finesse.gain(p, count * rule[2])
        self.finesse.activate(p)

    # -- Ghost Piece hooks (rulings, Ghost Piece; judgement calls: projectl_sim/ghost.py) ---------
    def _ghost_check(self, player: int, action: Ghost) -> None:
        """Check a Ghost action (its phase and the player's turn are checked already)."""
        gs = self.ghost
        if gs is None:
            raise IllegalActionError("the Ghost action needs the ghost_piece expansion")
        cat = self.t.cat
        tables = gs.tables
        ghost = action.ghost
        name = cat.pieces[ghost].id
        if not tables.is_ghost[ghost]:
            raise IllegalActionError(f"{name} is not a ghost piece")
        if not self.supply[player][ghost]:
            raise IllegalActionError(f"has no {name} to exchange")
        take = tables.canonical(action.take)
        if take not in tables.takes(ghost, self.reserve):
            pieces = " ".join(cat.pieces[p].id for p in take)
            if take in tables.decompositions[ghost]:
                raise IllegalActionError(
                    f"the reserve lacks some of {pieces}: the reserve shortage rule applies"
                )
            raise IllegalActionError(f"{pieces} do not form a {name} (nor replace one by shortage)")
        taken = [0] * self.t.n_pieces
        for p in take:
            taken[p] += 1
        placed = [0] * self.t.n_pieces
        for _card, p, _mask in action.placements:
            placed[p] += 1
            if placed[p] > taken[p]:
                raise IllegalActionError(f"places a {cat.pieces[p].id} the exchange did not take")
        self._check_placements(player, action.placements, True, taken)

    def _ghost_check_level_up(self, player: int, action: Action) -> None:
        """Check a Level Up step (the phase is ``level_up``)."""
        assert self.ghost is not None
        if not isinstance(action, LevelUp):
            raise IllegalActionError("a Level Up step must be taken or declined first")
        give, get = action.give, action.get
        if give is None and get is None:
            return  # declining is always open (ghost.py, judgement call 4)
        if give is None or get is None:
            raise IllegalActionError("a Level Up step names the piece given and the piece taken")
        cat = self.t.cat
        if not self.supply[player][give]:
            raise IllegalActionError(f"has no {cat.pieces[give].id} to level up")
        if get not in self.ghost.tables.level_up_targets(give, self.reserve):
            if cat.pieces[give].is_ghost:
                why = "a ghost piece has no level above it"
            elif self.reserve[get] == 0:
                why = f"the reserve has no {cat.pieces[get].id}"
            else:
                why = "a Level Up takes a piece exactly one level higher (or the shortage rule's)"
            raise IllegalActionError(why)

    def _ghost_apply(self, action: Action) -> bool:
        """Apply a Level Up step; return False for any other action."""
        if action.kind != "level_up":
            return False
        gs = self.ghost
        assert gs is not None
        p = self.current
        supply = self.supply[p]
        reserve = self.reserve
        give, get = action.give, action.get  # type: ignore[union-attr]
        if give is None or get is None:
            gs.forgone[p] += 1
        else:
            supply[give] -= 1
            reserve[give] += 1
            reserve[get] -= 1
            supply[get] += 1
            gs.levelled[p] += 1
        gs.steps -= 1
        if gs.steps and self._ghost_level_up_possible(p):
            return True  # the next step of a ⇈
        gs.forgone[p] += gs.steps  # a step with no upgrade possible lapses
        gs.steps = 0
        self.phase = PLAY
        self._resolve_rewards(p)  # the rest of the queue, in the order taken
        if self.phase == PLAY:
            self._advance()
        return True

    def _ghost_exchange(self, p: int, action: Ghost) -> None:
        """Apply a Ghost action: the ghost back, its pieces taken, the new ones placed (``apply``
        completes puzzles and ends the action as for any other)."""
        assert self.ghost is not None
        supply, reserve = self.supply[p], self.reserve
        supply[action.ghost] -= 1
        reserve[action.ghost] += 1
        for piece in action.take:
            reserve[piece] -= 1
            supply[piece] += 1
        self.ghost.exchanges[p] += 1
        for card, piece, mask in action.placements:
            self._place(p, card, piece, mask)
        self._complete(p)

    def _ghost_open_level_up(self, p: int, steps: int) -> bool:
        """Start a Level Up reward (the head of the queue); return whether a step is open."""
        assert self.ghost is not None
        gs = self.ghost
        self.pending = self.pending[1:]
        gs.earned[p] += steps
        if self.finesse is not None:
            self._finesse_level_up(p, steps)  # received: paid whether or not it is used
        if self._ghost_level_up_possible(p):
            gs.steps = steps
            self.reward_options = ()
            self.phase = LEVEL_UP
            return True
        gs.forgone[p] += steps  # nothing to upgrade: the reward lapses (no decision)
        return False

    # -- Line Clear hooks (rulings, Line Clear; projectl_sim.line_clear) -----------------------
    def _lc_advance(self, pair_start: bool = False) -> None:
        """Line Clear: after an action (or at the start), pick whose action comes next.

        A holder whose last action was just played ends its turn. Then the holder to ask next:
        ``interleave``, the other one first; ``white_first``, the same one first; at the start
        of a pair, the white holder. A holder asked with no legal action passes the rest of its
        turn (rulings). When both turns are over, the markers pass and the next pair starts.
        """
        lc = self.line_clear
        assert lc is not None
        if not pair_start and self.actions_left == 0:
            self._lc_end_holder_turn()
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
                self._lc_install(h)
                if self._lc_has_play_action():
                    return
                self.actions_left = 0  # rulings: no legal action -> pass the rest of the turn
                self._lc_end_holder_turn()
                idle += 1
            self._lc_end_pair()
            pair_start = True
            if idle >= 8 * self.n and self.phase == PLAY:  # 4n turn pairs with no action
                self._end_game(END_STALL)

    def _lc_install(self, h: int) -> None:
        """Make holder ``h`` (0 white, 1 black) the player to move: its turn, its side's rows."""
        lc = self.line_clear
        assert lc is not None
        if h == lc.moving:
            return
        waiting = lc.turns[h]
        lc.turns[lc.moving] = [self.actions_left, self.master_used, self.black_taken]
        self.actions_left, self.master_used, self.black_taken = waiting
        self.rows, lc.other_rows = lc.other_rows, self.rows
        lc.moving = h
        self.current = lc.holder(h)

    def _lc_end_holder_turn(self) -> None:
        """End the turn of the holder to move: its end-of-turn effects (Finesse)."""
        if self.finesse is not None:
            self._finesse_end_turn()
        self.turn += 1

    def _lc_end_pair(self) -> None:
        """Pass both markers clockwise; end the round, or the game, when the rulings say so.

        A new round starts when the first player receives the white marker. After the trigger,
        the game ends the moment the first player has received both markers again (rulings,
        Line Clear "Game end"; the judgement calls are in ``projectl_sim.line_clear``).
        """
        lc = self.line_clear
        assert lc is not None
        self._lc_install(WHITE_HOLDER)
        n, first = self.n, self.first_player
        lc.white, lc.black = (lc.white + 1) % n, (lc.black + 1) % n
        lc.pairs += 1
        lc.turns = [[ACTIONS_PER_TURN, False, 0], [ACTIONS_PER_TURN, False, 0]]
        self.current = lc.white
        self.actions_left = ACTIONS_PER_TURN
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

    def _lc_has_play_action(self) -> bool:
        """Return whether the holder to move has a legal Play action on its side.

        The black-marker holder takes no blind card and doesn't Recycle; after the trigger a
        black row counts only while the holder's one black puzzle of the turn is still open.
        """
        lc = self.line_clear
        assert lc is not None
        if self.current == lc.white:
            return self._has_play_action()
        if self._can_take() and (
            self.rows[WHITE]
            or (self.rows[BLACK] and not (self.trigger_round and self.black_taken >= 1))
        ):
            return True
        return self._has_piece_action()

    def _lc_check(self, player: int, action: Action) -> None:
        """Raise for what only one marker holder may do (rulings, Line Clear)."""
        lc = self.line_clear
        assert lc is not None
        if player == lc.white:
            if isinstance(action, Take):
                self._lc_check_side(action.card, WHITE_HOLDER)
            return
        if isinstance(action, TakeDeck):
            raise IllegalActionError("only the white-marker holder may take blind from a deck")
        if isinstance(action, Recycle):
            raise IllegalActionError("only the white-marker holder may Recycle")
        if isinstance(action, Take):
            self._lc_check_side(action.card, BLACK_HOLDER)

    def _lc_check_side(self, card: int, h: int) -> None:
        lc = self.line_clear
        assert lc is not None
        if any(card in row for row in lc.other_rows):
            mine, theirs = SIDES[h], SIDES[1 - h]
            raise IllegalActionError(
                f"{self.t.cat.puzzles[card].id} is in the {theirs} rows: the "
                f"{MARKER_NAMES[h]}-marker holder takes from the {mine} rows"
            )

    def _lc_wait_message(self, player: int) -> str:
        """Return why ``player`` may not act now (Line Clear: who moves, in which order)."""
        lc = self.line_clear
        assert lc is not None
        if self.phase != PLAY or lc.holder_of(player) is None:
            return f"it is player {self.current}'s turn"
        order = self.rules.line_clear_order
        return (
            f"player {self.current} is to move (the marker holders' actions come in the "
            f"{order} order)"
        )

    # -- Ambassador Pack hooks (rulings, Ambassador Pack; readings in projectl_sim.ambassador) --
    def _gain_ambassador(self, p: int) -> None:
        """Give ``p`` the Ambassador of a completed Ambassador puzzle (kept face up until used)."""
        assert self.ambassadors is not None
        self.ambassadors = self.ambassadors.gain(p)

    def _use_ambassador(self, p: int, placements: Sequence[Placement]) -> None:
        """Use one Ambassador: place like a Master (all from the supply as it was), then complete.

        One of the turn's 3 actions (counted by ``apply``); it leaves ``master_used`` alone.
        """
        assert self.ambassadors is not None
        self.ambassadors = self.ambassadors.use(p)
        for card, piece, mask in placements:
            self._place(p, card, piece, mask)
        self._complete(p)

    # -- Endless White Deck hook (rulings, Endless White Deck; readings in projectl_sim.endless) --
    def _endless_reshuffle(self) -> None:
        """After an action that leaves the white deck empty: if a completed white puzzle lies in
        any victory pile, note every such puzzle (points and count kept), shuffle them into a new
        white deck from the recorded seed, and fill the white row's gaps from it."""
        assert self.endless is not None
        if self.phase not in (PLAY, REWARD, LEVEL_UP):
            return  # rulings reading: no reshuffle during Finishing Touches
        is_black = self.t.is_black
        if not has_white(self.piles, is_black):
            return  # nothing completed to shuffle: the deck stays empty for now
        if self.endless.seed is None:
            raise IllegalActionError("this view hides the next white deck: redeal() it first")
        self.endless, deck = reshuffle(self.endless, self.piles, is_black)
        self.known_bottom[WHITE] = 0
        self.last_progress_round = self.round
        # Line Clear: both white rows of 3, the left one first (as dealt)
        rows_by_side = [self.rows] if self.line_clear is None else list(sides(self))
        size = ROW_SIZE if self.line_clear is None else LC_ROW_SIZE
        for rows in rows_by_side:
            gap = size - len(rows[WHITE])
            rows[WHITE] += deck[:gap]
            deck = deck[gap:]
        self.decks[WHITE] = deck

    # -- text ----------------------------------------------------------------------------------
    def describe(self, action: Action) -> str:
        """Return a short text form of an action."""
        return describe(action, self.t.cat)

    def __repr__(self) -> str:
        return (
            f"<GameState round {self.round} player {self.current} phase {self.phase} "
            f"scores {self.scores}>"
        )


def finish_options(state: GameState) -> list[Action]:
    """Return Finishing Touches candidates: none, and each completable set of puzzles.

    For each subset of the unfinished puzzles (largest first), one plan that completes exactly
    those puzzles with the pieces in supply, found by the fillability module.
    """
    from projectl_sim.fill import plan, tiling_index

    index = tiling_index(state.t.cat)
    p = state.current
    t = state.t
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


def _parse_setup(setup: dict[str, Any], rules: Rules) -> tuple[int, list[int], list[int]]:
    cat = rules.catalogue
    if not isinstance(setup, dict):
        raise RecordError("setup must be an object")
    first = setup.get("first_player")
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < rules.players:
        raise RecordError(f"setup.first_player must be a seat 0-{rules.players - 1}, got {first!r}")
    decks = []
    seen: set[str] = set()
    for colour in COLOURS:
        key = f"{colour}_deck"
        ids = setup.get(key)
        if not isinstance(ids, list):
            raise RecordError(f"setup.{key} must be a list of puzzle ids")
        deck = []
        for pid in ids:
            try:
                card = cat.puzzle_index(pid)
            except KeyError:
                raise RecordError(f"setup.{key}: unknown puzzle {pid!r}") from None
            if cat.puzzles[card].colour != colour:
                raise RecordError(f"setup.{key}: {pid} is not a {colour} puzzle")
            if pid in seen:
                raise RecordError(f"setup.{key}: {pid} appears twice")
            seen.add(pid)
            deck.append(card)
        decks.append(deck)
    return first, decks[0], decks[1]


def deal(rules: Rules, rng: random.Random) -> dict[str, Any]:
    """Deal a setup: shuffled white deck, a random black deck of the player count's size.

    Solo: one deck of random whites on top of random blacks, the locks and the opponent's supply.
    """
    if rules.solo:
        setup = deal_solo(rules, rng)
        if rules.finesse:
            setup["finesse_tiles"] = deal_tiles(
                rules.finesse_tiles, rules.finesse_ambassador, True, rng
            )
        return setup
    cat = rules.catalogue
    white = [cat.puzzles[c].id for c in cat.of_colour("white")]
    rng.shuffle(white)
    black = [cat.puzzles[c].id for c in cat.of_colour("black")]
    black = rng.sample(black, rules.black_deck_size)
    first = rng.randrange(rules.players)
    setup = {"first_player": first, "white_deck": white, "black_deck": black}
    if rules.finesse:
        setup["finesse_tiles"] = deal_tiles(
            rules.finesse_tiles, rules.finesse_ambassador, False, rng
        )
    if rules.endless_white_deck:
        setup["reshuffle_seed"] = deal_seed(rng)  # drawn last: other setups are unchanged
    return setup


def new_game(
    rules: Rules,
    seed: int | np.random.SeedSequence | None = None,
    setup: Any = None,
) -> GameState:
    """Start a game from an explicit ``setup``, or dealt from ``seed`` (one of them is needed)."""
    if setup is None:
        if seed is None:
            raise ValueError("new_game needs a seed or a setup")
        setup = deal(rules, rng_from_seed(seed))
    return GameState(rules, setup)


def setup_of(state: GameState) -> dict[str, Any]:
    """Return the setup (as a record writes it) of a state that has not moved yet."""
    cat = state.rules.catalogue
    if state.solo is not None:
        setup = setup_json(state.solo, state.decks[WHITE], state.decks[BLACK], cat)
    elif state.line_clear is not None:
        # the left rows were dealt first, then the right rows (rulings, Line Clear setup)
        left, right = sides(state)
        lc = state.line_clear
        setup = {
            "first_player": state.first_player,
            "white_deck": [
                cat.puzzles[c].id for c in left[WHITE] + right[WHITE] + state.decks[WHITE]
            ],
            "black_deck": [
                cat.puzzles[c].id for c in left[BLACK] + right[BLACK] + state.decks[BLACK]
            ],
            "markers": markers_json((lc.white, lc.black)),
        }
    else:
        setup = {
            "first_player": state.first_player,
            "white_deck": [cat.puzzles[c].id for c in state.rows[WHITE] + state.decks[WHITE]],
            "black_deck": [cat.puzzles[c].id for c in state.rows[BLACK] + state.decks[BLACK]],
        }
    if state.finesse is not None:
        setup["finesse_tiles"] = state.finesse.row_ids()
    if state.endless is not None:
        setup["reshuffle_seed"] = state.endless.seed
    return setup
