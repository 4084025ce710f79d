"""The shipped bots' measured strength and cost (``bots.measured``): the data builds the bots it
names, agrees with the ladder table of the docs, and prices a run's specs."""

from __future__ import annotations

import re

import pytest
from paths import ROOT

from bots import BUILTIN, make_bot
from bots.measured import (
    DECISIONS_PER_SEAT,
    GAME_MS,
    LADDER,
    LADDER_MODEL,
    MEASURED,
    OLDER,
    PREVIOUS,
    PREVIOUS_MODEL,
    cost_ms,
    estimate_seconds,
    measured,
    rows_of,
)

DOCS = ROOT / "docs"


@pytest.mark.parametrize("row", MEASURED, ids=lambda r: r.spec)
def test_every_measured_spec_builds_its_bot(row) -> None:
    make_bot(row.spec)  # a renamed parameter or bot would leave the figure naming nothing
    assert row.cpu_ms > 0
    assert row.rating is None or row.low <= row.rating <= row.high


def test_every_shipped_bot_has_its_default_measured() -> None:
    for name in sorted(set(BUILTIN) - {"human"}):
        assert rows_of(name) and rows_of(name)[0].spec == name, name


def test_the_ladder_rows_are_the_ladder_table_of_which_players() -> None:
    text = (DOCS / "how-to" / "which-players.md").read_text()
    assert f"model `{LADDER_MODEL}`" in text
    table = re.findall(
        r"^\| `([^`]+)` \| (-?\d+) \| (\[[^\]]+\]|\(the anchor\)) \| \d+ \| ([\d.]+) \|$",
        text,
        re.M,
    )
    assert len(table) == sum(1 for r in MEASURED if r.source == LADDER) == 8
    for spec, rating, interval, ms in table:
        row = measured(spec)
        assert row is not None and row.source == LADDER, spec
        assert (row.rating, row.cpu_ms) == (float(rating), float(ms)), spec
        if interval.startswith("["):
            low, high = (float(x) for x in interval[1:-1].split(","))
            assert (row.low, row.high) == (low, high), spec


def test_cost_scales_a_search_by_its_iterations_and_keeps_a_heuristics() -> None:
    mcts, leaf = cost_ms("mcts"), cost_ms("mcts:leaf=value")
    assert mcts is not None and leaf is not None
    assert cost_ms("mcts:iterations=50") == pytest.approx(mcts / 4)  # measured at 200
    assert cost_ms("mcts:iterations=48,leaf=value") == pytest.approx(leaf * 1.5)  # at 32
    tree = measured(f"mcts:width=2,iterations=200,leaf=value,model={PREVIOUS_MODEL}")
    assert tree is not None and tree.source == OLDER
    # measured on the previous model only: the shipped one's spec costs what it did (one network)
    assert measured("mcts:leaf=value,iterations=200,width=2") is None
    assert cost_ms("mcts:leaf=value,iterations=200,width=2") == tree.cpu_ms  # not scaled
    assert cost_ms("mcts:leaf=value,width=2,iterations=64") == pytest.approx(
        measured(f"mcts:leaf=value,width=2,model={PREVIOUS_MODEL}").cpu_ms * 2
    )  # the widening tree's own cost, not the default's
    # greedy lines cost more than in proportion: scaled from the nearest measured budget
    assert cost_ms("mcts:leaf=value,iterations=200") == pytest.approx(
        measured("mcts:leaf=value,iterations=128").cpu_ms * 200 / 128
    )
    assert cost_ms("mcts:leaf=value,iterations=1024") == pytest.approx(
        measured(f"mcts:leaf=value,iterations=512,model={PREVIOUS_MODEL}").cpu_ms * 2
    )
    assert cost_ms("mcts:time=0.5") == 500
    assert cost_ms("greedy:preset=rush_black") == cost_ms("greedy")
    assert cost_ms("value:model=m.json,hash=0123456789ab") == cost_ms("value")
    assert cost_ms("mcts:horizon=2") is None  # another search: not known
    assert cost_ms("value:rollouts=9") is None
    rollouts = measured(f"value:rollouts=2,model={PREVIOUS_MODEL}")
    assert rollouts is not None and cost_ms("value:rollouts=2") == rollouts.cpu_ms


def test_a_spec_that_spells_out_a_default_is_the_bot_without_it() -> None:
    """The ladder's table names the flat search without ``width=0`` (``leaf=value``'s default),
    the docs with it: both are the one measured row, and a set default is not a new bot."""
    flat = measured("mcts:leaf=value,iterations=128,tree=turn,width=0")
    assert flat is not None and flat.source == LADDER
    assert measured(f"mcts:iterations=128,tree=turn,leaf=value,hash={LADDER_MODEL}") is flat
    assert measured("mcts:leaf=value,iterations=32,places=2") is measured("mcts:leaf=value")
    assert measured("mcts:iterations=200") is measured("mcts")  # the rollout search's default
    assert measured("mcts:leaf=value,width=2") is not measured("mcts:leaf=value")
    assert measured("mcts:width=0") is None  # without leaf=value, width=0 is not the default
    assert measured("greedy:preset=balanced") is measured("greedy")
    assert cost_ms("mine.py:Mine") is None  # another source is not loaded to price it


@pytest.mark.parametrize(
    "spec",
    [
        f"mcts:leaf=value,iterations=100,model={PREVIOUS_MODEL}",
        f"mcts:leaf=value,iterations=512,model={PREVIOUS_MODEL}",
    ],
)
def test_a_search_off_the_ladder_says_whom_it_played_and_how_it_scored(spec: str) -> None:
    """A bot not on a ladder (on the previous model, greedy lines at the flat search's CPU, and
    at the largest budget): its row names the bot it was matched with, on its model, its score
    with an interval and the command, and ``bots`` prints that as its strength."""
    from bots.measured import STRENGTH, rating_text

    row = measured(spec)
    assert row is not None and row.rating is None and row.source == STRENGTH
    assert "benchmarks/strength.py" in STRENGTH
    assert re.search(r"\d+\.\d% \[\d+\.\d%, \d+\.\d%\] of \d+ games", rating_text(row))
    opponent = re.search(r"against (\S+)", row.note)
    assert opponent is not None and measured(opponent[1]) is not None
    make_bot(opponent[1])


def test_the_learned_searches_and_value_are_on_the_ladder() -> None:
    flat = "mcts:leaf=value,iterations=128,tree=turn,width=0"
    for spec in ("value", "value:places=0", "mcts:leaf=value", "mcts:leaf=value,iterations=100"):
        row = measured(spec)
        assert row is not None and row.source == LADDER and row.rating is not None, spec
    # the flat search on both models: today's reference rung is the previous model's
    shipped, previous = measured(flat), measured(f"{flat},model={PREVIOUS_MODEL}")
    assert shipped is not None and previous is not None and shipped is not previous
    assert shipped.source == previous.source == LADDER


def test_a_row_on_the_previous_model_names_it_and_that_model_loads_by_name() -> None:
    """The bare spec is the shipped model's: every row the previous ladders (and the matches on
    that model) measured names the previous model, which plays by that name with its hash."""
    from bots.measured import STRENGTH

    for row in MEASURED:
        if row.source in (PREVIOUS, OLDER, STRENGTH):
            assert f"model={PREVIOUS_MODEL}" in row.spec, row.spec
        if row.source == LADDER and "model=" in row.spec:
            assert f"model={PREVIOUS_MODEL}" in row.spec, row.spec
    assert repr(make_bot(f"value:model={PREVIOUS_MODEL}")).endswith("hash=1f4245d84f5c")
    assert repr(make_bot("value")).endswith(f"hash={LADDER_MODEL}")


def test_an_estimate_counts_every_seat_and_says_what_it_could_not_price() -> None:
    seconds, unknown = estimate_seconds([("greedy", "mcts")], [10], jobs=2)
    per_game = GAME_MS + DECISIONS_PER_SEAT * (cost_ms("greedy") + cost_ms("mcts"))
    assert seconds == pytest.approx(10 * per_game / 1000 / 2) and unknown == []
    seconds, unknown = estimate_seconds([("mine.py:Mine", "greedy")] * 2, [10, 10], jobs=1)
    assert unknown == ["mine.py:Mine"]
    assert seconds == pytest.approx(20 * (GAME_MS + DECISIONS_PER_SEAT * cost_ms("greedy")) / 1000)


def test_a_row_is_its_models_and_another_model_costs_what_the_shipped_one_does() -> None:
    """A spec naming another model is another bot's strength (no row of the shipped model's
    answers for it) at the shipped model's cost (the same network)."""
    shipped = measured("mcts:leaf=value,iterations=100")
    assert shipped is not None and shipped.source == LADDER
    mine = "mcts:leaf=value,iterations=100,model=mine/value.json,hash=0123456789ab"
    assert measured(mine) is None
    assert cost_ms(mine) == shipped.cpu_ms
    for row in MEASURED:  # each row's model is its own: its spec finds it back
        assert measured(row.spec) is row, row.spec


def test_the_candidate_models_searches_are_rated_by_the_joint_fit_and_say_so() -> None:
    from bots.measured import CANDIDATE, JOINT, rating_text

    rows = [r for r in MEASURED if r.source == JOINT]
    assert rows and all(f"model={CANDIDATE}" in r.spec for r in rows)
    for row in rows:
        assert measured(row.spec) is row and row.rating is not None
        assert rating_text(row).endswith("on the previous ladder refitted with it")
        # the shipped model's row of the same search is another row
        shipped = row.spec.replace(f",model={CANDIDATE}", "")
        assert measured(shipped) is not row
    assert "--ladder" in JOINT and "benchmarks/strength.py" in JOINT


def test_a_search_the_ladder_left_out_is_placed_on_it_by_a_joint_fit_and_says_so() -> None:
    """Greedy lines at 128 iterations on the shipped model: not in the round robin, rated by
    one fit over the ladder's run and its own matches, and ``bots`` says which fit."""
    from bots.measured import EXTENDED, rating_text

    row = measured("mcts:leaf=value,iterations=128")
    assert row is not None and row.source == EXTENDED and row.rating is not None
    assert rating_text(row).endswith(" on the ladder refitted with it")
    assert "--ladder LADDER/run" in EXTENDED and "--pair" in EXTENDED
    # it is priced by its own row, and a budget near it is scaled from it
    assert cost_ms("mcts:leaf=value,iterations=200") == pytest.approx(row.cpu_ms * 200 / 128)


def test_the_top_at_equal_cpu_says_its_rise_over_the_previous_flat_search() -> None:
    """The strongest search at the flat search's CPU: rated by the joint fit over its matches
    with the flat search on the previous model, and ``bots`` prints that rise beside it."""
    from bots.measured import PREVIOUS_MODEL, TOP, rating_text

    row = measured("mcts:leaf=value,worlds=8,prior=0.05,iterations=115")
    assert row is not None and row.source == TOP and row.rating is not None
    flat = measured(f"mcts:leaf=value,iterations=128,tree=turn,model={PREVIOUS_MODEL}")
    assert flat is not None and flat.rating is not None
    # the rise printed in the note is the two rows' difference, to within the fits' rounding
    rise = float(row.note.split()[0])
    assert abs(rise - (row.rating - flat.rating)) <= 5
    assert rating_text(row).endswith(f"({row.note})") and "flat search" in row.note
    assert row.cpu_ms < flat.cpu_ms  # placed at equal CPU or less
