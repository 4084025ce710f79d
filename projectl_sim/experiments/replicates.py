"""Deal replicates: each deal played several times per seating, the bots' seeds varied.

Playing a deal once per seating measures the seat and the bots together with the deal's luck;
playing it ``k`` times with the bots' own seeds varied separates what the deal decides from what
the bots' choices do (``analysis.deals``: the deal's share of the variance of a result).

The replicate axis is this module's (``REPLICATES``, declared to the run specification as the
setting ``deal_replicates``, ``run --deal-replicates``): it checks ``k`` and sets it on every
plain configuration (``GameConfig.replicates``), which the runner plays as ``k`` games per deal
and seating, replicate 0 being the game a run without replicates plays.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from projectl_sim.errors import UsageError
from projectl_sim.sim.spec import GameConfig, GridAxis, RunSpec, declare_axis, whole_number

__all__ = ["MAX_REPLICATES", "REPLICATES", "replicated"]

MAX_REPLICATES = 1000


def _read(value: Any) -> int | None:
    """Return the plays of each deal per seating (None: once, no axis)."""
    k = whole_number(value, "deal_replicates")
    if not 1 <= k <= MAX_REPLICATES:
        raise UsageError(
            f"--deal-replicates {k}: play each deal 1 to {MAX_REPLICATES} times per seating"
        )
    return k if k > 1 else None  # once: the run without the axis (and its id)


def _expand(configs: list[GameConfig], k: int, scheme: str) -> list[GameConfig]:
    """Return the configurations, each deal played ``k`` times under each seating."""
    return [replace(c, replicates=k) for c in configs]


REPLICATES = GridAxis(key="deal_replicates", read=_read, expand=_expand)
declare_axis(REPLICATES)


def replicated(grid: Mapping[str, Any], replicates: int) -> RunSpec:
    """Return the spec of ``grid`` with each deal played ``replicates`` times per seating."""
    return RunSpec.from_mapping({**grid, "deal_replicates": replicates})
