"""Card and piece strength: which puzzle cards and reward pieces win games, from the flow tables.

Read from a run's ``events`` table (one row per puzzle taken, completed, recycled or left
unfinished, and per reward piece gained: ``projectl_sim.sim.flow``) beside its ``seats``.

Per puzzle card: how often it is taken (``take_rate``: the share of games in which some seat took
it; a black puzzle the deal left out cannot be), how often a take is completed, the seat's own
actions from the take to the completion, points per such action, and the **win-rate lift** of
completing it: the win share of seats that completed it minus that of seats that did not, as a
stratified difference (Mantel-Haenszel weights ``n1 n0 / (n1 + n0)``) within strata of the same
configuration (player count, line-up, expansions, switches), bot and turn order, so that neither
the seat nor the player count nor a stronger bot's habits make a card look strong.

Completing any puzzle brings points, so every lift is positive: what tells a card apart is its
**excess** lift, its lift minus the mean lift of the other cards of its colour (its peers). A card
is *flagged* when its excess differs from zero after the Benjamini-Yekutieli correction over all
the cards tested (false discovery rate 5%): ``strong`` above its peers, ``weak`` below. Intervals
are 95%; the variances are cluster-robust by deal (the rotations of one deal, and the seats of one
game, are not independent: a card completed by one seat is completed by no other), computed from
each seat row's influence on the lift, so that the excess interval accounts for the lifts of the
card and its peers sharing games. The p-value is a score test's: the excess over the standard
error it has when no card matters, from each seat's residual from its stratum's mean rather than
from its group's (the interval's): a dozen completers who all won leave no residual of their own,
and the interval's error then made noise a finding. A card completed fewer than ``MIN_SEATS``
times, or never missed, is not tested (its lift is too loose to read).

A lift includes what completing the card is worth: its points and its reward piece. Its
**adjusted** lift takes that out: the lift less the lift a least-squares line through the other
tested cards' lifts predicts for its colour, points and reward level (``reward_level``: a piece's
cells; a Level Up its steps, an Ambassador 2, as the bots count them; from the catalogue, so
n/a without one). The prediction is a weighted sum of the other cards' lifts, so the adjusted
interval carries their influences too. It is shown beside the raw lift, for reading; the flag
stays the excess's, whose false-positive rate the placebo runs measured.

Per reward piece the same: how often a completion gives it, and the lift of having gained it at
least once as a reward, its excess over the other pieces'.

Why not a logistic regression: with one indicator per card and strata of configuration, bot and
seat it has hundreds of parameters and separates on small runs; the stratified difference is the
linear-probability answer to the same question, exact in small strata and quick.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.fmt import NA, diff_interval, p_text, pct
from projectl_sim.analysis.rows import deal_labels, finished_seats, game_labels
from projectl_sim.analysis.stats import ALPHA, normal_interval, q_values, wilson
from projectl_sim.analysis.stats import distributions as distribution

# a card (or piece) completed (gained) by fewer seats than this, or missed by fewer, is not tested
MIN_SEATS = 10
FDR = ALPHA  # the false discovery rate of the flags
# Benjamini-Yekutieli: Benjamini-Hochberg made valid under any dependence between the tests (a
# card's excess and its peers' are negatively correlated: their lifts share games); plain BH
# flagged 4 of 30 placebo runs (outcomes shuffled between games). With the score test's p-values,
# 100 greedy runs of 150 games shuffled 10 times each: a flag in 4 of 1000 (0.4%), against 51
# (5.1%) with the interval's; 400 runs, once each: 3 (0.8%); the printed cards' runs flag only
# cards that differ over the 400 runs; the planted W12 +3 found in 28 of 30 runs
# (tools/card_flags.py; docs/reference/analysis.md)
FDR_METHOD = "by"
STRATA = ("config_id", "bot", "turn_order")

CARD_COLUMNS = [
    "card",
    "colour",
    "points",
    "reward",
    "reward_level",
    "puzzle_set",
    "provisional",
    "games",
    "taken",
    "take_rate",
    "take_low",
    "take_high",
    "completed",
    "completion_rate",
    "completion_low",
    "completion_high",
    "actions_mean",
    "actions_low",
    "actions_high",
    "points_per_action",
    "lift",
    "lift_low",
    "lift_high",
    "adjusted",
    "adjusted_low",
    "adjusted_high",
    "excess",
    "excess_low",
    "excess_high",
    "p_value",
    "q_value",
    "flag",
]
PIECE_COLUMNS = [
    "piece",
    "gained",
    "per_game",
    "seats_gaining",
    "lift",
    "lift_low",
    "lift_high",
    "excess",
    "excess_low",
    "excess_high",
    "p_value",
    "q_value",
    "flag",
]


def _seat_frame(seats: pd.DataFrame) -> pd.DataFrame:
    ok = finished_seats(seats).reset_index(drop=True)
    ok["_game"] = game_labels(ok)
    deal = deal_labels(ok)
    ok["_deal"] = deal.to_numpy() if deal is not None else ok["_game"]
    keys = [c for c in STRATA if c in ok]
    if "run" in ok:
        keys = ["run", *keys]
    ok["_stratum"] = ok.groupby(keys, sort=True, observed=True).ngroup().to_numpy()
    return ok


def _events_of(events: pd.DataFrame, kind: str) -> pd.DataFrame:
    return events[events["event"] == kind]


def _indicator(ok: pd.DataFrame, rows: pd.DataFrame, key: str) -> dict[str, np.ndarray]:
    """Return, per value of ``rows[key]``, a bool per seat row of ``ok``: the seat had one."""
    keys = ["run", "game_id", "seat"] if "run" in ok else ["game_id", "seat"]
    index = pd.MultiIndex.from_frame(ok[keys])
    out = {}
    for value, group in rows.groupby(key, sort=True, observed=True):
        hit = index.isin(pd.MultiIndex.from_frame(group[keys]))
        out[str(value)] = np.asarray(hit)
    return out


class _Lifts:
    """Stratified lifts of many indicators over one set of seat rows, with their influences."""

    def __init__(self, ok: pd.DataFrame) -> None:
        self.y = ok["win_share"].to_numpy(dtype=float)
        self.strata = ok["_stratum"].to_numpy()
        self.k = int(self.strata.max()) + 1 if len(self.strata) else 0
        self.size = np.bincount(self.strata, minlength=self.k).astype(float)
        self.sum_y = np.bincount(self.strata, weights=self.y, minlength=self.k)
        codes, self.clusters = np.unique(ok["_deal"].to_numpy(), return_inverse=True)
        self.c = len(codes)
        # each seat's win share less its stratum's mean: its residual when no card matters
        self.resid0 = self.y - (self.sum_y / np.maximum(self.size, 1))[self.strata]

    def lift(self, x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """Return the stratified difference of win shares (``x`` against not), its influence
        summed per deal (``lift - truth ~ sum of them``: the interval's), and the same influence
        with each seat's residual from its stratum's mean (the null's: the p-value's)."""
        s = self.strata
        n1 = np.bincount(s, weights=x, minlength=self.k)
        n0 = self.size - n1
        y1 = np.bincount(s, weights=x * self.y, minlength=self.k)
        y0 = self.sum_y - y1
        both = (n1 > 0) & (n0 > 0)
        w = np.where(both, n1 * n0 / np.where(both, n1 + n0, 1), 0.0)
        total = w.sum()
        if total <= 0:
            return np.nan, np.zeros(self.c), np.zeros(self.c)
        with np.errstate(invalid="ignore", divide="ignore"):
            m1 = np.where(both, y1 / n1, 0.0)
            m0 = np.where(both, y0 / n0, 0.0)
            share = w / total
            a = np.where(
                x > 0, share[s] / np.where(both, n1, 1)[s], -share[s] / np.where(both, n0, 1)[s]
            )
        a = np.where(both[s], a, 0.0)
        resid = self.y - np.where(x > 0, m1[s], m0[s])
        influence = np.bincount(self.clusters, weights=a * resid, minlength=self.c)
        null = np.bincount(self.clusters, weights=a * self.resid0, minlength=self.c)
        return float((share * (m1 - m0)).sum()), influence, null

    def se(self, influence: np.ndarray) -> float:
        c = self.c
        if c < 2:
            return np.nan
        return float(np.sqrt(c / (c - 1) * np.sum(influence**2)))


def _contrast(
    names: list[str],
    groups: list[str],
    indicators: dict[str, np.ndarray],
    lifts: _Lifts,
    covariates: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Return per name its lift and interval, and its excess over the others of its group (and,
    given ``covariates`` per name, its lift adjusted for them: ``_adjust``)."""
    rows = {}
    influence = {}
    null = {}
    for name in names:
        x = indicators.get(name)
        if x is None:
            rows[name] = {"tested": False}
            continue
        hits = int(x.sum())
        tested = hits >= MIN_SEATS and len(x) - hits >= MIN_SEATS
        lift, inf, inf0 = lifts.lift(x.astype(float))
        low, high = normal_interval(lift, lifts.se(inf))
        rows[name] = {
            "tested": tested and np.isfinite(lift),
            "lift": lift,
            "lift_low": low,
            "lift_high": high,
        }
        influence[name] = inf
        null[name] = inf0
    for group in sorted(set(groups)):
        members = [
            n for n, g in zip(names, groups, strict=True) if g == group and rows[n]["tested"]
        ]
        if len(members) < 2:
            for n in members:
                rows[n]["tested"] = False
            continue
        total_lift = sum(rows[n]["lift"] for n in members)
        total_inf = sum(influence[n] for n in members)
        total_null = sum(null[n] for n in members)
        m = len(members)
        for n in members:
            peers = (total_lift - rows[n]["lift"]) / (m - 1)
            inf = influence[n] - (total_inf - influence[n]) / (m - 1)
            excess = rows[n]["lift"] - peers
            se = lifts.se(inf)
            # the test's standard error is the null's (a score test): with few seats completing
            # a card, the residuals from its own completers' mean can all be near 0 (all won)
            # and the interval's error far too small (once z -32.7 for 12 completions)
            se0 = lifts.se(null[n] - (total_null - null[n]) / (m - 1))
            z = excess / se0 if se0 > 0 else np.nan
            low, high = normal_interval(excess, se)
            rows[n] |= {
                "excess": excess,
                "excess_low": low,
                "excess_high": high,
                "p_value": float(2 * distribution.norm_sf(abs(z))) if np.isfinite(z) else np.nan,
            }
    if covariates is not None:
        _adjust(rows, covariates, influence, lifts)
    out = pd.DataFrame.from_dict(rows, orient="index")
    for column in ("adjusted", "adjusted_low", "adjusted_high"):
        if covariates is not None and column not in out:
            out[column] = np.nan
    for column in ("lift", "lift_low", "lift_high", "excess", "excess_low", "excess_high"):
        if column not in out:
            out[column] = np.nan
    if "p_value" not in out:
        out["p_value"] = np.nan
    out["q_value"] = q_values(out["p_value"].to_numpy(dtype=float), FDR_METHOD)
    strong = (out["q_value"] < FDR) & (out["excess"] > 0)
    weak = (out["q_value"] < FDR) & (out["excess"] < 0)
    out["flag"] = np.where(strong, "strong", np.where(weak, "weak", ""))
    return out.drop(columns="tested")


def _adjust(
    rows: dict[str, dict[str, Any]],
    covariates: pd.DataFrame,
    influence: dict[str, np.ndarray],
    lifts: _Lifts,
) -> None:
    """Add to each tested name its lift adjusted for ``covariates`` (one row per name, numeric):
    its lift less the lift a least-squares line through the *other* tested names' lifts predicts
    from its covariates, with its 95% interval (the prediction is a weighted sum of the others'
    lifts, so its influence is the same sum of theirs: the interval counts the fit's noise)."""
    names = [
        n
        for n in covariates.index
        if rows.get(n, {}).get("tested") and covariates.loc[n].notna().all()
    ]
    design = np.column_stack([np.ones(len(names)), covariates.loc[names].to_numpy(dtype=float)])
    lift = np.array([rows[n]["lift"] for n in names])
    for i, name in enumerate(names):
        others = np.arange(len(names)) != i
        if others.sum() <= design.shape[1]:  # too few others to fit the line and see its noise
            continue
        weights = design[i] @ np.linalg.pinv(design[others])  # prediction = weights @ lifts
        adjusted = lift[i] - weights @ lift[others]
        inf = influence[name] - sum(
            w * influence[n] for w, n in zip(weights, np.array(names)[others], strict=True)
        )
        low, high = normal_interval(adjusted, lifts.se(inf))
        rows[name] |= {"adjusted": adjusted, "adjusted_low": low, "adjusted_high": high}


def card_strength(
    seats: pd.DataFrame, events: pd.DataFrame, catalogue: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Return per puzzle card its take and completion rates, actions from take to completion,
    points per action, and the win-rate lift of completing it (see the module), strongest first.

    ``catalogue`` (columns ``card``, ``colour``, ``points``, ``puzzle_set``, ``provisional``)
    adds the cards never taken, with zero takes; without it, the cards the events name.
    """
    ok = _seat_frame(seats)
    games = ok["_game"].nunique()
    keys = ["run", "game_id"] if "run" in ok else ["game_id"]
    done_games = ok[keys].drop_duplicates()
    ev = events.merge(done_games, on=keys)  # the finished games' events
    taken = _events_of(ev, "taken")
    completed = _events_of(ev, "completed")
    info_cols = ["card", "colour", "points", "puzzle_set", "provisional"]
    info = ev[ev["card"].notna()][info_cols].drop_duplicates("card")
    if catalogue is not None:
        info = pd.concat([info, catalogue[info_cols]]).drop_duplicates("card")
    for column in ("reward", "reward_level"):  # the catalogue's (the events do not carry them)
        known = catalogue is not None and column in catalogue
        info[column] = info["card"].map(catalogue.set_index("card")[column]) if known else np.nan
    info = info.sort_values(["colour", "card"], ignore_index=True)
    if info.empty:
        return pd.DataFrame(columns=CARD_COLUMNS)
    take_games = taken.drop_duplicates([*keys, "card"]).groupby("card").size()
    takes = taken.groupby("card").size()
    completions = completed.groupby("card").size()
    out = info.set_index("card")
    out["games"] = games
    out["taken"] = takes.reindex(out.index).fillna(0).astype(int)
    in_games = take_games.reindex(out.index).fillna(0).to_numpy()
    out["take_rate"] = in_games / games if games else np.nan
    out["take_low"], out["take_high"] = wilson(in_games, np.full(len(out), games))
    out["completed"] = completions.reindex(out.index).fillna(0).astype(int)
    n = out["taken"].to_numpy(dtype=float)
    out["completion_rate"] = np.where(n > 0, out["completed"] / np.where(n > 0, n, 1), np.nan)
    out["completion_low"], out["completion_high"] = wilson(out["completed"].to_numpy(), n)
    means = completed.groupby("card")["actions"].agg(["mean", "std", "count"])
    means = means.reindex(out.index)
    half = (
        distribution.t_ppf(0.975, np.maximum(means["count"] - 1, 1))
        * means["std"]
        / np.sqrt(means["count"])
    )
    half = half.where(means["count"] >= 2)
    out["actions_mean"] = means["mean"]
    out["actions_low"] = means["mean"] - half
    out["actions_high"] = means["mean"] + half
    out["points_per_action"] = out["points"] / out["actions_mean"].where(out["actions_mean"] > 0)
    lifts = _Lifts(ok)
    indicators = _indicator(ok, completed, "card")
    names = list(out.index)
    # the adjusted lift's covariates: colour (black or not), points and the reward's level
    covariates = pd.DataFrame(
        {
            "black": (out["colour"] == "black").astype(float),
            "points": out["points"].astype(float),
            "reward_level": pd.to_numeric(out["reward_level"], errors="coerce"),
        },
        index=out.index,
    )
    tested = _contrast(names, list(out["colour"].astype(str)), indicators, lifts, covariates)
    out = out.join(tested)
    out = out.reset_index().rename(columns={"index": "card"})
    return _ordered(out, CARD_COLUMNS)


def piece_strength(seats: pd.DataFrame, events: pd.DataFrame) -> pd.DataFrame:
    """Return per reward piece: how often completions gave it, and the win-rate lift of having
    gained it at least once (and its excess over the other pieces'), strongest first."""
    ok = _seat_frame(seats)
    games = ok["_game"].nunique()
    keys = ["run", "game_id"] if "run" in ok else ["game_id"]
    ev = events.merge(ok[keys].drop_duplicates(), on=keys)
    rewards = _events_of(ev, "reward")
    rewards = rewards[rewards["piece"].notna()]
    if rewards.empty:
        return pd.DataFrame(columns=PIECE_COLUMNS)
    counts = rewards.groupby("piece").size()
    seats_gaining = rewards.drop_duplicates([*keys, "seat", "piece"]).groupby("piece").size()
    out = pd.DataFrame({"gained": counts})
    out["per_game"] = out["gained"] / games
    out["seats_gaining"] = seats_gaining.reindex(out.index).fillna(0).astype(int)
    names = list(out.index)
    tested = _contrast(names, ["piece"] * len(names), _indicator(ok, rewards, "piece"), _Lifts(ok))
    out = out.join(tested).reset_index().rename(columns={"index": "piece"})
    return _ordered(out, PIECE_COLUMNS)


def _ordered(out: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    for column in columns:
        if column not in out:
            out[column] = np.nan
    out = out.sort_values(["excess", "lift"], ascending=False, na_position="last")
    return out[list(columns)].reset_index(drop=True)


def flagged(strength: pd.DataFrame) -> pd.DataFrame:
    """Return the rows of ``card_strength`` or ``piece_strength`` that are flagged."""
    return strength[strength["flag"] != ""].reset_index(drop=True)


__all__ = ["CARD_COLUMNS", "PIECE_COLUMNS", "card_strength", "flagged", "piece_strength"]


# -- text ------------------------------------------------------------------------------------------
# what is flagged, and the verdict lines, are the findings table's (``findings.strength_findings``):
# the text prints its rows beside the take and completion counts, and decides nothing


def _points(d: float, low: float, high: float) -> str:
    """Return a difference in points without the unit the header gives: ``+3.1 [-1.0, +7.2]``."""
    return diff_interval("rate", d, low, high).replace(" pts", "", 1)


def _cell(found: dict[tuple[str, str], Any], name: object, metric: str) -> str:
    f = found.get((str(name), metric))
    if f is None:
        return f"{_points(np.nan, np.nan, np.nan):<21}"
    return f"{_points(f.estimate, f.ci_low, f.ci_high):<21}"


def _rows_of(found: pd.DataFrame, question: str) -> tuple[Any, dict[tuple[str, str], Any]]:
    """Return a question's headline finding and its other rows by (subject, metric)."""
    mine = found[found["question"] == question]
    head = next(mine[mine["headline"]].itertuples(index=False))
    rows = {(r.subject, r.metric): r for r in mine[~mine["headline"]].itertuples(index=False)}
    return head, rows


def strength_lines(
    cards: pd.DataFrame, pieces: pd.DataFrame, games: int, found: pd.DataFrame | None = None
) -> list[str]:
    """Return the lines ``projectl-sim cards`` prints for the two strength tables: their counts
    and rates, and the findings rows of their lifts, flags and verdicts (``found``: the
    ``findings.strength_table`` of the two, made here when not given)."""
    import textwrap

    from projectl_sim.analysis.findings import strength_flag, strength_table

    found = strength_table(cards, pieces, games) if found is None else found
    adjusted = "adjusted" in cards and bool(cards["adjusted"].notna().any())
    lines = [f"== Card strength ({games} finished games) =="]
    lines += textwrap.wrap(
        "col: w white, b black; rwd: the reward's level (a piece's cells; a Level Up its steps, an "
        "Ambassador 2); acts: the seat's actions from take to completion. "
        "lift: win share of the seats that completed the card minus the others', within the same "
        "configuration, bot and turn order; it includes what the card is worth, its points and "
        "reward. "
        + (
            "adjusted: the lift less what the other cards' lifts predict for its colour, points "
            "and reward level (a least-squares line): what the card does beyond its worth. "
            if adjusted
            else "adjusted: n/a (the run's catalogue, which names the rewards, could not be read). "
        )
        + f"flag: the lift's excess over its colour's other cards != 0 after Benjamini-Yekutieli "
        f"at {FDR:.0%} (q); 95% intervals",
        100,
    )
    head = (
        f"{'card':<6} {'col':<3} {'pts':>3} {'rwd':>3} {'taken':>5} {'done':>4} {'acts':>4} "
        f"{'pts/act':>7} {'lift, pts [95%]':<21} {'adjusted [95%]':<21} {'q':>6} flag"
    )
    lines.append(head)
    verdict, rows = _rows_of(found, "card")
    provisional = False
    for row in cards.itertuples(index=False):
        mark = "*" if row.provisional is True else ""
        provisional = provisional or bool(mark)
        actions = NA if not np.isfinite(row.actions_mean) else f"{row.actions_mean:.1f}"
        ppa = NA if not np.isfinite(row.points_per_action) else f"{row.points_per_action:.2f}"
        excess = rows[(str(row.card), "excess")]
        level = NA if not np.isfinite(row.reward_level) else f"{row.reward_level:.0f}"
        lines.append(
            f"{str(row.card) + mark:<6} {str(row.colour)[:1]:<3} {int(row.points):>3} {level:>3} "
            f"{pct(row.take_rate):>5} {pct(row.completion_rate):>4} {actions:>4} {ppa:>7} "
            f"{_cell(rows, row.card, 'lift')} {_cell(rows, row.card, 'adjusted')} "
            f"{p_text(excess.q):>6} {strength_flag(excess)}".rstrip()
        )
    if provisional:
        lines.append("* provisional puzzle data (an expansion set not yet published)")
    lines += textwrap.wrap(verdict.verdict, 100)
    if len(pieces):
        verdict, rows = _rows_of(found, "piece")
        lines += ["", "== Reward piece strength (lift of having gained it as a reward) =="]
        lines.append(
            f"{'piece':<10} {'gained':>7} {'/game':>6} {'lift, pts [95%]':<21} "
            f"{'excess [95%]':<21} {'q':>6} flag"
        )
        for row in pieces.itertuples(index=False):
            excess = rows[(str(row.piece), "excess")]
            lines.append(
                f"{row.piece!s:<10} {int(row.gained):>7} {row.per_game:>6.2f} "
                f"{_cell(rows, row.piece, 'lift')} {_cell(rows, row.piece, 'excess')} "
                f"{p_text(excess.q):>6} {strength_flag(excess)}".rstrip()
            )
        lines += textwrap.wrap(verdict.verdict, 100)
    return lines


def verdict_line(strength: pd.DataFrame, what: str, games: int) -> str:
    """Return the verdict of a card (``what`` ``card``) or piece strength table: its headline
    finding's (``findings.strength_findings``)."""
    from projectl_sim.analysis.findings import strength_findings

    return strength_findings(strength, what, games)[0].verdict


def cards_text(run: object) -> str:
    """Return what ``projectl-sim cards RUN`` prints (``run``: a ``Run`` or its folder)."""
    from projectl_sim.analysis.data import Run, load_run
    from projectl_sim.analysis.failures import catalogue_cards
    from projectl_sim.errors import UsageError

    run = run if isinstance(run, Run) else load_run(run)  # type: ignore[arg-type]
    events = run.events
    if events is None:
        raise UsageError(
            f"{run.path}: no events table (the run was played with --tables core, or by an "
            "older version): play it again with the default --tables all"
        )
    games = int(finished_seats(run.seats)["game_id"].nunique())
    if not games:
        raise UsageError(f"{run.path}: no finished game to read")
    cards = card_strength(run.seats, events, catalogue_cards(run.manifest))
    pieces = piece_strength(run.seats, events)
    return "\n".join(strength_lines(cards, pieces, games))


__all__ += ["cards_text", "strength_lines", "verdict_line"]
