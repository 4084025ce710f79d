"""``projectl-sim report``: one self-contained HTML page whose images are embedded PNGs."""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image as mpimg
import pytest

from projectl_sim.cli import main
from projectl_sim.sim import runner
from projectl_sim.sim import spec as run_spec


class _Page(HTMLParser):
    """Collects the tags, image sources, links and headings of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.images: list[str] = []
        self.links: list[str] = []
        self.headings: list[str] = []
        self._in_h2 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        values = dict(attrs)
        if tag == "img":
            self.images.append(values.get("src") or "")
        for key in ("href", "src"):
            if key in values and tag != "img":
                self.links.append(values[key] or "")
        self._in_h2 = tag == "h2"

    def handle_data(self, data: str) -> None:
        if self._in_h2:
            self.headings.append(data)
            self._in_h2 = False


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "run"
    spec = run_spec.RunSpec.from_mapping(
        {"bots": ["greedy,random"], "players": [2, 3], "games": 6, "seed": 8, "records": "sample:4"}
    )
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    return out


@pytest.fixture(scope="module")
def solo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "solo"
    spec = run_spec.RunSpec.from_mapping(
        {
            "bots": ["greedy"],
            "players": [1],
            "variant": "solo",
            "difficulty": ["normal", "hard"],
            "games": 4,
            "seed": 8,
        }
    )
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    return out


def test_report_is_one_self_contained_page(small_run: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "page" / "report.html"
    assert main(["report", str(small_run), "-o", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    page = _Page()
    page.feed(text)
    assert page.links == []  # no stylesheet, script or image fetched from elsewhere
    answers = [
        "Seat advantage per configuration",
        "Effects against the base game",
        "Ratings and head to head",
        "Time per decision",
    ]
    details = ["Win rates", "Balance by configuration", "Strategy"]
    assert [h for h in page.headings if h in answers + details] == answers + details
    assert "Solo" not in page.headings and "Credits (Finesse)" not in page.headings
    assert page.tags.count("table") >= 7  # overview, ratings, head to head, times, rates, ...
    assert page.tags.count("details") >= 2  # the long tables are folded
    assert len(page.images) >= 10
    for src in page.images:
        head, _, data = src.partition(",")
        assert head == "data:image/png;base64"
        png = base64.b64decode(data, validate=True)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = mpimg.imread(io.BytesIO(png), format="png")
        assert pixels.shape[0] > 50 and pixels.shape[1] > 50
        assert pixels.shape[1] <= 1100  # never wider than the page
    # the page in a real browser: tests/analysis/test_report_browser.py (headless Chromium)


def test_report_of_a_solo_run_shows_the_difficulties(solo_run: Path) -> None:
    assert main(["report", str(solo_run)]) == 0
    page = _Page()
    page.feed((solo_run / "report.html").read_text(encoding="utf-8"))
    assert "Solo" in page.headings
    # one seat: no turn order, no opponent to compare (said once, no empty sections)
    assert "Seat advantage per configuration" not in page.headings
    assert "Ratings and head to head" not in page.headings


def test_report_defaults_to_the_run_folder_and_is_reproducible(small_run: Path, tmp_path) -> None:
    assert main(["report", str(small_run)]) == 0
    first = (small_run / "report.html").read_text(encoding="utf-8")
    assert main(["report", str(small_run), "-o", str(tmp_path / "again.html")]) == 0
    assert (tmp_path / "again.html").read_text(encoding="utf-8") == first


@pytest.mark.parametrize("setup", ["missing", "empty", "bad_manifest", "bad_table"])
def test_report_on_a_bad_folder_is_one_line_and_exit_2(tmp_path: Path, capsys, setup: str) -> None:
    folder = tmp_path / "run"
    if setup != "missing":
        folder.mkdir()
    if setup == "bad_manifest":
        (folder / "manifest.json").write_text("{not json")
    if setup == "bad_table":
        (folder / "manifest.json").write_text('{"config": {}}')
        (folder / "seats.parquet").write_bytes(b"junk")
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("projectl-sim: error:") and "\n" not in err
    assert str(folder) in err


def test_report_shows_expansion_effects_and_credits_when_the_tables_have_them(tmp_path) -> None:
    from analysis_util import G, make_tables

    from projectl_sim.analysis.data import Run
    from projectl_sim.analysis.report import build_report

    credits = {
        "credits_earned": [4, 2],
        "credits_spent": [3, 1],
        "credits_final": [1, 1],
        "inserts": [1, 0],
        "finishing_credits": [0, 1],
    }
    games = [G(["a", "b"], [9, 4 + i % 3], [1, 2], rounds=10 + i % 2) for i in range(6)]
    games += [
        G(["a", "b"], [9, 4 + i % 3], [1, 2], rounds=13 + i % 2, expansions="finesse", seat=credits)
        for i in range(6)
    ]
    seats, games_table = make_tables(games)
    manifest = {"run_id": "synthetic", "root_seed": 3, "config": {}}
    page = _Page()
    page.feed(build_report(Run(tmp_path, seats, games_table, manifest)))
    assert "Effects against the base game" in page.headings
    assert "Credits (Finesse)" in page.headings
