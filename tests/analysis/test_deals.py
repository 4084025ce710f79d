"""How much the deal decides: deal replicates in the runner, the variance share and its known
answers (a mirrored toy the deal does not decide, a planted deal that decides the game), the seed
metrics, and the ``deals`` command's records."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from paths import TESTS

import projectl_sim.experiments  # noqa: F401  (declares the deal_replicates setting)
from projectl_sim.analysis.data import load_run
from projectl_sim.analysis.deals import (
    DEAL_COLUMNS,
    deal_lines,
    deal_variance,
    icc_oneway,
    lopsided_deals,
)
from projectl_sim.cli import main
from projectl_sim.sim import runner
from projectl_sim.sim.spec import RunSpec, plan

BOTS = str(TESTS / "deal_bots.py")
QUIET = runner.RunOptions(jobs=1, quiet=True)


def _run(tmp_path: Path, name: str, **spec: object) -> Path:
    result = runner.run(RunSpec.from_mapping(spec), tmp_path / name, options=QUIET)
    assert result.failed == 0
    return result.out


def test_icc_of_mirrored_toy_is_near_zero() -> None:
    # every deal: two seatings x 3 replicates, the bot wins exactly at seat 0: 50% every deal
    deals = np.repeat(np.arange(40), 6)
    y = np.tile([1.0, 0.0], 120)
    icc, _, high, between, within = icc_oneway(y, deals, rng=np.random.default_rng(1))
    assert icc < 0 and between == 0.0 and within > 0.2
    assert high < 0.05


def test_icc_of_planted_deals_is_high_and_interval_covers_it() -> None:
    rng = np.random.default_rng(2)
    deals = np.repeat(np.arange(30), 4)
    decided = np.repeat(rng.integers(0, 2, 30), 4).astype(float)
    noise = rng.random(len(deals)) < 0.05  # one game in twenty goes the other way
    y = np.where(noise, 1 - decided, decided)
    icc, low, high, _, _ = icc_oneway(y, deals, rng=np.random.default_rng(3))
    assert 0.7 < icc <= 1 and low <= icc <= high and low > 0.5
    # the same data, the same interval (seeded)
    assert icc_oneway(y, deals, rng=np.random.default_rng(3))[1:3] == (low, high)


def test_replicates_keep_the_deal_and_vary_the_bots_seeds() -> None:
    spec = RunSpec.from_mapping({"bots": "random,setter", "games": 12, "deal_replicates": 3})
    configs, tasks = plan(spec, 5)
    (config,) = configs
    assert config.per_deal == 6 and len(tasks) == 12
    first = [t for t in tasks if t.deal == 0]
    assert {t.seed for t in first} == {first[0].seed}
    assert sorted((t.replicate, t.rotation) for t in first) == [
        (r, s) for r in range(3) for s in (0, 1)
    ]
    # the same deals as the run without replicates: deal d has the same seed
    _, plain = plan(RunSpec.from_mapping({"bots": "random,setter", "games": 4}), 5)
    assert plain[0].seed == first[0].seed and plain[2].seed == tasks[6].seed


def test_a_replicate_is_the_same_deal_played_otherwise(tmp_path: Path) -> None:
    out = _run(tmp_path, "r", bots="random", players=2, games=8, seed=3, deal_replicates=4)
    run = load_run(out)
    games = run.games
    assert list(games["replicate"]) == [0, 1, 2, 3] * 2
    assert games["seed"].nunique() == 2
    # one deal, four plays: the same cards, other decisions (random bots, other seeds)
    deal0 = games[games["deal"] == 0]
    assert deal0["decisions"].nunique() > 1 or deal0["winners"].nunique() > 1

    def moves(game_id: int) -> tuple[list[dict[str, object]], object]:
        record, _, _ = runner.record_from_run(out, game_id)
        return [{k: v for k, v in a.items() if k != "seconds"} for a in record["actions"]], record[
            "setup"
        ]

    (one, setup1), (again, _), (zero, setup0) = moves(1), moves(1), moves(0)
    assert one == again  # a replicate replays move for move
    assert setup1 == setup0 and one != zero  # the same cards, played otherwise


def test_replicated_runs_agree_for_any_jobs_and_grow_like_fresh_ones(tmp_path: Path) -> None:
    spec = {"bots": "random,setter", "games": 8, "seed": 11, "deal_replicates": 2}
    one = _run(tmp_path, "one", **spec)
    two = runner.run(
        RunSpec.from_mapping(spec), tmp_path / "two", options=runner.RunOptions(jobs=2, quiet=True)
    ).out
    grown = _run(tmp_path, "grown", **(spec | {"games": 4}))
    runner.run(RunSpec.from_mapping(spec), grown, resume=True, options=QUIET)
    cols = ["game_id", "seed", "deal", "rotation", "replicate", "winners", "decisions"]
    a, b = load_run(one).games[cols], load_run(two).games[cols]
    pd.testing.assert_frame_equal(a, b)
    g = load_run(grown).games.sort_values(["deal", "replicate", "rotation"])
    f = load_run(one).games.sort_values(["deal", "replicate", "rotation"])
    assert list(g["winners"]) == list(f["winners"]) and list(g["seed"]) == list(f["seed"])


def test_planted_deal_decides_and_mirrored_toy_does_not(tmp_path: Path) -> None:
    planted = _run(
        tmp_path,
        "planted",
        bots=f"{BOTS}:PlantedBot:side=0,{BOTS}:PlantedBot:side=1",
        games=32,
        seed=7,
        deal_replicates=2,
    )
    run = load_run(planted)
    table = deal_variance(run.seats, run.games, resamples=400)
    bot = table[table["outcome"].str.startswith("bot:")].iloc[0]
    assert bot["deals"] == 8 and bot["per_deal"] == 4 and bot["mirrored"]
    assert bot["share"] > 0.7 and bot["ci_low"] > 0.4
    assert bot["decided"] >= 0.75 and bot["entropy"] < 0.4
    seated = _run(
        tmp_path,
        "seated",
        bots=f"{BOTS}:SeatedBot,{BOTS}:SeatedBot:tag=1",
        games=32,
        seed=7,
        deal_replicates=2,
    )
    run = load_run(seated)
    table = deal_variance(run.seats, run.games, resamples=400)
    bot = table[table["outcome"].str.startswith("bot:")].iloc[0]
    assert bot["share"] < 0.15 and bot["ci_high"] < 0.35
    assert bot["span"] <= 0.5 and bot["outliers"] == 0


def test_deals_command_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    code = main(
        [
            "run",
            "--bots",
            "random,setter",
            "--games",
            "16",
            "--seed",
            "4",
            "--deal-replicates",
            "2",
            "--out",
            str(out),
            "--jobs",
            "1",
            "--quiet",
        ]
    )
    assert code == 0
    capsys.readouterr()
    assert main(["summary", str(out)]) == 0
    assert "== How much the deal decides ==" in capsys.readouterr().out
    assert main(["deals", str(out), "--top", "2", "--write", "1"]) == 0
    text = capsys.readouterr().out
    assert "most lopsided deals" in text and "records written" in text
    records = sorted((out / "deals").glob("game-*.json"))
    assert records and (out / "deals" / "deals.csv").exists()
    run = load_run(out)
    lop = lopsided_deals(run.seats, run.games, top=2)
    first = lop[lop["config_id"] == 0].iloc[0]
    ids = [int(g) for g in first["game_ids"].split()]
    assert len(ids) == 4 and all(out / "deals" / f"game-{i:08d}.json" in records for i in ids)
    assert main(["view", str(records[0]), "-o", str(tmp_path / "v.html")]) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--deal-replicates", "0"], "--deal-replicates 0"),
        (["--bots", "tier,random"], "'tier' stands for each tier's bot"),
    ],
)
def test_bad_replicates_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    base = ["run", "--games", "2", "--out", str(tmp_path / "x"), "--quiet"]
    if "--bots" not in args:
        base += ["--bots", "random,setter"]
    assert main([*base, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_deals_command_refuses_a_run_of_single_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(tmp_path, "single", bots="random", players=2, games=4, seed=1)
    assert main(["deals", str(out)]) == 2
    assert "--deal-replicates" in capsys.readouterr().err


def _deal_row(outcome: str, **figures: float) -> dict[str, object]:
    """One row of ``deal_variance``'s table: 50 deals of 8 games, the figures given."""
    row: dict[str, object] = dict.fromkeys(DEAL_COLUMNS, 0.0)
    row |= {"config_id": 0, "players": 2, "variant": "standard", "expansions": "none"}
    row |= {"switches": "", "lineup": "greedy,random", "tier": None, "outcome": outcome}
    row |= {"deals": 50, "games": 400, "per_deal": 8.0, "mirrored": True, "outliers": 0}
    return row | {"entropy": 1.0} | figures


def test_a_share_without_spread_is_never_shown_as_an_exact_interval() -> None:
    table = pd.DataFrame(
        [
            # every deal's rate 50%: the seatings fix it, no variance between deals
            _deal_row("first_player", rate=0.56, share_raw=-0.14, span=0.0),
            # below 0 in every resample: clipped, it would read 0% [0, 0]
            _deal_row("bot:greedy", rate=0.9, share_raw=-0.05, span=0.25, trimmed_span=0.2),
        ],
        columns=DEAL_COLUMNS,
    )
    text = " ".join(" ".join(deal_lines(table)).split())  # the prose unwrapped
    assert "[0, 0]" not in text and "+-0 points" not in text, text
    assert "none: deals alike" in text and "no interval exists" in text
    assert "0% (below 0)" in text and "whole 95% bootstrap interval" in text
    assert "no share has an interval" in text
    # a share with a spread keeps its interval, sized in the closing line
    table.loc[1, ["share", "share_raw", "ci_low", "ci_high"]] = [0.3, 0.3, 0.1, 0.5]
    text = " ".join(" ".join(deal_lines(table)).split())
    assert "30% [10, 50]" in text and "+-20 points" in text and "none: deals alike" in text


def test_deal_findings_are_what_the_deal_section_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    from projectl_sim.analysis import findings

    table = pd.DataFrame(
        [
            _deal_row("first_player", rate=0.56, share_raw=-0.14, span=0.0),
            _deal_row(
                "bot:greedy", rate=0.9, share=0.3, share_raw=0.3, ci_low=0.1, ci_high=0.5, span=0.2
            ),
        ],
        columns=DEAL_COLUMNS,
    )
    rows = findings.deal_findings(table)
    assert [r.question for r in rows] == ["deal", "deal"]
    assert rows[0].unmeasured_because and rows[0].verdict == "none: deals alike"
    assert (rows[1].estimate, rows[1].ci_low, rows[1].ci_high) == (0.3, 0.1, 0.5)
    lines = {
        line.split()[2]: line
        for line in deal_lines(table)
        if "  first_player" in line or "  bot:" in line
    }
    assert "30% [10, 50]" in lines["bot:greedy"] and "none: deals alike" in lines["first_player"]
    # the rows said otherwise: the section prints them as they are, deciding nothing itself
    rows[1] = replace(rows[1], verdict="the rows' words", ci_low=0.25, ci_high=0.35)
    monkeypatch.setattr(findings, "deal_findings", lambda _: rows)
    text = " ".join(" ".join(deal_lines(table)).split())
    assert "the rows' words" in text and "30% [10, 50]" not in text and "+-5 points" in text
