"""A position of a game as a file (format ``projectl-position/1``): written, read and checked.

A position is a game record cut at a step: the record's rules, seed or setup and seats, its
first ``step`` actions, and (for the reader, and checked) the state they reach::

    {"format": "projectl-position/1",
     "step": 12,                       # actions applied: 0 is the deal
     "record": {...},                  # a projectl-record/1 record of those 12 actions
     "state": {...}}                   # optional: state_json of the position (checked)

So a position is never a state typed by hand: it is replayed from its deal through the engine's
checked path, and every stated field must agree with the replay. A record of another version,
an illegal action, a seed that does not deal the setup, or a ``state`` the actions do not reach
(a position the rules cannot reach, or an edited file) is one line naming the file and what is
wrong. A plain record file is read as a position too, cut at the step given (``read_position``'s
``step``), which is how a step of a record becomes a study.

The browser seat and the viewer save positions in this format (``position_json``); the study
(``projectl_sim.board.study``) plays games from one. This module imports the engine only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectl_sim.catalogue import Catalogue
from projectl_sim.engine.record import RECORD_FORMAT, read_record, replay, state_json
from projectl_sim.engine.state import OVER, GameState
from projectl_sim.errors import IllegalActionError, ProjectLError, RecordError

POSITION_FORMAT = "projectl-position/1"


class PositionError(RecordError):
    """A position file that is malformed, or whose stated state its actions do not reach."""


@dataclass
class Position:
    """A replayed position: the record cut at ``step`` and the full state it reaches.

    ``state`` is the whole game (the decks' order, every pile): a study deals what the seat to
    move cannot see again from its view, never from this state's hidden cards.
    """

    record: dict[str, Any]
    step: int
    state: GameState
    warnings: list[str]

    @property
    def over(self) -> bool:
        """Return whether the game has ended at this position."""
        return self.state.phase == OVER

    @property
    def to_move(self) -> int | None:
        """Return the seat whose decision this is (None: the game is over)."""
        return None if self.over else self.state.current

    def to_json(self) -> dict[str, Any]:
        """Return the position file's JSON (with its state, checked when it is read)."""
        return position_json(self.record, self.step, self.state)


def cut_record(record: Mapping[str, Any], step: int) -> dict[str, Any]:
    """Return ``record`` with its first ``step`` actions only (and no ``result``)."""
    out = {k: v for k, v in record.items() if k not in ("actions", "result")}
    out["actions"] = list(record.get("actions", []))[:step]
    return out


def position_json(
    record: Mapping[str, Any], step: int, state: GameState | None = None
) -> dict[str, Any]:
    """Return the JSON of ``record``'s position after ``step`` actions (``state``: the state
    they reach, written for the reader and checked on reading)."""
    out: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "step": step,
        "record": cut_record(record, step),
    }
    if state is not None:
        out["state"] = state_json(state)
    return out


def write_position(position: Position, path: str | Path) -> None:
    """Write a position file (its state included)."""
    text = json.dumps(position.to_json(), indent=1, sort_keys=False)
    Path(path).write_text(text + "\n", encoding="utf-8")


def _step_of(value: Any, actions: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f"{where}: step must be a whole number of actions, got {value!r}")
    if value < 0:
        value += actions + 1  # -1: after the last action
    if not 0 <= value <= actions:
        raise PositionError(
            f"{where}: step {value} is outside the record's 0-{actions} "
            f"(it has {actions} action{'s' if actions != 1 else ''})"
        )
    return value


def position_of(
    data: Any,
    step: int | None = None,
    *,
    where: str = "position",
    catalogue: Catalogue | None = None,
    **named_data: Any,
) -> Position:
    """Return the position ``data`` holds: a position's JSON, or a record cut at ``step``.

    ``step`` counts the actions applied (negative: from the end, -1 after the last); a position
    file has its own, which ``step`` may not contradict. Raises ``PositionError`` (exit 2) for
    a malformed position or a state its actions do not reach, ``RecordError`` for a malformed
    record and ``IllegalActionError`` (exit 1) for an illegal action, each naming ``where``.
    """
    if not isinstance(data, dict):
        raise PositionError(f"{where}: must be a JSON object (a position or a record)")
    fmt = data.get("format")
    stated: Any = None
    if fmt == POSITION_FORMAT:
        record = data.get("record")
        if not isinstance(record, dict):
            raise PositionError(f"{where}: its record must be a JSON object (a game record)")
        actions = record.get("actions", [])
        if not isinstance(actions, list):
            raise PositionError(f"{where}: its record's actions must be a list")
        own = _step_of(data.get("step"), len(actions), where)
        if own != len(actions):
            raise PositionError(
                f"{where}: step {own} but its record holds {len(actions)} actions (a position's "
                "record holds exactly the actions played to reach it)"
            )
        if step is not None and _step_of(step, own, where) != own:
            raise PositionError(f"{where}: a position file is at step {own}; --step {step} differs")
        stated = data.get("state")
        if stated is not None and not isinstance(stated, dict):
            raise PositionError(f"{where}: its state must be a JSON object (state_json)")
    elif fmt == RECORD_FORMAT:
        record = data
        actions = record.get("actions", [])
        if not isinstance(actions, list):
            raise PositionError(f"{where}: actions must be a list")
        if step is None:
            raise PositionError(f"{where}: a game record, not a position: give the step to study")
        own = _step_of(step, len(actions), where)
    else:
        raise PositionError(
            f"{where}: unknown format {fmt!r} (expected {POSITION_FORMAT!r}, or a game record "
            f"{RECORD_FORMAT!r} with a step)"
        )
    cut = cut_record(record, own)
    try:
        rep = replay(cut, catalogue, **named_data)
    except IllegalActionError as exc:
        raise IllegalActionError(f"{where}: {exc}") from None
    except ProjectLError as exc:
        raise type(exc)(f"{where}: {exc}") from None
    if stated is not None:
        reached = json.loads(json.dumps(state_json(rep.state)))
        if stated != reached:
            key = next(k for k in (*reached, *stated) if stated.get(k) != reached.get(k))
            raise PositionError(
                f"{where}: its state is not the one its {own} actions reach (its {key!r} "
                "differs): a position the rules cannot reach from its deal, or an edited file"
            )
    return Position(cut, own, rep.state, rep.warnings)


def read_position(
    path: str | Path,
    step: int | None = None,
    *,
    catalogue: Catalogue | None = None,
    **named_data: Any,
) -> Position:
    """Read a position file, or a record file cut at ``step`` (see ``position_of``)."""
    data = read_record(path)  # any JSON object: one line for a missing or malformed file
    return position_of(data, step, where=f"position {path}", catalogue=catalogue, **named_data)


__all__ = [
    "POSITION_FORMAT",
    "Position",
    "PositionError",
    "cut_record",
    "position_json",
    "position_of",
    "read_position",
    "write_position",
]
