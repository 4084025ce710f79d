"""The notebooks: their shape, and each executed through ``projectl-sim notebook`` as users do.

Every notebook plays a tiny seeded sweep into a fresh folder (``--play`` with small ``-p``
sizes), writes its charts there and ends with an answer in words; the test checks the charts,
the executed copy beside the run and that the answer speaks of the run it read.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from paths import ROOT

from projectl_sim import analysis as pa
from projectl_sim.cli import main
from projectl_sim.cli import notebook as nbcli
from projectl_sim.sim import tables

NOTEBOOKS = ROOT / "notebooks"
SCRIPT = Path(sys.executable).with_name("projectl-sim")
# the command line of a user: the installed script (``python -m projectl_sim`` is the same)
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "projectl_sim"]

# Tiny sweeps: a few games, MCTS budgets of a few iterations (the charts, not the findings).
CASES = {
    "01_bot_strength": (
        [
            "GAMES=2",
            'BOTS=["random", "greedy", "mcts:iterations=2"]',
            "LADDER=[1]",
            'ANCHOR="greedy"',
        ],
        ["win_rates", "ratings", "head_to_head", "skill_ladder"],
    ),
    "02_expansion_balance": (
        ["GAMES=2", "PLAYERS=[2]"],
        ["seat_advantage", "margins", "lengths", "end_reasons", "scores", "expansion_effects"],
    ),
    "03_puzzle_atlas": (
        ["GAMES=2", "PLAYERS=[2]"],
        ["atlas", "puzzles_taken", "puzzle_value", "piece_mix"],
    ),
    "04_solo_and_finesse": (
        ["GAMES=2"],
        ["solo_by_difficulty", "credits", "finishing_touches"],
    ),
    "05_designer_loop": (  # 2 paired games; a search of 2 settings, each confirmed on 4 deals
        ["GAMES=2", "BUDGET=4", "TRIAL_GAMES=2", "CONFIRM=1", 'PARAM="black_deck_2p=12..13"'],
        ["check", "trial", "tune"],
    ),
    "06_cards_and_flow": (["GAMES=2", "PLAYERS=[2]"], ["card_strength", "game_flow"]),
}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args], capture_output=True, text=True, timeout=300, check=False
    )


def _params(pairs: list[str]) -> list[str]:
    return [arg for p in [*pairs, "SEED=5", "JOBS=1"] for arg in ("-p", p)]


def _execute_on_a_run(nb, path: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """Write ``nb`` to ``path`` and execute it with ``notebook`` on a (stand-in) finished run
    folder beside it; return the folder and the command's result."""
    nbformat.write(nb, path)
    run = path.parent / "run"
    run.mkdir()
    (run / tables.MANIFEST).write_text(json.dumps({"status": "complete"}))
    return run, _cli("notebook", str(path), "--run", str(run))


def _tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


# -- the shape every notebook keeps (read, not executed) -----------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_notebook_asks_first_has_one_parameters_cell_and_ends_with_its_answer(name) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert nb.cells[0].cell_type == "markdown"
    assert "**Question:**" in nb.cells[0].source
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [i for i, c in enumerate(code) if "parameters" in _tags(c)] == [0]  # one, at the top
    _, known = nbcli.parameters_of(nb, name)
    assert {"RESULTS", "PLAY", "GAMES", "SEED", "JOBS"} <= set(known)
    assert all(p.literal for p in known.values())  # plain values, nothing computed there
    assert {k for k, p in known.items() if p.sweep} >= {"GAMES", "SEED"}
    # nothing else to edit: no later cell sets a parameter or a name in capitals
    for cell in code[1:]:
        assigned = {
            t.id
            for node in ast.walk(ast.parse(cell.source))
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        assert not assigned & set(known), cell.source
        assert not {a for a in assigned if a.isupper()}, cell.source
    assert "answer" in _tags(nb.cells[-1]) and nb.cells[-1].cell_type == "code"
    assert "_answer(" in nb.cells[-1].source  # written by analysis.conclusions from the tables


# -- executed through the command line -----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_command_executes_a_notebook_and_writes_its_copy_and_charts(name, tmp_path) -> None:
    params, charts = CASES[name]
    run = tmp_path / "run"
    done = _cli("notebook", name, "--run", str(run), "--play", *_params(params))
    assert done.returncode == 0, done.stderr
    copy = run / f"{name}.ipynb"
    lines = done.stdout.splitlines()
    assert lines[0] == f"executed copy: {copy}"
    folder = run / "charts" / name  # its own: never the tutorial's charts/lengths.png
    assert lines[1] == f"charts: {folder} ({len(charts)} PNG written)"
    written = sorted(p.stem for p in folder.glob("*.png"))
    assert written == sorted(charts)
    assert not list((run / "charts").glob("*.png"))
    for chart in charts:
        assert (folder / f"{chart}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    nb = nbformat.read(copy, as_version=4)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    # the values given sit in a cell of their own right after the parameters cell
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in _tags(c))
    injected = nb.cells[at + 1]
    assert _tags(injected) == ["injected-parameters"]
    assert f"RESULTS = {str(run)!r}" in injected.source and "PLAY = True" in injected.source
    assert "GAMES = 2" in injected.source and "SEED = 5" in injected.source

    # the answer: the last cell's Markdown, printed by the command, about this run's games
    answer = nb.cells[-1].outputs[0]["data"]["text/markdown"]
    printed = " ".join(" ".join(lines[lines.index("answer:") + 1 :]).split())
    assert printed == " ".join(answer.replace("**", "").split())
    folders = sorted(p.parent for p in run.glob("**/" + tables.MANIFEST))
    assert folders  # the sweep was played there (04: a solo and a Finesse run)
    games = pa.load_runs(folders).games
    ok = games[games["error"].isna()]
    if name == "04_solo_and_finesse":
        solo = int((ok["variant"] == "solo").sum())
        assert f"In {solo} games against the solo mastermind" in answer
        assert f"Of the {len(ok) - solo} games with two or more players" in answer
    elif name == "05_designer_loop":  # the trial's pairs, then every game of the search
        paired = int(pa.load_run(run / "with").games["error"].isna().sum())
        assert f"Over {paired} paired games in the place of W25" in answer
        searched = [f for f in folders if (run / "tune") in f.parents]
        assert searched and f"{len(pa.load_runs(searched).games)} games in all" in answer
        assert "black_deck_2p=12..13" in answer and "the rulebook's" in answer
    else:
        assert f"Over {len(ok)} games" in answer

    if name == "01_bot_strength":  # run again on the same run: it is read, not played again
        stamp = (run / "seats.parquet").stat().st_mtime_ns
        again = _cli("notebook", name, "--run", str(run), "-p", 'ANCHOR="greedy"', "-p", "GAMES=50")
        assert again.returncode == 0, again.stderr
        assert "warning: -p GAMES: ignored" in again.stderr
        assert (run / "seats.parquet").stat().st_mtime_ns == stamp
        rerun = nbformat.read(copy, as_version=4)
        assert "ANCHOR = 'greedy'" in rerun.cells[at + 1].source
        again_answer = rerun.cells[-1].outputs[0]["data"]["text/markdown"]
        # the same games (the first sentence counts them), rated on the same scale
        assert again_answer.split(":")[0] == answer.split(":")[0]


@pytest.mark.parametrize(
    ("source", "code", "error"),
    [
        ("half = 1\nvalue = half / (N - 1)", 1, "ZeroDivisionError: division by zero"),
        # the package's user-mistake error raised in a cell stays a user mistake
        (
            "from projectl_sim.errors import UsageError\nraise UsageError(f'N is {N}')",
            2,
            "UsageError: N is 1",
        ),
    ],
)
def test_a_failing_cell_is_one_line_and_keeps_the_copy(source, code, error, tmp_path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("**Question:** does it fail?"),
        nbformat.v4.new_code_cell(
            'RESULTS = "x"\nPLAY = False\nN = 1', metadata={"tags": ["parameters"]}
        ),
        nbformat.v4.new_code_cell(source),
        nbformat.v4.new_code_cell("print('never')", metadata={"tags": ["answer"]}),
    ]
    run, done = _execute_on_a_run(nb, tmp_path / "fails.ipynb")
    assert done.returncode == code
    line = source.splitlines()[-1]
    assert done.stderr.splitlines() == [
        f"projectl-sim: error: fails: cell 3, line 2 (`{line}`) failed: "
        f"{error} (executed copy so far: {run / 'fails.ipynb'})"
    ]
    kept = nbformat.read(run / "fails.ipynb", as_version=4)
    assert kept.cells[3].outputs[0].output_type == "error"  # after the injected cell
    assert kept.cells[4].outputs == []  # nothing ran after it


def test_a_dead_kernel_is_one_line_quoting_what_the_kernel_last_wrote(tmp_path) -> None:
    # the kernel process's own stderr is kept from the terminal (its internals: a loaded
    # machine can make a shutdown print a ZMQ traceback) and quoted when the kernel dies
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell('RESULTS = "x"\nPLAY = False', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("import os\nos.write(2, b'out of memory, say\\n')\nos._exit(3)"),
        nbformat.v4.new_code_cell("print('never')", metadata={"tags": ["answer"]}),
    ]
    run, done = _execute_on_a_run(nb, tmp_path / "dies.ipynb")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "projectl-sim: error: dies: cell 2 (`import os`) failed: the kernel died "
        f"(out of memory, say) (executed copy so far: {run / 'dies.ipynb'})"
    ]


# -- mistakes, found before any kernel starts ----------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["09", "--run", "."], "unknown notebook '09' (known: 01_bot_strength, "),
        (["0", "--run", "."], "ambiguous notebook '0'"),
        (["01"], "--run DIR is required"),
        (["01", "--run", "{missing}"], "no such run folder (--play plays"),
        (["01", "--run", "{empty}"], "holds no run (no manifest.json"),
        (["01", "--run", "{run}", "-p", "FOO=1"], "-p FOO: 01_bot_strength has no such parameter"),
        (["01", "--run", "{run}", "-p", "GAMES=1.5"], "-p GAMES=1.5: expected a whole number"),
        (["01", "--run", "{run}", "-p", "GAMES=ten"], "-p GAMES=ten: not a Python value"),
        (["01", "--run", "{run}", "-p", "BOTS=greedy"], "-p BOTS=greedy: not a Python value"),
        (["01", "--run", "{run}", "-p", "GAMES"], "-p 'GAMES': use NAME=VALUE"),
        (["01", "--run", "{run}", "-p", "RESULTS=x"], "-p RESULTS: set by --run"),
        (["01", "--run", "{run}", "-p", "PLAY=True"], "-p PLAY: set by --play"),
        (["01", "--run", "{run}", "--timeout", "0"], "--timeout 0: give the seconds"),
        (["01", "--run", "{run}", "--timeout", "-1"], "--timeout -1: give the seconds"),
        # a run of --tables core (its manifest, no flow table): 06 reads rounds and events
        (["06", "--run", "{run}"], "06_cards_and_flow reads the events and rounds tables that"),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(args, message, tmp_path, capsys) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / tables.MANIFEST).write_text("{}")
    where = {k: str(tmp_path / k) for k in ("missing", "empty", "run")}
    assert main(["notebook", *(a.format(**where) for a in args)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("projectl-sim: error: ")
    assert message in err


def test_without_a_name_the_command_lists_the_notebooks_and_their_questions(capsys) -> None:
    assert main(["notebook"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(CASES)
    assert lines[0].split(maxsplit=1)[1].startswith("which bot is strongest")
