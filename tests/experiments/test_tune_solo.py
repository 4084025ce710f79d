"""tools/tune_solo.py: the two-objective search's front and a whole (tiny) run."""

from __future__ import annotations

import subprocess
import sys

import optuna
from paths import ROOT

TOOLS = ROOT / "tools"
sys.path.insert(0, str(TOOLS))
from tune_solo import along_front  # noqa: E402


def front(points: list[tuple[float, float]]) -> list[optuna.trial.FrozenTrial]:
    dist = {"x": optuna.distributions.FloatDistribution(0.0, 1.0)}
    return [
        optuna.trial.create_trial(values=[win, score], params={"x": 0.5}, distributions=dist)
        for win, score in points
    ]


def test_the_front_is_read_from_the_most_points_to_the_most_wins() -> None:
    # (win rate, score) of a front: more wins, fewer points
    trials = front([(0.08, 15.0), (0.03, 19.0), (0.05, 18.0), (0.06, 17.0), (0.04, 18.5)])
    scores = [t.values[1] for t in along_front(trials, 3)]
    assert scores == [19.0, 18.0, 15.0]  # both ends and the middle
    assert [t.values[1] for t in along_front(trials, 9)] == [19.0, 18.5, 18.0, 17.0, 15.0]
    assert [t.values[1] for t in along_front(trials, 1)] == [19.0]


def test_a_two_objective_search_validates_its_front() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(TOOLS / "tune_solo.py"),
            "--objective",
            "both",
            "--trials",
            "3",
            "--games",
            "3",
            "--validate",
            "3",
            "--top",
            "2",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert "objective both" in out[0]
    assert out[1].startswith("defaults") and out[1].endswith(" greedy")
    best = [line for line in out if line.startswith("best ")]
    assert 1 <= len(best) <= 2
    assert all("    3 games  wins" in line and "greedy:deny=" in line for line in best)
