"""Card and piece strength, game flow and failure states: checks with known answers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from projectl_sim.analysis import cards, failures, game_flow
from projectl_sim.analysis.data import load_run
from projectl_sim.analysis.findings import findings, strength_table
from projectl_sim.analysis.fmt import p_text
from projectl_sim.cli import main
from projectl_sim.sim import runner
from projectl_sim.sim.runner import RunOptions
from projectl_sim.sim.spec import RunSpec


# -- the statistics on tables with a planted answer -----------------------------------------------
def planted(bonus: float, games: int = 800, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return seats and events of two-seat games where each seat completes each of 12 white
    cards with probability 0.3 and wins more the more it completed, ``bonus`` more for C01."""
    rng = np.random.default_rng(seed)
    names = np.array([f"C{i:02d}" for i in range(1, 13)])
    done = rng.random((games, 2, len(names))) < 0.3
    done[:, 1] &= ~done[:, 0]  # one copy of each card: never both seats
    strength = done.sum(axis=2) + bonus * done[:, :, 0] + rng.normal(0, 1, (games, 2))
    won = np.stack([strength[:, 0] > strength[:, 1], strength[:, 0] <= strength[:, 1]], axis=1)
    game, seat = np.meshgrid(np.arange(games), np.arange(2), indexing="ij")
    seats = pd.DataFrame(
        {
            "game_id": game.ravel(),
            "seed": game.ravel(),
            "config_id": 0,
            "bot": "greedy",
            "seat": seat.ravel(),
            "turn_order": seat.ravel(),
            "players": 2,
            "won": won.ravel(),
            "win_share": won.ravel().astype(float),
            "score": 0,
            "error": None,
        }
    )
    g, s, c = np.nonzero(done)
    one = pd.DataFrame({"game_id": g, "seat": s, "card": names[c]}).assign(
        colour="white", points=1, puzzle_set="base", provisional=False, actions=3, piece=None
    )
    events = pd.concat([one.assign(event="taken"), one.assign(event="completed")])
    return seats, events.reset_index(drop=True)


def test_a_planted_strong_card_is_flagged_and_nothing_else() -> None:
    seats, events = planted(bonus=1.0)
    table = cards.card_strength(seats, events)
    top = table.iloc[0]
    assert top["card"] == "C01" and top["flag"] == "strong"
    assert top["excess_low"] > 0 and top["lift_low"] > 0
    assert (table["flag"].iloc[1:] == "").all()
    # every card's lift is positive (completing one is worth a point), the excess is not
    assert (table["lift"] > 0).all() and (table["excess"].iloc[1:].abs() < 0.1).all()


def test_no_card_is_flagged_when_none_differs() -> None:
    flagged = 0
    for seed in range(3):
        seats, events = planted(bonus=0.0, games=600, seed=seed)
        flagged += int((cards.card_strength(seats, events)["flag"] != "").sum())
    assert flagged == 0


def test_a_few_completions_that_all_won_are_not_a_finding_by_themselves() -> None:
    # keep, of one card's completions, only 12 by seats that won: none of its completers lost,
    # so the residuals from their own mean are all 0 and a test on the interval's standard error
    # saw an excess of 25 points at p = 0. Twelve wins in twelve, where completers of its peers
    # win two in three, happen by chance about once in a hundred: a p-value of that order, and
    # no flag after the correction over the cards
    seats, events = planted(bonus=0.0, games=600, seed=1)
    won = seats.set_index(["game_id", "seat"])["win_share"]
    mine = events[events["card"] == "C01"]
    at = list(zip(mine["game_id"], mine["seat"], strict=True))
    winners = {k for k in dict.fromkeys(at) if won.loc[k] == 1.0}
    kept = mine[[k in winners for k in at]]
    kept = kept[kept.set_index(["game_id", "seat"]).index.isin(sorted(winners)[:12])]
    table = cards.card_strength(seats, pd.concat([events[events["card"] != "C01"], kept]))
    row = table.set_index("card").loc["C01"]
    assert row["completed"] == 12 and row["excess"] > 0.2
    assert 1e-3 < row["p_value"] < 0.2 and row["flag"] == ""


def worth_planted(bonus: float, games: int = 1500, seed: int = 4) -> tuple[pd.DataFrame, ...]:
    """Return seats, events and catalogue of games where 12 white cards are worth 1, 2 or 3
    points (and as many reward levels) and a seat wins by the worth it completed, ``bonus``
    more for C01 (a 1-point card): the lifts differ by the cards' worth alone."""
    rng = np.random.default_rng(seed)
    names = np.array([f"C{i:02d}" for i in range(1, 13)])
    points = np.repeat([1, 2, 3], 4)
    level = np.tile([1, 2, 3, 4], 3)
    done = rng.random((games, 2, len(names))) < 0.3
    done[:, 1] &= ~done[:, 0]
    worth = done @ (points + 0.5 * level) + bonus * done[:, :, 0] + rng.normal(0, 2, (games, 2))
    won = np.stack([worth[:, 0] > worth[:, 1], worth[:, 0] <= worth[:, 1]], axis=1)
    seats, _ = planted(0.0, games=games, seed=seed)
    seats["won"] = won.ravel()
    seats["win_share"] = won.ravel().astype(float)
    g, s, c = np.nonzero(done)
    one = pd.DataFrame({"game_id": g, "seat": s, "card": names[c], "points": points[c]})
    one = one.assign(colour="white", puzzle_set="base", provisional=False, actions=3, piece=None)
    events = pd.concat([one.assign(event="taken"), one.assign(event="completed")])
    catalogue = pd.DataFrame(
        {"card": names, "colour": "white", "points": points, "puzzle_set": "base"}
    ).assign(provisional=False, reward="piece", reward_level=level)
    return seats, events.reset_index(drop=True), catalogue


def test_the_adjusted_lift_removes_what_a_card_is_worth() -> None:
    seats, events, catalogue = worth_planted(bonus=0.0)
    table = cards.card_strength(seats, events, catalogue).set_index("card")
    # the raw lift grows with the points: the 3-point cards' beat the 1-point cards'
    three, one = [f"C{i:02d}" for i in range(9, 13)], [f"C{i:02d}" for i in range(1, 5)]
    assert table.loc[three, "lift"].min() > table.loc[one, "lift"].max()
    assert table.loc["C12", "reward_level"] == 4 and table.loc["C12", "points"] == 3
    # beyond its worth no card does anything: every adjusted interval covers 0
    assert ((table["adjusted_low"] < 0) & (table["adjusted_high"] > 0)).all(), table
    assert table["adjusted"].abs().max() < 0.5 * table["lift"].abs().max()
    # a card worth more than its points and reward stands out in the adjusted lift
    boosted = cards.card_strength(*worth_planted(bonus=3.0)).set_index("card")
    assert boosted["adjusted"].idxmax() == "C01" and boosted.loc["C01", "adjusted_low"] > 0
    text = "\n".join(cards.strength_lines(boosted.reset_index(), pd.DataFrame(), 1500))
    assert "adjusted [95%]" in text and " rwd " in text
    assert "includes what the card is worth" in " ".join(text.split())
    # without the catalogue no reward is known: the adjusted lift is n/a, and said so
    bare = cards.card_strength(seats, events)
    assert bare["adjusted"].isna().all() and bare["reward_level"].isna().all()
    assert "could not be read" in " ".join(cards.strength_lines(bare, pd.DataFrame(), 1500))


# -- a real run: one white card worth 3 points more ----------------------------------------------
BOOSTED = "W12"  # 1 point, a domino: a card greedy takes often


@pytest.fixture(scope="module")
def boosted_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cards") / "boosted"
    spec = RunSpec.from_mapping(
        {
            "bots": ["greedy"],
            "players": [2],
            "games": 150,
            "seed": 7,
            "rules": {f"points.{BOOSTED}": [4]},
        }
    )
    runner.run(spec, out, options=RunOptions(jobs=2, quiet=True))
    return out


def test_the_boosted_card_is_the_strongest(boosted_run: Path, capsys: Any) -> None:
    run = load_run(boosted_run)
    table = cards.card_strength(run.seats, run.events, failures.catalogue_cards(run.manifest))
    top = table.iloc[0]
    assert top["card"] == BOOSTED and top["points"] == 4, table.head()
    assert top["reward"] == "domino" and top["reward_level"] == 2  # from the catalogue
    assert table["adjusted"].notna().sum() >= 30  # the tested cards' adjusted lifts
    assert top["lift_low"] > 0 and top["excess_low"] > 0 and top["flag"] == "strong"
    assert len(table) == 52  # the cards never taken are listed too
    assert main(["cards", str(boosted_run)]) == 0
    out = capsys.readouterr().out
    assert f"{BOOSTED} " in out and "Flagged" in out and "could detect" in out
    # the run's findings table carries the same card and piece rows the command printed
    pieces = cards.piece_strength(run.seats, run.events)
    found = findings(run.seats, run.games, cards=table, pieces=pieces)
    games = int(run.games["game_id"].nunique())
    mine = found[found["question"].isin(["card", "piece"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, strength_table(table, pieces, games))
    for verdict in mine.loc[mine["headline"], "verdict"]:
        assert " ".join(verdict.split()) in " ".join(out.split())
    boosted = mine[(mine["subject"] == BOOSTED) & (mine["metric"] == "excess")].iloc[0]
    assert boosted["detected"] and boosted["q"] < 0.05 and "strong" in boosted["verdict"]


def test_cards_refuses_what_is_not_a_run(tmp_path: Path, capsys: Any) -> None:
    assert main(["cards", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no such run folder" in err[0]
    core = tmp_path / "core"
    spec = RunSpec.from_mapping({"bots": ["random"], "players": [2], "games": 2, "seed": 1})
    runner.run(replace(spec, tables="core"), core, options=RunOptions(jobs=1, quiet=True))
    assert main(["cards", str(core)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no events table" in err[0] and "--tables core" in err[0]


# -- game flow ----------------------------------------------------------------------------------
def _rounds(scores: list[list[int]], winners: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = []
    for r, per_seat in enumerate(scores, start=1):
        for seat, score in enumerate(per_seat):
            rows.append(
                {"game_id": 0, "round": r, "seat": seat, "score": score, "final": r == len(scores)}
            )
    games = pd.DataFrame(
        [
            {
                "game_id": 0,
                "seed": 1,
                "deal": 0,
                "config_id": 0,
                "players": len(scores[0]),
                "lineup": "a,b",
                "expansions": "none",
                "switches": "default",
                "winners": winners,
                "margin": 1,
                "error": None,
            }
        ]
    )
    return pd.DataFrame(rows), games


def test_flow_of_one_game_by_hand() -> None:
    # seat 1 leads rounds 1-2, seat 0 takes the lead in round 3 and keeps it to the end
    rounds, games = _rounds([[0, 2], [1, 3], [5, 4], [5, 5], [8, 7]], "0")
    flow = game_flow.game_flow(rounds, games).iloc[0]
    assert flow["lead_changes"] == 1  # round 4 has no single leader: skipped
    # round 4 is level, so seat 0 led for good only from round 5
    assert flow["decisive_round"] == 5 and flow["decided_share"] == 1.0
    assert bool(flow["comeback"]) is False  # ahead at half time (round 3)
    assert flow["max_deficit"] == 2
    rounds, games = _rounds([[0, 2], [1, 3], [2, 4], [9, 4]], "0")
    flow = game_flow.game_flow(rounds, games).iloc[0]
    assert bool(flow["comeback"]) is True and flow["decisive_round"] == 4
    # a tie at the end broken for seat 1: it led for good from its last lead
    rounds, games = _rounds([[0, 2], [1, 3], [4, 4]], "1")
    assert game_flow.game_flow(rounds, games).iloc[0]["decisive_round"] == 1


def _flow_of(tmp_path: Path, name: str, **rules: Any) -> pd.DataFrame:
    spec = RunSpec.from_mapping(
        {"bots": ["greedy"], "players": [2], "games": 40, "seed": 3, "rules": rules}
    )
    runner.run(spec, tmp_path / name, options=RunOptions(jobs=2, quiet=True))
    run = load_run(tmp_path / name)
    return game_flow.game_flow(run.rounds, run.games)


def test_a_much_shorter_black_deck_decides_games_earlier(tmp_path: Path) -> None:
    from projectl_sim.analysis.stats import diff_means

    usual = _flow_of(tmp_path, "usual")
    short = _flow_of(tmp_path, "short", black_deck_2p=[3])
    assert short["rounds"].mean() < usual["rounds"].mean()
    d, low, high = diff_means(short["decisive_round"], usual["decisive_round"])
    assert high < 0, (d, low, high)  # the winner leads for good rounds earlier
    d, low, high = diff_means(short["lead_changes"], usual["lead_changes"])
    assert high < 0, (d, low, high)
    summary = game_flow.flow_summary(short)
    assert len(summary) == 1 and summary["comeback_low"].iloc[0] <= summary["comeback_rate"].iloc[0]


# -- failure states -----------------------------------------------------------------------------
def test_failure_states_list_the_games_that_show_them(boosted_run: Path) -> None:
    run = load_run(boosted_run)
    found = {f.state: f for f in failures.failure_states(run)}
    seats = run.seats
    best = seats.groupby("game_id")["score"].transform("max")
    tied = (seats[seats["score"] == best].groupby("game_id").size() > 1).sum()
    shown = found.get("tie-break")
    broken = shown.games if shown else 0
    shared = found["shared win"].games if "shared win" in found else 0
    assert broken + shared == tied
    if "never taken" in found:
        taken = set(run.events.loc[run.events["event"] == "taken", "card"])
        assert not any(card in found["never taken"].detail for card in taken)
    for f in found.values():
        assert len(f.examples) <= failures.EXAMPLES


# -- the findings rows: decided once, printed as they are -----------------------------------------
@pytest.fixture(scope="module")
def planted_strength() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    seats, events = planted(bonus=1.0)
    table = cards.card_strength(seats, events)
    found = strength_table(table, None, 800)
    return table, found, pd.DataFrame()


def test_card_findings_are_what_the_cards_command_prints(planted_strength: Any) -> None:
    table, found, pieces = planted_strength
    lines = cards.strength_lines(table, pieces, 800)
    rows = {line.split()[0]: line for line in lines if line.startswith("C") and " w " in line}
    card = found[found["question"] == "card"]
    head = card[card["headline"]].iloc[0]
    assert head["estimate"] == 1 and head["detected"]  # C01, and nothing else, flagged
    assert head["verdict"] in " ".join(lines)
    excess = card[card["metric"] == "excess"].set_index("subject")
    lift = card[card["metric"] == "lift"].set_index("subject")
    assert sorted(excess.index) == sorted(rows)
    for name, line in rows.items():
        f = lift.loc[name]
        assert cards._points(f["estimate"], f["ci_low"], f["ci_high"]) in line
        e = excess.loc[name]
        assert line.endswith("strong") == bool(e["detected"] and e["estimate"] > 0)
        assert line.endswith(f"{p_text(e['q'])} strong" if e["detected"] else p_text(e["q"]))
    assert excess.loc["C01", "detected"] and excess.loc["C01", "q"] < 0.05
    assert "C01 (strong)" in head["verdict"]


def test_the_cards_text_decides_nothing_of_its_own(planted_strength: Any) -> None:
    # rows said otherwise than the statistics: the text follows the rows
    table, found, pieces = planted_strength
    doctored = found.copy()
    c01 = (doctored["subject"] == "C01") & (doctored["metric"] == "excess")
    c02 = (doctored["subject"] == "C02") & (doctored["metric"] == "excess")
    doctored.loc[c01, ["detected", "q"]] = [False, 0.5]
    doctored.loc[c02, ["detected", "q", "estimate"]] = [True, 0.0004, -0.2]
    doctored.loc[doctored["headline"], "verdict"] = "the rows' own verdict"
    lines = cards.strength_lines(table, pieces, 800, doctored)
    rows = {line.split()[0]: line for line in lines if line.startswith("C") and " w " in line}
    assert rows["C01"].endswith("0.500") and rows["C02"].endswith("<0.001 weak")
    assert lines[-1] == "the rows' own verdict"
    assert cards.verdict_line(table, "card", 800) == found[found["headline"]]["verdict"].iloc[0]


def test_outcomes_the_seat_decides_leave_nothing_to_test() -> None:
    # the first seat always wins: within a turn order every outcome is alike, no lift has a
    # spread, and a precision of 0 points is not claimed
    seats, events = planted(bonus=0.0, games=300)
    first = seats["seat"] == 0
    seats = seats.assign(won=first, win_share=first.astype(float), turn_order=seats["seat"])
    table = cards.card_strength(seats, events)
    assert table["p_value"].isna().all() and table["excess_low"].notna().any()
    line = cards.verdict_line(table, "card", 300)
    assert "nothing could be tested" in line and "about 0%" not in line
