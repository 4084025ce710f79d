"""The documentation cannot drift from the code: its commands run, its site builds, its CLI
reference is the parser's.

Every page under ``docs/tutorials/``, ``docs/how-to/`` and ``docs/getting-started.md`` is played
top to bottom, as a reader would, in a fresh folder of its own:

- a ```` ```console ```` block's commands (lines starting with ``$ ``, continued by a trailing
  backslash) run in bash with this venv's ``bin`` first on ``PATH`` (the reader's activated venv)
  and must exit 0; the lines without ``$`` are the output shown, not checked (timings vary);
- a block with a ``title="PATH"`` is a file the reader saves: it is written to PATH;
- any other ```` ```python ```` block is a notebook cell: the page's cells run, in order, in one
  Jupyter kernel started in the page's folder; a tutorial's cell that calls ``plots.`` must show
  a chart (an ``image/png`` output, with no ``%matplotlib`` magic and the Agg backend);
- a block right after ``<!-- not run: REASON -->`` is skipped; only the README's two Quick start
  lines may be (CI runs those itself), which the test checks.

Sizes are cut so the pages run in seconds: ``--games N`` and ``games=N`` (and a config file's
``games = N`` or ``games: N``) become
``ceil(N / PROJECTL_DOCS_SCALE)`` (default 25; at least 2), and ``iterations=N`` likewise, as do
``tune``'s ``--budget N``, ``--games-per-trial N`` and ``--confirm-games N``, and the
learning how-to's ``--population N``. Set
``PROJECTL_DOCS_SCALE=1`` to play the pages at the sizes they show.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(
    [DOCS / "getting-started.md", *DOCS.glob("tutorials/*.md"), *DOCS.glob("how-to/*.md")]
)
SCALE = int(os.environ.get("PROJECTL_DOCS_SCALE", "25"))
DASK_PORT = "8786"  # the how-to's scheduler port, moved to a free one for the test

_FENCE = re.compile(
    r"(?P<skip><!-- not run: (?P<reason>[^>]*)-->\s*\n)?"
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)(?P<attrs>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ ]*$",
    re.M | re.S,
)
_TITLE = re.compile(r'title="([^"]+)"')
_SIZES = re.compile(
    r"(--games[ =]|--budget[ =]|--games-per-trial[ =]|--confirm-games[ =]|--population[ =]"
    r"|\bgames=|\biterations="
    r"|^games[ ]*=[ ]*|^games:[ ]*)"  # and a config file's games (TOML, YAML)
    r"(\d+)",
    re.M,
)


@dataclass
class Block:
    lang: str
    title: str | None
    body: str
    skip: str | None  # the reason, for a block not run


def blocks(text: str) -> list[Block]:
    """Return a page's fenced blocks in order."""
    out = []
    for m in _FENCE.finditer(text):
        indent = len(m["indent"])
        body = "\n".join(line[indent:] for line in m["body"].splitlines())
        title = _TITLE.search(m["attrs"])
        out.append(Block(m["lang"], title and title[1], body, m["reason"]))
    return out


def commands(body: str) -> list[str]:
    """Return a console block's commands: ``$`` lines and their backslash continuations."""
    out: list[str] = []
    lines = iter(body.splitlines())
    for line in lines:
        if not line.startswith("$ "):
            continue
        command = line[2:]
        while command.endswith("\\"):
            command = command[:-1].rstrip() + " " + next(lines).strip()
        out.append(command)
    return out


def smaller(text: str) -> str:
    """Return the text with its game counts and search budgets cut by SCALE."""
    return _SIZES.sub(lambda m: m[1] + str(max(2, math.ceil(int(m[2]) / SCALE))), text)


def readme_quick_start() -> list[str]:
    """Return the lines of the README's first Quick start block (what .ci/run reads)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1]
    return blocks(section)[0].body.splitlines()


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def _run_console(block: Block, cwd: Path, env: dict[str, str], port: str) -> None:
    cmds = [smaller(c).replace(DASK_PORT, port) for c in commands(block.body)]
    assert cmds, f"a console block shows no command:\n{block.body}"
    # One bash per block, so a block may start a background service and use it. The block runs
    # in a process group of its own, stopped as a whole when the block ends (a Dask worker's
    # nanny and its processes included), so nothing it started outlives it.
    script = "set -e\n" + "\n".join(f"echo {shlex.quote('+ ' + c)}\n{c}" for c in cmds)
    # Output goes to files, not pipes: a background service keeps a pipe open after the block's
    # shell has ended, and waiting for the pipe to close would wait for it.
    out, err = cwd / ".block-stdout", cwd / ".block-stderr"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen(
            ["bash", "-c", script],
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=600)
        finally:
            _stop_group(proc.pid)
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\n--- stdout\n{out.read_text()[-4000:]}\n"
        f"--- stderr\n{err.read_text()[-4000:]}"
    )


def _stop_group(pgid: int) -> None:
    """Stop every process left in a block's process group: TERM, then KILL after a grace."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_runs_to_the_end(page: Path, tmp_path: Path) -> None:
    found = blocks(page.read_text())
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "VIRTUAL_ENV": str(Path(sys.executable).parent.parent),
        "MPLBACKEND": "Agg",
        "COLUMNS": "100",
    }
    port = _free_port()
    nb = nbformat.v4.new_notebook()
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    quick_start = readme_quick_start()
    try:
        for block in found:
            if block.skip is not None:
                shown = commands(block.body)
                assert shown and all(c in quick_start for c in shown), (
                    f"only the README's Quick start lines may go unrun here, not {shown}"
                )
            elif block.title:
                path = tmp_path / block.title
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(smaller(block.body) + "\n")
            elif block.lang == "console":
                _run_console(block, tmp_path, env, port)
            elif block.lang == "python":
                if client.kc is None:
                    client.create_kernel_manager()
                    client.start_new_kernel(cwd=str(tmp_path))
                    client.start_new_kernel_client()
                cell = nbformat.v4.new_code_cell(smaller(block.body))
                nb.cells.append(cell)
                client.execute_cell(cell, len(nb.cells) - 1)
                if page.parent.name == "tutorials" and re.search(r"\bplots\.", cell.source):
                    # a tutorial's cell that draws shows its chart, with no magic and the Agg
                    # backend (the package's figures have a _repr_png_)
                    shown = [o for o in cell.outputs if "image/png" in o.get("data", {})]
                    assert shown, f"{page.name}: the cell draws no chart in Jupyter:\n{cell.source}"
            else:
                # anything else is shown, not run: it must not be a command in disguise
                assert block.lang in {"text", "toml", "json", "yaml"}, (
                    f"{page.name}: a ```{block.lang} block is neither run nor allowed; commands go "
                    "in ```console blocks (prefixed with $), code in ```python"
                )
                assert not re.search(r"^\$ |projectl-sim ", block.body, re.M), (
                    f"{page.name}: a command in a ```{block.lang} block would not be tested"
                )
    finally:
        if client.kc is not None:
            client._cleanup_kernel()


def test_pages_show_commands() -> None:
    """Each tutorial and how-to has commands to run, so the test above really plays it."""
    for page in PAGES:
        found = blocks(page.read_text())
        shown = [c for b in found if b.lang == "console" for c in commands(b.body)]
        assert shown, f"{page.name} shows no command"


def test_sizes_are_cut_and_kept_apart() -> None:
    assert smaller("run --games 200 --bots mcts:iterations=50") == (
        f"run --games {max(2, math.ceil(200 / SCALE))} --bots "
        f"mcts:iterations={max(2, math.ceil(50 / SCALE))}"
    )
    assert smaller("--seed 2026 --players 2,3") == "--seed 2026 --players 2,3"
    cut = max(2, math.ceil(200 / SCALE))
    population = max(2, math.ceil(12 / SCALE))
    assert smaller("train.py --population 12") == f"train.py --population {population}"
    assert smaller("seed = 2\ngames = 200\n") == f"seed = 2\ngames = {cut}\n"
    assert smaller("games: 200") == f"games: {cut}"
    assert smaller("max_games = 200") == "max_games = 200"
    assert smaller("tune --budget 400 --games-per-trial 50 --confirm 2 --confirm-games 200") == (
        f"tune --budget {max(2, math.ceil(400 / SCALE))} --games-per-trial "
        f"{max(2, math.ceil(50 / SCALE))} --confirm 2 --confirm-games "
        f"{max(2, math.ceil(200 / SCALE))}"
    )
    assert commands("$ a \\\n   --b\nout\n$ c") == ["a --b", "c"]


def test_cli_reference_lists_every_command_and_option() -> None:
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import cli_reference
    finally:
        sys.path.pop(0)
    from projectl_sim.cli import build_parser

    text = cli_reference.cli_reference_markdown()
    for name, _help, sub in cli_reference._subcommands(build_parser()):
        assert f"## `projectl-sim {name}`" in text
        for action in sub._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in text, f"{name} {option} missing from the CLI reference"


def test_readme_quick_start_is_two_lines_and_builds_the_docs() -> None:
    lines = readme_quick_start()
    assert len(lines) == 2
    assert "projectl-sim run" in lines[0]
    assert "mkdocs build --strict" in lines[1] and "pytest" in lines[1]


def test_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).parent / "mkdocs"
    proc = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "projectl-sim run" in cli and "--games" in cli
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text()
    assert "play_game" in api and "make_bot" in api


def test_readme_links_reach_files() -> None:
    """The README's relative links (the docs pages, its picture) name files that exist."""
    text = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links to the docs"
    for target in local:
        assert (ROOT / target).exists(), f"README links to {target}, which is missing"


# how the README's list of the how-to guides names each page (a new page needs its words here
# and in the README)
README_HOW_TO = {
    "dask.md": "a Dask cluster",
    "deal-and-skill.md": "the deal's part and skill tiers",
    "designer-loop.md": "the designer's loop",
    "learning-agents.md": "learning agents",
    "notebooks.md": "notebooks",
    "own-bot.md": "tiles and bots",
    "puzzles-and-tiles.md": "your own puzzles",
    "resume-and-grow.md": "resuming and growing runs",
    "rule-switches.md": "rule switches",
    "watch-and-play.md": "watching and playing a game",
    "which-players.md": "which players to simulate",
}


def test_the_index_and_the_readme_name_every_how_to() -> None:
    """Each how-to page is linked from the docs' index and named in the README's list."""
    index = (DOCS / "index.md").read_text()
    readme = " ".join((ROOT / "README.md").read_text().split("## Documentation", 1)[1].split())
    pages = sorted(p.name for p in (DOCS / "how-to").glob("*.md"))
    assert pages == sorted(README_HOW_TO), "a how-to page without its README words here"
    for page in pages:
        assert f"(how-to/{page})" in index, f"docs/index.md does not link {page}"
        assert README_HOW_TO[page] in readme, f"the README's list does not name {page}"


def test_readme_examples_are_tested_in_the_tutorials() -> None:
    """Each command and line of code the README shows is one a tutorial runs (so it is tested)."""
    text = (ROOT / "README.md").read_text()
    examples = blocks(text.split("## Quick start", 1)[1])[1:]  # after the Quick start lines
    tutorials = [blocks(p.read_text()) for p in sorted(DOCS.glob("tutorials/*.md"))]
    run_commands = {
        c for page in tutorials for b in page if b.lang == "console" for c in commands(b.body)
    }
    run_code = {
        line
        for page in tutorials
        for b in page
        if b.lang == "python"
        for line in b.body.splitlines()
    }
    shown = 0
    for block in examples:
        for line in filter(None, (s.strip() for s in block.body.splitlines())):
            if line.startswith(".venv/bin/projectl-sim "):
                assert line.removeprefix(".venv/bin/") in run_commands, line
                shown += 1
            elif block.lang == "python":
                assert line in run_code, line
                shown += 1
    assert shown >= 5, "the README shows an example per user"


def test_the_option_and_column_tables_are_written_from_the_declarations() -> None:
    """The rules page's option table and the tables page's column table come from the classes'
    declarations (``docs/hooks/rules_options.py``): every option and column is in them."""
    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        import rules_options
    finally:
        sys.path.pop(0)
    from projectl_sim.registry import declared_columns
    from projectl_sim.rules import every_option

    assert rules_options.MARKER in (DOCS / "reference" / "rules.md").read_text()
    assert rules_options.COLUMNS_MARKER in (DOCS / "reference" / "tables.md").read_text()
    options = rules_options.rules_options_markdown()
    for name, option in every_option().items():
        assert f"| `{name}` |" in options and option.help.split()[0] in options
    columns = rules_options.declared_columns_markdown()
    for table in ("seats", "games"):
        for name in declared_columns(table):
            assert f"| `{name}` | {table} |" in columns
