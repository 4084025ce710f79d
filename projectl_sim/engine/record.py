"""Game records (format ``projectl-record/1``): writing, reading and validating replay.

A record is the rules, the setup (or the seed it is dealt from), the seats and every decision;
every field it states is checked on replay: the setup against its seed (a game seed: its first
child deals the setup, as ``play`` and ``run`` deal), the seats against the player count, each
action against the rules, and each key of its ``result`` against what the replay gives. The
variant and the expansions in play add their parts of the setup, the result and the replay
summary through their hooks, so this module reads and writes any game the engine plays.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from projectl_sim.catalogue import Catalogue
from projectl_sim.engine.actions import COLOURS, Action, cells_json, describe, from_json, to_json
from projectl_sim.engine.dealing import new_game, setup_of
from projectl_sim.engine.hooks import hooks_of
from projectl_sim.engine.state import OVER, REWARD, GameState
from projectl_sim.errors import IllegalActionError, ProjectLError, RecordError, RulesError
from projectl_sim.jsonfile import read_json
from projectl_sim.loading import base_catalogue
from projectl_sim.rules import Rules

RECORD_FORMAT = "projectl-record/1"


class RecordMismatchError(ProjectLError):
    """A record's ``result`` disagrees with what replaying its actions gives (exit 1)."""

    exit_code = 1


def result_of(state: GameState) -> dict[str, Any]:
    """Return the ``result`` object of a finished game (the variant's and expansions' parts too:
    solo, the opponent's score; Finesse, the Credits; the Ambassador Pack, the Ambassadors left
    unused; the Endless White Deck, the reshuffles).

    ``completed`` counts each player's completed puzzles (those that left the pile included).
    """
    out: dict[str, Any] = {
        "scores": state.final_scores(),
        "winners": state.winners(),
        "completed": [state.completed_count(p) for p in range(state.n)],
        "end_reason": state.end_reason,
        "rounds": state.round,
    }
    state.variant_result(out)
    for x in state.hooks.result_json:
        x.result_json(state, out)
    return out


@dataclass
class RecordWriter:
    """Accumulates a game's record as it is played.

    Actions are kept as values and turned into their JSON form only when the record is asked for
    (``to_json``): most simulated games never are. ``seconds`` holds, per action, how long its
    seat took to decide it (None: not timed); a timed action's record form adds ``"seconds"``.
    """

    rules: Rules
    seed: int | None
    setup: dict[str, Any]
    seats: list[str]
    moves: list[tuple[int, Action]] = field(default_factory=list)
    seconds: list[float | None] = field(default_factory=list)

    @classmethod
    def start(cls, state: GameState, seed: int | None, seats: list[str]) -> RecordWriter:
        """Begin the record of a game that has not moved yet."""
        return cls(state.rules, seed, setup_of(state), seats)

    def add(self, player: int, action: Action, seconds: float | None = None) -> None:
        """Append one action (and the seconds its seat took to decide it, when timed)."""
        self.moves.append((player, action))
        self.seconds.append(seconds)

    def truncate(self, length: int) -> None:
        """Keep only the first ``length`` actions (a seat took its last ones back)."""
        del self.moves[length:]
        del self.seconds[length:]

    @property
    def actions(self) -> list[dict[str, Any]]:
        """Return the actions in their record form."""
        cat = self.rules.catalogue
        out = []
        for (player, action), seconds in zip(self.moves, self.seconds, strict=True):
            raw = to_json(action, cat, player)
            if seconds is not None:
                raw["seconds"] = round(seconds, 6)
            out.append(raw)
        return out

    def to_json(self, state: GameState | None = None) -> dict[str, Any]:
        """Return the record; with a finished ``state``, its ``result`` too."""
        rec: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "setup": self.setup,
            "seats": self.seats,
            "actions": self.actions,
        }
        if self.rules.catalogue.source != "builtin":
            rec["catalogue"] = self.rules.catalogue.name
        for x in hooks_of(self.rules).record_json:
            x.record_json(self.rules, rec)  # a user's data file's name, to replay it with
        if state is not None and state.phase == OVER:
            rec["result"] = result_of(state)
        return rec


def write_record(record: dict[str, Any], path: str | Path) -> None:
    """Write a record as JSON (one action per line, readable in a diff)."""
    head = {k: v for k, v in record.items() if k != "actions"}
    lines = ["{"]
    items = list(head.items())
    for k, v in items:
        if k == "result":
            continue
        lines.append(f" {json.dumps(k)}: {json.dumps(v)},")
    lines.append(' "actions": [')
    acts = record.get("actions", [])
    for i, a in enumerate(acts):
        lines.append("  " + json.dumps(a) + ("," if i < len(acts) - 1 else ""))
    lines.append(" ]" + ("," if "result" in record else ""))
    if "result" in record:
        lines.append(f' "result": {json.dumps(record["result"])}')
    lines.append("}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_record(path: str | Path) -> dict[str, Any]:
    """Read a record file; raise ``RecordError`` if it is not a JSON object."""
    p = Path(path)
    data = read_json(p, "record", RecordError)
    if not isinstance(data, dict):
        raise RecordError(f"record {p}: must be a JSON object")
    return data


@dataclass
class Replay:
    """The outcome of replaying a record."""

    state: GameState
    actions: int
    warnings: list[str]


def start_state(
    record: dict[str, Any],
    catalogue: Catalogue | None = None,
    expansion_data: Mapping[str, Any] | None = None,
    **named_data: Any,
) -> tuple[GameState, list[str]]:
    """Return the initial state of a record (its setup, or dealt from its seed), played with
    the expansions' data of ``expansion_data`` and ``named_data`` (``Rules.expansion_data``)."""
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    fmt = record.get("format")
    if fmt != RECORD_FORMAT:
        raise RecordError(f"unknown record format {fmt!r} (expected {RECORD_FORMAT!r})")
    warnings: list[str] = []
    try:
        rules = Rules.from_json(
            record.get("rules", {}),
            catalogue or base_catalogue(),
            warnings=warnings,
            expansion_data=expansion_data,
            **named_data,
        )
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    setup = record.get("setup")
    seed = record.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError(f"seed must be an integer (or null), got {seed!r}")
    if seed is not None and seed < 0:  # a game seed is a numpy SeedSequence's entropy
        raise RecordError(f"seed must be an integer >= 0 (or null), got {seed!r}")
    if setup is None:
        if seed is None:
            raise RecordError("a record needs a setup or an integer seed")
        state = seeded_game(rules, seed)
    else:
        try:
            state = new_game(rules, setup=setup)
        except RecordError as exc:
            hints = [h for h in (x.record_hint(record) for x in hooks_of(rules).record_hint) if h]
            if hints:
                raise RecordError(f"{exc} ({'; '.join(hints)})") from None
            raise
        if seed is not None:
            _check_seed(state, seed)
    _check_seats(record.get("seats"), state.n)
    return state, warnings


def seeded_game(rules: Rules, seed: int) -> GameState:
    """Return the game a record's ``seed`` deals: a game seed, whose first child deals the setup
    (as ``play``, ``run`` and the learning environments deal it; the others seed the seats)."""
    return new_game(rules, seed=np.random.SeedSequence(seed).spawn(1)[0])


def _check_seed(state: GameState, seed: int) -> None:
    """Refuse a record whose setup is not the one its seed deals (exit 1)."""
    stated = setup_of(state)
    dealt = setup_of(seeded_game(state.rules, seed))
    if stated != dealt:
        key = next(k for k in (*dealt, *stated) if stated.get(k) != dealt.get(k))
        raise RecordMismatchError(
            f"seed {seed} does not deal the record's setup (its {key} differs): the seed or the "
            "setup was changed; remove the seed to replay the setup alone"
        )


def _check_seats(seats: Any, players: int) -> None:
    """Refuse ``seats`` that are not one name per player (a record may leave them out)."""
    if seats is None:
        return
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise RecordError(f"seats must be a list of names, one per player, got {seats!r}")
    if len(seats) != players:
        raise RecordError(
            f"seats names {len(seats)} seat{'s' if len(seats) != 1 else ''} for a game of "
            f"{players} player{'s' if players != 1 else ''}"
        )


def seconds_of(raw: dict[str, Any]) -> float | None:
    """Return a record action's optional ``seconds`` (its seat's decision time), or None."""
    value = raw.get("seconds")
    if value is None:
        return None
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not math.isfinite(value)
        or value < 0
    ):
        raise RecordError(f"seconds must be a number >= 0, got {value!r}")
    return float(value)


# called with the initial state (player -1, no action), then after each action is applied
StepObserver = Callable[[GameState, int, Action | None], None]


def replay(
    record: dict[str, Any],
    catalogue: Catalogue | None = None,
    expansion_data: Mapping[str, Any] | None = None,
    on_step: StepObserver | None = None,
    **named_data: Any,
) -> Replay:
    """Replay and validate every action of a record (with the expansions' data of
    ``expansion_data`` and ``named_data``, as ``start_state``).

    ``on_step`` sees the initial state (player -1, action None) and the state after each action
    (it must not change it). Raises ``RecordError`` (exit 2) for a malformed record,
    ``IllegalActionError`` (exit 1) naming the first illegal action, and ``RecordMismatchError``
    (exit 1) when ``result`` disagrees.
    """
    state, warnings = start_state(record, catalogue, expansion_data, **named_data)
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("actions must be a list")
    cat = state.rules.catalogue
    if on_step is not None:
        on_step(state, -1, None)
    for i, raw in enumerate(actions):
        try:
            player, action = from_json(raw, cat)
            seconds_of(raw)
        except RecordError as exc:
            raise RecordError(f"action {i}: {exc}") from None
        except RecursionError:
            raise RecordError(f"action {i}: nested too deeply") from None
        if not 0 <= player < state.n:  # no such seat: the record is malformed, not illegal
            raise RecordError(f"action {i}: player {player} is not a seat of {state.n} players")
        try:
            state.step(player, action)
        except IllegalActionError as exc:
            raise IllegalActionError(
                f"action {i} (player {player}): {describe(action, cat)} {exc}"
            ) from None
        if on_step is not None:
            on_step(state, player, action)
    recorded = record.get("result")
    if recorded is not None:
        if not isinstance(recorded, dict):
            raise RecordError("result must be an object")
        if state.phase != OVER:
            raise RecordMismatchError(
                f"the record has a result but its game is not over after {len(actions)} actions"
            )
        _check_result(recorded, state.n)
        # every key the record states, in its JSON form (tuples are lists there)
        replayed = json.loads(json.dumps(result_of(state)))
        for key, value in recorded.items():
            if key not in replayed:
                warnings.append(
                    f"result key {key!r} is not one this game's replay gives: unchecked"
                )
            elif value != replayed[key]:
                raise RecordMismatchError(
                    f"result disagrees with the replay: {key} {value!r} recorded, "
                    f"{replayed[key]!r} replayed"
                )
    named = record.get("catalogue")
    if named is not None and named != cat.name:
        warnings.append(f"the record was played on catalogue {named!r}, replayed on {cat.name!r}")
    return Replay(state, len(actions), warnings)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_result(recorded: dict[str, Any], players: int) -> None:
    """Refuse a ``result`` whose scores or winners are not what a game can have (malformed:
    exit 2), before comparing it with the replay (a disagreement: exit 1)."""
    scores = recorded.get("scores")
    if scores is not None and (
        not isinstance(scores, list) or len(scores) != players or not all(map(_whole, scores))
    ):
        raise RecordError(f"result scores must be {players} whole numbers, got {scores!r}")
    winners = recorded.get("winners")
    if winners is not None and (
        not isinstance(winners, list) or not all(_whole(w) and 0 <= w < players for w in winners)
    ):
        raise RecordError(f"result winners must be seats 0-{players - 1}, got {winners!r}")


def state_json(state: GameState) -> dict[str, Any]:
    """Return a state as JSON, in catalogue ids: the turn, the rows and decks, the reserve, each
    player's supply, pile and unfinished puzzles with the pieces placed on them (cells as
    ``[row, col]``), and the variant's and each expansion's parts (their ``summary_json``).

    The whole state, hidden cards aside (decks are counts): what ``replay --json`` shows, and
    each step of the replay viewer.
    """
    cat = state.rules.catalogue
    pieces, puzzles = cat.pieces, cat.puzzles
    over = state.phase == OVER
    scores = state.final_scores() if over else state.scores
    players = []
    for p in range(state.n):
        players.append(
            {
                "score": scores[p],
                "supply": {pieces[i].id: c for i, c in enumerate(state.supply[p]) if c},
                "completed": [puzzles[c].id for c in state.piles[p]],
                "unfinished": [puzzles[c].id for c in state.unfinished(p)],
                "placed": {
                    puzzles[card].id: [
                        {"piece": pieces[piece].id, "cells": cells_json(mask)}
                        for piece, mask in placed
                    ]
                    for card, _, placed in state.slots[p]
                },
            }
        )
    out: dict[str, Any] = {
        "phase": state.phase,
        "round": state.round,
        "turn": state.turn,
        "to_move": None if over else state.to_move(),
        "actions_left": state.actions_left,
        "master_used": state.master_used,
        "trigger_round": state.trigger_round,
        "rows": [
            {colour: [puzzles[c].id for c in rows[k]] for k, colour in enumerate(COLOURS)}
            for rows in state.row_sets()
        ],
        "decks": {colour: len(state.decks[k]) for k, colour in enumerate(COLOURS)},
        "reserve": {pieces[i].id: c for i, c in enumerate(state.reserve)},
        "players": players,
    }
    if state.phase == REWARD:
        out["reward_options"] = [pieces[i].id for i in state.reward_options]
    for x in state.hooks.summary_json:
        x.summary_json(state, out)
    state.variant_summary(out)
    if over:
        out["winners"] = state.winners()
        out["end_reason"] = state.end_reason
    return out


def summary_json(rep: Replay) -> dict[str, Any]:
    """Return the replay summary printed by ``projectl-sim replay --json``: the final state."""
    return {"valid": True, "actions": rep.actions} | state_json(rep.state)
