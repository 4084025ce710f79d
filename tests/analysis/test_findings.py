"""The findings table decides once: the text summary and the HTML report print its numbers."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analysis_util import grid_tables

from projectl_sim.analysis import report
from projectl_sim.analysis.answers import _flow_tables, summary_text
from projectl_sim.analysis.data import Run, load_run
from projectl_sim.analysis.findings import FINDING_COLUMNS, findings
from projectl_sim.analysis.fmt import p_text
from projectl_sim.analysis.verdicts import verdicts_of
from projectl_sim.sim import runner
from projectl_sim.sim import spec as run_spec


class _Tables(HTMLParser):
    """Collects every table of a page as a list of rows, each a dict of header -> cell text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[dict[str, str]]] = []
        self._header: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
            self._header = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if not self._header:
                self._header = self._row
            else:
                self.tables[-1].append(dict(zip(self._header, self._row, strict=True)))
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _table_with(tables: list[list[dict[str, str]]], *columns: str) -> list[dict[str, str]]:
    (found,) = [t for t in tables if t and all(c in t[0] for c in columns)]
    return found


def _section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(title)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("== ")), len(lines))
    return lines[start:end]


_NUMBER = r"[+-]?\d+(?:\.\d+)?"


@pytest.fixture(scope="module")
def three_configs(tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("findings") / "run"
    spec = run_spec.RunSpec.from_mapping(
        {
            "bots": ["greedy,builder"],
            "players": [2],
            "expansions": ["none", "phoenix", "ghost"],
            "games": 4,
            "seed": 3,
        }
    )
    runner.run(spec, out, options=runner.RunOptions(jobs=1, quiet=True))
    return load_run(out)


@pytest.fixture(scope="module")
def views(three_configs: Run) -> tuple[pd.DataFrame, str, list[list[dict[str, str]]], str]:
    flow, states = _flow_tables(three_configs)
    found = findings(three_configs.seats, three_configs.games, flow=flow, failures=states)
    text = summary_text(three_configs)
    with pytest.MonkeyPatch.context() as mp:  # the charts hold no number to compare
        mp.setattr(report._Page, "chart", lambda self, draw, alt: None)
        page = report.build_report(three_configs)
    parser = _Tables()
    parser.feed(page)
    return found, text, parser.tables, page


def test_the_findings_table_has_one_schema_and_every_question_of_the_run(views) -> None:
    found, _, _, _ = views
    assert list(found.columns) == FINDING_COLUMNS
    counts = found["question"].value_counts().to_dict()
    assert counts["seats"] == 3  # one per configuration
    assert counts["rating"] == 2 and counts["timing"] == 2 and counts["pair"] == 1
    assert counts["effect"] >= 2 * 3  # two comparisons against the base game, several metrics
    assert set(found.loc[found["question"] == "rating", "scale"]) == {"Elo, greedy = 0"}
    # detected is q < 0.05 where there is a q, and only where something was measured
    tested = found[found["question"].isin(["seats", "effect"])]
    assert (tested["detected"] == (tested["q"] < 0.05)).all()
    assert not tested.loc[tested["unmeasured_because"].notna(), "detected"].any()


def test_text_summary_and_html_report_print_the_seat_findings(views) -> None:
    found, text, tables, page = views
    seat = found[found["question"] == "seats"]
    expected = sorted(
        (
            int(r.n),
            round(100 * r.estimate),
            round(100 * r.ci_low),
            round(100 * r.ci_high),
            p_text(r.p),
            p_text(r.q),
        )
        for r in seat.itertuples()
    )
    # a row: name, games, the first player's share [interval], the other shares, p test, q
    row = re.compile(r"^\s+\S+\s+(\d+)\s+(\d+)% \[(\d+), (\d+)\]\s+.*?(\S+)(?: [a-z]\S*)?\s+(\S+)$")
    lines = _section(text, "== Seat advantage per configuration ==")
    printed = sorted(
        (int(m[1]), int(m[2]), int(m[3]), int(m[4]), m[5], m[6]) for m in map(row.match, lines) if m
    )
    assert printed == expected
    html = _table_with(tables, "first player", "p", "q")
    shown = []
    for r in html:
        share, low, high = map(int, re.findall(r"\d+", r["first player"]))
        shown.append((int(r["games"]), share, low, high, r["p"], r["q"]))
    assert sorted(shown) == expected
    # the count of seats found unequal is the findings', over the configurations tested
    detected, tested = int(seat["detected"].sum()), int(seat["p"].notna().sum())
    assert f"{detected} of {tested} configurations show unequal seats" in " ".join(lines)
    assert f"tested (q &lt; 0.05): {detected} of {tested}." in page


def test_text_summary_and_html_report_print_the_effect_findings(views) -> None:
    found, text, tables, page = views
    effect = found[found["question"] == "effect"]
    lines = _section(text, "== Every effect (long table) ==")[2:]
    printed = []
    for line in lines:
        difference = re.split(r"\s{2,}", line.strip())[2]
        d, lo, hi = (float(x) for x in re.findall(_NUMBER, difference)[:3])
        printed.append((d, lo, hi))
    expected = []
    for r in effect.itertuples():  # rates in points with one decimal, means with two
        scale, digits = (100, 1) if r.unit == "difference of rates" else (1, 2)
        expected.append(
            tuple(float(f"{scale * x:.{digits}f}") for x in (r.estimate, r.ci_low, r.ci_high))
        )
    assert sorted(printed) == sorted(expected)
    html = _table_with(tables, "diff", "q (BH)", "detectable (MDE)")
    assert len(html) == len(effect)
    got = sorted((float(r["diff"]), r["q (BH)"]) for r in html)
    want = sorted((r.estimate, p_text(r.q)) for r in effect.itertuples())
    for (d, q), (e, q_want) in zip(got, want, strict=True):
        assert d == pytest.approx(e, rel=5e-3, abs=5e-4) and q == q_want
    survive = int(effect["detected"].sum())
    measured = int(effect["unmeasured_because"].isna().sum())
    assert f"{survive} of {measured} differences flagged (q < 0.05" in " ".join(
        _section(text, "== Expansion and rules-switch effects against the base game ==")
    )
    assert f"{survive} of {measured} differences flagged (q &lt; 0.05: they survive" in page


def test_text_summary_and_html_report_print_the_rating_findings(views) -> None:
    found, text, tables, _ = views
    rating = found[found["question"] == "rating"].set_index("subject")
    lines = _section(text, "== Ratings (Plackett-Luce on every game's order of finish) ==")
    assert "Elo, greedy = 0" in lines[1]
    html = {r["bot"]: r for r in _table_with(tables, "rating", "scale", "note")}
    for bot, r in rating.iterrows():
        (line,) = [x for x in lines if x.startswith(f"{bot} ")]
        numbers = [float(x) for x in re.findall(_NUMBER, line)[:3]]
        assert numbers[0] == round(r["estimate"])
        if np.isfinite(r["ci_low"]) and r["ci_low"] != r["ci_high"]:
            assert numbers[1:] == [round(r["ci_low"]), round(r["ci_high"])]
        assert float(html[bot]["rating"] or 0) == pytest.approx(r["estimate"], rel=5e-3, abs=0.5)
        assert html[bot]["scale"] == r["scale"]


def test_text_summary_prints_the_flow_findings(views) -> None:
    found, text, _, _ = views
    flow = found[found["question"] == "flow"]
    assert len(flow) == 3 * 4  # lead changes, decided share, comebacks, margin per configuration
    lines = _section(
        text, "== Game flow (from the rounds table; 95% intervals clustered by deal) =="
    )
    printed = sorted(
        tuple(
            float(x)
            for x in re.search(
                rf"lead changes ({_NUMBER}) \[({_NUMBER}), ({_NUMBER})\]", line
            ).groups()
        )
        for line in lines
        if "lead changes" in line and " games, " in line
    )
    lead = flow[flow["metric"] == "lead_changes"]
    assert printed == sorted(
        tuple(float(f"{x:.2f}") for x in (r.estimate, r.ci_low, r.ci_high))
        for r in lead.itertuples()
    )


def test_the_verdicts_are_the_findings_headline_rows(views) -> None:
    found, text, _, _ = views
    verdicts = verdicts_of(found)
    assert len(verdicts) == 3 + 2 + 1  # seats per configuration, comparisons, the pair
    lines = " ".join(_section(text, "== Verdicts (one per question) ==")).replace("  ", " ")
    for words in verdicts["text"]:
        assert " ".join(words.split()[:6]) in lines


def test_seat_fairness_is_decided_once_after_the_correction() -> None:
    # 16 configurations of one bot; one of them planted unfair. Configurations whose raw p is
    # below 0.05 but whose q is not are not "found" anywhere: not in the verdicts, not counted.
    seats, games = grid_tables(
        np.random.default_rng(7), games=60, players=(2,), planted={(2, "phoenix"): 0.85}
    )
    found = findings(seats, games)
    seat = found[found["question"] == "seats"]
    assert len(seat) == 16
    assert seat.loc[seat["detected"], "q"].lt(0.05).all()
    assert not seat.loc[~seat["detected"], "q"].lt(0.05).any()
    text = summary_text(Run(Path("grid16"), seats, games, {}))
    shown = re.findall(r"(\d+) of \d+ configurations show unequal seats", text)
    assert sum(int(n) for n in shown) == int(seat["detected"].sum()) >= 1
    verdicts = verdicts_of(found)
    assert verdicts.loc[verdicts["question"] == "seats", "detected"].sum() == seat["detected"].sum()
