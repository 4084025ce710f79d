"""The answer of each notebook in words, written from the tables it drew (never typed in).

Each function takes the run's ``games`` table (for the counts) and the tables the notebook
computed, and returns a few sentences of Markdown: the finding, its uncertainty, and what a run
of this size could not have seen. A notebook's last cell (tagged ``answer``) displays it, and
``projectl-sim notebook`` prints it. The numbers are those of the tables: rates as percentages
with their 95% intervals, ratings in Elo points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from projectl_sim.analysis.findings import effect_findings, puzzle_value_findings, seat_findings
from projectl_sim.analysis.fmt import NA, diff_interval, ordinal, p_text, pct, points, rate_interval
from projectl_sim.analysis.labels import abbreviation_key, short_expansions, short_lineup
from projectl_sim.analysis.rows import CONFIG, finished_games
from projectl_sim.analysis.trial import METRIC_NAMES

if TYPE_CHECKING:
    from projectl_sim.analysis.trial import TrialReport
    from projectl_sim.puzzles.puzzle_check import PuzzleCheck


class _SearchedParam(Protocol):
    name: str

    def text(self) -> str: ...


class SearchResult(Protocol):
    """What ``designer_answer`` reads of a balance search (``experiments.tune.TuneResult`` is one):
    the experiments sit above the analysis, so the analysis names only what it reads."""

    objective: str
    target: float | None
    games_played: int

    @property
    def params(self) -> Sequence[_SearchedParam]: ...

    @property
    def trials(self) -> pd.DataFrame: ...

    @property
    def confirmed(self) -> pd.DataFrame: ...


__all__ = [
    "balance_answer",
    "bot_strength_answer",
    "designer_answer",
    "puzzle_answer",
    "solo_finesse_answer",
]


def _elo(x: float) -> str:
    return {np.inf: "+inf", -np.inf: "-inf"}.get(x, f"{x:+.0f}") if not np.isnan(x) else NA


def _row_rate(row: pd.Series, name: str) -> str:
    return rate_interval(row[f"{name}_rate"], row[f"{name}_ci_low"], row[f"{name}_ci_high"])


def _plural(n: float, word: str) -> str:
    return f"{n:g} {word}{'s' if n != 1 else ''}"


def _games(n: int) -> str:
    return _plural(n, "game")


def _points(mde: float) -> str:
    return NA if not np.isfinite(mde) else ("100 points" if mde > 1 else f"{points(mde)} points")


def _played(games: pd.DataFrame) -> int:
    return len(finished_games(games))


# -- 01: bot strength ----------------------------------------------------------------------------
def bot_strength_answer(games: pd.DataFrame, ratings: pd.DataFrame, ladder: pd.DataFrame) -> str:
    """Return which bot is strongest and whether doubling a search budget still buys strength.

    ``ratings``: ``rate_bots``, best first (its ``scale`` names the anchor); ``ladder``:
    ``skill_ladder``.
    """
    n = _played(games)
    out = []
    if ratings.empty:
        out.append(f"None of the {_games(n)} seated two different bots: there is nothing to rate.")
    else:
        top = ratings.iloc[0]
        rated = ratings[np.isfinite(ratings["rating"])]
        if np.isposinf(top["rating"]):
            out.append(
                f"Over {_games(n)}, **{top['bot']}** is strongest: it never finished behind "
                "another bot, so its rating is unbounded above."
            )
        else:
            interval = ""
            if np.isfinite(top["ci_low"]) or np.isfinite(top["ci_high"]):
                interval = f" [{_elo(top['ci_low'])}, {_elo(top['ci_high'])}]"
            out.append(
                f"Over {_games(n)}, **{top['bot']}** rates highest: {_elo(top['rating'])} Elo"
                f"{interval} (Plackett-Luce, {_scale(ratings)}, 95% interval)."
            )
            rest = rated[rated["bot"] != top["bot"]]
            if len(rest):
                second = rest.iloc[0]
                gap = top["rating"] - second["rating"]
                bounds = [top["ci_low"], second["ci_high"]]
                if np.isnan(bounds).any():  # no interval (a lone reference bot)
                    out.append(
                        f"Its lead of {gap:.0f} points over {second['bot']} "
                        f"({_elo(second['rating'])}) comes without the intervals to tell how "
                        "sure it is."
                    )
                elif top["ci_low"] > second["ci_high"]:
                    out.append(
                        f"It is clearly ahead of {second['bot']} ({_elo(second['rating'])}, "
                        f"{gap:.0f} points lower): their intervals do not overlap."
                    )
                else:
                    out.append(
                        f"Its lead of {gap:.0f} points over {second['bot']} "
                        f"({_elo(second['rating'])}) lies within their intervals: this run does "
                        "not settle which of the two is stronger."
                    )
        losers = ratings.loc[np.isneginf(ratings["rating"]), "bot"].tolist()
        if losers:
            out.append(
                f"{', '.join(losers)} never finished ahead of another bot (no wins: rating "
                "unbounded below)."
            )
    out.append(_ladder_sentence(ladder))
    return " ".join(out)


def _scale(ratings: pd.DataFrame) -> str:
    return str(ratings["scale"].iloc[0]) if "scale" in ratings else "Elo scale"


def _ladder_sentence(ladder: pd.DataFrame) -> str:
    if ladder.empty:
        return "The run holds no budget ladder (a bot against itself with twice the budget)."
    steps, helped = [], []
    for r in ladder.itertuples(index=False):
        if r.ci_low > 0.5:
            verdict = "helps"
            helped.append(r)
        elif r.ci_high < 0.5:
            verdict = "hurts"
        else:
            verdict = "not told apart from an even game"
        steps.append(
            f"{r.low:g} to {r.high:g} wins {rate_interval(r.win_rate, r.ci_low, r.ci_high)} of "
            f"{_games(int(r.games))} ({verdict})"
        )
    bot, param = ladder["bot"].iloc[0], ladder["param"].iloc[0]
    text = f"Doubling {bot}'s {param}: " + "; ".join(steps) + "."
    if helped:
        last = helped[-1]
        text += f" Doubling still clearly buys strength up to {last.low:g} to {last.high:g}."
    else:
        text += " No doubling is told apart from an even game at this size."
    return text


# -- 02: expansion balance -----------------------------------------------------------------------
def _config(row: pd.Series, lineup: bool = False) -> str:
    """Return ``2p F`` (``2p F greedy,random`` when line-ups must tell two such apart)."""
    text = f"{row['players']}p {short_expansions(row['expansions'])}"
    return f"{text} {short_lineup(str(row['lineup']))}" if lineup else text


def _lineups_vary(table: pd.DataFrame, keys: list[str]) -> bool:
    """Return whether some ``keys`` group of ``table`` holds two line-ups (its label needs one)."""
    return "lineup" in table and bool((table.groupby(keys)["lineup"].nunique() > 1).any())


def _key(expansions: Sequence[str]) -> str:
    """Return `` (F = finesse)``: the abbreviations a sentence used, or nothing."""
    key = abbreviation_key(expansions)
    return f" ({key})" if key else ""


def balance_answer(games: pd.DataFrame, seat: pd.DataFrame, effects: pd.DataFrame) -> str:
    """Return whether the first player is favoured anywhere and what the expansions change.

    ``seat``: ``seat_advantage(seats, by=["players", "expansions"])``; ``effects``: ``effects``.
    """
    n = _played(games)
    first = seat[seat["turn_order"] == 0].reset_index(drop=True)
    out = []
    if first.empty:
        out.append(f"None of the {_games(n)} had two or more seats: no seat advantage to measure.")
    else:
        k = len(first)
        hi, lo = first.loc[first["share"].idxmax()], first.loc[first["share"].idxmin()]
        named = _lineups_vary(first, ["players", "expansions"])
        per = int(first["games"].median())
        least = rate_interval(lo["share"], lo["ci_low"], lo["ci_high"])
        most = rate_interval(hi["share"], hi["ci_low"], hi["ci_high"])
        out.append(
            f"Over {_games(n)} in {_plural(k, 'configuration')} (a median of {per} each), the "
            f"first player's share of the wins ranges from {least} ({_config(lo, named)}) to "
            f"{most} ({_config(hi, named)}), against a fair share of 1/N"
            f"{_key(first['expansions'])}."
        )
        configs = seat.drop_duplicates([c for c in CONFIG if c in seat])
        found = pd.DataFrame(
            [(f.detected, f.p, f.q, f.mde) for f in seat_findings(seat, [])],
            columns=["detected", "p", "q", "mde"],
            index=configs.index,
        )
        tested = int(found["p"].notna().sum())
        detected = found[found["detected"]]
        text = (
            f"{len(detected)} of {_plural(tested, 'configuration')} show unequal shares after "
            "the Benjamini-Hochberg correction for the configurations tested (q < 0.05)"
        )
        if len(detected):
            worst = detected["q"].idxmin()
            text += (
                f"; the most uneven is {_config(configs.loc[worst], named)} "
                f"(q {p_text(detected.loc[worst, 'q'])})"
            )
        out.append(text + ".")
        by_players = found["mde"].groupby(configs["players"], sort=True).median()
        mdes = [(int(p), float(m)) for p, m in by_players.items()]
        out.append(
            "At this size a first player's share is told from the fair one (80% power) only "
            "when it is off by at least "
            + ", ".join(f"{_points(m)} at {p} players" for p, m in mdes)
            + ": a smaller advantage would go unseen."
        )
    out.append(_effects_sentence(effects))
    return " ".join(out)


def _effects_sentence(effects: pd.DataFrame) -> str:
    if effects.empty:
        return "No expansion set was played next to its base game, so no effect is estimated."
    m = len(effects)
    detected = [f.detected for f in effect_findings(effects, [])]
    kept = effects[detected].sort_values("q_value")
    text = (
        f"Of {_plural(m, 'comparison')} against the base game, {len(kept)} survive the "
        "Benjamini-Hochberg correction for the many comparisons"
    )
    if kept.empty:
        return text + ": no expansion's effect is established at this size."
    named = []
    lineups = _lineups_vary(effects, ["players", "level"])  # else two rows read the same
    for _, r in kept.head(3).iterrows():
        metric = r["metric"] if pd.isna(r["bot"]) or r["bot"] is None else f"{r['bot']} win rate"
        lineup = f" {short_lineup(str(r['lineup']))}" if lineups else ""
        named.append(
            f"{r['players']}p {short_expansions(r['level'])}{lineup} {metric} "
            f"{diff_interval(r['kind'], r['diff'], r['ci_low'], r['ci_high'])}"
        )
    more = f" and {len(kept) - 3} more" if len(kept) > 3 else ""
    return text + ": " + "; ".join(named) + more + _key(kept.head(3)["level"]) + "."


# -- 03: puzzle atlas ----------------------------------------------------------------------------
def puzzle_answer(games: pd.DataFrame, taken: pd.DataFrame, value: pd.DataFrame) -> str:
    """Return which puzzles bots take and complete, and whether they take the ones that pay.

    ``taken``: ``puzzle_stats(seats)``; ``value``: ``puzzle_value(atlas, taken)``.
    """
    n = _played(games)
    if taken.empty:
        return (
            f"The {_games(n)}' tables name no puzzles (written before the puzzle columns "
            "existed): nothing to say about which are taken."
        )
    total, done = int(taken["taken"].sum()), int(taken["completed"].sum())
    out = [
        f"Over {_games(n)}, seats took {total} puzzles ({total / max(n, 1):.1f} a game) and "
        f"completed {pct(done / total)} of them."
    ]
    most = taken.sort_values(["taken", "puzzle"], ascending=[False, True]).iloc[0]
    out.append(
        f"Most taken: **{most['puzzle']}** ({most['taken']} times, "
        f"{pct(most['completion_rate'])} completed)."
    )
    often = taken[taken["taken"] >= 3]
    if len(often) and (often["completion_rate"] < 1).any():
        worst = often.sort_values(["completion_rate", "puzzle"]).iloc[0]
        out.append(
            f"Least often completed of those taken 3 times or more: {worst['puzzle']} "
            f"({pct(worst['completion_rate'])} of {worst['taken']})."
        )
    if len(value):
        best = value.sort_values(["points_per_action", "id"], ascending=[False, True]).iloc[0]
        per_game = best["taken_per_game"] if np.isfinite(best["taken_per_game"]) else 0.0
        out.append(
            f"Best paid for its cost: {best['id']} ({_plural(best['points'], 'point')} for about "
            f"{_plural(best['total_actions'], 'action')} from the starting supply, "
            f"{best['points_per_action']:.2f} points per action), taken {per_game:.2f} times a "
            "game."
        )
        out += [f.verdict for f in puzzle_value_findings(value)]
    return " ".join(out)


# -- 04: solo and Finesse ------------------------------------------------------------------------
def solo_finesse_answer(
    games: pd.DataFrame, solo: pd.DataFrame, economy: pd.DataFrame, finishing: pd.DataFrame
) -> str:
    """Return how often bots beat the mastermind, how Credits are earned and spent, and how
    often Finishing Touches are used.

    ``games``: the games of both runs (``load_runs``); ``solo``: ``solo_by_difficulty``;
    ``economy``: ``credits``; ``finishing``: ``finishing_touches`` with ``variant`` in ``by``.
    """
    ok = finished_games(games)
    n_solo = int((ok["variant"] == "solo").sum())
    n_multi = len(ok) - n_solo
    out = []
    if solo.empty:
        out.append("No solo game was played.")
    else:
        for bot, rows in solo.groupby("bot", sort=False):
            levels = [
                f"{rate_interval(r.win_rate, r.ci_low, r.ci_high)} at {r.difficulty}"
                for r in rows.itertuples(index=False)
            ]
            text = f"In {_games(n_solo)} against the solo mastermind, **{bot}** wins " + (
                ", ".join(levels)
            )
            if "margin_mean" in rows and rows["margin_mean"].notna().any():
                text += (
                    f" (mean margin {rows['margin_mean'].iloc[0]:+.1f} points at "
                    f"{rows['difficulty'].iloc[0]})"
                )
            out.append(text + ".")
    if economy.empty:
        out.append(f"None of the {_games(n_multi)} played Finesse: no Credits to count.")
    else:
        w = economy["seats"].astype(float)

        def mean(column: str) -> float:
            return float((economy[column] * w).sum() / w.sum())

        earned, spent = mean("credits_earned_mean"), mean("credits_spent_mean")
        low = economy.loc[economy["credits_earned_mean"].idxmin()]
        high = economy.loc[economy["credits_earned_mean"].idxmax()]
        n_finesse = int(ok["expansions"].str.split("+").map(lambda e: "finesse" in e).sum())
        out.append(
            f"Of the {_games(n_multi)} with two or more players, {n_finesse} played Finesse: "
            f"there a seat earns {earned:.1f} Credits a game and spends {spent:.1f} of them "
            f"({pct(spent / earned) if earned else NA}), making {mean('inserts_mean'):.1f} "
            f"Inserts; earnings range from {low['credits_earned_mean']:.1f} "
            f"({short_expansions(low['expansions'])}) to {high['credits_earned_mean']:.1f} "
            f"({short_expansions(high['expansions'])})"
            f"{_key([low['expansions'], high['expansions']])}."
        )
    if not finishing.empty:
        parts = []
        for variant, rows in finishing.groupby("variant", sort=True):
            w = rows["seats"].astype(float)
            used = float((rows["used_share"] * w).sum() / w.sum())
            pieces = float((rows["pieces_mean"] * w).sum() / w.sum())
            where = "solo" if variant == "solo" else f"{variant} (multiplayer)"
            parts.append(f"{pct(used)} of seats in {where} games ({pieces:.2f} pieces a seat)")
        out.append(
            "Finishing Touches placed pieces for " + "; ".join(parts) + ", in games ended by "
            "the rules."
        )
    return " ".join(out)


# -- 05: the designer's loop ---------------------------------------------------------------------
# the name tune gives the confirmed row of the printed setting (experiments.tune.RULEBOOK)
RULEBOOK = "rulebook"


def _finite(*xs: Any) -> bool:
    return all(x is not None and np.isfinite(float(x)) for x in xs)


def _measured(low: float, high: float) -> bool:
    """Return whether a 95% interval of a difference leaves out 0 (a measurable change)."""
    return _finite(low, high) and (low > 0 or high < 0)


def designer_answer(check: PuzzleCheck, report: TrialReport, result: SearchResult) -> str:
    """Return what a new puzzle costs, whether it changed the game measurably, and which setting
    the balance search found against the rulebook's.

    ``check``: ``puzzle_check.check_puzzle``; ``report``: ``analysis.trial.trial_report`` (or
    ``experiments.trial.try_puzzle(...).report``); ``result``: ``experiments.tune.tune`` or
    ``load_tune``. A change of the game is measurable when the findings detect it (q < 0.05
    over the trial's differences, ``findings.change_findings``); the take rate and the search's
    single comparisons are measurable when their 95% interval leaves out 0.
    """
    return " ".join([_cost_sentence(check), *_trial_sentences(report), _tune_sentence(result)])


def _cost_sentence(check: PuzzleCheck) -> str:
    p, row = check.puzzle, check.row
    card = f"**{p.id}** ({p.colour}, {_plural(p.points, 'point')}, reward {p.reward})"
    if not check.fillable:
        return f"{card} cannot be filled with the catalogue's pieces: no deal can complete it."
    cells, tilings = _plural(p.cells, "cell"), _plural(row["tilings"], "tiling")
    text = f"{card} fills its {cells} in {tilings}"
    if row["total_actions"] is None:
        return text + ", but only with a ghost piece, which no action buys."
    cheapest = check.cheapest[0].text if check.cheapest else ""
    text += (
        f" and costs {_plural(row['total_actions'], 'action')} to finish alone from the "
        f"starting supply ({cheapest})"
    )
    if check.points_per_action is not None and check.rank is not None and check.among:
        text += (
            f": {check.points_per_action:.2f} points per action, {ordinal(check.rank)} of "
            f"{check.among + 1} among the printed {p.colour} puzzles and it"
        )
    if p.points == 0:
        text += " (a 0-point card is worth its reward, which points per action leaves out)"
    return text + "."


def _change(kind: str, a: float, b: float, d: float, low: float, high: float) -> str:
    if kind == "rate":
        shown = f"{pct(a)} to {pct(b)}, {100 * d:+.1f} pts"
        return shown + (f" [{100 * low:+.1f}, {100 * high:+.1f}]" if _finite(low, high) else "")
    shown = f"{a:.2f} to {b:.2f}, {d:+.2f}"
    return shown + (f" [{low:+.2f}, {high:+.2f}]" if _finite(low, high) else "")


def _trial_sentences(report: TrialReport) -> list[str]:
    how = f"in the place of {report.replaced}" if report.replaced else "dealt in among the others"
    out = []
    new = report.use[(report.use["run"] == "with") & (report.use["bot"] == "all")]
    pairs = _plural(report.pairs, "paired game")
    text = f"Over {pairs} {how} (the same deals with and without it)"
    if len(new):
        r = new.iloc[0]
        text += (
            f", it was taken in {_row_rate(r, 'taken')} of games and completed in "
            f"{_row_rate(r, 'completion')} of its takes"
        )
    t = report.taken
    if report.replaced and t is not None and _finite(t["diff"]):
        interval = (
            f" [{100 * t['ci_low']:+.1f}, {100 * t['ci_high']:+.1f}]"
            if _finite(t["ci_low"], t["ci_high"])
            else ""
        )
        verdict = (
            ""
            if _measured(t["ci_low"], t["ci_high"])
            else ", no measurable change in how often the card of that place is taken"
        )
        text += (
            f"; it was taken {100 * t['diff']:+.1f} percentage points{interval} more often than "
            f"{report.replaced} in the same games{verdict}"
        )
    out.append(text + ".")

    eff = report.effects
    if eff.empty:
        out.append("No finished games to compare: nothing is said of what it changes.")
        return out
    several = eff["config_b"].nunique() > 1

    def name(r: Any) -> str:
        metric = METRIC_NAMES.get(r.metric, r.metric)
        metric = f"{r.bot}'s {metric}" if isinstance(r.bot, str) and r.bot else metric
        if several:
            c = report.configs.loc[r.config_b]
            metric = f"{metric} ({c['players']}p {c['lineup']})"
        return metric

    rows = list(eff.itertuples(index=False))
    moved = [r for r in rows if r.detected]  # the findings' decision (trial_report)
    bounded = [r for r in rows if _finite(r.ci_low, r.ci_high)]
    if not bounded:
        out.append(
            f"Its {_plural(len(rows), 'paired difference')} come without intervals (too few "
            "games): this trial cannot tell whether it changed the game."
        )
    elif not moved:
        shown = [r for r in bounded if not (isinstance(r.bot, str) and r.bot)] or bounded
        out.append(
            f"It made no measurable change to the game: none of the {len(bounded)} paired "
            "differences is a finding (q < 0.05 over them) ("
            + "; ".join(
                f"{name(r)} {_change(r.kind, r.value_a, r.value_b, r.diff, r.ci_low, r.ci_high)}"
                for r in shown
            )
            + ")."
        )
    else:
        out.append(
            f"It changed the game measurably in {len(moved)} of {len(bounded)} paired "
            "differences (findings: q < 0.05 over them): "
            + "; ".join(
                f"{name(r)} {_change(r.kind, r.value_a, r.value_b, r.diff, r.ci_low, r.ci_high)}"
                for r in moved
            )
            + (
                f"; the other {len(bounded) - len(moved)} show no measurable change."
                if len(bounded) > len(moved)
                else "."
            )
        )
    return out


def _value(v: Any) -> str:
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return str(int(v))  # a whole number read back from a CSV with a gap
    return str(v)


def _tune_sentence(result: SearchResult) -> str:
    names = [p.name for p in result.params]
    goal = (
        result.objective if result.target is None else f"|{result.objective} - {result.target:g}|"
    )
    confirmed = result.confirmed.sort_values("value")

    def setting(r: pd.Series) -> str:
        return ", ".join(f"{n}={_value(r[n])}" for n in names)

    def scored(r: pd.Series) -> str:
        interval = f" [{r['ci_low']:.4f}, {r['ci_high']:.4f}]" if _finite(r["ci_low"]) else ""
        return f"{r['value']:.4f}{interval}"

    text = (
        f"The balance search over {', '.join(p.text() for p in result.params)} ({goal}, smaller "
        f"is better; {_plural(len(result.trials), 'setting')} on the same deals, "
        f"{_games(result.games_played)} in all)"
    )
    if confirmed.empty:
        return text + " confirmed no setting."
    best = confirmed.iloc[0]
    rulebook = confirmed[confirmed["name"] == RULEBOOK]
    if rulebook.empty:
        return (
            text + f" found {setting(best)} best, {scored(best)} on fresh deals; the rulebook's "
            "setting was not played beside it (a card the catalogue lacks)."
        )
    rule = rulebook.iloc[0]
    if rule["name"] == best["name"]:
        return (
            text + f" found the rulebook's own setting best: {setting(best)}, {scored(best)} on "
            "fresh deals."
        )
    text += (
        f" found {setting(best)} best, {scored(best)} on fresh deals, against the rulebook's "
        f"{setting(rule)} at {scored(rule)}"
    )
    d, low, high = rule["diff"], rule["diff_low"], rule["diff_high"]
    if not _finite(low, high):
        return text + f" (a difference of {d:+.4f}, without an interval)."
    gap = f"{d:+.4f} [{low:+.4f}, {high:+.4f}] on the same deals"
    if _measured(low, high):
        return text + f": the rulebook's is measurably worse, by {gap}."
    return (
        text + f": their difference {gap} covers 0, no measurable change from the rulebook's "
        "setting at this size."
    )


# -- 06: cards and flow ------------------------------------------------------------------------
def cards_flow_answer(
    games: pd.DataFrame, card: pd.DataFrame, flow: pd.DataFrame, failures: Sequence[Any] = ()
) -> str:
    """Return which cards stand out, how early games are decided and which failure states show.

    ``card``: ``cards.card_strength``; ``flow``: ``game_flow.game_flow``; ``failures``:
    ``failures.failure_states``.
    """
    from projectl_sim.analysis import cards as card_strength
    from projectl_sim.analysis.game_flow import flow_summary

    n = _played(games)
    out = [f"Over {_games(n)}: {card_strength.verdict_line(card, 'card', n)}"]
    summary = flow_summary(flow)
    for row in summary.to_dict("records"):
        decided = rate_interval(
            row["decided_share"], row["decided_share_low"], row["decided_share_high"]
        )
        comebacks = rate_interval(row["comeback_rate"], row["comeback_low"], row["comeback_high"])
        out.append(
            f"At {row['players']} players the winner led for good from {decided} of the rounds "
            f"on average, with {row['lead_changes']:.1f} lead changes and comebacks in "
            f"{comebacks} of the games."
        )
    shown = [f.state for f in failures]
    out.append(
        "Failure states: " + ", ".join(shown) + " (see the summary for the games)."
        if shown
        else "No failure state showed: no stall, round limit, tie-break or card never taken."
    )
    return " ".join(out)
