"""The Endless White Deck: the ruling of /work/shared/rules/README.md ("Other expansions and
variants") and the readings written in ``projectl_sim.expansions.endless``, by the golden records
``tests/records/endless/*.json`` (built by ``tests/ambassador_records.py``), then the seed in
setups and records, hidden information, invariants and random play with reshuffles.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from records_util import ids, load, prefix

from bots import make_bot
from projectl_sim import IllegalActionError, RecordError, Rules, RulesError, new_game
from projectl_sim.engine import FINISHING, HIDDEN, GameState, deal, setup_of
from projectl_sim.engine.actions import WHITE
from projectl_sim.engine.invariants import InvariantError, check_invariants
from projectl_sim.engine.record import RecordWriter, replay
from projectl_sim.expansions.ambassador_pack import ambassadors as ambassadors_of
from projectl_sim.expansions.endless import endless as endless_of
from projectl_sim.expansions.endless import new_deck_order
from projectl_sim.sim.play import game_seeds

SEED = 20261129  # the records' reshuffle seed (tests/ambassador_records.py)


def run(name: str, n: int | None = None) -> GameState:
    rec = load(name)
    return replay(rec if n is None else prefix(rec, n)).state


def noted(state: GameState) -> list[list[str]]:
    assert endless_of(state) is not None
    return [ids(state, cards) for cards in endless_of(state).noted]


# -- the reshuffle ---------------------------------------------------------------------------------
def test_an_empty_deck_with_nothing_completed_stays_empty_and_the_row_shrinks() -> None:
    # round 1: p0 takes W22, W23, W09 (the last draw empties the deck), p1 takes W10
    state = run("endless/reshuffle", 4)
    assert state.decks[WHITE] == () and endless_of(state).reshuffles == 0  # type: ignore[union-attr]
    assert ids(state, state.rows[WHITE]) == ["W24", "W25", "W26"]
    assert "take blind from the white deck" not in [
        state.describe(a) for a in state.legal_actions()
    ]


def test_the_first_white_completion_reshuffles_and_fills_the_row() -> None:
    # round 2, action 6: p0 completes W22 (0 points): it is noted, and the new deck [W22] fills
    # the row's gap at once; the deck is empty again (W22 was all there was)
    state = run("endless/reshuffle", 7)
    assert noted(state) == [["W22"], []] and state.piles[0] == ()
    assert ids(state, state.rows[WHITE]) == ["W24", "W25", "W26", "W22"]
    assert state.decks[WHITE] == () and endless_of(state).reshuffles == 1  # type: ignore[union-attr]
    # W23 next (action 7): reshuffle 1, the row is full, so the new deck keeps it
    state = run("endless/reshuffle", 8)
    assert noted(state) == [["W22", "W23"], []] and ids(state, state.decks[WHITE]) == ["W23"]
    # W09 (action 8, 1 point) is completed while the deck has a card: no reshuffle
    state = run("endless/reshuffle", 9)
    assert ids(state, state.piles[0]) == ["W09"] and state.scores[0] == 1
    assert endless_of(state).reshuffles == 2  # type: ignore[union-attr]


def test_the_action_that_empties_the_deck_reshuffles_every_pile_in_the_seeds_order() -> None:
    # p1 completes W10 and takes W23 blind (action 11): the deck is empty, and the completed
    # whites of both piles (W09, W10) are noted and shuffled from the seed (reshuffle number 2)
    before = run("endless/reshuffle", 11)
    assert ids(before, before.piles[0]) == ["W09"] and ids(before, before.piles[1]) == ["W10"]
    state = run("endless/reshuffle", 12)
    assert noted(state) == [["W22", "W23", "W09"], ["W10"]]
    assert state.piles == ((), ())
    cat = state.catalogue
    order = new_deck_order([cat.puzzle_index("W09"), cat.puzzle_index("W10")], SEED, 2)
    assert state.decks[WHITE] == order and ids(state, order) == ["W10", "W09"]
    assert endless_of(state).reshuffles == 3  # type: ignore[union-attr]
    # the points are kept: scores 1 and 1
    assert state.scores == (1, 1)


def test_points_and_the_completed_count_are_kept_to_the_end() -> None:
    state = run("endless/reshuffle")
    assert state.final_scores() == [1, 1]
    # the tie-break counts noted puzzles: 3 to 1 (the piles are empty; the supplies tie at 5
    # pieces each, so without the notes the win would be shared)
    assert [state.completed_count(p) for p in (0, 1)] == [3, 1]
    assert [sum(s) for s in state.supply] == [5, 5]
    assert state.winners() == [0]
    result = load("endless/reshuffle")["result"]
    assert result["completed"] == [3, 1] and result["winners"] == [0]
    assert result["reshuffles"] == 3


def test_the_text_board_shows_notes_and_ambassadors() -> None:
    from projectl_sim.engine.render import render

    text = render(run("endless/ambassador_kept", 14))
    assert "player 0: pile 2, completed 2 [], Ambassadors 1, noted [AW01 AW01]," in text
    view = render(run("endless/reshuffle", 12).view(1))
    assert "player 0: pile 0, completed 3 [], noted [? ? ?]," in view


def test_no_reshuffle_during_finishing_touches() -> None:
    # ambassador_kept: p0 completes AW01 in Finishing Touches with the white deck empty
    rec = load("endless/ambassador_kept")
    before = run("endless/ambassador_kept", len(rec["actions"]) - 2)
    assert before.phase == FINISHING and before.decks[WHITE] == ()
    end = run("endless/ambassador_kept")
    assert ids(end, end.piles[0]) == ["AW01"] and end.decks[WHITE] == ()
    assert endless_of(end).reshuffles == 2  # type: ignore[union-attr]


def test_ambassadors_are_kept_across_a_reshuffle_and_a_puzzle_completes_again() -> None:
    # AW01 completed (action 7): an Ambassador, reshuffle 0 (AW01 back as the deck), taken blind
    state = run("endless/ambassador_kept", 8)
    assert ambassadors_of(state) is not None and ambassadors_of(state).held == (1, 0)
    assert noted(state) == [["AW01"], []] and ids(state, state.decks[WHITE]) == ["AW01"]
    # round 3: the Ambassador is used on the new AW01, which completes again: a second one
    state = run("endless/ambassador_kept", 14)
    assert ambassadors_of(state).held == (1, 0) and ambassadors_of(state).used == (1, 0)  # type: ignore[union-attr]
    assert noted(state) == [["AW01", "AW01"], []] and state.scores[0] == 2
    result = load("endless/ambassador_kept")["result"]
    assert result["ambassadors"] == [1, 0] and result["completed"] == [3, 0]
    assert result["scores"][0] == 1 + 1 + 1 - 2  # three times AW01, two Finishing pieces


# -- setup, records, rules -------------------------------------------------------------------------
def test_the_seed_is_dealt_last_and_written_in_the_setup() -> None:
    plain = deal(Rules(players=3), random.Random(8))
    endless = deal(Rules(players=3, endless_white_deck=True), random.Random(8))
    seed = endless.pop("reshuffle_seed")
    assert endless == plain and isinstance(seed, int) and 0 <= seed < 2**53
    state = new_game(
        Rules(players=3, endless_white_deck=True), setup={**plain, "reshuffle_seed": 5}
    )
    assert setup_of(state)["reshuffle_seed"] == 5
    assert "reshuffle_seed" not in setup_of(new_game(Rules(players=3), setup=plain))


@pytest.mark.parametrize("bad", [None, "12", -1, True, 1.5])
def test_a_setup_without_a_good_seed_is_a_record_error(bad: Any) -> None:
    setup = deal(Rules(players=2), random.Random(1))
    if bad is not None:
        setup["reshuffle_seed"] = bad
    with pytest.raises(RecordError, match=r"setup.reshuffle_seed must be a whole number >= 0"):
        new_game(Rules(players=2, endless_white_deck=True), setup=setup)


def test_solo_has_no_endless_white_deck() -> None:
    with pytest.raises(RulesError, match="endless_white_deck does not apply to the solo variant"):
        Rules(players=1, variant="solo", endless_white_deck=True)


# -- views -----------------------------------------------------------------------------------------
def test_views_hide_the_seed_and_others_notes_and_redeal_draws_a_new_seed() -> None:
    state = run("endless/reshuffle", 12)
    view = state.view(1)
    assert endless_of(view) is not None and endless_of(view).seed is None
    assert endless_of(view).noted == ((HIDDEN,) * 3, (state.catalogue.puzzle_index("W10"),))
    assert view.scores == (0, 1) and view.completed_count(0) == 3  # counts are public
    assert all(c == HIDDEN for c in view.decks[WHITE])
    check_invariants(view)
    known = Rules(players=2, endless_white_deck=True, known_victory_points=True)
    rec = prefix(load("endless/reshuffle"), 12)
    rec["rules"]["known_victory_points"] = True
    assert Rules.from_json(rec["rules"]) == known
    assert endless_of(replay(rec).state.view(1)).noted == endless_of(state).noted  # type: ignore[union-attr]
    a, b = view.redeal(random.Random(1)), view.redeal(random.Random(2))
    assert endless_of(a).seed is not None and endless_of(a).seed != endless_of(b).seed  # type: ignore[union-attr]
    assert len(a.decks[WHITE]) == len(state.decks[WHITE])
    assert set(a.decks[WHITE]) <= set(view.unseen_cards(WHITE))


def test_a_view_cannot_reshuffle_until_redealt() -> None:
    # before p1's blind take (action 11) the deck holds one card: a view knows nothing of it,
    # and a redealt view reshuffles with its own seed, not the game's
    rec = prefix(load("endless/reshuffle"), 11)
    rec["rules"]["known_victory_points"] = True  # both piles seen: both cards go back
    state = replay(rec).state
    view = state.view(1)
    take = next(a for a in view.legal_actions() if view.describe(a).startswith("take blind"))
    with pytest.raises(IllegalActionError, match=r"redeal\(\) it first"):
        view.copy().apply(take)
    orders = set()
    for k in range(40):
        world = view.redeal(random.Random(k))
        world.apply(take)
        orders.add(world.decks[WHITE])
        check_invariants(world)
    assert len(orders) == 2  # both orders of W09 and W10: the seed is not guessable


def test_invariants_catch_a_missed_reshuffle_and_a_noted_score() -> None:
    state = run("endless/reshuffle", 9)  # W09 in p0's pile, W23 in the deck
    broken = state.copy()
    broken.decks = ((), broken.decks[1])  # white, black
    broken.rows[WHITE] = broken.rows[WHITE] + (state.decks[WHITE][0],)
    with pytest.raises(InvariantError, match="white deck is empty while completed white"):
        check_invariants(broken)
    wrong = state.copy()
    wrong.scores = (wrong.scores[0] + 1, *wrong.scores[1:])
    with pytest.raises(InvariantError, match="is not its completed puzzles' points"):
        check_invariants(wrong)


# -- random play with reshuffles -------------------------------------------------------------------
def short_white_game(
    rules: Rules, seed: int, whites: int, bots: list[str] | None = None
) -> tuple[GameState, dict[str, Any]]:
    """Play a seeded game whose white deck is cut to ``whites`` cards (so reshuffles happen),
    checking the invariants of the state and of the mover's view after every action."""
    deal_rng, rngs = game_seeds(seed, rules.players)
    setup = deal(rules, deal_rng)
    setup["white_deck"] = setup["white_deck"][:whites]
    state = new_game(rules, setup=setup)
    players = [make_bot(b) for b in (bots or ["random"] * rules.players)]
    # no seed in the record: the setup is not the one the seed deals (its deck is cut)
    writer = RecordWriter.start(state, None, [repr(b) for b in players])
    while not state.is_over:
        seat = state.current
        action = players[seat](state.view(seat), rngs[seat])
        state.step(seat, action)
        writer.add(seat, action)
        check_invariants(state)
        if not state.is_over:
            check_invariants(state.view(state.current))
        if writer.moves and len(writer.moves) > 5000:
            state.truncate("max_decisions")
    return state, writer.to_json(state)


COMBOS = [
    (2, frozenset()),
    (3, frozenset({"ambassador_pack"})),
    (4, frozenset({"phoenix", "finesse"})),
    (2, frozenset({"ambassador_pack", "phoenix", "finesse"})),
    # Line Clear: two white rows of 3 refill from the new deck
    (5, frozenset({"ambassador_pack"})),
    (6, frozenset({"phoenix", "finesse"})),
]


@pytest.mark.parametrize(("players", "expansions"), COMBOS)
def test_random_play_with_reshuffles_keeps_every_invariant_and_replays(
    players: int, expansions: frozenset[str]
) -> None:
    variant = "line_clear" if players >= 5 else "standard"
    rules = Rules(players=players, variant=variant, expansions=expansions, endless_white_deck=True)
    reshuffles: Counter[int] = Counter()
    for seed in range(40):
        state, rec = short_white_game(rules, seed, whites=6 if players < 5 else 9)
        reshuffles[endless_of(state).reshuffles] += 1  # type: ignore[union-attr]
        again = replay(rec).state
        assert again.final_scores() == state.final_scores()
        assert endless_of(again) == endless_of(state)
        assert rec["result"]["reshuffles"] == endless_of(state).reshuffles  # type: ignore[union-attr]
    assert sum(k * v for k, v in reshuffles.items()) >= 40, reshuffles


def test_greedy_plays_a_long_endless_game() -> None:
    rules = Rules(players=2, expansions={"ambassador_pack"}, endless_white_deck=True)
    total = 0
    for seed in range(4):
        state, _ = short_white_game(rules, seed, whites=8, bots=["greedy", "random"])
        total += endless_of(state).reshuffles  # type: ignore[union-attr]
        assert state.end_reason == "rules"
    assert total > 0


def test_base_results_have_no_new_keys() -> None:
    from projectl_sim.engine.record import result_of

    state = replay(load("scoring")).state
    assert endless_of(state) is None and ambassadors_of(state) is None
    assert set(result_of(state)) == {"scores", "winners", "completed", "end_reason", "rounds"}


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("endless", [False, True])
def test_every_combination_of_these_expansions_in_random_play(players: int, endless: bool) -> None:
    from itertools import combinations

    names = ("ambassador_pack", "phoenix", "finesse")
    subsets = [frozenset(c) for k in range(4) for c in combinations(names, k)]
    for expansions in subsets:
        rules = Rules(players=players, expansions=expansions, endless_white_deck=endless)
        for seed in range(25):
            state, rec = short_white_game(rules, 1000 + seed, whites=6 if endless else 40)
            assert replay(rec).state.final_scores() == state.final_scores()
