"""Charts that scale: 48 and 92 configurations keep a sane size, nothing is clipped, legends stay
off the data, rows are sorted by value, and a chart with nothing to show says so."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_util import G, grid_tables, make_tables
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from projectl_sim import analysis as pa
from projectl_sim.analysis import plots

DPI = 100  # the report's


def _figure(drawing) -> Figure:
    return drawing if isinstance(drawing, Figure) else drawing.get_figure(root=True)


def _pixels(drawing) -> tuple[float, float]:
    fig = _figure(drawing)
    return fig.get_figwidth() * DPI, fig.get_figheight() * DPI


def _texts_inside(drawing) -> None:
    """Assert everything drawn (titles, labels, legends) lies on the canvas: nothing clipped."""
    fig = _figure(drawing)
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    drawn = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01
    assert drawn.x1 <= fig.get_figwidth() + 0.01 and drawn.y1 <= fig.get_figheight() + 0.01


def _legends_off_the_data(drawing) -> None:
    """Assert no legend overlaps the plotting area of an Axes."""
    fig = _figure(drawing)
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            if ax.get_visible():
                assert not box.overlaps(ax.get_window_extent(renderer)) or box.x0 >= ax.bbox.x1


@pytest.fixture(scope="module")
def grids() -> dict[int, tuple]:
    rng = np.random.default_rng(48)
    return {
        48: grid_tables(rng, games=20, planted={(3, "finesse"): 0.8}),
        92: grid_tables(rng, games=20, lineups=(("a",), ("a", "b")), drop=4),
    }


@pytest.mark.parametrize("size", [48, 92])
def test_the_seat_advantage_chart_stays_a_sane_size(grids, size: int) -> None:
    seats, _ = grids[size]
    table = pa.seat_advantage(seats, by=["players", "expansions", "lineup"])
    fig = plots.plot_seat_advantage(table)
    width, height = _pixels(fig)
    assert width <= 1100 and height <= 1100  # it was 900 x 3484 for 48 configurations
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == (3 if size == 48 else 6)  # a panel per player count (and line-up)
    rows = [len(ax.get_yticks()) for ax in visible]  # a row per expansion set
    assert max(rows) == 16 and sum(rows) == size
    _texts_inside(fig)
    _legends_off_the_data(fig)


def test_seat_rows_are_sorted_by_the_first_players_share(grids) -> None:
    seats, _ = grids[48]
    fig = plots.plot_seat_advantage(pa.seat_advantage(seats, by=["players", "expansions"]))
    three = fig.axes[1]
    assert three.get_yticklabels()[-1].get_text() == "F"  # the planted 80% on top


def test_distributions_are_small_multiples_not_overlays(grids) -> None:
    _, games = grids[92]
    fig = plots.plot_margins(games, by=["expansions", "lineup", "players"])
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 3  # one per player count, a row per expansion set and line-up
    assert [len(ax.get_yticks()) for ax in visible] == [32, 32, 28]
    assert all(ax.get_legend() is None for ax in visible)  # no legend over the data
    assert _pixels(fig)[1] <= 1000
    _texts_inside(fig)


def test_effects_are_faceted_and_leave_out_metrics_that_never_change(grids) -> None:
    seats, games = grids[92]
    table = pa.effects(seats, games)
    fig = plots.plot_effects(table)
    width, height = _pixels(fig)
    assert width <= 1100 and height <= 1300
    _texts_inside(fig)
    # a line-up where a always beats b: its win rates never change, so they are left out
    always = [
        G(bots, scores, ranks, expansions=e, rounds=10 + 2 * (e == "finesse") + i % 3)
        for i in range(10)
        for e in ("none", "finesse")
        for bots, scores, ranks in ((["a", "b"], [3, 1], [1, 2]), (["b", "a"], [1, 3], [2, 1]))
    ]
    s, g = make_tables(always)
    fig = plots.plot_effects(pa.effects(s, g))
    assert "win_rate of a" in fig.get_suptitle() and "win_rate of b" in fig.get_suptitle()
    titles = [ax.get_title() for ax in fig.axes]
    assert not any("win rate" in t for t in titles)


def test_charts_with_nothing_to_show_say_so() -> None:
    seats, games = make_tables([G(["a", "a"], [3, 1], [1, 2]) for _ in range(5)])
    ax = plots.plot_end_reasons(pa.end_reasons(games))
    assert any(t.get_text() == "all 5 games ended by the rules" for t in ax.texts)
    assert not ax.patches  # no single full bar
    solo, solo_games = make_tables(
        [G(["a"], [3], [2], variant="solo", switches="difficulty=hard", opponent_score=9)] * 3
    )
    ax = plots.plot_solo(pa.solo_by_difficulty(solo, solo_games))
    assert ax.get_title().endswith("\nno wins at any difficulty")  # above the data
    assert any(t.get_text().startswith("0%") for t in ax.texts)  # the zero bar is labelled
    fig = plots.plot_effects(pa.effects(seats, games))
    assert "no expansion set" in fig.axes[0].texts[0].get_text()


def test_unbounded_ratings_are_arrows_not_points() -> None:
    games = [G(["a", "b"], [2, 1], [1, 2]), G(["a", "b"], [1, 2], [2, 1])] * 4
    games += [G(["a", "low"], [2, 1], [1, 2])] * 3
    ax = plots.plot_ratings(pa.plackett_luce(make_tables(games)[0]))
    assert any(t.get_text() == "no wins: unbounded below" for t in ax.texts)
    assert np.isfinite(ax.get_xlim()).all()
    _texts_inside(ax)


def test_bars_and_rows_are_sorted_by_value() -> None:
    games = [
        G(["a", "b", "c"], [9, 5, 1], [1, 2, 3], seat={"actions_place": [10, 10, 10]})
        for _ in range(4)
    ]
    seats, _ = make_tables(games)
    ax = plots.plot_points_per_action(pa.points_per_action(seats, by=["bot"]))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "b", "a"]  # best on top


def test_every_panel_keeps_one_row_order_and_names_its_abbreviations(grids) -> None:
    seats, games = grids[48]
    # GP above base in one panel and below it in the next read as a change that is not there
    fig = plots.plot_seat_advantage(pa.seat_advantage(seats, by=["players", "expansions"]))
    orders = [
        [t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes if ax.get_yticks().size
    ]
    assert len(orders) == 3 and orders[0] == orders[1] == orders[2] and len(set(orders[0])) == 16
    assert orders[0][-1] == "F"  # the planted 80% at 3 players: the best mean share, on top
    key = fig.get_suptitle().splitlines()[-1]  # "F" and "GP" are said once, under the title
    assert "F = finesse" in key and "GP = ghost_piece" in key
    fig = plots.plot_margins(games, by=["expansions", "players"])
    orders = [[t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes if ax.get_visible()]
    assert orders[0] == orders[1] == orders[2] and "F = finesse" in fig.get_suptitle()
    fig = plots.plot_effects(pa.effects(seats, games))
    firsts = [ax for ax in fig.axes if ax.get_ylabel()]  # each row's first panel names its lines
    orders = [[t.get_text() for t in ax.get_yticklabels()] for ax in firsts]
    assert len(orders) == 3 and orders[0] == orders[1] == orders[2]
    assert "AP = ambassador_pack" in fig.get_suptitle()


def _filled(fig) -> int:
    """Return how many effect markers are drawn filled (the rest are hollow: white)."""
    from matplotlib.colors import to_rgba

    return sum(
        len(line.get_xdata())
        for ax in fig.axes
        for line in ax.get_lines()
        if line.get_marker() == "o" and to_rgba(line.get_markerfacecolor()) != to_rgba("white")
    )


def test_effect_markers_show_the_findings_decision_not_the_raw_interval(grids) -> None:
    seats, games = grids[48]
    table = pa.effects(seats, games)
    measured = table["unmeasured_because"].isna() & (table["diff"] != 0)
    assert measured.sum() > 3
    # every interval leaves out 0 (say), but no difference survives the correction: no finding
    raw_only = table.assign(significant=measured, q_value=0.5)
    assert _filled(plots.plot_effects(raw_only)) == 0
    # and the other way round: the findings' q decides what is filled
    found = table.assign(significant=False, q_value=np.where(measured, 0.001, 0.5))
    fig = plots.plot_effects(found)
    assert _filled(fig) > 0
    assert "q < 0.05" in fig.get_suptitle()
