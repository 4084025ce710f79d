"""Expert iteration with rollout labels (``train-value --generations G --labels rollouts``): the
current model's player plays, every candidate of its decisions is valued by greedy rollouts, the
next model is fitted as the one-off training fits, at tiny scale."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from bots.value_model import load_model
from projectl_sim.learn.expit import GEN_FORMAT, ROLLOUTS_FILE, Plan, iterate, seeds
from projectl_sim.learn.value import Positions, collect

TINY = Plan(
    generations=2,
    games=2,
    every=5,
    players=(2,),
    expansions=((), ("finesse",)),
    gate_games=4,
    seed=9,
    labels="rollouts",
    rollouts=1,
    extra_weight=2,
    window=2,
)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The outcome rows the fit holds games out of, and one file of extra rows."""
    folder = tmp_path_factory.mktemp("rows")
    base, extra = folder / "base.npz", folder / "extra.npz"
    collect(6, 3, every=4).save(base)
    collect(2, 4, every=4).save(extra)
    return base, extra


@pytest.fixture(scope="module")
def trained(
    tmp_path_factory: pytest.TempPathFactory, inputs: tuple[Path, Path]
) -> tuple[Path, list]:
    out = tmp_path_factory.mktemp("expit") / "run"
    gens = iterate(out, TINY, base=inputs[0], extra=[inputs[1]], quiet=True)
    return out, gens


def test_each_generation_plays_labels_fits_and_gates(trained: tuple[Path, list]) -> None:
    out, gens = trained
    assert [g.generation for g in gens] == [1, 2]
    for gen in gens:
        gen_dir = out / GEN_FORMAT.format(gen.generation)
        summary = json.loads((gen_dir / "generation.json").read_text())
        assert summary["candidate_hash"] == load_model(str(gen_dir / "model.json")).hash
        # the gate: the value bot on each model, both seatings of each deal
        assert summary["gate"]["games"] == TINY.gate_games
        assert summary["gate"]["deals"] == TINY.gate_games // 2
        gate = summary["gate"]
        assert summary["kept"] == (gate["share"] >= TINY.gate_share and gate["ci_low"] > 0.5)
        records = list((gen_dir / "selfplay" / "standard" / "records").glob("game-*.json"))
        assert len(records) == TINY.games * len(TINY.expansions)
        # every seat the value bot on the generation's model
        seats = {b for r in records for b in json.loads(r.read_text())["seats"]}
        assert len(seats) == 1
        assert all(
            s.startswith("value:") and s.endswith(f"hash={gen.incumbent_hash}") for s in seats
        )
        rows = Positions.load(gen_dir / ROLLOUTS_FILE)
        assert set(rows.table.tolist()) <= {"base", "finesse"}
        # a rollout's win share is 0, 1/k or 1 for each of 2R rollouts: the mean lies in [0, 1]
        assert len(rows) and np.all((rows.win >= 0) & (rows.win <= 1))
        assert np.isnan(rows.root_value).all()
        # a decision's rows are its candidates: several rows share a decision number
        decisions = np.unique(rows.game)
        assert summary["data"]["decisions"] == len(decisions) < len(rows)
        training = load_model(str(gen_dir / "model.json")).training
        assert training["seeds"] == seeds(TINY, gen.generation)
        assert training["parent"] == summary["incumbent_hash"]
        assert training["plan"]["labels"] == "rollouts"
    # the second fit reads both generations' rows (window 2)
    second = load_model(str(out / "gen-002" / "model.json")).training
    assert list(second["generation_rows"]) == [f"gen-00{g}/{ROLLOUTS_FILE}" for g in (1, 2)]


def test_a_decision_s_rows_are_the_oracle_s(trained: tuple[Path, list]) -> None:
    """The labelling scores a decision with the oracle's own functions: replaying the first
    record and scoring its first kept decision again gives the file's first rows."""
    from bots import make_bot
    from bots.greedy import GreedyBot
    from projectl_sim.engine import PLAY
    from projectl_sim.engine.record import read_record, replay
    from projectl_sim.learn.rollouts import decision_rows, score_position

    out, gens = trained
    gen_dir = out / "gen-001"
    first = sorted((gen_dir / "selfplay" / "standard" / "records").glob("game-*.json"))[0]
    seed = seeds(TINY, 1)["label"]
    pick = random.Random(seed ^ 0)
    kept = []

    def on_step(state, seat, action) -> None:
        if state.phase == PLAY and pick.random() * TINY.every < 1.0:
            kept.append((state.view(state.current), pick.getrandbits(31) + 1))

    replay(read_record(first), on_step=on_step)
    assert kept
    scorer = make_bot(f"{TINY.scorer},model={gens[0].incumbent}")
    view, key = kept[0]
    _, wins, margins, _, feats = score_position(view, scorer, GreedyBot(endgame=0), 1, key)
    x, win, margin = decision_rows(wins, margins, feats)
    rows = Positions.load(gen_dir / ROLLOUTS_FILE)
    assert np.array_equal(rows.x[: len(x)], np.asarray(x))
    assert np.array_equal(rows.win[: len(x)], np.asarray(win))
    assert np.array_equal(rows.margin[: len(x)], np.asarray(margin))
    assert (rows.game[: len(x)] == 0).all() and rows.game[len(x)] == 1


def test_a_generation_s_fit_is_the_one_off_training_s(
    trained: tuple[Path, list], inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    """``train-value --positions BASE --extra-positions EXTRA --extra-positions gen-001's rows
    --extra-weight K --seed S`` fits the first generation's network, weight for weight."""
    from projectl_sim.learn.value import train

    out, _ = trained
    base, extra = inputs
    result = train(
        tmp_path / "fit",
        games=1,
        seed=TINY.seed,
        positions=base,
        extra=[extra, out / "gen-001" / ROLLOUTS_FILE],
        extra_weight=TINY.extra_weight,
    )
    one_off = json.loads(Path(result["model"]).read_text())
    mine = json.loads((out / "gen-001" / "model.json").read_text())
    assert one_off["layers"] == mine["layers"] and one_off["mean"] == mine["mean"]
    t = mine["training"]
    assert t["extra_positions"] == [extra.name] and t["positions_from"] == base.name
    assert t["extra_rows"] == one_off["training"]["extra_rows"]


def test_the_same_seed_gives_the_same_rows_and_model_and_a_kill_resumes(
    trained: tuple[Path, list], inputs: tuple[Path, Path], tmp_path: Path
) -> None:
    out, gens = trained
    again = tmp_path / "again"
    shutil.copytree(out, again)
    # killed in the second generation after its self-play: labelled, fitted and gated again
    gen_dir = again / "gen-002"
    for name in ("generation.json", "model.json", ROLLOUTS_FILE, "accuracy.csv"):
        (gen_dir / name).unlink()
    shutil.rmtree(gen_dir / "gate")
    redone = iterate(again, TINY, base=inputs[0], extra=[inputs[1]], quiet=True)
    assert [g.candidate_hash for g in redone] == [g.candidate_hash for g in gens]
    a = Positions.load(out / "gen-002" / ROLLOUTS_FILE)
    b = Positions.load(gen_dir / ROLLOUTS_FILE)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.win, b.win)
    timed = {"ms_per_decision"}
    assert {k: v for k, v in redone[1].gate.items() if k not in timed} == {
        k: v for k, v in gens[1].gate.items() if k not in timed
    }


def test_rows_are_the_same_for_any_jobs(trained: tuple[Path, list], tmp_path: Path) -> None:
    from projectl_sim.learn.expit import rollout_positions

    records = sorted((trained[0] / "gen-001" / "selfplay" / "standard" / "records").iterdir())
    (tmp_path / "run" / "records").mkdir(parents=True)
    for path in records[:2]:
        shutil.copy(path, tmp_path / "run" / "records")
    runs = [tmp_path / "run"]
    one = rollout_positions(TINY, runs, "", 5, 1, lambda line: None)
    two = rollout_positions(TINY, runs, "", 5, 2, lambda line: None)
    assert len(one) and np.array_equal(one.x, two.x) and np.array_equal(one.game, two.game)
    assert np.array_equal(one.win, two.win)


@pytest.mark.parametrize(
    "flags,word",
    [
        (["--labels", "rollouts"], "--positions"),  # the fit's outcome rows are needed
        (["--positions", "x.npz"], "--labels rollouts"),  # search labels play their own
        (["--labels", "rollouts", "--positions", "missing.npz"], "missing.npz"),
        (["--scorer", "greedy"], "--scorer"),  # rollout labels' flag
        (["--extra-weight", "3"], "--extra-weight"),
    ],
)
def test_the_command_refuses_bad_rollout_flags_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], word: str
) -> None:
    from projectl_sim.cli import main

    code = main(["train-value", "--out", str(tmp_path / "x"), "--generations", "1", *flags])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and word in err[0]
    assert not (tmp_path / "x").exists()


def test_a_scorer_that_is_no_value_bot_is_refused(
    tmp_path: Path, inputs: tuple[Path, Path]
) -> None:
    from projectl_sim.errors import UsageError

    plan = Plan(**{**TINY.__dict__, "scorer": "greedy"})
    with pytest.raises(UsageError, match="--scorer: bot 'greedy'"):
        iterate(tmp_path / "x", plan, base=inputs[0], quiet=True)
    plan = Plan(**{**TINY.__dict__, "scorer": "mcts:leaf=value"})
    with pytest.raises(UsageError, match=r"--scorer mcts:leaf=value,model=.*: not a value bot"):
        iterate(tmp_path / "x", plan, base=inputs[0], quiet=True)
