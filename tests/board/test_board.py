"""The analysis board: calibrated win chances, turning points and mistakes, a run's summary,
studies of a position, and the ``analyse`` / ``study`` commands' one-line errors."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from chart_check import defects

from bots import make_bot
from bots.value_model import load_model
from projectl_sim.board.charts import plot_win_chances
from projectl_sim.board.position import position_json, position_of
from projectl_sim.board.study import study_actions, study_config, study_rows, study_summary
from projectl_sim.board.turning import deciding_step, judge, turning_points, turns
from projectl_sim.board.winprob import (
    CALIBRATION,
    Calibration,
    add_rollouts,
    evaluate_record,
    fit_calibration,
    label,
    read_calibration,
)
from projectl_sim.cli import main
from projectl_sim.engine.record import write_record
from projectl_sim.engine.state import OVER, PLAY
from projectl_sim.errors import UsageError
from projectl_sim.rules import Rules
from projectl_sim.sim.play import game_seeds, play_game
from projectl_sim.sim.position_study import action_of, study_start
from projectl_sim.sim.runner import RunOptions, run
from projectl_sim.sim.spec import RunSpec, configurations
from projectl_sim.sim.summary import read_run

CAL = Calibration(
    "test", {"solo": 0.2, "2": 0.2, "3": 0.25}, {"2": {"3": 0.5}}, 0, 0, 0.0, 0.0, 0.0
)


def _record(rules: Rules, bots: list[str], seed: int) -> dict[str, Any]:
    seats = [make_bot(bots[p % len(bots)]) for p in range(rules.players)]
    return play_game(rules, seats, seed).record_json()


@pytest.fixture(scope="module")
def game() -> tuple[dict[str, Any], list[Any], list[dict[str, Any]]]:
    record = _record(Rules(players=2), ["greedy", "random"], 5)
    steps, rows, _ = evaluate_record(record)
    return record, steps, rows


def test_the_fit_recovers_the_scale_and_tempo_the_outcomes_were_drawn_with() -> None:
    rng = np.random.default_rng(3)
    seats, n = 3, 6000
    m = rng.normal(0, 8, size=(n, seats))
    keys = rng.choice(["1", "3"], size=n)
    mover = np.eye(seats)[rng.integers(0, seats, size=n)]
    t = np.where(keys == "3", -0.5, 0.4)[:, None]
    z = 0.3 * m + t * mover
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    won = np.array([rng.choice(seats, p=row) for row in p])
    k, tempo = fit_calibration(m, np.eye(seats)[won], mover, list(keys))
    assert k == pytest.approx(0.3, abs=0.03)
    assert tempo["3"] == pytest.approx(-0.5, abs=0.15) and tempo["1"] == pytest.approx(
        0.4, abs=0.15
    )


def test_the_shipped_calibration_is_the_shipped_models_and_beats_even_chances() -> None:
    cal = read_calibration(CALIBRATION)
    assert (
        cal.model_hash == load_model().hash
    )  # a new model needs: projectl-sim analyse --calibrate
    assert cal.log_loss < cal.uniform_log_loss and cal.games >= 100


def test_chances_add_up_follow_the_margin_and_solo_is_logistic() -> None:
    c = CAL.chances([5.0, -2.0, 0.0])
    assert sum(c) == pytest.approx(1.0) and c[0] > c[2] > c[1]
    assert CAL.chances([3.0, -3.0])[0] == pytest.approx(1 / (1 + math.exp(-1.2)))
    assert CAL.chances([3.0, -3.0])[0] == pytest.approx(CAL.chances([3.0], solo=True)[0])
    # the tempo term of the seat to move, at its place in the turn
    assert CAL.chances([0.0, 0.0], mover=1, key="3")[1] == pytest.approx(1 / (1 + math.exp(-0.5)))
    assert CAL.chances([0.0, 0.0], mover=1, key="2") == pytest.approx([0.5, 0.5])


def test_a_record_gets_a_chance_per_step_and_seat_its_end_the_result(game: Any) -> None:
    record, steps, rows = game
    assert len(rows) == len(steps) * 2 == (len(record["actions"]) + 1) * 2
    for k in (0, len(steps) // 2):
        assert sum(r["win_chance"] for r in rows if r["step"] == k) == pytest.approx(1, abs=1e-3)
    final = {r["seat"]: r["win_chance"] for r in rows if r["step"] == len(steps) - 1}
    assert [final[p] for p in range(2)] == [
        1.0 if p in record["result"]["winners"] else 0.0 for p in range(2)
    ]


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=1, variant="solo", difficulty="hard"),
        Rules(players=3, expansions=frozenset({"finesse", "ghost_piece"})),
    ],
    ids=["solo", "finesse+ghost"],
)
def test_any_variant_and_expansion_is_evaluated(rules: Rules) -> None:
    record = _record(rules, ["greedy"], 2)
    steps, rows, _ = evaluate_record(record)
    seats = 1 if rules.solo else rules.players
    assert len(rows) == len(steps) * seats
    assert all(0.0 <= r["win_chance"] <= 1.0 for r in rows)


def test_rollouts_give_an_interval_around_their_mean(game: Any) -> None:
    _, steps, rows = game
    rows = [dict(r) for r in rows]
    add_rollouts(rows, steps, ["greedy", "greedy"], 6, 30, seed=1)
    rolled = [r for r in rows if r["rollout_win"] is not None]
    assert {r["step"] for r in rolled} >= {0, 30}
    for r in rolled:
        assert r["rollout_low"] <= r["rollout_win"] <= r["rollout_high"]
    at0 = [r["rollout_win"] for r in rolled if r["step"] == 0]
    assert sum(at0) == pytest.approx(1.0, abs=1e-6)  # 2 players: every game has its winner


def test_turning_points_are_the_largest_falls_each_judged(game: Any) -> None:
    _, steps, rows = game
    points = turning_points(steps, rows, load_model(), read_calibration(CALIBRATION), top=2)
    changes = sorted(t["change"] for t in turns(rows))
    assert [p["change"] for p in points] == changes[: len(points)] and len(points) == 2
    for p in points:
        chances = [v for _, v in p["alternatives"]]
        assert chances == sorted(chances, reverse=True)
        assert p["loss"] == pytest.approx(max(0.0, chances[0] - p["played_chance"]), abs=1e-4)
        assert p["first"] <= p["step"] <= p["last"]


def test_the_played_action_is_judged_among_the_candidates(game: Any) -> None:
    _, steps, _ = game
    k = 3
    j = judge(steps[k - 1].state, steps[k].action, load_model(), CAL, seed=0, worlds=2)
    assert j.played in [a for a, _ in j.alternatives]
    assert j.loss >= 0.0 and j.seat == steps[k].seat


def test_a_decision_is_judged_among_the_candidates_value_scores(game: Any) -> None:
    """The alternatives are the candidates a default ``value`` scores (its Places and Takes cut
    as it cuts them), and the action played; judged where value's cut of Takes drops some."""
    from bots.greedy import GreedyBot
    from bots.heuristics import cost_model
    from bots.value import BASIC, PLACES, UPGRADES, candidates, scored_candidates, shortlist

    _, steps, _ = game
    greedy = GreedyBot(endgame=0)
    for k in range(1, len(steps)):
        state = steps[k - 1].state
        if state.phase != PLAY:
            continue
        view = state.view(state.current)
        cm = cost_model(view)
        scored = scored_candidates(view, greedy, cm)
        listed = shortlist(candidates(view, greedy, cm), cm.levels, PLACES, UPGRADES, bool(BASIC))
        if len(scored) < len(listed):
            break
    else:
        pytest.fail("no decision of the game has Takes that value leaves unscored")
    j = judge(state, steps[k].action, load_model(), CAL, seed=0, worlds=1)
    cat = state.rules.catalogue
    assert {a for a, _ in j.alternatives} == {label(a, cat) for a in scored} | {j.played}


def _rows(chances: list[list[float]], actors: list[int]) -> list[dict[str, Any]]:
    rows = []
    turns = [0]  # a new turn whenever another seat acts
    for k in range(1, len(actors)):
        turns.append(turns[-1] + (k == 1 or actors[k] != actors[k - 1]))
    for k, seat_chances in enumerate(chances):
        for seat, c in enumerate(seat_chances):
            rows.append(
                {
                    "step": k,
                    "turn": turns[k],
                    "seat": seat,
                    "win_chance": c,
                    "round": 1 + k // 4,
                    "bot": "b",
                    "actor": actors[k],
                    "kind": f"kind{k}",
                    "over": k == len(chances) - 1,
                    "turn_end": True,
                }
            )
    return rows


def test_the_deciding_step_is_the_winners_largest_rise_in_a_turn() -> None:
    chances = [
        [0.5, 0.5],
        [0.6, 0.4],
        [0.3, 0.7],
        [0.35, 0.65],
        [0.9, 0.1],
        [0.95, 0.05],
        [1.0, 0.0],
    ]
    actors = [-1, 0, 1, 1, 0, 1, 0]
    d = deciding_step(_rows(chances, actors))
    assert d is not None and d["step"] == 4 and d["by_winner"] and d["rise"] == pytest.approx(0.55)
    # no single winner: nothing decided
    assert deciding_step(_rows([[0.5, 0.5], [0.5, 0.5]], [-1, 0])) is None


@pytest.fixture(scope="module")
def study_run(tmp_path_factory: pytest.TempPathFactory, game: Any) -> tuple[Any, Path, Any]:
    """A study of three actions of step 12, 3 games each, played with one worker and two."""
    folder = tmp_path_factory.mktemp("study")
    record = game[0]
    write_record(record, folder / "g.json")
    pos = position_of(record, 12)
    config = study_config(folder / "g.json", pos, ["greedy", "random"], 3, 4, step=12)
    config["actions"] = config["actions"][:3]
    spec = RunSpec.from_mapping(config)
    run(spec, folder / "one", options=RunOptions(jobs=1, quiet=True))
    run(spec, folder / "two", options=RunOptions(jobs=2, quiet=True))
    return pos, folder, spec


def _table(run_dir: Path) -> pd.DataFrame:
    seats = read_run(run_dir)[0]
    return seats.drop(columns=["decision_time_mean", "decision_cpu_mean"])


def test_a_study_is_a_run_of_each_action_on_the_same_deals(study_run: Any) -> None:
    pos, folder, spec = study_run
    one = _table(folder / "one")
    pd.testing.assert_frame_equal(one, _table(folder / "two"))  # any number of workers
    assert one["error"].isna().all() and set(one["seat"]) == {0, 1}
    legal = pos.state.legal_actions(master="none")
    assert all(a in legal for a in study_actions(pos.state))
    rows = study_rows(one, pos.state.current)
    assert len(rows) == 3 * 3 and rows["action"].nunique() == 3
    # game g of every action is played from the same game seed: the same deal of the unseen
    assert rows.groupby("deal")["seed"].nunique().eq(1).all()
    # and a study's game is the position, its unseen cards drawn again from the game's seed,
    # the action applied, then the bots: played here again by hand, the same scores
    config = configurations(spec)[1]
    first = rows[(rows["action"] == config.action_label) & (rows["deal"] == 0)].iloc[0]
    deal_rng, rngs = game_seeds(int(first["seed"]), 2)
    start = study_start(config.study_position(), action_of(config.action, pos.state))
    state = start(deal_rng)
    bots = [make_bot("greedy"), make_bot("random")]
    while state.phase != OVER:
        q = state.current
        state.step(q, bots[q](state.view(q), rngs[q]))
    mine = one[(one["game_id"] == first["game_id"])].sort_values("seat")
    assert list(mine["score"]) == state.final_scores()


def test_a_studys_summary_is_paired_and_best_first() -> None:
    rows = pd.DataFrame(
        {
            "action": ["a"] * 4 + ["b"] * 4,
            "deal": [0, 1, 2, 3] * 2,
            "win_share": [1, 1, 0, 1, 0, 1, 0, 0],
            "margin": [3, 2, -1, 4, -2, 1, -3, -1],
        }
    )
    summary = study_summary(rows)
    assert [r["action"] for r in summary] == ["a", "b"]
    assert summary[0]["win_rate"] == 0.75 and summary[0]["low"] < 0.75 < summary[0]["high"]
    b = summary[1]
    assert b["diff"] == pytest.approx(-0.5) and -1 <= b["diff_low"] < -0.5 < b["diff_high"] < 0.5


def test_a_studys_margin_is_over_the_best_rival_and_solo_over_the_mastermind() -> None:
    def seats(scores: list[list[int]]) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {"game_id": g, "seat": p, "score": x, "action": "a", "deal": g, "seed": g}
                | {"win_share": float(p == 0), "error": None}
                for g, row in enumerate(scores)
                for p, x in enumerate(row)
            ]
        )

    three = study_rows(seats([[10, 12, 7], [9, 3, 5]]), 0)
    assert list(three["margin"]) == [-2, 4]
    games = pd.DataFrame({"game_id": [0, 1], "opponent_score": [8, 15]})
    assert list(study_rows(seats([[10], [9]]), 0, games)["margin"]) == [2, -6]


def test_a_study_refuses_records_tiers_grids_and_an_edited_position(
    study_run: Any, tmp_path: Path
) -> None:
    import projectl_sim.experiments  # noqa: F401  (declares tiers; without it no such setting)

    folder = study_run[1]
    path = tmp_path / "g.json"
    path.write_bytes((folder / "g.json").read_bytes())
    base = {"bots": ["greedy"], "position": str(path), "step": 12, "games": 2}
    for extra, words in (
        ({"records": "all"}, "a study writes no records"),
        ({"players": [3]}, "leave out players"),
        ({"tiers": ["random"], "bots": ["tier"]}, "a study takes no --tiers"),
        ({"actions": [{"player": 0, "kind": "nothing"}]}, "not an action of the position's seat"),
        ({"bots": ["greedy,greedy,greedy"]}, "has 2 seats"),
    ):
        with pytest.raises(UsageError, match=words):
            RunSpec.from_mapping(base | extra)
    made = RunSpec.from_mapping(base)
    path.write_text(path.read_text().replace('"seed"', '"seed" ', 1))
    with pytest.raises(UsageError, match="not the file this study was started from"):
        RunSpec.from_mapping(made.to_json())
    with pytest.raises(UsageError, match="no decision to study"):
        RunSpec.from_mapping(base | {"position": str(folder / "g.json"), "step": -1})


def test_the_win_chance_chart_is_clean(game: Any) -> None:
    _, steps, rows = game
    rows = [dict(r) for r in rows]
    add_rollouts(rows, steps, ["greedy", "greedy"], 3, 40, seed=1)
    ax = plot_win_chances(pd.DataFrame(rows), turning=[10, 20])
    assert defects(ax) == []


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory, game: Any) -> Path:
    path = tmp_path_factory.mktemp("board") / "g.json"
    write_record(game[0], path)
    return path


def test_analyse_writes_the_table_chart_and_page_beside_the_record(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyse", str(record_file), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "turning points" in out and "the value search's best:" in out
    table = pd.read_csv(record_file.with_name("g.chances.csv"))
    assert len(table) == 2 * (len(json.loads(record_file.read_text())["actions"]) + 1)
    assert record_file.with_name("g.chances.png").stat().st_size > 1000
    page = record_file.with_name("g.board.html").read_text()
    assert 'id="chance-graph"' in page and '"chances"' in page


def test_study_prints_each_actions_win_rate(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["study", str(record_file), "--step", "6", "--games", "2", "--bots", "greedy"]
    assert main([*argv, "--jobs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("step 6, round ") and "to move" in out[0]
    assert all("%" in line and "margin" in line for line in out[1:-1])
    assert all("vs best" in line for line in out[2:-1])  # the paired difference from the best
    # the action the record played there is studied and marked
    played = [line for line in out[1:-1] if line.endswith("(played)")]
    assert len(played) == 1
    folder = record_file.with_name("g.step6.study")
    assert out[-1].endswith(str(folder)) and "action" in read_run(folder)[0]
    # asked again: the same study, read back from its folder, the same lines; another
    # seed in the same folder is one line
    assert main([*argv, "--jobs", "1"]) == 0 and capsys.readouterr().out.splitlines() == out
    _one_line_error(capsys, [*argv, "--seed", "1"], "holds a study of other settings")
    # a reader of a run's configurations refuses the study in one line naming the study's
    # command, which prints its answer again
    for command in (["summary"], ["report"], ["cards"], ["deals"], ["compare", str(folder)]):
        code = main([*command, str(folder)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code != 0 and len(err) == 1 and "holds a study of one position" in err[0], err
        assert f"which {command[0]} does not read" in err[0]
    again = shlex.split(err[0].split("printed by ", 1)[1])
    assert again[:2] == ["projectl-sim", "study"] and "--every-action" not in again
    assert main([*again[1:], "--jobs", "1"]) == 0 and capsys.readouterr().out.splitlines() == out
    # and a run that resumes it says so instead of a summary of seats
    assert main(["run", "--resume", "--out", str(folder), "--quiet"]) == 0
    shown = capsys.readouterr().out.strip().splitlines()
    assert shown == [f"a study of one position: its answer is printed by {shlex.join(again)}"]


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and words in err[0], err


def test_bad_input_is_one_line(
    record_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(record_file.read_text())
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**data, "format": "projectl-record/0"}))
    _one_line_error(capsys, ["analyse", str(other)], "unknown record format 'projectl-record/0'")
    illegal = tmp_path / "illegal.json"
    moved = json.loads(json.dumps(data))
    moved["actions"][1]["player"] = 1 - moved["actions"][1]["player"]
    illegal.write_text(json.dumps(moved))
    _one_line_error(capsys, ["analyse", str(illegal)], "action 1 (player")
    _one_line_error(capsys, ["study", str(illegal), "--step", "4"], f"position {illegal}: action 1")
    unreachable = tmp_path / "unreachable.json"
    pos = position_json(data, 5, position_of(data, 5).state)
    pos["state"]["players"][0]["score"] += 9
    unreachable.write_text(json.dumps(pos))
    _one_line_error(capsys, ["study", str(unreachable)], "a position the rules cannot reach")
    _one_line_error(capsys, ["study", str(record_file), "--step", "-1"], "the game is over at step")
    _one_line_error(
        capsys,
        ["study", str(record_file), "--step", "3", "--bots", "greedy,greedy,greedy"],
        "--bots names 3 bots for a game of 2 seats",
    )
    _one_line_error(capsys, ["study", str(record_file)], "give --step K")
    _one_line_error(capsys, ["analyse"], "give one of: a record file, --run RUN, --calibrate")
    _one_line_error(capsys, ["analyse", "--run", str(tmp_path)], "no records")


def test_a_runs_summary_counts_each_game_and_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"  # a run's records folder (run --records all writes the same)
    (run / "records").mkdir(parents=True)
    for game in range(2):
        record = _record(Rules(players=2), ["greedy", "random"], 20 + game)
        write_record(record, run / "records" / f"game-{game:08d}.json")
    assert main(["analyse", "--run", str(run)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 games;") and "mistakes per game" in out
    decided = pd.read_csv(run / "board" / "decided.csv")
    mistakes = pd.read_csv(run / "board" / "mistakes.csv")
    bots = pd.read_csv(run / "board" / "bots.csv")
    assert len(decided) <= 2 and set(decided["kind"]) <= {
        "take",
        "place",
        "upgrade",
        "recycle",
        "master",
        "finish",
        "reward",
        "takebasic",
    }
    assert len(mistakes) == 4 and (mistakes["mistakes"] <= mistakes["decisions"]).all()
    assert sorted(bots["bot"]) == ["greedy", "random"] and (bots["games"] == 2).all()
    for _, b in bots.iterrows():
        mine = mistakes[mistakes["bot"] == b["bot"]]
        assert b["mistakes_per_game"] == pytest.approx(mine["mistakes"].mean(), abs=1e-3)
