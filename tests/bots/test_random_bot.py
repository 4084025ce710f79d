"""The random bot's own helpers: they draw exactly what the library calls they stand for draw."""

from __future__ import annotations

import random

import pytest

from bots import make_bot
from bots.random_bot import _nth, best_finish, completing_places, finish_gain, with_credits
from projectl_sim import Rules, play_game
from projectl_sim.engine import FINISHING, PLAY, GameState, finish_options
from projectl_sim.engine.actions import Finish, Place
from projectl_sim.engine.moves import shuffle


class Reseeded(random.Random):
    """A subclass of Random: the helper leaves its shuffle to it."""

    def shuffle(self, x: list) -> None:  # type: ignore[override]
        x.reverse()


def test_shuffle_gives_randoms_permutation_from_the_same_draws() -> None:
    for n in range(70):
        for seed in range(4):
            ours, theirs = list(range(n)), list(range(n))
            a, b = random.Random(seed * 1000 + n), random.Random(seed * 1000 + n)
            shuffle(a, ours)
            b.shuffle(theirs)
            assert ours == theirs
            assert a.random() == b.random()  # as many draws made


def test_shuffle_leaves_a_subclass_of_random_to_its_own_shuffle() -> None:
    items = [1, 2, 3]
    shuffle(Reseeded(0), items)
    assert items == [3, 2, 1]


def _listed_best(view: GameState) -> Finish:
    """The Finishing Touches of the most gain among every option listed, the first on a tie."""
    best = max(finish_options(view), key=lambda a: finish_gain(view, a))  # type: ignore[arg-type]
    if finish_gain(view, best) <= 0:  # type: ignore[arg-type]
        return Finish(())
    return with_credits(view, best)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "options",
    [
        {"players": 2},
        {"players": 4},
        {"players": 2, "expansions": ("finesse",)},
        {"players": 2, "expansions": ("ghost_piece",)},
        {"players": 3, "expansions": ("ambassador_pack", "phoenix", "endless")},
        {"players": 1, "variant": "solo"},
        {"players": 5, "variant": "line_clear"},
    ],
)
def test_best_finish_is_the_listed_options_best(options: dict) -> None:
    rules = Rules(**options)
    seen = [0, 0]

    def compare(state: GameState, _p: int, _a: object) -> None:
        if state.phase == FINISHING:
            view = state.view(state.current)
            ours = best_finish(view)
            assert ours == _listed_best(view)
            assert type(ours) is type(_listed_best(view))  # paid with Credits alike
            seen[0] += 1
            seen[1] += bool(ours.placements)

    for seed in range(40):
        play_game(rules, [make_bot("random")] * rules.players, seed, on_step=compare)
    assert seen[0] >= 30 and seen[1] >= 10, seen  # many end positions, many with a plan


@pytest.mark.parametrize(
    "options", [{"players": 2}, {"players": 3, "expansions": ("finesse", "ghost_piece")}]
)
def test_greedys_finishing_touches_are_the_listed_options_best(options: dict) -> None:
    rules = Rules(**options)
    greedy = make_bot("greedy")
    seen = [0, 0]

    def compare(state: GameState, _p: int, _a: object) -> None:
        if state.phase == FINISHING:
            view = state.view(state.current)
            ours = greedy.finishing_touches(view, random.Random(0))
            listed = _listed_best(view)
            assert ours == listed and type(ours) is type(listed)
            seen[0] += 1
            seen[1] += bool(ours.placements)

    for seed in range(12):
        play_game(rules, [make_bot("greedy")] * rules.players, seed, on_step=compare)
    assert seen[0] >= 20 and seen[1] >= 1, seen  # greedy rarely leaves a puzzle to finish


@pytest.mark.parametrize(
    "options",
    [{"players": 2}, {"players": 2, "expansions": ("ghost_piece", "phoenix")}],
)
def test_completing_places_and_the_place_draw_follow_the_listing(options: dict) -> None:
    """``completing_places`` is every listed Place that fills its puzzle, in the listing's order;
    the Place draw's r-th placement (``_nth``) is the r-th of the owned pieces' placements listed
    puzzle by puzzle, then by piece, then by mask."""
    rules = Rules(**options)
    seen = [0, 0]

    def compare(state: GameState, _p: int, _a: object) -> None:
        if state.phase != PLAY:
            return
        view = state.view(state.current)
        t = view.tables
        slots = view.slots[view.current]
        supply = view.placeable_supply(view.current)
        empty = {card: t.recess[card] & ~filled for card, filled, _ in slots}
        listed = [a for a in view.place_actions() if isinstance(a, Place)]
        assert completing_places(view) == [a for a in listed if a.mask == empty[a.card]]
        seen[0] += bool(completing_places(view))
        fits = [t.fit_groups(card, empty[card]) for card, _, _ in slots]
        drawn = [
            (i, piece, m)
            for i in range(len(slots))
            for piece, masks in fits[i]
            if supply[piece]
            for m in masks
        ]
        assert [(slots[i][0], piece, m) for i, piece, m in drawn] == [
            (a.card, a.piece, a.mask) for a in listed
        ]
        assert [_nth(fits, supply, r) for r in range(len(drawn))] == drawn
        seen[1] += len(drawn)

    for seed in range(12):
        play_game(rules, [make_bot("random")] * rules.players, seed, on_step=compare)
    assert seen[0] >= 20 and seen[1] >= 10_000, seen
