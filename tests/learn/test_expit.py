"""Expert iteration (``projectl_sim.learn.expit``, ``train-value --generations``) at tiny scale."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from bots.value_model import load_model
from projectl_sim.errors import UsageError
from projectl_sim.learn.expit import Plan, iterate, seeds
from projectl_sim.learn.value import Positions

TINY = Plan(
    generations=1,
    games=3,
    iterations=4,
    every=2,
    players=(2,),
    expansions=((), ("finesse",)),
    gate_games=4,
    seed=7,
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    out = tmp_path_factory.mktemp("expit") / "run"
    gens = iterate(out, TINY, quiet=True)
    return out, gens


def test_a_generation_writes_its_runs_positions_model_and_gate(trained: tuple[Path, list]) -> None:
    out, gens = trained
    gen_dir = out / "gen-001"
    assert len(gens) == 1
    summary = json.loads((gen_dir / "generation.json").read_text())
    assert summary["candidate_hash"] == load_model(str(gen_dir / "model.json")).hash
    assert summary["incumbent_hash"] == load_model("").hash  # the shipped model played first
    # the gate: both seatings of each deal, the candidate in every game
    assert summary["gate"]["games"] == TINY.gate_games
    assert summary["gate"]["deals"] == TINY.gate_games // 2
    gate = summary["gate"]
    assert summary["kept"] == (gate["share"] >= TINY.gate_share and gate["ci_low"] > 0.5)
    # the self-play: every game recorded, one run for the variant, both expansion sets
    records = list((gen_dir / "selfplay" / "standard" / "records").glob("game-*.json"))
    assert len(records) == TINY.games * len(TINY.expansions)
    pos = Positions.load(gen_dir / "positions.npz")
    assert set(pos.table.tolist()) == {"base", "finesse"}
    searched = ~np.isnan(pos.root_value)
    # every seat's row of a searched position takes the search's value for that seat (2 seats:
    # rows in pairs, both searched or neither: a single candidate is not searched)
    pairs = searched.reshape(-1, 2)
    assert pairs.all(axis=1).sum() > 0 and np.array_equal(pairs[:, 0], pairs[:, 1])
    assert np.all((pos.root_value[searched] >= 0) & (pos.root_value[searched] <= 1))
    assert summary["data"]["searched"] == int(searched.sum())
    # the model file says how it was made: the plan, the seeds, the parent
    training = load_model(str(gen_dir / "model.json")).training
    assert training["seeds"] == seeds(TINY, 1)
    assert training["parent"] == summary["incumbent_hash"]
    assert training["plan"]["iterations"] == TINY.iterations


def test_mid_turn_positions_are_searched(trained: tuple[Path, list]) -> None:
    from bots.features import FEATURE_NAMES

    pos = Positions.load(trained[0] / "gen-001" / "positions.npz")
    turn = pos.x[~np.isnan(pos.root_value), FEATURE_NAMES.index("me_turn_actions")]
    movers = turn[turn > 0]  # the mover's rows (the waiting seats have no turn actions)
    # a turn's first decision has all its actions left, a mid-turn one fewer: both are searched
    assert movers.max() > movers.min() >= 1


def test_the_same_seed_gives_the_same_model_and_a_kill_resumes(
    trained: tuple[Path, list], tmp_path: Path
) -> None:
    out, gens = trained
    again = tmp_path / "again"
    shutil.copytree(out, again)
    gen_dir = again / "gen-001"
    # killed after the self-play, before the fit: the rest is played again from the records
    for name in ("generation.json", "model.json", "positions.npz", "accuracy.csv"):
        (gen_dir / name).unlink()
    shutil.rmtree(gen_dir / "gate")
    (gen,) = iterate(again, TINY, quiet=True)
    assert gen.candidate_hash == gens[0].candidate_hash
    timed = {"ms_per_decision"}  # the CPU the gate's decisions took: measured, not replayed
    same = {k: v for k, v in gen.gate.items() if k not in timed}
    assert same == {k: v for k, v in gens[0].gate.items() if k not in timed}


def test_a_resume_with_another_plan_is_refused(trained: tuple[Path, list]) -> None:
    out, _ = trained
    with pytest.raises(UsageError, match="iterations=4"):
        iterate(out, Plan(**{**TINY.__dict__, "iterations": 5}), quiet=True)


def test_the_command_refuses_the_one_off_flags(tmp_path: Path) -> None:
    from projectl_sim.cli import main

    code = main(["train-value", "--out", str(tmp_path / "x"), "--generations", "1", "--curve"])
    assert code != 0
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "flag",
    [["--selfplay-games", "10"], ["--gate-share", "0.6"], ["--variants", "solo"], ["--fresh"]],
)
def test_the_one_off_training_refuses_expert_iterations_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    from projectl_sim.cli import main

    code = main(["train-value", "--out", str(tmp_path / "x"), "--games", "1", *flag])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and flag[0] in err[0] and "--generations" in err[0]
    assert not (tmp_path / "x").exists()


def test_targets_blend_the_search_and_anchor_the_rest(trained: tuple[Path, list]) -> None:
    from projectl_sim.learn.expit import targets
    from projectl_sim.learn.value import predict

    pos = Positions.load(trained[0] / "gen-001" / "positions.npz")
    searched = ~np.isnan(pos.root_value)
    searched[::2] = False  # as if only some rows were searched (the other rows: no target)
    pos.root_value[~searched] = np.nan
    mixed = targets(pos, 0.25)
    want = 0.25 * pos.root_value[searched] + 0.75 * pos.win[searched]
    assert np.allclose(mixed.win[searched], want)
    assert np.array_equal(mixed.win[~searched], pos.win[~searched])  # the result, untouched
    model = load_model("")
    anchored = targets(pos, 0.25, model)
    own_win, own_margin = predict(model, pos.x[~searched])
    assert np.allclose(anchored.win[~searched], own_win)
    assert np.allclose(anchored.margin[~searched], own_margin)
    assert np.array_equal(anchored.margin[searched], pos.margin[searched])
    # the search's margins blended into the searched rows' margin targets
    search_margin = np.where(searched, 3.0, np.nan)
    both = targets(pos, 0.25, None, search_margin)
    assert np.allclose(both.margin[searched], 0.75 + 0.75 * pos.margin[searched])
    assert np.array_equal(both.margin[~searched], pos.margin[~searched])


def test_the_positions_are_the_same_for_any_jobs(
    trained: tuple[Path, list], tmp_path: Path
) -> None:
    from projectl_sim.learn.expit import positions

    records = sorted((trained[0] / "gen-001" / "selfplay" / "standard" / "records").iterdir())
    (tmp_path / "run" / "records").mkdir(parents=True)
    for path in records[:2]:  # two games: one for each job
        shutil.copy(path, tmp_path / "run" / "records")
    runs = [tmp_path / "run"]
    one, one_margin = positions(TINY, runs, "", 5, 1, lambda line: None)
    two, two_margin = positions(TINY, runs, "", 5, 2, lambda line: None)
    assert len(one) and np.array_equal(one.x, two.x)
    assert np.array_equal(one.root_value, two.root_value, equal_nan=True)
    assert np.array_equal(one_margin, two_margin, equal_nan=True)
