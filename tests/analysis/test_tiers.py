"""Across skill: ``run --tiers`` (a tier axis with its column), the answers per tier and those that
change with skill (known answers both ways), a dominant strategy, ``tune --objective tiers`` and
``tune --bot`` (bot tuning)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_util import G, make_tables
from paths import TESTS

from projectl_sim.analysis.data import load_run
from projectl_sim.analysis.findings import findings
from projectl_sim.analysis.objectives import TiersTarget, game_matrix, objective
from projectl_sim.analysis.tiers import dominant_policies, skill_interactions, tier_values
from projectl_sim.cli import main
from projectl_sim.errors import UsageError
from projectl_sim.experiments.tune import parse_bot_param, parse_tiers_target
from projectl_sim.sim import runner
from projectl_sim.sim.spec import RunSpec, configurations

BOTS = str(TESTS / "deal_bots.py")
# plays exactly as random does (its deals' first player is never seat 5): a tier that differs
# from random in name only
LIKE_RANDOM = f"{BOTS}:PlantedBot:side=5"
QUIET = runner.RunOptions(jobs=1, quiet=True)


def _run(tmp_path: Path, name: str, **spec: object) -> Path:
    result = runner.run(RunSpec.from_mapping(spec), tmp_path / name, options=QUIET)
    assert result.failed == 0
    return result.out


def test_tiers_are_a_grid_axis_on_the_same_deals() -> None:
    spec = RunSpec.from_mapping({"tiers": "greedy,random", "games": 4, "expansions": "none"})
    configs = configurations(spec)
    assert [(c.tier, c.lineup, c.players) for c in configs] == [
        ("greedy", ("greedy", "greedy"), 2),
        ("random", ("random", "random"), 2),
    ]
    assert configs[0].deal_key == configs[1].deal_key  # every tier plays the same deals
    mixed = RunSpec.from_mapping({"tiers": "greedy,random", "bots": "tier,setter", "games": 4})
    assert [c.lineup for c in configurations(mixed)] == [("greedy", "setter"), ("random", "setter")]
    assert [c.template for c in configurations(mixed)] == [("tier", "setter")] * 2
    # a run without tiers keeps its spec, manifest form and id
    plain = RunSpec.from_mapping({"bots": "greedy,random", "games": 4})
    assert "tiers" not in plain.to_json() and "tier" not in configurations(plain)[0].to_json()


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ({"tiers": "greedy,greedy"}, "names the tier greedy twice"),
        ({"tiers": "greedy", "bots": "greedy,random"}, "no seat of the line-ups is 'tier'"),
        ({"tiers": "tier"}, "placeholder"),
        ({"tiers": "greedy,nosuchbot"}, "nosuchbot"),
        ({"tiers": 7}, "tiers: a comma list of bot specs, got 7"),
        ({"tiers": "greedy,random", "round_robin": "tier,greedy"}, "a tier and a bot"),
    ],
)
def test_bad_tiers_are_one_line(spec: dict[str, object], says: str) -> None:
    with pytest.raises(UsageError, match=says):
        RunSpec.from_mapping(spec | {"games": 2})


def test_a_tier_that_plays_alike_changes_nothing(tmp_path: Path) -> None:
    out = _run(
        tmp_path, "alike", tiers=f"random,{LIKE_RANDOM}", bots="tier,setter", games=16, seed=3
    )
    run = load_run(out)
    assert run.games["tier"].nunique() == 2 and "random" in set(run.games["tier"])
    inter = skill_interactions(run.seats, run.games)
    values = inter[inter["answer"] == "value"]
    assert len(values) >= 3 and (values["diff"] == 0).all() and not inter["flagged"].any()
    per_tier = tier_values(run.seats, run.games)
    assert set(per_tier["metric"]) >= {"first_player_rate", "win_rate:tier", "win_rate:setter"}


def test_skill_that_decides_the_game_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "skill"
    argv = ["run", "--tiers", "random,greedy", "--bots", "tier,setter", "--games", "24"]
    argv += ["--seed", "5", "--out", str(out), "--jobs", "1", "--quiet"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["summary", str(out)]) == 0
    text = capsys.readouterr().out
    assert "== Across skill (tiers) ==" in text and "* changes with skill: greedy - random" in text
    run = load_run(out)
    inter = skill_interactions(run.seats, run.games)
    tier_rate = inter[(inter["answer"] == "value") & (inter["metric"] == "win_rate:tier")].iloc[0]
    assert tier_rate["flagged"] and tier_rate["diff"] > 0.3 and tier_rate["q_value"] < 0.05
    # the findings' tier rows are these comparisons, found where they are flagged, and the
    # summary marks exactly those
    rows = findings(run.seats, run.games, tiers=inter)
    rows = rows[rows["question"] == "tier"]
    assert list(rows["detected"]) == list(inter["flagged"])
    marked = text.count("* changes with skill") + text.count("  * effect of")
    assert marked == int(rows["detected"].sum()) >= 1
    # greedy beats random at the greedy tier only: no policy wins everywhere
    assert dominant_policies(run.seats, run.games).empty


def test_a_policy_that_wins_in_every_tier_is_dominant(tmp_path: Path) -> None:
    out = _run(tmp_path, "dom", tiers=f"random,{LIKE_RANDOM}", bots="greedy,tier", games=16, seed=2)
    run = load_run(out)
    dom = dominant_policies(run.seats, run.games)
    assert list(dom["policy"]) == ["greedy"] and dom.iloc[0]["tiers"] == 2
    assert dom.iloc[0]["worst_low"] > 0.5


def test_tiers_distance_on_hand_made_tables() -> None:
    # greedy beats random in 3 of 4 (seats swapped); the first player (seat 0) wins 3 of 4
    games = [
        G(["greedy", "random"], [9, 4], [1, 2]),
        G(["random", "greedy"], [2, 9], [2, 1]),
        G(["greedy", "random"], [8, 7], [1, 2]),
        G(["random", "greedy"], [9, 8], [1, 2]),
    ]
    m = game_matrix(*make_tables(games))
    target = TiersTarget({("greedy", "random"): 0.6}, first_player=0.5)
    assert objective(m, "tiers", target) == pytest.approx(math.sqrt((0.15**2 + 0.25**2) / 2))
    assert objective(m, "tiers", TiersTarget({("greedy", "random"): 0.75}, None)) == 0
    assert np.isnan(objective(m, "tiers", TiersTarget({("value", "random"): 0.7}, None)))


def test_tiers_target_inline_and_file(tmp_path: Path) -> None:
    inline = parse_tiers_target("stronger=0.7,first=none", ["greedy", "setter", "random"])
    assert inline.first_player is None
    assert dict(inline.beats) == {
        ("greedy", "setter"): 0.7,
        ("greedy", "random"): 0.7,
        ("setter", "random"): 0.7,
    }
    file = tmp_path / "target.toml"
    file.write_text("first_player = 0.55\n[beats.greedy]\nrandom = 0.9\n", encoding="utf-8")
    target = parse_tiers_target(str(file), ["greedy", "random"])
    assert dict(target.beats) == {("greedy", "random"): 0.9} and target.first_player == 0.55
    for bad, says in [
        ("stronger=1.5", "not a win rate"),
        ("strong=0.6", "give stronger=T"),
        (str(tmp_path / "none.toml"), "cannot read"),
    ]:
        with pytest.raises(UsageError, match=says):
            parse_tiers_target(bad, ["greedy", "random"])
    file.write_text("[beats.greedy]\nvalue = 0.6\n", encoding="utf-8")
    with pytest.raises(UsageError, match="no pair of --tiers"):
        parse_tiers_target(str(file), ["greedy", "random"])


def test_tune_objective_tiers_scores_each_setting_by_its_distance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tune"
    argv = ["tune", "--objective", "tiers", "--tiers", "greedy,random"]
    argv += ["--tiers-target", "stronger=0.8,first=0.5", "--param", "actions_per_turn=2..3"]
    argv += ["--budget", "16", "--games-per-trial", "8", "--confirm", "1", "--seed", "1"]
    argv += ["--jobs", "1", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    assert "tiers target: greedy > random: 0.80" in capsys.readouterr().out
    trials = pd.read_csv(out / "trials.csv")
    assert sorted(trials["actions_per_turn"]) == [2, 3]
    for trial in trials.to_dict("records"):
        run = load_run(out / "search" / f"trial-{trial['trial']:03d}")
        seats = run.seats
        greedy = seats[seats["bot"] == "greedy"]["win_share"].mean()
        first = seats[seats["turn_order"] == 0]["win_share"].mean()
        expected = math.sqrt(((greedy - 0.8) ** 2 + (first - 0.5) ** 2) / 2)
        assert trial["value"] == pytest.approx(expected)
        assert set(run.games["lineup"]) == {"greedy,random"}  # a round robin of the tiers
    assert json.loads((out / "tune.json").read_text())["tiers"] == ["greedy", "random"]


def test_bot_tuning_finds_the_weight_that_makes_it_strong(tmp_path: Path) -> None:
    from projectl_sim.experiments.tune import tune

    result = tune(
        [parse_bot_param("greedy", "points=0.05,1")],
        tmp_path / "bot",
        objective_name="",
        bot="greedy",
        field=["greedy:preset=engine"],
        budget=24,
        games_per_trial=12,
        confirm=1,
        seed=4,
        options=QUIET,
    )
    assert result.best == {"points": 1.0}  # caring for points beats not caring
    confirmed = result.confirmed.set_index("name")
    assert "rulebook" in confirmed.index  # the bot's defaults (points=1) take its place
    weak = result.trials.set_index("points")["value"]
    assert weak[0.05] > weak[1.0]  # minus the win rate: the weak weight wins less
    assert "(the bot's defaults)" in result.text()
    run = load_run(tmp_path / "bot" / "search" / "trial-000")
    assert set(run.games["lineup"]) <= {
        "greedy:points=0.05,greedy:preset=engine",
        "greedy,greedy:preset=engine",
    }


def test_bot_params_parse_with_the_bots_ranges() -> None:
    risk = parse_bot_param("greedy", "risk=0..1")
    assert risk.continuous and 0 < risk.low < 0.01 and risk.high == 1.0  # risk > 0: just inside
    assert parse_bot_param("greedy", "min_held=1..3").values == (1, 2, 3)
    for bad, says in [
        ("riks=0..1", "did you mean 'risk'"),
        ("min_held=0..9", "out of range"),
        ("risk", "NAME=LOW..HIGH"),
    ]:
        with pytest.raises(UsageError, match=says):
            parse_bot_param("greedy", bad)


def test_tune_flag_mistakes_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        (["--bot", "greedy", "--param", "risk=0..1"], "--field"),
        (["--objective", "tiers", "--tiers", "greedy", "--param", "row_size=3..4"], "two or more"),
        (
            ["--objective", "rounds", "--tiers", "greedy,random", "--param", "row_size=3..4"],
            "go with",
        ),
    ]
    for args, says in cases:
        argv = ["tune", *args, "--budget", "4", "--out", str(tmp_path / "t")]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1
