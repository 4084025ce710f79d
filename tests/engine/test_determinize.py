"""The determinization deals what a view hides with the same draws as ``Random``'s own
``shuffle`` and ``sample`` and the deck re-deal (``redeal``) of a copy: a seeded search plays
the same games whichever way the engine computes it."""

from __future__ import annotations

import random

import pytest
from state_util import play_steps, snapshot

from projectl_sim.engine import OVER, GameState
from projectl_sim.engine.moves import redeal, sample, shuffle, unseen_cards
from projectl_sim.engine.phases import HIDDEN
from projectl_sim.engine.state_data import put
from projectl_sim.rules import Rules


def reference(view: GameState, rng: random.Random) -> GameState:
    """Return the determinization as written with ``Random.shuffle``, ``Random.sample`` and
    ``redeal`` of the state with its piles dealt."""
    hidden = [q for q in range(view.n) if HIDDEN in view.piles[q]]
    if not hidden and not view.hooks.resample_hidden:
        return redeal(view, rng)  # type: ignore[return-value]
    g = view.copy()
    pools = [unseen_cards(view, colour) for colour in (0, 1)]
    in_decks = [len(d) - kb for d, kb in zip(view.decks, view.known_bottom, strict=True)]
    slots = [q for q in hidden for _ in view.piles[q]]
    whites = min(len(slots), max(0, len(pools[0]) - in_decks[0]))
    colours = [0] * whites + [1] * (len(slots) - whites)
    rng.shuffle(colours)
    drawn = [rng.sample(pools[c], min(colours.count(c), len(pools[c]))) for c in (0, 1)]
    piles: dict[int, list[int]] = {q: [] for q in hidden}
    for q, c in zip(slots, colours, strict=True):
        if drawn[c]:
            piles[q].append(drawn[c].pop())
    for q, cards in piles.items():
        g.piles = put(g.piles, q, tuple(cards))
    changed = set(hidden)
    for x in view.hooks.resample_hidden:
        changed.update(x.resample_hidden(g, rng))
    for q in changed:
        g.scores = put(
            g.scores, q, sum(view.tables.points[c] for c in g.piles[q] + g.completed_elsewhere(q))
        )
    return redeal(g, rng)  # type: ignore[return-value]


def test_sample_and_shuffle_draw_as_random_does() -> None:
    for seed in range(40):
        for n in (0, 1, 2, 5, 21, 22, 30, 60, 90):
            population = [3 * i + 1 for i in range(n)]
            for k in sorted({0, min(1, n), n // 3, n // 2, max(0, n - 1), n}):
                a, b = random.Random(seed), random.Random(seed)
                assert sample(a, population, k) == b.sample(population, k)
                assert a.getstate() == b.getstate()
            items = list(population)
            expected = list(population)
            a, b = random.Random(seed), random.Random(seed)
            shuffle(a, items)
            b.shuffle(expected)
            assert items == expected and a.getstate() == b.getstate()
    with pytest.raises(ValueError):
        sample(random.Random(1), [1, 2], 3)


class Biased(random.Random):
    """A ``Random`` that draws its own way: the engine must let it."""

    def shuffle(self, x: list) -> None:  # type: ignore[override]
        x.reverse()

    def sample(self, population, k, *, counts=None):  # type: ignore[no-untyped-def,override]
        return list(population)[:k]


def test_a_subclass_of_random_draws_its_own_way() -> None:
    items = [1, 2, 3]
    shuffle(Biased(0), items)
    assert items == [3, 2, 1]
    assert sample(Biased(0), [5, 6, 7], 2) == [5, 6]


@pytest.mark.parametrize(
    "rules",
    [
        Rules(players=2),
        Rules(players=3),
        Rules(players=4, expansions=("finesse",)),
        Rules(players=2, endless_white_deck=True),
        Rules(players=3, expansions=("ghost_piece", "ambassador_pack")),
        Rules(players=5, variant="line_clear"),
        Rules(players=1, variant="solo"),
    ],
    # a frozenset's repr follows the string hash, which differs between xdist's workers
    ids=["2p", "3p", "4p-finesse", "2p-endless", "3p-ghost-ambassador", "5p-line-clear", "solo"],
)
def test_determinize_deals_as_the_reference(rules: Rules) -> None:
    compared = 0
    for seed in range(4):
        for steps in (0, 7, 25, 60):
            state = play_steps(rules, seed, steps)
            if state.phase == OVER:
                continue
            view = state.view(state.current)
            for k in range(3):
                a, b = random.Random(k), random.Random(k)
                world = view.determinize(a)
                assert snapshot(world) == snapshot(reference(view, b))
                assert a.getstate() == b.getstate()
                compared += 1
    assert compared >= 24
