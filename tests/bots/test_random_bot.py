"""The random bot's own helpers: they draw exactly what the library calls they stand for draw."""

from __future__ import annotations

import random

from bots.random_bot import _shuffle


class Reseeded(random.Random):
    """A subclass of Random: the helper leaves its shuffle to it."""

    def shuffle(self, x: list) -> None:  # type: ignore[override]
        x.reverse()


def test_shuffle_gives_randoms_permutation_from_the_same_draws() -> None:
    for n in range(70):
        for seed in range(4):
            ours, theirs = list(range(n)), list(range(n))
            a, b = random.Random(seed * 1000 + n), random.Random(seed * 1000 + n)
            _shuffle(a, ours)
            b.shuffle(theirs)
            assert ours == theirs
            assert a.random() == b.random()  # as many draws made


def test_shuffle_leaves_a_subclass_of_random_to_its_own_shuffle() -> None:
    items = [1, 2, 3]
    _shuffle(Reseeded(0), items)
    assert items == [3, 2, 1]
