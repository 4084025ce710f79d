"""Skill tiers: a study played once per tier, or the tiers seated against each other.

A tier is a bot spec standing for a level of skill. ``tiers_study`` plays a grid once per tier,
the line-ups' ``tier`` seats taken by the tier's bot, every tier on the same deals, so a finding
is read tier by tier (``analysis.tiers``: does the first seat's advantage or an expansion's effect
hold for weak and strong players alike). ``tiers_round_robin`` seats the tiers against each other
at 2 players under both seatings: the head-to-head win rates ``tune --objective tiers`` scores.

The tier axis itself (the ``tiers`` key, its checks and the configurations it makes) belongs to
the run specification (``sim.spec``), since the runner plays it and a manifest resumes it; this
module is how an experiment asks for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from projectl_sim.sim.spec import TIER, RunSpec

__all__ = ["TIER", "tiers_round_robin", "tiers_study"]


def tiers_study(tiers: Sequence[str], grid: Mapping[str, Any]) -> RunSpec:
    """Return the spec of ``grid`` played once per tier (its line-ups' ``tier`` seats taken by
    each tier's bot; no line-ups: each tier in self-play at 2 players)."""
    return RunSpec.from_mapping({**grid, "tiers": list(tiers)})


def tiers_round_robin(tiers: Sequence[str], grid: Mapping[str, Any]) -> RunSpec:
    """Return the spec of the tiers' round robin: every pair at 2 players, both seatings, on
    the same deals (``grid`` gives the rest: games, seed, rules, expansions...)."""
    return RunSpec.from_mapping({**grid, "round_robin": list(tiers), "players": 2})
