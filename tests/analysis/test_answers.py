"""The summary text leads with the answers and stays readable for 48 and 92 configurations."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from analysis_util import grid_tables

from projectl_sim.analysis.answers import WIDTH, summary_text
from projectl_sim.analysis.data import ANSWER_COLUMNS, Run, load_run
from projectl_sim.cli import main
from projectl_sim.sim import runner, tables
from projectl_sim.sim import spec as run_spec

SECTIONS = [
    "== Seat advantage per configuration ==",
    "== Expansion and rules-switch effects against the base game ==",
    "== Ratings (Plackett-Luce on every game's order of finish) ==",
    "== Head to head, per pair and player count ==",
    "== Time per decision ==",
    "== Win-rate tables ==",
    "== Every effect (long table) ==",
]


@pytest.fixture(scope="module")
def grid92() -> str:
    # 3 player counts x 16 expansion sets x 2 line-ups, less 4: 92 configurations; at 3 players
    # Finesse makes the first player win 90% of games
    seats, games = grid_tables(
        np.random.default_rng(92),
        games=100,
        lineups=(("a",), ("a", "b")),
        drop=4,
        planted={(3, "finesse"): 0.9},
    )
    return summary_text(Run(Path("grid92"), seats, games, {}))


def test_the_answers_come_first_and_the_long_tables_last(grid92: str) -> None:
    text = grid92
    at = [text.index(s) for s in SECTIONS]
    assert at == sorted(at)
    assert text.startswith("9200 games, 0 failed")
    assert "92 configurations" in text.splitlines()[0]
    assert "expansion sets abbreviated: GP = ghost_piece" in text


def test_a_planted_effect_is_flagged_and_survives_the_many_comparisons(grid92: str) -> None:
    text = grid92
    effects = text[text.index(SECTIONS[1]) : text.index(SECTIONS[2])]
    flagged = effects[effects.index("flagged differences") :].splitlines()[2:4]
    assert all("3p" in line and "F vs base" in line for line in flagged)
    assert all("first_player_rate" in line or "win_rate a" in line for line in flagged)
    assert "<0.001" in flagged[0]  # q, after Benjamini-Hochberg over every row
    seat = text[text.index(SECTIONS[0]) : text.index(SECTIONS[1])]
    block = seat[seat.index("3 players, standard, line-up a...") :].splitlines()
    assert block[2].split()[0] == "F"  # sorted by the first player's share: Finesse on top


def test_92_configurations_stay_readable(grid92: str) -> None:
    lines = grid92.splitlines()
    assert max(len(line) for line in lines) <= WIDTH + 10  # prose wraps at WIDTH
    # one row per configuration in the seat section, grouped in blocks of 16
    seat = lines[lines.index(SECTIONS[0]) : lines.index(SECTIONS[1])]
    assert sum(re.match(r"^  \S+ +\d+ +\d+%", line) is not None for line in seat) == 92
    # the line-up a,b never rotates (a always moves first): its seats are not tested
    assert sum(" chi2 " in line for line in seat) == 48
    assert "a line-up of different bots seated unevenly across the turn orders" in grid92
    assert sum(line.endswith("):") for line in seat) == 6


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("answers") / "run"
    spec = run_spec.RunSpec.from_mapping(
        {
            "bots": ["greedy,random"],
            "players": [2],
            "expansions": ["none", "phoenix"],
            "games": 12,
            "seed": 5,
        }
    )
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    return out


def test_summary_command_prints_the_answers_of_a_real_run(
    mixed_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["summary", str(mixed_run)]) == 0
    out = capsys.readouterr().out
    for section in SECTIONS:
        assert section in out
    assert "phoenix" not in out.split(SECTIONS[0])[1].split(SECTIONS[1])[0] or "Ph" in out
    ratings = out[out.index(SECTIONS[2]) : out.index(SECTIONS[3])]
    assert "random" in ratings and "greedy" in ratings
    # greedy beats random in (almost) every game: no finite rating is invented for either
    if "no wins: unbounded below" in ratings:
        assert "-inf" in ratings
    assert "CPU seconds per decision" in out  # the runner writes decision_cpu_mean
    assert "2p  greedy  random" in out  # head to head, the stronger first


def test_a_grown_run_reports_its_precision(mixed_run: Path, tmp_path: Path) -> None:
    manifest = json.loads((mixed_run / tables.MANIFEST).read_text())
    manifest["precision"] = {"width": 0.9, "quantities": ["first_player"], "max_games": 12}
    copy = tmp_path / "grown"
    copy.mkdir()
    for name in ("seats.parquet", "games.parquet"):
        (copy / name).write_bytes((mixed_run / name).read_bytes())
    (copy / tables.MANIFEST).write_text(json.dumps(manifest))
    text = summary_text(copy)
    assert "== Precision on demand ==" in text
    assert "maximum of 12 games per configuration reached" in text


def test_the_summary_reads_only_its_columns_and_prints_what_the_whole_tables_give(
    tmp_path: Path,
) -> None:
    # Finesse's games carry provisional data, which the header names from a games column
    out = tmp_path / "run"
    spec = run_spec.RunSpec.from_mapping(
        {
            "bots": ["greedy,random", "random,random"],
            "players": [2],
            "expansions": ["none", "finesse"],
            "games": 10,
            "seed": 8,
        }
    )
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    read = load_run(out, ANSWER_COLUMNS)
    whole = load_run(out)
    assert set(read.seats.columns) < set(whole.seats.columns)  # the tallies stay on disk
    assert set(read.games.columns) < set(whole.games.columns)
    text = summary_text(out)
    assert text == summary_text(whole)
    assert "provisional data in" in text and "(column provisional_sets)" in text


def test_a_head_to_head_matrix_shows_complementary_percentages() -> None:
    import pandas as pd

    from projectl_sim.analysis.answers import _h2h_matrix

    pairs = pd.DataFrame(
        {
            "bot": ["a", "b", "a", "c"],
            "opponent": ["b", "a", "c", "a"],
            "rate": [0.575, 0.425, 0.125, 0.875],  # 57.5 and 12.5: halves, in floating point
        }
    )
    lines = _h2h_matrix(pairs, ["a", "b", "c"])
    cells = {line.split()[1]: line.split()[2:] for line in lines[1:]}
    assert cells["a"] == ["-", "58%", "13%"]
    assert cells["b"] == ["42%", "-"]  # b never met c: an empty cell
    assert cells["c"] == ["87%", "-"]


@pytest.mark.parametrize(
    ("settings", "counted"),
    [
        ({"bots": ["random"], "players": [2], "games": 40, "seed": 5}, True),
        ({"bots": ["random"], "players": [3], "games": 30, "seed": 6}, True),
        # two configurations, neither the other's base game; a provisional set's column
        ({"bots": ["random"], "players": [2, 3], "expansions": ["finesse"], "games": 16}, True),
        # an effect and a pair: their games are paired across the table, read whole
        (
            {"bots": ["random"], "players": [2], "expansions": ["none", "phoenix"], "games": 8},
            False,
        ),
        ({"bots": ["greedy,random"], "players": [2], "games": 8, "seed": 8}, False),
    ],
)
def test_the_summary_counted_window_by_window_prints_what_the_whole_tables_give(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: dict, counted: bool
) -> None:
    from projectl_sim.analysis import answers, streamed

    out = tmp_path / "run"
    spec = run_spec.RunSpec.from_mapping(settings | {"seed": settings.get("seed", 4)})
    runner.run(spec, out, options=runner.RunOptions(jobs=2, quiet=True))
    whole = answers.summary_of(answers.whole_details(load_run(out, ANSWER_COLUMNS)))
    # windows of a few games: a deal's rows held over to the next window, the rounds and games
    # handed out beside the seats
    monkeypatch.setattr(tables, "WINDOW_GAMES", 3)
    monkeypatch.setattr(tables, "WINDOW_CELLS", 500)
    seen = []
    scan = tables.scan
    monkeypatch.setattr(tables, "scan", lambda *a, **k: (seen.append(a[1]), scan(*a, **k))[1])
    details = streamed.streamed_details(out)
    assert (details is not None) == counted
    if not counted:
        return
    assert seen.count("seats") == 1 and seen.count("rounds") == 1
    windows = list(streamed.windows(out, {}))
    assert len(windows) > 4
    assert sum(len(s) for s, _, _ in windows) == len(load_run(out).seats)
    assert sum(len(g) for _, g, _ in windows) == len(load_run(out).games)
    for seats, games, rounds in windows:  # a deal, and a game's rows, in one window
        assert set(seats["game_id"]) == set(games["game_id"]) >= set(rounds["game_id"])
    text = answers.summary_of(details)
    assert text == whole
    assert summary_text(out) == whole  # the folder goes the counted way
    assert answers.verdicts_text(out) == answers.verdicts_text(load_run(out, ANSWER_COLUMNS))
