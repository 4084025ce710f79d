"""The position file: a record cut at a step, replayed and checked (projectl_sim.board.position)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bots import make_bot
from projectl_sim.board.position import (
    POSITION_FORMAT,
    PositionError,
    position_json,
    position_of,
    read_position,
    write_position,
)
from projectl_sim.engine.record import state_json
from projectl_sim.errors import IllegalActionError, RecordError
from projectl_sim.rules import Rules
from projectl_sim.sim.play import play_game


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    outcome = play_game(Rules(players=2), [make_bot("greedy"), make_bot("random")], 11)
    return outcome.record_json()


def test_a_record_cut_at_a_step_replays_to_that_step(record: dict[str, Any]) -> None:
    pos = position_of(record, 7)
    assert pos.step == 7 and len(pos.record["actions"]) == 7 and "result" not in pos.record
    assert pos.to_move == pos.state.current and not pos.over
    last = position_of(record, -1)
    assert last.step == len(record["actions"]) and last.over and last.to_move is None


def test_a_position_file_round_trips_and_its_state_is_checked(
    record: dict[str, Any], tmp_path: Any
) -> None:
    pos = position_of(record, 9)
    path = tmp_path / "p.json"
    write_position(pos, path)
    data = json.loads(path.read_text())
    assert data["format"] == POSITION_FORMAT and data["step"] == 9
    again = read_position(path)
    assert state_json(again.state) == state_json(pos.state)
    # a state its actions do not reach: one line naming the file and the key
    data["state"]["round"] += 3
    path.write_text(json.dumps(data))
    with pytest.raises(PositionError, match=r"p\.json: its state is not the one .*'round'"):
        read_position(path)


def test_a_position_names_what_is_wrong(record: dict[str, Any]) -> None:
    n = len(record["actions"])
    with pytest.raises(PositionError, match=f"step {n + 5} is outside the record's 0-{n}"):
        position_of(record, n + 5)
    with pytest.raises(PositionError, match="give the step"):
        position_of(record)
    with pytest.raises(PositionError, match="unknown format 'projectl-record/0'"):
        position_of({**record, "format": "projectl-record/0"}, 3)
    data = position_json(record, 4)
    with pytest.raises(PositionError, match="step 4 but its record holds 5 actions"):
        position_of({**data, "record": {**data["record"], "actions": record["actions"][:5]}})
    with pytest.raises(PositionError, match="--step 2 differs"):
        position_of(data, 2)


def test_an_illegal_action_before_the_position_is_named(record: dict[str, Any]) -> None:
    bad = json.loads(json.dumps(record))
    first = bad["actions"][0]
    bad["actions"][0] = {**first, "player": 1 - first["player"]}
    with pytest.raises(IllegalActionError, match=r"^position: action 0 \(player"):
        position_of(bad, 3)
    with pytest.raises(RecordError, match=r"^position: seats names 3 seats"):
        position_of({**record, "seats": ["a", "b", "c"]}, 3)
