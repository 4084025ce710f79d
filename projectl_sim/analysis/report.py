"""One self-contained HTML page of a run: its summary tables and charts, images embedded.

Every chart is a PNG embedded as a base64 ``data:`` URI and every table is plain HTML, so the page
opens in any browser with no other file. The bootstrap of the ratings is seeded from the run's
root seed: the same run gives the same page.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg

from projectl_sim.analysis import balance as bal  # the module (the function is balance_table)
from projectl_sim.analysis import plots, ratings, stats, strategy
from projectl_sim.analysis.data import Run, load_run
from projectl_sim.errors import UsageError

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; display: block; margin: 0.8em 0; }
p.note { color: #555; font-size: 0.9em; }
"""


def png_data_uri(ax: Axes, dpi: int = 100) -> str:
    """Return the figure of ``ax`` as a ``data:image/png;base64,...`` URI."""
    figure = ax.get_figure(root=True)
    if not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, dpi=dpi, format="png")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _table(frame: pd.DataFrame, digits: int = 3) -> str:
    def fmt(v: float) -> str:
        return f"{v:.{digits}g}" if abs(v) < 10**digits else f"{v:.0f}"

    return frame.to_html(index=False, float_format=fmt, na_rep="", border=0, escape=True)


class _Page:
    def __init__(self, title: str) -> None:
        self.parts = [f"<h1>{html.escape(title)}</h1>"]

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{html.escape(text)}</h2>")

    def note(self, text: str) -> None:
        self.parts.append(f'<p class="note">{html.escape(text)}</p>')

    def table(self, frame: pd.DataFrame) -> None:
        self.parts.append(_table(frame))

    def chart(self, draw: Callable[[], Axes], alt: str) -> None:
        self.parts.append(f'<img alt="{html.escape(alt)}" src="{png_data_uri(draw())}">')

    def render(self, title: str) -> str:
        body = "\n".join(self.parts)
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n"
        )


def _overview(run: Run) -> pd.DataFrame:
    m = run.manifest
    git = m.get("git") or {}
    items = {
        "run id": m.get("run_id"),
        "status": m.get("status"),
        "root seed": m.get("root_seed"),
        "configurations": len(m.get("configs", [])),
        "games planned": m.get("games_planned"),
        "games in the tables": len(run.games),
        "failed games": int(run.games["error"].notna().sum()),
        "started": m.get("started"),
        "finished": m.get("finished"),
        "commit": (git.get("commit", "")[:12] + (" (local changes)" if git.get("dirty") else ""))
        if git
        else None,
    }
    return pd.DataFrame({"": list(items), "value": [str(v) for v in items.values()]})


_BALANCE_SHOWN = [
    "games",
    "first_player_rate",
    "seat_advantage",
    "margin_mean",
    "close_share",
    "rounds_mean",
    "turns_mean",
    "truncated_share",
    "score_mean",
]


def build_report(run: Run) -> str:
    """Return the HTML page of a run's tables and charts."""
    seats, games = run.seats, run.games
    title = f"projectl-sim run {run.manifest.get('run_id', run.path.name)}"
    page = _Page(title)
    page.table(_overview(run))
    if games.empty or games["error"].notna().all():
        page.note("No finished game in this run: nothing to summarise.")
        return page.render(title)
    multi = seats[seats["players"] > 1]

    page.heading("Win rates")
    page.note("Win rate counts a k-way shared win as 1/k; intervals are Wilson 95% intervals.")
    by_bot = stats.win_rates(seats, ["players", "variant", "bot"])
    page.table(by_bot)
    page.chart(lambda: plots.plot_win_rates(by_bot, labels=["players", "variant", "bot"]), "win")

    if not multi.empty:
        page.heading("Seat advantage")
        page.note(
            "Share of the wins of each turn order (0 = first player) against 1/N; p is Pearson's "
            "chi-square test of equal shares."
        )
        seat = stats.seat_advantage(seats)
        page.table(seat)
        page.chart(lambda: plots.plot_seat_advantage(seat), "seat advantage")

    page.heading("Balance by configuration")
    balance = bal.balance_table(seats, games)
    keys = [c for c in bal.CONFIG if balance[c].nunique() > 1] or ["players"]
    page.table(balance[[*keys, *_BALANCE_SHOWN]])
    page.chart(lambda: plots.plot_margins(games), "margins")
    page.chart(lambda: plots.plot_lengths(games), "lengths")
    reasons = bal.end_reasons(games, keys)
    page.chart(lambda: plots.plot_end_reasons(reasons), "end reasons")
    page.chart(lambda: plots.plot_scores(seats), "scores")

    rated = ratings.bradley_terry(
        seats, rng=np.random.default_rng(int(run.manifest.get("root_seed") or 0)), n_boot=200
    )
    if not rated.empty:
        page.heading("Ratings and head to head")
        page.note(
            "Bradley-Terry fit by maximum likelihood on the pairwise matches of every game "
            "(ties count half); 95% intervals from 200 bootstrap resamples of games."
        )
        page.table(rated)
        page.chart(lambda: plots.plot_ratings(rated), "ratings")
        matrix = ratings.head_to_head_matrix(seats)
        page.chart(lambda: plots.plot_head_to_head(matrix), "head to head")
        ladder = ratings.skill_ladder(seats)
        if not ladder.empty:
            page.heading("Skill ladder")
            page.table(ladder)
            page.chart(lambda: plots.plot_ladder(ladder), "ladder")

    effects = bal.expansion_effects(seats, games)
    if not effects.empty:
        page.heading("Expansion effects")
        page.note("Difference against the base game; significant: the 95% interval leaves out 0.")
        page.table(effects)
        page.chart(lambda: plots.plot_expansion_effects(effects), "expansion effects")

    page.heading("Strategy")
    ppa = strategy.points_per_action(seats)
    page.table(ppa)
    page.chart(lambda: plots.plot_points_per_action(ppa), "points per action")
    ft = strategy.finishing_touches(seats, games)
    page.table(ft)
    page.chart(lambda: plots.plot_finishing(ft), "finishing touches")
    puzzles = strategy.puzzle_stats(seats)
    if not puzzles.empty:
        page.chart(lambda: plots.plot_puzzles(puzzles), "puzzles")
    mix = strategy.piece_mix(run.records())
    if not mix.empty:
        page.chart(lambda: plots.plot_piece_mix(mix), "piece mix")

    solo = strategy.solo_by_difficulty(seats, games)
    if not solo.empty:
        page.heading("Solo")
        page.table(solo)
        page.chart(lambda: plots.plot_solo(solo), "solo")
    credit = strategy.credits(seats)
    if not credit.empty:
        page.heading("Credits (Finesse)")
        page.table(credit)
        page.chart(lambda: plots.plot_credits(credit), "credits")
    return page.render(title)


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the HTML report of a run (default ``RUN/report.html``) and return its path."""
    run = load_run(run_dir)
    path = Path(out) if out is not None else run.path / "report.html"
    text = build_report(run)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    return path
