"""Errors for unknown names: the closest valid name suggested, short names listed."""

from __future__ import annotations

import pytest

from projectl_sim.cli import main
from projectl_sim.errors import closest, id_ranges, unknown_name


@pytest.mark.parametrize(
    ("name", "candidates", "expected"),
    [
        ("gready", ["greedy", "mcts", "random"], "greedy"),
        ("Greedy", ["greedy", "mcts", "random"], "greedy"),
        ("B3", ["B01", "B03", "B13", "B30"], "B03"),  # the id number, not the look of it
        ("w1", ["W01", "W10", "B01"], "W01"),
        ("later", ["puzzles_then_pieces", "later_in_turn_order"], "later_in_turn_order"),
        ("ghst", ["ghost_piece", "finesse", "ghost"], "ghost"),
        ("genius", ["greedy", "mcts", "random"], None),  # nothing close: no guess
        ("", ["greedy"], None),
    ],
)
def test_the_closest_name_is_the_right_candidate(
    name: str, candidates: list[str], expected: str | None
) -> None:
    assert closest(name, candidates) == expected


def test_the_message_lists_the_short_names_beside_their_names() -> None:
    message = unknown_name(
        "expansion",
        "ghst",
        ["ghost_piece", "ambassador_pack", "finesse"],
        short={"ghost": "ghost_piece", "ambassador": "ambassador_pack"},
        more=["all", "none"],
    )
    assert message == (
        "unknown expansion 'ghst' (did you mean 'ghost'? valid: ghost_piece (ghost), "
        "ambassador_pack (ambassador), finesse, all, none)"
    )
    assert unknown_name("preset", "zz", ["demo"]) == "unknown preset 'zz' (valid: demo)"


def test_ids_are_listed_as_runs() -> None:
    assert id_ranges(["W01", "W02", "W03", "B01", "B03", "B04", "X"]) == "W01-W03, B01, B03-B04, X"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--bots", "gready,random"], "unknown bot 'gready' (did you mean 'greedy'?"),
        (
            ["play", "--bots", "greedy:preset=rushblack,random"],
            "preset=rushblack is out of range (did you mean 'rush_black'?",
        ),
        (["play", "--bots", "greedy:rsk=1,random"], "no parameter 'rsk' (did you mean 'risk'?"),
        (["run", "--preset", "dem"], "unknown preset 'dem' (did you mean 'demo'?"),
        (
            ["play", "--expansions", "ghots"],
            "unknown expansion 'ghots' (did you mean 'ghost'? valid: ghost_piece (ghost), "
            "ambassador_pack (ambassador), finesse, phoenix, all, none)",
        ),
        (["play", "--variant", "sollo"], "unknown variant 'sollo' (did you mean 'solo'?"),
        (
            ["run", "--bots", "random", "--players", "2", "--rule", "tie_brake=x"],
            "unknown rules switch 'tie_brake' (did you mean 'tie_break'?",
        ),
        (
            [
                "run",
                "--bots",
                "greedy",
                "--players",
                "1",
                "--variant",
                "solo",
                "--difficulty",
                "hrd",
            ],
            "unknown difficulty 'hrd' (did you mean 'hard'?",
        ),
        (["fill", "--puzzle", "B3"], "unknown puzzle 'B3' (did you mean 'B03'? valid: W01-W32,"),
        (
            ["fill", "--puzzle", "B03", "--pieces", "tet_l"],
            "unknown piece 'tet_l' (did you mean 'tet_L'?",
        ),
        (
            ["sumary", "results/x"],
            "unknown command 'sumary' (did you mean 'summary'? valid: play, replay, bots, run, "
            "summary, compare, report, cards, deals, fill, puzzles,",
        ),
        (["comapre", "a", "b"], "unknown command 'comapre' (did you mean 'compare'?"),
        (
            ["run", "--bots", "random", "--format", "prquet"],
            "unknown format 'prquet' (did you mean 'parquet'? valid: parquet, csv)",
        ),
        (
            ["run", "--bots", "random", "--records", "smaple:3"],
            "--records 'smaple:3': did you mean 'sample:3'? use all|sample:N|none",
        ),
    ],
)
def test_an_unknown_name_suggests_the_closest_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
