"""The rulebook's numbers as parameters of ``Rules``: each changes the game it names, records and
tables name it only when it differs from the rulebook, run grids sweep it, bad values are one line.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.cli import main
from projectl_sim.engine import OVER, GameState, deal, new_game, rng_from_seed
from projectl_sim.engine.actions import WHITE, Place, Take, TakeBasic
from projectl_sim.engine.invariants import check_invariants
from projectl_sim.engine.record import replay
from projectl_sim.errors import IllegalActionError, RulesError, UsageError
from projectl_sim.expansions.finesse import Insert, credits
from projectl_sim.rules import PARAMETERS, every_combination, rules_keywords, switch_value
from projectl_sim.sim import runner, tables
from projectl_sim.sim.spec import RunSpec, configurations


def _checked_game(rules: Rules, seed: int, bot: str = "random") -> GameState:
    def check(state: GameState, _p: int, _a: object) -> None:
        check_invariants(state)

    outcome = play_game(rules, [make_bot(bot)] * rules.players, seed, on_step=check)
    assert outcome.state.phase == OVER
    again = replay(outcome.record_json()).state
    assert again.final_scores() == outcome.state.final_scores()
    return outcome.state


def test_the_rulebook_game_writes_no_parameter() -> None:
    names = {*PARAMETERS, "starting_supply", "puzzle_points", "puzzle_rewards", "added_puzzles"}
    for rules in every_combination():
        assert not names & set(rules.to_json()), rules
        assert rules.changed_parameters() == {}


def test_defaults_are_the_rulebook_numbers() -> None:
    rules = Rules(players=3)
    assert (rules.row_size, rules.max_unfinished, rules.actions_per_turn) == (4, 4, 3)
    assert rules.starting_supply == ("mono", "domino")
    assert [getattr(rules, f"black_deck_{n}p") for n in range(2, 7)] == [12, 14, 16, 20, 24]
    assert (rules.finesse_bank, rules.insert_cost) == (35, 2)
    assert rules.black_deck_size == 14


@pytest.mark.parametrize("size", [6, 10, 20])
def test_black_deck_size_is_dealt(size: int) -> None:
    rules = Rules(players=2, black_deck_2p=size)
    setup = deal(rules, rng_from_seed(3))
    assert len(setup["black_deck"]) == size
    assert rules.to_json()["black_deck_2p"] == size
    assert "black_deck_3p" not in rules.to_json()


def test_a_black_deck_size_of_another_player_count_plays_no_part() -> None:
    rules = Rules(players=2, black_deck_3p=9)
    assert rules.black_deck_size == 12 and "black_deck_3p" not in rules.to_json()
    assert deal(rules, rng_from_seed(4)) == deal(Rules(players=2), rng_from_seed(4))


@pytest.mark.parametrize("size", [1, 3, 5, 6])
def test_row_size_deals_rows_and_games_keep_the_invariants(size: int) -> None:
    rules = Rules(players=2, row_size=size)
    state = new_game(rules, seed=8)
    assert [len(r) for r in state.rows] == [size, size]
    assert state.row_size() == size
    for seed in range(6):
        _checked_game(rules, seed)


def test_max_unfinished_limits_takes() -> None:
    rules = Rules(players=2, max_unfinished=1)
    state = new_game(rules, seed=1)
    card = state.rows[WHITE][0]
    state.step(state.current, Take(card))
    assert not any(isinstance(a, Take) for a in state.legal_actions())
    with pytest.raises(IllegalActionError, match="already has 1 unfinished puzzles"):
        state.check(state.current, Take(state.rows[WHITE][0]))
    for seed in range(5):
        _checked_game(Rules(players=3, max_unfinished=6), seed)


@pytest.mark.parametrize("actions", [1, 2, 5])
def test_actions_per_turn_is_a_turn(actions: int) -> None:
    rules = Rules(players=2, actions_per_turn=actions)
    state = new_game(rules, seed=2)
    first = state.current
    assert state.actions_left == actions
    for _ in range(actions):
        assert state.current == first
        state.step(first, TakeBasic())
    assert state.current != first and state.actions_left == actions
    for seed in range(4):
        _checked_game(rules, seed)


def test_starting_supply_is_each_players_start() -> None:
    rules = Rules(players=3, starting_supply="tet_O+mono+mono")
    state = new_game(rules, seed=1)
    cat = rules.catalogue
    for supply in state.supply:
        held = {cat.pieces[i].id: n for i, n in enumerate(supply) if n}
        assert held == {"mono": 2, "tet_O": 1}
    assert state.reserve[cat.piece_index("tet_O")] == 15 - 3
    assert rules.to_json()["starting_supply"] == ["tet_O", "mono", "mono"]
    empty = Rules(players=2, starting_supply="none")
    assert empty.starting_supply == () and sum(new_game(empty, seed=1).supply[0]) == 0
    for seed in range(4):
        _checked_game(rules, seed)


def test_finesse_bank_and_insert_cost() -> None:
    rules = Rules(players=2, expansions={"finesse"}, finesse_bank=3, insert_cost=3)
    state = new_game(rules, seed=5)
    fin = credits(state)
    assert fin is not None and fin.bank == 3
    fin.active[state.current] = 2
    inner = next(a for a in state.legal_actions(master="none") if isinstance(a, TakeBasic))
    with pytest.raises(IllegalActionError, match="Insert needs 3 active Credits, has 2"):
        state.check(state.current, Insert(inner))
    for seed in range(6):
        _checked_game(rules, seed)
        _checked_game(rules, seed, bot="greedy")
    with pytest.raises(RulesError, match="insert_cost applies to the finesse expansion only"):
        Rules(insert_cost=3)


def test_a_puzzles_points_and_reward_change_the_card() -> None:
    rules = Rules(puzzle_points={"W01": 9}, puzzle_rewards={"W01": "tet_O"})
    card = rules.catalogue.puzzle("W01")
    assert (card.points, card.reward) == (9, "tet_O")
    assert Rules().catalogue.puzzle("W01").points != 9  # the shipped catalogue is untouched
    assert (
        rules.catalogue
        is Rules(puzzle_points={"W01": 9}, puzzle_rewards={"W01": "tet_O"}).catalogue
    )
    assert replace(rules, puzzle_points=(), puzzle_rewards=()).catalogue is Rules().catalogue
    data = rules.to_json()
    assert data["puzzle_points"] == {"W01": 9} and data["puzzle_rewards"] == {"W01": "tet_O"}
    assert Rules.from_json(data) == rules
    # completing it scores its new points and pays the new reward
    cat = rules.catalogue
    w01 = cat.puzzle_index("W01")
    state = new_game(
        rules,
        setup={
            "first_player": 0,
            "white_deck": ["W01"] + [cat.puzzles[c].id for c in cat.of_colour("white") if c != w01],
            "black_deck": [cat.puzzles[c].id for c in cat.of_colour("black")][:12],
        },
    )
    recess = cat.puzzles[w01].recess
    state.step(0, Take(w01))
    tet_o = cat.piece_index("tet_O")
    for _ in range(40):  # place what fits until the puzzle is done (W01 is small)
        if state.piles[0]:
            break
        acts = [a for a in state.legal_actions(master="none") if isinstance(a, Place)]
        if acts:
            state.step(state.current, acts[0])
        elif state.current == 0:
            state.step(0, TakeBasic())
        else:
            state.step(state.current, TakeBasic())
    assert state.piles[0] == (w01,) and state.scores[0] == 9, recess
    assert state.supply[0][tet_o] >= 1
    for seed in range(4):
        _checked_game(rules, seed)


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({"black_deck_2p": 0}, "black_deck_2p must be a whole number 1-200, got 0"),
        ({"black_deck_2p": 25}, "black_deck_2p=25 but the catalogue has 20 black puzzles"),
        ({"row_size": 7}, "row_size must be a whole number 1-6, got 7"),
        ({"row_size": 3, "players": 1, "variant": "solo"}, "row_size applies to the standard"),
        ({"max_unfinished": True}, "max_unfinished must be a whole number 1-6, got True"),
        ({"actions_per_turn": 0}, "actions_per_turn must be a whole number 1-10, got 0"),
        ({"starting_supply": "mono+pent_X"}, "has no 'pent_X' piece for the starting supply"),
        ({"players": 4, "starting_supply": "tet_O+tet_O+tet_O+tet_O"}, "need 16 tet_O"),
        ({"finesse_bank": 10}, "finesse_bank applies to the finesse expansion only"),
        ({"puzzle_points": {"W99": 3}}, "points.W99: the catalogue has no puzzle 'W99'"),
        ({"puzzle_points": {"W01": -1}}, "points.W01 must be a whole number 0-99"),
        ({"puzzle_points": {"W01": 10**20}}, "points.W01 must be a whole number 0-99"),
        ({"puzzle_rewards": {"W01": "gold"}}, "reward.W01: 'gold' is no piece"),
        ({"puzzle_rewards": {"W01": "ambassador"}}, "play it with the ambassador_pack"),
        ({"added_puzzles": ("W99",)}, "added_puzzles: the catalogue has no puzzle 'W99'"),
    ],
)
def test_bad_parameters_are_one_line(kwargs: dict, why: str) -> None:
    with pytest.raises(RulesError, match=re.escape(why)) as err:
        Rules(**kwargs)
    assert "\n" not in str(err.value)


def test_record_forms_are_checked() -> None:
    with pytest.raises(RulesError, match=re.escape("rules.row_size: '4' is not a whole number")):
        Rules.from_json({"players": 2, "row_size": "4"})
    with pytest.raises(RulesError, match=re.escape("rules.starting_supply must be a list of ids")):
        Rules.from_json({"players": 2, "starting_supply": "mono"})
    rules = Rules.from_json({"players": 2, "starting_supply": ["domino"], "row_size": 3})
    assert rules.starting_supply == ("domino",) and rules.row_size == 3


def test_added_puzzles_leave_the_other_cards_as_the_seed_deals_them() -> None:
    base = Rules(players=2)
    # W01 and B01 stand for new cards: held back, then dealt in
    added = Rules(players=2, added_puzzles=("W01", "B01"))
    without = Rules(players=2, catalogue=_without(["W01", "B01"]))
    places: Counter[int] = Counter()
    black_in = 0
    trials = 2000
    for seed in range(trials):
        a = deal(without, rng_from_seed(seed))
        b = deal(added, rng_from_seed(seed))
        assert [p for p in b["white_deck"] if p != "W01"] == a["white_deck"]
        assert b["first_player"] == a["first_player"]
        places[b["white_deck"].index("W01")] += 1
        changed = [
            i
            for i, (x, y) in enumerate(zip(a["black_deck"], b["black_deck"], strict=True))
            if x != y
        ]
        if "B01" in b["black_deck"]:
            black_in += 1
            assert changed == [b["black_deck"].index("B01")]
        else:
            assert changed == []
    assert len(places) == 32  # every place of the 32 whites
    # the black deck draws 12 of 20 black puzzles: the added one with probability 12/20
    assert abs(black_in / trials - 12 / 20) < 0.04
    assert base.to_json() != added.to_json() and added.to_json()["added_puzzles"] == ["W01", "B01"]
    for seed in range(4):
        _checked_game(added, seed)


def _without(ids: list[str]):
    from projectl_sim.loading import base_catalogue, catalogue_from_dict

    cat = base_catalogue()
    data = json.loads(
        (Path(runner.__file__).parent.parent / "data" / "base_catalogue.json").read_text("utf-8")
    )
    data["puzzles"] = [p for p in data["puzzles"] if p["id"] not in ids]
    return catalogue_from_dict(data, source=cat.source)


def test_grid_values_and_keywords() -> None:
    assert switch_value("black_deck_2p", "10") == 10
    assert switch_value("starting_supply", "mono + domino") == "mono+domino"
    assert switch_value("points.W07", "3") == 3
    assert switch_value("reward.B02", "tet_O") == "tet_O"
    with pytest.raises(UsageError, match="rule row_size: expected a whole number 1-6, got 9"):
        switch_value("row_size", "9")
    with pytest.raises(
        UsageError, match=re.escape("rule points.W07: expected a whole number, got 'x'")
    ):
        switch_value("points.W07", "x")
    assert rules_keywords([("points.W07", 3), ("points.W01", 1), ("row_size", 3)]) == {
        "puzzle_points": {"W07": 3, "W01": 1},
        "row_size": 3,
    }


def test_a_grid_sweeps_parameters_like_switches() -> None:
    spec = RunSpec.from_mapping(
        {
            "bots": ["random"],
            "players": [2],
            "games": 2,
            "rules": {"black_deck_2p": "10,12,14", "points.W07": [1, 5]},
        }
    )
    configs = configurations(spec)
    names = [c.columns()["switches"] for c in configs]
    assert names == [
        "black_deck_2p=10,points.W07=1",
        "black_deck_2p=10,points.W07=5",
        "points.W07=1",
        "points.W07=5",
        "black_deck_2p=14,points.W07=1",
        "black_deck_2p=14,points.W07=5",
    ]
    rules = configs[5].rules()
    assert rules.black_deck_2p == 14 and rules.catalogue.puzzle("W07").points == 5


def test_a_run_records_its_parameters_in_tables_and_records(tmp_path: Path) -> None:
    spec = RunSpec.from_mapping(
        {
            "bots": ["random"],
            "players": [2],
            "games": 3,
            "seed": 4,
            "records": "all",
            "rules": {"black_deck_2p": [8, 12], "max_unfinished": [3]},
        }
    )
    out = tmp_path / "run"
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    games = tables.read_table(out, "games").to_pandas()
    assert sorted(set(games["switches"])) == [
        "black_deck_2p=8,max_unfinished=3",
        "max_unfinished=3",
    ]
    for path in sorted((out / "records").glob("*.json")):
        record = json.loads(path.read_text())
        size = record["rules"].get("black_deck_2p", 12)
        assert record["rules"]["max_unfinished"] == 3
        assert len(record["setup"]["black_deck"]) == size
        replay(record)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("black_deck_2p=10,x", "rule black_deck_2p: expected a whole number, got 'x'"),
        ("row_size=0", "rule row_size: expected a whole number 1-6, got 0"),
        ("black_deck_2p=30", "black_deck_2p=30 but the catalogue has 20 black puzzles"),
        ("reward.W07=gold", "reward.W07: 'gold' is no piece"),
        ("points.W99=3", "points.W99: the catalogue has no puzzle 'W99'"),
        ("speed=3", "--rule 'speed=3': unknown rules switch 'speed' (valid: "),
    ],
)
def test_bad_grid_values_are_one_line_exit_2(
    rule: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["run", "--bots", "random", "--players", "2", "--games", "2", "--rule", rule]
    assert main([*args, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("projectl-sim: error: ") and err.count("\n") == 1, err
    assert message in err
    assert not out.exists()


def test_play_takes_parameters_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    args = ["play", "--bots", "random,random", "--seed", "3", "--record", str(record)]
    assert main([*args, "--rule", "row_size=3", "--rule", "points.W07=7"]) == 0
    data = json.loads(record.read_text())
    assert data["rules"]["row_size"] == 3 and data["rules"]["puzzle_points"] == {"W07": 7}
    assert main(["replay", str(record)]) == 0
    capsys.readouterr()
