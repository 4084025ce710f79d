"""A game's rngs: numpy's SeedSequence children, whether computed by numpy or without it."""

from __future__ import annotations

import numpy as np
import pytest

from projectl_sim.engine import rng_from_seed
from projectl_sim.sim.play import game_seeds


def _numpy_seeds(seed: int, players: int, replicate: int) -> list[tuple[object, ...]]:
    """The rngs' states as numpy's SeedSequence spawns them (play's seeding discipline)."""
    ss = np.random.SeedSequence(seed)
    children = ss.spawn(1 + players)
    if replicate:
        first = 1 + replicate * players
        children[1:] = [
            np.random.SeedSequence(ss.entropy, spawn_key=(first + p,)) for p in range(players)
        ]
    return [rng_from_seed(c).getstate() for c in children]


SEEDS = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, 2**64, 2**127 + 5, 2**128, 2**200 + 3]
SEEDS += [int(s) for s in np.random.SeedSequence(51).generate_state(60, np.uint64)]


@pytest.mark.parametrize("players", [1, 2, 4, 6])
@pytest.mark.parametrize("replicate", [0, 1, 7])
def test_int_seeds_give_numpys_children(players: int, replicate: int) -> None:
    for seed in SEEDS:
        deal_rng, seat_rngs = game_seeds(seed, players, replicate)
        got = [deal_rng.getstate()] + [r.getstate() for r in seat_rngs]
        assert got == _numpy_seeds(seed, players, replicate), seed


def test_a_seed_sequence_and_its_int_give_the_same_rngs() -> None:
    for seed in SEEDS[:12]:
        by_int = game_seeds(seed, 3, 2)
        by_ss = game_seeds(np.random.SeedSequence(seed), 3, 2)
        assert by_int[0].getstate() == by_ss[0].getstate()
        assert [r.getstate() for r in by_int[1]] == [r.getstate() for r in by_ss[1]]


def test_a_negative_seed_is_refused() -> None:
    with pytest.raises(ValueError):
        game_seeds(-1, 2)
