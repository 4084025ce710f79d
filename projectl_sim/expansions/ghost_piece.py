"""The Ghost Piece expansion: ghost tables, the Level Up and Ghost action rules, the state block.

Rulings, Ghost Piece (publisher rulebook 2.5). This module holds the expansion's tables, its block
(``Ghosts``), its actions (``Ghost``, ``LevelUp``), the ``level_up`` phase and its hooks
(``GhostPiece``): the engine calls them for the Level Up rewards, to list, check and apply the Ghost
and Level Up actions, and for the pieces that may be placed. Its puzzles (12 white, 12 black,
provisional) and ghost pieces are the catalogue's ``ghost_piece`` set, added by ``Rules``.

- The ghost pieces are the level-5 pieces (``pent_P``, ``pent_U``, ``pent_L``, 10 each). They are
  gained only as puzzle rewards (the reserve shortage rule applied to a reward included) or by a
  Level Up; the Upgrade action (A and B, its shortage fallback included) never reaches level 5.
- Level Up rewards ↑ and ⇈ give one and two upgrade steps. A step returns a supply piece and takes
  a piece exactly one level higher (Upgrade B's "one level higher", with the reserve shortage
  rule); it may reach level 5. The steps are decisions of the player, one at a time, in the
  ``level_up`` phase (``LevelUp(give, get)``), taken in the order the puzzles were taken (the
  pending reward queue). ⇈ is two steps: the same piece twice (the second step upgrades what the
  first took) or two pieces.
- The Ghost action returns a ghost and takes level 1-4 pieces that together form its shape (every
  decomposition, computed from the shapes by the tiling index), with the reserve shortage rule per
  piece; any of the new pieces may be placed at once into own unfinished puzzles, at most one new
  piece per puzzle; the rest go to the supply. Not during Finishing Touches.
- Switches: ``ghost_action`` ``action`` (one of the 3 actions) or ``free`` (no action; open at any
  time in the turn while the turn lasts, like Finesse's Insert); ``ghost_placement`` ``piece``
  (placed like any piece) or ``exchange_only`` (never placed by Place, Master or Finishing
  Touches; only exchanged, or given away by Upgrade B).

Judgement calls made here (the rulings are silent):

1. Upgrade B may give a ghost for a level 1-4 piece ("any lower level"); a ghost for another ghost
   ("the same level") is refused, since that gains a ghost by Upgrade.
2. A ghost has no Level Up: no piece is exactly one level higher, and the shortage rule stands in
   for a shape that exists but is gone from the reserve, not for a level that doesn't exist.
3. A Level Up step's shortage: when no piece one level higher is left, a piece two levels higher
   or of any level up to the given piece's (not the same shape: that would change nothing).
4. Each Level Up step may be declined (``LevelUp(None, None)``: a decision, always offered); the
   second step of ⇈ stays open after a declined first. A step with no upgrade possible lapses by
   itself (no decision is asked). Both count as forgone steps.
5. The Ghost action's shortage: every wanted piece the reserve holds is taken first, then each
   missing one (largest first) by the shortage rule on what is left, never above level 4 (the
   action takes level 1-4 pieces); a piece for which nothing qualifies is not taken, and a Ghost
   action that would take nothing at all is not offered. The pieces may be written in any order
   (listed largest first).
6. ``ghost_action="free"``: an Insert (Finesse) cannot carry a Ghost action: it would spend 2
   Credits on what costs no action and, the Insert adding one action, give a free extra action.
7. Finesse pink tiles: ``place`` counts the pieces a Ghost action places and ``complete`` the
   puzzles it completes; a Ghost action is neither a Master nor an Upgrade, and a Level Up step
   is not an Upgrade action. The Upgrade tiles (C05/C06) pay for the Level Up rewards instead, as
   the rulings say: 1 per ↑ and 2 per ⇈ received, paid when the reward comes up in the reward
   queue, whether its steps are then taken, declined or lapse (``finesse.level_up_count``).
8. Solo with ``solo_opponent_pieces="random"``: the locks and the opponent's pieces are drawn from
   the level 1-4 pieces only (ghosts come only as rewards).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from projectl_sim.catalogue import (
    LEVEL_UP_1,
    LEVEL_UP_2,
    SPECIAL_REWARD_CODES,
    Catalogue,
    cell_mask,
)
from projectl_sim.engine.actions import (
    Action,
    Placement,
    field_of,
    piece_of,
    placement_json,
    placements_of,
    placements_text,
    register_action,
)
from projectl_sim.engine.hooks import Expansion
from projectl_sim.engine.invariants import InvariantError
from projectl_sim.engine.sealed import Sealed
from projectl_sim.engine.state import FINISHING, OVER, PLAY, GameState
from projectl_sim.errors import IllegalActionError, RecordError
from projectl_sim.frozen import ReadOnlyDict
from projectl_sim.options import Option
from projectl_sim.registry import register_expansion
from projectl_sim.rules import Rules
from projectl_sim.tiling.fill import tiling_index

LEVEL_UP = "level_up"  # the phase of a Level Up reward's steps
# rulings, Ghost Piece: a Level Up reward's upgrade steps (↑ one, ⇈ two), by reward code
LEVEL_UP_STEPS = {SPECIAL_REWARD_CODES[LEVEL_UP_1]: 1, SPECIAL_REWARD_CODES[LEVEL_UP_2]: 2}

# The ghosts are gained as rewards and by Level Up only: the Ghost action and Upgrade stop here.
TOP_ACTION_LEVEL = 4


class GhostTables(Sealed):
    """Per-catalogue tables: which pieces are ghosts, their decompositions, Level Up targets."""

    def __init__(self, cat: Catalogue) -> None:
        self.cat = cat
        levels = cat.levels
        self.levels = levels
        n = len(levels)
        self.n_pieces = n
        self.is_ghost = tuple(p.is_ghost for p in cat.pieces)
        self.ghosts = cat.ghost_pieces
        # canonical order of a multiset of pieces: largest first, then catalogue order
        self._order = {p: (-levels[p], p) for p in range(n)}
        # ghost -> every multiset of level 1-4 pieces tiling its shape, fewest pieces first
        index = tiling_index(cat)
        decomps: dict[int, tuple[tuple[int, ...], ...]] = {}
        for g in self.ghosts:
            found = []
            for v in index.vectors(cell_mask(cat.pieces[g].cells)):
                counts = index.unpack(v)
                if any(counts[h] for h in self.ghosts):
                    continue  # the ghost itself
                found.append(self.canonical([p for p in range(n) for _ in range(counts[p])]))
            decomps[g] = tuple(sorted(set(found), key=lambda d: (len(d), d)))
        self.decompositions: dict[int, tuple[tuple[int, ...], ...]] = ReadOnlyDict(decomps)
        # per piece given: the Level Up targets (exactly one level higher) and, when that level
        # is empty in the reserve, the shortage targets (two levels higher or up to its own level,
        # not its own shape); a ghost has neither (judgement calls 2 and 3)
        up: list[tuple[int, ...]] = []
        short: list[tuple[int, ...]] = []
        for g in range(n):
            above = tuple(p for p in range(n) if levels[p] == levels[g] + 1)
            up.append(above)
            short.append(
                tuple(
                    p
                    for p in range(n)
                    if above and p != g and (levels[p] <= levels[g] or levels[p] == levels[g] + 2)
                )
            )
        self.level_up = tuple(up)
        self.level_up_shortage = tuple(short)
        by_level: dict[int, tuple[int, ...]] = {}
        for p in range(n):
            by_level[levels[p]] = (*by_level.get(levels[p], ()), p)
        # shared by every game and view of the catalogue (a bot reaches them through its view's
        # Ghost Piece block): read-only, as the engine's tables are
        self.by_level: dict[int, tuple[int, ...]] = ReadOnlyDict(by_level)
        self.seal()

    def canonical(self, pieces: Sequence[int]) -> tuple[int, ...]:
        """Return a multiset of pieces in the listing order: largest first, then by index."""
        return tuple(sorted(pieces, key=self._order.__getitem__))

    def level_up_targets(self, give: int, reserve: Sequence[int]) -> list[int]:
        """Return the pieces one Level Up step of ``give`` may take from ``reserve``."""
        found = [p for p in self.level_up[give] if reserve[p]]
        return found or [p for p in self.level_up_shortage[give] if reserve[p]]

    def _substitutes(self, wanted: int, reserve: Sequence[int]) -> list[int]:
        # rulings, reserve shortage, capped at level 4 for the Ghost action (judgement call 5)
        level = self.levels[wanted]
        same = [p for p in self.by_level[level] if reserve[p]]
        if same:
            return same
        return [
            p
            for p in range(self.n_pieces)
            if reserve[p]
            and (self.levels[p] < level or self.levels[p] == level + 1 <= TOP_ACTION_LEVEL)
        ]

    def takes(self, ghost: int, reserve: Sequence[int]) -> list[tuple[int, ...]]:
        """Return every multiset of pieces a Ghost action of ``ghost`` may take from ``reserve``.

        One per decomposition when the reserve holds its pieces; with a shortage, every result of
        the shortage rule (judgement call 5). Canonical order, no repeats, none empty.
        """
        out: list[tuple[int, ...]] = []
        seen: set[tuple[int, ...]] = set()
        for wanted in self.decompositions.get(ghost, ()):
            left = list(reserve)
            got: list[int] = []
            missing: list[int] = []
            for w in wanted:
                if left[w]:
                    left[w] -= 1
                    got.append(w)
                else:
                    missing.append(w)
            for extra in self._resolve(missing, left):
                take = self.canonical(got + extra)
                if take and take not in seen:
                    seen.add(take)
                    out.append(take)
        return out

    def _resolve(self, missing: list[int], left: list[int]) -> Iterator[list[int]]:
        """Yield each way the shortage rule fills the ``missing`` pieces, in turn, from ``left``."""
        if not missing:
            yield []
            return
        options = self._substitutes(missing[0], left)
        if not options:
            yield from self._resolve(missing[1:], left)  # nothing qualifies: nothing is taken
            return
        for p in options:
            left[p] -= 1
            for rest in self._resolve(missing[1:], left):
                yield [p, *rest]
            left[p] += 1

    def placeable(self, supply: list[int]) -> list[int]:
        """Return ``supply`` with every ghost count 0 (a new list)."""
        out = supply[:]
        for g in self.ghosts:
            out[g] = 0
        return out


def ghost_tables(cat: Catalogue) -> GhostTables:
    """Return the ghost tables of a catalogue (built once, kept on the catalogue object)."""
    tables = cat.__dict__.get("_ghost_tables")
    if tables is None:
        tables = cat.__dict__["_ghost_tables"] = GhostTables(cat)
    return tables


class Ghosts:
    """The Ghost Piece block of a game: the switches, the Level Up being resolved, counters.

    ``steps`` is how many steps of the current Level Up reward are still open (the ``level_up``
    phase lasts while it is positive). Per player: ``earned`` Level Up steps (counted when the
    reward comes up in the queue), ``levelled`` steps taken, ``forgone`` steps declined or lapsed,
    and ``exchanges`` Ghost actions. Small lists copied by ``copy()``; the tables are shared.
    """

    def __init__(self, tables: GhostTables, players: int, free: bool, exchange_only: bool) -> None:
        self.tables = tables
        self.free = free
        self.exchange_only = exchange_only
        self.steps = 0
        self.earned = [0] * players
        self.levelled = [0] * players
        self.forgone = [0] * players
        self.exchanges = [0] * players

    def copy(self) -> Ghosts:
        """Return an independent copy (tables shared)."""
        g = Ghosts(self.tables, 0, self.free, self.exchange_only)
        g.steps = self.steps
        g.earned = self.earned[:]
        g.levelled = self.levelled[:]
        g.forgone = self.forgone[:]
        g.exchanges = self.exchanges[:]
        return g

    def placeable(self, supply: list[int]) -> list[int]:
        """Return the pieces of ``supply`` that may be placed (``supply`` itself unless the
        switch ``exchange_only`` keeps the ghosts out of puzzles)."""
        return self.tables.placeable(supply) if self.exchange_only else supply


# -- the actions -----------------------------------------------------------------------------------
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Ghost(Action):
    """Return the ghost ``ghost``, take the level 1-4 pieces ``take`` (together its shape), and
    place some of them at once (at most one new piece per puzzle); the rest go to the supply."""

    ghost: int
    take: tuple[int, ...]
    placements: tuple[Placement, ...] = ()


Ghost.kind = "ghost"  # after the body: a class attribute, not a field


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class LevelUp(Action):
    """A Level Up reward, one step: return ``give`` and take ``get`` one level higher.

    ``give`` and ``get`` both None: the player declines this step.
    """

    give: int | None
    get: int | None


LevelUp.kind = "level_up"  # after the body: a class attribute, not a field


def _read_ghost(d: dict[str, Any], cat: Any, player: int) -> Action:
    take = field_of(d, "take")
    if not isinstance(take, list) or not take:
        raise RecordError("ghost 'take' must be a non-empty list of piece ids")
    return Ghost(
        piece_of(cat, field_of(d, "ghost")),
        tuple(piece_of(cat, p) for p in take),
        placements_of(cat, d.get("placements", [])),
    )


def _write_ghost(a: Ghost, cat: Any) -> dict[str, Any]:
    return {
        "type": "ghost",
        "ghost": cat.pieces[a.ghost].id,
        "take": [cat.pieces[p].id for p in a.take],
        "placements": [placement_json(cat, p) for p in a.placements],
    }


def _describe_ghost(a: Ghost, cat: Any) -> str:
    took = " ".join(cat.pieces[p].id for p in a.take)
    placed = placements_text(cat, a.placements)
    return f"ghost {cat.pieces[a.ghost].id} for {took}" + (f" (placing {placed})" if placed else "")


def _read_level_up(d: dict[str, Any], cat: Any, player: int) -> Action:
    give, get = d.get("give"), d.get("get")
    if (give is None) != (get is None):
        raise RecordError("level_up needs both 'give' and 'get' (or neither, to decline)")
    if give is None:
        return LevelUp(None, None)
    return LevelUp(piece_of(cat, give), piece_of(cat, get))


def _write_level_up(a: LevelUp, cat: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "level_up"}
    if a.give is not None and a.get is not None:
        out |= {"give": cat.pieces[a.give].id, "get": cat.pieces[a.get].id}
    return out


def _describe_level_up(a: LevelUp, cat: Any) -> str:
    if a.give is None or a.get is None:
        return "level up declined"
    return f"level up {cat.pieces[a.give].id} to {cat.pieces[a.get].id}"


register_action("ghost", (Ghost,), _read_ghost, _write_ghost, _describe_ghost, play=True)
register_action(
    "level_up", (LevelUp,), _read_level_up, _write_level_up, _describe_level_up, play=False
)


# -- legal actions (the bots' entry points too) ----------------------------------------------------
def ghosts(state: GameState) -> Ghosts | None:
    """Return a game's Ghost Piece block, or None without the expansion."""
    block: Ghosts | None = state.block(GhostPiece.name)
    return block


def ghost_takes(state: GameState, ghost: int) -> list[tuple[int, ...]]:
    """Return the piece multisets a Ghost action of ``ghost`` may take now."""
    gs = ghosts(state)
    return [] if gs is None else gs.tables.takes(ghost, state.reserve)


def ghost_actions(state: GameState, placements: bool = True) -> Iterator[Ghost]:
    """Yield every Ghost action of the player to move (ghost order, then take order).

    Each exchange comes first without placements, then (``placements``) with each non-empty set
    of placements of its new pieces, at most one per own unfinished puzzle.
    """
    gs = ghosts(state)
    if gs is None or state.phase != PLAY:
        return
    supply = state.supply[state.current]
    for g in gs.tables.ghosts:
        if not supply[g]:
            continue
        for take in gs.tables.takes(g, state.reserve):
            yield Ghost(g, take)
            if placements:
                taken = [0] * state.tables.n_pieces
                for piece in take:
                    taken[piece] += 1
                for chosen in state.placement_sets(taken):
                    yield Ghost(g, take, chosen)


def sample_ghost(state: GameState, rng: random.Random, p_each: float = 0.5) -> Ghost | None:
    """Return a random legal Ghost action (None: none): a random ghost held, a random take, and
    each puzzle gets one of the new pieces with probability ``p_each`` where one fits."""
    gs = ghosts(state)
    if gs is None or state.phase != PLAY:
        return None
    supply = state.supply[state.current]
    held = [g for g in gs.tables.ghosts if supply[g]]
    if not held:
        return None
    g = held[int(rng.random() * len(held))]
    takes = gs.tables.takes(g, state.reserve)
    if not takes:
        return None
    take = takes[int(rng.random() * len(takes))]
    t = state.tables
    left = [0] * t.n_pieces
    for piece in take:
        left[piece] += 1
    chosen: list[Placement] = []
    for card, filled, _ in state.slots[state.current]:
        if rng.random() >= p_each:
            continue
        groups = t.fit_groups(card, t.recess[card] & ~filled)
        options = [(card, p, m) for p, masks in groups if left[p] for m in masks]
        if options:
            pl = options[int(rng.random() * len(options))]
            left[pl[1]] -= 1
            chosen.append(pl)
    return Ghost(g, take, tuple(chosen))


def level_up_actions(state: GameState) -> list[Action]:
    """Return the Level Up steps open now: each (give, get) in piece order, then declining."""
    gs = ghosts(state)
    if gs is None or state.phase != LEVEL_UP:
        return []
    supply = state.supply[state.current]
    acts: list[Action] = [
        LevelUp(give, get)
        for give in range(state.tables.n_pieces)
        if supply[give]
        for get in gs.tables.level_up_targets(give, state.reserve)
    ]
    acts.append(LevelUp(None, None))  # a decision: a step may be declined (judgement call 4)
    return acts


def _level_up_possible(state: GameState, gs: Ghosts, p: int) -> bool:
    supply = state.supply[p]
    return any(
        supply[give] and gs.tables.level_up_targets(give, state.reserve)
        for give in range(state.tables.n_pieces)
    )


# -- the hooks -------------------------------------------------------------------------------------
class GhostPiece(Expansion):
    """The Ghost Piece expansion's rules (rulings, Ghost Piece; judgement calls above)."""

    name: ClassVar[str] = "ghost_piece"
    abbreviation: ClassVar[str] = "GP"
    order: ClassVar[int] = 30
    action_kinds: ClassVar[tuple[str, ...]] = ("ghost", "level_up")
    rewards: ClassVar[tuple[str, ...]] = (LEVEL_UP_1, LEVEL_UP_2)
    phases: ClassVar[tuple[str, ...]] = (LEVEL_UP,)
    # rulings, Ghost Piece, the two judgement calls
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "ghost_action",
            "action",
            "the Ghost action uses one of the turn's actions (action) or is free (free)",
            choices=("action", "free"),
        ),
        Option(
            "ghost_placement",
            "piece",
            "a ghost may be placed like any piece (piece) or only exchanged (exchange_only)",
            choices=("piece", "exchange_only"),
        ),
    )

    __slots__ = ("_exchange_only", "_free", "_tables")

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self._tables = ghost_tables(rules.catalogue)
        self._free = rules.ghost_action == "free"
        self._exchange_only = rules.ghost_placement == "exchange_only"

    def ghosts(self, state: GameState) -> Ghosts:
        block: Ghosts = state.blocks[self.slot]
        return block

    def start(self, state: GameState, setup: dict[str, Any]) -> Any:
        return Ghosts(self._tables, state.n, free=self._free, exchange_only=self._exchange_only)

    def copy_block(self, block: Any) -> Any:
        gs: Ghosts = block
        return gs.copy()

    # -- legal actions ---------------------------------------------------------------------------
    def add_actions(self, state: GameState, acts: list[Action], master: str) -> None:
        if not self._free:
            acts.extend(ghost_actions(state, placements=master == "all"))

    def free_actions(self, state: GameState, acts: list[Action], master: str) -> None:
        # a free Ghost action is no action: never inserted (judgement call 6)
        if self._free:
            acts.extend(ghost_actions(state, placements=master == "all"))

    def phase_actions(self, state: GameState) -> list[Action]:
        return level_up_actions(state)

    def has_piece_action(self, state: GameState) -> bool:
        return any(True for _ in ghost_actions(state, placements=False))

    def placeable(self, state: GameState, supply: list[int]) -> list[int]:
        return self._tables.placeable(supply) if self._exchange_only else supply

    # -- checks ----------------------------------------------------------------------------------
    def check_action(self, state: GameState, player: int, action: Action) -> None:
        """Check a Ghost action (its phase and the player's turn are checked already)."""
        if isinstance(action, LevelUp):
            raise IllegalActionError("no Level Up is open")
        assert isinstance(action, Ghost)
        cat = state.tables.cat
        tables = self._tables
        ghost = action.ghost
        name = cat.pieces[ghost].id
        if not tables.is_ghost[ghost]:
            raise IllegalActionError(f"{name} is not a ghost piece")
        if not state.supply[player][ghost]:
            raise IllegalActionError(f"has no {name} to exchange")
        take = tables.canonical(action.take)
        if take not in tables.takes(ghost, state.reserve):
            pieces = " ".join(cat.pieces[p].id for p in take)
            if take in tables.decompositions[ghost]:
                raise IllegalActionError(
                    f"the reserve lacks some of {pieces}: the reserve shortage rule applies"
                )
            raise IllegalActionError(f"{pieces} do not form a {name} (nor replace one by shortage)")
        taken = [0] * state.tables.n_pieces
        for p in take:
            taken[p] += 1
        placed = [0] * state.tables.n_pieces
        for _card, p, _mask in action.placements:
            placed[p] += 1
            if placed[p] > taken[p]:
                raise IllegalActionError(f"places a {cat.pieces[p].id} the exchange did not take")
        state.check_placements(player, action.placements, True, taken)

    def check_phase(self, state: GameState, player: int, action: Action) -> None:
        """Check a Level Up step (the phase is ``level_up``)."""
        if not isinstance(action, LevelUp):
            raise IllegalActionError("a Level Up step must be taken or declined first")
        give, get = action.give, action.get
        if give is None and get is None:
            return  # declining is always open (judgement call 4)
        if give is None or get is None:
            raise IllegalActionError("a Level Up step names the piece given and the piece taken")
        cat = state.tables.cat
        if not state.supply[player][give]:
            raise IllegalActionError(f"has no {cat.pieces[give].id} to level up")
        if get not in self._tables.level_up_targets(give, state.reserve):
            if cat.pieces[give].is_ghost:
                why = "a ghost piece has no level above it"
            elif state.reserve[get] == 0:
                why = f"the reserve has no {cat.pieces[get].id}"
            else:
                why = "a Level Up takes a piece exactly one level higher (or the shortage rule's)"
            raise IllegalActionError(why)

    def finishing_refusal(self, action: Action) -> str:
        return "no Ghost action during Finishing Touches" if isinstance(action, Ghost) else ""

    def placement_error(self, state: GameState, piece: int) -> str:
        if self._exchange_only and self._tables.is_ghost[piece]:
            return "ghost pieces are only exchanged (ghost_placement=exchange_only)"
        return ""

    def upgrade_error(self, state: GameState, piece: int) -> str:
        """Rulings, Ghost Piece: ghost pieces come only as rewards (``Piece.reward_only``)."""
        if self._tables.is_ghost[piece]:
            return "the Upgrade action never takes a ghost piece (level 5)"
        return ""

    # -- applying --------------------------------------------------------------------------------
    def before_apply(self, state: GameState, action: Action) -> bool:
        """Apply a Level Up step; return False for any other action."""
        if not isinstance(action, LevelUp):
            return False
        gs = self.ghosts(state)
        p = state.current
        supply = state.supply[p]
        reserve = state.reserve
        give, get = action.give, action.get
        if give is None or get is None:
            gs.forgone[p] += 1
        else:
            supply[give] -= 1
            reserve[give] += 1
            reserve[get] -= 1
            supply[get] += 1
            gs.levelled[p] += 1
        gs.steps -= 1
        if gs.steps and _level_up_possible(state, gs, p):
            return True  # the next step of a ⇈
        gs.forgone[p] += gs.steps  # a step with no upgrade possible lapses
        gs.steps = 0
        state.phase = PLAY
        state.resume_rewards(p)  # the rest of the queue, in the order taken
        if state.phase == PLAY:
            state.advance()
        return True

    def apply_action(self, state: GameState, action: Action) -> None:
        """Apply a Ghost action: the ghost back, its pieces taken, the new ones placed (the base
        game completes puzzles and ends the action as for any other)."""
        assert isinstance(action, Ghost)
        p = state.current
        supply, reserve = state.supply[p], state.reserve
        supply[action.ghost] -= 1
        reserve[action.ghost] += 1
        for piece in action.take:
            reserve[piece] -= 1
            supply[piece] += 1
        self.ghosts(state).exchanges[p] += 1
        for card, piece, mask in action.placements:
            state.place_piece(p, card, piece, mask)
        state.complete_puzzles(p)

    def counts_as_action(self, state: GameState, action: Action) -> bool:
        """A free Ghost action (ghost_action=free) is no action of the turn."""
        return not (self._free and isinstance(action, Ghost))

    def resolve_reward(self, state: GameState, player: int, code: int) -> bool:
        """Start a Level Up reward; return whether a step is open (a decision)."""
        gs = self.ghosts(state)
        steps = LEVEL_UP_STEPS[code]
        gs.earned[player] += steps
        if _level_up_possible(state, gs, player):
            gs.steps = steps
            state.reward_options = ()
            state.phase = LEVEL_UP
            return True
        gs.forgone[player] += steps  # nothing to upgrade: the reward lapses (no decision)
        return False

    def summary_json(self, state: GameState, out: dict[str, Any]) -> None:
        """The Level Up steps still open, and each player's Ghost actions and Level Up steps."""
        gs = self.ghosts(state)
        out["ghost_piece"] = {"level_up_steps": gs.steps}
        for p, row in enumerate(out["players"]):
            row["ghost_exchanges"] = gs.exchanges[p]
            row["levelled_up"] = gs.levelled[p]

    def check_invariants(self, state: GameState) -> None:
        """The Level Up steps add up, the phase matches, exchange_only holds."""
        gs = self.ghosts(state)
        t = state.tables
        if (state.phase == LEVEL_UP) != (gs.steps > 0):
            raise InvariantError(f"phase {state.phase} with {gs.steps} Level Up steps open")
        if not 0 <= gs.steps <= 2 or (state.phase == LEVEL_UP and state.reward_options):
            raise InvariantError(f"{gs.steps} Level Up steps open beside {state.reward_options}")
        for p in range(state.n):
            open_steps = gs.steps if p == state.current else 0
            if gs.levelled[p] + gs.forgone[p] + open_steps != gs.earned[p]:
                raise InvariantError(
                    f"player {p}: {gs.levelled[p]} Level Up steps taken + {gs.forgone[p]} "
                    f"forgone + {open_steps} open, not the {gs.earned[p]} earned"
                )
            if min(gs.levelled[p], gs.forgone[p], gs.exchanges[p]) < 0:
                raise InvariantError(f"player {p}: a negative Ghost Piece count")
            if state.pile_hidden(p):
                continue
            # Level Up steps come from completed puzzles (not from Finishing Touches, which
            # reward nothing): while the game is played, earned plus still queued is the pile's
            queued = (
                sum(LEVEL_UP_STEPS.get(r, 0) for r in state.pending) if p == state.current else 0
            )
            in_pile = sum(t.cat.puzzles[c].level_ups for c in state.piles[p])
            if gs.earned[p] + queued > in_pile or (
                state.phase not in (FINISHING, OVER) and gs.earned[p] + queued != in_pile
            ):
                raise InvariantError(
                    f"player {p}: {gs.earned[p]} Level Up steps earned + {queued} queued, "
                    f"its pile has {in_pile}"
                )
        if gs.exchange_only:
            for p in range(state.n):
                for _card, _filled, placed in state.slots[p]:
                    if any(t.cat.pieces[piece].is_ghost for piece, _ in placed):
                        raise InvariantError(f"player {p} placed a ghost under exchange_only")


register_expansion(GhostPiece)
