"""Deal replicates: each deal played several times per seating, the bots' seeds varied.

Playing a deal once per seating measures the seat and the bots together with the deal's luck;
playing it ``k`` times with the bots' own seeds varied separates what the deal decides from what
the bots' choices do (``analysis.deals``: the deal's share of the variance of a result). The
replicate axis (``deal_replicates``, replicate 0 being the game a run without replicates plays)
belongs to the run specification (``sim.spec``), which the runner plays and a manifest resumes;
this module is how an experiment asks for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from projectl_sim.sim.spec import MAX_REPLICATES, RunSpec

__all__ = ["MAX_REPLICATES", "replicated"]


def replicated(grid: Mapping[str, Any], replicates: int) -> RunSpec:
    """Return the spec of ``grid`` with each deal played ``replicates`` times per seating."""
    return RunSpec.from_mapping({**grid, "deal_replicates": replicates})
