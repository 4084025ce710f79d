"""The experiments package's spec builders: a study once per skill tier, the tiers' round robin,
deal replicates; each the same specification the run command's flags make."""

from __future__ import annotations

import pytest

from projectl_sim.errors import UsageError
from projectl_sim.experiments.replicates import replicated
from projectl_sim.experiments.tiers import tiers_round_robin, tiers_study
from projectl_sim.sim.spec import RunSpec, configurations


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
    assert spec.deal_replicates == 3 and config.per_deal == 6
    with pytest.raises(UsageError, match="--deal-replicates 0"):
        replicated({"bots": "random,setter", "games": 12}, 0)
