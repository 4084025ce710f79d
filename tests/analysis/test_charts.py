"""Every chart the package draws, rendered and checked for defects (``chart_check``): on a small
run of real games and on tables of 48 and 92 configurations, no text overlaps other text,
leaves the figure or is cut by an axes, no line strikes a label through, no marker is cut by an
axes edge, and no legend sits on the data. Then one test per defect the charts once had.

The small run is played once for the module (a few games); the 48- and 92-configuration runs
are hand-made tables with the runner's schema (``analysis_util.grid_tables``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_util import G, grid_tables, make_tables
from chart_check import defects, render

from projectl_sim import analysis as pa
from projectl_sim.analysis import plots


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> pa.Run:
    from projectl_sim.sim import runner
    from projectl_sim.sim.spec import RunSpec

    out = tmp_path_factory.mktemp("small") / "run"
    spec = RunSpec.from_mapping(
        {
            "bots": ["greedy,random", "greedy,greedy:preset=rush_black"],
            "players": [2, 3],
            "expansions": ["none", "finesse"],
            "games": 2,
            "seed": 5,
            "records": "all",
        }
    )
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    return pa.load_run(out)


@pytest.fixture(scope="module")
def tables(small) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    rng = np.random.default_rng(48)
    return {
        "small": (small.seats, small.games),
        "48": grid_tables(rng, games=20, planted={(3, "finesse"): 0.8}),
        "92": grid_tables(rng, games=20, lineups=(("a",), ("a", "b")), drop=4),
    }


CHARTS = {
    "win_rates": lambda s, g: plots.plot_win_rates(pa.win_rates(s, by=["players", "bot"])),
    "seat_advantage": lambda s, g: plots.plot_seat_advantage(
        pa.seat_advantage(s, by=["players", "expansions", "lineup"])
    ),
    "ratings": lambda s, g: plots.plot_ratings(pa.plackett_luce(s)),
    "head_to_head": lambda s, g: plots.plot_head_to_head(pa.head_to_head_matrix(s)),
    "margins": lambda s, g: plots.plot_margins(g, by=["expansions", "lineup", "players"]),
    "lengths": lambda s, g: plots.plot_lengths(g, by=["expansions", "lineup", "players"]),
    "end_reasons": lambda s, g: plots.plot_end_reasons(
        pa.end_reasons(g, ["players", "expansions"])
    ),
    "scores": lambda s, g: plots.plot_scores(s),
    "effects": lambda s, g: plots.plot_effects(pa.effects(s, g)),
    "puzzles": lambda s, g: plots.plot_puzzles(pa.puzzle_stats(s)),
    "points_per_action": lambda s, g: plots.plot_points_per_action(pa.points_per_action(s)),
    "finishing": lambda s, g: plots.plot_finishing(pa.finishing_touches(s, g)),
    "credits": lambda s, g: plots.plot_credits(pa.credits(s, by=["expansions", "players", "bot"])),
}


@pytest.mark.parametrize("size", ["small", "48", "92"])
@pytest.mark.parametrize("name", sorted(CHARTS))
def test_every_chart_is_drawn_without_defects(tables, name: str, size: str) -> None:
    seats, games = tables[size]
    drawing = CHARTS[name](seats, games)
    assert defects(drawing) == []


# bot specs as long as a user's: the ratings chart must not squash its plot or cut its title,
# the seat chart's panel titles and row names must not run into each other or off the figure
LONG_BOTS = ("mcts:leaf=value,iterations=128,tree=turn,width=0", "greedy:preset=rush_black")


@pytest.fixture(scope="module")
def long_names() -> tuple[pd.DataFrame, pd.DataFrame]:
    lineups = (LONG_BOTS, (LONG_BOTS[1], "random"), (*LONG_BOTS, "random"))
    seats, games = grid_tables(np.random.default_rng(3), games=6, players=(2, 3), lineups=lineups)
    two = seats["expansions"].isin(["none", "ghost_piece"])
    return seats[two], games[games["expansions"].isin(["none", "ghost_piece"])]


@pytest.mark.parametrize("name", ["ratings", "seat_advantage", "head_to_head"])
def test_charts_of_long_bot_names_are_drawn_without_defects(long_names, name: str) -> None:
    drawing = CHARTS[name](*long_names)
    assert defects(drawing) == []
    fig = drawing if name == "seat_advantage" else drawing.get_figure(root=True)
    assert fig.get_size_inches()[0] <= 11.0  # the report's page: 1100 px at 100 dpi


def test_the_ratings_chart_keeps_its_plot_wide_beside_a_long_name(long_names) -> None:
    ax = CHARTS["ratings"](*long_names)
    render(ax)
    assert ax.bbox.width >= 400  # pixels at 100 dpi: the intervals are read, not squashed


def test_the_charts_of_records_puzzles_and_solo_are_drawn_without_defects(small) -> None:
    from projectl_sim.loading import base_catalogue
    from projectl_sim.tiling.atlas import atlas_table, plot_atlas

    atlas = atlas_table(base_catalogue())
    joined = atlas.merge(pa.puzzle_stats(small.seats), left_on="id", right_on="puzzle")
    solo, solo_games = make_tables(
        [
            G(
                ["a"],
                [3],
                [2 - (i % 3 == 0)],
                variant="solo",
                switches=f"difficulty={d}",
                opponent_score=2 + i % 2,
            )
            for d in ("normal", "hard")
            for i in range(7)
        ]
        + [G(["a"], [9], [1], variant="solo", switches="difficulty=easy", opponent_score=1)] * 4
    )
    from projectl_sim.experiments.ladder import plot_ladder_cost

    ladder = pd.DataFrame(
        {
            "bot": ["greedy", "mcts:iterations=50", "mcts:iterations=100", "random", "value"],
            "rating": [0, 120, 180, -400, 60],
            "ci_low": [-30, 80, 130, -500, 20],
            "ci_high": [30, 160, 230, -300, 100],
            "cpu_ms": [0.02, 5, 10, 0.005, 0.5],
        }
    )
    for drawing in (
        plot_ladder_cost(ladder),  # its names overlapped and the error bars struck them
        plots.plot_piece_mix(pa.piece_mix(small.records())),
        plots.plot_puzzle_value(joined),
        plots.plot_solo(pa.solo_by_difficulty(solo, solo_games)),
        plot_atlas(atlas),
    ):
        assert defects(drawing) == []


def test_a_puzzle_check_and_a_tune_chart_are_drawn_without_defects(cat, tmp_path) -> None:
    from projectl_sim.experiments.tune import TuneResult, parse_param, plot_tune
    from projectl_sim.puzzles.drawings import DrawnPuzzle, parse_drawing
    from projectl_sim.puzzles.puzzle_check import check_puzzle, plot_check

    # a black puzzle of 9 cells: several pieces, each in a colour of its own, outlined
    recess = parse_drawing(["###..", "###..", "###..", ".....", "....."])
    check = check_puzzle(cat, DrawnPuzzle("N09", "black", 4, "mono", recess))
    fig = plot_check(check)
    assert defects(fig) == []
    grid = fig.axes[0]
    faces = {tuple(p.get_facecolor()) for p in grid.patches if p.get_facecolor()[:3] != (1, 1, 1)}
    assert len(check.plan) > 1 and len(faces) == len(check.plan)  # one colour per piece placed
    outlines = grid.collections[0].get_segments()
    assert len(outlines) > 12  # more than the outer border of the 3x3 square: pieces outlined
    assert [t.get_text() for t in grid.texts] == [check.piece_ids[p] for p, _ in check.plan]
    # tune's chart: every trial, the confirmed ones, the rulebook's value marked; legend below
    trials = pd.DataFrame(
        {"trial": range(5), "black_deck_2p": range(10, 15), "value": [0.1, 0.05, 0.2, 0.0, 0.15]}
    ).assign(ci_low=lambda t: t["value"] - 0.05, ci_high=lambda t: t["value"] + 0.05, games=50)
    confirmed = pd.DataFrame(
        {"name": ["trial-003", "rulebook"], "black_deck_2p": [13, 12], "value": [0.01, 0.02]}
    ).assign(ci_low=0.0, ci_high=0.08, diff=0.0, diff_low=-0.05, diff_high=0.05, games=200)
    result = TuneResult(
        tmp_path,
        "seat_advantage",
        (parse_param("black_deck_2p=10..14"),),
        trials,
        confirmed,
        1,
        2,
        rulebook={"black_deck_2p": 12},
    )
    fig = plot_tune(result)
    assert defects(fig) == []
    ax = fig.axes[0]
    marked = [line for line in ax.get_lines() if line.get_label() == "the rulebook's value"]
    assert len(marked) == 1 and list(marked[0].get_xdata()) == [12, 12]
    assert "the rulebook's, confirmed" in [t.get_text() for t in fig.legends[0].get_texts()]


def test_effect_panels_share_their_scale_and_name_each_metric_once(tables) -> None:
    seats, games = tables["48"]
    fig = plots.plot_effects(pa.effects(seats, games))
    grid = np.array(fig.axes).reshape(3, -1)  # a row per player count
    for column in grid.T:  # the same x scale down a column: intervals compare by width
        assert len({tuple(np.round(ax.get_xlim(), 9)) for ax in column}) == 1
    assert all(ax.get_title() for ax in grid[0]) and not any(
        ax.get_title() for ax in grid[1:].ravel()
    )
    assert [ax.get_ylabel() for ax in grid[:, 0]] == ["2 players", "3 players", "4 players"]


def test_a_trial_chart_keeps_one_unit_per_axis(small) -> None:
    from projectl_sim.analysis.trial import TrialReport, plot_trial

    effects = pd.DataFrame(
        {
            "metric": ["first_player_rate", "margin", "rounds", "win_rate"],
            "bot": [None, None, None, "greedy"],
            "kind": ["rate", "mean", "mean", "rate"],
            "diff": [0.02, 1.5, -0.4, 0.0],
            "ci_low": [-0.05, 0.2, -1.0, -0.1],
            "ci_high": [0.09, 2.8, 0.2, 0.1],
            "significant": [False, True, False, False],
            "detected": [False, True, False, False],
        }
    )
    fig = plot_trial(TrialReport("N01", "W25", pd.DataFrame(), None, effects, pd.DataFrame(), 40))
    assert defects(fig) == []
    units = [ax.get_xlabel() for ax in fig.axes]
    assert units == ["difference (percentage points)", "difference (points)", "difference (rounds)"]
    assert [len(ax.get_yticks()) for ax in fig.axes] == [2, 1, 1]  # both rates in points


def test_a_trial_chart_marks_the_findings_decision() -> None:
    from matplotlib.colors import to_hex

    from projectl_sim.analysis.trial import TrialReport, plot_trial

    # the margin's interval leaves out 0, but the difference is no finding after the correction
    effects = pd.DataFrame(
        {
            "metric": ["margin", "rounds"],
            "bot": [None, None],
            "kind": ["mean", "mean"],
            "diff": [1.5, -0.4],
            "ci_low": [0.2, -1.0],
            "ci_high": [2.8, 0.2],
            "significant": [True, False],
            "detected": [False, True],
        }
    )
    fig = plot_trial(TrialReport("N01", "W25", pd.DataFrame(), None, effects, pd.DataFrame(), 40))
    colours = [to_hex(ax.get_lines()[0].get_color()) for ax in fig.axes]
    assert colours == ["#1f77b4", "#d62728"]  # red: the finding, not the raw interval
    assert "q < 0.05" in fig.get_suptitle() or "q < 0.05" in fig.axes[0].get_title()


def test_the_atlas_has_no_margin_and_readable_labels(tmp_path) -> None:
    from PIL import Image

    from projectl_sim.loading import base_catalogue
    from projectl_sim.tiling.atlas import atlas_table, write_atlas

    png = write_atlas(atlas_table(base_catalogue()), tmp_path)[2]
    picture = np.asarray(Image.open(png).convert("L"))
    inked = np.argwhere(picture < 250)
    (top, left), (bottom, right) = inked.min(axis=0), inked.max(axis=0) + 1
    height, width = picture.shape
    # the drawing fills the picture: it was 30% margin
    assert (bottom - top) * (right - left) / (height * width) > 0.9
    from projectl_sim.tiling.atlas import plot_atlas

    ax = plot_atlas(atlas_table(base_catalogue()))
    sizes = {t.get_fontsize() for t in ax.texts}
    assert min(sizes) * 100 / 72 >= 9  # pixels at the PNG's 100 dpi (they were 5 pt at 150)


def test_report_tables_read_as_words_and_plain_numbers(small) -> None:
    import re

    from projectl_sim.analysis.report import _table, build_report

    frame = pd.DataFrame(
        {"q_value": [2.71e-19, 0.2], "ci_low": [0.000012, 1.5], "games_needed": [3, 4]}
    )
    html = _table(frame)
    assert "e-" not in html and "&lt;0.001" in html and "0.200" in html
    assert re.findall(r"<th>([^<]*)</th>", html) == ["q (BH)", "95% low", "games needed"]
    page = build_report(small)
    headers = re.findall(r"<th>([^<]*)</th>", page)
    assert headers and not [h for h in headers if "_" in h]  # no snake_case header
    assert not re.search(r"\d\.?\d*e[-+]\d\d", page.split("<img")[0])  # no 2.71e-19


def test_a_round_robin_report_leads_with_the_ranking_and_orders_the_matrix_by_it() -> None:
    import re

    from projectl_sim.analysis.data import Run
    from projectl_sim.analysis.report import build_report

    # c beats b beats a, every game; names alphabetical the other way round
    games = []
    for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
        for _ in range(4):
            games += [G([x, y], [1, 3], [2, 1]), G([y, x], [3, 1], [1, 2])]
    seats, tables_games = make_tables(games)
    run = Run(Path("rr"), seats, tables_games, {"config": {"round_robin": ["a", "b", "c"]}})
    page = build_report(run)
    headings = re.findall(r"<h2>(.*?)</h2>", page)
    assert headings.index("Ratings and head to head") < headings.index(
        "Seat advantage per configuration"
    )
    ax = plots.plot_head_to_head(pa.head_to_head_matrix(seats))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "b", "a"]  # strongest first
    assert "dark:" not in plots.plot_puzzles(pa.puzzle_stats(seats)).get_title()
