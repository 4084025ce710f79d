"""Helpers for tests written as game records: a builder, the golden files, prefixes and edits.

A record is the user-facing ``projectl-record/1`` dict. ``RecordBuilder`` starts from an explicit
setup and appends actions; the golden records live in ``tests/records/`` and are loaded by name.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Collection, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from projectl_sim.engine import GameState
from projectl_sim.engine.record import (
    RECORD_FORMAT,
    Replay,
    read_record,
    replay,
    result_of,
    write_record,
)
from projectl_sim.expansions.finesse import TileSet, load_tiles, tiles_from_dict
from projectl_sim.loading import base_catalogue

RECORDS_DIR = Path(__file__).parent / "records"
TEST_TILES_FILE = Path(__file__).parent / "finesse_test_tiles.json"

Cells = list[list[int]]


def all_white() -> list[str]:
    """Return every white puzzle id in catalogue order (W01..W32)."""
    cat = base_catalogue()
    return [cat.puzzles[c].id for c in cat.of_colour("white")]


def white_deck(*top: str) -> list[str]:
    """Return the full white deck with ``top`` first, the other white puzzles after in order."""
    return list(top) + [p for p in all_white() if p not in top]


def placement(puzzle: str, piece: str, cells: Cells) -> dict[str, Any]:
    """Return one record placement (for ``master`` and ``finish``)."""
    return {"puzzle": puzzle, "piece": piece, "cells": cells}


class RecordBuilder:
    """Build a record from an explicit setup, one action at a time (methods chain)."""

    def __init__(
        self,
        white: list[str],
        black: list[str],
        *,
        players: int = 2,
        first_player: int = 0,
        **switches: Any,
    ) -> None:
        self.rules: dict[str, Any] = {"players": players, **switches}
        self.setup = {"first_player": first_player, "white_deck": white, "black_deck": black}
        self.actions: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None

    @classmethod
    def solo(
        cls,
        deck: list[str],
        *,
        locks: list[list[str]] | None = None,
        opponent_supply: list[str] | None = None,
        difficulty: str = "normal",
        **switches: Any,
    ) -> RecordBuilder:
        """Start a solo record: one deck (the grid is its first 9), locks, opponent's supply.

        Locks default to the rulings' 1/2/1 monos, the opponent's supply to the difficulty's
        6/3/0 monos.
        """
        b = cls([], [], players=1, variant="solo", difficulty=difficulty, **switches)
        if locks is None:
            locks = [["mono"], ["mono", "mono"], ["mono"]]
        if opponent_supply is None:
            opponent_supply = ["mono"] * {"normal": 6, "hard": 3, "unbeatable": 0}[difficulty]
        b.setup = {"deck": deck, "locks": locks, "opponent_supply": opponent_supply}
        return b

    def act(self, player: int, type: str, **fields: Any) -> RecordBuilder:
        """Append an action of any type with its fields as written in a record."""
        self.actions.append({"player": player, "type": type, **fields})
        return self

    def take(self, player: int, puzzle: str) -> RecordBuilder:
        return self.act(player, "take", puzzle=puzzle)

    def take_deck(self, player: int, deck: str) -> RecordBuilder:
        return self.act(player, "take", deck=deck)

    def recycle(self, player: int, row: str, order: list[str] | None = None) -> RecordBuilder:
        if order is None:
            return self.act(player, "recycle", row=row)
        return self.act(player, "recycle", row=row, order=order)

    def take_basic(self, player: int, times: int = 1) -> RecordBuilder:
        for _ in range(times):
            self.act(player, "take_basic")
        return self

    def upgrade(self, player: int, give: str, get: str) -> RecordBuilder:
        return self.act(player, "upgrade", give=give, get=get)

    def place(self, player: int, puzzle: str, piece: str, cells: Cells) -> RecordBuilder:
        return self.act(player, "place", puzzle=puzzle, piece=piece, cells=cells)

    def master(self, player: int, *placements: dict[str, Any]) -> RecordBuilder:
        return self.act(player, "master", placements=list(placements))

    def reward(self, player: int, piece: str) -> RecordBuilder:
        return self.act(player, "reward", piece=piece)

    def finish(self, player: int, *placements: dict[str, Any]) -> RecordBuilder:
        return self.act(player, "finish", placements=list(placements))

    def expect(self, scores: list[int], winners: list[int], completed: list[int]) -> RecordBuilder:
        """Set the record's ``result`` (what the rulings say the game ends with)."""
        self.result = {"scores": scores, "winners": winners, "completed": completed}
        return self

    def to_json(self) -> dict[str, Any]:
        """Return the record dict."""
        rec: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": dict(self.rules),
            "seed": None,
            "setup": copy.deepcopy(self.setup),
            "seats": ["test"] * self.rules["players"],
            "actions": copy.deepcopy(self.actions),
        }
        if self.result is not None:
            rec["result"] = dict(self.result)
        return rec


def load(name: str) -> dict[str, Any]:
    """Return the golden record ``tests/records/<name>.json``."""
    return read_record(RECORDS_DIR / f"{name}.json")


def prefix(record: dict[str, Any], n: int) -> dict[str, Any]:
    """Return a copy of ``record`` with only its first ``n`` actions and no ``result``."""
    rec = copy.deepcopy(record)
    rec["actions"] = rec["actions"][:n]
    rec.pop("result", None)
    return rec


def extend(record: dict[str, Any], *actions: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of ``record`` (without ``result``) with ``actions`` appended."""
    rec = prefix(record, len(record["actions"]))
    rec["actions"].extend(copy.deepcopy(list(actions)))
    return rec


def with_rules(record: dict[str, Any], **switches: Any) -> dict[str, Any]:
    """Return a copy of ``record`` (without ``result``) with rules switches changed."""
    rec = prefix(record, len(record["actions"]))
    rec["rules"].update(switches)
    return rec


def state_after(record: dict[str, Any], n: int | None = None) -> GameState:
    """Replay the first ``n`` actions (all when None) and return the state."""
    rec = record if n is None else prefix(record, n)
    return replay(rec).state


def finesse_test_tiles() -> TileSet:
    """Return the Finesse test tile set (``tests/finesse_test_tiles.json``)."""
    return load_tiles(TEST_TILES_FILE, base_catalogue().piece_ids)


def new_trigger_tiles() -> TileSet:
    """Return a tile set of the Finesse Ambassador Pack's ten tiles and the two Upgrade tiles
    (C05, C06), all dealt as base tiles: every row holds the new triggers (and, with Ghost
    Piece, the Upgrade tiles' Level Up Credits). Solo leaves out X02 and still has six Set C."""
    data = json.loads(
        resources.files("projectl_sim").joinpath("data/finesse_tiles.json").read_text()
    )
    keep = [t for t in data["tiles"] if t.get("pack") == "ambassador" or t["id"] in ("C05", "C06")]
    data["tiles"] = [{**t, "pack": "base"} for t in keep]
    data["name"] = "new_triggers"
    return tiles_from_dict(data, base_catalogue().piece_ids, source="tests")


def replay_named(name: str) -> Replay:
    """Replay a golden record (checking its ``result`` when it has one).

    A Finesse record made with the test tile set names it (``"finesse_tiles": "test"``) and
    replays with it, as ``replay --tiles tests/finesse_test_tiles.json`` does.
    """
    rec = load(name)
    tiles = finesse_test_tiles() if rec.get("finesse_tiles") == "test" else None
    return replay(rec, finesse_tiles=tiles)


# -- reading a state in the game's own words ------------------------------------------------------
def write_golden(
    records: Mapping[str, Callable[[], dict[str, Any]]],
    folder: Path,
    test_tile_ids: Collection[str] = (),
) -> None:
    """Build each record and write it as ``folder/NAME.json`` (the builder scripts' ``main``).

    A record dealing a tile of the test tile set names that set (``"finesse_tiles": "test"``, as
    a record of a user's tile file does); a record whose game is over gets its ``result``.
    """
    tiles = finesse_test_tiles()
    for name, build in records.items():
        rec = build()
        if set(test_tile_ids) & set(rec["setup"].get("finesse_tiles", [])):
            rec["finesse_tiles"] = "test"
        state = replay(rec, finesse_tiles=tiles).state
        if state.is_over:
            rec["result"] = result_of(state)
        path = folder / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_record(rec, path)
        print(name, state.phase, state.round, state.end_reason or "")


def ids(state: GameState, cards: Any) -> list[str]:
    """Return the puzzle ids of a sequence of card indices."""
    cat = state.catalogue
    return [cat.puzzles[c].id for c in cards]


def supply(state: GameState, player: int) -> dict[str, int]:
    """Return a player's supply as ``{piece id: count}`` (non-zero counts only)."""
    cat = state.catalogue
    return {cat.pieces[i].id: n for i, n in enumerate(state.supply[player]) if n}


def reserve(state: GameState) -> dict[str, int]:
    """Return the reserve as ``{piece id: count}`` (every shape)."""
    cat = state.catalogue
    return {cat.pieces[i].id: n for i, n in enumerate(state.reserve)}


def piece_ids(state: GameState, pieces: Any) -> list[str]:
    """Return the piece ids of a sequence of piece indices."""
    cat = state.catalogue
    return [cat.pieces[p].id for p in pieces]
