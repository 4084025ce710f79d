"""The command line: play, replay, bots, and one-line errors for user mistakes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from projectl_sim.cli import main


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


def test_play_is_deterministic_for_a_seed(capsys) -> None:
    assert main(["play", "--seed", "11", "--bots", "random", "--players", "3", "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["play", "--seed", "11", "--bots", "random", "--players", "3", "--json"]) == 0
    assert capsys.readouterr().out == first
    assert json.loads(first)["seats"] == ["random"] * 3


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


@pytest.mark.parametrize("args", [["play", "--seed", "x"], ["replay"]])
def test_argparse_errors_exit_2(args: list[str]) -> None:
    assert run(*args).returncode == 2
