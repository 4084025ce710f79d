"""The answer of each notebook in words, written from the tables it drew (never typed in).

Each function takes the run's ``games`` table (for the counts) and the tables the notebook
computed, and returns a few sentences of Markdown: the finding, its uncertainty, and what a run
of this size could not have seen. A notebook's last cell (tagged ``answer``) displays it, and
``projectl-sim notebook`` prints it. The numbers are those of the tables: rates as percentages
with their 95% intervals, ratings in Elo points.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from projectl_sim.analysis.labels import short_expansions
from projectl_sim.analysis.power import minimum_detectable_effect
from projectl_sim.analysis.stats import finished_games

__all__ = ["balance_answer", "bot_strength_answer", "puzzle_answer", "solo_finesse_answer"]

ALPHA = 0.05


def _pct(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{100 * x:.0f}%"


def _rate(x: float, low: float, high: float) -> str:
    """Return ``62% [51, 72]`` (a rate and its 95% interval, in percent)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return _pct(x)
    return f"{_pct(x)} [{100 * low:.0f}, {100 * high:.0f}]"


def _elo(x: float) -> str:
    return {np.inf: "+inf", -np.inf: "-inf"}.get(x, f"{x:+.0f}") if not np.isnan(x) else "n/a"


def _plural(n: float, word: str) -> str:
    return f"{n:g} {word}{'s' if n != 1 else ''}"


def _games(n: int) -> str:
    return _plural(n, "game")


def _points(mde: float) -> str:
    return (
        "n/a" if not np.isfinite(mde) else ("100 points" if mde > 1 else f"{100 * mde:.0f} points")
    )


def _played(games: pd.DataFrame) -> int:
    return len(finished_games(games))


# -- 01: bot strength ----------------------------------------------------------------------------
def bot_strength_answer(games: pd.DataFrame, ratings: pd.DataFrame, ladder: pd.DataFrame) -> str:
    """Return which bot is strongest and whether doubling a search budget still buys strength.

    ``ratings``: ``bradley_terry`` (or ``plackett_luce``), best first; ``ladder``:
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
                f"{interval} (Bradley-Terry, mean 0 over the rated bots, 95% interval)."
            )
            rest = rated[rated["bot"] != top["bot"]]
            if len(rest):
                second = rest.iloc[0]
                gap = top["rating"] - second["rating"]
                bounds = [top["ci_low"], second["ci_high"]]
                if np.isnan(bounds).any():  # no bootstrap (n_boot=0)
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
            f"{r.low:g} to {r.high:g} wins {_rate(r.win_rate, r.ci_low, r.ci_high)} of "
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
def _config(row: pd.Series) -> str:
    return f"{row['players']}p {short_expansions(row['expansions'])}"


def _difference(kind: str, d: float, low: float, high: float) -> str:
    if kind == "rate":
        return f"{100 * d:+.1f} points [{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"{d:+.2f} [{low:+.2f}, {high:+.2f}]"


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
        per = int(first["games"].median())
        least = _rate(lo["share"], lo["ci_low"], lo["ci_high"])
        most = _rate(hi["share"], hi["ci_low"], hi["ci_high"])
        out.append(
            f"Over {_games(n)} in {_plural(k, 'configuration')} (a median of {per} each), the "
            f"first player's share of the wins ranges from {least} ({_config(lo)}) to {most} "
            f"({_config(hi)}), against a fair share of 1/N."
        )
        rejected = first[first["p_value"] < ALPHA]
        text = (
            f"{len(rejected)} of {_plural(k, 'configuration')} reject equal shares at 5% "
            f"({ALPHA * k:.1f} expected by chance if none differed)"
        )
        if len(rejected):
            worst = rejected.loc[rejected["p_value"].idxmin()]
            text += f"; the most uneven is {_config(worst)} (p = {worst['p_value']:.3f})"
        out.append(text + ".")
        mdes = []
        for players, group in first.groupby("players", sort=True):
            p0 = 1 / int(players)
            size = float(group["games"].median())
            mdes.append((int(players), minimum_detectable_effect(np.sqrt(p0 * (1 - p0) / size))))
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
    flagged = effects[effects["significant"]]
    kept = effects[effects["q_value"] < ALPHA].sort_values("q_value")
    text = (
        f"Of {_plural(m, 'comparison')} against the base game, {len(flagged)} differ at 5% "
        f"({ALPHA * m:.1f} expected by chance) and {len(kept)} survive the Benjamini-Hochberg "
        "correction for the many comparisons"
    )
    if kept.empty:
        return text + ": no expansion's effect is established at this size."
    named = []
    for _, r in kept.head(3).iterrows():
        metric = r["metric"] if pd.isna(r["bot"]) or r["bot"] is None else f"{r['bot']} win rate"
        named.append(
            f"{r['players']}p {short_expansions(r['level'])} {metric} "
            f"{_difference(r['kind'], r['diff'], r['ci_low'], r['ci_high'])}"
        )
    more = f" and {len(kept) - 3} more" if len(kept) > 3 else ""
    return text + ": " + "; ".join(named) + more + "."


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
        f"completed {_pct(done / total)} of them."
    ]
    most = taken.sort_values(["taken", "puzzle"], ascending=[False, True]).iloc[0]
    out.append(
        f"Most taken: **{most['puzzle']}** ({most['taken']} times, "
        f"{_pct(most['completion_rate'])} completed)."
    )
    often = taken[taken["taken"] >= 3]
    if len(often) and (often["completion_rate"] < 1).any():
        worst = often.sort_values(["completion_rate", "puzzle"]).iloc[0]
        out.append(
            f"Least often completed of those taken 3 times or more: {worst['puzzle']} "
            f"({_pct(worst['completion_rate'])} of {worst['taken']})."
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
        pairs = value[["points_per_action", "taken_per_game"]].astype(float).fillna(0.0)
        if pairs.nunique().min() > 1:
            test = sps.spearmanr(pairs["points_per_action"], pairs["taken_per_game"])
            rho, p = float(test.statistic), float(test.pvalue)
            if p >= ALPHA:
                lean = "no clear sign that bots favour the better-paid puzzles"
            elif rho > 0:
                lean = "bots take the better-paid puzzles more often"
            else:
                lean = "bots take the better-paid puzzles less often"
            out.append(
                f"Over the {len(pairs)} puzzles of the catalogue, points per action and times "
                f"taken have a rank correlation of {rho:+.2f} (p = {p:.3f}): {lean}."
            )
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
                f"{_rate(r.win_rate, r.ci_low, r.ci_high)} at {r.difficulty}"
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
            f"({_pct(spent / earned) if earned else 'n/a'}), making {mean('inserts_mean'):.1f} "
            f"Inserts; earnings range from {low['credits_earned_mean']:.1f} "
            f"({short_expansions(low['expansions'])}) to {high['credits_earned_mean']:.1f} "
            f"({short_expansions(high['expansions'])})."
        )
    if not finishing.empty:
        parts = []
        for variant, rows in finishing.groupby("variant", sort=True):
            w = rows["seats"].astype(float)
            used = float((rows["used_share"] * w).sum() / w.sum())
            pieces = float((rows["pieces_mean"] * w).sum() / w.sum())
            where = "solo" if variant == "solo" else f"{variant} (multiplayer)"
            parts.append(f"{_pct(used)} of seats in {where} games ({pieces:.2f} pieces a seat)")
        out.append(
            "Finishing Touches placed pieces for " + "; ".join(parts) + ", in games ended by "
            "the rules."
        )
    return " ".join(out)
