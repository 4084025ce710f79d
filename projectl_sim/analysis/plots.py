"""Charts of the analysis tables: each takes a table and an optional ``ax`` and returns the Axes.

Without ``ax`` a chart draws on a new ``matplotlib.figure.Figure`` (not pyplot: no global figure
or style is touched), in constrained layout so titles and labels are never clipped. Charts of
many configurations are *small multiples*: ``plot_seat_advantage``, ``plot_margins``,
``plot_lengths`` and ``plot_effects`` draw one panel per player count (and variant, line-up) on
a ``fig`` (new when not given) and return the ``Figure``; inside a panel, rows are sorted by
value and named by the settings that vary only (``labels``), so 48 or 92 configurations keep a
sane size. Legends sit outside the data; a chart with nothing to show (an empty table, every
game ended by the rules, no wins at all) says so in a sentence instead of drawing an empty
frame. ``save`` writes an Axes' or a Figure's picture as PNG.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from projectl_sim.analysis import labels as lab
from projectl_sim.analysis.findings import effect_findings
from projectl_sim.analysis.fmt import ordinal
from projectl_sim.figures import new_figure

_GREY = "#888888"
_ROW = 0.22  # inches per row of a panel
_MAX_WIDTH = 11.0  # inches: 1100 px at the report's 100 dpi, the page's width


def new_axes(width: float = 6.4, height: float = 4.0) -> Axes:
    """Return the Axes of a new figure (outside pyplot; Jupyter shows it)."""
    return new_figure(width, height).add_subplot()


def _axes(ax: Axes | None, width: float = 6.4, height: float = 4.0) -> Axes:
    return new_axes(width, height) if ax is None else ax


def _empty(ax: Axes, title: str, why: str = "no data in this run") -> Axes:
    ax.set_title(title)
    ax.text(0.5, 0.5, why, ha="center", va="center", color=_GREY, transform=ax.transAxes, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    return ax


def _figure_of(drawing: Axes | Figure) -> Figure:
    if isinstance(drawing, Figure):
        return drawing
    return drawing.get_figure(root=True)


def save(drawing: Axes | Figure, path: str | Path, dpi: int = 120) -> Path:
    """Write the figure of an Axes (or a Figure) as a PNG file (folders created); return it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure = _figure_of(drawing)
    if figure.canvas is None or not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    figure.savefig(path, dpi=dpi, format="png")
    return path


def _facets(
    fig: Figure | None, panels: int, rows: int, *, width: float = 3.6, sharey: bool = True
) -> tuple[Figure, list[Axes]]:
    """Return a figure with one Axes per panel, up to three a row, ``rows`` rows tall each."""
    columns = min(panels, 3)
    grid_rows = math.ceil(panels / columns)
    height = grid_rows * (0.9 + _ROW * max(rows, 2)) + 0.8
    if fig is None:
        fig = new_figure(min(_MAX_WIDTH, 1.6 + width * columns), height)
    axes = fig.subplots(grid_rows, columns, squeeze=False, sharey=False)
    flat = list(axes.ravel())
    for extra in flat[panels:]:
        extra.set_visible(False)
    del sharey
    return fig, flat[:panels]


def _panel_keys(table: pd.DataFrame) -> list[str]:
    """Return the columns a panel stands for: player count, and variant, line-up if they vary."""
    keys = [c for c in ("players", "variant") if c in table]
    if "variant" in keys and table["variant"].nunique() <= 1:
        keys.remove("variant")
    configs = table.drop_duplicates([c for c in lab.LABEL_COLUMNS if c in table])
    varying = lab.varying(configs)
    # a panel per line-up only for a few line-ups beside other settings; many line-ups (a round
    # robin's 21 pairs) are rows of their player count's panel, not 21 panels
    few = "lineup" in varying and configs["lineup"].map(lab.lineup_unit).nunique() <= 4
    if few and len(varying) > 1:
        keys.append("lineup")
    return keys


def _panel_title(keys: Sequence[str], key: tuple[object, ...]) -> str:
    parts = []
    for column, value in zip(keys, key, strict=True):
        if column == "players":
            parts.append(f"{value} players")
        elif column == "lineup":
            parts.append(lab.short_lineup(str(value)))
        else:
            parts.append(str(value))
    return ", ".join(parts)


def _labels(table: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """Return row labels from the given columns that vary (abbreviated: ``3p``, ``GP+F``)."""
    shown = [c for c in columns if c in table and table[c].nunique() > 1] or list(columns[-1:])
    return lab.config_labels(table, shown)


def _key_line(title: str, table: pd.DataFrame, column: str = "expansions") -> str:
    """Return ``title`` with the key of the expansion abbreviations its rows use on a line of
    its own (``F = finesse``), so no short name goes unexplained."""
    key = lab.abbreviation_key(table[column].dropna().astype(str)) if column in table else ""
    return f"{title}\n{key}" if key else title


def _one_order(values: pd.Series) -> dict[object, int]:
    """Return each row name's place (smallest value first) from ``values`` indexed by name: the
    mean over every panel, so a configuration keeps its place from one panel to the next."""
    means = values.groupby(level=list(range(values.index.nlevels)), sort=True).mean()
    ranked = means.sort_values(ascending=True, kind="stable", na_position="first")
    return {name: i for i, name in enumerate(ranked.index)}


def _wrap(text: str, width: int) -> str:
    """Return a label broken into lines of about ``width`` characters, at spaces and after commas.

    A bot's spec has no space (``mcts:leaf=value,iterations=128``): it breaks after a comma,
    which stays on its line; a piece longer than ``width`` keeps a line of its own, uncut.
    """
    lines: list[str] = []
    line = ""
    for piece in re.split(r"(?<=,)(?! )|(?<= )", text):  # each piece keeps its "," or " "
        if line and len((line + piece).rstrip()) > width:
            lines.append(line.rstrip())
            line = piece
        else:
            line += piece
    lines.append(line.rstrip())
    return "\n".join(lines)


def _lines(labels: Sequence[str]) -> int:
    """Return the most lines a label of ``labels`` takes (1 when there are none)."""
    return max((str(label).count("\n") + 1 for label in labels), default=1)


def _errors(value: np.ndarray, low: pd.Series, high: pd.Series) -> np.ndarray:
    """Return the (2, n) error bar lengths of intervals around values (nan and rounding: 0)."""
    err = np.vstack([value - low.to_numpy(dtype=float), high.to_numpy(dtype=float) - value])
    return np.clip(np.nan_to_num(err), 0, None)


def _interval_bars(
    ax: Axes, y: np.ndarray, value: pd.Series, low: pd.Series, high: pd.Series, **kw: object
) -> None:
    v = value.to_numpy(dtype=float)
    bars = ax.errorbar(v, y, xerr=_errors(v, low, high), fmt="o", capsize=3, **kw)
    for artist in bars.get_children():  # a marker at 0 or 1 is drawn whole, not cut by the frame
        artist.set_clip_on(False)


def plot_win_rates(
    table: pd.DataFrame,
    ax: Axes | None = None,
    labels: Sequence[str] = ("players", "bot"),
    title: str = "Win rate (95% Wilson interval)",
) -> Axes:
    """Draw win rates with their intervals, one line per row of a ``win_rates`` table.

    Rows keep the table's grouping (its first label column) and are sorted by rate inside it.
    """
    ax = _axes(ax, 6.4, 0.8 + 0.3 * max(len(table), 1))
    if table.empty:
        return _empty(ax, title)
    first = [c for c in labels if c in table][:1]
    table = table.sort_values([*first, "win_rate"], ascending=[True] * len(first) + [False])
    y = np.arange(len(table))[::-1]
    _interval_bars(ax, y, table["win_rate"], table["ci_low"], table["ci_high"], color="C0")
    ax.set_yticks(y, _labels(table, labels))
    ax.set_xlim(-0.05, 1.05)
    ax.set_xlabel("win rate (a k-way shared win counts 1/k)")
    ax.set_title(title)
    return ax


def plot_seat_advantage(table: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """Draw each turn order's share of the wins per configuration against 1/N (small multiples).

    ``table`` is a ``seat_advantage`` table (any grouping). One panel per player count (and
    variant, line-up when they vary), one row per configuration sorted by the first player's
    share, one dot per turn order with its 95% interval, and a dashed line at the fair share
    1/N; turn orders are told apart by colour (legend below the panels). Returns the Figure.
    """
    title = "Share of the wins by turn order (95% interval; dashed: the fair share 1/N)"
    if table.empty:
        fig = fig or new_figure(6.4, 2.5)
        _empty(fig.add_subplot(), title, "no game with two or more seats")
        return fig
    from projectl_sim.analysis.outcomes import SEAT_ADVANTAGE_COLUMNS

    by = [c for c in table.columns if c not in SEAT_ADVANTAGE_COLUMNS]
    keys = _panel_keys(table)
    others = [c for c in by if c not in keys]
    named = [c for c in lab.varying(table.drop_duplicates(by), others)] or others[:1]
    panels = list(table.groupby(keys, sort=True))
    most = max(rows[named].drop_duplicates().shape[0] if named else 1 for _, rows in panels)
    # long line-ups (bot specs) break into lines: a panel's title at 40 characters, a row's name
    # at 44, and the rows grow with their names' lines, so no name is cut or runs into the next
    titles = [_wrap(_panel_title(keys, k if isinstance(k, tuple) else (k,)), 40) for k, _ in panels]
    row_lines = _lines(
        [_wrap(n, 44) for n in lab.config_labels(table.drop_duplicates(named), named)]
        if named
        else []
    )
    fig, axes = _facets(
        fig, len(panels), math.ceil(most * (1 + (row_lines - 1) / 2)) + 2 * (_lines(titles) - 1)
    )
    orders = int(table["turn_order"].max()) + 1
    # one row order for every panel (by the first player's mean share over the panels, best on
    # top), so GP sits above or below base in every panel alike
    leaders = table[table["turn_order"] == 0]
    place = _one_order(leaders.set_index(named)["share"]) if named else {}
    for ax, (_, rows), panel_title in zip(axes, panels, titles, strict=True):
        players = int(rows["players"].iloc[0])
        first = rows[rows["turn_order"] == 0]
        if named:
            at = [place[r[0] if len(named) == 1 else tuple(r)] for r in first[named].to_numpy()]
            first = first.iloc[np.argsort(at, kind="stable")]
        configs = first[named].reset_index(drop=True) if named else pd.DataFrame(index=[0])
        row_of = {tuple(r): i for i, r in enumerate(configs.itertuples(index=False))}
        offset = np.linspace(0.25, -0.25, players) if players > 1 else np.zeros(1)  # 1st on top
        for t in range(players):
            at = rows[rows["turn_order"] == t]
            y = (
                np.array([row_of[tuple(r)] for r in at[named].itertuples(index=False)])
                if named
                else np.zeros(len(at))
            )
            share = at["share"].to_numpy(dtype=float)
            bars = ax.errorbar(
                share,
                y + offset[t],
                xerr=_errors(share, at["ci_low"], at["ci_high"]),
                fmt="o",
                ms=3,
                lw=0.8,
                color=f"C{t}",
                label=ordinal(t + 1) + (" (first player)" if t == 0 else ""),
            )
            for artist in bars.get_children():  # a share of 0 or 1 drawn whole
                artist.set_clip_on(False)
        ax.axvline(1 / players, color="black", ls="--", lw=0.8)
        names = [_wrap(n, 44) for n in lab.config_labels(configs, named)] if named else [""]
        ax.set_yticks(range(len(configs)), names, fontsize=7)
        ax.set_ylim(-0.6, len(configs) - 0.4)
        ax.set_xlim(-0.04, 1.04)
        ax.set_title(panel_title, fontsize=9)
        ax.set_xlabel("share of the wins", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
    handles, names = [], []
    for ax in axes:
        h, n = ax.get_legend_handles_labels()
        for handle, name in zip(h, n, strict=True):
            if name not in names:
                handles.append(handle)
                names.append(name)
    fig.legend(
        handles,
        names,
        loc="outside lower center",
        ncols=orders,
        fontsize=8,
        title="turn order",
        title_fontsize=8,
    )
    fig.suptitle(_key_line(title, table if "expansions" in named else table.iloc[0:0]), fontsize=10)
    return fig


def plot_ratings(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw ratings (Elo scale) with their intervals, best on top; the title names the anchor
    (the ``scale`` column of ``ratings.rate_bots``).

    A rating with no finite value (a bot that never won or never lost, ``note``) is drawn as an
    arrow at the edge of the chart with its note, not as a point.
    """
    names = [_wrap(str(bot), 28) for bot in table["bot"]] if "bot" in table else []
    widest = max((len(line) for name in names for line in name.split("\n")), default=0)
    # the plotting area keeps 4.4 inches (the title's width and more) beside the longest name;
    # a row is as tall as its name's lines
    ax = _axes(
        ax,
        min(_MAX_WIDTH, max(6.4, 5.0 + 0.085 * widest)),
        0.9 + (0.22 + 0.18 * _lines(names)) * max(len(table), 1),
    )
    scale = str(table["scale"].iloc[0]) if "scale" in table and len(table) else "Elo scale"
    title = f"Ratings ({scale}, 95% interval)"
    if table.empty:
        return _empty(ax, title, "no game seated two different bots")
    y = np.arange(len(table))[::-1]
    rating = table["rating"].to_numpy(dtype=float)
    finite = np.isfinite(rating)
    if finite.any():
        rows = table[finite]
        _interval_bars(
            ax,
            y[finite],
            rows["rating"],
            rows["ci_low"].clip(-1e4, 1e4),
            rows["ci_high"].clip(-1e4, 1e4),
            color="C2",
        )
    span = (
        np.nanmax(
            np.abs(
                np.r_[table.loc[finite, ["ci_low", "ci_high"]].to_numpy(dtype=float).ravel(), 100.0]
            )
        )
        if finite.any()
        else 100.0
    )
    span = min(float(span) * 1.15, 2000.0)
    notes = table["note"] if "note" in table else pd.Series([""] * len(table))
    for yi, r, note in zip(y, rating, notes, strict=True):
        if np.isfinite(r):
            continue
        edge = span if r > 0 else -span
        if np.isnan(r):
            ax.text(
                0, yi, note or "not comparable", ha="center", va="center", fontsize=7, color=_GREY
            )
            continue
        ax.annotate(
            "",
            xy=(edge, yi),
            xytext=(edge * 0.55, yi),
            arrowprops={"arrowstyle": "->", "color": "C3"},
        )
        ax.text(edge * 0.5, yi + 0.18, note, ha="center", va="bottom", fontsize=7, color="C3")
    ax.set_xlim(-span, span)
    ax.axvline(0, color=_GREY, lw=0.8)
    ax.set_yticks(y, names)
    ax.set_ylim(-0.7, len(table) - 0.3)
    ax.set_xlabel("rating (400 points = 10:1 odds)")
    ax.set_title(title)
    return ax


def plot_head_to_head(
    matrix: pd.DataFrame, ax: Axes | None = None, order: Sequence[str] | None = None
) -> Axes:
    """Draw the head-to-head matrix: how often the row bot beat the column bot.

    Bots run strongest first: in ``order`` (a ratings table's, say), else by their mean match
    win rate against the others, so the matrix reads as a ranking, not an alphabet.
    """
    if order is None:
        order = matrix.mean(axis=1, skipna=True).sort_values(ascending=False, kind="stable").index
    order = [b for b in order if b in matrix.index] + [b for b in matrix.index if b not in order]
    matrix = matrix.reindex(index=order, columns=order)
    n = len(matrix)
    longest = max((len(str(b)) for b in matrix.index), default=0) * 0.075  # inches of a name
    ax = _axes(ax, max(4.2, 2.2 + longest + 0.75 * n), 1.6 + longest + 0.6 * max(n, 1))
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
    ax.set_xticks(range(n), matrix.columns, rotation=90)  # upright boxes: names never overlap
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


def _distributions(
    frame: pd.DataFrame,
    column: str,
    by: str | Sequence[str],
    fig: Figure | None,
    title: str,
    xlabel: str,
) -> Figure:
    """Draw box plots of ``column`` per group: a panel per player count, a row per other group.

    Rows are sorted by median (largest on top); a white dot marks the mean. ``by`` of only the
    player count gives one panel with a row per player count.
    """
    keys = [by] if isinstance(by, str) else list(by)
    inner = [k for k in keys if k != "players"] or keys
    panel_keys = ["players"] if inner != keys else []
    panels = list(frame.groupby(panel_keys, sort=True)) if panel_keys else [((), frame)]
    most = max(len(rows.groupby(inner)) for _, rows in panels)
    shown = lab.varying(frame.drop_duplicates(keys), inner) or inner[:1]
    fig, axes = _facets(fig, len(panels), most)
    # one row order for every panel: by the median of each panel's median (largest on top)
    medians = frame.groupby([*panel_keys, *inner], sort=True)[column].median()
    if panel_keys:
        medians = medians.droplevel(list(range(len(panel_keys))))
    place = _one_order(medians)
    for ax, (key, rows) in zip(axes, panels, strict=True):
        groups = [
            (name if isinstance(name, tuple) else (name,), g[column].dropna().to_numpy(float))
            for name, g in rows.groupby(inner, sort=True)
        ]
        groups.sort(key=lambda item: place[item[0][0] if len(inner) == 1 else item[0]])
        values = [v for _, v in groups]
        names = lab.config_labels(pd.DataFrame([n for n, _ in groups], columns=inner), shown)
        ax.boxplot(
            values,
            orientation="horizontal",
            tick_labels=names,
            widths=0.6,
            flierprops={"markersize": 2},
            medianprops={"color": "C1"},
        )
        means = [v.mean() if len(v) else np.nan for v in values]
        ax.plot(means, range(1, len(values) + 1), "o", ms=3, mfc="white", mec="black", lw=0)
        ax.tick_params(axis="both", labelsize=7)
        ax.set_xlabel(xlabel, fontsize=8)
        if panel_keys:
            title_key = key if isinstance(key, tuple) else (key,)
            ax.set_title(_panel_title(panel_keys, title_key), fontsize=9)
    fig.suptitle(_key_line(title, frame if "expansions" in shown else frame.iloc[0:0]), fontsize=10)
    return fig


def plot_margins(
    games: pd.DataFrame, by: str | Sequence[str] = "players", fig: Figure | None = None
) -> Figure:
    """Draw the winner's score margin per group as box plots, a panel per player count.

    ``by`` (default the player count) names the groups: ``["expansions", "players"]`` gives a
    panel per player count with a row per expansion set. Returns the Figure.
    """
    title = "Winner's margin (points; box: quartiles, dot: mean)"
    g = games[games["error"].isna() & (games["players"] > 1)]
    if g.empty:
        fig = fig or new_figure(6.4, 2.5)
        _empty(fig.add_subplot(), title, "no finished game with two or more seats")
        return fig
    return _distributions(g, "margin", by, fig, title, "margin (0 = shared or tie-broken win)")


def plot_lengths(
    games: pd.DataFrame,
    by: str | Sequence[str] = "players",
    column: str = "rounds",
    fig: Figure | None = None,
) -> Figure:
    """Draw game length (``rounds`` or ``turns``) per group as box plots, a panel per player
    count."""
    title = f"Game length in {column} (box: quartiles, dot: mean)"
    g = games[games["error"].isna()]
    if g.empty:
        fig = fig or new_figure(6.4, 2.5)
        _empty(fig.add_subplot(), title)
        return fig
    return _distributions(g, column, by, fig, title, column)


def plot_end_reasons(table: pd.DataFrame, ax: Axes | None = None, label: str = "players") -> Axes:
    """Draw the share of games cut short (by reason) per group, the most truncated on top.

    Only groups with a truncated game get a bar (the others ended by the rules); when every game
    ended by the rules the chart says so in a sentence.
    """
    del label  # kept for callers of the old signature: the groups name themselves
    title = "How games ended: the share cut short by a limit"
    if table.empty:
        return _empty(_axes(ax), title)
    by = [c for c in table.columns if c not in ("end_reason", "games", "share")]
    wide = table.pivot_table(index=by, columns="end_reason", values="share", fill_value=0)
    cut = [c for c in wide.columns if c != "rules"]
    total = int(table["games"].sum())
    if not cut:
        return _empty(_axes(ax, 6.4, 1.6), title, f"all {total} games ended by the rules")
    wide = wide[wide[cut].sum(axis=1) > 0]
    wide = wide.assign(_cut=wide[cut].sum(axis=1)).sort_values("_cut").drop(columns="_cut")
    ax = _axes(ax, 6.4, 1.4 + _ROW * len(wide))
    left = np.zeros(len(wide))
    for i, reason in enumerate(sorted(cut)):
        ax.barh(range(len(wide)), wide[reason], left=left, label=reason, color=f"C{i + 1}")
        left += wide[reason].to_numpy()
    flat = wide.reset_index()
    ax.set_yticks(range(len(wide)), lab.config_labels(flat, lab.varying(flat, by) or by))
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel("share of the group's games")
    ax.set_xlim(0, max(0.05, float(left.max()) * 1.15))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ruled = len(table.drop_duplicates(by)) - len(wide)
    ax.set_title(f"{title}\n(the other {ruled} groups: every game by the rules)", fontsize=9)
    return ax


def plot_scores(seats: pd.DataFrame, ax: Axes | None = None, by: str = "bot") -> Axes:
    """Draw the distribution of final scores per group (default: bot) as box plots, by median."""
    ok = seats[seats["error"].isna()]
    groups = sorted(
        ((str(k), g["score"].astype(float).to_numpy()) for k, g in ok.groupby(by)),
        key=lambda item: np.median(item[1]),
    )
    ax = _axes(ax, 6.4, 1.2 + 0.35 * max(len(groups), 1))
    title = f"Final scores by {by}"
    if ok.empty:
        return _empty(ax, title)
    ax.boxplot([v for _, v in groups], orientation="horizontal", tick_labels=[k for k, _ in groups])
    ax.set_xlabel("score")
    ax.set_title(title)
    return ax


def plot_puzzles(table: pd.DataFrame, ax: Axes | None = None, top: int = 52) -> Axes:
    """Draw how often each puzzle was taken per game, split into completed and unfinished."""
    ax = _axes(ax, 10, 4)
    title = "Puzzles taken per game: completed and left unfinished"
    if table.empty:
        return _empty(ax, title, "no per-puzzle columns in this run")
    t = table.sort_values("taken_per_game", ascending=False).head(top)
    done = t["taken_per_game"] * t["completion_rate"]
    x = np.arange(len(t))
    ax.bar(x, done, color="C0", label="completed")
    ax.bar(x, t["taken_per_game"] - done, bottom=done, color="C1", label="left unfinished")
    ax.set_xticks(x, t["puzzle"], rotation=90, fontsize=7)
    ax.set_ylabel("times taken per game")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title(title)
    return ax


def plot_puzzle_value(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw each puzzle's points per action to complete against how often it is taken.

    ``table`` is an atlas table (``tiling.atlas.atlas_table``) joined with ``puzzle_stats``
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
    ax.set_xlabel("points / estimated actions to complete from the start")
    ax.set_ylabel("times taken per game")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title(title)
    points = list(zip(table["id"], value, table["taken_per_game"], strict=True))
    # the most paying and most taken first: they keep their label where the points crowd
    points.sort(key=lambda item: (-(item[1] if np.isfinite(item[1]) else -1), -item[2]))
    placed = place_labels(ax, points)
    if placed < len(points):
        ax.set_title(f"{title}\n(named where there is room: {placed} of {len(points)})")
    return ax


_OFFSETS = ((3, 3), (3, -10), (-3, 3), (-3, -10), (6, -4), (-6, -4), (0, 7), (0, -13))


def place_labels(ax: Axes, points: Sequence[tuple[str, float, float]], fontsize: float = 6) -> int:
    """Name points (label, x, y) beside them where a name fits: each takes the first of a few
    offsets at which it overlaps no name already placed and stays inside the axes, or is left
    out. Measured with the renderer on the laid-out figure; returns how many were named."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = ax.get_figure(root=True)
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.draw_without_rendering()  # the layout first: the axes' place and scale are final
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    from matplotlib.collections import LineCollection
    from matplotlib.transforms import Bbox

    # the error bars' segments (their boxes: error bars are upright or level) a name keeps off
    bars = [
        Bbox(coll.get_transform().transform(np.asarray(seg, dtype=float))[[0, -1]])
        for coll in ax.collections
        if isinstance(coll, LineCollection)
        for seg in coll.get_segments()
        if len(seg) >= 2
    ]
    taken: list = []
    for label, x, y in points:
        if not (np.isfinite(x) and np.isfinite(y)):
            continue
        text = ax.annotate(
            label, (x, y), xytext=_OFFSETS[0], fontsize=fontsize, textcoords="offset points"
        )
        for dx, dy in _OFFSETS:
            text.set_position((dx, dy))
            text.set_horizontalalignment("left" if dx >= 0 else "right")
            box = text.get_window_extent(renderer)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0
            clear = not any(box.overlaps(t) for t in taken) and not any(
                box.overlaps(bar) for bar in bars
            )
            if inside and box.y1 <= frame.y1 and clear:
                taken.append(box.expanded(1.05, 1.1))
                break
        else:
            text.remove()
    return len(taken)


def plot_points_per_action(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw points per action spent with intervals, one line per row, highest on top."""
    ax = _axes(ax, 6.4, 0.8 + 0.3 * max(len(table), 1))
    title = "Points per action spent (95% interval)"
    if table.empty:
        return _empty(ax, title)
    table = table.sort_values("points_per_action")
    y = np.arange(len(table))
    _interval_bars(ax, y, table["points_per_action"], table["ci_low"], table["ci_high"])
    ax.axvline(0, color=_GREY, lw=0.8)
    by = [c for c in table.columns if c in ("players", "variant", "expansions", "bot")]
    ax.set_yticks(y, _labels(table, by), fontsize=8)
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
    ax.legend(fontsize=7, ncols=2, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title(title)
    return ax


def plot_solo(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw the solo win rate against the mastermind per difficulty (and bot), values written."""
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
        tops = rate + err[1]
        for xi, r, top, n in zip(x, rate, tops, rows["played"], strict=True):
            if np.isfinite(r):  # the value above its interval: a 0% bar is otherwise invisible
                ax.text(
                    xi, top + 0.02, f"{r:.0%} of {int(n)}", ha="center", va="bottom", fontsize=7
                )
    if not np.nansum(table["win_rate"].to_numpy(dtype=float)):
        title += "\nno wins at any difficulty"
    ax.set_xticks(range(len(levels)), levels)
    ax.set_ylim(0, 1.15)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("win rate")
    if len(bots) > 1:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title(title)
    return ax


def plot_credits(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw the mean Credits earned, spent and kept per group (a ``credits`` table), by earned."""
    table = table.sort_values("credits_earned_mean") if not table.empty else table
    ax = _axes(ax, 6.4, 1.2 + 0.32 * max(len(table), 1))
    title = "Credits economy (Finesse)"
    if table.empty:
        return _empty(ax, title, "no Finesse games in this run")
    measures = ["credits_earned_mean", "credits_spent_mean", "credits_final_mean"]
    names = _labels(table, [c for c in table.columns if c in ("expansions", "players", "bot")])
    height = 0.8 / len(measures)
    for m, measure in enumerate(measures):
        y = np.arange(len(table)) + (1 - m) * height
        ax.barh(
            y,
            table[measure],
            height * 0.9,
            label=measure.removesuffix("_mean").replace("credits_", ""),
            color=f"C{m}",
        )
    ax.set_yticks(range(len(table)), names, fontsize=7)
    ax.set_xlabel("Credits per seat and game")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    ax.set_title(title)
    return ax


def plot_finishing(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw Finishing Touches use: the share of seats placing pieces there, most used on top."""
    table = table.sort_values("used_share") if not table.empty else table
    ax = _axes(ax, 6.4, 1.2 + 0.3 * max(len(table), 1))
    title = "Finishing Touches: share of seats that used them"
    if table.empty:
        return _empty(ax, title)
    metrics = ("seats", "used_share", "pieces_mean", "unfinished_mean", "penalty_mean")
    names = _labels(table, [c for c in table.columns if c not in metrics])
    y = np.arange(len(table))
    ax.barh(y, table["used_share"], 0.7, color="C0")
    for yi, share, pieces in zip(y, table["used_share"], table["pieces_mean"], strict=True):
        ax.text(share + 0.01, yi, f"{pieces:.1f} pieces", va="center", fontsize=7)
    ax.set_yticks(y, names, fontsize=7)
    ax.set_xlim(0, 1.15)
    ax.set_xlabel("share of seats (text: pieces placed per seat)")
    ax.set_title(title)
    return ax


_METRIC_TITLES = {
    "first_player_rate": "first player's win rate (pts)",
    "win_rate": "win rate of {bot} (pts)",
    "margin": "winner's margin (points)",
    "rounds": "game length (rounds)",
}


def _effect_label(row: pd.Series) -> str:
    if row["factor"] == "expansions":
        return lab.short_expansions(str(row["level"]))
    return f"{row['level']} (vs {row['against']})"


def plot_effects(table: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """Draw each expansion set's and switch's effect with its 95% interval (``factors.effects``).

    Small multiples: a row of panels per player count (and variant), a panel per metric (rates
    in percentage points); in a panel one line per comparison, sorted by the first metric's
    difference, one colour per line-up when several were played; filled markers are the effects
    the findings detect (``findings.effect_findings``: q < 0.05 over every effect tested), so a
    chart and the verdict lines never disagree (a ``detected`` column, the findings' rows of the
    table, is read as it is). Metrics that never change (every difference 0) are left out.
    Returns the Figure.
    """
    title = "Effects against the base game (95% intervals; filled: a finding, q < 0.05)"
    if table.empty:
        fig = fig or new_figure(6.4, 2.0)
        _empty(fig.add_subplot(), title, "no expansion set or switch next to its base game")
        return fig
    t = table.copy()
    if "detected" not in t:  # the findings' decision (a report passes its findings' column)
        t["detected"] = [f.detected for f in effect_findings(table, ())]
    t["what"] = [
        m if b is None or (isinstance(b, float) and np.isnan(b)) else f"{m}:{b}"
        for m, b in zip(t["metric"], t["bot"], strict=True)
    ]
    t["label"] = [_effect_label(r) for _, r in t.iterrows()]
    scale = np.where(t["kind"] == "rate", 100.0, 1.0)
    for c in ("diff", "ci_low", "ci_high"):
        t[c] = t[c].to_numpy(dtype=float) * scale
    # a metric that never changed anywhere (greedy beats random in every game of every set)
    changing = t.groupby("what")["diff"].agg(lambda v: np.nanmax(np.abs(v)))
    whats = [w for w in dict.fromkeys(t["what"]) if changing.loc[w] > 0]
    constant = [w.replace(":", " of ") for w in dict.fromkeys(t["what"]) if w not in whats]
    if constant:
        title += f"\nleft out, the same with and without everywhere: {', '.join(constant)}"
    if not whats:
        fig = fig or new_figure(6.4, 2.0)
        _empty(fig.add_subplot(), title, "no metric changed in any comparison")
        return fig
    rows_by = ["players"] + (["variant"] if t["variant"].nunique() > 1 else [])
    series_by = lab.varying(t.drop_duplicates(["players", "lineup"]), ("lineup",))
    if series_by:  # one colour per line-up, the same at every player count
        t["series"] = [lab.lineup_unit(str(v)) for v in t["lineup"]]
    panels = list(t.groupby(rows_by, sort=True))
    most = max(rows["label"].nunique() for _, rows in panels)
    if fig is None:
        width = min(_MAX_WIDTH, 2.2 + 2.3 * len(whats))
        height = len(panels) * (0.9 + 0.17 * most) + 0.9
        fig = new_figure(width, height)
    axes = fig.subplots(len(panels), max(len(whats), 1), squeeze=False)
    # one x scale per unit: every rate panel in points, every panel of a mean in its own unit,
    # so an interval's width reads the same in every row
    kind_of = t.drop_duplicates("what").set_index("what")["kind"]
    for j, what in enumerate(whats):
        unit = "rate" if kind_of[what] == "rate" else what
        master = next(
            k for k, w in enumerate(whats) if ("rate" if kind_of[w] == "rate" else w) == unit
        )
        for i in range(len(panels)):
            if (i, j) != (0, master):
                axes[i][j].sharex(axes[0][master])
    series = list(dict.fromkeys(t["series"])) if series_by else [None]
    offsets = np.linspace(-0.25, 0.25, len(series)) if len(series) > 1 else [0.0]
    # one line order for every row of panels: by the first metric's mean difference over them
    place = _one_order(t[t["what"] == whats[0]].set_index("label")["diff"])
    for row_index, ((key, rows), row_axes) in enumerate(zip(panels, axes, strict=True)):
        key = key if isinstance(key, tuple) else (key,)
        here = set(rows["label"])
        order = [name for name in place if name in here]
        order += sorted(here - set(order))
        y_of = {name: i for i, name in enumerate(order)}
        for j, (ax, what) in enumerate(zip(row_axes, whats, strict=True)):
            at = rows[rows["what"] == what]
            for k, (name, off) in enumerate(zip(series, offsets, strict=True)):
                part = at if name is None else at[at["series"] == name]
                y = np.array([y_of[n] for n in part["label"]]) + off
                d = part["diff"].to_numpy(dtype=float)
                err = _errors(d, part["ci_low"], part["ci_high"])
                color = f"C{k}"
                ax.errorbar(d, y, xerr=err, fmt="none", ecolor=color, lw=0.8)
                sig = part["detected"].to_numpy(dtype=bool)
                ax.plot(d[sig], y[sig], "o", ms=4, color=color, label=None)
                ax.plot(
                    d[~sig],
                    y[~sig],
                    "o",
                    ms=4,
                    mfc="white",
                    mec=color,
                    label=lab.short_lineup(str(name)) if name is not None else None,
                )
            ax.axvline(0, color=_GREY, lw=0.8)
            ax.set_yticks(range(len(order)), order if j == 0 else [""] * len(order), fontsize=7)
            ax.set_ylim(-0.6, len(order) - 0.4)
            ax.tick_params(axis="x", labelsize=7)
            metric, _, bot = what.partition(":")
            if row_index == 0:  # the metric heads its column, once
                heading = _METRIC_TITLES.get(metric, metric).format(bot=lab.short_lineup(bot))
                ax.set_title(_wrap(heading, 26), fontsize=8)
            if j == 0:  # the player count (and variant) names its row
                ax.set_ylabel(_panel_title(rows_by, key), fontsize=8)
    if series_by:
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(
            handles,
            names,
            loc="outside lower center",
            ncols=min(len(names), 4),
            fontsize=8,
            title="line-up",
            title_fontsize=8,
        )
    levels = t.loc[t["factor"] == "expansions", "level"].to_frame("expansions")
    fig.suptitle(_key_line(title, levels), fontsize=10)
    return fig


def plot_card_strength(table: pd.DataFrame, ax: Axes | None = None, key: str = "card") -> Axes:
    """Draw each card's (or piece's: ``key="piece"``) excess win-rate lift over its peers with
    its 95% interval, strongest on top; flagged rows in colour, provisional cards starred.

    ``table`` is ``cards.card_strength`` (or ``piece_strength``); untested rows are left out.
    """
    shown = table[np.isfinite(table["excess"].astype(float))] if len(table) else table
    ax = _axes(ax, 6.4, 1.2 + _ROW * max(len(shown), 2))
    what = "card" if key == "card" else "reward piece"
    title = f"Excess win-rate lift per {what} over its peers (95% interval)"
    if shown.empty:
        return _empty(ax, title, f"no {what} completed often enough to test")
    shown = shown.sort_values("excess")
    y = np.arange(len(shown))
    colours = shown["flag"].map({"strong": "C3", "weak": "C0"}).fillna("#444444").tolist()
    value = shown["excess"].to_numpy(dtype=float) * 100
    err = _errors(value, shown["excess_low"] * 100, shown["excess_high"] * 100)
    for i, colour in enumerate(colours):
        ax.errorbar(value[i], y[i], xerr=err[:, i : i + 1], fmt="o", capsize=2, color=colour)
    ax.axvline(0, color=_GREY, lw=0.8)
    names = [
        f"{row[key]}{'*' if row.get('provisional') is True else ''}"
        + (f" ({row['flag']})" if row["flag"] else "")
        for _, row in shown.iterrows()
    ]
    ax.set_yticks(y, names, fontsize=7)
    ax.set_ylim(-0.7, len(shown) - 0.3)
    ax.set_xlabel("excess lift, points of win share (flagged: Benjamini-Yekutieli, 5%)")
    ax.set_title(title, fontsize=10)
    return ax


def plot_flow(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Draw per configuration the share of the game played before the winner led for good
    (``game_flow.flow_summary``'s ``decided_share``) and the comeback rate, with intervals."""
    ax = _axes(ax, 6.4, 1.4 + 0.35 * max(len(table), 2))
    title = "When games are decided (95% intervals)"
    if table.empty or "decided_share" not in table:
        return _empty(ax, title, "no rounds table in this run")
    table = table.reset_index(drop=True)
    y = np.arange(len(table))
    _interval_bars(
        ax,
        y + 0.15,
        table["decided_share"],
        table["decided_share_low"],
        table["decided_share_high"],
        label="winner led for good from (share of the rounds)",
    )
    _interval_bars(
        ax,
        y - 0.15,
        table["comeback_rate"],
        table["comeback_low"],
        table["comeback_high"],
        label="comeback rate (winner behind at half time)",
        color="C1",
    )
    by = [c for c in ("players", "lineup", "expansions", "switches") if c in table]
    ax.set_yticks(y, _labels(table, by), fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(0, -0.18), borderaxespad=0)
    ax.set_title(title, fontsize=10)
    return ax
