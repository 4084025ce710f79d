"""Charts of the analysis tables: each takes a table and an optional ``ax`` and returns the Axes.

Without ``ax`` a chart draws on a new ``matplotlib.figure.Figure`` (not pyplot: no global figure
or style is touched). An empty table gives an Axes that says there is nothing to show, so a
notebook or report always has its chart. ``save`` writes an Axes' figure as PNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

_GREY = "#888888"


def new_axes(width: float = 6.4, height: float = 4.0) -> Axes:
    """Return the Axes of a new figure (outside pyplot)."""
    return Figure(figsize=(width, height), layout="constrained").add_subplot()


def _axes(ax: Axes | None, width: float = 6.4, height: float = 4.0) -> Axes:
    return new_axes(width, height) if ax is None else ax


def _empty(ax: Axes, title: str, why: str = "no data in this run") -> Axes:
    ax.set_title(title)
    ax.text(0.5, 0.5, why, ha="center", va="center", color=_GREY, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def save(ax: Axes, path: str | Path, dpi: int = 120) -> Path:
    """Write the figure of ``ax`` as a PNG file (folders created) and return its path."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure = ax.get_figure(root=True)
    if figure.canvas is None or not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    figure.savefig(path, dpi=dpi, format="png")
    return path


def _labels(table: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    shown = [c for c in columns if c in table and table[c].nunique() > 1] or list(columns[-1:])
    return [" | ".join(str(v) for v in row) for row in table[shown].itertuples(index=False)]


def _errors(value: np.ndarray, low: pd.Series, high: pd.Series) -> np.ndarray:
    """Return the (2, n) error bar lengths of intervals around values (nan and rounding: 0)."""
    err = np.vstack([value - low.to_numpy(dtype=float), high.to_numpy(dtype=float) - value])
    return np.clip(np.nan_to_num(err), 0, None)


def _interval_bars(
    ax: Axes, y: np.ndarray, value: pd.Series, low: pd.Series, high: pd.Series, **kw: object
) -> None:
    v = value.to_numpy(dtype=float)
    ax.errorbar(v, y, xerr=_errors(v, low, high), fmt="o", capsize=3, **kw)


def plot_win_rates(
    table: pd.DataFrame,
    ax: Axes | None = None,
    labels: Sequence[str] = ("players", "bot"),
    title: str = "Win rate (95% Wilson interval)",
) -> Axes:
    """Draw win rates with their intervals, one line per row of a ``win_rates`` table."""
    ax = _axes(ax, 6.4, 0.8 + 0.35 * max(len(table), 1))
    if table.empty:
        return _empty(ax, title)
    y = np.arange(len(table))[::-1]
    _interval_bars(ax, y, table["win_rate"], table["ci_low"], table["ci_high"], color="C0")
    ax.set_yticks(y, _labels(table, labels))
    ax.set_xlim(0, 1)
    ax.set_xlabel("win rate (a k-way shared win counts 1/k)")
    ax.set_title(title)
    return ax


def plot_seat_advantage(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw each turn order's share of wins per group (a ``seat_advantage`` table) against 1/N.

    One band per group (its labels on the left, the p-value of "every turn order wins 1/N" on
    the right), one bar per turn order inside it, so that many groups (expansion combinations x
    player counts) stay readable.
    """
    title = "Share of wins by turn order (95% interval; dashes: 1/N)"
    if table.empty:
        return _empty(_axes(ax), title)
    from projectl_sim.analysis.stats import SEAT_ADVANTAGE_COLUMNS

    by = [c for c in table.columns if c not in SEAT_ADVANTAGE_COLUMNS]
    groups = list(table.groupby(by, sort=True))
    bars = sum(len(rows) for _, rows in groups)
    ax = _axes(ax, 7.5, 1.2 + 0.16 * bars + 0.1 * len(groups))
    names, centres = [], []
    y = 0.0
    for key, rows in groups:
        players = int(rows["players"].iloc[0])
        key = key if isinstance(key, tuple) else (key,)
        parts = zip(by, key, strict=True)
        names.append(" | ".join(f"{v} {k}" if k == "players" else str(v) for k, v in parts))
        order = rows["turn_order"].to_numpy()
        ys = y + order
        share = rows["share"].to_numpy(dtype=float)
        ax.barh(ys, share, 0.8, color=[f"C{int(t)}" for t in order])
        err = _errors(share, rows["ci_low"], rows["ci_high"])
        ax.errorbar(share, ys, xerr=err, fmt="none", ecolor="black", capsize=2, lw=1)
        ax.vlines(1 / players, y - 0.5, y + players - 0.5, colors="black", linestyles="dashed")
        p = rows["p_value"].iloc[0]
        if not np.isnan(p):
            ax.text(1.0, y + (players - 1) / 2, f" p = {p:.3g}", va="center", fontsize=7)
        centres.append(y + (players - 1) / 2)
        y += players + 0.8
    ax.set_yticks(centres, names, fontsize=7)
    ax.invert_yaxis()  # the first group on top, turn order 0 first within it
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of wins (bars top to bottom: turn order 0 = first player, 1, ...)")
    ax.set_title(title)
    return ax


def plot_ratings(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw Bradley-Terry ratings (Elo scale) with their bootstrap intervals, best on top."""
    ax = _axes(ax, 6.4, 0.8 + 0.4 * max(len(table), 1))
    title = "Bradley-Terry rating (Elo scale, 95% bootstrap interval)"
    if table.empty:
        return _empty(ax, title, "no games between different bots")
    y = np.arange(len(table))[::-1]
    _interval_bars(ax, y, table["rating"], table["ci_low"], table["ci_high"], color="C2")
    ax.axvline(0, color=_GREY, lw=0.8)
    ax.set_yticks(y, table["bot"])
    ax.set_xlabel("rating (400 points = 10:1 odds)")
    ax.set_title(title)
    return ax


def plot_head_to_head(matrix: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw the head-to-head matrix: how often the row bot beat the column bot."""
    n = len(matrix)
    ax = _axes(ax, 2.5 + 0.9 * max(n, 1), 2 + 0.7 * max(n, 1))
    title = "Head to head: row bot's match win rate"
    if matrix.empty:
        return _empty(ax, title, "no games between different bots")
    values = matrix.to_numpy(dtype=float)
    image = ax.imshow(values, cmap="RdBu", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if not np.isnan(values[i, j]):
                colour = "white" if abs(values[i, j] - 0.5) > 0.3 else "black"
                ax.text(
                    j, i, f"{values[i, j]:.2f}", ha="center", va="center", fontsize=8, color=colour
                )
    ax.set_xticks(range(n), matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(n), matrix.index)
    ax.figure.colorbar(image, ax=ax, shrink=0.8)
    ax.set_title(title)
    return ax


def plot_ladder(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw the skill ladder: the doubled budget's win rate at each step, against 50%."""
    ax = _axes(ax)
    title = "Skill ladder: win rate of the doubled budget"
    if table.empty:
        return _empty(ax, title, "no ladder games (line-ups bot:N vs bot:2N)")
    x = table["high"].to_numpy(dtype=float)
    rate = table["win_rate"].to_numpy(dtype=float)
    err = _errors(rate, table["ci_low"], table["ci_high"])
    ax.errorbar(x, rate, yerr=err, fmt="o-", capsize=3, color="C3")
    ax.axhline(0.5, color=_GREY, lw=0.8, ls="--")
    ax.set_xscale("log", base=2)
    ax.set_xticks(x, [f"{lo:g} vs {hi:g}" for lo, hi in zip(table["low"], x, strict=True)])
    ax.set_ylim(0, 1)
    ax.set_xlabel(f"{table['bot'].iloc[0]} {table['param'].iloc[0]}: budget vs its double")
    ax.set_ylabel("win rate of the larger budget")
    ax.set_title(title)
    return ax


def _hist_by(
    ax: Axes, table: pd.DataFrame, column: str, by: str | Sequence[str], bins: np.ndarray
) -> None:
    keys = [by] if isinstance(by, str) else list(by)
    for i, (key, group) in enumerate(table.groupby(keys, sort=True)):
        values = group[column].dropna().to_numpy(dtype=float)
        weights = np.full(len(values), 1 / max(len(values), 1))
        name = " | ".join(
            f"{v} {k}" if k == "players" else str(v) for k, v in zip(keys, key, strict=True)
        )
        ax.hist(
            values,
            bins=bins,
            weights=weights,
            histtype="step",
            lw=1.5,
            color=f"C{i % 10}",
            label=name,
        )


def plot_margins(
    games: pd.DataFrame, ax: Axes | None = None, by: str | Sequence[str] = "players"
) -> Axes:
    """Draw the distribution of the winner's score margin per group (default: player count)."""
    ax = _axes(ax)
    title = "Winner's margin"
    g = games[games["error"].isna() & (games["players"] > 1)]
    if g.empty:
        return _empty(ax, title)
    top = max(int(g["margin"].max()), 1)
    _hist_by(ax, g, "margin", by, np.arange(-0.5, top + 1.5, 1 if top < 40 else 2))
    ax.set_xlabel("margin (points; 0 = shared or tie-broken win)")
    ax.set_ylabel("share of games")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return ax


def plot_lengths(
    games: pd.DataFrame,
    ax: Axes | None = None,
    by: str | Sequence[str] = "players",
    column: str = "rounds",
) -> Axes:
    """Draw the distribution of game length (``rounds`` or ``turns``) per group."""
    ax = _axes(ax)
    title = f"Game length ({column})"
    g = games[games["error"].isna()]
    if g.empty:
        return _empty(ax, title)
    lo, hi = int(g[column].min()), int(g[column].max())
    _hist_by(ax, g, column, by, np.arange(lo - 0.5, hi + 1.5, 1))
    ax.set_xlabel(column)
    ax.set_ylabel("share of games")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return ax


def plot_end_reasons(table: pd.DataFrame, ax: Axes | None = None, label: str = "players") -> Axes:
    """Draw how games ended (shares per end reason) as stacked bars, one per group."""
    ax = _axes(ax)
    title = "How games ended"
    if table.empty:
        return _empty(ax, title)
    by = [c for c in table.columns if c not in ("end_reason", "games", "share")]
    wide = table.pivot_table(index=by, columns="end_reason", values="share", fill_value=0)
    order = ["rules", *sorted(c for c in wide.columns if c != "rules")]
    wide = wide[[c for c in order if c in wide.columns]]
    bottom = np.zeros(len(wide))
    names = _labels(wide.reset_index(), by) if len(wide) > 1 else [str(wide.index[0])]
    for i, reason in enumerate(wide.columns):
        ax.bar(range(len(wide)), wide[reason], bottom=bottom, label=reason, color=f"C{i}")
        bottom += wide[reason].to_numpy()
    ax.set_xticks(range(len(wide)), names, rotation=30, ha="right", fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of games")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return ax


def plot_scores(seats: pd.DataFrame, ax: Axes | None = None, by: str = "bot") -> Axes:
    """Draw the distribution of final scores per group (default: bot) as box plots."""
    ax = _axes(ax)
    title = f"Final scores by {by}"
    ok = seats[seats["error"].isna()]
    if ok.empty:
        return _empty(ax, title)
    groups = [(str(k), g["score"].astype(float).to_numpy()) for k, g in ok.groupby(by)]
    ax.boxplot([v for _, v in groups], orientation="horizontal", tick_labels=[k for k, _ in groups])
    ax.set_xlabel("score")
    ax.set_title(title)
    return ax


def plot_expansion_effects(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw each expansion combination's change of each metric against the base game.

    A grid: one row per group and expansion combination, one column per metric. Each cell shows
    the difference (expansion - base) and is coloured by it in units of its 95% interval's
    half-width (blue lower, red higher; pale when the interval holds 0); a star marks the
    significant ones.
    """
    title = "Expansion effects against the base game (colour: difference / 95% half-width)"
    if table.empty:
        return _empty(
            _axes(ax), title, "the run has no expansion combination next to the base game"
        )
    metrics = list(dict.fromkeys(table["metric"]))
    keys = [c for c in ("players", "variant", "lineup", "switches", "expansions") if c in table]
    rows = table[keys].drop_duplicates().reset_index(drop=True)
    ax = _axes(ax, 1.8 + 1.05 * len(metrics), 1.3 + 0.26 * len(rows))
    z = np.full((len(rows), len(metrics)), np.nan)
    text = [["" for _ in metrics] for _ in range(len(rows))]
    index = {tuple(r): i for i, r in enumerate(rows.itertuples(index=False))}
    for r in table.itertuples(index=False):
        i = index[tuple(getattr(r, k) for k in keys)]
        j = metrics.index(r.metric)
        half = (r.ci_high - r.ci_low) / 2
        z[i, j] = r.diff / half if half > 0 else 0.0
        mark = "*" if r.significant else ""
        text[i][j] = f"{r.diff:+.2f}{mark}" if r.kind == "rate" else f"{r.diff:+.1f}{mark}"
    ax.imshow(np.clip(z, -2, 2), cmap="coolwarm", vmin=-2, vmax=2, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(metrics)):
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=6)
    ax.set_xticks(range(len(metrics)), metrics, rotation=30, ha="right", fontsize=7)
    ax.set_yticks(range(len(rows)), _labels(rows, keys), fontsize=7)
    ax.set_title(title, fontsize=9)
    return ax


def plot_puzzles(table: pd.DataFrame, ax: Axes | None = None, top: int = 52) -> Axes:
    """Draw how often each puzzle was taken per game, split into completed and unfinished."""
    ax = _axes(ax, 10, 4)
    title = "Puzzles taken per game (dark: completed)"
    if table.empty:
        return _empty(ax, title, "no per-puzzle columns in this run")
    t = table.sort_values("taken_per_game", ascending=False).head(top)
    done = t["taken_per_game"] * t["completion_rate"]
    x = np.arange(len(t))
    ax.bar(x, done, color="C0", label="completed")
    ax.bar(x, t["taken_per_game"] - done, bottom=done, color="C1", label="left unfinished")
    ax.set_xticks(x, t["puzzle"], rotation=90, fontsize=7)
    ax.set_ylabel("times taken per game")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return ax


def plot_puzzle_value(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw each puzzle's points per action to complete against how often it is taken.

    ``table`` is an atlas table (``projectl_sim.atlas.atlas_table``) joined with ``puzzle_stats``
    on the puzzle id (columns ``points``, ``total_actions``, ``colour``, ``taken_per_game``).
    """
    ax = _axes(ax)
    title = "Which puzzles pay: points per action vs how often taken"
    if table.empty or "taken_per_game" not in table:
        return _empty(ax, title)
    value = table["points"] / table["total_actions"].astype(float)
    for colour, marker in (("white", "o"), ("black", "s")):
        rows = table["colour"] == colour
        ax.scatter(
            value[rows],
            table.loc[rows, "taken_per_game"],
            marker=marker,
            edgecolor="black",
            facecolor="white" if colour == "white" else "#333333",
            label=colour,
        )
    for row, v in zip(table.itertuples(index=False), value, strict=True):
        ax.annotate(
            row.id, (v, row.taken_per_game), fontsize=6, xytext=(2, 2), textcoords="offset points"
        )
    ax.set_xlabel("points / estimated actions to complete from the start")
    ax.set_ylabel("times taken per game")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return ax


def plot_points_per_action(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw points per action spent with intervals, one line per row (``points_per_action``)."""
    ax = _axes(ax, 6.4, 0.8 + 0.35 * max(len(table), 1))
    title = "Points per action spent (95% interval)"
    if table.empty:
        return _empty(ax, title)
    y = np.arange(len(table))[::-1]
    _interval_bars(ax, y, table["points_per_action"], table["ci_low"], table["ci_high"])
    ax.axvline(0, color=_GREY, lw=0.8)
    by = [c for c in table.columns if c in ("players", "variant", "expansions", "bot")]
    ax.set_yticks(y, _labels(table, by))
    ax.set_xlabel("final score / Play-phase actions")
    ax.set_title(title)
    return ax


def plot_piece_mix(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw the share of each piece among placements at each stage of the game."""
    ax = _axes(ax)
    title = "Pieces placed over the game"
    if table.empty:
        return _empty(ax, title, "no game records in this run (run with --records)")
    wide = table.pivot_table(index="stage", columns="piece", values="share", fill_value=0)
    bottom = np.zeros(len(wide))
    for i, piece in enumerate(wide.columns):
        ax.bar(wide.index, wide[piece], bottom=bottom, label=piece, color=f"C{i % 10}")
        bottom += wide[piece].to_numpy()
    ax.set_xlabel("stage of the game (equal parts of its actions)")
    ax.set_ylabel("share of placements")
    ax.set_xticks(wide.index)
    ax.legend(fontsize=7, ncols=3)
    ax.set_title(title)
    return ax


def plot_solo(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw the solo win rate against the mastermind per difficulty (and bot)."""
    ax = _axes(ax)
    title = "Solo: win rate against the mastermind (95% interval)"
    if table.empty:
        return _empty(ax, title, "no solo games in this run")
    bots = list(dict.fromkeys(table["bot"]))
    levels = list(dict.fromkeys(table["difficulty"]))
    width = 0.8 / len(bots)
    for b, bot in enumerate(bots):
        rows = table[table["bot"] == bot].set_index("difficulty").reindex(levels)
        x = np.arange(len(levels)) + (b - (len(bots) - 1) / 2) * width
        rate = rows["win_rate"].to_numpy(dtype=float)
        err = _errors(rate, rows["ci_low"], rows["ci_high"])
        ax.bar(x, rate, width * 0.9, yerr=err, capsize=3, label=bot, color=f"C{b}")
    ax.set_xticks(range(len(levels)), levels)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return ax


def plot_credits(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw the mean Credits earned, spent and kept per bot (a ``credits`` table)."""
    ax = _axes(ax)
    title = "Credits economy (Finesse)"
    if table.empty:
        return _empty(ax, title, "no Finesse games in this run")
    measures = ["credits_earned_mean", "credits_spent_mean", "credits_final_mean"]
    labels = _labels(table, [c for c in table.columns if c in ("expansions", "players", "bot")])
    width = 0.8 / len(measures)
    for m, measure in enumerate(measures):
        x = np.arange(len(table)) + (m - 1) * width
        ax.bar(x, table[measure], width * 0.9, label=measure.removesuffix("_mean"), color=f"C{m}")
    ax.set_xticks(range(len(table)), labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("Credits per seat and game")
    ax.legend(fontsize=8)
    ax.set_title(title)
    return ax


def plot_finishing(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw Finishing Touches use: share of seats placing pieces there, and pieces placed."""
    ax = _axes(ax)
    title = "Finishing Touches: seats that used them, and pieces placed"
    if table.empty:
        return _empty(ax, title)
    metrics = ("seats", "used_share", "pieces_mean", "unfinished_mean", "penalty_mean")
    labels = _labels(table, [c for c in table.columns if c not in metrics])
    x = np.arange(len(table))
    ax.bar(x - 0.2, table["used_share"], 0.4, label="share of seats using them", color="C0")
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of seats")
    twin = ax.twinx()
    twin.bar(x + 0.2, table["pieces_mean"], 0.4, label="pieces placed (mean)", color="C1")
    twin.set_ylabel("pieces placed per seat")
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.legend(loc="upper left", fontsize=8)
    twin.legend(loc="upper right", fontsize=8)
    ax.set_title(title)
    return ax
