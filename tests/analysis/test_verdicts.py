"""One verdict per question at the top of the summary: in words, with the interval and what the
run could have detected, and never a finding from noise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from analysis_util import G, make_tables

from projectl_sim.analysis.answers import summary_text
from projectl_sim.analysis.data import Run
from projectl_sim.analysis.verdicts import verdicts


def _games(rng: np.random.Generator, n: int, first_wins: float, expansions: str) -> list[G]:
    out = []
    for _ in range(n):
        win = rng.random() < first_wins
        out.append(
            G(
                ["a", "a"],
                [12, 10] if win else [10, 12],
                [1, 2] if win else [2, 1],
                rounds=int(rng.integers(10, 14)),
                expansions=expansions,
            )
        )
    return out


def test_a_planted_change_is_a_finding_and_a_null_one_says_what_could_be_seen() -> None:
    rng = np.random.default_rng(31)
    games = _games(rng, 300, 0.5, "none") + _games(rng, 300, 0.75, "finesse")
    games += _games(rng, 300, 0.5, "phoenix")
    seats, table = make_tables(games)
    found = verdicts(seats, table).set_index(["question", "subject"])
    fin = found.loc[("effect", "Finesse at 2 players")]
    assert fin["detected"] and fin["text"].startswith("Finesse at 2 players: raises the first")
    assert 0.15 < fin["estimate"] < 0.35 and fin["ci_low"] > 0
    ph = found.loc[("effect", "Phoenix at 2 players")]
    assert not ph["detected"]
    assert "no detectable change in the first player's win rate" in ph["text"]
    assert f"this run detects changes of {100 * ph['mde']:.1f} pts or more" in ph["text"]
    seat = found.loc[("seats", "2 players, Finesse")]
    assert seat["detected"] and "the first player is favoured" in seat["text"]
    base = found.loc[("seats", "2 players, the base game")]
    assert "no detectable seat advantage" in base["text"] and "off 50% by" in base["text"]
    text = summary_text(Run(Path("x"), seats, table, {}))
    top = text[: text.index("== Seat advantage")]
    assert "== Verdicts (one per question) ==" in top  # before every other section
    assert top.count("\n- ") == 5  # three seat questions, two effects


def test_a_difference_that_does_not_survive_the_many_comparisons_is_not_a_finding() -> None:
    rng = np.random.default_rng(6)
    games = _games(rng, 200, 0.5, "none")
    for name in ("finesse", "phoenix", "ghost_piece", "ambassador_pack"):
        games += _games(rng, 200, 0.5, name)
    games += _games(rng, 200, 0.62, "ghost_piece+phoenix")  # a modest change among many
    seats, table = make_tables(games)
    found = verdicts(seats, table)
    effects = found[found["question"] == "effect"]
    by_chance = effects[(effects["ci_low"] > 0) & (effects["q_value"] >= 0.05)]
    assert len(by_chance) == 1  # the seed makes one such row
    for _, row in effects.iterrows():
        if row["ci_low"] > 0 and row["q_value"] >= 0.05:  # leaves out 0, but only by chance
            assert not row["detected"]
            assert "but not after the correction" in row["text"]
    assert all(row["detected"] == (row["q_value"] < 0.05) for _, row in effects.iterrows())


def _decided(n: int, expansions: str, winner: str = "greedy") -> list[G]:
    """Greedy against random, seats rotated, the same bot winning every game."""
    out = []
    for i in range(n):
        first = i % 2  # seat 0 is greedy; it moves first in every other game
        win = [1, 2] if winner == "greedy" else [2, 1]
        out.append(
            G(["greedy", "random"], [20, 5] if win[0] == 1 else [5, 20], win, first_player=first,
              expansions=expansions)
        )  # fmt: skip
    return out


def test_the_seats_of_a_line_up_the_bots_decide_are_not_given_a_verdict() -> None:
    seats, games = make_tables(_decided(60, "none") + _decided(60, "finesse"))
    found = verdicts(seats, games).set_index(["question", "subject"])
    seat = found.loc[("seats", "2 players, the base game")]
    assert "nothing could be measured about the seats" in seat["text"]
    assert "no detectable seat advantage" not in seat["text"] and not seat["detected"]
    assert np.isnan(seat["q_value"])
    effect = found.loc[("effect", "Finesse at 2 players")]
    assert "nothing could be measured about the first player's win rate" in effect["text"]
    assert "no detectable change" not in effect["text"]
    text = summary_text(Run(Path("x"), seats, games, {}))
    assert "no detectable seat advantage" not in text
    assert "nothing could be measured: a line-up of different bots (greedy, random)" in text


def test_a_mixed_line_up_whose_bots_win_and_lose_in_each_seat_is_still_measured() -> None:
    games = _decided(30, "none") + _decided(30, "none", winner="random")[:4]
    seats, table = make_tables(games)
    found = verdicts(seats, table).set_index("question").loc["seats"]
    assert "nothing could be measured" not in found["text"]
    assert "no detectable seat advantage" in found["text"] and np.isfinite(found["q_value"])


def test_a_mixed_line_up_seated_unevenly_is_not_given_a_seat_verdict() -> None:
    # greedy moves first in 20 games and second in 14 (a rotation cut short): the first
    # player's share would be greedy's strength, not the seat's
    games = _decided(28, "none") + _decided(4, "none", winner="random")
    games += [g for i, g in enumerate(_decided(12, "none")) if i % 2 == 0]
    seats, table = make_tables(games)
    found = verdicts(seats, table).set_index("question").loc["seats"]
    assert "seated unevenly across the turn orders" in found["text"]
    assert "greedy 16/22" in found["text"] or "greedy 22/16" in found["text"]
    assert not found["detected"] and np.isnan(found["q_value"])
