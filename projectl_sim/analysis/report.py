"""One self-contained HTML page of a run: the answers first, then the details; images embedded.

Every chart is a PNG embedded as a base64 ``data:`` URI and every table is plain HTML, so the page
opens in any browser with no other file. The page leads with the answers (seat advantage per
configuration, effects against the base game with what the run could detect, ratings, head to
head, time per decision) and then the details (win rates, balance by configuration, how games
ended, strategy, solo, Credits) and the long tables. Tables show only the columns that vary, with
expansion sets abbreviated; a chart with nothing to show is replaced by a sentence. The page is
as wide as a browser window: charts are at most the page's width, wide tables scroll inside it.
Nothing is random: the same run gives the same page. What the page calls found (unequal seats,
effects that survive the correction) and the ratings' scale are the findings table's
(``findings``): the page prints them and decides nothing.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from projectl_sim.analysis import balance as bal  # the module (the function is balance_table)
from projectl_sim.analysis import factors, labels, plots, ratings, strategy, timing
from projectl_sim.analysis.data import Run, load_run
from projectl_sim.analysis.findings import config_key, findings
from projectl_sim.analysis.fmt import p_text, pct, rate_interval
from projectl_sim.analysis.outcomes import seat_advantage, win_rates
from projectl_sim.analysis.rows import finished_seats
from projectl_sim.errors import UsageError

_STYLE = """
body { font-family: system-ui, sans-serif; color: #222; }
body { margin: 2em auto; max-width: 70em; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.8em 0; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; height: auto; display: block; margin: 0.8em 0; }
p.note { color: #555; font-size: 0.9em; } p.answer { font-size: 1.05em; }
div.wide { max-width: 100%; overflow-x: auto; }
details > summary { cursor: pointer; color: #345; margin: 0.6em 0; }
"""


def png_data_uri(drawing: Axes | Figure, dpi: int = 100) -> str:
    """Return the figure of an Axes (or a Figure) as a ``data:image/png;base64,...`` URI."""
    figure = drawing if isinstance(drawing, Figure) else drawing.get_figure(root=True)
    if not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, dpi=dpi, format="png")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


# column headers in words (a column not named here: its snake_case name with spaces)
_HEADERS = {
    "ci_low": "95% low",
    "ci_high": "95% high",
    "p_value": "p",
    "q_value": "q (BH)",
    "mde": "detectable (MDE)",
    "median_mde": "median MDE",
    "games_needed": "games needed",
    "half_width": "half-width",
    "win_rate": "win rate",
    "lineup": "line-up",
    "config_id": "configuration",
    "ms ci_low": "ms 95% low",
    "ms ci_high": "ms 95% high",
}
_PROBABILITIES = {"p_value", "q_value", "p", "q"}


def _header(column: object) -> str:
    text = str(column)
    return _HEADERS.get(text, text.replace("_", " "))


def _probability(v: object) -> str:
    """Return a p or q value as read: three decimals, or "<0.001" (never 2.71e-19)."""
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(v)
    return p_text(x)


def _number(v: float, digits: int = 3) -> str:
    """Return a number in plain notation: 3 significant digits, no exponent."""
    if not np.isfinite(v):
        return ""
    if v == 0:
        return "0"
    if abs(v) >= 10**digits:
        return f"{v:.0f}"
    if abs(v) < 10 ** -(digits + 1):
        return f"{v:.{digits + 1}f}".rstrip("0").rstrip(".") or "0"
    decimals = max(0, digits - 1 - int(np.floor(np.log10(abs(v)))))
    return f"{v:.{decimals}f}"


def _table(frame: pd.DataFrame, digits: int = 3) -> str:
    def fmt(v: float) -> str:
        return _number(v, digits)

    shown = frame.copy()
    for column in shown.columns:
        if str(column) in _PROBABILITIES and pd.api.types.is_numeric_dtype(shown[column]):
            shown[column] = shown[column].map(_probability)
    if "expansions" in shown:
        shown["expansions"] = shown["expansions"].map(labels.short_expansions)
    if "lineup" in shown:
        shown["lineup"] = shown["lineup"].map(labels.short_lineup)
    shown.columns = [_header(c) for c in shown.columns]
    body = shown.to_html(index=False, float_format=fmt, na_rep="", border=0, escape=True)
    return f'<div class="wide">{body}</div>'


class _Page:
    def __init__(self, title: str) -> None:
        self.parts = [f"<h1>{html.escape(title)}</h1>"]

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{html.escape(text)}</h2>")

    def note(self, text: str, kind: str = "note") -> None:
        self.parts.append(f'<p class="{kind}">{html.escape(text)}</p>')

    def table(self, frame: pd.DataFrame, folded: str | None = None) -> None:
        """Add a table; ``folded``: behind a "show" line (long tables)."""
        if folded is None:
            self.parts.append(_table(frame))
        else:
            summary = html.escape(folded)
            self.parts.append(f"<details><summary>{summary}</summary>{_table(frame)}</details>")

    def chart(self, draw: Callable[[], Axes | Figure], alt: str) -> None:
        self.parts.append(f'<img alt="{html.escape(alt)}" src="{png_data_uri(draw())}">')

    def render(self, title: str) -> str:
        body = "\n".join(self.parts)
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n"
            f"<body>\n{body}\n</body>\n</html>\n"
        )


def _overview(run: Run) -> pd.DataFrame:
    m = run.manifest
    git = m.get("git") or {}
    items = {
        "run id": m.get("run_id"),
        "status": m.get("status"),
        "root seed": m.get("root_seed"),
        "configurations": len(m.get("configs", [])),
        "games planned": m.get("games_planned"),
        "games in the tables": len(run.games),
        "failed games": int(run.games["error"].notna().sum()),
        "started": m.get("started"),
        "finished": m.get("finished"),
        "commit": (git.get("commit", "")[:12] + (" (local changes)" if git.get("dirty") else ""))
        if git
        else None,
    }
    return pd.DataFrame({"": list(items), "value": [str(v) for v in items.values()]})


_FLAGGED_SHOWN = 20  # flagged effects listed in the answers; every row is in the long table

_BALANCE_SHOWN = [
    "games",
    "failed",
    "first_player_rate",
    "seat_advantage",
    "margin_mean",
    "close_share",
    "rounds_mean",
    "turns_mean",
    "truncated_share",
    "shared_win_share",
    "score_mean",
]


def _varying_columns(frame: pd.DataFrame, keep: list[str]) -> pd.DataFrame:
    """Return ``frame`` without the configuration columns that never change and constant metrics."""
    keys = labels.varying(frame, bal.CONFIG) or ["players"]
    metrics = [c for c in keep if c in frame and frame[c].nunique(dropna=False) > 1]
    return frame[[*keys, *metrics]]


def _seat_table(seat: pd.DataFrame, found: pd.DataFrame) -> pd.DataFrame:
    """Return one row per configuration: the first player's share, its interval, the test and
    its q (from the findings' seat rows)."""
    first = seat[seat["turn_order"] == 0].copy()
    rows = found[found["question"] == "seats"].set_index("configuration")
    mine = rows.loc[[config_key(r) for _, r in first.iterrows()]]
    first["first player"] = [
        rate_interval(v, lo, hi)
        for v, lo, hi in zip(mine["estimate"], mine["ci_low"], mine["ci_high"], strict=True)
    ]
    first["fair share"] = [pct(e) for e in first["expected"]]
    first["p"] = mine["p"].to_numpy()
    first["q"] = mine["q"].to_numpy()
    first = first.sort_values(["players", "share"], ascending=[True, False])
    keys = labels.varying(first, bal.CONFIG) or ["players"]
    return first[[*keys, "games", "first player", "fair share", "p", "q", "test"]]


def _effects_answer(page: _Page, effects: pd.DataFrame, found: pd.DataFrame) -> None:
    n = int(effects["unmeasured_because"].isna().sum())
    # flagged: what the findings' effect rows (the table's, in its order) detect, q < 0.05
    effects = effects.assign(
        detected=found.loc[found["question"] == "effect", "detected"].to_numpy(dtype=bool)
    )
    flagged = effects[effects["detected"]].sort_values("p_value")
    page.note(
        f"{len(flagged)} of {n} differences flagged (q < 0.05: they survive the "
        "Benjamini-Hochberg correction for the many comparisons).",
        "answer",
    )
    power = (
        effects.groupby(["metric", "kind"], sort=False)
        .agg(
            comparisons=("diff", "size"),
            flagged=("detected", "sum"),
            median_mde=("mde", "median"),
            games=("games", "median"),
            half_width=("half_width", "first"),
            games_needed=("games_needed", "median"),
        )
        .reset_index()
    )
    page.note(
        "What this run can detect, per comparison: the median minimum detectable effect (80% "
        "power, 5% level; rates in points) at its size, and the games per configuration an "
        "interval of the given half-width would need."
    )
    rate = power["kind"] == "rate"
    power.loc[rate, "median_mde"] *= 100
    power.loc[rate, "half_width"] *= 100
    page.table(power.drop(columns="kind"))
    page.chart(lambda: plots.plot_effects(effects), "effects against the base game")
    if len(flagged):
        shown = flagged[
            [
                "players",
                "factor",
                "level",
                "against",
                "lineup",
                "metric",
                "bot",
                "base",
                "value",
                "diff",
                "ci_low",
                "ci_high",
                "q_value",
                "mde",
            ]
        ]
        shown = shown.loc[:, [c for c in shown if shown[c].notna().any()]]
        is_set = shown["factor"] == "expansions"
        shown.loc[is_set, "level"] = shown.loc[is_set, "level"].map(labels.short_expansions)
        more = len(shown) - _FLAGGED_SHOWN
        page.note(
            "The flagged differences, smallest p first"
            + (
                f" (the first {_FLAGGED_SHOWN}; {more} more in the long table at the end):"
                if more > 0
                else ":"
            )
        )
        shown = shown.head(_FLAGGED_SHOWN)
        page.table(_varying_columns(shown, [c for c in shown if c not in bal.CONFIG]))


def _flow_section(page: _Page, run: Run) -> None:
    """Add the card strength and the game flow (from the events and rounds tables)."""
    from projectl_sim.analysis import cards, failures, game_flow

    page.heading("Card strength and game flow")
    if run.events is None or run.rounds is None:
        page.note("This run has no events or rounds table (played with --tables core).")
        return
    card = cards.card_strength(run.seats, run.events, failures.catalogue_cards(run.manifest))
    games = int(finished_seats(run.seats)["game_id"].nunique())
    page.note(cards.verdict_line(card, "card", games), "answer")
    page.note(
        "Lift: the win share of the seats that completed a card minus the others', within the "
        "same configuration, bot and turn order; excess: over the other cards of its colour. "
        "Flagged: excess different from 0 after Benjamini-Yekutieli at 5% (Benjamini-Hochberg "
        "made valid for dependent tests); * provisional data."
    )
    page.chart(lambda: plots.plot_card_strength(card), "card strength")
    page.table(card, folded=f"the strength of each of {len(card)} cards")
    piece = cards.piece_strength(run.seats, run.events)
    if len(piece):
        page.note(cards.verdict_line(piece, "piece", games), "answer")
        page.table(piece, folded=f"the strength of each of {len(piece)} reward pieces")
    flow = game_flow.game_flow(run.rounds, run.games)
    if flow.empty:
        page.note("Game flow: no game of two seats or more finished.")
        return
    summary = game_flow.flow_summary(flow)
    page.note(
        "Game flow per configuration: lead changes, the round from which the winner led for "
        "good (and as a share of the game's rounds), the comeback rate (winner behind at half "
        "time), with 95% intervals clustered by deal."
    )
    page.chart(lambda: plots.plot_flow(summary), "game flow")
    page.table(_varying_columns(summary, [c for c in summary if c not in bal.CONFIG]))
    page.table(game_flow.margin_distribution(flow), folded="the final margin's distribution")
    found = failures.failure_states(run)
    if found:
        page.note("Failure states: " + "; ".join(failures.failure_lines(found)))


def build_report(run: Run) -> str:
    """Return the HTML page of a run: the answers, then the details and the long tables."""
    seats, games = run.seats, run.games
    title = f"projectl-sim run {run.manifest.get('run_id', run.path.name)}"
    page = _Page(title)
    page.table(_overview(run))
    if games.empty or games["error"].notna().all():
        page.note("No finished game in this run: nothing to summarise.")
        return page.render(title)
    configs = games.drop_duplicates(bal.CONFIG)
    shared = labels.constant_settings(configs)
    if shared:
        page.note(f"Every game: {shared}.")
    key = labels.abbreviation_key(configs["expansions"])
    if key:
        page.note(f"Expansion sets abbreviated: {key}; base = the base game.")

    seat = seat_advantage(seats, by=bal.CONFIG)
    effects = factors.effects(seats, games)
    rated = ratings.rate_bots(seats)
    pairs = ratings.pair_results(seats)
    times = timing.decision_times(seats)
    found = findings(
        seats, games, seat_table=seat, effect_table=effects, pairs=pairs, rated=rated, times=times
    )
    multi = not seat.empty
    # a round robin asks which bot is strongest: its ranking leads, its seats come after
    robin = bool((run.manifest.get("config") or {}).get("round_robin"))

    def seat_section() -> None:
        if not multi:
            page.note(
                "Solo games only: no turn order, rating or head to head to compare.", "answer"
            )
        else:
            page.heading("Seat advantage per configuration")
            configs = seat.drop_duplicates(bal.CONFIG)
            n = len(configs)
            unmeasured = configs[configs["unmeasured_because"].notna()]
            tested = found[(found["question"] == "seats") & found["p"].notna()]
            if len(tested):
                page.note(
                    "Configurations with unequal seats after the Benjamini-Hochberg correction "
                    f"for the configurations tested (q < 0.05): {int(tested['detected'].sum())} "
                    f"of {len(tested)}. Dots: each turn order's share of the wins with its 95% "
                    "Wilson interval; dashed: the fair share 1/N; "
                    "p: exact test below 5 expected wins per seat, else chi-square.",
                    "answer",
                )
            names = dict(zip(configs.index, labels.config_labels(configs), strict=True))
            for at, c in unmeasured.iterrows():
                page.note(
                    f"{names[at]}: nothing could be measured about the seats: "
                    f"{c['unmeasured_because']}.",
                    "answer",
                )
            page.chart(lambda: plots.plot_seat_advantage(seat), "seat advantage per configuration")
            page.table(
                _seat_table(seat, found),
                folded=f"the first player's share in each of {n} configurations",
            )

    def rating_section() -> None:
        if multi:
            page.heading("Ratings and head to head")
        if multi and rated.empty:
            page.note("No game seated two different bots: nothing to rate.")
        elif multi:
            page.note(
                "Plackett-Luce fit on every game's order of finish (ties count every order of the "
                f"tied seats alike), {rated['scale'].iloc[0]}, 95% profile likelihood intervals. "
                "A bot that never won (or never lost) has no finite rating and is reported as "
                "such."
            )
            page.table(rated)
            page.chart(lambda: plots.plot_ratings(rated), "ratings")
            page.note("Head to head per pair and player count (match score per game, Wilson 95%):")
            page.table(
                pairs[pairs["rate"] >= 0.5].sort_values(
                    ["players", "rate"], ascending=[True, False]
                )
            )
            matrix = ratings.head_to_head_matrix(seats)
            if len(matrix) > 1:
                order = list(rated.sort_values("rating", ascending=False)["bot"])
                page.chart(lambda: plots.plot_head_to_head(matrix, order=order), "head to head")
            ladder = ratings.skill_ladder(seats)
            if not ladder.empty:
                page.note("Skill ladder: the doubled budget's win rate at each step.")
                page.table(ladder)
                page.chart(lambda: plots.plot_ladder(ladder), "ladder")

    if robin:
        rating_section()
        seat_section()
    else:
        seat_section()
    page.heading("Effects against the base game")
    if effects.empty:
        page.note(
            "No expansion set or rules switch was played next to its base game (same players, "
            "variant and line-up): nothing to compare."
        )
    else:
        _effects_answer(page, effects, found)

    if not robin:
        rating_section()
    page.heading("Time per decision")
    if times.empty:
        page.note("The tables hold no timing column.")
    else:
        if times["clock"].iloc[0] == "wall":
            page.note(
                "Wall-clock seconds (the tables have no CPU column: a busy machine inflates them)."
            )
        shown = times.copy()
        for c in ("seconds_per_decision", "ci_low", "ci_high"):
            shown[c] = shown[c] * 1e3
        shown = shown.rename(
            columns={
                "seconds_per_decision": "ms per decision",
                "ci_low": "ms ci_low",
                "ci_high": "ms ci_high",
                "seconds_per_game": "seconds per seat and game",
            }
        )
        page.table(shown)

    page.heading("Win rates")
    page.note("Win rate counts a k-way shared win as 1/k; intervals are Wilson 95% intervals.")
    by_bot = win_rates(seats, ["players", "variant", "bot"])
    page.table(by_bot)
    page.chart(lambda: plots.plot_win_rates(by_bot, labels=["players", "variant", "bot"]), "win")

    page.heading("Balance by configuration")
    balance = bal.balance_table(seats, games)
    vary = labels.varying(configs, ["expansions", "lineup", "switches"])
    by = [*vary, "players"]
    if multi:
        page.chart(lambda: plots.plot_margins(games, by=by), "margins")
    page.chart(lambda: plots.plot_lengths(games, by=by), "lengths")
    reasons = bal.end_reasons(games, by)
    ok = games[games["error"].isna()]
    if (ok["end_reason"] == "rules").all():
        page.note(f"How games ended: all {len(ok)} finished games ended by the rules.")
    else:
        page.chart(lambda: plots.plot_end_reasons(reasons), "end reasons")
    page.chart(lambda: plots.plot_scores(seats), "scores")
    page.table(
        _varying_columns(balance, _BALANCE_SHOWN),
        folded=f"balance metrics of each of {len(balance)} configurations",
    )

    page.heading("Strategy")
    ppa = strategy.points_per_action(seats)
    page.table(ppa)
    page.chart(lambda: plots.plot_points_per_action(ppa), "points per action")
    ft = strategy.finishing_touches(seats, games)
    if ft.empty:
        page.note("Finishing Touches: no game ended by the rules to count them in.")
    else:
        page.table(ft)
        page.chart(lambda: plots.plot_finishing(ft), "finishing touches")
    puzzles = strategy.puzzle_stats(seats)
    if not puzzles.empty:
        page.chart(lambda: plots.plot_puzzles(puzzles), "puzzles")
    mix = strategy.piece_mix(run.records())
    if not mix.empty:
        page.chart(lambda: plots.plot_piece_mix(mix), "piece mix")

    _flow_section(page, run)

    solo = strategy.solo_by_difficulty(seats, games)
    if not solo.empty:
        page.heading("Solo")
        page.table(solo)
        page.chart(lambda: plots.plot_solo(solo), "solo")
    credit = strategy.credits(seats, by=["expansions", "players", "bot"])
    if not credit.empty:
        page.heading("Credits (Finesse)")
        page.table(credit, folded=f"Credits in each of {len(credit)} groups")
        page.chart(lambda: plots.plot_credits(credit), "credits")
    if not effects.empty:
        page.heading("Every effect (long table)")
        page.table(effects, folded=f"all {len(effects)} differences against the base game")
    return page.render(title)


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the HTML report of a run (default ``RUN/report.html``) and return its path."""
    run = load_run(run_dir)
    path = Path(out) if out is not None else run.path / "report.html"
    text = build_report(run)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    return path
