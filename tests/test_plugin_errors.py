"""A user's expansion and variant files that are wrong: each is one line naming the class, the
hook and the line of the user's file, with a non-zero exit, never a traceback nor a bot blamed.

The classes live in a file of a temporary folder, loaded as the command line loads them
(``--expansions FILE.py:CLASS``, ``--variant FILE.py:CLASS``): one that is not what it must be
(no ``Expansion``, a misspelt hook, a hook of other arguments, a module that calls ``sys.exit``)
is refused when it loads; one whose hook or ``__init__`` raises stops ``play`` with the class,
hook and line named (``--traceback`` prints the user's traceback); one that breaks the game's
invariants is caught after the action that broke them in ``play`` and in a ``--check-invariants``
run; a run whose plug-in file was edited does not resume.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from projectl_sim import Rules
from projectl_sim.cli import main
from projectl_sim.engine import new_game
from projectl_sim.registry import (
    PluginError,
    load_expansion,
    register_expansion,
    unregister_expansion,
    unregister_variant,
)
from projectl_sim.sim.play import InvariantBroken, check_step, play_game

PLUGINS = textwrap.dedent(
    '''
    """Expansions and a variant of a user's, each wrong in its own way."""

    from typing import Any, ClassVar

    from projectl_sim import Expansion, GameState


    class Raises(Expansion):
        name: ClassVar[str] = "raises"

        def puzzle_completed(self, state: Any, player: int, card: int) -> None:
            raise ValueError("boom in my hook")


    class InitRaises(Expansion):
        name: ClassVar[str] = "init_raises"

        def __init__(self, rules: Any) -> None:
            raise RuntimeError("bad init")


    class ListsRaise(Expansion):
        name: ClassVar[str] = "lists_raise"

        def add_actions(self, state: Any, acts: list, master: str) -> None:
            raise IndexError("no such action")


    class NotAnExpansion:
        name = "not_one"


    class Misspelt(Expansion):
        name: ClassVar[str] = "misspelt"

        def puzzle_complete(self, state: Any, player: int, card: int) -> None:
            pass


    class MisspeltColumns(Expansion):
        name: ClassVar[str] = "misspelt_columns"
        column: ClassVar[tuple[Any, ...]] = ()


    class FewArguments(Expansion):
        name: ClassVar[str] = "few_arguments"

        def puzzle_completed(self, state: Any, player: int) -> None:
            pass


    class Creator(Expansion):
        """Gives the seat whose turn ends a mono from nowhere."""

        name: ClassVar[str] = "creator"

        def end_turn(self, state: Any) -> None:
            state.supply[state.current][state.tables.mono] += 1


    class BadDeal(GameState):
        variant_name: ClassVar[str] = "bad_deal"
        players: ClassVar[tuple[int, ...]] = (2, 3, 4)

        def _setup_table(self, setup: dict[str, Any]) -> None:
            super()._setup_table(setup)
            raise KeyError("oops")
    '''
)


def line(snippet: str) -> int:
    """Return the line of the user's file holding ``snippet``."""
    return next(i for i, text in enumerate(PLUGINS.splitlines(), 1) if snippet in text)


NAMES = (
    "raises",
    "init_raises",
    "lists_raise",
    "creator",
    "misspelt",
    "few_arguments",
    "misspelt_columns",
)


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Return the user's file; forget its classes afterwards."""
    path = tmp_path_factory.mktemp("plugins") / "my_rules.py"
    path.write_text(PLUGINS)
    yield path
    for name in NAMES:
        unregister_expansion(name)
    unregister_variant("bad_deal")


def error_line(capsys: Any) -> str:
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


def play(*args: str) -> int:
    return main(["play", "--bots", "greedy,greedy", "--seed", "1", *args])


def test_a_hook_that_raises_is_one_line_naming_the_class_hook_and_line(
    plugins: Path, capsys: Any, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    assert play("--expansions", f"{plugins}:Raises", "--record", str(record)) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"partial record written to {record}"
    assert err.splitlines()[1] == (
        "projectl-sim: error: your expansion raises raised in puzzle_completed (my_rules.py "
        f"line {line('boom in my hook')}): ValueError: boom in my hook (--traceback shows where)"
    )
    assert record.is_file()
    # the user's traceback on demand, from their method on (the guard's own frame left out)
    assert play("--expansions", f"{plugins}:Raises", "--traceback") == 1
    err = capsys.readouterr().err
    assert err.splitlines()[1] == "Traceback (most recent call last):"
    assert f'File "{plugins}", line {line("boom in my hook")}, in puzzle_completed' in err
    assert "registry.py" not in err


def test_an_init_that_raises_and_a_variant_that_raises_are_one_line(
    plugins: Path, capsys: Any
) -> None:
    assert play("--expansions", f"{plugins}:InitRaises") == 1
    assert error_line(capsys).startswith(
        "projectl-sim: error: your expansion init_raises raised in __init__ (my_rules.py line "
        f"{line('bad init')}): RuntimeError: bad init"
    )
    assert play("--variant", f"{plugins}:BadDeal") == 1
    where = f"(my_rules.py line {line('oops')})"
    assert f"your variant bad_deal raised in _setup_table {where}: KeyError: 'oops'" in (
        error_line(capsys)
    )


def test_a_hook_raising_while_a_bot_lists_its_actions_is_not_the_bots_fault(
    plugins: Path,
) -> None:
    load_expansion(f"{plugins}:ListsRaise")
    rules = Rules(players=2, expansions={"lists_raise"})

    def lister(view: Any, rng: Any) -> Any:
        return view.legal_actions()[0]

    with pytest.raises(
        PluginError, match=r"^your expansion lists_raise raised in add_actions"
    ) as e:
        play_game(rules, [lister, lister], 3)
    assert e.value.outcome.state.turn == 1  # type: ignore[attr-defined]  (the game so far)


@pytest.mark.parametrize(
    ("given", "why"),
    [
        (
            ["--expansions", "{}:NotAnExpansion"],
            "NotAnExpansion is not an expansion: it must be a subclass of projectl_sim.Expansion",
        ),
        (
            ["--variant", "{}:Raises"],
            "Raises is not a variant: it must be a subclass of projectl_sim.GameState (a variant's "
            "state class): it is an expansion; give it to --expansions",
        ),
        (
            ["--expansions", "{}:BadDeal"],
            "it is a variant; give it to --variant",
        ),
        (
            ["--expansions", "{}:Misspelt"],
            "expansion misspelt: Misspelt.puzzle_complete is no hook of Expansion (did you mean "
            "puzzle_completed?)",
        ),
        (
            ["--expansions", "{}:MisspeltColumns"],
            "MisspeltColumns.column is no declaration of Expansion (did you mean columns?)",
        ),
        (
            ["--expansions", "{}:FewArguments"],
            "FewArguments.puzzle_completed(self, state, player) does not take the arguments the "
            "engine calls it with: puzzle_completed(self, state, player, card)",
        ),
    ],
)
def test_a_class_that_is_not_what_it_must_be_is_refused_as_it_loads(
    plugins: Path, capsys: Any, tmp_path: Path, given: list[str], why: str
) -> None:
    args = [given[0], given[1].format(plugins)]
    assert play(*args) == 2
    assert why in error_line(capsys)
    # run loads the classes before the rules switches are read: the same line
    out = ["--out", str(tmp_path / "run"), "--quiet"]
    assert main(["run", "--bots", "random", "--games", "1", *args, *out]) == 2
    assert why in error_line(capsys)


def test_a_module_that_calls_sys_exit_is_one_line_not_a_silent_end(
    tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "quits.py"
    path.write_text("import sys\n\nsys.exit(3)\n")
    out = tmp_path / "run"
    args = ["--expansions", f"{path}:X", "--quiet", "--out", str(out)]
    assert main(["run", "--bots", "random", "--games", "1", *args]) == 2
    assert error_line(capsys).endswith(f"{path}:X: importing it called sys.exit(3) at line 3")
    assert not out.exists()
    assert play("--expansions", f"{path}:X") == 2
    assert error_line(capsys).endswith("importing it called sys.exit(3) at line 3")


def test_an_expansion_that_breaks_the_invariants_is_named_by_play(
    plugins: Path, capsys: Any
) -> None:
    assert play("--expansions", f"{plugins}:Creator") == 1
    assert error_line(capsys) == (
        "projectl-sim: error: the game broke its invariants in round 1, turn 2 (mono: 16 copies "
        "accounted for, not 15); it plays your expansion creator (my_rules.py:Creator), whose "
        "hooks changed the state"
    )


def test_a_checked_run_names_it_and_a_resume_refuses_an_edited_file(
    tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "creator.py"
    path.write_text(PLUGINS)
    out = tmp_path / "run"
    args = ["run", "--bots", "random", "--players", "2", "--jobs", "1", "--quiet", "--out"]
    given = ["--expansions", f"{path}:Creator", "--games", "2", "--seed", "4"]
    assert main([*args, str(out), *given, "--check-invariants"]) == 0
    capsys.readouterr()
    errors = pq.read_table(out / "games.parquet").column("error").to_pylist()
    assert len(errors) == 2
    for error in errors:
        assert error.startswith("PluginError: the game broke its invariants in round 1, turn 2")
        assert "it plays your expansion creator (creator.py:Creator)" in error
    # unchecked, the games run to a "complete" table (the end-of-game checks aside)
    unchecked = tmp_path / "unchecked"
    assert main([*args, str(unchecked), *given]) == 0
    capsys.readouterr()
    # the file edited: the games so far followed other rules, so the run does not resume
    path.write_text(PLUGINS.replace("+= 1", "+= 0"))
    assert main(["run", "--out", str(unchecked), "--resume", "--games", "4", "--quiet"]) == 2
    assert error_line(capsys) == (
        f"projectl-sim: error: --resume: your expansion {path}:Creator changed since the run in "
        f"{unchecked} began (its source's hash is not the one in the manifest): the games played "
        "so far followed the old rules; put the file back as it was, or play the run again in a "
        "new folder"
    )
    path.write_text(PLUGINS)  # as it was: the run grows
    assert main(["run", "--out", str(unchecked), "--resume", "--games", "4", "--quiet"]) == 0
    assert pq.read_table(unchecked / "games.parquet").num_rows == 4


def test_the_packages_own_expansions_are_not_wrapped() -> None:
    from projectl_sim import Expansion
    from projectl_sim.expansions.finesse import Finesse
    from projectl_sim.expansions.phoenix import Phoenix

    for cls in (Finesse, Phoenix):  # the engine calls the shipped hooks directly
        assert "_projectl_sim_guarded" not in vars(cls)
        assert not hasattr(vars(Finesse)["before_apply"], "__wrapped__")

    # a user's expansion: its own code is guarded (on the base class: a compiled build's
    # shipped expansions are native classes, which an interpreted class cannot extend)
    class Mine(Expansion):
        name = "my_phoenix"

        def end_turn(self, state: Any) -> None:
            raise ZeroDivisionError

    register_expansion(Mine)
    try:
        assert vars(Mine)["end_turn"].__wrapped__.__name__ == "end_turn"
        assert set(vars(Mine)) >= {"end_turn", "_projectl_sim_guarded"}
        with pytest.raises(PluginError, match=r"your expansion my_phoenix raised in end_turn \("):
            Mine(Rules(players=2)).end_turn(None)
    finally:
        unregister_expansion("my_phoenix")


def test_a_run_whose_variant_fails_at_once_names_it_and_resumes_once_fixed(
    tmp_path: Path, capsys: Any
) -> None:
    path = tmp_path / "deal.py"
    path.write_text(PLUGINS)
    out = tmp_path / "run"
    args = ["run", "--bots", "random", "--players", "2", "--games", "2", "--jobs", "1"]
    assert main([*args, "--variant", f"{path}:BadDeal", "--quiet", "--out", str(out)]) == 1
    said = error_line(capsys)
    assert f"your variant bad_deal raised in _setup_table (deal.py line {line('oops')})" in said
    assert "0/2 games saved" in said
    # no game was written with the broken file: the fixed one resumes the run
    path.write_text(PLUGINS.replace('raise KeyError("oops")', "pass"))
    assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 0
    assert pq.read_table(out / "games.parquet").column("error").null_count == 2


def test_a_broken_game_without_a_users_class_names_the_seat_that_decided() -> None:
    state = new_game(Rules(players=2), seed=1)
    check_step(state)
    state.supply[0][0] += 1
    with pytest.raises(
        InvariantBroken,
        match=r"^the game broke its invariants in round 1, turn 1 \(\w+: 16 copies accounted "
        r"for, not 15\) after seat 1's decision: a bot that reached into the game's state, or "
        r"else a bug of the engine's",
    ):
        check_step(state, 1)
