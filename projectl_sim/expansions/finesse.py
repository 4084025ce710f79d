"""The Finesse expansion: the tile table, the credit bank, the tiles' effects and Insert.

Rulings, Finesse expansion (document 002). This module holds the expansion's data (the tiles), its
block (``Credits``: the bank and each player's Credits), its action (``Insert``) and its hooks
(``Finesse``): the engine calls them when a game is dealt, before each action (Insert, pink
tiles), at the end of a turn (blue tiles, Credits become active), at the end of a round (the 10th
tile ends the game), for Finishing Touches (paid with Credits) and for the tie-break.

Interactions written here: Finesse Solo (Recycle tiles are not dealt in solo; the mastermind's
two takes are the solo variant's rule), a free Ghost action is never inserted (Ghost Piece,
judgement call 6), the ``master`` tile counts Ambassador actions too (Ambassador Pack), and the
Upgrade tile pays for Level Up rewards (Ghost Piece).

Tiles are data (``data/finesse_tiles.json``, or a user's file of the same format): each has an id,
a set (A, B or C), a pack (``base`` or ``ambassador``), a colour (``pink`` pays at once, ``blue``
at the end of the turn), a trigger, the depicted pieces its trigger counts, the Credits it pays per
achievement, and a ``provisional`` flag for content the rule documents don't give.

Triggers (each pays ``credits`` per count; "held" is in supply or on unfinished puzzles, as the
rulings read the tiles' "have"; the once-only triggers count 0 or 1, so they pay ``credits`` once):

- pink ``place``: per depicted piece placed on an own puzzle (Place, Master, Ambassador, a
  Ghost action's placements, inserted or not);
- pink ``master``: per piece placed by a Master action or an Ambassador action (the tile reads
  "Master or Ambassador" with the Ambassador Pack, rulings);
- pink ``complete``: per puzzle completed (by a Place, a Master, an Ambassador or a Ghost
  action's placements);
- pink ``take``: per Take action (from a row, the grid or blind from a deck);
- pink ``upgrade``: per Upgrade action (A, a level-1 piece, or B, an exchange: both are Upgrade);
  with Ghost Piece also 1 per upgrade step of each Level Up reward received (↑ 1, ⇈ 2), paid as
  the reward comes up in the reward queue (rulings, Set C: C05/C06), used or not;
- pink ``recycle``: per Recycle action (removed in solo: rulings, Finesse Solo);
- pink ``insert``: per Insert action, paid as the Insert is made: after its 2 Credits are spent,
  before the inserted action is applied (rulings, X04 "after each Insert action"; a decision:
  so the Credit always goes to the inserting player within its own turn, even when the inserted
  action ends the turn or, in Line Clear, hands the move to the other marker holder);
- blue ``own``: per depicted piece held at the end of the turn;
- blue ``unfinished``: per unfinished puzzle at the end of the turn;
- blue ``variety``: per depicted shape with at least one piece held at the end of the turn;
- blue ``no_unfinished``: once, when the player has no unfinished puzzle at the end of the turn;
- blue ``every_level``: once, when the player holds a piece of every level 1-4 (ghosts, level
  5, don't count);
- blue ``distinct_shapes``: once, when no two pieces held are of the same shape (ghosts
  included: two ``pent_P`` are two of a shape; an empty holding counts, by the letter of the
  tile, though the starting supply and the rules never leave a player with no piece);
- blue ``no_level_1_2``: once, when the player holds no level-1 or level-2 piece.

Only ``place``, ``own`` and ``variety`` depict pieces; the level triggers read the catalogue's
piece levels, so a user's tile file needs no piece list for them.

The row is ten tiles; in round r only tile r counts (rulings: the first two are face down, so none
in rounds 1-2), and the end of round 10 removes the last tile and ends the game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from projectl_sim.catalogue import LEVEL_UP_1, LEVEL_UP_2, SPECIAL_REWARD_CODES
from projectl_sim.engine.actions import (
    Action,
    Finish,
    Placement,
    describe,
    describe_finish,
    field_of,
    from_json,
    is_play_action,
    placements_of,
    register_action,
    register_form,
    to_json,
    write_finish,
)
from projectl_sim.engine.hooks import Expansion
from projectl_sim.engine.invariants import InvariantError
from projectl_sim.engine.state import PLAY, GameState
from projectl_sim.errors import IllegalActionError, RecordError, RulesError
from projectl_sim.frozen import ReadOnlyDict
from projectl_sim.jsonfile import read_json
from projectl_sim.loading import base_catalogue
from projectl_sim.options import Column, Option
from projectl_sim.registry import register_expansion
from projectl_sim.rules import Rules

TILES_FORMAT = "projectl-finesse-tiles/1"
# the rulebook's bank and Insert cost (rulings, Finesse); a game's own are its rules'
# ``finesse_bank`` and ``insert_cost`` parameters
# rulings, Finesse expansion: 35 Credits in the bank; an Insert costs 2 active Credits
BANK_CREDITS = FINESSE_BANK = 35
INSERT_COST = 2
ROW_SETS = (("A", 2), ("B", 2), ("C", 6))  # rulings: 2 Set A, 2 Set B and 6 Set C tiles
ROW_LENGTH = sum(k for _, k in ROW_SETS)
FACE_DOWN = 2  # the first two tiles of the row
SETS = ("A", "B", "C")
PACKS = ("base", "ambassador")
PINK_TRIGGERS = ("place", "master", "complete", "take", "upgrade", "recycle", "insert")
BLUE_TRIGGERS = (
    "own",
    "unfinished",
    "variety",
    "no_unfinished",
    "every_level",
    "distinct_shapes",
    "no_level_1_2",
)
TRIGGERS = PINK_TRIGGERS + BLUE_TRIGGERS
PIECE_TRIGGERS = ("place", "own", "variety")  # the triggers that count depicted pieces
EVERY_LEVEL = (1, 2, 3, 4)  # rulings, X03: "every level 1-4" (a ghost is level 5)
SMALL_LEVELS = (1, 2)  # rulings, X06: "no level-1 or level-2 piece"
HIDDEN_TILE = -1  # a face-down tile in a view


@dataclass(frozen=True, slots=True)
class Tile:
    """One Finesse tile: what it counts and what it pays."""

    id: str
    set: str
    colour: str
    trigger: str
    pieces: tuple[str, ...] = ()
    credits: int = 1
    provisional: bool = False
    pack: str = "base"

    @property
    def pink(self) -> bool:
        """Return whether the tile pays at once (pink) rather than at the end of the turn."""
        return self.colour == "pink"


@dataclass(frozen=True)
class TileSet:
    """Every Finesse tile a game may deal, in file order; ``source`` is ``builtin`` or a path."""

    tiles: tuple[Tile, ...]
    name: str = "builtin"
    source: str = "builtin"

    def index(self, tile_id: str) -> int:
        """Return the index of a tile id (KeyError if unknown)."""
        for i, tile in enumerate(self.tiles):
            if tile.id == tile_id:
                return i
        raise KeyError(f"unknown Finesse tile {tile_id!r}")

    def pool(self, set_name: str, ambassador: bool, solo: bool) -> list[int]:
        """Return the tile indices a game may deal from a set (pack switch, solo's exclusion)."""
        return [
            i
            for i, t in enumerate(self.tiles)
            if t.set == set_name
            and (ambassador or t.pack == "base")
            and not (solo and t.trigger == "recycle")  # rulings, Finesse Solo
        ]


def _tile_error(where: str, why: str) -> RulesError:
    return RulesError(f"{where}: {why}")


def tiles_from_dict(data: Any, piece_ids: Sequence[str], source: str = "<dict>") -> TileSet:
    """Build a tile set from its JSON form; raise ``RulesError`` naming the first bad tile."""
    if not isinstance(data, dict) or not isinstance(data.get("tiles"), list):
        raise RulesError("a Finesse tiles file is an object with a 'tiles' list")
    fmt = data.get("format", TILES_FORMAT)
    if fmt != TILES_FORMAT:
        raise RulesError(f"unknown tiles format {fmt!r} (expected {TILES_FORMAT!r})")
    tiles: list[Tile] = []
    seen: set[str] = set()
    for k, spec in enumerate(data["tiles"]):
        if not isinstance(spec, dict):
            raise _tile_error(f"tile {k}", "must be an object")
        tid = spec.get("id")
        where = f"tile {tid!r}" if isinstance(tid, str) else f"tile {k}"
        if not isinstance(tid, str) or not tid:
            raise _tile_error(where, "needs a text id")
        if tid in seen:
            raise _tile_error(where, "appears twice")
        seen.add(tid)
        set_name, colour, trigger = spec.get("set"), spec.get("colour"), spec.get("trigger")
        if set_name not in SETS:
            raise _tile_error(where, f"set must be one of {', '.join(SETS)}, got {set_name!r}")
        if trigger not in TRIGGERS:
            raise _tile_error(where, f"unknown trigger {trigger!r} (valid: {', '.join(TRIGGERS)})")
        want = "pink" if trigger in PINK_TRIGGERS else "blue"
        if colour != want:
            raise _tile_error(where, f"a {trigger!r} tile is {want}, got colour {colour!r}")
        pieces = spec.get("pieces", [])
        if not isinstance(pieces, list) or any(p not in piece_ids for p in pieces):
            raise _tile_error(where, f"pieces must be a list of piece ids, got {pieces!r}")
        if (trigger in PIECE_TRIGGERS) != bool(pieces):
            why = "needs depicted pieces" if trigger in PIECE_TRIGGERS else "depicts no pieces"
            raise _tile_error(where, f"a {trigger!r} tile {why}")
        credits = spec.get("credits", 1)
        if not isinstance(credits, int) or isinstance(credits, bool) or credits < 1:
            raise _tile_error(where, f"credits must be a whole number >= 1, got {credits!r}")
        pack = spec.get("pack", "base")
        if pack not in PACKS:
            raise _tile_error(where, f"pack must be one of {', '.join(PACKS)}, got {pack!r}")
        provisional = spec.get("provisional", False)
        if not isinstance(provisional, bool):
            raise _tile_error(where, "provisional must be true or false")
        tiles.append(
            Tile(tid, set_name, colour, trigger, tuple(pieces), credits, provisional, pack)
        )
    out = TileSet(tuple(tiles), str(data.get("name", "custom")), source)
    for set_name, wanted in ROW_SETS:
        have = len(out.pool(set_name, ambassador=False, solo=True))
        if have < wanted:
            raise RulesError(
                f"the tiles need at least {wanted} Set {set_name} tiles of the base pack "
                f"(without Recycle tiles, for solo), got {have}"
            )
    return out


def load_tiles(path: str | Path, piece_ids: Sequence[str]) -> TileSet:
    """Load a user's Finesse tiles file; raise ``RulesError`` with a one-line message."""
    p = Path(path)
    data = read_json(p, "Finesse tiles", RulesError)
    try:
        return tiles_from_dict(data, piece_ids, source=str(p))
    except RulesError as exc:
        raise RulesError(f"Finesse tiles {p}: {exc}") from None


_BUILTIN: dict[tuple[str, ...], TileSet] = {}


def builtin_tiles(piece_ids: Sequence[str] | None = None) -> TileSet:
    """Return the shipped tile set (loaded once per process)."""

    key = tuple(piece_ids) if piece_ids is not None else base_catalogue().piece_ids
    hit = _BUILTIN.get(key)
    if hit is None:
        text = resources.files("projectl_sim").joinpath("data/finesse_tiles.json").read_text()
        hit = _BUILTIN[key] = tiles_from_dict(json.loads(text), key, source="builtin")
    return hit


# -- setup -----------------------------------------------------------------------------------------
def deal_tiles(tileset: TileSet, ambassador: bool, solo: bool, rng: random.Random) -> list[str]:
    """Deal a row: random 2 Set A, 2 Set B and 6 Set C tiles, shuffled together (ids)."""
    chosen: list[int] = []
    for set_name, k in ROW_SETS:
        chosen.extend(rng.sample(tileset.pool(set_name, ambassador, solo), k))
    rng.shuffle(chosen)
    return [tileset.tiles[i].id for i in chosen]


def parse_row(value: Any, tileset: TileSet, ambassador: bool, solo: bool) -> tuple[int, ...]:
    """Return the tile indices of a setup's ``finesse_tiles``; raise ``RecordError`` if bad."""
    if not isinstance(value, list) or len(value) != ROW_LENGTH:
        raise RecordError(f"setup.finesse_tiles must list {ROW_LENGTH} Finesse tile ids")
    row = []
    for tid in value:
        try:
            i = tileset.index(tid)
        except (KeyError, TypeError):
            raise RecordError(f"setup.finesse_tiles: unknown tile {tid!r}") from None
        if i in row:
            raise RecordError(f"setup.finesse_tiles: {tid} appears twice")
        if i not in tileset.pool(tileset.tiles[i].set, ambassador, solo):
            why = "is a Recycle tile (removed in solo)" if solo else "needs finesse_ambassador"
            raise RecordError(f"setup.finesse_tiles: {tid} {why}")
        row.append(i)
    for set_name, k in ROW_SETS:
        if sum(tileset.tiles[i].set == set_name for i in row) != k:
            raise RecordError("setup.finesse_tiles must hold 2 Set A, 2 Set B and 6 Set C tiles")
    return tuple(row)


# -- the credits on the table ----------------------------------------------------------------------
class Credits:
    """The bank, each player's active and inactive Credits, and what the tables count: the
    expansion's block.

    Small lists copied by ``copy()``; the row and its resolved tiles are shared (immutable).
    """

    def __init__(
        self,
        tileset: TileSet,
        row: tuple[int, ...],
        piece_index: dict[str, int],
        players: int,
        bank: int = BANK_CREDITS,
    ) -> None:
        self.tileset = tileset
        self.row = row
        # per round (index r-1): (trigger, depicted piece indices, credits) or None
        rules: list[tuple[str, frozenset[int], int] | None] = []
        for r, i in enumerate(row):
            tile = tileset.tiles[i]
            counts = r >= FACE_DOWN  # rulings: the face-down tiles 1-2 never count
            pieces = frozenset(piece_index[p] for p in tile.pieces)
            rules.append((tile.trigger, pieces, tile.credits) if counts else None)
        self.rules_of_round = tuple(rules)
        self.bank = bank  # rulings, Finesse: 35 Credits (the rules' finesse_bank)
        self.active = [0] * players
        self.inactive = [0] * players
        self.earned = [0] * players
        self.spent = [0] * players
        self.inserts = [0] * players
        self.finishing = [0] * players

    def copy(self) -> Credits:
        """Return an independent copy (row and tiles shared)."""
        c = Credits(self.tileset, (), {}, 0)
        c.row = self.row
        c.rules_of_round = self.rules_of_round
        c.bank = self.bank
        c.active = self.active[:]
        c.inactive = self.inactive[:]
        c.earned = self.earned[:]
        c.spent = self.spent[:]
        c.inserts = self.inserts[:]
        c.finishing = self.finishing[:]
        return c

    def tile_rule(self, round_no: int) -> tuple[str, frozenset[int], int] | None:
        """Return the (trigger, pieces, credits) of the tile that counts in a round, or None."""
        if 1 <= round_no <= len(self.rules_of_round):
            return self.rules_of_round[round_no - 1]
        return None

    def total(self, p: int) -> int:
        """Return a player's Credits, active and inactive."""
        return self.active[p] + self.inactive[p]

    def gain(self, p: int, k: int) -> None:
        """Pay ``k`` Credits from the bank to ``p``, inactive (rulings: the empty-bank rule).

        When the bank is empty, the player or players with the most Credits return 1 each
        (an inactive one if they have one, else an active one: a decision, the rulings are
        silent), then ``p`` takes the Credit.
        """
        n = len(self.active)
        for _ in range(k):
            if not self.bank:
                most = max(self.total(q) for q in range(n))
                for q in range(n):
                    if self.total(q) == most:
                        if self.inactive[q]:
                            self.inactive[q] -= 1
                        else:
                            self.active[q] -= 1
                        self.bank += 1
            self.bank -= 1
            self.inactive[p] += 1
            self.earned[p] += 1

    def spend(self, p: int, k: int) -> None:
        """Return ``k`` of ``p``'s active Credits to the bank."""
        self.active[p] -= k
        self.bank += k
        self.spent[p] += k

    def activate(self, p: int) -> None:
        """Make ``p``'s inactive Credits active (the end of the owner's turn)."""
        self.active[p] += self.inactive[p]
        self.inactive[p] = 0

    def richest(self, seats: Sequence[int]) -> list[int]:
        """Return the seats among ``seats`` with the most Credits (rulings: Finesse ties)."""
        most = max(self.total(q) for q in seats)
        return [q for q in seats if self.total(q) == most]

    def provisional(self) -> bool:
        """Return whether a tile of the row is provisional data."""
        return any(self.tileset.tiles[i].provisional for i in self.row if i != HIDDEN_TILE)

    def row_ids(self) -> list[str | None]:
        """Return the row's tile ids in order (None for a tile a view hides)."""
        return [None if i == HIDDEN_TILE else self.tileset.tiles[i].id for i in self.row]


def end_of_turn_count(
    trigger: str,
    pieces: frozenset[int],
    supply: Sequence[int],
    slots: Sequence[Any],
    levels: Sequence[int],
) -> int:
    """Return how often a blue tile is achieved by a player's supply and unfinished puzzles.

    ``levels`` is each piece's level (the catalogue's). Pink tiles pay during the turn, not
    here: they count 0.
    """
    if trigger not in BLUE_TRIGGERS:
        return 0
    if trigger == "unfinished":
        return len(slots)
    if trigger == "no_unfinished":
        return int(not slots)
    held = list(supply)
    for _card, _filled, placed in slots:
        for piece, _mask in placed:
            held[piece] += 1
    if trigger == "own":
        return sum(held[p] for p in pieces)
    if trigger == "variety":
        return sum(1 for p in pieces if held[p])
    if trigger == "distinct_shapes":
        return int(max(held, default=0) <= 1)
    have = {levels[p] for p, k in enumerate(held) if k}
    if trigger == "every_level":
        return int(all(level in have for level in EVERY_LEVEL))
    return int(not any(level in have for level in SMALL_LEVELS))  # no_level_1_2


def pink_count(
    trigger: str, pieces: frozenset[int], action: Any, slots: Sequence[Any], recess: Sequence[int]
) -> int:
    """Return how often a pink tile is achieved by one Play action (before it is applied; an
    Insert counts itself, its inner action is counted when that is applied)."""
    kind = action.kind
    if trigger == "take":
        return int(kind in ("take", "take_deck"))
    if trigger == "upgrade":
        return int(kind in ("upgrade", "take_basic"))  # Upgrade A and B are both Upgrade
    if trigger == "recycle":
        return int(kind == "recycle")
    if trigger == "insert":
        return int(kind == "insert")
    placements: tuple[Placement, ...]
    if kind == "place":
        placements = ((action.card, action.piece, action.mask),)
    elif kind == "master" or kind == "ambassador" or kind == "ghost":
        placements = action.placements  # a Ghost action's: the new pieces placed at once
    else:
        return 0
    if trigger == "place":
        return sum(1 for _card, piece, _mask in placements if piece in pieces)
    if trigger == "master":
        return len(placements) if kind == "master" or kind == "ambassador" else 0
    if trigger == "complete":
        filled = {card: f for card, f, _ in slots}
        for card, _piece, mask in placements:
            filled[card] |= mask
        return sum(1 for card in {c for c, _, _ in placements} if filled[card] == recess[card])
    return 0


def level_up_count(trigger: str, steps: int) -> int:
    """Return how often a pink tile is achieved by a Level Up reward of ``steps`` received.

    Rulings, Set C (C05/C06, with Ghost Piece): the Upgrade tile pays 1 per ↑ and 2 per ⇈.
    """
    return steps if trigger == "upgrade" else 0


def hide_face_down(credits: Credits) -> None:
    """Hide the face-down tiles of a view's row (their sets stay known by their backs)."""
    credits.row = (HIDDEN_TILE,) * FACE_DOWN + credits.row[FACE_DOWN:]


def redeal_row(credits: Credits, rules: Any, rng: random.Random) -> None:
    """Fill a view's hidden tiles with random unseen tiles of the sets the row lacks."""
    if HIDDEN_TILE not in credits.row:
        return
    tiles = credits.tileset.tiles
    seen = [i for i in credits.row if i != HIDDEN_TILE]
    fill: list[int] = []
    for set_name, k in ROW_SETS:
        missing = k - sum(tiles[i].set == set_name for i in seen)
        pool = [
            i
            for i in credits.tileset.pool(set_name, rules.finesse_ambassador, rules.solo)
            if i not in seen
        ]
        fill.extend(rng.sample(pool, missing))
    rng.shuffle(fill)
    row = list(credits.row)
    for pos, i in enumerate(row):
        if i == HIDDEN_TILE:
            row[pos] = fill.pop()
    credits.row = tuple(row)


# -- the Insert action -----------------------------------------------------------------------------
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Insert(Action):
    """Spend 2 active Credits to take ``inner`` as an extra action."""

    inner: Action


Insert.kind = "insert"  # after the body: a class attribute, not a field


def _read_insert(d: dict[str, Any], cat: Any, player: int) -> Action:
    body = field_of(d, "action")
    if not isinstance(body, dict):
        raise RecordError("insert needs an 'action' object")
    _, inner = from_json({**body, "player": player}, cat)
    if not is_play_action(inner):
        raise RecordError(f"insert cannot carry a {body.get('type')!r} action")
    return Insert(inner)


def _write_insert(a: Insert, cat: Any) -> dict[str, Any]:
    body = to_json(a.inner, cat, 0)
    del body["player"]
    return {"type": "insert", "action": body}


register_action(
    "insert",
    (Insert,),
    _read_insert,
    _write_insert,
    lambda a, cat: f"insert {describe(a.inner, cat)}",
    play=False,
)


# -- Finishing Touches paid with Credits -----------------------------------------------------------
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class FinishWithCredits(Finish):
    """Finishing Touches of which ``credits`` placements are paid with a Credit, not a point
    (rulings, Finesse); its record is a ``finish`` with ``"credits": N``."""

    credits: int


FinishWithCredits.kind = "finish_credits"  # after the body: a class attribute, not a field


def _read_finish_credits(d: dict[str, Any], cat: Any, player: int) -> Action | None:
    if "credits" not in d:
        return None
    credits = d["credits"]
    if not isinstance(credits, int) or isinstance(credits, bool) or credits < 0:
        raise RecordError(f"finish credits must be a whole number >= 0, got {credits!r}")
    if not credits:
        return None  # the base game's Finish (a record's "credits": 0 is written without it)
    return FinishWithCredits(placements_of(cat, d.get("placements", [])), credits)


def _write_finish_credits(a: FinishWithCredits, cat: Any) -> dict[str, Any]:
    return write_finish(a, cat) | {"credits": a.credits}


def _describe_finish_credits(a: FinishWithCredits, cat: Any) -> str:
    return f"{describe_finish(a, cat)[:-1]}, {a.credits} paid with Credits)"


register_form(
    "finish",
    FinishWithCredits,
    _read_finish_credits,
    _write_finish_credits,
    _describe_finish_credits,
)


def paid_credits(action: Action) -> int:
    """Return how many placements a Finish pays with Credits (0 for any other action)."""
    return action.credits if isinstance(action, FinishWithCredits) else 0


def finish_paying(finish: Finish, credits: int) -> Finish:
    """Return ``finish`` with ``credits`` of its placements paid with Credits (the base
    game's Finish for 0)."""
    placements = finish.placements
    return FinishWithCredits(placements, credits) if credits else Finish(placements)


# -- the hooks -------------------------------------------------------------------------------------
# Ghost Piece's Level Up rewards (by reward code) and their upgrade steps, which the Upgrade tiles
# pay for
LEVEL_UP_REWARD_STEPS = {SPECIAL_REWARD_CODES[LEVEL_UP_1]: 1, SPECIAL_REWARD_CODES[LEVEL_UP_2]: 2}


def tileset_of(rules: Rules) -> TileSet:
    """Return the tile set a game of ``rules`` deals from (the shipped one by default)."""
    tiles = rules.expansion_data.get(Finesse.name)
    return builtin_tiles() if tiles is None else tiles


class Finesse(Expansion):
    """The Finesse expansion's rules (rulings, Finesse expansion)."""

    name: ClassVar[str] = "finesse"
    abbreviation: ClassVar[str] = "F"
    order: ClassVar[int] = 10
    action_kinds: ClassVar[tuple[str, ...]] = ("insert", "finish_credits")
    result_keys: ClassVar[tuple[str, ...]] = ("credits",)
    data_name: ClassVar[str] = "finesse_tiles"  # its tile set (``load_tiles``)
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "finesse_ambassador",
            False,
            "shuffle the Finesse Ambassador Pack's tiles into their sets before the row is "
            "drawn (in solo without its Recycle tile)",
        ),
        Option(
            "finesse_bank",
            FINESSE_BANK,
            "Credits in the bank",
            low=0,
            high=10_000,
            recorded="changed",
        ),
        Option(
            "insert_cost",
            INSERT_COST,
            "active Credits an Insert costs",
            low=1,
            high=100,
            recorded="changed",
        ),
    )
    columns: ClassVar[tuple[Column, ...]] = (
        Column("credits_final", "int", "Credits at the end, active and inactive"),
        Column("credits_earned", "int", "Credits earned"),
        Column("credits_spent", "int", "Credits spent (Inserts and Finishing Touches)"),
        Column("inserts", "int", "Insert actions"),
        Column("finishing_credits", "int", "Finishing Touches placements paid with a Credit"),
    )

    __slots__ = ("_insert_cost", "_piece_index", "_tileset")

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self._tileset = tileset_of(rules)
        self._piece_index: dict[str, int] = ReadOnlyDict(
            {p.id: p.index for p in rules.catalogue.pieces}
        )
        self._insert_cost = rules.insert_cost  # rulings, Finesse: 2 active Credits

    def credits(self, state: GameState) -> Credits:
        """Return the Credits block of a game."""
        block: Credits = state.blocks[self.slot]
        return block

    # -- the block -------------------------------------------------------------------------------
    def start(self, state: GameState, setup: dict[str, Any]) -> Any:
        """Lay out the tile row of the setup and fill the bank."""
        rules = self.rules
        row = parse_row(
            setup.get("finesse_tiles"), self._tileset, rules.finesse_ambassador, rules.solo
        )
        try:
            return Credits(self._tileset, row, self._piece_index, state.n, rules.finesse_bank)
        except KeyError as exc:
            raise RecordError(f"a Finesse tile depicts an unknown piece: {exc}") from None

    def copy_block(self, block: Any) -> Any:
        credits: Credits = block
        return credits.copy()

    def view_block(self, state: GameState, block: Any, player: int) -> Any:
        hide_face_down(block)  # Credits are public; face-down tiles are not
        return block

    def redeal_block(self, state: GameState, block: Any, rng: random.Random) -> Any:
        redeal_row(block, self.rules, rng)
        return block

    def deal(self, rules: Rules, rng: random.Random, setup: dict[str, Any]) -> None:
        setup["finesse_tiles"] = deal_tiles(
            self._tileset, rules.finesse_ambassador, rules.solo, rng
        )

    def setup_json(self, state: GameState, setup: dict[str, Any]) -> None:
        setup["finesse_tiles"] = self.credits(state).row_ids()

    def record_json(self, rules: Rules, record: dict[str, Any]) -> None:
        if self._tileset.source != "builtin":
            record["finesse_tiles"] = self._tileset.name  # replay with --tiles

    def record_hint(self, record: dict[str, Any]) -> str:
        named = record.get("finesse_tiles")
        if isinstance(named, str) and self.rules.expansion_data.get(self.name) is None:
            return (
                f"the record was played with the Finesse tile set {named!r}: replay it with "
                "--tiles FILE"
            )
        return ""

    # -- Insert ----------------------------------------------------------------------------------
    def wrap_actions(self, state: GameState, acts: list[Action]) -> None:
        if self.credits(state).active[state.current] >= self._insert_cost:
            acts.extend([Insert(a) for a in acts])  # rulings, Finesse: Insert any action

    def check(self, state: GameState, player: int, action: Action) -> Action:
        """Check an Insert (rulings, Finesse: "Insert"); return the action the base checks see.

        Ruling reading: an Insert is open at any time in the turn (while the turn lasts, i.e.
        before its 3rd regular action ends it), as often as 2 active Credits pay for it; the
        inserted action doesn't count towards the 3, and Master stays once per turn.
        """
        if not isinstance(action, Insert):
            return action
        if isinstance(action.inner, Insert):
            raise IllegalActionError("an Insert holds one Play action, not another Insert")
        if action.inner.kind == "ghost" and _free_ghost(state):
            raise IllegalActionError("a free Ghost action (ghost_action=free) is not inserted")
        active = self.credits(state).active[player]
        if active < self._insert_cost:
            raise IllegalActionError(
                f"Insert needs {self._insert_cost} active Credits, has {active}"
            )
        return action.inner

    def check_action(self, state: GameState, player: int, action: Action) -> None:
        """An Insert reaches here only when another Insert carried it (see ``check``)."""
        raise IllegalActionError("an Insert holds one Play action, not another Insert")

    def before_apply(self, state: GameState, action: Action) -> bool:
        """Apply an Insert, and pay pink tiles before any other Play action.

        Returns True when the action was applied here. Pink Credits are paid before the base
        game applies the action because that may end the turn (which activates them). An Insert
        pays its own tile (X04) after its 2 Credits are spent and before its inner action:
        rulings, "after each Insert action"; a decision, so the Credit is the inserting player's,
        earned within its own turn, whatever the inner action does to the turn.
        """
        fin = self.credits(state)
        p = state.current
        if isinstance(action, Insert):
            fin.spend(p, self._insert_cost)
            fin.inserts[p] += 1
        if state.phase == PLAY:
            rule = fin.tile_rule(state.round)
            if rule is not None:
                count = pink_count(rule[0], rule[1], action, state.slots[p], state.tables.recess)
                if count:
                    fin.gain(p, count * rule[2])
        if isinstance(action, Insert):
            state.actions_left += 1  # an extra action: the inner one does not count
            state.apply(action.inner)
            return True
        return False

    def reward_received(self, state: GameState, player: int, code: int) -> None:
        """Pay the Upgrade tile for a Level Up reward received (rulings, Set C: C05/C06, with
        Ghost Piece): paid as the reward comes up, whether or not its steps are used."""
        steps = LEVEL_UP_REWARD_STEPS.get(code, 0)
        if not steps:
            return
        fin = self.credits(state)
        rule = fin.tile_rule(state.round)
        if rule is not None:
            count = level_up_count(rule[0], steps)
            if count:
                fin.gain(player, count * rule[2])

    # -- turns and the end -----------------------------------------------------------------------
    def end_turn(self, state: GameState) -> None:
        """Pay a blue tile's Credits, then make the player's Credits active."""
        fin = self.credits(state)
        p = state.current
        rule = fin.tile_rule(state.round)
        if rule is not None and state.phase == PLAY:
            count = end_of_turn_count(
                rule[0], rule[1], state.supply[p], state.slots[p], state.tables.levels
            )
            if count:
                fin.gain(p, count * rule[2])
        fin.activate(p)

    def ends_game_at_round_end(self, state: GameState) -> bool:
        """Rulings, Finesse: removing the 10th tile ends the game, with no extra round."""
        return state.round >= ROW_LENGTH

    def start_finishing(self, state: GameState) -> None:
        """Rulings, Finesse: Credits first become active for Finishing Touches."""
        fin = self.credits(state)
        for q in range(state.n):
            fin.activate(q)

    def check_finish(self, state: GameState, player: int, action: Action) -> None:
        """Each Finishing Touch placement may cost a Credit instead of a point."""
        credits = paid_credits(action)
        if credits > len(action.placements):  # type: ignore[attr-defined]
            raise IllegalActionError("pays more Credits than it places pieces")
        active = self.credits(state).active[player]
        if credits > active:
            raise IllegalActionError(f"has only {active} Credits")

    def pay_finishing(self, state: GameState, player: int, action: Action) -> int:
        credits = paid_credits(action)
        fin = self.credits(state)
        fin.spend(player, credits)
        fin.finishing[player] += credits
        return credits

    def tie_break(self, state: GameState, tied: list[int]) -> list[int]:
        """Rulings, Finesse: ties go to the most Credits (then the base tie-breakers)."""
        return self.credits(state).richest(tied)

    # -- results, tables, text -------------------------------------------------------------------
    def result_json(self, state: GameState, result: dict[str, Any]) -> None:
        fin = self.credits(state)
        result["credits"] = [fin.total(p) for p in range(state.n)]

    def summary_json(self, state: GameState, out: dict[str, Any]) -> None:
        fin = self.credits(state)
        for p, row in enumerate(out["players"]):
            row["credits"] = {"active": fin.active[p], "inactive": fin.inactive[p]}
        out["finesse"] = {
            "bank": fin.bank,
            "tiles": fin.row_ids(),
            "round": state.round,
            "current_tile": fin.row_ids()[state.round - 1] if fin.tile_rule(state.round) else None,
        }

    def seat_columns(self, state: GameState, player: int) -> dict[str, Any]:
        fin = self.credits(state)
        return {
            "credits_final": fin.total(player),
            "credits_earned": fin.earned[player],
            "credits_spent": fin.spent[player],
            "inserts": fin.inserts[player],
            "finishing_credits": fin.finishing[player],
        }

    def provisional(self, state: GameState) -> tuple[str, ...]:
        return ("finesse_tiles",) if self.credits(state).provisional() else ()

    def render_lines(self, state: GameState) -> list[str]:
        """The tile row (the tile of this round marked) and everyone's Credits."""
        fin = self.credits(state)
        tiles = [
            ("?" if tid is None else tid) + ("*" if r + 1 == state.round else "")
            for r, tid in enumerate(fin.row_ids())
        ]
        held = ", ".join(
            f"player {p} {fin.active[p]} active + {fin.inactive[p]} inactive"
            for p in range(state.n)
        )
        return [
            f"finesse tiles (* = this round's): {' '.join(tiles)}",
            f"credits: {held}; bank {fin.bank}",
        ]

    def check_invariants(self, state: GameState) -> None:
        """The bank's Credits (35) across it and the players, none negative, counts consistent."""
        fin = self.credits(state)
        held = sum(fin.active) + sum(fin.inactive)
        bank = self.rules.finesse_bank
        if held + fin.bank != bank:
            raise InvariantError(f"{held} Credits held + {fin.bank} in the bank, not {bank}")
        if fin.bank < 0 or min(fin.active) < 0 or min(fin.inactive) < 0:
            raise InvariantError("a negative Credit count")
        in_turn = set(state.in_turn_seats())
        for p in range(state.n):
            if p not in in_turn and fin.inactive[p]:
                raise InvariantError(f"player {p} has inactive Credits outside its turn")
            # what a player holds is what it earned minus what it spent and gave to an empty bank
            if fin.total(p) > fin.earned[p] - fin.spent[p]:
                raise InvariantError(f"player {p} holds more Credits than it earned and kept")
            if fin.spent[p] < self._insert_cost * fin.inserts[p] + fin.finishing[p]:
                raise InvariantError(
                    f"player {p}: Credits spent below Inserts and Finishing Touches"
                )
        if state.rules.solo and state.n != 1:
            raise InvariantError("Finesse Solo has one player")
        if state.round > ROW_LENGTH:
            raise InvariantError(f"round {state.round} after the {ROW_LENGTH}th Finesse tile")


register_expansion(Finesse)


def _free_ghost(state: GameState) -> bool:
    """Return whether the game plays Ghost Piece's Ghost action as free (ghost_action=free)."""
    return "ghost_piece" in state.rules.expansions and state.rules.ghost_action == "free"


def credits(state: GameState) -> Credits | None:
    """Return a game's Credits block (bank, each player's Credits), or None without Finesse."""
    block: Credits | None = state.block(Finesse.name)
    return block


def last_round(state: GameState) -> int | None:
    """Return the round after which Finesse ends the game (its 10th tile), or None."""
    return ROW_LENGTH if credits(state) is not None else None
