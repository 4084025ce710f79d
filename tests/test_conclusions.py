"""The notebooks' answers in words follow the tables they are given (analysis.conclusions)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from analysis_util import G, grid_tables, make_tables

from projectl_sim import analysis as pa


def _duel(strong: str, weak: str, games: int, upsets: int = 0) -> list[G]:
    out = []
    for i in range(games):
        bots = [strong, weak] if i % 2 == 0 else [weak, strong]
        wins = bots.index(strong) if i >= upsets else bots.index(weak)
        ranks = [1, 2] if wins == 0 else [2, 1]
        out.append(G(bots, [10 if r == 1 else 5 for r in ranks], ranks))
    return out


@pytest.mark.parametrize(("strong", "weak"), [("greedy", "random"), ("random", "greedy")])
def test_the_bot_strength_answer_names_the_bot_that_won(strong: str, weak: str) -> None:
    seats, games = make_tables(_duel(strong, weak, 40, upsets=8))
    ratings = pa.bradley_terry(seats, rng=np.random.default_rng(1), n_boot=50)
    text = pa.bot_strength_answer(games, ratings, pa.skill_ladder(seats))
    assert text.startswith(f"Over 40 games, **{strong}** rates highest")
    assert f"clearly ahead of {weak}" in text
    assert "no budget ladder" in text
    unsure = pa.bot_strength_answer(games, pa.bradley_terry(seats, n_boot=0), pd.DataFrame())
    assert "comes without the intervals to tell how sure it is" in unsure


def test_the_bot_strength_answer_reads_the_ladder() -> None:
    helps = _duel("mcts:iterations=8", "mcts:iterations=4", 30, upsets=2)
    even = _duel("mcts:iterations=16", "mcts:iterations=8", 30, upsets=15)
    seats, games = make_tables(helps + even)
    ladder = pa.skill_ladder(seats)
    text = pa.bot_strength_answer(games, pa.bradley_terry(seats, n_boot=0), ladder)
    assert "4 to 8 wins 93% [" in text and "(helps)" in text
    assert "8 to 16 wins 50% [" in text and "not told apart from an even game" in text
    assert text.endswith("Doubling still clearly buys strength up to 4 to 8.")


def test_a_run_of_one_bot_has_nothing_to_rate() -> None:
    seats, games = make_tables([G(["a", "a"], [3, 1], [1, 2])] * 3)
    text = pa.bot_strength_answer(games, pa.bradley_terry(seats), pa.skill_ladder(seats))
    assert text.startswith("None of the 3 games seated two different bots")


def test_the_balance_answer_finds_a_planted_first_player_advantage() -> None:
    rng = np.random.default_rng(4)
    seats, games = grid_tables(rng, games=60, players=(2,), planted={(2, "finesse"): 0.9})
    seat = pa.seat_advantage(seats, by=["players", "expansions"])
    text = pa.balance_answer(games, seat, pa.effects(seats, games))
    assert text.startswith("Over 960 games in 16 configurations (a median of 60 each)")
    high = seat.loc[seat["turn_order"] == 0, "share"].max()  # about 0.9, at 2p Finesse
    assert f"to {100 * high:.0f}% [" in text and "] (2p F), against a fair share" in text
    assert "1 of 16 configurations reject equal shares" in text
    assert "the most uneven is 2p F (p = 0.000)" in text
    assert "at least 18 points at 2 players" in text  # 80% power at 60 games a configuration
    assert "2p F first_player_rate +" in text  # Finesse's effect survives the correction


def test_the_balance_answer_without_a_base_game_says_so() -> None:
    seats, games = make_tables([G(["a", "a"], [3, 1], [1, 2], expansions="finesse")] * 4)
    seat = pa.seat_advantage(seats, by=["players", "expansions"])
    text = pa.balance_answer(games, seat, pa.effects(seats, games))
    assert "in 1 configuration (a median of 4 each)" in text
    assert text.endswith(
        "No expansion set was played next to its base game, so no effect is estimated."
    )


def test_the_puzzle_answer_counts_the_puzzles_taken() -> None:
    columns = {"puzzles_completed": ["W01 B02", "W01"], "puzzles_unfinished": ["", "B03"]}
    seats, games = make_tables([G(["a", "b"], [3, 1], [1, 2], seat=columns)] * 2)
    taken = pa.puzzle_stats(seats)
    text = pa.puzzle_answer(games, taken, pd.DataFrame())
    assert text.startswith("Over 2 games, seats took 8 puzzles (4.0 a game) and completed 75%")
    assert "Most taken: **W01** (4 times, 100% completed)." in text
    old = seats.assign(puzzles_completed=None, puzzles_unfinished=None)
    assert "name no puzzles" in pa.puzzle_answer(games, pa.puzzle_stats(old), pd.DataFrame())


def test_the_solo_answer_gives_each_difficulty_and_no_finesse() -> None:
    solo = [
        G(["greedy"], [20], [1], variant="solo", switches="difficulty=normal", opponent_score=10),
        G(["greedy"], [12], [2], variant="solo", switches="difficulty=normal", opponent_score=15),
        G(["greedy"], [8], [2], variant="solo", switches="difficulty=hard", opponent_score=18),
        G(["greedy", "greedy"], [8, 9], [2, 1]),
    ]
    seats, games = make_tables(solo)
    text = pa.solo_finesse_answer(
        games,
        pa.solo_by_difficulty(seats, games),
        pa.credits(seats, by=["expansions", "players", "bot"]),
        pa.finishing_touches(seats, games, by=["variant", "expansions", "bot"]),
    )
    assert text.startswith("In 3 games against the solo mastermind, **greedy** wins 50% [")
    assert "0% [0, " in text and "at hard" in text
    assert "(mean margin +3.5 points at normal)" in text
    assert "None of the 1 game played Finesse" in text
