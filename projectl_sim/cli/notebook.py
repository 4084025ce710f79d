"""The ``notebook`` subcommand: execute an analysis notebook on a run, with parameters.

``projectl-sim notebook 02_expansion_balance --run results/NAME -p GAMES=10`` reads the
notebook's one cell tagged ``parameters``, checks every ``-p NAME=VALUE`` against it (the name
must be assigned there, the value must be a Python literal of the same kind as the cell's, or
plain text where the cell has a string), adds a cell tagged ``injected-parameters`` after it
(``RESULTS`` set to the run folder, ``PLAY`` to ``--play``, then the ``-p`` values: papermill's
convention, so the notebooks stay papermill notebooks too), executes it in a kernel of this
Python through nbclient, and writes the executed copy beside the run (``RUN/NAME.ipynb``) while
the notebook writes its charts in a folder of its own, ``RUN/charts/NAME``. It prints where
they are and the text of the cell tagged ``answer``. A failing cell is one line naming the
cell and its error (exit 1; exit 2 when the error is the package's ``UsageError``, a user
mistake such as a folder holding no run), and the executed copy keeps what ran up to it.

nbclient rather than papermill: the ``test`` extra already has nbclient, nbformat and ipykernel,
so the command works without the ``notebooks`` extra, and the checks (names, kinds of values)
and one-line errors are this command's own; papermill would add a dependency for the injection
alone.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
import sys
import tempfile
import textwrap
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectl_sim.cli.options import PROG
from projectl_sim.errors import NotebookFailed, UsageError

# The notebooks of the source checkout (``pip install -e .``): beside the package.
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PARAMETERS_TAG = "parameters"
INJECTED_TAG = "injected-parameters"  # papermill's name for the cell it adds
ANSWER_TAG = "answer"
# The parameters every notebook has, set by the command's own options rather than by -p.
RESULTS, PLAY = "RESULTS", "PLAY"
RESERVED = {RESULTS: "--run", PLAY: "--play"}
# In the parameters cell, the names assigned below this comment line are the sweep's: what is
# played into RESULTS when it holds no run (a run already there is read as it is).
SWEEP_MARK = re.compile(r"^\s*#\s*sweep\b", re.IGNORECASE)
NEEDS = "nbclient, nbformat and ipykernel"


@dataclass(frozen=True)
class Parameter:
    """A name the parameters cell assigns, its source text and value (None if not a literal);
    ``sweep`` when it sets what is played (below the ``# sweep`` line), not how it is read."""

    name: str
    source: str
    value: Any
    literal: bool
    sweep: bool = False


# -- finding notebooks ---------------------------------------------------------------------------
def known_notebooks(folder: Path = NOTEBOOKS) -> list[str]:
    """Return the names of the shipped notebooks (file stems), sorted."""
    return sorted(p.stem for p in folder.glob("*.ipynb"))


def find_notebook(name: str, folder: Path = NOTEBOOKS) -> Path:
    """Return a notebook's file: a shipped one's name (or unique prefix: ``02``), or a path."""
    path = Path(name)
    if path.suffix == ".ipynb" and path.is_file():
        return path
    stem = path.name.removesuffix(".ipynb")
    known = known_notebooks(folder)
    matches = [n for n in known if n == stem] or [n for n in known if n.startswith(stem)]
    if len(matches) == 1:
        return folder / f"{matches[0]}.ipynb"
    listed = ", ".join(known) or f"none: no notebooks in {folder}"
    what = "ambiguous" if matches else "unknown"
    raise UsageError(f"{what} notebook {name!r} (known: {listed})")


def read_notebook(path: Path) -> dict[str, Any]:
    """Return a notebook file as JSON; raise ``UsageError`` if it is not one."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: not a readable notebook ({exc})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise UsageError(f"{path}: not a notebook (no cells)")
    return nb


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _tagged(nb: Mapping[str, Any], tag: str) -> list[int]:
    return [i for i, c in enumerate(nb["cells"]) if tag in c.get("metadata", {}).get("tags", [])]


def question(nb: Mapping[str, Any]) -> str:
    """Return what a notebook answers: its first markdown cell's ``**Question:**`` paragraph."""
    for cell in nb["cells"]:
        if cell.get("cell_type") != "markdown":
            continue
        paragraphs = [" ".join(p.split()) for p in _source(cell).split("\n\n") if p.strip()]
        for paragraph in paragraphs:
            if paragraph.startswith("**Question:**"):
                return paragraph.removeprefix("**Question:**").strip()
        return paragraphs[0].lstrip("# ") if paragraphs else ""
    return ""


# -- parameters ----------------------------------------------------------------------------------
def parameters_of(nb: Mapping[str, Any], name: str) -> tuple[int, dict[str, Parameter]]:
    """Return the index of a notebook's cell tagged ``parameters`` and the names it assigns."""
    found = _tagged(nb, PARAMETERS_TAG)
    if len(found) != 1:
        raise UsageError(f"{name}: {len(found)} cells tagged {PARAMETERS_TAG!r} (one expected)")
    text = _source(nb["cells"][found[0]])
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UsageError(f"{name}: the parameters cell does not parse ({exc.msg})") from None
    marks = [i + 1 for i, line in enumerate(text.splitlines()) if SWEEP_MARK.match(line)]
    mark = marks[0] if marks else None
    out = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if not isinstance(target, ast.Name) or value is None:
            continue
        try:
            literal, ok = ast.literal_eval(value), True
        except ValueError:
            literal, ok = None, False
        source = ast.get_source_segment(text, value) or ""
        sweep = mark is not None and node.lineno > mark
        out[target.id] = Parameter(target.id, source, literal, ok, sweep)
    return found[0], out


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number" if isinstance(value, float) else "a whole number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def _fits(value: Any, default: Any) -> bool:
    """Return whether ``value`` may replace ``default`` (the same kind; None either way)."""
    if value is None or default is None:
        return True
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, int | float)
    if isinstance(default, list | tuple):
        return isinstance(value, list | tuple)
    return isinstance(value, type(default))


def parse_parameters(items: Sequence[str], known: Mapping[str, Parameter], name: str) -> dict:
    """Return the values of ``-p NAME=VALUE`` items, checked against the parameters cell."""
    out: dict[str, Any] = {}
    for item in items:
        key, eq, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not eq or not key:
            raise UsageError(f"-p {item!r}: use NAME=VALUE (e.g. -p GAMES=10)")
        if key in RESERVED:
            raise UsageError(f"-p {key}: set by {RESERVED[key]}")
        if key not in known:
            names = ", ".join(k for k in known if k not in RESERVED)
            raise UsageError(f"-p {key}: {name} has no such parameter (it has {names})")
        default = known[key]
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            if not (default.literal and isinstance(default.value, str)):
                raise UsageError(
                    f"-p {key}={raw}: not a Python value (the notebook has "
                    f"{key} = {default.source})"
                ) from None
            value = raw  # plain text for a text parameter: -p RESULTS=results/x
        if default.literal and not _fits(value, default.value):
            raise UsageError(
                f"-p {key}={raw}: expected {_kind(default.value)} (the notebook has "
                f"{key} = {default.source})"
            )
        out[key] = value
    return out


def inject(nb: dict[str, Any], at: int, values: Mapping[str, Any]) -> None:
    """Add a cell tagged ``injected-parameters`` setting ``values``, after the cell ``at``."""
    lines = [
        "# Parameters given to projectl-sim notebook",
        *(f"{k} = {v!r}" for k, v in values.items()),
    ]
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {"tags": [INJECTED_TAG]},
        "outputs": [],
        "source": "\n".join(lines),
    }
    if nb.get("nbformat", 4) == 4 and nb.get("nbformat_minor", 0) >= 5:
        cell["id"] = "injected-parameters"
    nb["cells"].insert(at + 1, cell)


# -- results -------------------------------------------------------------------------------------
def holds_run(folder: Path) -> bool:
    """Return whether a folder is a run, or holds runs one level down (notebook 04's two)."""
    return (folder / "manifest.json").exists() or any(folder.glob("*/manifest.json"))


def tables_read(nb: Mapping[str, Any]) -> list[str]:
    """Return the flow tables (``events``, ``rounds``) a notebook's code reads: an attribute of
    that name in a code cell (``run.rounds``), the tables a ``--tables core`` run lacks."""
    from projectl_sim.sim.tables import FLOW_TABLES

    code = "\n".join(_text(c.get("source", "")) for c in nb["cells"] if c["cell_type"] == "code")
    return [name for name in FLOW_TABLES if re.search(rf"\.{name}\b", code)]


def check_tables(nb: Mapping[str, Any], stem: str, folder: Path) -> None:
    """Refuse a run (or a run of a folder of runs) lacking a flow table the notebook reads."""
    from projectl_sim.sim.tables import MANIFEST, written_tables

    needed = tables_read(nb)
    runs = [folder, *sorted(p.parent for p in folder.glob(f"*/{MANIFEST}"))]
    for run in (r for r in runs if needed and (r / MANIFEST).exists()):
        lacking = [name for name in needed if name not in written_tables(run)]
        if lacking:
            raise UsageError(
                f"{stem} reads the {' and '.join(lacking)} table{'s' if len(lacking) > 1 else ''}"
                f" that {run} lacks (played with --tables core): play it again without "
                "--tables core"
            )


def answer_text(nb: Mapping[str, Any]) -> str | None:
    """Return the text the cell tagged ``answer`` printed or displayed (None if it has none)."""
    found = _tagged(nb, ANSWER_TAG)
    if not found:
        return None
    parts = []
    for out in nb["cells"][found[-1]].get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(_text(out.get("text", "")))
        data = out.get("data", {})
        for mime in ("text/markdown", "text/plain"):
            if mime in data:
                parts.append(_text(data[mime]))
                break
    return "\n".join(p.strip() for p in parts if p.strip()) or None


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CELL_LINE = re.compile(r"Cell In\[\d*\], line (\d+)")


def _raising_line(cell: Mapping[str, Any]) -> int | None:
    """Return the line of the cell the error's traceback points at (IPython's ``Cell In``)."""
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            found = _CELL_LINE.search(_ANSI.sub("", "\n".join(out.get("traceback", []))))
            if found:
                return int(found.group(1))
    return None


def _cell_name(nb: Mapping[str, Any], index: int, injected: int) -> str:
    """Return ``cell 5, line 3 (`that line`)``, numbered as in the notebook file (1 = first)."""
    if index < 0:
        return "a cell"
    cell = nb["cells"][index]
    lines = _source(cell).splitlines()
    line = _raising_line(cell)
    shown = f"cell {index + 1 - (index > injected)}"  # the injected cell is not in the file
    if line is not None and 0 < line <= len(lines):
        text, shown = lines[line - 1].strip(), f"{shown}, line {line}"
    else:
        text = next((s.strip() for s in lines if s.strip()), "")
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{shown} (`{text}`)" if text else shown


# -- the command ---------------------------------------------------------------------------------
def run_notebook(
    name: str,
    run: str | Path,
    parameters: Sequence[str] = (),
    *,
    out: str | Path | None = None,
    play: bool = False,
    timeout: float | None = None,
) -> tuple[Path, str | None]:
    """Execute a notebook on a run folder with ``-p`` style parameters; write its executed copy.

    Return the executed copy's path and the answer cell's text. Raise ``UsageError`` for a
    mistake found before executing (notebook, parameter, run folder) and ``NotebookFailed`` when
    a cell fails (the executed copy then holds every cell up to the failing one).
    """
    path = find_notebook(name)
    stem = path.stem
    nb_json = read_notebook(path)
    at, known = parameters_of(nb_json, stem)
    missing = [k for k in RESERVED if k not in known]
    if missing:
        raise UsageError(f"{stem}: its parameters cell assigns no {' or '.join(missing)}")
    values = parse_parameters(parameters, known, stem)
    if timeout is not None and not (timeout > 0 and math.isfinite(timeout)):
        raise UsageError(f"--timeout {timeout:g}: give the seconds a cell may run (> 0)")
    folder = Path(run).expanduser().absolute()
    if not play:
        if not folder.is_dir():
            raise UsageError(f"{run}: no such run folder (--play plays the notebook's sweep there)")
        if not holds_run(folder):
            raise UsageError(
                f"{run}: holds no run (no manifest.json in it or its folders; --play plays the "
                "notebook's sweep there)"
            )
    elif folder.exists() and not folder.is_dir():
        raise UsageError(f"{run}: not a folder")
    if folder.is_dir():
        check_tables(nb_json, stem, folder)
    unused = [k for k in values if known[k].sweep]
    # a run folder is read as it is; with --play, a folder of runs plays those it lacks
    if unused and ((folder / "manifest.json").exists() or (not play and holds_run(folder))):
        print(
            f"{PROG}: warning: -p {', '.join(unused)}: ignored, {run} already holds a run "
            "(the sweep's parameters apply only where --play plays one)",
            file=sys.stderr,
        )
    target = Path(out) if out is not None else folder / f"{stem}.ipynb"
    if target.is_dir():
        target = target / f"{stem}.ipynb"
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
        from traitlets.config import Config
    except ImportError:
        raise UsageError(
            f"the notebook command needs {NEEDS}: pip install -e '.[notebooks]'"
        ) from None

    inject(nb_json, at, {RESULTS: str(folder), PLAY: play, **values})
    nb = nbformat.reads(json.dumps(nb_json), as_version=4)  # sources joined, as Jupyter reads
    running = [-1]  # the index of the cell executing (nbclient's hook tells)

    def started(cell: Any, cell_index: int) -> None:
        running[0] = cell_index

    # this Python's own kernel (ipykernel), whatever the file names; over local sockets where
    # there are some (TCP makes the kernel warn that its traffic is unencrypted)
    sockets = tempfile.TemporaryDirectory(prefix="projectl-kernel-")
    config = Config()
    if sys.platform != "win32":  # an absolute path: the kernel runs in the notebook's folder
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = str(Path(sockets.name) / "kernel")
    client = NotebookClient(
        nb,
        config=config,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},  # run from its folder, as Jupyter
        on_cell_start=started,
    )
    folder.mkdir(parents=True, exist_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    # The kernel process's own stderr goes to a log, not to the terminal: a cell's output comes
    # back as messages, and what the process itself writes is its internals (a loaded machine
    # can make its shutdown after a failed cell print a ZMQ traceback, which is no error of
    # the notebook's). Its last line is quoted if the kernel dies.
    log_path = Path(sockets.name) / "kernel-stderr.log"
    try:
        with log_path.open("wb") as log:
            client.execute(stderr=log)
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as exc:
        nbformat.write(nb, target)
        if isinstance(exc, CellExecutionError):
            what = f"{exc.ename}: {' '.join(str(exc.evalue).split())}"
        elif isinstance(exc, CellTimeoutError):
            what = f"ran longer than --timeout {timeout:g} s"
        else:
            last = _last_line(log_path)
            what = "the kernel died" + (f" ({last})" if last else "")
        cell = _cell_name(nb, running[0], at + 1)
        # the package's own one-line error for a user mistake (a folder holding no run, say)
        # stays a user mistake (exit 2); anything else is the notebook failing (exit 1)
        mistake = isinstance(exc, CellExecutionError) and exc.ename == UsageError.__name__
        error = UsageError if mistake else NotebookFailed
        raise error(f"{stem}: {cell} failed: {what} (executed copy so far: {target})") from None
    except KeyboardInterrupt:
        nbformat.write(nb, target)
        raise KeyboardInterrupt(f"interrupted (executed copy so far: {target})") from None
    finally:
        sockets.cleanup()
    nbformat.write(nb, target)
    return target, answer_text(nb)


def _last_line(path: Path) -> str:
    """Return the last non-blank line of a text file ("" if none or unreadable)."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


def cmd_notebook(args: argparse.Namespace) -> int:
    """List the notebooks, or execute one on a run and print where its outputs are."""
    if args.name is None:
        for stem in known_notebooks():
            print(f"{stem:24s} {question(read_notebook(NOTEBOOKS / f'{stem}.ipynb'))}")
        return 0
    find_notebook(args.name)  # an unknown name first: it is the likelier mistake
    if args.run is None:
        raise UsageError("notebook: --run DIR is required (the run folder to analyse)")
    start = time.time()
    target, answer = run_notebook(
        args.name, args.run, args.parameter, out=args.out, play=args.play, timeout=args.timeout
    )
    charts = Path(args.run) / "charts" / target.stem  # each notebook's own folder
    made = sorted(p for p in charts.glob("*.png") if p.stat().st_mtime >= start - 1)
    print(f"executed copy: {target}")
    print(f"charts: {charts} ({len(made)} PNG written)")
    if answer:
        print("answer:")
        for paragraph in answer.split("\n\n"):
            words = " ".join(paragraph.replace("**", "").split())  # Markdown bold, in a terminal
            print(textwrap.fill(words, 100, initial_indent="  ", subsequent_indent="  "))
    else:
        print(
            f"{PROG}: warning: the notebook has no answer cell (tagged {ANSWER_TAG!r})",
            file=sys.stderr,
        )
    return 0


def register(subparsers: Any) -> None:
    """Add ``notebook`` to the command line's subparsers."""
    p = subparsers.add_parser(
        "notebook",
        help="execute an analysis notebook on a run, with parameters",
        description="Execute a notebook of notebooks/ on a run folder: -p values replace those "
        "of its parameters cell; the executed copy goes to RUN/NAME.ipynb (or -o) and its charts "
        "to RUN/charts/NAME. Without NAME, list the notebooks and the question each answers.",
    )
    p.add_argument(
        "name",
        nargs="?",
        metavar="NAME",
        help="a notebook (02_expansion_balance, or 02), or a path",
    )
    p.add_argument("--run", metavar="DIR", help="the run folder (RESULTS of the notebook)")
    p.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a parameter of the notebook's parameters cell (a Python value: -p GAMES=10 "
        "-p 'PLAYERS=[2, 3]'); repeat for more",
    )
    p.add_argument(
        "-o",
        "--out",
        metavar="FILE",
        help="where to write the executed copy (default RUN/NAME.ipynb)",
    )
    p.add_argument(
        "--play",
        action="store_true",
        help="when DIR holds no run, play the notebook's seeded sweep there first (its sizes "
        "from the parameters)",
    )
    p.add_argument(
        "--timeout", type=float, metavar="S", help="stop a cell running longer (default: none)"
    )
    p.set_defaults(func=cmd_notebook)
