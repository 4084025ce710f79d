"""Pairwise decomposition, head to head, and the one rating (Plackett-Luce, one anchor) recovering
known strengths."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from analysis_util import G, make_tables

from projectl_sim import analysis as pa_
from projectl_sim.analysis.ratings import ELO, RATING_ANCHOR, rate_bots


def test_pairwise_decomposition_of_a_three_player_game_with_a_shared_win() -> None:
    seats, _ = make_tables(
        [
            G(["a", "b", "c"], [9, 9, 2], [1, 1, 3]),
            G(["a", "a", "c"], [9, 3, 2], [1, 2, 3]),  # a vs a says nothing about bots
            G(["a", "c"], [1, 2], [2, 1], error="boom"),  # failed
        ]
    )
    pairs = pa_.pairwise(seats)
    got = Counter((r.game_id, r.bot, r.opponent, r.score) for r in pairs.itertuples())
    assert got == Counter(
        {
            (0, "a", "b", 0.5): 1,
            (0, "b", "a", 0.5): 1,
            (0, "a", "c", 1.0): 1,
            (0, "c", "a", 0.0): 1,
            (0, "b", "c", 1.0): 1,
            (0, "c", "b", 0.0): 1,
            (1, "a", "c", 1.0): 2,  # both a seats beat c
            (1, "c", "a", 0.0): 2,
        }
    )
    assert len(pairs) == 6 + 4  # two a-vs-c matches in game 1, from both sides
    h2h = pa_.head_to_head(seats).set_index(["bot", "opponent"])
    assert h2h.loc[("a", "c"), "matches"] == 3 and h2h.loc[("a", "c"), "wins"] == 3
    assert h2h.loc[("a", "b"), "win_rate"] == 0.5
    matrix = pa_.head_to_head_matrix(seats)
    assert matrix.loc["c", "a"] == 0 and math.isnan(matrix.loc["a", "a"])


def test_head_to_head_of_no_games_is_empty() -> None:
    seats, _ = make_tables([G(["a", "a"], [1, 2], [2, 1])])
    assert pa_.head_to_head(seats).empty and pa_.head_to_head_matrix(seats).empty
    assert rate_bots(seats).empty


def test_a_bot_that_never_wins_is_unbounded_below_not_given_a_finite_rating() -> None:
    # a beat b five times and never lost; c lost its only game to b: no finite maximum for
    # either, whatever prior would make one up (it used to say c = -1104 [-1157, -1073])
    seats, _ = make_tables([G(["a", "b"], [9, 1], [1, 2])] * 5 + [G(["b", "c"], [5, 4], [1, 2])])
    ratings = rate_bots(seats).set_index("bot")
    assert list(ratings.index) == ["a", "b", "c"]
    assert ratings.loc["a", "rating"] == math.inf and ratings.loc["c", "rating"] == -math.inf
    assert ratings.loc["c", "note"] == "no wins: unbounded below"
    assert ratings.loc["a", "note"] == "no losses: unbounded above"
    assert ratings.loc["c", "ci_high"] == -math.inf  # no interval pretends to bound it
    assert ratings.loc["b", "rating"] == 0 and ratings.loc["b", "note"] == ""


def _plackett_luce_games(
    strengths: dict[str, float], players: int, n: int, rng: np.random.Generator
) -> list[G]:
    """Games whose order of finish is drawn from Plackett-Luce with weights exp(strength)."""
    names = list(strengths)
    games = []
    for _ in range(n):
        bots = list(rng.choice(names, size=players, replace=False))
        left = list(range(players))
        order = []
        while left:
            w = np.array([math.exp(strengths[bots[i]]) for i in left])
            pick = left[rng.choice(len(left), p=w / w.sum())]
            order.append(pick)
            left.remove(pick)
        ranks = [0] * players
        for place, seat in enumerate(order):
            ranks[seat] = place + 1
        games.append(G(bots, [players - r for r in ranks], ranks))
    return games


@pytest.mark.parametrize("players", [2, 3])
def test_ratings_recover_known_strengths(players: int) -> None:
    # Under Plackett-Luce, P(i ahead of j) = w_i / (w_i + w_j) whoever else plays, so the
    # pairwise decomposition of 3-player games recovers the same Bradley-Terry strengths.
    strengths = {"weak": -0.8, "fair": 0.0, "good": 0.4, "strong": 1.2}
    rng = np.random.default_rng(2026 + players)
    seats, _ = make_tables(_plackett_luce_games(strengths, players, 3000, rng))
    ratings = rate_bots(seats, anchor="fair")
    ratings = ratings.set_index("bot")
    assert list(ratings.index) == ["strong", "good", "fair", "weak"]
    assert ratings.loc["fair", "rating"] == 0  # the anchor
    assert set(ratings["scale"]) == {"Elo, fair = 0"}
    for bot, theta in strengths.items():
        if bot == "fair":
            continue
        se = (ratings.loc[bot, "ci_high"] - ratings.loc[bot, "ci_low"]) / 3.92
        assert 0 < se < ELO * 0.1  # the profile likelihood sees a real, small spread
        assert abs(ratings.loc[bot, "rating"] - ELO * theta) < 3 * se


def test_one_scale_greedy_at_zero_when_rated_else_the_mean_named_on_the_table() -> None:
    rng = np.random.default_rng(5)
    strengths = {"random": 0.0, RATING_ANCHOR: 0.5, "c": 1.0}
    seats, _ = make_tables(_plackett_luce_games(strengths, 2, 200, rng))
    rated = rate_bots(seats).set_index("bot")
    assert rated.loc[RATING_ANCHOR, "rating"] == 0
    assert set(rated["scale"]) == {f"Elo, {RATING_ANCHOR} = 0"}
    # the same games without the anchor bot: the rated group's mean is 0, and the table says so
    others = rate_bots(seats[seats["bot"] != RATING_ANCHOR])
    assert set(others["scale"]) == {"Elo, mean = 0"}
    assert abs(others["rating"].mean()) < 1e-6
    # the differences do not depend on the anchor
    mean_zero = pa_.plackett_luce(seats).set_index("bot")["rating"]
    shifted = rated["rating"] - rated["rating"].mean()
    np.testing.assert_allclose(shifted.reindex(mean_zero.index), mean_zero, atol=1e-6)
    with pytest.raises(ValueError, match="anchor"):
        pa_.plackett_luce(seats, anchor="nobody")


def test_matrix_orders_budgets_by_value() -> None:
    specs = ["mcts:iterations=128", "mcts:iterations=16", "mcts:iterations=8"]
    seats, _ = make_tables([G([a, b], [2, 1], [1, 2]) for a in specs for b in specs if a != b])
    matrix = pa_.head_to_head_matrix(seats)
    assert list(matrix.index) == specs[::-1] and list(matrix.columns) == specs[::-1]
