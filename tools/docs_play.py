"""The documentation's pages played, and what their commands print written into them.

A page is played top to bottom, as a reader would, in a fresh folder of its own (the same play
``tests/docs/test_docs.py`` makes):

- a ```` ```console ```` block's commands (lines starting with ``$ ``, continued by a trailing
  backslash) run in one bash, this venv's ``bin`` first on ``PATH``; the lines under a command,
  up to the next ``$ ``, are its output as the page shows it (stdout and stderr, as a terminal
  shows them);
- a ```` ```text ```` block right after ``<!-- output of: COMMAND | SELECTOR | ... -->`` shows
  part of what COMMAND printed last on the page (``output of: cell`` instead: the python cell
  above). A selector ``paragraph "PREFIX"`` picks the first line starting with PREFIX (leading
  spaces ignored) and the lines after it up to a blank line, ``line "PREFIX"`` that one line;
  with no selector the whole output is shown;
- a block with a ``title="PATH"`` is a file the reader saves; any other ```` ```python ````
  block is a notebook cell, run in order in one Jupyter kernel started in the page's folder;
- a block right after ``<!-- not run: REASON -->`` is skipped.

Commands whose output a page shows run at the sizes shown, and so does every command sharing a
run folder or a saved file with them (a summary needs the run it reads, a resumed run the run it
grows); the others have their sizes cut by ``PROJECTL_DOCS_SCALE`` (``smaller``), so a page
plays in seconds. ``refresh_docs.py`` (the command) plays pages with ``play`` and rewrites
each shown output with ``refreshed``; ``make_images.py`` draws the pictures of docs/img from
what the commands print, through ``play``'s ``after_block``. Neither is imported here. The test
compares the page with its refreshed self after ``mask``: times, rates per second, run folders'
time stamps and the play's temporary folder vary from run to run, and columns aligned around
them move, so those are masked and runs of spaces count as one.

A table whose rows come from a data file committed under docs/ (a result too slow to play, such
as the hour-long skill ladder) follows ``<!-- table of: KIND FILE -->``: ``data_tables`` rewrites
it from FILE (under docs/) with ``TABLES[KIND]``, on every page played and in the test.

A console block whose output cannot be compared is marked ``<!-- not compared: KIND: WHY -->``,
KIND one of ``NOT_COMPARED``: it is left as written, and its commands run with their sizes cut
unless they share a run folder with a compared output.
"""

from __future__ import annotations

import difflib
import itertools
import math
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(
    [DOCS / "getting-started.md", *DOCS.glob("tutorials/*.md"), *DOCS.glob("how-to/*.md")]
)
SCALE = int(os.environ.get("PROJECTL_DOCS_SCALE", "25"))
DASK_PORT = "8786"  # the how-to's scheduler port, moved to a free one when played
# the only reasons a shown output may go uncompared: it depends on the clock (a run stopped by
# `timeout`, a figure measured in seconds)
NOT_COMPARED = ("timing",)

_FENCE = re.compile(
    r"(?P<marks>(?:<!-- [^>]*-->[ ]*\n)*)"
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)(?P<attrs>[^\n]*)\n(?P<body>.*?)^(?P=indent)```[ ]*$",
    re.M | re.S,
)
_MARK = re.compile(r"<!-- (not run|output of|not compared): ?(?P<value>[^>]*?)[ ]*-->")
_TITLE = re.compile(r'title="([^"]+)"')
_SIZES = re.compile(
    r"(--games[ =]|--budget[ =]|--games-per-trial[ =]|--confirm-games[ =]|--population[ =]"
    r"|\bgames=|\biterations="
    r"|^games[ ]*=[ ]*|^games:[ ]*)"  # and a config file's games (TOML, YAML)
    r"(\d+)",
    re.M,
)
# options whose value is a run folder or a file a later command reads
_PATH_OPTIONS = ("--out", "-o", "--record")
_SENTINEL = "@@docs-command@@"

# What varies between two plays of the same command: masked before a page is compared
_MASKS = (
    # a run folder named by its start time (results/demo-20261205-001500)
    (re.compile(r"\d{8}-\d{6}"), "<stamp>"),
    # the folder the page is played in, where an output names a file by its absolute path
    (re.compile(r"/tmp/[^\s:]*/"), "<folder>/"),
    # rates per second, then durations (`94.00 ms`, `16 µs`, `4.08 s`, `2 min 45 s`)
    (re.compile(r"\d[\d,.]*(?:/s| games/s| actions/s)"), "<rate>"),
    (re.compile(r"[-+]?\d[\d.,]*\s?(?:ns|µs|us|ms|s|min|h)\b"), "<time>"),
)


def mask(text: str) -> str:
    """Return ``text`` with its time-dependent fields masked and runs of spaces made one."""
    for pattern, token in _MASKS:
        text = pattern.sub(token, text)
    return "\n".join(re.sub(r"[ ]+", " ", line).rstrip() for line in text.splitlines())


@dataclass
class Command:
    text: str  # the command, continuations joined
    first: int  # index of its `$ ` line in the block body
    shown: list[str]  # the output lines the page shows under it
    end: int  # index after its last shown line


@dataclass
class Block:
    start: int  # the fence's span in the page (its marks excluded)
    end: int
    indent: str
    lang: str
    attrs: str
    title: str | None
    body: str
    skip: str | None  # `not run` reason
    output_of: str | None  # `output of` directive
    not_compared: str | None
    commands: list[Command] = field(default_factory=list)
    exact: bool = False  # run at the sizes shown

    @property
    def shows_output(self) -> bool:
        return any(c.shown for c in self.commands)


def blocks(text: str) -> list[Block]:
    """Return a page's fenced blocks in order, with their marks and console commands."""
    out = []
    for m in _FENCE.finditer(text):
        indent = m["indent"]
        body = "\n".join(line[len(indent) :] for line in m["body"].splitlines())
        title = _TITLE.search(m["attrs"])
        marks = {k: v for k, v in ((x[1], x["value"]) for x in _MARK.finditer(m["marks"]))}
        block = Block(
            start=m.start("indent"),
            end=m.end(),
            indent=indent,
            lang=m["lang"],
            attrs=m["attrs"],
            title=title and title[1],
            body=body,
            skip=marks.get("not run"),
            output_of=marks.get("output of"),
            not_compared=marks.get("not compared"),
        )
        if block.lang == "console":
            block.commands = parse_commands(body)
        out.append(block)
    return out


def parse_commands(body: str) -> list[Command]:
    """Return a console block's commands with the output lines shown under each."""
    lines = body.splitlines()
    out: list[Command] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        first, command = i, lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        start = i
        while i < len(lines) and not lines[i].startswith("$ "):
            i += 1
        out.append(Command(command, first, lines[start:i], i))
    return out


def commands(body: str) -> list[str]:
    """Return a console block's commands: ``$`` lines and their backslash continuations."""
    return [c.text for c in parse_commands(body)]


def smaller(text: str) -> str:
    """Return the text with its game counts and search budgets cut by SCALE."""
    return _SIZES.sub(lambda m: m[1] + str(max(2, math.ceil(int(m[2]) / SCALE))), text)


def _directive(value: str) -> tuple[str, list[tuple[str, str]]]:
    """Split an ``output of`` directive into its command and its selectors."""
    parts = [p.strip() for p in value.split(" | ")]
    selectors = []
    for part in parts[1:]:
        kind, _, prefix = part.partition(" ")
        if kind not in ("paragraph", "line") or not re.fullmatch(r'"[^"]*"', prefix):
            raise ValueError(f'output of: {part!r} is not paragraph "PREFIX" or line "PREFIX"')
        selectors.append((kind, prefix[1:-1]))
    return parts[0], selectors


def select(output: list[str], selectors: list[tuple[str, str]], what: str) -> list[str]:
    """Return the lines of ``output`` the selectors pick (all of it with none)."""
    if not selectors:
        return output
    picked: list[str] = []
    previous = None
    for kind, prefix in selectors:
        at = next((i for i, line in enumerate(output) if line.lstrip().startswith(prefix)), None)
        if at is None:
            raise LookupError(f"{what} printed no line starting with {prefix!r}")
        if kind == "line":
            lines = [output[at]]
        else:
            end = next((i for i in range(at, len(output)) if not output[i].strip()), len(output))
            lines = output[at:end]
        if picked and (kind == "paragraph" or previous == "paragraph"):
            picked.append("")
        picked.extend(lines)
        previous = kind
    return picked


def _keys(found: list[Block]) -> set[str]:
    """Return the run folders and saved files a page's commands share."""
    keys = {b.title for b in found if b.title}
    for b in found:
        for c in b.commands:
            try:
                words = shlex.split(c.text)
            except ValueError:
                words = c.text.split()
            for option, value in itertools.pairwise(words):
                if option in _PATH_OPTIONS:
                    keys.add(value)
    return keys


def _touches(text: str, key: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(key)}(?![\w-]|\.\w)", text) is not None


def plan(found: list[Block]) -> None:
    """Mark the blocks to run at the sizes shown: those whose output the page shows, and every
    block sharing a run folder or saved file with one of them (a union over the keys)."""
    named = [_directive(b.output_of)[0] for b in found if b.output_of]
    seeds = set()
    for i, b in enumerate(found):
        compared = b.shows_output and b.not_compared is None
        if compared or (b.commands and any(c.text in named for c in b.commands)):
            seeds.add(i)
        if b.lang == "python" and not b.title and "cell" in named:
            # a cell's shown output needs the data it reads
            nxt = next(
                (x for x in found[i + 1 :] if (x.lang == "python" and not x.title) or x.output_of),
                None,
            )
            if nxt is not None and nxt.output_of == "cell":
                seeds.add(i)
    keys = _keys(found)
    texts = [b.body if not b.commands else "\n".join(c.text for c in b.commands) for b in found]
    touched = [
        {k for k in keys if _touches(t, k) or found[i].title == k} for i, t in enumerate(texts)
    ]
    for i, b in enumerate(found):
        if b.lang == "python" and not b.title:
            touched[i].add("<the kernel>")  # the cells share their variables
    exact_keys: set[str] = set()
    changed = True
    while changed:
        changed = False
        for i in range(len(found)):
            if i in seeds or touched[i] & exact_keys:
                if i not in seeds:
                    seeds.add(i)
                    changed = True
                if not touched[i] <= exact_keys:
                    exact_keys |= touched[i]
                    changed = True
    for i in seeds:
        found[i].exact = True


@dataclass
class Played:
    """What a page's play produced: each console block's outputs, each cell's."""

    outputs: dict[int, list[list[str]]] = field(default_factory=dict)  # block -> per command
    cells: dict[int, list[str]] = field(default_factory=dict)  # block -> its text output
    shown: dict[int, list[str]] = field(default_factory=dict)  # directive block -> lines


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def reader_env() -> dict[str, str]:
    """Return the environment of a reader with this venv activated."""
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "VIRTUAL_ENV": str(Path(sys.executable).parent.parent),
        "MPLBACKEND": "Agg",
        "COLUMNS": "100",
        "PYTHONUNBUFFERED": "1",  # stdout and stderr interleaved as at a terminal
    }


def run_console(block: Block, cwd: Path, env: dict[str, str], port: str) -> list[list[str]]:
    """Run a console block's commands in one bash; return each command's output lines."""
    size = (lambda c: c) if block.exact else smaller
    cmds = [size(c.text).replace(DASK_PORT, port) for c in block.commands]
    assert cmds, f"a console block shows no command:\n{block.body}"
    # One bash per block, so a block may start a background service and use it. The block runs
    # in a process group of its own, stopped as a whole when the block ends (a Dask worker's
    # nanny and its processes included), so nothing it started outlives it.
    script = "set -e\n" + "\n".join(f"echo {_SENTINEL}\n{c}" for c in cmds)
    # Output goes to a file, not a pipe: a background service keeps a pipe open after the
    # block's shell has ended, and waiting for the pipe to close would wait for it.
    out = cwd / ".block-output"
    with out.open("w") as stdout:
        proc = subprocess.Popen(
            ["bash", "-c", script],
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            proc.wait(timeout=900)
        finally:
            _stop_group(proc.pid)
    text = out.read_text()
    assert proc.returncode == 0, f"exit {proc.returncode}\n--- {cmds}\n{text[-4000:]}"
    parts = text.split(_SENTINEL + "\n")[1:]
    return [_lines(p) for p in parts]


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


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


class Kernel:
    """One Jupyter kernel for a page's python cells, started on the first cell."""

    def __init__(self, cwd: Path) -> None:
        import nbformat
        from nbclient import NotebookClient

        self.nbformat = nbformat
        self.nb = nbformat.v4.new_notebook()
        self.cwd = cwd
        self.client = NotebookClient(
            self.nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
        )

    def run(self, source: str):
        """Execute a cell; return it, with its outputs."""
        if self.client.kc is None:
            self.client.create_kernel_manager()
            self.client.start_new_kernel(cwd=str(self.cwd))
            self.client.start_new_kernel_client()
        cell = self.nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        self.client.execute_cell(cell, len(self.nb.cells) - 1)
        return cell

    def close(self) -> None:
        if self.client.kc is not None:
            self.client._cleanup_kernel()


def cell_text(cell) -> list[str]:
    """Return what a cell printed and its value's text, as Jupyter shows them."""
    text = ""
    for o in cell.outputs:
        if o.get("output_type") == "stream":
            text += o.get("text", "")
        elif "text/plain" in o.get("data", {}):
            text += o["data"]["text/plain"] + "\n"
    return _lines(text)


def play(page: Path, cwd: Path, on_cell=None, after_block=None) -> Played:
    """Play a page in ``cwd``; ``on_cell(block, cell)`` sees each executed python cell, and
    ``after_block(block, outputs)`` each console block played (its commands' outputs); the play
    stops where it returns True."""
    found = blocks(page.read_text())
    plan(found)
    env = reader_env()
    port = _free_port()
    result = Played()
    latest: dict[str, list[str]] = {}
    last_cell: list[str] | None = None
    kernel = Kernel(cwd)
    try:
        for i, block in enumerate(found):
            if block.skip is not None:
                continue
            if block.output_of is not None:
                name, selectors = _directive(block.output_of)
                source = last_cell if name == "cell" else latest.get(name)
                if source is None:
                    raise LookupError(f"{page.name}: output of {name!r}: no such command above")
                result.shown[i] = select(source, selectors, name)
            elif block.title:
                path = cwd / block.title
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text((block.body if block.exact else smaller(block.body)) + "\n")
            elif block.lang == "console":
                outputs = run_console(block, cwd, env, port)
                result.outputs[i] = outputs
                for c, o in zip(block.commands, outputs, strict=True):
                    latest[c.text] = o
                if after_block is not None and after_block(block, outputs):
                    break
            elif block.lang == "python":
                cell = kernel.run(block.body if block.exact else smaller(block.body))
                last_cell = result.cells[i] = cell_text(cell)
                if on_cell is not None:
                    on_cell(block, cell)
    finally:
        kernel.close()
    return result


def refreshed(text: str, played: Played) -> str:
    """Return the page with every output it shows replaced by what its play printed."""
    found = blocks(text)
    pieces, at = [], 0
    for i, block in enumerate(found):
        if i in played.shown:
            body = played.shown[i]
        elif i in played.outputs and block.shows_output and block.not_compared is None:
            lines = block.body.splitlines()
            body, kept = [], 0
            for c, out in zip(block.commands, played.outputs[i], strict=True):
                body += lines[kept : c.first + 1 + _continuations(lines, c.first)]
                body += out if c.shown else []
                kept = c.end
            body += lines[kept:]
        else:
            continue
        fence = f"{block.indent}```{block.lang}{block.attrs}\n"
        inner = "".join(f"{block.indent}{line}".rstrip() + "\n" for line in body)
        pieces += [text[at : block.start], fence, inner, f"{block.indent}```"]
        at = block.end
    pieces.append(text[at:])
    return "".join(pieces)


def _ladder_rows(path: Path) -> list[str]:
    """Return the ladder table of a ``projectl-sim ladder`` results file (its ``ladder.csv``):
    best first, the shipped value model's hash named once in the header (a bot on another model
    keeps its ``model=`` in its row)."""
    import pandas as pd

    table = pd.read_csv(path).sort_values("rating", ascending=False, kind="stable")
    bots = [str(b) for b in table["bot"] if "hash=" in str(b)]
    hashes = sorted({b.split("hash=")[1] for b in bots if "model=" not in b})
    named = " unless its row names another" if any("model=" in b for b in bots) else ""
    model = f" (model `{', '.join(hashes)}`{named})" if hashes else ""
    rows = [
        f"| bot{model} | rating | 95% interval | games | CPU ms a decision |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in table.itertuples(index=False):
        bot = re.sub(r"[:,]hash=\w+", "", str(r.bot))
        anchor = r.rating == 0 and r.ci_low == 0 and r.ci_high == 0  # the fit's fixed point
        interval = "(the anchor)" if anchor else f"[{r.ci_low:.0f}, {r.ci_high:.0f}]"
        rows.append(f"| `{bot}` | {r.rating:.0f} | {interval} | {r.games} | {r.cpu_ms:.3f} |")
    return rows


# the tables drawn from a data file: KIND -> (data file -> the table's lines)
TABLES = {"ladder": _ladder_rows}
_DATA_TABLE = re.compile(
    r"^<!-- table of: (?P<kind>\w+) (?P<path>\S+) -->\n(?P<table>(?:\|[^\n]*\n)*)", re.M
)


def data_tables(text: str) -> str:
    """Return the page with each table marked ``<!-- table of: KIND FILE -->`` drawn anew from
    FILE (a path under docs/)."""

    def drawn(m: re.Match[str]) -> str:
        if m["kind"] not in TABLES:
            raise ValueError(f"table of: {m['kind']!r}: not one of {sorted(TABLES)}")
        rows = TABLES[m["kind"]](DOCS / m["path"])
        return m.group(0)[: m.start("table") - m.start()] + "".join(f"{r}\n" for r in rows)

    return _DATA_TABLE.sub(drawn, text)


def stale_tables(text: str) -> list[str]:
    """Return a line for each data table of the page when one is no longer what its data file
    gives (none when all are current)."""
    if data_tables(text) == text:
        return []
    return [f"a table of {m['path']} differs from it" for m in _DATA_TABLE.finditer(text)]


def _continuations(lines: list[str], first: int) -> int:
    n = 0
    while lines[first + n].endswith("\\"):
        n += 1
    return n


def stale(text: str, new: str) -> list[str]:
    """Return the differences between a page and its refreshed self, masked."""
    old_blocks, new_blocks = blocks(text), blocks(new)
    for b, nb in zip(old_blocks, new_blocks, strict=True):
        if b.not_compared is not None:
            nb.body = b.body  # shown as refreshed, not compared
    a = "\n".join(mask(b.body) for b in old_blocks).splitlines()
    z = "\n".join(mask(b.body) for b in new_blocks).splitlines()
    return list(difflib.unified_diff(a, z, "page", "played", lineterm="", n=1))


def check_marks(page: Path) -> Iterator[str]:
    """Yield each mark of a page that is not allowed."""
    for b in blocks(page.read_text()):
        if b.not_compared is not None:
            kind = b.not_compared.split(":", 1)[0].strip()
            if kind not in NOT_COMPARED or ":" not in b.not_compared:
                yield f"not compared: {b.not_compared!r}: the kind must be one of {NOT_COMPARED}"
        if b.output_of is not None:
            try:
                _directive(b.output_of)
            except ValueError as e:
                yield str(e)
            if b.lang != "text":
                yield f"output of: {b.output_of!r} must mark a ```text block"
