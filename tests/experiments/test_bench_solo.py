"""``benchmarks/solo.py``'s budget curve: bots side by side on one set of solo deals, and the
clairvoyant search that sees the deck order (a benchmark line, never a player)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from paths import ROOT
from script_util import load_script, run_main

from bots import make_bot
from projectl_sim import Rules, play_game
from projectl_sim.engine import HIDDEN, OVER, deal, new_game
from projectl_sim.sim.play import game_seeds

SCRIPT = ROOT / "benchmarks" / "solo.py"
SOLO = Rules(players=1, variant="solo")


@pytest.fixture(scope="module")
def solo() -> Any:
    return load_script(SCRIPT, "bench_solo")


def test_a_curve_line_plays_the_deal_play_game_deals(solo: Any) -> None:
    for seed in (3, 11):
        mine, _, decisions = solo.play_seen(SOLO, seed, make_bot("greedy"), False)
        theirs = play_game(SOLO, [make_bot("greedy")], seed, record=False).state
        assert mine.final_scores() == theirs.final_scores()
        assert mine.opponent_score() == theirs.opponent_score()
        assert decisions > 0


def test_the_clairvoyant_searches_the_true_game_and_the_honest_search_a_guess(solo: Any) -> None:
    deal_rng, _ = game_seeds(5, 1)
    state = new_game(SOLO, setup=deal(SOLO, deal_rng))
    view = state.view(0)
    assert HIDDEN in view.decks[0]  # the view hides the deck
    seer, sees = solo.make_player("clairvoyant:iterations=2")
    assert sees and seer.name == "clairvoyant"
    seer.truth = state
    world = seer._world(view, random.Random(1))
    assert world.decks == state.decks and world is not state  # the true deck, in a copy
    honest, sees = solo.make_player("mcts:iterations=2")
    assert not sees
    guesses = {tuple(map(tuple, honest._world(view, random.Random(r)).decks)) for r in range(4)}
    assert len(guesses) > 1  # re-dealt from the view


def test_the_curve_pairs_every_line_with_the_first_on_the_same_deals(
    solo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(
        solo,
        SCRIPT,
        capsys,
        "--games",
        "2",
        "--seed",
        "4",
        "--bot",
        "greedy",
        "--bot",
        "random",
        "--clairvoyant",
        "iterations=2,work=50",
    )
    assert code is None
    lines = out.splitlines()
    assert lines[0] == "root seed 4, solo normal, unlock take"
    greedy, rand, seer = lines[2:]
    assert greedy.split()[:2] == ["greedy", "2"] and " - " in greedy  # the reference line
    assert rand.startswith("random ") and "[" in rand.split("%", 1)[1]  # paired intervals
    assert seer.startswith("clairvoyant:iterations=2,work=50 ")
    # the random bot's points minus greedy's, by deal
    seeds = [solo.game_seed(s) for s in solo.np.random.SeedSequence(4).spawn(2)]
    diffs = [
        play_game(SOLO, [make_bot("random")], s, record=False).state.final_scores()[0]
        - play_game(SOLO, [make_bot("greedy")], s, record=False).state.final_scores()[0]
        for s in seeds
    ]
    assert f"{sum(diffs) / 2:+5.2f} [" in rand


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bot", "nosuchbot"], "solo.py: "),
        (["--bot", "greedy", "--difficulty", "easy"], "unknown difficulty 'easy'"),
        (["--clairvoyant", "iterations=0"], "solo.py: "),
        (["--bot", "greedy", "--games", "0"], "--games must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_a_non_zero_exit(
    solo: Any, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_main(solo, SCRIPT, capsys, *argv)
    assert exit_.value.code != 0
    last = capsys.readouterr().err.strip().splitlines()[-1]  # argparse's usage comes before
    assert last.startswith("solo.py: ") and message in last


def test_a_clairvoyant_game_ends(solo: Any) -> None:
    bot, sees = solo.make_player("clairvoyant:iterations=2,work=50")
    state, cpu, decisions = solo.play_seen(SOLO, 8, bot, sees)
    assert state.phase == OVER and decisions > 0 and cpu >= 0


def test_the_clairvoyant_solo_search_plays_its_takes_in_the_true_game(solo: Any) -> None:
    deal_rng, _ = game_seeds(5, 1)
    state = new_game(SOLO, setup=deal(SOLO, deal_rng))
    seer, sees = solo.make_player("clairvoyant:solosearch:worlds=1,when=always")
    assert sees and seer.name == "clairvoyant-solosearch" and seer.worlds == 1 and seer.always
    seer.truth = state
    world = seer._world(state.view(0), random.Random(1))
    assert world.decks == state.decks and world is not state
    honest, sees = solo.make_player("solosearch:worlds=1")
    assert not sees
    guesses = {
        tuple(map(tuple, honest._world(state.view(0), random.Random(r)).decks)) for r in range(4)
    }
    assert len(guesses) > 1
    end, _, decisions = solo.play_seen(SOLO, 8, seer, True)
    assert end.phase == OVER and decisions > 0 and seer.searches > 0
