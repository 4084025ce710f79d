"""The game state's modules import one way: nothing ``state`` is built from imports it back.

``state`` calls ``checks``, ``moves``, ``rewards`` and the expansions' ``hooks``; they work on
``StateData`` (its fields) and name no ``GameState``, not even for annotations. The import graph
here counts the imports made under ``if TYPE_CHECKING:`` too (grimp reads them; the contracts in
pyproject do as well).
"""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
import pytest

STATE = "projectl_sim.engine.state"


def _graph(*packages: str) -> grimp.ImportGraph:
    return grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)


def imports_back(graph: grimp.ImportGraph, module: str) -> list[list[str]]:
    """Return, for each module that ``module`` imports (directly or not) and that imports it
    back, the shortest chain of imports from it to ``module``."""
    chains = []
    for below in sorted(graph.find_upstream_modules(module)):
        chain = graph.find_shortest_chain(importer=below, imported=module)
        if chain is not None:
            chains.append(list(chain))
    return chains


def test_nothing_the_state_imports_imports_it_back() -> None:
    graph = _graph("projectl_sim", "bots")
    below = graph.find_upstream_modules(STATE)
    # what the state is built from, seen by the graph (so the check below is of them)
    assert {
        "projectl_sim.engine.checks",
        "projectl_sim.engine.moves",
        "projectl_sim.engine.rewards",
        "projectl_sim.engine.hooks",
        "projectl_sim.engine.state_data",
    } <= below
    assert imports_back(graph, STATE) == []


def test_the_check_sees_an_import_made_for_annotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cyclepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "state.py").write_text("from cyclepkg import helper\n")
    (package / "helper.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cyclepkg.state import S\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        graph = _graph("cyclepkg")
    finally:
        sys.modules.pop("cyclepkg", None)
    assert imports_back(graph, "cyclepkg.state") == [["cyclepkg.helper", "cyclepkg.state"]]
