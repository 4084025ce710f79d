"""What a run could not measure, and why: decided here once, read by every table and renderer.

Two cases print a verdict that cannot mean anything, so they get a reason instead:

- *Seat advantage of a line-up of different bots that decide the game.* With seats rotated,
  each turn order's share of the wins is the mean over the bots of each bot's share in that
  turn order (the rotation seats every bot in every order equally often): the seat advantage
  is estimated within bots, pooled over the rotation. When every bot won all or none of its
  games in every turn order (greedy against random), no share can move with the seat and the
  first player wins 1/N by construction: the shares are printed, but no test or verdict. When
  the rotation seated the bots unevenly across the turn orders (a failed game left out, a run
  cut short), a turn order's share mixes the bots' strengths with the seat: no test either, and
  the reason names each bot's seats per turn order.
- *A difference of two rates both at 0% or both at 100%.* Neither side can move in the
  direction of a change, so "no change" would say nothing: the comparison says that nothing
  could be measured. The first player's rate of a line-up of different bots is the same case
  when every bot's own win rate is at 0% or 100% on both sides.

Such rows keep their estimates and intervals, get ``unmeasured_because`` (the reason, in
words; None where the row measured something), a nan ``p_value`` (so no multiple-comparison
family counts them) and are never ``significant``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis.fmt import pct

__all__ = ["difference_unmeasured", "mark_unmeasured", "seat_unmeasured"]


def _at_bound(x: float) -> bool:
    return bool(np.isfinite(x) and (x <= 0 or x >= 1))


def seat_unmeasured(seats: pd.DataFrame) -> str | None:
    """Return why the seat advantage of one configuration's finished seat rows cannot be
    measured (a line-up of different bots, each winning all or none of its games in every turn
    order, or seated unevenly across the turn orders), or None when it can."""
    bots = sorted(seats["bot"].astype(str).unique())
    if len(bots) < 2:
        return None  # one bot in every seat: the shares measure the seats themselves
    shares = seats.groupby(["bot", "turn_order"], observed=True)["win_share"].mean()
    if all(_at_bound(x) for x in shares):
        return (
            f"a line-up of different bots ({', '.join(bots)}), each of which won all or none of "
            "its games in every turn order: the bots decided who won, not the seats"
        )
    counts = seats.groupby(["bot", "turn_order"], observed=True).size().unstack(fill_value=0)
    if (counts.nunique(axis=1) > 1).any():
        seated = "; ".join(
            f"{bot} {'/'.join(str(int(n)) for n in row)}" for bot, row in counts.iterrows()
        )
        return (
            f"a line-up of different bots seated unevenly across the turn orders (seats per "
            f"turn order: {seated}): each turn order's share would mix the bots' strengths with "
            "the seat"
        )
    return None


def difference_unmeasured(kind: str, before: float, after: float) -> str | None:
    """Return why a difference of two rates measures nothing (both 0% or both 100%), or None."""
    if kind != "rate" or not (_at_bound(before) and _at_bound(after)) or before != after:
        return None
    return f"both sides {pct(before)}"


def mark_unmeasured(
    table: pd.DataFrame, before: str, after: str, keys: Sequence[str]
) -> pd.DataFrame:
    """Return a comparison table (a row per comparison and metric: ``kind``, ``metric``,
    ``bot``, ``p_value``, ``significant``) with ``unmeasured_because`` set where it measured
    nothing; ``before`` and ``after`` name its two sides' columns, ``keys`` one comparison."""
    out = table.copy()
    reasons = [
        difference_unmeasured(k, a, b)
        for k, a, b in zip(out["kind"], out[before], out[after], strict=True)
    ]
    out["unmeasured_because"] = pd.Series(reasons, index=out.index, dtype=object)
    if len(out):
        for _, group in out.groupby(list(keys), sort=False, dropna=False):
            bots = group[group["metric"] == "win_rate"]
            if len(bots) >= 2 and bots["unmeasured_because"].notna().all():
                first = group.index[group["metric"] == "first_player_rate"]
                out.loc[first, "unmeasured_because"] = (
                    "every bot won all or none of its games on both sides: the bots decide who "
                    "wins, not the seats"
                )
    unmeasured = out["unmeasured_because"].notna()
    out.loc[unmeasured, "p_value"] = np.nan
    out.loc[unmeasured, "significant"] = False
    return out
