"""Every notebook runs end to end on a tiny seeded sweep and writes its charts as PNG files."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# Tiny sweeps: a few games, MCTS budgets of a few iterations (the charts, not the answers).
CASES = {
    "01_bot_strength": (
        'GAMES = 2\nBOTS = ["random", "greedy", "mcts:iterations=2"]\nLADDER = [1, 2]\n'
        "BOOTSTRAP = 20",
        ["win_rates", "ratings", "head_to_head", "skill_ladder"],
    ),
    "02_expansion_balance": (
        "GAMES = 2\nPLAYERS = [2, 3]",
        ["seat_advantage", "margins", "lengths", "end_reasons", "scores", "expansion_effects"],
    ),
    "03_puzzle_atlas": (
        "GAMES = 2\nPLAYERS = [2]",
        ["atlas", "puzzles_taken", "puzzle_value", "piece_mix"],
    ),
    "04_solo_and_finesse": (
        "GAMES = 2",
        ["solo_by_difficulty", "credits", "finishing_touches"],
    ),
    "05_designer_loop": (
        'GAMES = 4\nBUDGET = 12\nTRIAL_GAMES = 4\nPARAM = "black_deck_2p=12..14"',
        ["check", "trial", "tune"],
    ),
}


def _with_parameters(nb: nbformat.NotebookNode, overrides: str) -> None:
    """Append overrides to the cell tagged ``parameters`` (what papermill would inject)."""
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, "a notebook has exactly one parameters cell"
    cells[0].source += "\n" + overrides


@pytest.mark.parametrize("name", sorted(CASES))
def test_notebook_runs_and_writes_charts(name: str, tmp_path: Path) -> None:
    overrides, charts = CASES[name]
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    results = tmp_path / "run"
    _with_parameters(nb, f"{overrides}\nRESULTS = {str(results)!r}\nJOBS = 1\nSEED = 5")
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {}}).execute()
    written = sorted(p.stem for p in (results / "charts").glob("*.png"))
    assert written == sorted(charts)
    for chart in charts:
        assert (results / "charts" / f"{chart}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the sweep was played into the folder (notebook 04 keeps a solo and a Finesse run there)
    assert list(results.glob("**/manifest.json"))
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors
