"""How games flow, from a run's ``rounds`` table: lead changes, decisiveness, margins, comebacks.

The ``rounds`` table holds each seat's score at the end of every round (victory-pile points; the
last round's row is the final score, after Finishing Touches and the unfinished penalty). Per game
(``game_flow``):

- ``leader``: the seat with the highest score at a round's end (none when several share it);
  ``lead_changes`` counts the times the leader differs from the previous round's leader (rounds
  without a single leader are skipped).
- ``decisive_round``: the round from which the final winner led for good: it was the leader (a
  shared winner: the leaders were all winners) at the end of that round and of every later one;
  at the last round the winner leads by definition (a tie-break decided it). ``decided_share`` is
  that round over the game's rounds: near 0, decided at once; 1, decided in the last round.
- ``comeback``: the winner was behind (below the best score) at the end of the middle round
  (``ceil(rounds / 2)``, games of two rounds or more); ``max_deficit``: the most points it was
  behind at any round's end before the last.
- ``margin``: the ``games`` table's (the winner's score minus the best other's).

``flow_summary`` gives per configuration the means with 95% cluster-robust intervals (clusters:
deals, whose rotations are not independent games) and the comeback rate with its Wilson
interval on the effective size; ``margin_distribution`` the margin's quantiles. Solo games (one
seat) have no lead to change and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis.data import Run
from projectl_sim.analysis.rows import deal_labels, finished_games, game_keys
from projectl_sim.analysis.stats import clustered_rate, normal_interval
from projectl_sim.analysis.stats.clusters import Moments, mean_of, rate_of

FLOW_BY = ("players", "lineup", "expansions", "switches")
GAME_FLOW_COLUMNS = [
    "rounds",
    "lead_changes",
    "decisive_round",
    "decided_share",
    "comeback",
    "max_deficit",
    "margin",
]


def _winners(games: pd.DataFrame) -> pd.DataFrame:
    keys = game_keys(games)
    w = games[[*keys, "winners"]].copy()
    w["seat"] = w["winners"].fillna("").str.split(",")
    w = w.explode("seat")
    w = w[w["seat"].astype(str).str.len() > 0]
    w["seat"] = w["seat"].astype(int)
    return w[[*keys, "seat"]].assign(is_winner=True)


def game_flow(rounds: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Return one row per finished game (two seats or more): the game's configuration columns
    and its flow measures (see the module)."""
    keys = game_keys(games)
    ok = finished_games(games)
    ok = ok[ok["players"] > 1]
    meta = [c for c in ("config_id", "seed", "deal", *FLOW_BY) if c in ok]
    base = ok[[*keys, *meta, "margin"]]
    if ok.empty or rounds.empty:
        return pd.DataFrame(columns=[*keys, *meta, *GAME_FLOW_COLUMNS])
    r = rounds.merge(ok[keys], on=keys)
    r = r.merge(_winners(ok), on=[*keys, "seat"], how="left")
    r["is_winner"] = r["is_winner"].fillna(False).astype(bool)
    r = r.sort_values([*keys, "round", "seat"], ignore_index=True)
    at = [*keys, "round"]
    grouped = r.groupby(at, sort=False)
    r["best"] = grouped["score"].transform("max")
    top = r["score"] == r["best"]
    r["top_winner"] = top & r["is_winner"]
    r["top_other"] = top & ~r["is_winner"]
    r["winner_score"] = r["score"].where(r["is_winner"])
    per = (
        r.assign(top=top)
        .groupby(at, sort=False)
        .agg(
            best=("best", "first"),
            n_top=("top", "sum"),
            top_winner=("top_winner", "any"),
            top_other=("top_other", "any"),
            winner_score=("winner_score", "max"),
            final=("final", "any"),
        )
        .reset_index()
    )
    first_top = r[top].drop_duplicates(at)[[*at, "seat"]].rename(columns={"seat": "top_seat"})
    per = per.merge(first_top, on=at, how="left")
    per["leader"] = np.where(per["n_top"] == 1, per["top_seat"], -1)
    per["winner_leads"] = per["final"] | (per["top_winner"] & ~per["top_other"])
    per["deficit"] = (per["best"] - per["winner_score"]).where(~per["final"])
    out = []
    for key, g in per.groupby(keys, sort=True):
        n = len(g)
        leads = g["winner_leads"].to_numpy()
        behind = np.flatnonzero(~leads)
        decisive = int(g["round"].iloc[behind[-1] + 1]) if len(behind) else int(g["round"].iloc[0])
        leaders = g["leader"].to_numpy()
        single = leaders[leaders >= 0]
        changes = int(np.count_nonzero(single[1:] != single[:-1])) if len(single) > 1 else 0
        last = int(g["round"].iloc[-1])
        mid = (n + 1) // 2
        comeback = bool(not leads[mid - 1] and g["deficit"].iloc[mid - 1] > 0) if n >= 2 else None
        deficit = g["deficit"].max()
        key = key if isinstance(key, tuple) else (key,)
        out.append(
            dict(zip(keys, key, strict=True))
            | {
                "rounds": last,
                "lead_changes": changes,
                "decisive_round": decisive,
                "decided_share": decisive / last if last else np.nan,
                "comeback": comeback,
                "max_deficit": float(deficit) if pd.notna(deficit) else 0.0,
            }
        )
    flow = pd.DataFrame(out)
    return base.merge(flow, on=keys)[[*keys, *meta, *GAME_FLOW_COLUMNS]]


def run_flow(run: Run) -> pd.DataFrame | None:
    """Return ``game_flow`` of a run (None without a ``rounds`` table), its rounds read a
    window of games at a time: the same rows as from the whole table, without holding it."""
    if not run.has("rounds"):
        return None
    games = run.games
    ids = games["game_id"]
    parts = []
    for rounds in run.scan("rounds", ROUND_COLUMNS):
        first, last = rounds["game_id"].min(), rounds["game_id"].max()
        parts.append(game_flow(rounds, games[(ids >= first) & (ids <= last)]))
    if not parts:
        return game_flow(pd.DataFrame(columns=ROUND_COLUMNS), games)
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


# the columns of the rounds table game_flow reads
ROUND_COLUMNS = ["game_id", "round", "seat", "score", "final"]


_FLOW_MEANS = ("lead_changes", "decisive_round", "decided_share", "max_deficit", "margin")


def flow_summary(flow: pd.DataFrame, by: Sequence[str] = FLOW_BY) -> pd.DataFrame:
    """Return per configuration (``by``): games, and the mean lead changes, decisive round,
    decided share, max deficit and margin with 95% intervals, and the comeback rate with its
    Wilson interval."""
    by = [c for c in by if c in flow]
    if flow.empty:
        return pd.DataFrame(columns=[*by, "games"])
    return flow_summary_of(flow_moments(flow, by), by)


def flow_moments(flow: pd.DataFrame, by: list[str]) -> dict[tuple, dict[str, Moments]]:
    """Return per configuration (``by``, the columns ``flow`` has) the moments of each flow
    quantity (nan left out) and of ``comeback``, clustered by deal: a window's add to
    another's when they hold different deals."""
    out = {}
    for key, g in flow.groupby(by, sort=True, observed=True):
        labels = deal_labels(g)
        codes = np.arange(len(g)) if labels is None else pd.factorize(labels.to_numpy())[0]
        held = {}
        for column in (*_FLOW_MEANS, "comeback"):
            x = g[column].to_numpy(dtype=float)
            keep = ~np.isnan(x)
            held[column] = Moments.of(
                np.stack([x[keep], np.ones(int(keep.sum()))], axis=1),
                pd.factorize(codes[keep])[0],
            )
        held["games"] = Moments.of(np.ones((len(g), 1)))
        out[key if isinstance(key, tuple) else (key,)] = held
    return out


def flow_summary_of(moments: dict[tuple, dict[str, Moments]], by: list[str]) -> pd.DataFrame:
    """Return ``flow_summary`` from ``flow_moments``."""
    rows = []
    for key in sorted(moments):
        held = moments[key]
        row = dict(zip(by, key, strict=True)) | {"games": held["games"].n}
        for column in _FLOW_MEANS:
            mean, se, _, _ = mean_of(held[column])
            low, high = normal_interval(mean, se)
            row |= {column: mean, f"{column}_low": low, f"{column}_high": high}
        rate, low, high, _ = rate_of(held["comeback"])
        row |= {"comeback_rate": rate, "comeback_low": low, "comeback_high": high}
        rows.append(row)
    return pd.DataFrame(rows)


def margin_distribution(
    flow: pd.DataFrame, by: Sequence[str] = FLOW_BY, quantiles: Sequence[float] = (0.1, 0.5, 0.9)
) -> pd.DataFrame:
    """Return per configuration the final margin's quantiles, and the share of games won by at
    most one point (close games)."""
    by = [c for c in by if c in flow]
    if flow.empty:
        return pd.DataFrame(columns=[*by, "games"])
    rows = []
    for key, g in flow.groupby(by, sort=True, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        m = g["margin"].astype(float).dropna()
        row = dict(zip(by, key, strict=True)) | {"games": len(m)}
        for q in quantiles:
            row[f"margin_p{round(q * 100)}"] = float(m.quantile(q)) if len(m) else np.nan
        rate, low, high, _ = clustered_rate((m <= 1).astype(float), deal_labels(g.loc[m.index]))
        row |= {"close_share": rate, "close_low": low, "close_high": high}
        rows.append(row)
    return pd.DataFrame(rows)


__all__ = [
    "flow_moments",
    "flow_summary",
    "flow_summary_of",
    "game_flow",
    "margin_distribution",
    "run_flow",
]


def flow_lines(table: pd.DataFrame) -> list[str]:
    """Return the ``summary`` lines of the game flow of a ``flow_summary`` table: one per
    configuration."""
    if table.empty:
        return []
    lines = [
        "== Game flow (from the rounds table; 95% intervals clustered by deal) ==",
        "decided: the round from which the winner led for good, as a share of the rounds; "
        "comeback: the winner was behind at half time",
    ]
    by = [c for c in FLOW_BY if c in table and table[c].nunique() > 1] or ["players"]
    for row in table.to_dict("records"):
        name = ", ".join(f"{row[c]} players" if c == "players" else str(row[c]) for c in by)
        lines.append(
            f"{name}: {row['games']} games, lead changes {row['lead_changes']:.2f} "
            f"[{row['lead_changes_low']:.2f}, {row['lead_changes_high']:.2f}], decided at "
            f"{row['decided_share']:.0%} [{row['decided_share_low']:.0%}, "
            f"{row['decided_share_high']:.0%}] of the game, comebacks {row['comeback_rate']:.0%} "
            f"[{row['comeback_low']:.0%}, {row['comeback_high']:.0%}], margin "
            f"{row['margin']:.1f} [{row['margin_low']:.1f}, {row['margin_high']:.1f}]"
        )
    return lines


__all__ += ["flow_lines"]
