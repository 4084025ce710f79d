"""A run whose games start from a position: a study of the actions of the seat to move.

A study asks "what should I do here" of a position (a ``projectl-position/1`` file, or a game
record cut at a step: ``projectl_sim.board.position`` writes and checks them). As a run
(``RunSpec.position``), each candidate action is a configuration (``GameConfig.action``), so the
run's determinism, tables, backends and resume come with it. Every configuration of a study
shares the deals of its setting (seed scheme shared-deals): game ``g`` of every action has the
same game seed. From that seed (``play.game_seeds``) the deal's rng draws again what the seat
to move cannot see, from its view (``GameState.determinize``: the unseen deck cards, the
others' face-down piles), the action is applied, and the seats' bots, seeded as in any game,
play on. So game ``g`` of two actions differs by the action alone (common random numbers:
paired), and the tables are the same for any number of workers or backend.

A study's game has no honest record from a deal (its start is a position, its hidden cards
drawn), so a study run writes none (``--records`` other than none is refused). This module
reads the position with the engine alone (the run layer imports no board code): the format, the
record's replay, and the file's digest, which a resumed run checks (an edited position file is
another study).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectl_sim.catalogue import Catalogue
from projectl_sim.engine.actions import Action, describe, from_json, to_json
from projectl_sim.engine.record import RECORD_FORMAT, read_record, replay
from projectl_sim.engine.state import OVER, PLAY, GameState
from projectl_sim.errors import IllegalActionError, ProjectLError, UsageError

POSITION_FORMAT = "projectl-position/1"


@dataclass(frozen=True)
class StudyPosition:
    """A position read for a study: its state (the whole game, hidden cards included: the
    study draws them again), the step and the file's digest."""

    state: GameState
    step: int
    digest: str

    @property
    def seat(self) -> int:
        """Return the seat to move, whose actions the study compares."""
        return self.state.current


def digest_of(path: str | Path) -> str:
    """Return the sha256 of a file's bytes (a study names its position by it)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cut_actions(data: dict[str, Any], step: int | None, where: str) -> tuple[dict[str, Any], int]:
    """Return the record of a position file, or of a record cut at ``step``, and its step."""
    if data.get("format") == POSITION_FORMAT and isinstance(data.get("record"), dict):
        record = data["record"]
    elif data.get("format") == RECORD_FORMAT:
        record = data
    else:
        raise UsageError(f"{where}: not a position ({POSITION_FORMAT}) or a game record")
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise UsageError(f"{where}: its record's actions must be a list")
    if record is data:
        if step is None:
            raise UsageError(f"{where}: a game record, not a position: give the step to study")
        step = step + len(actions) + 1 if step < 0 else step
        if not 0 <= step <= len(actions):
            raise UsageError(f"{where}: step {step} is outside the record's 0-{len(actions)}")
    else:
        step = len(actions)
    cut = {k: v for k, v in record.items() if k not in ("actions", "result")}
    cut["actions"] = actions[:step]
    return cut, step


def read_study_position(path: str, step: int | None, digest: str | None) -> StudyPosition:
    """Read the position a study starts from (a worker reads each once: cached by digest).

    ``digest``: the one the run was started with (None: a new study, the file's now); a file
    that no longer has it is refused, as is a finished game (one line each).
    """
    where = f"position {path}"
    found = digest_of(path) if Path(path).is_file() else None
    if found is None:
        raise UsageError(f"{where}: no such file")
    if digest is not None and found != digest:
        raise UsageError(
            f"{where} is not the file this study was started from (its contents changed): put "
            "the original back, or start a new study"
        )
    return _read_position(path, step, found)


@functools.lru_cache(maxsize=8)
def _read_position(path: str, step: int | None, digest: str) -> StudyPosition:
    where = f"position {path}"
    cut, own = cut_actions(read_record(path), step, where)
    try:
        state = replay(cut).state
    except IllegalActionError as exc:
        raise IllegalActionError(f"{where}: {exc}") from None
    except ProjectLError as exc:
        raise type(exc)(f"{where}: {exc}") from None
    if state.phase == OVER:
        raise UsageError(f"{where}: the game is over at step {own}: no decision to study")
    return StudyPosition(state, own, digest)


def action_text(action: Action, state: GameState) -> str:
    """Return an action's stable text (its record form, as JSON) for a configuration."""
    return json.dumps(to_json(action, state.rules.catalogue, state.current), sort_keys=True)


def action_label(action: Action, cat: Catalogue) -> str:
    """Return an action's text, a placement's cells named (two placements of a piece on a
    puzzle differ by them): ``place tri_L on W05 at 3,2 3,3 2,3``."""
    text = describe(action, cat)
    cells = to_json(action, cat, 0).get("cells")
    if isinstance(cells, list) and cells:
        text += " at " + " ".join(f"{r},{c}" for r, c in cells)
    return text


def action_of(text: str, state: GameState) -> Action:
    """Return the action ``action_text`` wrote, checked legal for the seat to move."""
    try:
        _, action = from_json(json.loads(text), state.rules.catalogue)
        state.copy().step(state.current, action)
    except (ValueError, ProjectLError) as exc:
        raise UsageError(
            f"study action {text}: not an action of the position's seat ({exc})"
        ) from None
    return action


def study_actions(state: GameState, every: bool = False) -> list[Action]:
    """Return the actions a study compares for the seat to move: the ``value`` bot's
    candidates (its heuristic's narrowing of the legal actions: every take and upgrade, the
    placements worth considering) or, with ``every`` (or outside the play phase), each legal
    action."""
    from bots.greedy import GreedyBot
    from bots.heuristics import cost_model
    from bots.value import candidates

    view = state.view(state.current)
    legal = list(view.legal_actions(master="none"))
    if every or state.phase != PLAY:
        return legal
    cands = candidates(view, GreedyBot(endgame=0), cost_model(view))
    return [a for a in cands if a in legal] or legal


def study_start(position: StudyPosition, action: Action) -> Callable[[random.Random], GameState]:
    """Return the start of a study's game: given the deal's rng, the position with what the
    seat to move cannot see drawn again from its view, and ``action`` applied."""

    def start(rng: random.Random) -> GameState:
        seat = position.seat
        world = position.state.view(seat).determinize(rng)
        world.step(seat, action)
        return world

    return start


def study_start_of(config: Any) -> Callable[[random.Random], GameState]:
    """Return the start of the games of a study's configuration (``GameConfig``: its position
    and action)."""
    position = config.study_position()
    return study_start(position, action_of(config.action, position.state))


__all__ = [
    "POSITION_FORMAT",
    "StudyPosition",
    "action_label",
    "action_of",
    "action_text",
    "cut_actions",
    "digest_of",
    "read_study_position",
    "study_actions",
    "study_start",
    "study_start_of",
]
