"""A user's expansion and variant, each with an option and a column, played from a file of theirs.

Nothing of the package is edited: the classes live in a file in a temporary folder, the command
line loads them (``--expansions FILE.py:CLASS``, ``--variant FILE.py:CLASS``), the run's workers
load them again from the manifest, the options sweep (``--rule``), the columns land in the
tables, ``summary`` reads them, ``view --from`` draws a game and the records replay. The
declarations' own checks (an undeclared column, a clash of names, an option of what is not
played) and the entry points are tested here too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pyarrow.parquet as pq
import pytest

from bots import make_bot
from projectl_sim import Expansion, Rules, play_game, registry
from projectl_sim.engine.record import read_record, replay
from projectl_sim.errors import RulesError
from projectl_sim.options import Column, Option
from projectl_sim.registry import (
    load_entry_points,
    load_expansion,
    load_variant,
    register_expansion,
    unregister_expansion,
    unregister_variant,
)
from projectl_sim.sim.tables import ColumnError, game_rows, schema

USER_FILE = textwrap.dedent(
    '''
    """A house rule and a variant of a user's own."""

    from typing import Any, ClassVar

    from projectl_sim import Expansion, GameState
    from projectl_sim.options import Column, Option


    class BlackMono(Expansion):
        """Every black puzzle completed also pays monos from the reserve."""

        name: ClassVar[str] = "black_mono"
        options: ClassVar[tuple[Option, ...]] = (
            Option("black_mono_pieces", 1, "monos a black puzzle pays", low=0, high=2),
        )
        columns: ClassVar[tuple[Column, ...]] = (
            Column("black_monos", "int", "monos the black puzzles paid"),
        )

        def start(self, state: Any, setup: dict[str, Any]) -> Any:
            return [0] * state.n

        def copy_block(self, block: Any) -> Any:
            return list(block)

        def puzzle_completed(self, state: Any, player: int, card: int) -> None:
            t = state.tables
            if t.is_black[card]:
                paid = min(self.rules.black_mono_pieces, state.reserve[t.mono])
                state.reserve[t.mono] -= paid
                state.supply[player][t.mono] += paid
                state.blocks[self.slot][player] += paid

        def seat_columns(self, state: Any, player: int) -> dict[str, Any]:
            return {"black_monos": state.blocks[self.slot][player]}


    class Handicap(GameState):
        """The last seat in turn order starts with extra monos."""

        variant_name: ClassVar[str] = "handicap"
        players: ClassVar[tuple[int, ...]] = (2, 3, 4)
        options: ClassVar[tuple[Option, ...]] = (
            Option("handicap_monos", 1, "monos the last seat starts with", low=0, high=3),
        )
        columns: ClassVar[tuple[Column, ...]] = (
            Column("handicap_given", "int", "monos this seat got at the start"),
        )

        def _setup_table(self, setup: dict[str, Any]) -> None:
            super()._setup_table(setup)
            last = (self.first_player - 1) % self.n
            mono = self.tables.mono
            give = min(self.rules.handicap_monos, self.reserve[mono])
            self.reserve[mono] -= give
            self.supply[last][mono] += give
            self.given = [give if p == last else 0 for p in range(self.n)]

        def copy(self) -> GameState:
            g = Handicap()
            self._copy_into(g)
            g.given = self.given
            return g

        def variant_seat_columns(self, player: int) -> dict[str, Any]:
            return {"handicap_given": self.given[player]}
    '''
)


def _cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "projectl-sim"
    return subprocess.run(
        [str(exe), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=None if env is None else {**os.environ, **env},
    )


def test_a_users_expansion_and_variant_run_end_to_end_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "my_rules.py").write_text(USER_FILE)
    run = _cli(
        "run",
        "--bots", "greedy",
        "--players", "2",
        "--expansions", "my_rules.py:BlackMono",
        "--variant", "my_rules.py:Handicap",
        "--rule", "black_mono_pieces=0,2",
        "--rule", "handicap_monos=3",
        "--games", "3",
        "--seed", "4",
        "--jobs", "2",
        "--records", "all",
        "--out", "r",
        "--quiet",
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = tmp_path / "r"
    seats = pq.read_table(out / "seats.parquet").to_pandas()
    games = pq.read_table(out / "games.parquet").to_pandas()
    assert set(games["variant"]) == {"handicap"} and set(games["expansions"]) == {"black_mono"}
    # the options swept, named as every switch is; the columns filled by the workers
    zero, two = "black_mono_pieces=0,handicap_monos=3", "black_mono_pieces=2,handicap_monos=3"
    assert set(games["switches"]) == {zero, two}
    assert sorted(seats.groupby("switches")["handicap_given"].sum()) == [9, 9]  # 3 games each
    paid = seats.groupby("switches")["black_monos"].sum()
    assert paid[zero] == 0 and paid[two] > 0  # up to 2 a black puzzle
    blacks = seats.groupby("switches")["completed_black"].sum()
    assert paid[two] <= 2 * blacks[two]  # the reserve may run out of monos
    # the manifest names the classes, so its readers load them again
    manifest = json.loads((out / "manifest.json").read_text())
    assert {p[0] for p in manifest["config"]["plugins"]} == {"black_mono", "handicap"}
    summary = _cli("summary", "r", cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    assert "expansions black_mono" in summary.stdout and "handicap" in summary.stdout
    view = _cli("view", "--from", "r", "--game", "1", "-o", "game.html", cwd=tmp_path)
    assert view.returncode == 0, view.stderr
    assert (tmp_path / "game.html").stat().st_size > 1000
    # the records name the options and replay where the classes are loaded
    load_expansion(str(tmp_path / "my_rules.py") + ":BlackMono")
    load_variant(str(tmp_path / "my_rules.py") + ":Handicap")
    try:
        for path in sorted((out / "records").glob("*.json")):
            record = read_record(path)
            assert record["rules"]["handicap_monos"] == 3
            assert record["rules"]["black_mono_pieces"] in (0, 2)
            again = replay(record).state
            assert again.final_scores() == record["result"]["scores"]
    finally:
        unregister_expansion("black_mono")
        unregister_variant("handicap")


class _Counted(Expansion):
    name: ClassVar[str] = "counted"
    columns: ClassVar[tuple[Column, ...]] = (Column("counted", "int", "a number"),)

    def seat_columns(self, state: Any, player: int) -> dict[str, Any]:
        return {"counted": 1, "forgotten": 2}


def test_a_column_no_class_declares_is_an_error_naming_the_hook() -> None:
    register_expansion(_Counted)
    try:
        assert "counted" in schema("seats").names
        outcome = play_game(Rules(players=2, expansions={"counted"}), [make_bot("random")] * 2, 3)
        ident = {"run_id": "x", "game_id": 0, "seed": 3, "config_id": 0, "players": 2}
        with pytest.raises(ColumnError, match=r"counted\.seat_columns .*'forgotten'"):
            game_rows(
                ident,
                rotation=0,
                seats=["random", "random"],
                state=outcome.state,
                actions=[{}, {}],
                decision_seconds=[0.0, 0.0],
                duration=0.0,
            )
    finally:
        unregister_expansion("counted")
    assert "counted" not in schema("seats").names


def test_options_are_checked_against_the_declarations_of_what_is_played() -> None:
    assert Rules(expansions={"ghost_piece"}, ghost_action="free").options["ghost_action"] == "free"
    assert Rules().ghost_action == "action"  # not played: its declared default
    with pytest.raises(RulesError, match="ghost_action applies to the ghost_piece expansion"):
        Rules(ghost_action="free")
    with pytest.raises(RulesError, match="unknown ghost_action 'sometimes'"):
        Rules(expansions={"ghost_piece"}, ghost_action="sometimes")
    with pytest.raises(RulesError, match="unknown rules option 'ghost_actoin'"):
        Rules(expansions={"ghost_piece"}, ghost_actoin="free")

    class Clash(Expansion):
        name: ClassVar[str] = "clash"
        options: ClassVar[tuple[Option, ...]] = (Option("ghost_action", "a", "x", choices=("a",)),)

    with pytest.raises(RulesError, match="'ghost_action' is declared by the expansion ghost_piece"):
        register_expansion(Clash)


def _installed(folder: Path) -> None:
    """Lay out ``their_rules`` in ``folder`` as an installed package declaring entry points."""
    (folder / "their_rules.py").write_text(USER_FILE)
    info = folder / "their_rules-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: their-rules\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[projectl_sim.expansions]\nblack_mono = their_rules:BlackMono\n"
        "[projectl_sim.variants]\nhandicap = their_rules:Handicap\n"
    )


def test_an_installed_packages_entry_point_is_read_when_its_name_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_ENTRY_POINTS_READ", False)
    try:
        # no call to load_entry_points: naming the classes reads the installed packages
        rules = Rules(players=3, variant="handicap", expansions={"black_mono"}, handicap_monos=2)
        outcome = play_game(rules, [make_bot("random")] * 3, 5)
        state = outcome.state
        assert state.given[(state.first_player - 1) % 3] == 2 and sum(state.given) == 2
        assert replay(outcome.record_json()).state.final_scores() == outcome.state.final_scores()
        assert load_entry_points() is False  # once a process
    finally:
        unregister_expansion("black_mono")
        unregister_variant("handicap")
        sys.modules.pop("their_rules", None)


def test_a_run_plays_an_installed_packages_classes_by_name_in_its_workers(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    _installed(tmp_path / "site")
    path = os.pathsep.join(filter(None, [str(tmp_path / "site"), os.environ.get("PYTHONPATH")]))
    run = _cli(
        "run", "--bots", "random", "--players", "3", "--expansions", "black_mono",
        "--variant", "handicap", "--games", "4", "--seed", "2", "--jobs", "2",
        "--out", "r", "--quiet",
        cwd=tmp_path, env={"PYTHONPATH": path},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    games = pq.read_table(tmp_path / "r" / "games.parquet").to_pandas()
    assert set(games["variant"]) == {"handicap"} and set(games["expansions"]) == {"black_mono"}
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert {p[0]: p[2] for p in manifest["config"]["plugins"]} == {
        "black_mono": "their_rules:BlackMono",
        "handicap": "their_rules:Handicap",
    }


def test_an_installed_package_that_does_not_import_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(tmp_path)
    (tmp_path / "their_rules.py").write_text("raise ImportError('half installed')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_ENTRY_POINTS_READ", False)
    try:
        with pytest.raises(RulesError, match=r"entry point black_mono \(their_rules:BlackMono\)"):
            Rules(players=2, expansions={"black_mono"})
    finally:
        sys.modules.pop("their_rules", None)
