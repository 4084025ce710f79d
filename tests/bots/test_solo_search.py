"""The solo search (``solosearch``): greedy outside its takes, legal, blind to the deck order."""

from __future__ import annotations

import random

import pytest

from bots import make_bot
from bots.solo_search import SoloSearchBot
from bots.value import play_out
from projectl_sim import Rules, play_game
from projectl_sim.engine import OVER, deal, new_game
from projectl_sim.engine.actions import Take, TakeDeck
from projectl_sim.errors import UsageError


def _solo_state(seed: int, actions: int, **rules: object):
    """Return a solo game after ``actions`` of greedy's actions (seeded deal)."""
    r = Rules(players=1, variant="solo", **rules)
    state = new_game(r, setup=deal(r, random.Random(seed)))
    greedy = make_bot("greedy")
    rng = random.Random(seed)
    for _ in range(actions):
        state.step(0, greedy(state.view(0), rng))
    return state


def test_outside_solo_it_plays_as_greedy() -> None:
    rules = Rules(players=2)
    a = play_game(rules, [make_bot("solosearch"), make_bot("greedy")], 3).record_json()
    b = play_game(rules, [make_bot("greedy"), make_bot("greedy")], 3).record_json()
    assert a["actions"] == b["actions"] and a["actions"]


@pytest.mark.parametrize(
    "rules",
    [{}, {"difficulty": "unbeatable", "solo_unlock": "pass"}, {"expansions": {"finesse"}}],
    ids=["normal", "unbeatable-pass", "finesse-solo"],
)
def test_it_plays_solo_games_to_the_end_legally(rules: dict) -> None:
    bot = SoloSearchBot(worlds=2)
    outcome = play_game(Rules(players=1, variant="solo", **rules), [bot], 5, record=False)
    assert outcome.state.phase == OVER
    assert bot.searches > 0 and bot.rollouts >= 2 * bot.searches


def test_the_deck_order_never_reaches_its_choice() -> None:
    """Two games alike but for the order of the unseen deck get the same answer."""
    state = _solo_state(11, 4)
    other = state.view(0).determinize(random.Random(99))  # the same table, the deck re-dealt
    assert other.decks != state.decks
    bot = SoloSearchBot(worlds=4, when="always")
    mine = bot(state.view(0), random.Random(1))
    assert bot.searches == 1
    assert SoloSearchBot(worlds=4, when="always")(other.view(0), random.Random(1)) == mine


def test_it_searches_only_the_takes_and_keeps_greedys_choice_on_a_tie() -> None:
    state = _solo_state(11, 0)
    bot = SoloSearchBot(worlds=3, margin=0.0)
    rng = random.Random(2)
    choice = bot(state.view(0), rng)
    greedy = make_bot("greedy")(state.view(0), random.Random(2))
    if isinstance(greedy, (Take, TakeDeck)):
        assert bot.searches == 1
        assert isinstance(choice, (Take, TakeDeck))
    else:
        assert bot.searches == 0 and choice == greedy


def test_the_search_takes_the_best_mean_over_the_same_worlds() -> None:
    """Searched with the deck played out, each candidate's value is the mean over the worlds,
    so the chosen one is never worse than greedy's own choice in those worlds."""
    state = _solo_state(4, 0)
    view = state.view(0)
    takes = view.take_actions()
    bot = SoloSearchBot(worlds=6)
    worlds_rng = random.Random(8)
    best = bot._search(view, takes, worlds_rng)
    worlds_rng = random.Random(8)
    worlds = [(view.determinize(worlds_rng), worlds_rng.getrandbits(32)) for _ in range(6)]
    value = {a: sum(bot._play_out(w, a, s) for w, s in worlds) for a in takes}
    assert value[best] == max(value.values())


@pytest.mark.parametrize(
    "spec",
    [
        "solosearch:worlds=0",
        "solosearch:when=never",
        "solosearch:margin=-1",
        "solosearch:soft=-1",
        "solosearch:points=-0.1",
        "solosearch:confirm=-1",
        "solosearch:model=candidate-9271b03f1f1c",  # a model without a leaf that reads it
        "solosearch:leaf=1,hash=000000000000",
    ],
)
def test_bad_parameters_are_refused(spec: str) -> None:
    with pytest.raises(UsageError):
        make_bot(spec)


def test_halving_drops_the_worse_half_after_each_quarter() -> None:
    state = _solo_state(4, 0)
    view = state.view(0)
    takes = view.take_actions()
    assert len(takes) >= 4
    full, halved = SoloSearchBot(worlds=8), SoloSearchBot(worlds=8, halving=2)
    full._search(view, takes, random.Random(3))
    halved._search(view, takes, random.Random(3))
    n = len(takes)
    # a quarter of the worlds for all, the next quarter for half, the last half for a quarter
    assert full.rollouts == 8 * n
    assert halved.rollouts == 2 * n + 2 * ((n + 1) // 2) + 4 * (((n + 1) // 2 + 1) // 2)


def test_soft_scores_a_world_by_a_logistic_of_the_margin() -> None:
    """``soft`` turns a world's win into a logistic of its margin (centred half a point above a
    tie, which the mastermind wins): a one-point win is worth more than a half, a tie less."""
    state = _solo_state(4, 0)
    view = state.view(0)
    world = view.determinize(random.Random(5))
    take = view.take_actions()[0]
    hard, soft = SoloSearchBot(margin=0.0), SoloSearchBot(margin=0.0, soft=2.0)
    end = world.copy()
    end.apply(take)
    play_out(end, hard.rollout, random.Random(6))
    margin = end.final_scores()[0] - end.opponent_score()
    value = soft._play_out(world, take, 6)
    assert 0.0 < value < 1.0
    assert (value > 0.5) == (margin >= 1) == (hard._play_out(world, take, 6) == 1.0)


def test_the_prior_keeps_greedys_choice_unless_beaten_by_it() -> None:
    state = _solo_state(4, 0)
    view = state.view(0)
    takes = view.take_actions()
    assert SoloSearchBot(worlds=4, prior=100.0)._search(view, takes, random.Random(8)) == takes[0]


def test_points_adds_the_players_own_score_to_a_worlds_value() -> None:
    state = _solo_state(4, 0)
    view = state.view(0)
    world = view.determinize(random.Random(5))
    take = view.take_actions()[0]
    end = world.copy()
    end.apply(take)
    play_out(end, SoloSearchBot().rollout, random.Random(6))
    own, margin = end.final_scores()[0], end.final_scores()[0] - end.opponent_score()
    win = 1.0 if end.winners() else 0.0
    value = SoloSearchBot(margin=0.05, points=0.1)._play_out(world, take, 6)
    assert value == pytest.approx(win + 0.05 * margin + 0.1 * own)
    assert own > 0 and value != SoloSearchBot(margin=0.05)._play_out(world, take, 6)


def test_confirm_keeps_a_deviation_only_if_fresh_worlds_confirm_it() -> None:
    """Where the first deal of worlds prefers another candidate to greedy's choice, the two are
    played again in ``confirm`` fresh worlds (drawn next from the same rng) and the other one is
    kept only if it beats greedy's choice there too."""
    for seed in range(40):
        view = _solo_state(seed, 0).view(0)
        cands = view.take_actions()
        plain = SoloSearchBot(worlds=6)
        rng = random.Random(seed)
        first = plain._search(view, cands, rng)
        if len(cands) >= 2 and first != cands[0]:
            break
    else:
        raise AssertionError("no deal where the first worlds leave greedy's choice")
    gap = 0.0
    for _ in range(5):  # the fresh worlds, as the confirming search draws them after the first
        world, play = view.determinize(rng), rng.getrandbits(32)
        gap += plain._play_out(world, first, play) - plain._play_out(world, cands[0], play)
    bot = SoloSearchBot(worlds=6, confirm=5)
    choice = bot._search(view, cands, random.Random(seed))
    assert choice == (first if gap > 0 else cands[0])
    assert bot.rollouts == 6 * len(cands) + 2 * 5
    # a candidate never beats itself in the fresh worlds (a tie keeps greedy's choice)
    assert bot._confirmed(view, cands[0], cands[0], random.Random(1)) is False


def test_a_value_leaf_scores_the_position_turns_later_with_the_model() -> None:
    """``leaf=N`` stops each play-out when N more of the player's turns have begun and asks the
    model; the play-out is shorter than one to the end, and the game still ends legally."""
    state = _solo_state(4, 0)
    view = state.view(0)
    world = view.determinize(random.Random(5))
    take = view.take_actions()[0]
    bot = SoloSearchBot(leaf=1, worlds=2)
    assert bot.model is not None
    value = bot._play_out(world, take, 3)
    assert -100.0 < value < 100.0
    assert world.turn == view.turn  # the world itself is not played on
    outcome = play_game(Rules(players=1, variant="solo"), [bot], 5, record=False)
    assert outcome.state.phase == OVER and bot.searches > 0


def test_its_name_gives_the_non_default_options_and_a_leafs_model_by_hash() -> None:
    assert repr(make_bot("solosearch")) == "solosearch"
    assert (
        repr(make_bot("solosearch:prior=0.05,when=always")) == "solosearch:when=always,prior=0.05"
    )
    leaf = make_bot("solosearch:leaf=1,model=candidate-9271b03f1f1c")
    assert repr(leaf) == "solosearch:leaf=1,model=candidate-9271b03f1f1c,hash=9271b03f1f1c"
    assert repr(make_bot(repr(leaf))) == repr(leaf)  # the name is a spec of the same bot
