"""The demo's answer (``projectl-sim run --preset demo``): does moving first win more games?

The demo seats equal greedy bots at 2, 3 and 4 players, so a gap between the seats' shares of
the wins is the turn order's, not the players'. The answer is a dozen lines: each turn order's
share with its 95% interval and the test of equal shares (``outcomes.seat_advantage``), one
sentence per player count saying what the test finds, and what a run of this size can detect.
Every sentence is decided by the table: a gap the test does not reject is said to be
undetected, never named as a finding.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from projectl_sim.analysis.data import Run, load_run
from projectl_sim.analysis.fmt import ordinal, p_text, pct, rate_interval
from projectl_sim.analysis.outcomes import seat_advantage
from projectl_sim.analysis.stats import ALPHA, minimum_detectable_effect

__all__ = ["QUESTION", "demo_text"]

QUESTION = "Does moving first win more games of Project L?"
WIDTH = 100  # sentences are wrapped to this many characters


def _p(p: float) -> str:
    """Return ``p 0.012`` or ``p < 0.001``."""
    text = p_text(p)
    return f"p < {text[1:]}" if text.startswith("<") else f"p {text}"


def _finding(block: pd.DataFrame) -> str:
    """Return one player count's sentence: what the test of equal shares finds."""
    players = int(block["players"].iloc[0])
    fair = pct(1 / players)
    p = float(block["p_value"].iloc[0])
    first = block[block["turn_order"] == 0].iloc[0]
    first_text = rate_interval(first["share"], first["ci_low"], first["ci_high"])
    if not np.isfinite(p) or p >= ALPHA:
        return (
            f"{players} players: no detectable seat advantage ({_p(p)}): the first player "
            f"wins {first_text}"
        )
    if players == 2:
        side = "favoured" if first["share"] > 0.5 else "behind"
        return (
            f"{players} players: the first player is {side} ({_p(p)}): {first_text} against a "
            f"fair {fair}"
        )
    # the seats whose own interval, as printed, leaves the fair share: a seat merely highest is
    # not named (1st 27% [25, 29] is not above a fair 25% to the eye, so not to the sentence)
    above = block[np.round(100 * block["ci_low"]) > 100 / players]
    below = block[np.round(100 * block["ci_high"]) < 100 / players]

    def seats(rows: pd.DataFrame) -> str:
        return ", ".join(
            f"{ordinal(int(r['turn_order']) + 1)} "
            + rate_interval(r["share"], r["ci_low"], r["ci_high"])
            for _, r in rows.iterrows()
        )

    parts = [f"above {fair}: {seats(above)}"] if len(above) else []
    parts += [f"below: {seats(below)}"] if len(below) else []
    found = "; ".join(parts) or "no one seat's interval leaves the fair share"
    return f"{players} players: seats differ ({_p(p)}): {found}"


def demo_text(run: Run | str | Path) -> str:
    """Return the demo's answer: the seats' shares of the wins per player count, with their
    intervals, what the test finds, and the smallest edge this run's size detects."""
    run = run if isinstance(run, Run) else load_run(run)
    table = seat_advantage(run.seats, by=("players",))
    games = len(run.games)
    if table.empty:
        return f"{QUESTION}\nno finished game with two or more players: nothing to answer"
    bots = sorted(run.seats["bot"].unique())
    if len(bots) != 1:  # the shares would be the bots', not the seats'
        return f"{QUESTION}\nthe run seats different bots ({', '.join(bots)}): see its summary"
    widest = int(table["players"].max())
    lines = [
        f"{QUESTION} {games:,} games of equal {bots[0]} bots:",
        "(any gap is the seat's) share of the wins by turn order, 95% intervals; p: equal shares?",
    ]
    header = ["players", *(ordinal(t + 1) for t in range(widest)), "fair", "p"]
    rows = []
    for players, block in table.groupby("players", sort=True):
        cells = [
            rate_interval(r["share"], r["ci_low"], r["ci_high"])
            for _, r in block.sort_values("turn_order").iterrows()
        ]
        cells += [""] * (widest - len(cells))
        rows.append([str(players), *cells, pct(1 / int(players)), p_text(block["p_value"].iloc[0])])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        lines.append(
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        )
    for _, block in table.groupby("players", sort=True):
        lines += textwrap.wrap(_finding(block), WIDTH, subsequent_indent="  ")
    mdes = []
    for players, block in table.groupby("players", sort=True):
        p0 = 1 / int(players)
        n = float(block["games"].iloc[0])
        mdes.append(f"{100 * minimum_detectable_effect(np.sqrt(p0 * (1 - p0) / n)):.0f}")
    lines += textwrap.wrap(
        f"This run detects a first player's edge of {'/'.join(mdes)} pts or more "
        f"({'/'.join(str(p) for p in sorted(table['players'].unique()))} players, 80% power)",
        WIDTH,
    )
    return "\n".join(lines)
