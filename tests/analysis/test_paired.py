"""Two runs on shared deals: paired differences find a planted change that unpaired ones blur."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from analysis_util import G, make_tables

from projectl_sim.analysis import paired as cmp
from projectl_sim.analysis.data import Run
from projectl_sim.analysis.findings import change_findings
from projectl_sim.analysis.stats import q_values
from projectl_sim.sim import runner
from projectl_sim.sim import spec as run_spec


def _run(name: str, games: list[G], *, shared_seeds: bool = True) -> Run:
    seats, table = make_tables(games)
    for frame in (seats, table):  # two rotations per deal, one seed per deal
        frame["deal"] = frame["game_id"] // 2
        frame["seed"] = frame["game_id"] // 2 + (0 if shared_seeds else 10_000)
    return Run(Path(name), seats, table, {})


def _games(rng: np.random.Generator, deal_length: np.ndarray, extra: float) -> list[G]:
    games = []
    for length in deal_length:  # each deal twice, a and b swapping seats
        for bots in (["a", "b"], ["b", "a"]):
            win = rng.random() < 0.5
            games.append(
                G(
                    bots,
                    [5, 3] if win else [3, 5],
                    [1, 2] if win else [2, 1],
                    rounds=round(length + extra + rng.normal(0, 0.5)),
                    expansions="none" if extra == 0 else "finesse",
                )
            )
    return games


def test_paired_differences_find_a_planted_change_that_unpaired_ones_blur() -> None:
    rng = np.random.default_rng(70)
    deal_length = rng.normal(20, 6, size=150)  # the deal decides most of a game's length
    a = _run("A", _games(rng, deal_length, 0.0))
    b = _run("B", _games(rng, deal_length, 1.0))
    table = cmp.compare(a, b)
    rounds = table[table["metric"] == "rounds"].iloc[0]
    assert rounds["paired"] and rounds["pairs"] == 300
    assert rounds["changed"] == "expansions none -> finesse"
    assert rounds["ci_low"] < 1 < rounds["ci_high"] and rounds["significant"]
    width = rounds["ci_high"] - rounds["ci_low"]
    assert rounds["width_unpaired"] > 5 * width  # pairing removed the deals' spread
    assert rounds["width_unpaired"] / 2 > abs(rounds["diff"])  # unpaired: lost in the spread
    assert set(table["metric"]) == {"first_player_rate", "margin", "rounds", "win_rate"}
    text = cmp.compare_text(a, b)
    assert "300 games paired on shared deals" in text
    assert "run B changes, in every configuration: expansions none -> finesse" in text
    assert "2 players (configurations 0 -> 0; paired, 300 pairs)" in text
    # one decision: found when q (Benjamini-Hochberg over the differences) is below 0.05
    measured = table["p_value"].notna()
    np.testing.assert_allclose(
        table.loc[measured, "q_value"], q_values(table.loc[measured, "p_value"])
    )
    found = change_findings(table)
    assert list(found["detected"]) == list(measured & (table["q_value"] < 0.05))
    assert found.loc[table["metric"] == "rounds", "detected"].all()
    stars = [line for line in text.splitlines() if "B-A" in line and "] *" in line]
    assert len(stars) == int(found["detected"].sum()) >= 1
    assert f"{int(found['detected'].sum())} of {len(table)} differences" in text


def test_runs_without_shared_deals_are_compared_unpaired_and_say_so() -> None:
    rng = np.random.default_rng(71)
    deal_length = rng.normal(20, 6, size=40)
    a = _run("A", _games(rng, deal_length, 0.0))
    b = _run("B", _games(rng, deal_length, 1.0), shared_seeds=False)
    table = cmp.compare(a, b)
    assert not table["paired"].any() and (table["pairs"] == 0).all()
    assert "compared unpaired" in cmp.compare_text(a, b)


def test_rates_that_never_differ_get_an_interval_not_a_point() -> None:
    games = [G(["a", "b"], [5, 3], [1, 2]), G(["b", "a"], [3, 5], [2, 1])] * 30  # a always wins
    a, b = _run("A", games), _run("B", games)
    rate = cmp.compare(a, b).query("metric == 'win_rate' and bot == 'a'").iloc[0]
    assert rate["diff"] == 0 and rate["ci_low"] < -0.05 and rate["ci_high"] > 0.05


def test_two_real_runs_with_one_root_seed_share_their_deals(tmp_path: Path) -> None:
    outs = {}
    for expansions, players in (("none", [2]), ("finesse", [3, 2]), ("phoenix", [2])):
        spec = run_spec.RunSpec.from_mapping(
            {
                "bots": ["random"],
                "players": players,
                "expansions": [expansions],
                "games": 6,
                "seed": 3,
            }
        )
        outs[expansions] = runner.run(
            spec, tmp_path / expansions, options=runner.RunOptions(jobs=1, quiet=True)
        ).out
    # Finesse deals its tiles after the table: the same seeds deal the same table, in a grid
    # of another shape too; its 3-player configuration has no partner
    table = cmp.compare(outs["none"], outs["finesse"])
    assert table["paired"].all() and (table["pairs"] == 6).all()
    assert set(table["changed"]) == {"expansions none -> finesse"}
    assert set(table["config_b"]) == {1}
    text = cmp.compare_text(outs["none"], outs["finesse"])
    assert "6 games paired" in text and "no partner in run A, not compared: 3 players" in text
    assert table.loc[table["metric"] == "rounds", "diff"].iloc[0] == pytest.approx(
        table.loc[table["metric"] == "rounds", "value_b"].iloc[0]
        - table.loc[table["metric"] == "rounds", "value_a"].iloc[0]
    )
    # Phoenix adds puzzles: the same seeds deal other decks, so the games are not pairs
    table = cmp.compare(outs["none"], outs["phoenix"])
    assert not table["paired"].any()
    assert "Phoenix adds puzzles" in cmp.compare_text(outs["none"], outs["phoenix"])


def test_runs_of_other_player_counts_are_not_compared(tmp_path: Path) -> None:
    games2 = [G(["a", "a"], [5, 3], [1, 2])] * 4
    games3 = [G(["a", "a", "a"], [5, 3, 1], [1, 2, 3])] * 4
    a, b = _run("A", games2), _run("B", games3)
    assert cmp.compare(a, b).empty
    matched, alone_a, alone_b, _ = cmp.match_configurations(a, b)
    assert matched == [] and alone_a == [0] and alone_b == [0]
    text = cmp.compare_text(a, b)
    assert "no configuration of run B has a partner in run A" in text
    assert "significant" not in text


def test_configurations_are_matched_by_settings_not_position() -> None:
    rng = np.random.default_rng(72)
    deal_length = rng.normal(20, 6, size=20)
    a_games = _games(rng, deal_length, 0.0) + [
        G(g.bots, g.scores, g.ranks, rounds=g.rounds, switches="max_rounds=30")
        for g in _games(rng, deal_length, 0.0)
    ]
    b_games = [
        G(g.bots, g.scores, g.ranks, rounds=g.rounds + 2, switches="max_rounds=30")
        for g in _games(rng, deal_length, 0.0)
    ] + _games(rng, deal_length, 0.0)
    a, b = _run("A", a_games), _run("B", b_games)
    for run, switched in ((a, 1), (b, 0)):  # two configurations each, in opposite orders
        for frame in (run.seats, run.games):
            frame["config_id"] = np.where(frame["switches"] != "default", switched, 1 - switched)
            frame["lineup"] = "a,b"
            frame["seed"] = frame["deal"] = (frame["game_id"] % 40) // 2  # deal d, both configs
    matched, alone_a, alone_b, changed = cmp.match_configurations(a, b)
    assert sorted(matched) == [(0, 1), (1, 0)] and not alone_a and not alone_b and not changed
    table = cmp.compare(a, b)
    rounds = table[table["metric"] == "rounds"].set_index("config_a")
    assert rounds.loc[1, "diff"] == pytest.approx(2, abs=0.3)  # max_rounds=30: +2 in B
    assert rounds.loc[0, "diff"] == pytest.approx(0, abs=0.3)
    assert rounds["paired"].all()
