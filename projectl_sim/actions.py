"""Actions: small immutable values with a stable JSON form (the game-record format).

Cards are catalogue puzzle indices, pieces are catalogue piece indices, and cells are 25-bit masks
in the puzzle's printed grid; ``to_json`` / ``from_json`` translate to ids and ``[row, col]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from projectl_sim.catalogue import Catalogue, Mask25, cells_to_mask, mask_cells
from projectl_sim.errors import RecordError

COLOURS = ("white", "black")
WHITE, BLACK = 0, 1
# The decks a blind take may name: the two colours, and the solo variant's one puzzle deck.
DECKS = (*COLOURS, "puzzle")
PUZZLE = 2

# (card, piece, mask): one piece placed into one puzzle
Placement = tuple[int, int, Mask25]


@dataclass(frozen=True, slots=True)
class Take:
    """Take a face-up puzzle from either row."""

    card: int
    kind: ClassVar[str] = "take"


@dataclass(frozen=True, slots=True)
class TakeDeck:
    """Take the top card of a deck blind (colour 0 white, 1 black, 2 the solo puzzle deck)."""

    colour: int
    kind: ClassVar[str] = "take_deck"


@dataclass(frozen=True, slots=True)
class Recycle:
    """Move a row to the bottom of its deck; ``order`` is the order they will be drawn."""

    colour: int
    order: tuple[int, ...]
    kind: ClassVar[str] = "recycle"


@dataclass(frozen=True, slots=True)
class TakeBasic:
    """Upgrade A: take a level-1 piece from the reserve."""

    kind: ClassVar[str] = "take_basic"


@dataclass(frozen=True, slots=True)
class Upgrade:
    """Upgrade B: return ``give`` to the reserve and take ``get``."""

    give: int
    get: int
    kind: ClassVar[str] = "upgrade"


@dataclass(frozen=True, slots=True)
class Place:
    """Place one piece from the supply into one own unfinished puzzle."""

    card: int
    piece: int
    mask: Mask25
    kind: ClassVar[str] = "place"


@dataclass(frozen=True, slots=True)
class Master:
    """Place up to one piece into each own unfinished puzzle (once per turn)."""

    placements: tuple[Placement, ...]
    kind: ClassVar[str] = "master"


@dataclass(frozen=True, slots=True)
class Reward:
    """Choose the reward piece when the shown one is gone and several shapes qualify."""

    piece: int
    kind: ClassVar[str] = "reward"


@dataclass(frozen=True, slots=True)
class Finish:
    """Finishing Touches: every piece this player places after the last round (maybe none).

    Finesse: ``credits`` of the placements are paid with a Credit instead of a point.
    """

    placements: tuple[Placement, ...]
    credits: int = 0
    kind: ClassVar[str] = "finish"


@dataclass(frozen=True, slots=True)
class Insert:
    """Finesse: spend 2 active Credits to take ``inner`` as an extra action."""

    inner: Action
    kind: ClassVar[str] = "insert"


@dataclass(frozen=True, slots=True)
class Ghost:
    """Ghost Piece: return the ghost ``ghost``, take the level 1-4 pieces ``take`` (together its
    shape), and place some of them at once (at most one new piece per puzzle); the rest go to the
    supply."""

    ghost: int
    take: tuple[int, ...]
    placements: tuple[Placement, ...] = ()
    kind: ClassVar[str] = "ghost"


@dataclass(frozen=True, slots=True)
class LevelUp:
    """Ghost Piece Level Up reward, one step: return ``give`` and take ``get`` one level higher.

    ``give`` and ``get`` both None: the player declines this step.
    """

    give: int | None
    get: int | None
    kind: ClassVar[str] = "level_up"


@dataclass(frozen=True, slots=True)
class Ambassador:
    """Ambassador Pack: use one Ambassador (placements as a Master; any number per turn)."""

    placements: tuple[Placement, ...]
    kind: ClassVar[str] = "ambassador"


Action = (
    Take
    | TakeDeck
    | Recycle
    | TakeBasic
    | Upgrade
    | Place
    | Master
    | Reward
    | Finish
    | Insert
    | Ghost
    | LevelUp
    | Ambassador
)
# The actions an Insert may carry (any Play action).
INSERTABLE = (Take, TakeDeck, Recycle, TakeBasic, Upgrade, Place, Master, Ghost, Ambassador)


def _cells(mask: Mask25) -> list[list[int]]:
    return [[r, c] for r, c in mask_cells(mask)]


def _placement_json(cat: Catalogue, p: Placement) -> dict[str, Any]:
    card, piece, mask = p
    return {"puzzle": cat.puzzles[card].id, "piece": cat.pieces[piece].id, "cells": _cells(mask)}


def to_json(action: Action, cat: Catalogue, player: int) -> dict[str, Any]:
    """Return the record form of an action taken by ``player``."""
    out: dict[str, Any] = {"player": player}
    match action:
        case Take(card):
            out |= {"type": "take", "puzzle": cat.puzzles[card].id}
        case TakeDeck(colour):
            out |= {"type": "take", "deck": DECKS[colour]}
        case Recycle(colour, order):
            out |= {
                "type": "recycle",
                "row": COLOURS[colour],
                "order": [cat.puzzles[c].id for c in order],
            }
        case TakeBasic():
            out |= {"type": "take_basic"}
        case Upgrade(give, get):
            out |= {"type": "upgrade", "give": cat.pieces[give].id, "get": cat.pieces[get].id}
        case Place(card, piece, mask):
            out |= {"type": "place"} | _placement_json(cat, (card, piece, mask))
        case Master(placements):
            out |= {"type": "master", "placements": [_placement_json(cat, p) for p in placements]}
        case Reward(piece):
            out |= {"type": "reward", "piece": cat.pieces[piece].id}
        case Finish(placements, credits):
            out |= {"type": "finish", "placements": [_placement_json(cat, p) for p in placements]}
            if credits:
                out["credits"] = credits
        case Insert(inner):
            body = to_json(inner, cat, player)
            del body["player"]
            out |= {"type": "insert", "action": body}
        case Ghost(ghost, take, placements):
            out |= {
                "type": "ghost",
                "ghost": cat.pieces[ghost].id,
                "take": [cat.pieces[p].id for p in take],
                "placements": [_placement_json(cat, p) for p in placements],
            }
        case LevelUp(give, get):
            out |= {"type": "level_up"}
            if give is not None and get is not None:
                out |= {"give": cat.pieces[give].id, "get": cat.pieces[get].id}
        case Ambassador(placements):
            out |= {
                "type": "ambassador",
                "placements": [_placement_json(cat, p) for p in placements],
            }
    return out


def _field(d: dict[str, Any], key: str) -> Any:
    if key not in d:
        raise RecordError(f"missing field {key!r}")
    return d[key]


def _piece(cat: Catalogue, value: Any) -> int:
    try:
        return cat.piece_index(value)
    except KeyError as exc:
        raise RecordError(str(exc.args[0])) from None


def _puzzle(cat: Catalogue, value: Any) -> int:
    try:
        return cat.puzzle_index(value)
    except KeyError as exc:
        raise RecordError(str(exc.args[0])) from None


def _colour(value: Any, key: str) -> int:
    if value not in COLOURS:
        raise RecordError(f"{key} must be 'white' or 'black', got {value!r}")
    return COLOURS.index(value)


def _deck(value: Any) -> int:
    if value not in DECKS:
        raise RecordError(
            f"deck must be 'white' or 'black', got {value!r} ('puzzle' in the solo variant)"
        )
    return DECKS.index(value)


def _mask(value: Any) -> Mask25:
    try:
        return cells_to_mask(value)
    except ValueError as exc:
        raise RecordError(f"bad cells: {exc}") from None


def _placement(cat: Catalogue, d: Any) -> Placement:
    if not isinstance(d, dict):
        raise RecordError("each placement must be an object with puzzle, piece and cells")
    return (
        _puzzle(cat, _field(d, "puzzle")),
        _piece(cat, _field(d, "piece")),
        _mask(_field(d, "cells")),
    )


def _placements(cat: Catalogue, value: Any) -> tuple[Placement, ...]:
    if not isinstance(value, list):
        raise RecordError("placements must be a list")
    return tuple(_placement(cat, p) for p in value)


def from_json(d: Any, cat: Catalogue) -> tuple[int, Action]:
    """Parse one record action into ``(player, action)``; raise ``RecordError`` if malformed."""
    if not isinstance(d, dict):
        raise RecordError("an action must be an object")
    player = _field(d, "player")
    if not isinstance(player, int) or isinstance(player, bool):
        raise RecordError(f"player must be a seat index, got {player!r}")
    kind = _field(d, "type")
    action: Action
    if kind == "take":
        if "puzzle" in d and "deck" in d:
            raise RecordError("take has both 'puzzle' and 'deck'")
        if "deck" in d:
            action = TakeDeck(_deck(d["deck"]))
        else:
            action = Take(_puzzle(cat, _field(d, "puzzle")))
    elif kind == "recycle":
        colour = _colour(_field(d, "row"), "row")
        order = d.get("order")
        if order is None:
            action = Recycle(colour, ())  # filled in with the row's order when applied
        else:
            if not isinstance(order, list):
                raise RecordError("recycle order must be a list of puzzle ids")
            action = Recycle(colour, tuple(_puzzle(cat, c) for c in order))
    elif kind == "take_basic":
        action = TakeBasic()
    elif kind == "upgrade":
        action = Upgrade(_piece(cat, _field(d, "give")), _piece(cat, _field(d, "get")))
    elif kind == "place":
        card, piece, mask = _placement(cat, d)
        action = Place(card, piece, mask)
    elif kind == "master":
        action = Master(_placements(cat, _field(d, "placements")))
    elif kind == "reward":
        action = Reward(_piece(cat, _field(d, "piece")))
    elif kind == "finish":
        credits = d.get("credits", 0)
        if not isinstance(credits, int) or isinstance(credits, bool) or credits < 0:
            raise RecordError(f"finish credits must be a whole number >= 0, got {credits!r}")
        action = Finish(_placements(cat, d.get("placements", [])), credits)
    elif kind == "insert":
        body = _field(d, "action")
        if not isinstance(body, dict):
            raise RecordError("insert needs an 'action' object")
        _, inner = from_json({**body, "player": player}, cat)
        if not isinstance(inner, INSERTABLE):
            raise RecordError(f"insert cannot carry a {body.get('type')!r} action")
        action = Insert(inner)
    elif kind == "ghost":
        take = _field(d, "take")
        if not isinstance(take, list) or not take:
            raise RecordError("ghost 'take' must be a non-empty list of piece ids")
        action = Ghost(
            _piece(cat, _field(d, "ghost")),
            tuple(_piece(cat, p) for p in take),
            _placements(cat, d.get("placements", [])),
        )
    elif kind == "level_up":
        give, get = d.get("give"), d.get("get")
        if (give is None) != (get is None):
            raise RecordError("level_up needs both 'give' and 'get' (or neither, to decline)")
        action = (
            LevelUp(None, None) if give is None else LevelUp(_piece(cat, give), _piece(cat, get))
        )
    elif kind == "ambassador":
        action = Ambassador(_placements(cat, _field(d, "placements")))
    else:
        raise RecordError(
            f"unknown action type {kind!r} (valid: take, recycle, take_basic, upgrade, place, "
            "master, reward, finish, insert, ghost, level_up, ambassador)"
        )
    return player, action


def describe(action: Action, cat: Catalogue) -> str:
    """Return a short text form, e.g. ``place tri_L on W05``."""
    pz = cat.puzzles
    pc = cat.pieces
    match action:
        case Take(card):
            return f"take {pz[card].id}"
        case TakeDeck(colour):
            return f"take blind from the {DECKS[colour]} deck"
        case Recycle(colour, order):
            text = f"recycle the {COLOURS[colour]} row"
            return text + (f" as {' '.join(pz[c].id for c in order)}" if order else "")
        case TakeBasic():
            return "take_basic"
        case Upgrade(give, get):
            return f"upgrade {pc[give].id} to {pc[get].id}"
        case Place(card, piece, _mask):
            return f"place {pc[piece].id} on {pz[card].id}"
        case Master(placements):
            inner = ", ".join(f"{pc[p].id} on {pz[c].id}" for c, p, _ in placements)
            return f"master ({inner})"
        case Reward(piece):
            return f"reward {pc[piece].id}"
        case Finish(placements, credits):
            inner = ", ".join(f"{pc[p].id} on {pz[c].id}" for c, p, _ in placements)
            paid = f", {credits} paid with Credits" if credits else ""
            return f"finish ({inner or 'no pieces'}{paid})"
        case Insert(inner_action):
            return f"insert {describe(inner_action, cat)}"
        case Ghost(ghost, take, placements):
            took = " ".join(pc[p].id for p in take)
            placed = ", ".join(f"{pc[p].id} on {pz[c].id}" for c, p, _ in placements)
            return f"ghost {pc[ghost].id} for {took}" + (f" (placing {placed})" if placed else "")
        case LevelUp(give, get):
            if give is None or get is None:
                return "level_up declined"
            return f"level_up {pc[give].id} to {pc[get].id}"
        case Ambassador(placements):
            inner = ", ".join(f"{pc[p].id} on {pz[c].id}" for c, p, _ in placements)
            return f"ambassador ({inner})"
    return repr(action)
