"""The experiments package's spec builders: a study once per skill tier, the tiers' round robin,
deal replicates; each the same specification the run command's flags make."""

from __future__ import annotations

from dataclasses import replace

import pytest

from projectl_sim.errors import UsageError
from projectl_sim.experiments.replicates import replicated
from projectl_sim.experiments.tiers import TIERS, tiers_round_robin, tiers_study
from projectl_sim.sim import spec as run_spec
from projectl_sim.sim.spec import PER_CONFIGURATION, SHARED_DEALS, RunSpec, configurations


def test_a_tiers_study_plays_the_grid_once_per_tier_on_the_same_deals() -> None:
    spec = tiers_study(["greedy", "random"], {"bots": "tier,setter", "games": 4, "seed": 2})
    assert spec == RunSpec.from_mapping(
        {"bots": "tier,setter", "games": 4, "seed": 2, "tiers": "greedy,random"}
    )
    configs = configurations(spec)
    assert [(c.tier, c.lineup) for c in configs] == [
        ("greedy", ("greedy", "setter")),
        ("random", ("random", "setter")),
    ]
    assert configs[0].deal_key == configs[1].deal_key


def test_the_tiers_round_robin_seats_every_pair_at_two_players() -> None:
    spec = tiers_round_robin(["greedy", "random", "setter"], {"games": 4, "players": 3})
    configs = configurations(spec)
    assert {c.players for c in configs} == {2}  # a head-to-head, whatever the grid said
    assert sorted(c.lineup for c in configs) == [
        ("greedy", "random"),
        ("greedy", "setter"),
        ("random", "setter"),
    ]


def test_replicates_play_each_deal_k_times_per_seating() -> None:
    spec = replicated({"bots": "random,setter", "games": 12}, 3)
    (config,) = configurations(spec)
    assert spec.axis("deal_replicates") == 3 and config.per_deal == 6
    with pytest.raises(UsageError, match="--deal-replicates 0"):
        replicated({"bots": "random,setter", "games": 12}, 0)


@pytest.mark.parametrize("scheme", [SHARED_DEALS, PER_CONFIGURATION])
def test_the_tier_axis_is_the_experiments_and_expands_plain_configurations(scheme: str) -> None:
    # the runner's spec knows no tier: the setting is the axis experiments.tiers declares
    assert not hasattr(run_spec, "TIER") and "tiers" not in run_spec.SPEC_KEYS
    tiered = RunSpec.from_mapping(
        {"round_robin": "tier,setter,random", "players": "2,3", "tiers": "greedy,builder"}
    )
    plain = configurations(replace(tiered, axes=()), scheme)  # the grid, the placeholder seated
    assert {c.tier for c in plain} == {None} and any("tier" in c.lineup for c in plain)
    expanded = TIERS.expand(plain, ("greedy", "builder"), scheme)
    assert expanded == configurations(tiered, scheme)
    assert [c.config_id for c in expanded] == list(range(2 * len(plain)))
    # every tier's block deals as the grid does (a round robin's setting shares its deals)
    keys = [c.deal_key for c in expanded]
    half = len(plain)
    if scheme == PER_CONFIGURATION:
        assert keys[half:] == [(k[0] + half,) for k in keys[:half]]
    else:
        assert keys[half:] == keys[:half]
