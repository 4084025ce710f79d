"""The deal and the setup's reading: the same draws as ``Random``'s own ``shuffle``, ``sample`` and
``randrange`` (a seed deals the same table whichever way the engine computes it), the same
refusals of a malformed setup, and the base game's actions applied by their kind whatever class
carries it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from projectl_sim import RecordError, Rules, new_game
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Take
from projectl_sim.engine.dealing import deal


def reference_table(rules: Rules, rng: random.Random) -> dict[str, Any]:
    """Return the base game's table as dealt with ``Random``'s own methods."""
    cat = rules.catalogue
    white = [cat.puzzles[c].id for c in cat.of_colour("white")]
    black = [cat.puzzles[c].id for c in cat.of_colour("black")]
    white = [pid for pid in white if pid not in rules.added_puzzles]
    black = [pid for pid in black if pid not in rules.added_puzzles]
    rng.shuffle(white)
    black = rng.sample(black, rules.black_deck_size)
    return {"first_player": rng.randrange(rules.players), "white_deck": white, "black_deck": black}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_table_is_dealt_with_randoms_own_draws(players: int) -> None:
    rules = Rules(players=players)
    for seed in range(200):
        got = GameState.deal_table(rules, random.Random(seed))
        assert got == reference_table(rules, random.Random(seed))


def test_a_deal_leaves_the_rng_where_randoms_own_draws_leave_it() -> None:
    rules = Rules()
    a, b = random.Random(7), random.Random(7)
    GameState.deal_table(rules, a)
    reference_table(rules, b)
    assert a.random() == b.random()


def test_a_subclass_of_random_deals_with_its_own_draws() -> None:
    class Reversed(random.Random):
        def shuffle(self, x: Any) -> None:  # type: ignore[override]
            x.reverse()

        def sample(self, population: Any, k: int, *, counts: Any = None) -> list[Any]:
            return list(population)[:k]

    rules = Rules()
    table = GameState.deal_table(rules, Reversed(1))
    cat = rules.catalogue
    white = [cat.puzzles[c].id for c in cat.of_colour("white")]
    black = [cat.puzzles[c].id for c in cat.of_colour("black")]
    assert table["white_deck"] == white[::-1]
    assert table["black_deck"] == black[: rules.black_deck_size]


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda s: s["white_deck"].append(5), "setup.white_deck: unknown puzzle 5"),
        (lambda s: s["white_deck"].append(["W01"]), "setup.white_deck: unknown puzzle ['W01']"),
        (lambda s: s["black_deck"].append("B99"), "setup.black_deck: unknown puzzle 'B99'"),
        (lambda s: s["black_deck"].append(s["white_deck"][0]), "is not a black puzzle"),
        (lambda s: s["black_deck"].append(s["black_deck"][0]), "appears twice"),
    ],
)
def test_a_malformed_setup_is_refused(edit: Any, why: str) -> None:
    rules = Rules()
    setup = deal(rules, random.Random(3))
    edit(setup)
    with pytest.raises(RecordError, match=why.replace("[", r"\[").replace("]", r"\]")):
        new_game(rules, setup=setup)


def test_a_subclass_of_a_base_action_is_applied_by_its_kind() -> None:
    class MyTake(Take):
        __slots__ = ()

    a = new_game(Rules(), seed=5)
    b = new_game(Rules(), seed=5)
    card = a.rows[0][1]
    a.step_unchecked(a.current, Take(card))
    b.step_unchecked(b.current, MyTake(card))
    assert (a.slots, a.rows, a.decks, a.actions_left) == (b.slots, b.rows, b.decks, b.actions_left)
    b.step(b.current, MyTake(b.rows[1][0]))
    assert len(b.slots[b.current]) == 2
