"""Skill tiers: a study played once per tier, or the tiers seated against each other.

A tier is a bot spec standing for a level of skill. ``tiers_study`` plays a grid once per tier,
the line-ups' ``tier`` seats taken by the tier's bot, every tier on the same deals, so a finding
is read tier by tier (``analysis.tiers``: does the first seat's advantage or an expansion's effect
hold for weak and strong players alike). ``tiers_round_robin`` seats the tiers against each other
at 2 players under both seatings: the head-to-head win rates ``tune --objective tiers`` scores.

The tier axis is this module's (``TIERS``, declared to the run specification as the setting
``tiers``, ``run --tiers``): it checks the tiers, lets the line-ups hold the placeholder
``tier``, and expands the grid's plain configurations into one block per tier, the tier's bot in
the placeholder's seats. The runner plays the configurations it is given, and a manifest keeps
the setting, so a tiered run resumes like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from projectl_sim.errors import UsageError
from projectl_sim.sim.spec import (
    PER_CONFIGURATION,
    GameConfig,
    GridAxis,
    RunSpec,
    declare_axis,
    run_bot_name,
    spec_list,
)

__all__ = ["TIER", "TIERS", "tiers_round_robin", "tiers_study"]

# A line-up's seat taken by each tier's bot in turn (``--tiers``).
TIER = "tier"


def _read(value: Any) -> tuple[str, ...]:
    """Return the tiers' bots, normalised, each once."""
    out: dict[str, None] = {}
    for text in spec_list(value, "tiers"):
        if text.strip() == TIER:
            raise UsageError(f"tiers: {TIER!r} is the line-ups' placeholder, not a bot")
        name = run_bot_name(text)
        if name in out:
            raise UsageError(f"tiers: {text!r} names the tier {name} twice")
        out[name] = None
    if not out:
        raise UsageError("tiers: give one or more bots, such as greedy,value,mcts:leaf=value")
    return tuple(out)


def _check(tiers: tuple[str, ...], who: Mapping[str, Any]) -> None:
    """Refuse line-ups with no tier's seat, and a tier that is a bot of the round robin too."""
    lineups = who.get("lineups") or (who["round_robin"],)
    if not any(TIER in lineup for lineup in lineups):
        raise UsageError(
            f"--tiers: no seat of the line-ups is {TIER!r}: write {TIER} where the "
            f"tier's bot sits (--bots {TIER},random), or leave --bots out for self-play"
        )
    clash = [t for t in tiers if t in who.get("round_robin", ())]
    if clash:
        raise UsageError(
            f"--tiers: {clash[0]} is a tier and a bot of the round robin: a pair would "
            "seat it twice"
        )


def _self_play(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return the settings of tiers given without line-ups: each tier in self-play, 2 players
    unless the players are given."""
    players = data.get("players")
    return {"bots": TIER, "players": 2 if players in (None, [], "") else players}


def _expand(configs: list[GameConfig], tiers: tuple[str, ...], scheme: str) -> list[GameConfig]:
    """Return the grid once per tier (outermost: a tier's configurations in a row), the
    placeholder's seats taken by the tier's bot; every tier plays the same deals (shared-deals:
    the setting's; per-configuration: a round robin's setting shares the deals of its first
    configuration within the tier, the others their own)."""
    out = []
    for block, tier in enumerate(tiers):
        start = block * len(configs)
        for c in configs:
            out.append(
                replace(
                    c,
                    config_id=start + c.config_id,
                    lineup=tuple(tier if b == TIER else b for b in c.lineup),
                    tier=tier,
                    template=c.lineup,
                    deals_of=(
                        start + c.deals_of
                        if scheme == PER_CONFIGURATION and c.deals_of is not None
                        else c.deals_of
                    ),
                )
            )
    return out


TIERS = GridAxis(
    key="tiers",
    read=_read,
    expand=_expand,
    check=_check,
    default_bots=_self_play,
    placeholder=TIER,
    unset=f"bots: {TIER!r} stands for each tier's bot: give the tiers (--tiers greedy,value,...)",
    not_in_a_study="a study takes no --tiers: give the seats' bots with --bots",
)
declare_axis(TIERS)


def tiers_study(tiers: Sequence[str], grid: Mapping[str, Any]) -> RunSpec:
    """Return the spec of ``grid`` played once per tier (its line-ups' ``tier`` seats taken by
    each tier's bot; no line-ups: each tier in self-play at 2 players)."""
    return RunSpec.from_mapping({**grid, "tiers": list(tiers)})


def tiers_round_robin(tiers: Sequence[str], grid: Mapping[str, Any]) -> RunSpec:
    """Return the spec of the tiers' round robin: every pair at 2 players, both seatings, on
    the same deals (``grid`` gives the rest: games, seed, rules, expansions...)."""
    return RunSpec.from_mapping({**grid, "round_robin": list(tiers), "players": 2})
