"""The Ghost Piece expansion: ghost tables, the Level Up and Ghost action rules, the state block.

Rulings, Ghost Piece (publisher rulebook 2.5). This module holds the expansion's tables and pure
rules; the engine calls it from a few named hooks (``_ghost_*``: rewards, checking and applying the
Ghost and Level Up actions, placeable pieces), each behind one ``self.ghost is not None`` test.

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

from collections.abc import Iterator, Sequence

from projectl_sim.catalogue import Catalogue

# The ghosts are gained as rewards and by Level Up only: the Ghost action and Upgrade stop here.
TOP_ACTION_LEVEL = 4


class GhostTables:
    """Per-catalogue tables: which pieces are ghosts, their decompositions, Level Up targets."""

    def __init__(self, cat: Catalogue) -> None:
        from projectl_sim.catalogue import cell_mask
        from projectl_sim.fill import tiling_index  # the fillability module owns tilings

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
        self.decompositions = decomps
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
        self.by_level: dict[int, tuple[int, ...]] = {}
        for p in range(n):
            self.by_level[levels[p]] = (*self.by_level.get(levels[p], ()), p)

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

    __slots__ = (
        "earned",
        "exchange_only",
        "exchanges",
        "forgone",
        "free",
        "levelled",
        "steps",
        "tables",
    )

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
        g = object.__new__(Ghosts)
        g.tables = self.tables
        g.free = self.free
        g.exchange_only = self.exchange_only
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
