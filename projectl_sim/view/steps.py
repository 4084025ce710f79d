"""A game record as the replay viewer's data: the catalogue it needs and one state per step.

The engine replays the record (checked, as ``projectl-sim replay`` does) and each state is its
``state_json``, so the page draws states and holds no rules. What happened between two states
beyond the action itself (puzzles completed, the mastermind's take, a reshuffle, the end
trigger) is read off the two states, and each step carries its seat's decision time when the
record has one.

To keep pages small, each state after the first lists only what changed: the top-level keys
whose value changed and, under ``players``, per seat the keys that changed (``delta``); the
page rebuilds the full states once when it loads.
"""

from __future__ import annotations

from typing import Any

from projectl_sim.catalogue import Catalogue, mask_cells
from projectl_sim.engine.actions import Action
from projectl_sim.engine.record import replay, seconds_of, state_json
from projectl_sim.engine.state import GameState
from projectl_sim.expansions.finesse import credits

# Colours the catalogue cannot give: its ghost pieces are three near-white greys (translucent in
# the box), which vanish on a card; the viewer draws them in three distinct darker colours (and
# hatched, see viewer.css), none close to a base piece's.
GHOST_COLOURS = {"pent_P": "#8d6e63", "pent_U": "#607d8b", "pent_L": "#9e9d24"}
# A user's piece without a colour of its own (the catalogue's default grey) takes one of these.
SPARE_COLOURS = ("#5c6bc0", "#26a69a", "#ab47bc", "#8d6e63", "#78909c", "#d4e157")
DEFAULT_COLOUR = "#888888"


def catalogue_json(cat: Catalogue) -> dict[str, Any]:
    """Return the pieces (shape cells, level, colour) and puzzles (recess rows, points, reward)."""
    pieces = {}
    spare = 0
    for piece in cat.pieces:
        colour = GHOST_COLOURS.get(piece.id, piece.colour)
        if colour.lower() == DEFAULT_COLOUR:
            colour = SPARE_COLOURS[spare % len(SPARE_COLOURS)]
            spare += 1
        pieces[piece.id] = {
            "level": piece.level,
            "cells": [list(c) for c in piece.cells],
            "colour": colour,
            "ghost": piece.is_ghost,
        }
    puzzles = {}
    for pz in cat.puzzles:
        cells = set(mask_cells(pz.recess))
        puzzles[pz.id] = {
            "colour": pz.colour,
            "points": pz.points,
            "reward": pz.reward,
            "rows": ["".join("#" if (r, c) in cells else "." for c in range(5)) for r in range(5)],
        }
    return {"pieces": pieces, "puzzles": puzzles}


def _tiles_json(state: GameState) -> dict[str, Any]:
    """Return the Finesse tiles of a game's row, to explain them on the page ({} without)."""
    fin = credits(state)
    if fin is None:
        return {}
    return {fin.tileset.tiles[i].id: tile_json(fin.tileset.tiles[i]) for i in fin.row}


def tile_json(tile: Any) -> dict[str, Any]:
    """Return what the page says of a Finesse tile: its set, colour, trigger, pieces, Credits."""
    return {
        "set": tile.set,
        "colour": tile.colour,
        "trigger": tile.trigger,
        "pieces": list(tile.pieces),
        "credits": tile.credits,
    }


def events(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Return, in words, what changed between two states beyond the action itself."""
    out = []
    noted = False
    for p, (b, a) in enumerate(zip(before["players"], after["players"], strict=True)):
        for card in [c for c in a["completed"] if c not in b["completed"]]:
            out.append(f"seat {p} completes {card}")
        noted = noted or len(a.get("noted", ())) > len(b.get("noted", ()))
    if noted:
        out.append("the completed white puzzles are noted and shuffled into a new white deck")
    if "opponent" in after:
        took = after["opponent"]["completed"][len(before["opponent"]["completed"]) :]
        if took:
            out.append(f"the mastermind takes {' and '.join(took)}")
        if sum(map(len, after["locks"])) < sum(map(len, before["locks"])) and not took:
            out.append("the mastermind unlocks its columns")
    if after["trigger_round"] and not before["trigger_round"]:
        out.append("the end is triggered")
    if after["round"] != before["round"] and after["phase"] != "over":
        out.append(f"round {after['round']} begins")
    if after["phase"] == "finishing_touches" and before["phase"] != "finishing_touches":
        out.append("Finishing Touches begin")
    if after["phase"] == "over" and before["phase"] != "over":
        reason = after["end_reason"]
        out.append("the game ends" + ("" if reason == "rules" else f" ({reason}: cut short)"))
    return out


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Return what changed from ``before`` to ``after`` (keys gone from ``after`` map to None)."""
    out: dict[str, Any] = {}
    for key in before.keys() | after.keys():
        if key == "players":
            continue
        if before.get(key) != after.get(key):
            out[key] = after.get(key)
    players = []
    for b, a in zip(before["players"], after["players"], strict=True):
        players.append({k: a.get(k) for k in b.keys() | a.keys() if b.get(k) != a.get(k)})
    if any(players):
        out["players"] = players
    return out


def view_data(
    record: dict[str, Any], catalogue: Catalogue | None = None, finesse_tiles: Any = None
) -> dict[str, Any]:
    """Return everything the viewer page shows of a record: the game, the catalogue, the steps.

    Raises what ``replay`` raises for a malformed or illegal record.
    """
    states: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    first: list[GameState] = []
    raw_actions = record.get("actions", [])
    seats = record.get("seats")
    names = [str(s) for s in seats] if isinstance(seats, list) else []

    def observe(state: GameState, player: int, action: Action | None) -> None:
        snapshot = state_json(state)
        if action is None:
            first.append(state.copy())
            states.append(snapshot)
            return
        raw = raw_actions[len(steps)]
        step: dict[str, Any] = {
            "player": player,
            "text": state.describe(action),
            "events": events(states[-1], snapshot),
        }
        seconds = seconds_of(raw)
        if seconds is not None:
            step["seconds"] = seconds
        steps.append(step)
        states.append(snapshot)

    rep = replay(record, catalogue, on_step=observe, finesse_tiles=finesse_tiles)
    state = rep.state
    rules = state.rules
    cat = rules.catalogue
    packed = [states[0]] + [delta(states[i - 1], states[i]) for i in range(1, len(states))]
    game = {
        "players": rules.players,
        "variant": rules.variant,
        "difficulty": rules.difficulty if rules.solo else None,
        "expansions": sorted(rules.expansions),
        "endless": rules.endless_white_deck,
        "seed": record.get("seed"),
        "seats": names or [f"seat {p}" for p in range(rules.players)],
        "first_player": state.first_player,
        "result": record.get("result"),
        "rules": rules.to_json(),
    }
    return {
        "format": "projectl-view/1",
        "game": game,
        "catalogue": catalogue_json(cat),
        "tiles": _tiles_json(first[0]),
        "steps": steps,
        "states": packed,
    }
