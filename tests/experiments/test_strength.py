"""``benchmarks/strength.py`` beyond two players: one bot A against B in every other seat, scored
rank against rank; the solo mode's paired deals; the pooling of runs of one pair."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from paths import ROOT
from script_util import load_script, run_main

SCRIPT = ROOT / "benchmarks" / "strength.py"


@pytest.fixture(scope="module")
def strength() -> Any:
    return load_script(SCRIPT, "bench_strength")


def _main(strength: Any, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[Any, str, str]:
    return run_main(strength, SCRIPT, capsys, *argv)


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory, strength: Any) -> Path:
    """A 3-player run of greedy (A) against two random seats: 2 deals, 3 seatings each."""
    out = tmp_path_factory.mktemp("three")
    spec = {
        "bots": ["greedy,random,random"],
        "players": [3],
        "games": 6,
        "seed": 4,
        "tables": "core",
    }
    from projectl_sim.sim.runner import RunOptions

    strength._play(spec, out / "00", RunOptions(jobs=1, quiet=True))
    return out / "00"


def test_a_seat_is_scored_against_each_b_seat_by_rank(strength: Any, three: Path) -> None:
    seats = pd.read_parquet(three / "seats.parquet")
    # every deal seats A once in each seat
    a = seats[seats["bot_spec"] == "greedy"]
    assert sorted(a.groupby("deal")["seat"].apply(sorted).tolist()) == [[0, 1, 2], [0, 1, 2]]
    per_deal: dict[int, list[float]] = {}
    for _, game in seats.groupby("game_id"):
        mine = game[game["bot_spec"] == "greedy"]["rank"].item()
        others = game[game["bot_spec"] != "greedy"]["rank"].tolist()
        score = sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in others) / 2
        per_deal.setdefault(int(game["deal"].iloc[0]), []).append(score)
    expected = sum(sum(v) / len(v) for v in per_deal.values()) / len(per_deal)
    result = strength._score([three])
    assert result["games"] == 6 and result["deals"] == 2
    assert result["setting"] == "3p standard none"
    assert result["share"] == pytest.approx(expected)
    assert result["win_share"] == pytest.approx(a["win_share"].mean())
    assert result["ms_a"] > result["ms_b"] > 0  # greedy searches, random does not


def test_a_stopped_run_keeps_its_full_deals_only(
    strength: Any, three: Path, tmp_path: Path
) -> None:
    stopped = tmp_path / "stopped"
    (stopped / "parts" / "seats").mkdir(parents=True)
    (stopped / "manifest.json").write_bytes((three / "manifest.json").read_bytes())
    seats = pd.read_parquet(three / "seats.parquet")
    cut = seats[seats["game_id"] != seats["game_id"].max()]  # one deal lacks a seating
    cut.to_parquet(stopped / "parts" / "seats" / "0.parquet")
    result = strength._score([stopped])
    assert result["deals"] == 1 and result["games"] == 3


def test_pool_reads_runs_and_refuses_two_settings(
    strength: Any, three: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _main(strength, capsys, "--pool", str(three), "--pair", "greedy", "random")
    assert code == 0 and " 3p standard none       6 " in out
    two = tmp_path / "two"
    code, out, _ = _main(
        strength,
        capsys,
        "--out",
        str(two),
        "--games",
        "2",
        "--seed",
        "4",
        "--pair",
        "greedy",
        "random",
    )
    assert code == 0 and "2p standard none" in out
    code, _, err = _main(
        strength, capsys, "--pool", str(three), str(two / "00"), "--pair", "greedy", "random"
    )
    assert code == 2 and err.count("\n") == 1 and "different settings" in err


def test_solo_pairs_the_bots_by_deal(
    strength: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _main(
        strength,
        capsys,
        "--out",
        str(tmp_path),
        "--games",
        "3",
        "--seed",
        "4",
        "--solo",
        "greedy",
        "random",
    )
    assert code == 0 and "solo (normal), 3 deals" in out
    seats = pd.read_parquet(tmp_path / "solo" / "seats.parquet")
    by = seats.pivot(index="deal", columns="bot_spec", values="score")
    result = strength._solo([tmp_path / "solo"])
    assert result["points_diff"][0] == pytest.approx((by["greedy"] - by["random"]).mean())
    assert result["points_a"] == pytest.approx(by["greedy"].mean())
    # the CPU a game: the seat's decisions' CPU over its games (the ms a decision times them)
    rows = seats[seats["bot_spec"] == "greedy"]
    cpu = (rows["decision_cpu_mean"] * rows["decisions"]).sum()
    assert result["s_a"] == pytest.approx(cpu / 3) and result["s_a"] > 0
    assert f"{result['s_a']:.2f} s/game" in out


def test_bad_setting_is_one_line(
    strength: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _main(
        strength,
        capsys,
        "--out",
        str(tmp_path),
        "--games",
        "2",
        "--expansions",
        "nosuch",
        "--pair",
        "greedy",
        "random",
    )
    assert code == 2 and err.count("\n") == 1 and "nosuch" in err


def test_an_interrupted_match_is_one_line_naming_how_to_finish(
    strength: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from projectl_sim.errors import RunInterrupted
    from projectl_sim.sim import runner

    def stopped(*args: Any, **kwargs: Any) -> Any:
        raise RunInterrupted(f"interrupted: 3/8 games saved in {tmp_path}; finish with: X")

    monkeypatch.setattr(runner, "run", stopped)
    code, _, err = _main(
        strength, capsys, "--out", str(tmp_path), "--games", "8", "--pair", "greedy", "random"
    )
    assert code == 2 and err.count("\n") == 1
    assert "3/8 games saved" in err and "same command again" in err and "X" not in err


def test_a_rules_switch_is_played_and_named(
    strength: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the Endless White Deck is a switch, not an expansion name
    code, out, _ = _main(
        strength,
        capsys,
        "--out",
        str(tmp_path),
        "--games",
        "2",
        "--seed",
        "4",
        "--rule",
        "endless_white_deck=true",
        "--pair",
        "greedy",
        "random",
    )
    assert code == 0 and "2p standard none endless_white_deck=True" in out
    seats = pd.read_parquet(tmp_path / "00" / "seats.parquet")
    assert set(seats["switches"]) == {"endless_white_deck=true"}


def test_an_expansion_the_spec_would_drop_is_refused(
    strength: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _main(
        strength,
        capsys,
        "--out",
        str(tmp_path),
        "--games",
        "2",
        "--expansions",
        "endless",
        "--pair",
        "greedy",
        "random",
    )
    assert code == 2 and err.count("\n") == 1 and "endless_white_deck=true" in err
    assert not (tmp_path / "00").exists()  # nothing played


def test_solo_finds_a_spec_with_parameters_by_its_line_up(
    strength: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot's ``bot`` column is its name (``greedy``), its line-up the spec as given."""
    code, out, _ = _main(
        strength,
        capsys,
        "--out",
        str(tmp_path),
        "--games",
        "2",
        "--solo",
        "greedy:deny=0.5",
        "random",
    )
    assert code == 0 and "solo (normal), 2 deals" in out
    assert strength._solo([tmp_path / "solo"])["deals"] == 2


def test_solo_pools_two_runs_of_the_same_deals_and_pairs_their_bots(
    strength: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bots played in two runs of one seed pair by deal (the mastermind's points too); runs of
    another seed, or a bot no run played, are refused in one line."""
    for name, seed, bots in (
        ("a", "4", ("greedy", "random")),
        ("b", "4", ("greedy:deny=0.5", "greedy")),
        ("c", "5", ("random", "greedy")),
    ):
        code, _, _ = _main(
            strength,
            capsys,
            "--out",
            str(tmp_path / name),
            "--games",
            "3",
            "--seed",
            seed,
            "--solo",
            *bots,
        )
        assert code == 0
    runs = [str(tmp_path / "a" / "solo"), str(tmp_path / "b" / "solo")]
    code, out, _ = _main(strength, capsys, "--solo", "greedy:deny=0.5", "random", "--pool", *runs)
    assert code == 0 and "solo (normal), 3 deals" in out
    seats = pd.concat(pd.read_parquet(Path(r) / "seats.parquet") for r in runs)
    games = pd.concat(pd.read_parquet(Path(r) / "games.parquet").assign(run=r) for r in runs)
    seats = seats.merge(games[["run_id", "game_id", "opponent_score"]], on=["run_id", "game_id"])
    by = seats.drop_duplicates(["deal", "lineup"]).pivot(
        index="deal", columns="lineup", values="score"
    )
    mm = seats.drop_duplicates(["deal", "lineup"]).pivot(
        index="deal", columns="lineup", values="opponent_score"
    )
    result = strength._solo([Path(r) for r in runs], ("greedy:deny=0.5", "random"))
    assert result["points_diff"][0] == pytest.approx((by["greedy:deny=0.5"] - by["random"]).mean())
    assert result["mastermind_diff"][0] == pytest.approx(
        (mm["greedy:deny=0.5"] - mm["random"]).mean()
    )
    assert result["mastermind_b"] > result["mastermind_a"]  # random feeds the mastermind
    code, _, err = _main(
        strength,
        capsys,
        "--solo",
        "greedy",
        "random",
        "--pool",
        runs[0],
        str(tmp_path / "c" / "solo"),
    )
    assert code == 0  # both bots are in the first run: the other is not read for them
    code, _, err = _main(
        strength,
        capsys,
        "--solo",
        "greedy:deny=0.5",
        "random",
        "--pool",
        runs[1],
        str(tmp_path / "c" / "solo"),
    )
    assert code == 2 and err.count("\n") == 1 and "different games" in err
    code, _, err = _main(strength, capsys, "--solo", "mcts", "random", "--pool", *runs)
    assert code == 2 and err.count("\n") == 1 and "no run played 'mcts'" in err


def test_ladder_fits_the_runs_games_jointly_and_refuses_an_unrated_anchor(
    strength: Any, three: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _main(strength, capsys, "--ladder", str(three), str(three))
    assert code == 0 and out.startswith("ratings: Elo, greedy = 0")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:]}
    # the same run twice: its 6 games counted once from each run, not merged by their game ids
    assert rows["greedy"][-2] == rows["random"][-2] == "12"
    assert float(rows["greedy"][-1]) > float(rows["random"][-1]) > 0  # CPU a decision beside
    code, _, err = _main(strength, capsys, "--ladder", str(three), "--anchor", "value")
    assert code == 2 and err.count("\n") == 1 and "'value' is not a rated bot" in err


def test_converge_compares_budgets_with_the_references(
    strength: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    template = "mcts:leaf=value,tree=turn,iterations={it}"
    code, out, _ = _main(
        strength,
        capsys,
        "--converge",
        template,
        "--budgets",
        "4,8",
        "--games",
        "2",
        "--reference",
        "2",
        "--seed",
        "5",
    )
    assert code == 0
    head, *rest = out.splitlines()
    decisions = int(head.split(": ")[1].split()[0])
    assert decisions >= 1 and "reference 2 worlds each" in head
    assert any("the same choice at 4 and 8" in line for line in rest)
    # each budget against each reference (its own depth, one turn deeper), a share in [0, 100]
    picks = [line for line in rest if "picks its best" in line]
    assert len(picks) == 4
    for line in picks:
        share = float(line.split("picks its best")[1].split("%")[0])
        assert 0.0 <= share <= 100.0


def test_converge_refuses_a_reference_of_one_world(
    strength: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        _main(
            strength,
            capsys,
            "--converge",
            "mcts:leaf=value,tree=turn,iterations={it}",
            "--budgets",
            "4,8",
            "--reference",
            "1",
        )
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.splitlines()[-1].endswith("--reference must be at least 2")
