"""Head-to-head results, the bots' ratings with honest intervals (Plackett-Luce), the ladder.

**Pairwise decomposition.** A game of N seats is read as the N(N-1)/2 two-player matches between
its seats: the better ``rank`` wins the match, equal ranks (a shared win, or two seats tied for a
place) count half a win to each. Pairs of seats played by the same bot say nothing about bots and
are dropped; failed and solo games are left out. The matches of one game are not independent:
``pair_results`` counts games, not matches.

**Plackett-Luce** (``rate_bots``, the one rating): the order of finish of every game, with
intervals from the profile likelihood (``orders`` module). It uses each game once, as the
independent observation it is, so its likelihood intervals are honest for games of any size;
under it the pairwise matches follow Bradley-Terry with the same strengths (at 2 players it is
Bradley-Terry).

**One scale.** Ratings are on the Elo scale (``400 / ln 10`` times theta: 400 points are 10:1
odds) with ``RATING_ANCHOR`` (greedy, the rulebook's reference player) at 0 whenever it is
rated; a run without it has the mean of the rated group at 0. ``rate_bots`` names the anchor in
its ``scale`` column, and every table and chart of ratings prints it.

**No wins, no losses.** The maximum likelihood is finite only when every group of bots has
finished ahead of, and behind, the others at least once (the "finished ahead of" graph is
strongly connected). A bot that never won a match has no finite rating: it is reported as
``-inf`` with ``note`` "no wins: unbounded below" (never lost: ``+inf``, "no losses: unbounded
above"); in general the ratings are fitted within the main strongly connected group and the
other groups placed above or below it without bound.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis import orders as pl
from projectl_sim.analysis.rows import deal_labels, finished_seats, game_keys
from projectl_sim.analysis.stats import clustered_rate, wilson

ELO = 400 / math.log(10)

PAIR_COLUMNS = ["game_id", "players", "bot", "opponent", "score"]
RATING_ANCHOR = "greedy"  # the bot rated 0 whenever it is rated
PL_COLUMNS = ["bot", "rating", "ci_low", "ci_high", "games", "wins", "match_score", "note"]
PAIR_RESULT_COLUMNS = [
    "players",
    "bot",
    "opponent",
    "games",
    "score",
    "rate",
    "ci_low",
    "ci_high",
]
LADDER_COLUMNS = [
    "bot",
    "param",
    "low",
    "high",
    "games",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
]


def pairwise(seats: pd.DataFrame) -> pd.DataFrame:
    """Return one row per pair of seats with different bots in a game, from each side.

    ``score`` is 1 when ``bot`` ranked above ``opponent``, 0.5 on equal ranks, 0 below; each
    match appears twice (once from each side), so a bot's rows hold all its matches. The tables
    of several runs (a ``run`` column) keep it: a game is (``run``, ``game_id``).
    """
    keys = game_keys(seats)
    ok = finished_seats(seats)
    ok = ok.loc[ok["players"] > 1, [*keys, "seat", "players", "bot", "rank"]]
    # every ordered pair of seats of a game: a self-join on the game
    both = ok.merge(ok, on=[*keys, "players"], suffixes=("", "_o"))
    both = both[(both["seat"] != both["seat_o"]) & (both["bot"] != both["bot_o"])]
    ahead = both["rank"] < both["rank_o"]
    level = both["rank"] == both["rank_o"]
    out = pd.DataFrame(
        {
            **{k: both[k] for k in keys},
            "players": both["players"],
            "bot": both["bot"],
            "opponent": both["bot_o"],
            "score": np.where(ahead, 1.0, np.where(level, 0.5, 0.0)),
        }
    )
    return out.sort_values([*keys, "bot", "opponent"], kind="stable", ignore_index=True)


def head_to_head(seats: pd.DataFrame) -> pd.DataFrame:
    """Return per (bot, opponent): matches, wins (ties half), win rate and its Wilson interval."""
    pairs = pairwise(seats)
    columns = ["bot", "opponent", "matches", "wins", "win_rate", "ci_low", "ci_high"]
    if pairs.empty:
        return pd.DataFrame(columns=columns)
    out = (
        pairs.groupby(["bot", "opponent"], sort=True)
        .agg(matches=("score", "size"), wins=("score", "sum"))
        .reset_index()
    )
    out["win_rate"] = out["wins"] / out["matches"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["matches"].to_numpy())
    return out[columns]


def head_to_head_matrix(seats: pd.DataFrame) -> pd.DataFrame:
    """Return the win rate of each row bot against each column bot (nan where they never met)."""
    h2h = head_to_head(seats)
    if h2h.empty:
        return pd.DataFrame()
    bots = sorted(set(h2h["bot"]) | set(h2h["opponent"]), key=natural_key)
    matrix = h2h.pivot(index="bot", columns="opponent", values="win_rate")
    return matrix.reindex(index=bots, columns=bots)


def natural_key(spec: str) -> tuple[tuple[int, float | str], ...]:
    """Return a sort key ordering bot specs with numbers by value (``iterations=16`` before 128)."""
    parts = re.split(r"(\d+(?:\.\d+)?)", spec)
    return tuple((0, float(p)) if i % 2 else (1, p) for i, p in enumerate(parts))


def _groups(ahead: np.ndarray, size: np.ndarray, anchor: int | None) -> np.ndarray:
    """Return each bot's place to the main strongly connected group: 0 in it, +1, -1 or nan.

    ``ahead[i, j]``: bot i finished ahead of bot j at least once. The main group holds
    ``anchor``, else it is the largest (then the one with the most ``size``: matches or games).
    A bot outside it is +1 when it finished ahead of the group (through others) and never
    behind, -1 the other way round, nan when they are not connected at all.
    """
    # scipy.sparse (0.05 s of CPU to import) only where bots are rated, not in every command
    # that imports this module
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components, shortest_path

    k = len(ahead)
    _, labels = connected_components(csr_matrix(ahead), directed=True, connection="strong")
    if anchor is not None:
        main = labels[anchor]
    else:
        groups = np.unique(labels)
        main = max(groups, key=lambda g: (np.sum(labels == g), size[labels == g].sum(), -g))
    hops = shortest_path(csr_matrix(ahead), unweighted=True)  # inf: never reached
    member = np.flatnonzero(labels == main)[0]
    place = np.full(k, np.nan)
    for b in range(k):
        if labels[b] == main:
            place[b] = 0
        elif np.isfinite(hops[b, member]):
            place[b] = 1
        elif np.isfinite(hops[member, b]):
            place[b] = -1
    return place


def _notes(ahead: np.ndarray, place: np.ndarray, bots: Sequence[str]) -> list[str]:
    """Return why each bot outside the main group has no finite rating ("" inside it)."""
    notes = []
    for b in range(len(bots)):
        won = bool(ahead[b].any())
        lost = bool(ahead[:, b].any())
        if place[b] == 0:
            notes.append("")
        elif place[b] == 1:
            notes.append(
                "no losses: unbounded above"
                if not lost
                else "never finished behind the rated group: unbounded above"
            )
        elif place[b] == -1:
            notes.append(
                "no wins: unbounded below"
                if not won
                else "never finished ahead of the rated group: unbounded below"
            )
        else:
            notes.append("never met the rated group: not comparable")
    return notes


def _placed(place: np.ndarray) -> np.ndarray:
    """Return the rating of bots outside the main group: +inf above, -inf below, nan apart."""
    return np.where(place == 1, np.inf, np.where(place == -1, -np.inf, np.nan))


def _best_first(table: pd.DataFrame) -> pd.DataFrame:
    """Return a ratings table sorted best first (+inf first, not comparable last)."""
    return table.sort_values(
        ["rating", "bot"], ascending=[False, True], na_position="last", ignore_index=True
    )


def plackett_luce(
    seats: pd.DataFrame, *, anchor: str | None = None, level: float = 0.95
) -> pd.DataFrame:
    """Return Plackett-Luce ratings (Elo scale) with profile likelihood intervals, best first.

    The joint rating over every finished game of two or more seats (whatever the table size and
    line-up): ``bot``, ``rating`` and its ``ci_low``/``ci_high`` (``level``, 95%, profile
    likelihood with the other strengths refitted), ``games`` played, ``wins`` (sum of
    ``win_share``), ``match_score`` (share of its pairwise match points) and ``note`` (why a
    rating is infinite: "no wins: unbounded below", ...). Assumes the model (see the
    ``orders`` module) and independent games; ties count every order of the tied seats
    with equal weight. Empty when no game had two different bots.
    """
    orders = pl.orders_of(seats)
    if anchor is not None and anchor not in orders.bots and len(orders.events()[0]):
        bots = ", ".join(orders.bots)
        raise ValueError(f"anchor {anchor!r} is not one of the rated bots ({bots})")
    return _plackett_luce(orders, seats, anchor, level)


def _plackett_luce(
    orders: pl.Orders, seats: pd.DataFrame, anchor: str | None, level: float
) -> pd.DataFrame:
    bots = orders.bots
    chosen, risk, weight = orders.events()
    if len(chosen) == 0:
        return pd.DataFrame(columns=PL_COLUMNS)
    k = len(bots)
    ahead = pl.ahead_of(chosen, risk, weight, k)
    ok = finished_seats(seats)
    ok = ok[ok["players"] > 1]
    games = ok.drop_duplicates([*game_keys(ok), "bot"])["bot"].value_counts()
    games = games.reindex(bots).fillna(0).to_numpy()
    at = bots.index(anchor) if anchor is not None else None
    place = _groups(ahead, games.astype(float), at)
    inside = place == 0
    rating = _placed(place)
    low, high = rating.copy(), rating.copy()
    idx = np.flatnonzero(inside)
    if len(idx) > 1:
        c, r, w = orders.events(inside)
        sub = {b: i for i, b in enumerate(idx)}
        c = np.array([sub[x] for x in c], dtype=int)
        r = r[:, idx]
        sub_anchor = sub[at] if at is not None else None
        gauge = pl.gauge_of(len(idx), sub_anchor)[None, :]
        theta, log_lik = pl.fit(c, r, w, gauge, np.zeros(1))
        for i, b in enumerate(idx):
            rating[b] = ELO * theta[i]
            if i == sub_anchor:
                low[b] = high[b] = 0.0
                continue
            lo, hi = pl.profile_interval(c, r, w, theta, log_lik, i, sub_anchor, level)
            low[b], high[b] = ELO * lo, ELO * hi
    elif len(idx) == 1:  # the reference the others are placed against, nothing to estimate
        rating[idx] = 0.0
        low[idx] = high[idx] = np.nan
    h2h = pairwise(seats).groupby("bot")["score"].mean().reindex(bots)
    out = pd.DataFrame(
        {
            "bot": bots,
            "rating": rating,
            "ci_low": low,
            "ci_high": high,
            "games": games.astype(int),
            "wins": ok.groupby("bot")["win_share"].sum().reindex(bots).fillna(0).to_numpy(),
            "match_score": h2h.to_numpy(),
            "note": _notes(ahead, place, bots),
        }
    )
    return _best_first(out)


def rate_bots(seats: pd.DataFrame, anchor: str = RATING_ANCHOR) -> pd.DataFrame:
    """Return the bots' ratings on the one scale: ``plackett_luce`` with ``anchor`` at 0 when it
    is rated (else the rated group's mean), and ``scale`` naming it (``Elo, greedy = 0``)."""
    orders = pl.orders_of(seats)
    at = anchor if anchor in orders.bots else None
    out = _plackett_luce(orders, seats, at, 0.95)
    out["scale"] = f"Elo, {at} = 0" if at is not None else "Elo, mean = 0"
    return out


def pair_results(seats: pd.DataFrame, by: Sequence[str] = ("players",)) -> pd.DataFrame:
    """Return each pair of bots' results against each other, per group (default: player count).

    Per (group, bot, opponent), from each side: ``games`` in which the two met, ``score`` (per
    game, the bot's mean match points against that opponent: 1 ahead, 0.5 level, 0 behind;
    summed), ``rate`` = score / games and its 95% Wilson interval on games (not on matches, which
    share a game), widened by the design effect when rotations of one deal cluster results.
    Opponents are not pooled: each row is one pair. Assumes independent deals.
    """
    by = list(by)
    pairs = pairwise(seats)
    if pairs.empty:
        return pd.DataFrame(columns=[*by, *PAIR_RESULT_COLUMNS[1:]])
    keys = game_keys(pairs)
    meta = finished_seats(seats).drop_duplicates(keys).set_index(keys)
    extra = [c for c in dict.fromkeys([*by, "config_id", "deal", "seed"]) if c not in keys]
    per_game = pairs.groupby([*keys, "bot", "opponent"], sort=True)["score"].mean()
    per_game = per_game.reset_index().join(meta[extra], on=keys)
    rows = []
    for key, group in per_game.groupby([*by, "bot", "opponent"], sort=True, observed=True):
        rate, low, high, _ = clustered_rate(group["score"], deal_labels(group))
        rows.append(
            dict(zip([*by, "bot", "opponent"], key, strict=True))
            | {
                "games": len(group),
                "score": float(group["score"].sum()),
                "rate": rate,
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows, columns=[*by, "bot", "opponent", *PAIR_RESULT_COLUMNS[3:]])


def bot_param(spec: str, param: str, default: float | None = None) -> tuple[str, float | None]:
    """Return a bot spec's name and the value of one numeric parameter (``default`` if unset).

    A spec names only the parameters that differ from the bot's defaults (its ``repr``), so an
    unset one is the bot's default: pass it (``MCTSBot.params["iterations"][0]``); the analysis
    does not import the bots.
    """
    name, _, rest = spec.partition(":")
    found = re.search(rf"(?:^|,){re.escape(param)}=([^,]+)", rest)
    if found:
        try:
            return name, float(found.group(1))
        except ValueError:
            return name, None
    return name, default


def skill_ladder(
    seats: pd.DataFrame,
    bot: str = "mcts",
    param: str = "iterations",
    default: float | None = None,
) -> pd.DataFrame:
    """Return how often the larger budget wins each two-seat match-up of one bot vs itself.

    A ladder run plays line-ups ``mcts:iterations=N,mcts:iterations=2N`` (two seats, seats
    rotated): each step of the ladder is one such pair of budgets. Per pair (``low``, ``high``):
    games, wins of the higher budget (sum of ``win_share``), its win rate and Wilson interval.
    A rate above 0.5 whose interval leaves out 0.5 means the doubled budget still buys strength.
    A spec without ``param`` plays the bot's default budget: games with one are read only when
    ``default`` gives it.
    """
    ok = finished_seats(seats)
    ok = ok[ok["players"] == 2]
    rows = []
    for _, game in ok.groupby(game_keys(ok), sort=True):
        specs = game["bot"].tolist()
        parsed = [bot_param(s, param, default) for s in specs]
        if any(name != bot or value is None for name, value in parsed):
            continue
        values = [value for _, value in parsed]
        if values[0] == values[1]:
            continue
        hi = int(np.argmax(values))
        rows.append((min(values), max(values), float(game["win_share"].iloc[hi])))
    if not rows:
        return pd.DataFrame(columns=LADDER_COLUMNS)
    frame = pd.DataFrame(rows, columns=["low", "high", "share"])
    out = (
        frame.groupby(["low", "high"], sort=True)
        .agg(games=("share", "size"), wins=("share", "sum"))
        .reset_index()
    )
    out["win_rate"] = out["wins"] / out["games"]
    out["ci_low"], out["ci_high"] = wilson(out["wins"].to_numpy(), out["games"].to_numpy())
    out["bot"] = bot
    out["param"] = param
    return out[LADDER_COLUMNS]
