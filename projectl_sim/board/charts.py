"""The win-chance chart of a game: one line per seat over the steps, rollouts as intervals.

Reads the table ``winprob.chances_table`` makes (one row per step and seat; with rollouts, their
``rollout_win``, ``rollout_low`` and ``rollout_high``) and draws it on an optional ``ax``, like
the analysis plots (``analysis.plots``: a table in, the ``Axes`` out, no global style changed).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from matplotlib.axes import Axes

from projectl_sim.analysis.plots import new_axes

SEAT_COLOURS = ("#0b6bcb", "#d1242f", "#1a7f37", "#8250df", "#bf8700")


def plot_win_chances(
    table: pd.DataFrame, ax: Axes | None = None, turning: Sequence[int] = ()
) -> Axes:
    """Draw each seat's win chance after every step, bold at the turns' ends (``turning``:
    steps marked)."""
    ax = new_axes(8.0, 3.6) if ax is None else ax
    for seat, rows in table.groupby("seat", sort=True):
        rows = rows.sort_values("step")
        colour = SEAT_COLOURS[int(seat) % len(SEAT_COLOURS)]
        name = f"seat {seat} ({rows['bot'].iloc[0]})"
        # every step thin; the turns' ends (where the evaluation scores alike) bold
        ax.plot(rows["step"], rows["win_chance"], color=colour, lw=0.8, alpha=0.35)
        ends = rows[rows["turn_end"]] if "turn_end" in rows else rows
        ax.plot(ends["step"], ends["win_chance"], color=colour, lw=2.0, label=name)
        if "rollout_win" in rows:
            r = rows.dropna(subset=["rollout_win"])
            if len(r):
                ax.errorbar(
                    r["step"],
                    r["rollout_win"],
                    yerr=[
                        r["rollout_win"] - r["rollout_low"],
                        r["rollout_high"] - r["rollout_win"],
                    ],
                    fmt="o",
                    ms=3,
                    color=colour,
                    alpha=0.7,
                    capsize=2,
                )
    for k in turning:
        ax.axvline(k, color="#f4b400", lw=1.2, zorder=0)
    last = int(table["step"].max()) if len(table) else 1
    pad = max(1, last) * 0.015  # a rollout's marker at the first or last step stays whole
    ax.set_xlim(-pad, max(1, last) + pad)
    ax.set_ylim(-0.04, 1.04)
    ax.axhline(0.5, color="#d0d7de", lw=0.8, ls="--", zorder=0)
    ax.set_xlabel("step (actions played)")
    ax.set_ylabel("win chance")
    ax.set_title("Win chances through the game")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    return ax


__all__ = ["plot_win_chances"]
