"""The documentation cannot drift from the code: its commands run and print what the pages
show, its site builds, its CLI reference is the parser's.

Every page under ``docs/tutorials/``, ``docs/how-to/`` and ``docs/getting-started.md`` is played
top to bottom, as a reader would, in a fresh folder of its own, by ``tools/docs_play.py``
(its docstring says how): console blocks in bash with this venv's ``bin`` first on ``PATH``,
saved files written, python blocks as the cells of one Jupyter kernel. Then:

- every output the page shows (the lines under a ``$`` command, a ```` ```text ```` block marked
  ``<!-- output of: COMMAND ... -->``) must be what the play printed, after ``mask`` (times,
  rates per second, folders' time stamps and the play's folder vary, and runs of spaces count as
  one): a stale page is refreshed with ``python tools/refresh_docs.py PAGE``. A block may be
  left uncompared only with ``<!-- not compared: KIND: WHY -->``, KIND one of ``NOT_COMPARED``
  (the clock);
- commands whose output is shown run at the sizes shown, with every command sharing a run folder
  or saved file with them; the others have ``--games N`` and ``games=N`` (and a config file's
  ``games = N`` or ``games: N``), ``iterations=N``, ``tune``'s ``--budget N``,
  ``--games-per-trial N`` and ``--confirm-games N`` and the learning how-to's ``--population N``
  cut to ``ceil(N / PROJECTL_DOCS_SCALE)`` (default 25; at least 2);
- a tutorial's cell that calls ``plots.`` must show a chart (an ``image/png`` output, with no
  ``%matplotlib`` magic and the Agg backend);
- a block right after ``<!-- not run: REASON -->`` is skipped: the README's two Quick start lines
  (CI runs those itself), or a command too slow for the suite (``too slow: ...``), which the page
  says in words, with a smaller command of the same kind that is run;
- each picture of docs/img drawn from a page's command (``tools/make_images.py``) is drawn from
  the data that command gives now: the digest of the data, stored in ``docs/img/digests.json``,
  is recomputed during the play (pixels are not compared).
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import docs_play
import make_images
from docs_play import DOCS, PAGES, SCALE, blocks, commands, mask, smaller

sys.path.pop(0)


def readme_quick_start() -> list[str]:
    """Return the lines of the README's first Quick start block (what .ci/run reads)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1]
    return blocks(section)[0].body.splitlines()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_runs_to_the_end(page: Path, tmp_path: Path) -> None:
    """The page plays to its end and shows what its commands print (and its pictures' data)."""
    text = page.read_text()
    assert not list(docs_play.check_marks(page)), list(docs_play.check_marks(page))
    quick_start = readme_quick_start()
    found = blocks(text)
    for block in found:
        if block.skip is not None:
            shown = commands(block.body)
            if block.skip.startswith("too slow"):
                # the page shows a smaller command of the same kind, which is run
                kinds = {" ".join(c.split()[:2]) for c in shown}
                run = {
                    " ".join(c.split()[:2])
                    for b in found
                    if b.lang == "console" and b.skip is None
                    for c in commands(b.body)
                }
                assert kinds <= run, f"{page.name}: no smaller command is run for {shown}"
            else:
                assert shown and all(c in quick_start for c in shown), (
                    f"only the README's Quick start lines may go unrun here, not {shown}"
                )
        elif not block.title and block.lang not in {"console", "python"} and not block.output_of:
            # anything else is shown, not run: it must not be a command in disguise
            assert block.lang in {"text", "toml", "json", "yaml"}, (
                f"{page.name}: a ```{block.lang} block is neither run nor allowed; commands go "
                "in ```console blocks (prefixed with $), code in ```python"
            )
            assert not re.search(r"^\$ |projectl-sim ", block.body, re.M), (
                f"{page.name}: a command in a ```{block.lang} block would not be tested"
            )

    def chart_shown(block: docs_play.Block, cell) -> None:
        if page.parent.name == "tutorials" and re.search(r"\bplots\.", cell.source):
            # a tutorial's cell that draws shows its chart, with no magic and the Agg backend
            # (the package's figures have a _repr_png_)
            shown = [o for o in cell.outputs if "image/png" in o.get("data", {})]
            assert shown, f"{page.name}: the cell draws no chart in Jupyter:\n{cell.source}"

    drawing = make_images.Drawing(page, tmp_path, draw=False)  # the pictures' data, not pixels
    played = docs_play.play(page, tmp_path, on_cell=chart_shown, after_block=drawing.after_block)
    digests = make_images.stored()
    for image in drawing.images:
        assert image.name in drawing.digests, f"{page.name} no longer runs {image.after!r}"
        assert drawing.digests[image.name] == digests.get(image.name), (
            f"docs/img/{image.name} was drawn from other data than {image.after!r} gives now: "
            f"redraw it: python tools/make_images.py {image.name}"
        )
    diff = docs_play.stale(text, docs_play.refreshed(text, played))
    assert not diff, (
        f"{page.relative_to(ROOT)} shows other output than its commands print (masked); "
        f"refresh it: python tools/refresh_docs.py {page.relative_to(ROOT)}\n" + "\n".join(diff)
    )


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


_PAGE = """\
```console
$ projectl-sim run --games 200 --out results/a --quiet
$ projectl-sim summary results/a
old line
```

```console
$ projectl-sim run --games 200 --out results/b --quiet
```

<!-- output of: projectl-sim summary results/a | paragraph "2 players" | line "rounds" -->
```text
stale
```
"""


def test_shown_outputs_are_refreshed_and_their_runs_played_at_the_sizes_shown() -> None:
    found = blocks(_PAGE)
    docs_play.plan(found)
    # the run the shown summary reads is played as shown; the other run is cut
    assert [b.exact for b in found[:2]] == [True, False]
    summary = ["seats", "", "2 players: 1st 53%", "  base 200", "", "rounds 12.0 s", "tail"]
    played = docs_play.Played(outputs={0: [["run line"], summary]}, shown={})
    played.shown[2] = docs_play.select(
        summary, [("paragraph", "2 players"), ("line", "rounds")], "s"
    )
    assert played.shown[2] == ["2 players: 1st 53%", "  base 200", "", "rounds 12.0 s"]
    new = docs_play.refreshed(_PAGE, played)
    # the run's own output stays unshown; the summary's replaces the stale lines
    assert "run line" not in new and "old line" not in new and "stale" not in new
    assert "$ projectl-sim summary results/a\n2 players" not in new
    assert "tail\n```" in new and "rounds 12.0 s\n```" in new
    assert docs_play.stale(new, new) == []
    assert docs_play.stale(_PAGE, new), "a stale page is told from its refreshed self"
    # a time that differs, and the columns it moves, are masked; a count is not
    assert not docs_play.stale(new.replace("12.0 s", "9.75 s"), new)
    assert docs_play.stale(new.replace("base 200", "base 201"), new)
    with pytest.raises(LookupError, match="no line starting with 'flagged'"):
        docs_play.select(summary, [("paragraph", "flagged")], "summary")


def test_a_cells_shown_output_plays_the_run_its_kernel_read_at_the_size_shown() -> None:
    page = (
        "```console\n$ projectl-sim run --games 100 --out results/x --quiet\n```\n\n"
        '```python\nrun = pa.load_run("results/x")\n```\n\n'
        "```python\nrun.seats.head()\n```\n\n<!-- output of: cell -->\n```text\nx\n```\n\n"
        "```console\n$ projectl-sim run --games 100 --out results/y --quiet\n```\n"
    )
    found = blocks(page)
    docs_play.plan(found)
    assert [b.exact for b in found if b.lang != "text"] == [True, True, True, False]


def test_mask_hides_clock_fields_only() -> None:
    assert mask("mcts    94.00 ms [89.20 ms, 98.81 ms]     1735   4.08 s") == (
        "mcts <time> [<time>, <time>] 1735 <time>"
    )
    assert mask("100 games played in 6.3 s (16 games/s)") == "100 games played in <time> (<rate>)"
    assert mask("results/demo-20261205-001500") == "results/demo-<stamp>"
    assert mask("rl:/tmp/pytest-of-x/t0/policy.py:act +151") == "rl:<folder>/policy.py:act +151"
    assert mask("greedy 16 µs, 200 games, 3 seats, 52.3% [46.1, 57.5]") == (
        "greedy <time>, 200 games, 3 seats, 52.3% [46.1, 57.5]"
    )


def test_a_not_compared_mark_names_an_allowed_kind(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("<!-- not compared: luck: it varies -->\n```console\n$ true\nx\n```\n")
    assert list(docs_play.check_marks(page))
    page.write_text(
        "<!-- not compared: timing: stopped by timeout -->\n```console\n$ true\nx\n```\n"
    )
    assert not list(docs_play.check_marks(page))
    # an output left uncompared plays its run with the sizes cut, and is not rewritten
    text = "<!-- not compared: timing: why -->\n```console\n$ run --games 200 --out r\nold\n```\n"
    found = blocks(text)
    docs_play.plan(found)
    assert not found[0].exact
    played = docs_play.Played(outputs={0: [["new"]]})
    assert docs_play.refreshed(text, played) == text


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


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documentation site, built once with warnings as errors."""
    out = tmp_path_factory.mktemp("docs") / "site"
    mkdocs = Path(sys.executable).parent / "mkdocs"
    proc = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def test_site_builds_with_warnings_as_errors(site: Path) -> None:
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert "projectl-sim run" in cli and "--games" in cli
    api = (site / "reference" / "api" / "index.html").read_text()
    assert "play_game" in api and "make_bot" in api


# every output block (```text) of the page, its text's width against its box's
_OUTPUT_WIDTHS = """
return [...document.querySelectorAll('div.highlight:not([class*="language-"]) pre > code')]
  .map(c => [c.scrollWidth, c.clientWidth, c.innerText.split('\\n')[0].slice(0, 60)]);
"""


def test_no_output_block_of_a_page_is_cut_at_a_laptops_width(site: Path, tmp_path: Path) -> None:
    """What a command prints wraps in the docs site instead of running off its block unseen
    (the designer tutorial's card verdict did, at 1280 px)."""
    from browser_util import chrome

    driver = chrome(tmp_path / "profile", 1280, 900)
    try:
        driver.get((site / "tutorials" / "designer" / "index.html").as_uri())
        blocks = driver.execute_script(_OUTPUT_WIDTHS)
    finally:
        driver.quit()
    assert any(text.startswith("No card stands out") for _, _, text in blocks), blocks
    cut = [b for b in blocks if b[0] > b[1] + 1]
    assert not cut, cut


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
    "find-where-a-game-was-decided.md": "finding where a game was decided",
    "learning-agents.md": "learning agents",
    "notebooks.md": "notebooks",
    "own-bot.md": "tiles and bots",
    "puzzles-and-tiles.md": "your own puzzles",
    "resume-and-grow.md": "resuming and growing runs",
    "rule-switches.md": "rule switches",
    "watch-and-play.md": "watching and playing a game",
    "play-in-browser.md": "playing in the browser",
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


@pytest.mark.parametrize(
    "image", [i for i in make_images.IMAGES if not i.page], ids=lambda i: i.name
)
def test_a_picture_drawn_from_no_page_is_current(image: make_images.Image, tmp_path: Path) -> None:
    """A picture of docs/img whose data no page's command makes (the atlas, the viewer) is
    drawn from the data its commands give now (the data's digest, not the pixels)."""
    assert make_images.digest(make_images.standalone(image, tmp_path)) == (
        make_images.stored().get(image.name)
    ), f"docs/img/{image.name} is stale: redraw it: python tools/make_images.py {image.name}"


def test_every_picture_is_drawn_by_the_script() -> None:
    shown = {p.name for p in (DOCS / "img").glob("*.png")}
    drawn = {i.name for i in make_images.IMAGES}
    assert shown == drawn, shown ^ drawn


def test_every_table_of_a_data_file_is_drawn_from_it(tmp_path: Path) -> None:
    """A table too slow to play (the hour-long ladder) is drawn from its results file under
    docs/data, and is what that file gives now."""
    marked = {}
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text()
        if "<!-- table of:" in text:
            marked[page.name] = text
            assert docs_play.stale_tables(text) == [], (
                f"{page.relative_to(DOCS)}: a table differs from its data file: "
                f"python tools/refresh_docs.py {page.relative_to(ROOT)}"
            )
    assert "which-players.md" in marked  # the ladder's table, and its picture is drawn too
    assert "ladder.png" in {i.name for i in make_images.IMAGES}
    # the table follows its file: the best bot rated 1000 higher is another row on the page
    import pandas as pd

    data = pd.read_csv(DOCS / "data" / "ladder.csv")
    before = docs_play.TABLES["ladder"](DOCS / "data" / "ladder.csv")
    data.loc[0, ["rating", "ci_low", "ci_high"]] += 1000
    data.to_csv(tmp_path / "ladder.csv", index=False)
    after = docs_play.TABLES["ladder"](tmp_path / "ladder.csv")
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1 and f"| {data.loc[0, 'rating']:.0f} |" in changed[0][1], changed
    # a page whose table is no longer its file's is told stale, naming the file
    page = marked["which-players.md"]
    assert before[0] in page
    edited = page.replace(before[0], changed[0][1], 1)
    assert docs_play.stale_tables(edited) == ["a table of data/ladder.csv differs from it"]
