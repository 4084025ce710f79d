"""benchmarks/decisions.py's bot list: a spec's own comma-separated parameters stay with it, and
an unknown bot is one line naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from script_util import load_script, run_main

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "decisions.py"


def test_a_spec_with_parameters_is_one_bot(capsys: Any, monkeypatch: Any) -> None:
    decisions = load_script(SCRIPT, "bench_decisions")
    played: list[str] = []

    def cell(spec: str, *rest: Any) -> tuple[list[float], bool, list[int]]:
        played.append(spec)
        return [0.001], True, []

    monkeypatch.setattr(decisions, "play_cell", cell)
    argv = ["--bots", "mcts:leaf=value,deepen=16,iterations=8,greedy", "--variants", "solo"]
    argv += ["--expansions", "base", "--games", "1", "--mcts-games", "1", "--jobs", "1"]
    _, out, _ = run_main(decisions, SCRIPT, capsys, *argv, "--seed", "1")
    assert played == ["mcts:leaf=value,deepen=16,iterations=8", "greedy"]
    assert "bots mcts:leaf=value,deepen=16,iterations=8 greedy" in out


def test_an_unknown_bot_is_one_line(capsys: Any) -> None:
    decisions = load_script(SCRIPT, "bench_decisions")
    with pytest.raises(SystemExit) as exit_:
        run_main(decisions, SCRIPT, capsys, "--bots", "greedy,nosuch", "--variants", "solo")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "nosuch" in err and "Traceback" not in err
