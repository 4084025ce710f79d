"""Actions: small immutable values with a stable JSON form (the game-record format).

Cards are catalogue puzzle indices, pieces are catalogue piece indices, and cells are 25-bit masks
in the puzzle's printed grid; ``to_json`` / ``from_json`` translate to ids and ``[row, col]``.

Every action class subclasses ``Action`` and has a class attribute ``kind`` (what the engine
dispatches on). Each record ``type`` is registered with its reader, writer and text form
(``register_action``): the base game's here, an expansion's in its own module, so records name
every action the same way whatever plays it. An expansion's actions live in its compiled module
as plain (not native) dataclasses, and set ``kind`` after the class body: mypyc would turn a
class variable declared in a dataclass's body into a field.
"""

from __future__ import annotations

from collections.abc import Callable
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


class Action:
    """The base class of every action (for ``isinstance`` and typing)."""

    __slots__ = ()
    kind: ClassVar[str]  # what the engine dispatches on: each action class sets it


@dataclass(frozen=True, slots=True)
class Take(Action):
    """Take a face-up puzzle from either row."""

    card: int
    kind: ClassVar[str] = "take"


@dataclass(frozen=True, slots=True)
class TakeDeck(Action):
    """Take the top card of a deck blind (colour 0 white, 1 black, 2 the solo puzzle deck)."""

    colour: int
    kind: ClassVar[str] = "take_deck"


@dataclass(frozen=True, slots=True)
class Recycle(Action):
    """Move a row to the bottom of its deck; ``order`` is the order they will be drawn."""

    colour: int
    order: tuple[int, ...]
    kind: ClassVar[str] = "recycle"


@dataclass(frozen=True, slots=True)
class TakeBasic(Action):
    """Upgrade A: take a level-1 piece from the reserve."""

    kind: ClassVar[str] = "take_basic"


@dataclass(frozen=True, slots=True)
class Upgrade(Action):
    """Upgrade B: return ``give`` to the reserve and take ``get``."""

    give: int
    get: int
    kind: ClassVar[str] = "upgrade"


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Place one piece from the supply into one own unfinished puzzle."""

    card: int
    piece: int
    mask: Mask25
    kind: ClassVar[str] = "place"


@dataclass(frozen=True, slots=True)
class Master(Action):
    """Place up to one piece into each own unfinished puzzle (once per turn)."""

    placements: tuple[Placement, ...]
    kind: ClassVar[str] = "master"


@dataclass(frozen=True, slots=True)
class Reward(Action):
    """Choose the reward piece when the shown one is gone and several shapes qualify."""

    piece: int
    kind: ClassVar[str] = "reward"


@dataclass(frozen=True, slots=True)
class Finish(Action):
    """Finishing Touches: every piece this player places after the last round (maybe none),
    each paid with a point.

    An expansion that pays for some otherwise subclasses it in its own module, with a ``kind``
    of its ``action_kinds``: the engine checks and applies the placements as any Finish's, and
    asks the expansion (``check_finish``, ``pay_finishing``) about the rest. Its record form is
    one of ``finish``'s (``register_form``).
    """

    placements: tuple[Placement, ...]
    kind: ClassVar[str] = "finish"


# -- the record form -----------------------------------------------------------------------------
Writer = Callable[[Any, Catalogue], dict[str, Any]]
Reader = Callable[[dict[str, Any], Catalogue, int], Action]
# an expansion's form of a record type: its action, or None for one of the type's own
FormReader = Callable[[dict[str, Any], Catalogue, int], Action | None]
Describer = Callable[[Any, Catalogue], str]


@dataclass(frozen=True)
class ActionType:
    """One record ``type``: its classes, reader, writer and text form; ``play`` is True for the
    actions of a turn's Play phase (those an Insert may carry)."""

    name: str
    classes: tuple[type, ...]
    read: Reader
    write: Writer
    describe: Describer
    play: bool


_TYPES: dict[str, ActionType] = {}  # record type -> its codec, in registration order
_BY_CLASS: dict[type, ActionType] = {}
_FORMS: dict[str, list[FormReader]] = {}  # record type -> its expansions' form readers


def register_action(
    name: str,
    classes: tuple[type, ...],
    read: Reader,
    write: Writer,
    describe: Describer,
    *,
    play: bool,
) -> None:
    """Register a record ``type`` (``take``) with the classes it reads into (``Take``,
    ``TakeDeck``), how to read, write and describe them, and whether they are Play actions."""
    codec = ActionType(name, classes, read, write, describe, play)
    _TYPES[name] = codec
    for cls in classes:
        _BY_CLASS[cls] = codec


def register_form(
    name: str, cls: type, read: FormReader, write: Writer, describe: Describer
) -> None:
    """Register an expansion's own form of the record type ``name``: ``cls`` (a subclass of
    the type's action, such as Finesse's Finish paid with Credits) is written and described by
    ``write`` and ``describe``; ``read`` sees every record action of the type first and returns
    its action, or None for one of the type's own (which the type's reader then reads)."""
    base = _TYPES[name]
    _FORMS.setdefault(name, []).append(read)
    _BY_CLASS[cls] = ActionType(name, (cls,), base.read, write, describe, base.play)


def is_play_action(action: Action) -> bool:
    """Return whether ``action`` is a Play action of a turn (not a reward, Finish, ...)."""
    codec = _BY_CLASS.get(type(action))
    return codec is not None and codec.play


def cells_json(mask: Mask25) -> list[list[int]]:
    """Return a mask's cells as record ``[row, col]`` pairs."""
    return [[r, c] for r, c in mask_cells(mask)]


def placement_json(cat: Catalogue, p: Placement) -> dict[str, Any]:
    """Return the record form of one placement."""
    card, piece, mask = p
    return {
        "puzzle": cat.puzzles[card].id,
        "piece": cat.pieces[piece].id,
        "cells": cells_json(mask),
    }


def placements_text(cat: Catalogue, placements: tuple[Placement, ...]) -> str:
    """Return ``tri_L on W05, mono on B01``."""
    return ", ".join(f"{cat.pieces[p].id} on {cat.puzzles[c].id}" for c, p, _ in placements)


def to_json(action: Action, cat: Catalogue, player: int) -> dict[str, Any]:
    """Return the record form of an action taken by ``player``."""
    out: dict[str, Any] = {"player": player}
    codec = _BY_CLASS.get(type(action))
    if codec is not None:
        out |= codec.write(action, cat)
    return out


def field_of(d: dict[str, Any], key: str) -> Any:
    """Return a record action's field, or raise ``RecordError`` naming the missing one."""
    if key not in d:
        raise RecordError(f"missing field {key!r}")
    return d[key]


def piece_of(cat: Catalogue, value: Any) -> int:
    """Return the index of a record's piece id (``RecordError`` if unknown)."""
    try:
        return cat.piece_index(value)
    except KeyError as exc:
        raise RecordError(str(exc.args[0])) from None


def puzzle_of(cat: Catalogue, value: Any) -> int:
    """Return the index of a record's puzzle id (``RecordError`` if unknown)."""
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


def placement_of(cat: Catalogue, d: Any) -> Placement:
    """Return a record's placement (``RecordError`` if malformed)."""
    if not isinstance(d, dict):
        raise RecordError("each placement must be an object with puzzle, piece and cells")
    return (
        puzzle_of(cat, field_of(d, "puzzle")),
        piece_of(cat, field_of(d, "piece")),
        _mask(field_of(d, "cells")),
    )


def placements_of(cat: Catalogue, value: Any) -> tuple[Placement, ...]:
    """Return a record's list of placements (``RecordError`` if malformed)."""
    if not isinstance(value, list):
        raise RecordError("placements must be a list")
    return tuple(placement_of(cat, p) for p in value)


def from_json(d: Any, cat: Catalogue) -> tuple[int, Action]:
    """Parse one record action into ``(player, action)``; raise ``RecordError`` if malformed."""
    if not isinstance(d, dict):
        raise RecordError("an action must be an object")
    player = field_of(d, "player")
    if not isinstance(player, int) or isinstance(player, bool):
        raise RecordError(f"player must be a seat index, got {player!r}")
    kind = field_of(d, "type")
    codec = _TYPES.get(kind) if isinstance(kind, str) else None
    if codec is None:
        raise RecordError(f"unknown action type {kind!r} (valid: {', '.join(_TYPES)})")
    for form in _FORMS.get(kind, ()):
        action = form(d, cat, player)
        if action is not None:
            return player, action
    return player, codec.read(d, cat, player)


def describe(action: Action, cat: Catalogue) -> str:
    """Return a short text form, e.g. ``place tri_L on W05``."""
    codec = _BY_CLASS.get(type(action))
    return codec.describe(action, cat) if codec is not None else repr(action)


# -- the base game's record types ------------------------------------------------------------------
def _read_take(d: dict[str, Any], cat: Catalogue, player: int) -> Action:
    if "puzzle" in d and "deck" in d:
        raise RecordError("take has both 'puzzle' and 'deck'")
    if "deck" in d:
        return TakeDeck(_deck(d["deck"]))
    return Take(puzzle_of(cat, field_of(d, "puzzle")))


def _write_take(a: Take | TakeDeck, cat: Catalogue) -> dict[str, Any]:
    if isinstance(a, TakeDeck):
        return {"type": "take", "deck": DECKS[a.colour]}
    return {"type": "take", "puzzle": cat.puzzles[a.card].id}


def _describe_take(a: Take | TakeDeck, cat: Catalogue) -> str:
    if isinstance(a, TakeDeck):
        return f"take blind from the {DECKS[a.colour]} deck"
    return f"take {cat.puzzles[a.card].id}"


def _read_recycle(d: dict[str, Any], cat: Catalogue, player: int) -> Action:
    colour = _colour(field_of(d, "row"), "row")
    order = d.get("order")
    if order is None:
        return Recycle(colour, ())  # filled in with the row's order when applied
    if not isinstance(order, list):
        raise RecordError("recycle order must be a list of puzzle ids")
    return Recycle(colour, tuple(puzzle_of(cat, c) for c in order))


def _write_recycle(a: Recycle, cat: Catalogue) -> dict[str, Any]:
    return {
        "type": "recycle",
        "row": COLOURS[a.colour],
        "order": [cat.puzzles[c].id for c in a.order],
    }


def _describe_recycle(a: Recycle, cat: Catalogue) -> str:
    text = f"recycle the {COLOURS[a.colour]} row"
    return text + (f" as {' '.join(cat.puzzles[c].id for c in a.order)}" if a.order else "")


def _read_upgrade(d: dict[str, Any], cat: Catalogue, player: int) -> Action:
    return Upgrade(piece_of(cat, field_of(d, "give")), piece_of(cat, field_of(d, "get")))


def _read_place(d: dict[str, Any], cat: Catalogue, player: int) -> Action:
    card, piece, mask = placement_of(cat, d)
    return Place(card, piece, mask)


def _read_finish(d: dict[str, Any], cat: Catalogue, player: int) -> Action:
    return Finish(placements_of(cat, d.get("placements", [])))


def write_finish(a: Finish, cat: Catalogue) -> dict[str, Any]:
    """Return the record form of a Finish (an expansion's form adds its keys after these)."""
    return {"type": "finish", "placements": [placement_json(cat, p) for p in a.placements]}


def describe_finish(a: Finish, cat: Catalogue) -> str:
    """Return ``finish (tri_L on W05)`` (an expansion's form adds to the parenthesis)."""
    return f"finish ({placements_text(cat, a.placements) or 'no pieces'})"


register_action("take", (Take, TakeDeck), _read_take, _write_take, _describe_take, play=True)
register_action("recycle", (Recycle,), _read_recycle, _write_recycle, _describe_recycle, play=True)
register_action(
    "take_basic",
    (TakeBasic,),
    lambda d, cat, player: TakeBasic(),
    lambda a, cat: {"type": "take_basic"},
    lambda a, cat: "take a level-1 piece",
    play=True,
)
register_action(
    "upgrade",
    (Upgrade,),
    _read_upgrade,
    lambda a, cat: {"type": "upgrade", "give": cat.pieces[a.give].id, "get": cat.pieces[a.get].id},
    lambda a, cat: f"upgrade {cat.pieces[a.give].id} to {cat.pieces[a.get].id}",
    play=True,
)
register_action(
    "place",
    (Place,),
    _read_place,
    lambda a, cat: {"type": "place"} | placement_json(cat, (a.card, a.piece, a.mask)),
    lambda a, cat: f"place {cat.pieces[a.piece].id} on {cat.puzzles[a.card].id}",
    play=True,
)
register_action(
    "master",
    (Master,),
    lambda d, cat, player: Master(placements_of(cat, field_of(d, "placements"))),
    lambda a, cat: {"type": "master", "placements": [placement_json(cat, p) for p in a.placements]},
    lambda a, cat: f"master ({placements_text(cat, a.placements)})",
    play=True,
)
register_action(
    "reward",
    (Reward,),
    lambda d, cat, player: Reward(piece_of(cat, field_of(d, "piece"))),
    lambda a, cat: {"type": "reward", "piece": cat.pieces[a.piece].id},
    lambda a, cat: f"reward {cat.pieces[a.piece].id}",
    play=False,
)
register_action("finish", (Finish,), _read_finish, write_finish, describe_finish, play=False)
