"""The command line: play, replay, bots, one-line errors for user mistakes, and what a run says
at its end (its answers, then next commands that work)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from projectl_sim.cli import _commands, build_parser, main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "projectl_sim", *args], capture_output=True, text=True, timeout=120
    )


def test_play_prints_a_summary_and_writes_a_replayable_record(tmp_path: Path) -> None:
    rec = tmp_path / "g.json"
    out = run("play", "--seed", "7", "--bots", "random,random", "--record", str(rec), "--show")
    assert out.returncode == 0, out.stderr
    assert "seed 7, 2 players" in out.stdout
    assert "winners:" in out.stdout
    assert "white row" in out.stdout  # --show drew the table
    assert f"record written to {rec}" in out.stdout  # where the README says: the path given
    record = json.loads(rec.read_text())
    assert record["format"] == "projectl-record/1"
    assert record["seats"] == ["random", "random"]
    again = run("replay", str(rec), "--json")
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["valid"] is True
    assert summary["phase"] == "over"
    assert [p["score"] for p in summary["players"]] == record["result"]["scores"]
    assert summary["winners"] == record["result"]["winners"]


def test_play_without_record_writes_none_and_says_how_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["play", "--seed", "7", "--bots", "random,random"]) == 0
    said = capsys.readouterr()
    assert "record written" not in said.out
    assert said.err == "no record written: --record FILE writes one to replay\n"
    assert list(tmp_path.iterdir()) == []  # nothing left behind where it ran
    assert main(["play", "--seed", "7", "--bots", "random,random", "--json"]) == 0
    assert capsys.readouterr().err == ""  # JSON for programs: no hint
    # one pipe for both streams: the hint is the last line, after the board
    both = subprocess.run(
        [sys.executable, "-m", "projectl_sim", "play", "--seed", "7", "--show"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    lines = both.stdout.splitlines()
    assert lines[-1] == "no record written: --record FILE writes one to replay"
    assert any(line.startswith("winners:") for line in lines[:-1])


def test_play_reads_a_bots_parameters_after_commas_as_run_does(capsys) -> None:
    # "greedy:risk=0.5,reward=0.2" is one seat; each comma-separated name starts another
    line = "greedy:risk=0.5,reward=0.2,random"
    assert main(["play", "--seed", "3", "--bots", line, "--json"]) == 0
    seats = json.loads(capsys.readouterr().out)["seats"]
    assert len(seats) == 2 and seats[1] == "random"
    assert seats[0].startswith("greedy") and "risk=0.5" in seats[0] and "reward=0.2" in seats[0]


def test_play_is_deterministic_for_a_seed(capsys) -> None:
    assert main(["play", "--seed", "11", "--bots", "random", "--players", "3", "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["play", "--seed", "11", "--bots", "random", "--players", "3", "--json"]) == 0
    assert capsys.readouterr().out == first
    assert json.loads(first)["seats"] == ["random"] * 3


def test_the_script_gives_numpy_one_blas_thread_unless_the_user_set_a_count(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import projectl_sim_launch

    for name in projectl_sim_launch.ONE_THREAD:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # the user's
    monkeypatch.setattr(sys, "argv", ["projectl-sim", "bots"])
    assert projectl_sim_launch.main() == 0
    assert "greedy" in capsys.readouterr().out
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1" and os.environ["MKL_NUM_THREADS"] == "1"
    assert os.environ["OMP_NUM_THREADS"] == "3"


def test_unknown_bot_is_one_line_exit_2(capsys) -> None:
    assert main(["play", "--seed", "1", "--bots", "random,genius"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("projectl-sim: error: unknown bot 'genius' (valid: ")
    assert "greedy" in err and "random" in err and err.count("\n") == 0


def test_bad_player_count_is_explained(capsys) -> None:
    assert main(["play", "--seed", "1", "--bots", "random", "--players", "5"]) == 2
    assert "Line Clear" in capsys.readouterr().err
    assert main(["play", "--seed", "1", "--bots", "random", "--players", "1"]) == 2
    assert "solo" in capsys.readouterr().err


def test_replay_of_malformed_json_exits_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "projectl-record/1", ')
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("projectl-sim: error: record") and "malformed JSON" in err
    assert err.count("\n") == 1


def test_replay_of_missing_file_exits_2(tmp_path: Path, capsys) -> None:
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_catalogue_option_rejects_a_bad_file(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "cat.json"
    bad.write_text(json.dumps({"pieces": {"mono": {"level": 1, "cells": [[0, 0]]}},
                               "puzzles": [{"id": "Z1", "colour": "white", "points": 1,
                                            "reward": "mono", "rows": ["#"] * 5}]}))  # fmt: skip
    assert main(["play", "--seed", "1", "--catalogue", str(bad)]) == 2
    assert "puzzle Z1: row 0" in capsys.readouterr().err


def test_rule_switch_is_recorded(tmp_path: Path) -> None:
    rec = tmp_path / "g.json"
    assert (
        main(["play", "--seed", "3", "--rule", "unfinished_penalty=false", "--record", str(rec)])
        == 0
    )
    assert json.loads(rec.read_text())["rules"]["unfinished_penalty"] is False
    assert main(["replay", str(rec)]) == 0


def test_bots_lists_every_bot_with_its_parameters(capsys) -> None:
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    for name in ("random:", "greedy:", "preset='balanced'"):
        assert name in out


def test_bots_says_each_bots_rating_and_cost_from_the_ladder(capsys) -> None:
    from bots.measured import MEASURED, rating_text

    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    assert "greedy = 0" in out.splitlines()[0]  # the scale's anchor, named once
    blocks = {b.split(":")[0]: b for b in re.split(r"\n(?=\w)", out)}
    for row in MEASURED:
        line = f"  strength: {row.spec} {rating_text(row)}; cost {row.cpu_ms:.3g} ms a decision"
        assert line in blocks[row.spec.split(":")[0]].splitlines(), row.spec
    assert "+188 [+142, +236]" in blocks["value"] and "never won" in blocks["random"]
    assert "on the previous ladder" in blocks["mcts"]  # the width=2 tree, rated by the last one


def test_a_run_says_when_games_are_rounded_to_whole_seatings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    grid = ["run", "--bots", "greedy,random", "--players", "3", "--games", "4", "--jobs", "1"]
    assert main([*grid, "--seed", "1", "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("note: --games 4"))
    assert "6 games (2 deals x 3 seatings) in its configuration" in line
    assert len(pd.read_parquet(tmp_path / "r" / "games.parquet")) == 6  # as it says
    assert main([*grid, "--seed", "1", "--out", str(tmp_path / "q"), "--quiet"]) == 0
    assert "note:" not in capsys.readouterr().err
    assert (
        main(
            [
                "run",
                "--bots",
                "greedy,random",
                "--players",
                "2",
                "--games",
                "4",
                "--jobs",
                "1",
                "--seed",
                "1",
                "--out",
                str(tmp_path / "even"),
            ]
        )
        == 0
    )
    assert "note:" not in capsys.readouterr().err  # 2 deals x 2 seatings: nothing rounded


def test_a_long_run_estimates_its_time_and_offers_fewer_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bots.measured import estimate_seconds
    from projectl_sim.cli import run as cli_run
    from projectl_sim.sim import spec as run_spec

    spec = run_spec.RunSpec.from_mapping({"bots": ["mcts,greedy"], "games": 400, "seed": 1})
    (line,) = cli_run.start_notes(spec, 2)
    said = re.fullmatch(
        r"estimate: about (\d+) min for 400 games on 2 worker\(s\), from the "
        r"bots' measured CPU a decision; a first look in about (\d+) s: the "
        r"same command with --games (\d+)",
        line,
    )
    assert said is not None, line
    seconds, _ = estimate_seconds([("mcts", "greedy")], [400], 2)
    assert int(said.group(1)) == round(seconds / 60) and seconds > 60
    fewer = int(said.group(3))
    assert fewer % 2 == 0 and 0 < fewer < 400  # whole deals of both seatings
    assert estimate_seconds([("mcts", "greedy")], [fewer], 2)[0] < 60  # smaller indeed
    small = run_spec.RunSpec.from_mapping({"bots": ["greedy,random"], "games": 40, "seed": 1})
    assert cli_run.start_notes(small, 2) == []  # a short run says nothing
    # through the command line: the line before the run starts, none in --quiet
    monkeypatch.setattr(cli_run, "ESTIMATE_SECONDS", 0.0)
    grid = ["run", "--bots", "greedy,random", "--games", "2", "--jobs", "1", "--seed", "1"]
    assert main([*grid, "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("estimate: about ") and err[1].startswith("running run ")
    assert main([*grid, "--out", str(tmp_path / "q"), "--quiet"]) == 0
    assert "estimate:" not in capsys.readouterr().err


@pytest.mark.parametrize("args", [["play", "--seed", "x"], ["replay"]])
def test_argparse_errors_exit_2(args: list[str]) -> None:
    assert run(*args).returncode == 2


def test_a_run_ends_with_its_answers_then_next_commands_that_each_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from projectl_sim.analysis.answers import summary_text

    monkeypatch.chdir(tmp_path)
    grid = ["run", "--bots", "greedy,random", "--players", "2", "--games", "4", "--jobs", "1"]
    assert main([*grid, "--seed", "9", "--out", "r/first"]) == 0
    captured = capsys.readouterr()
    assert captured.out == summary_text("r/first") + "\n"  # the answers, as summary prints them
    assert captured.out.index("== Seat advantage") < captured.out.index("== Time per decision")
    lines = captured.err[captured.err.index("next:\n") :].splitlines()[1:]
    commands = [shlex.split(line.split("  # ")[0]) for line in lines]
    assert all(c[0] == "projectl-sim" for c in commands)
    assert [c[1] for c in commands] == ["summary", "report", "run", "compare", "view", "run"]
    # OTHER, made as its line says: this grid with the run's seed and another rule
    seed = re.search(r"--seed (\d+)", lines[3])
    assert seed is not None and seed.group(1) == "9"
    rule = ["--rule", "tie_break=later_in_turn_order"]
    assert main([*grid, "--seed", seed.group(1), *rule, "--out", "r/other", "--quiet"]) == 0
    small = {  # the long ones made small; the last flag given wins
        "--until-precision": ["--max-games", "8", "--jobs", "1", "--quiet"],
        "--round-robin": ["--games", "2", "--out", "r/rr", "--jobs", "1", "--quiet"],
    }
    for command in commands:
        argv = ["r/other" if a == "OTHER" else a for a in command[1:]]
        argv += next((extra for flag, extra in small.items() if flag in argv), [])
        capsys.readouterr()
        assert main(argv) == 0, argv
        said = capsys.readouterr()
        assert "error" not in said.err, argv
        if argv[0] == "compare":
            assert "paired on shared deals" in said.out
    assert Path("r/first/report.html").is_file()
    # a round robin's own end leaves out the round robin it would suggest
    capsys.readouterr()
    rr = ["run", "--round-robin", "greedy,random", "--games", "2", "--out", "r/rr2", "--jobs", "1"]
    assert main(rr) == 0
    assert "--round-robin" not in capsys.readouterr().err.split("next:")[1]


def test_help_lists_every_command_with_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    listed = {m.group(1): m.group(2) for m in re.finditer(r"^    ([\w-]+) +(\S.*)$", text, re.M)}
    assert {"play", "replay", "bots", "run", "summary", "compare", "report", "fill"} <= set(listed)
    assert set(listed) == set(_commands(build_parser()))  # every one registered, none more
    assert listed["compare"].startswith("compare two runs")
    assert "answers" in listed["summary"]


def _loaded_by(argv: list[str], modules: tuple[str, ...]) -> list[str]:
    """Return which of ``modules`` a fresh process has loaded after ``main(argv)`` (exit 0)."""
    code = (
        "import contextlib, io, json, sys\n"
        "from projectl_sim.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
        f"print(json.dumps(sorted(m for m in {modules!r} if m in sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out)


def test_the_command_line_starts_without_pandas_or_scipy() -> None:
    # a command that reads no table builds every subcommand's parser without loading them
    assert _loaded_by(["bots"], ("pandas", "scipy", "matplotlib")) == []


def test_summary_reads_a_run_without_scipy_stats_or_matplotlib(tmp_path: Path) -> None:
    # importing scipy.stats costs a second of CPU at every start of summary; it is imported only
    # by the few answers that need it (deals' binomial tests, conclusions' tests); scipy.optimize
    # (a quarter second) only by a summary with ratings to fit
    out = tmp_path / "run"
    run = ["run", "--bots", "greedy,random", "--games", "2", "--seed", "1", "--jobs", "1"]
    assert main([*run, "--out", str(out), "--quiet"]) == 0
    heavy = ("scipy.stats", "scipy.optimize", "matplotlib")
    assert _loaded_by(["summary", str(out)], heavy) == []
    assert _loaded_by(["summary", str(out)], ("pandas",)) == ["pandas"]  # it did read the run
    # a round robin's ratings are fitted (profile likelihood intervals): it loads the optimizer
    rr = tmp_path / "rr"
    robin = ["run", "--round-robin", "greedy,rusher,builder", "--games", "8", "--seed", "1"]
    assert main([*robin, "--jobs", "1", "--out", str(rr), "--quiet"]) == 0
    assert _loaded_by(["summary", str(rr)], heavy) == ["scipy.optimize"]
