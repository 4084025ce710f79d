"""Common random numbers: a run's configurations that differ in switches, parameters, line-ups or
expansions play the same deal seeds, effects are paired where the deals are the same, and a run
made under the older seed scheme resumes with its own (an unknown scheme is one line)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from analysis_util import G, make_tables

from projectl_sim import analysis as pa
from projectl_sim.analysis import pairs
from projectl_sim.errors import UsageError
from projectl_sim.sim import runner, tables
from projectl_sim.sim import spec as run_spec

QUIET = runner.RunOptions(jobs=1, quiet=True)


def _spec(**settings: object) -> run_spec.RunSpec:
    base = {"bots": ["random"], "players": [2, 3], "games": 4, "seed": 11}
    return run_spec.RunSpec.from_mapping(base | settings)


def test_switches_parameters_and_expansions_share_the_deal_seeds_of_their_player_count() -> None:
    spec = _spec(
        expansions=["none", "finesse"],
        rules={"unfinished_penalty": [True, False], "black_deck_2p": [12, 14]},
        bots=["random", "random,greedy"],
    )
    configs, tasks = run_spec.plan(spec, 11)
    seeds: dict[tuple[int, int], set[int]] = {}
    for t in tasks:
        seeds.setdefault((configs[t.config_id].players, t.deal), set()).add(t.seed)
    assert all(len(s) == 1 for s in seeds.values())  # one seed per deal and player count
    assert seeds[2, 0] != seeds[3, 0] and seeds[2, 0] != seeds[2, 1]
    # a grid of another shape deals the same seeds to its 3-player games
    _, three = run_spec.plan(_spec(players=[3], expansions=["phoenix"]), 11)
    assert {t.seed for t in three if t.deal == 0} == seeds[3, 0]
    old_configs, old = run_spec.plan(spec, 11, seed_scheme=run_spec.PER_CONFIGURATION)
    assert len({t.seed for t in old if t.deal == 0}) == len(old_configs)  # a child each


def test_a_puzzle_set_deals_other_decks_and_finesse_does_not() -> None:
    assert pairs.deals_differ("none", "finesse") is None
    assert pairs.deals_differ("finesse", "finesse+ghost_piece") == (
        "Ghost Piece adds puzzles: one seed deals other decks"
    )
    assert "Ghost Piece and Phoenix add puzzles" in str(
        pairs.deals_differ("ghost_piece+phoenix", "none")
    )


def _two_readings(rng: np.random.Generator, deals: int, extra: float) -> tuple:
    """Games of a default and a switched configuration on the same deals: the deal sets the
    length (sd 6), the switch adds ``extra`` rounds; a and b swap seats on each deal."""
    games = []
    for switches, add in (("default", 0.0), ("max_rounds=30", extra)):
        local = np.random.default_rng(5)  # the same deal lengths in both configurations
        for _ in range(deals):
            length = local.normal(20, 6)
            for bots in (["a", "b"], ["b", "a"]):
                win = rng.random() < 0.5
                games.append(
                    G(
                        bots,
                        [5, 3] if win else [3, 5],
                        [1, 2] if win else [2, 1],
                        rounds=max(1, round(length + add + rng.normal(0, 0.5))),
                        switches=switches,
                    )
                )
    seats, table = make_tables(games)
    for frame in (seats, table):  # both configurations: deal d has seed d, two rotations each
        frame["deal"] = (frame["game_id"] % (2 * deals)) // 2
        frame["seed"] = frame["deal"]
        frame["config_id"] = frame["game_id"] // (2 * deals)
        frame["lineup"] = "a,b"  # the configuration's line-up; rotations seat it both ways
    return seats, table


def test_effects_of_a_switch_are_paired_and_find_what_unpaired_blurs() -> None:
    seats, games = _two_readings(np.random.default_rng(3), 120, 1.0)
    fx = pa.effects(seats, games)
    rounds = fx[fx["metric"] == "rounds"].iloc[0]
    assert rounds["paired"] and rounds["pairs"] == 240
    assert rounds["ci_low"] < 1 < rounds["ci_high"] and rounds["significant"]
    width = rounds["ci_high"] - rounds["ci_low"]
    assert rounds["width_unpaired"] > 5 * width
    assert rounds["mde"] < width  # the MDE of the paired difference, not of two samples
    # the same games with their seeds apart: unpaired, and the planted change is lost
    apart = [f.assign(seed=f["seed"] + 1000 * f["config_id"]) for f in (seats, games)]
    fx2 = pa.effects(*apart)
    rounds2 = fx2[fx2["metric"] == "rounds"].iloc[0]
    assert not rounds2["paired"] and not rounds2["significant"]
    assert rounds2["unpaired_because"].startswith("no deal in common")
    assert rounds2["ci_high"] - rounds2["ci_low"] == pytest.approx(rounds["width_unpaired"])
    text = pa.summary_text(pa.Run(Path("x"), seats, games, {}))
    assert "1 of 1 comparisons paired" in text and "unpaired they would be" in text


def test_an_older_run_resumes_with_its_own_scheme_and_an_unknown_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = _spec(players=[2], rules={"unfinished_penalty": [True, False]}, games=2)
    out = tmp_path / "old"
    with monkeypatch.context() as m:  # a run of the older scheme: its manifest has no field
        m.setattr(runner, "SEED_SCHEME", run_spec.PER_CONFIGURATION)
        runner.run(spec, out, options=QUIET)
    manifest = tables.read_manifest(out)
    del manifest["seed_scheme"]
    tables.write_manifest(out, manifest)
    runner.run(
        run_spec.RunSpec.from_mapping({**spec.to_json(), "games": 4}),
        out,
        resume=True,
        options=QUIET,
    )
    games = tables.read_table(out, "games").to_pandas()
    _, old = run_spec.plan(
        dataclasses.replace(spec, games=4), 11, [2, 4], seed_scheme=run_spec.PER_CONFIGURATION
    )
    assert list(games.sort_values("game_id")["seed"]) == [t.seed for t in old]
    assert games.groupby("deal")["seed"].nunique().eq(2).all()  # still a child per configuration
    manifest = tables.read_manifest(out)
    assert manifest.get("seed_scheme", run_spec.PER_CONFIGURATION) == run_spec.PER_CONFIGURATION
    manifest["seed_scheme"] = "cards-by-moonlight"
    manifest["status"] = "running"
    tables.write_manifest(out, manifest)
    with pytest.raises(UsageError) as caught:
        runner.run(None, out, resume=True, options=QUIET)
    assert "seed scheme 'cards-by-moonlight'" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_new_run_names_its_scheme_and_its_switches_share_seeds(tmp_path: Path) -> None:
    spec = _spec(players=[2], rules={"unfinished_penalty": [True, False]}, games=3)
    runner.run(spec, tmp_path / "new", options=QUIET)
    assert json.loads((tmp_path / "new" / tables.MANIFEST).read_text())["seed_scheme"] == (
        run_spec.SHARED_DEALS
    )
    games = tables.read_table(tmp_path / "new", "games").to_pandas()
    assert games.groupby("deal")["seed"].nunique().eq(1).all()
