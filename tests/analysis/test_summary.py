"""Win rates and their Wilson intervals, shared wins, failed games, and the summary command."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from projectl_sim.analysis.answers import summary_text
from projectl_sim.analysis.outcomes import win_rates
from projectl_sim.analysis.stats import wilson
from projectl_sim.cli import main
from projectl_sim.sim import runner, summary, tables
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(np.array([0, 5, 10, 81]), np.array([10, 10, 10, 263]))
    np.testing.assert_allclose(low, [0.0, 0.2366, 0.7225, 0.2553], atol=1e-4)
    np.testing.assert_allclose(high, [0.2775, 0.7634, 1.0, 0.3662], atol=1e-4)


def _seats(rows: list[tuple[int, int, str, int, bool | None, float | None]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["game_id", "seat", "bot", "score", "won", "win_share"])
    frame["players"] = 2
    frame["turn_order"] = frame["seat"]
    frame["error"] = [None if w is not None else "bot x (seat 0) raised" for w in frame["won"]]
    frame["config_id"] = 0
    for column, value in [("lineup", "a,b"), ("variant", "standard"), ("expansions", "none")]:
        frame[column] = value
    frame["switches"] = "default"
    return frame


def test_a_shared_win_counts_one_over_k_and_failed_games_are_left_out() -> None:
    seats = _seats(
        [
            (0, 0, "a", 9, True, 1.0),
            (0, 1, "b", 3, False, 0.0),
            (1, 0, "b", 5, True, 0.5),
            (1, 1, "a", 5, True, 0.5),
            (2, 0, "a", 0, None, None),  # a failed game: no result
            (2, 1, "b", 0, None, None),
        ]
    )
    rates = win_rates(seats, ["bot"]).set_index("bot")
    assert rates.loc["a", "played"] == 2 and rates.loc["a", "win_rate"] == 0.75
    assert rates.loc["b", "win_rate"] == 0.25
    assert rates["win_rate"].sum() == 1.0
    assert rates.loc["a", "ci_low"] < 0.75 < rates.loc["a", "ci_high"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("summary") / "run"
    spec = RunSpec.from_mapping(
        {"bots": ["random"], "players": [2, 3], "games": 8, "seed": 2, "rules": {}}
    )
    runner.run(spec, out, options=RunOptions(jobs=1, quiet=True))
    return out


def test_summary_prints_rates_by_bot_turn_order_and_configuration(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("16 games, 0 failed")
    for title in ("by bot", "by turn order", "by configuration", "win rate [95% CI]"):
        assert title in out
    # the answers time each bot's decisions by the CPU column the runner writes
    assert "== Time per decision ==" in out and "CPU seconds per decision" in out
    assert "variant standard, expansions none, switches default" in out
    assert "provisional data" not in out  # the base game's data is real


def test_summary_names_the_provisional_data_a_run_used(tmp_path: Path) -> None:
    out = tmp_path / "prov"
    spec = RunSpec.from_mapping(
        {"bots": ["random"], "players": [2], "expansions": "none,phoenix", "games": 2, "seed": 1}
    )
    runner.run(spec, out, options=RunOptions(jobs=1, quiet=True))
    text = summary_text(out)
    assert "provisional data in 2 of 4 games: phoenix (column provisional_sets)" in text


def test_summary_reads_a_run_that_is_still_in_parts(run_dir: Path, tmp_path: Path) -> None:
    # A killed run has only its part files: they read as the same tables.
    seats = tables.read_table(run_dir, "seats")
    games = tables.read_table(run_dir, "games")
    copy = tmp_path / "parts-only"
    copy.mkdir()
    (copy / tables.MANIFEST).write_text((run_dir / tables.MANIFEST).read_text())
    tables.write_part(copy, 0, seats.slice(0, 10).to_pylist(), games.slice(0, 4).to_pylist())
    seats_frame, games_frame = summary.read_run(copy)
    assert len(games_frame) == 4 and len(seats_frame) == 10
    assert summary_text(copy).startswith("4 games, 0 failed")


def test_summary_of_a_missing_run_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("projectl-sim: error:") and err.count("\n") == 1
