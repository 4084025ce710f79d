"""Head-to-head results, ratings with honest intervals (Plackett-Luce, Bradley-Terry), the ladder.

**Pairwise decomposition.** A game of N seats is read as the N(N-1)/2 two-player matches between
its seats: the better ``rank`` wins the match, equal ranks (a shared win, or two seats tied for a
place) count half a win to each. Pairs of seats played by the same bot say nothing about bots and
are dropped; failed and solo games are left out. The matches of one game are not independent:
``pair_results`` counts games, not matches, and the bootstrap resamples whole games.

**Plackett-Luce** (``plackett_luce``, the joint rating to report): the order of finish of every
game, with intervals from the profile likelihood (``orders`` module). It uses each game
once, as the independent observation it is, so its likelihood intervals are honest for games of
any size; under it the pairwise matches follow Bradley-Terry with the same strengths.

**Bradley-Terry** (``bradley_terry``): bot i beats bot j with probability ``1 / (1 + exp(theta_j
- theta_i))``, fitted by maximum likelihood (Newton's method) on the pairwise matches (half wins
enter as fractional counts), with percentile intervals of ``n_boot`` refits on games drawn with
replacement. For 2-player games it is the same model as Plackett-Luce.

**No wins, no losses.** The maximum likelihood is finite only when every group of bots has
finished ahead of, and behind, the others at least once (the "finished ahead of" graph is
strongly connected). A bot that never won a match has no finite rating: it is reported as
``-inf`` with ``note`` "no wins: unbounded below" (never lost: ``+inf``, "no losses: unbounded
above"); in general the ratings are fitted within the main strongly connected group and the
other groups placed above or below it without bound (a bootstrap resample that loses a bot's
wins does the same, so such intervals reach to infinity). Ratings are on the Elo scale (``400 /
ln 10`` times theta: 400 points are 10:1 odds), centred on the main group's mean or on
``anchor``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.analysis import orders as pl
from projectl_sim.analysis.rows import deal_labels, finished_seats, game_keys, game_labels
from projectl_sim.analysis.stats import clustered_rate, wilson

ELO = 400 / math.log(10)

PAIR_COLUMNS = ["game_id", "players", "bot", "opponent", "score"]
RATING_COLUMNS = ["bot", "rating", "ci_low", "ci_high", "matches", "match_score", "note"]
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


def fit_bradley_terry(
    wins: np.ndarray, ridge: float = 0.01, tol: float = 1e-10, max_iter: int = 100
) -> np.ndarray:
    """Return the strengths ``theta`` maximising the Bradley-Terry likelihood of a win matrix.

    ``wins[i, j]`` is how many matches i won against j (half wins allowed); the result has mean
    zero in the direction the prior leaves free.
    """
    wins = np.asarray(wins, dtype=float)
    k = len(wins)
    n = wins + wins.T
    theta = np.zeros(k)
    for _ in range(max_iter):
        p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j]: i beats j
        grad = (wins - n * p).sum(axis=1) - ridge * theta
        w = n * p * (1 - p)
        hess = w - np.diag(w.sum(axis=1) + ridge)
        # least squares: without the prior the likelihood is flat along theta + c (and along
        # each part of a comparison graph that falls apart); the minimum-norm step ignores that
        step = np.linalg.lstsq(hess, -grad, rcond=None)[0]
        theta = theta + step
        if np.max(np.abs(step)) < tol:
            break
    return theta - theta.mean()


def _win_matrix(
    idx_a: np.ndarray, idx_b: np.ndarray, score: np.ndarray, weights: np.ndarray, k: int
) -> np.ndarray:
    m = np.zeros((k, k))
    np.add.at(m, (idx_a, idx_b), score * weights)
    return m


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


def _bt_ratings(wins: np.ndarray, anchor: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Return Bradley-Terry ratings (Elo scale) of a win matrix and each bot's place (_groups).

    The fit is the plain maximum likelihood inside the main group; bots outside it are +-inf.
    """
    ahead = wins > 0
    np.fill_diagonal(ahead, False)
    place = _groups(ahead, (wins + wins.T).sum(axis=1), anchor)
    rating = _placed(place)
    idx = np.flatnonzero(place == 0)
    theta = fit_bradley_terry(wins[np.ix_(idx, idx)], ridge=0.0) if len(idx) > 1 else np.zeros(1)
    shift = theta[list(idx).index(anchor)] if anchor is not None else theta.mean()
    rating[idx] = ELO * (theta - shift)
    return rating, place


def bradley_terry(
    seats: pd.DataFrame,
    *,
    rng: np.random.Generator | None = None,
    n_boot: int = 200,
    anchor: str | None = None,
) -> pd.DataFrame:
    """Return Bradley-Terry ratings (Elo scale) with bootstrap 95% intervals, best first.

    Columns: ``bot``, ``rating``, ``ci_low``, ``ci_high`` (nan without ``rng`` or with
    ``n_boot=0``), ``matches``, ``match_score`` (its share of match points) and ``note`` (why a
    rating is infinite, see the module notes). The intervals are percentile intervals of refits
    on games resampled with replacement; they assume independent games (deals' rotations are
    resampled as separate games) and reach to infinity when resamples lose a bot's wins.
    """
    pairs = pairwise(seats)
    if pairs.empty:
        return pd.DataFrame(columns=RATING_COLUMNS)
    bots = sorted(set(pairs["bot"]))
    if anchor is not None and anchor not in bots:
        raise ValueError(f"anchor {anchor!r} is not one of the rated bots ({', '.join(bots)})")
    index = {b: i for i, b in enumerate(bots)}
    k = len(bots)
    at = index[anchor] if anchor is not None else None
    a = pairs["bot"].map(index).to_numpy()
    b = pairs["opponent"].map(index).to_numpy()
    score = pairs["score"].to_numpy()
    game_ids, game_of_row = np.unique(game_labels(pairs), return_inverse=True)

    rating, place = _bt_ratings(_win_matrix(a, b, score, np.ones(len(pairs)), k), at)
    low = np.full(k, np.nan)
    high = np.full(k, np.nan)
    if rng is not None and n_boot > 0:
        boots = np.empty((n_boot, k))
        g = len(game_ids)
        for r in range(n_boot):
            counts = np.bincount(rng.integers(0, g, g), minlength=g)
            weights = counts[game_of_row].astype(float)
            boots[r] = _bt_ratings(_win_matrix(a, b, score, weights, k), at)[0]
        for j in range(k):
            column = boots[:, j][~np.isnan(boots[:, j])]
            if len(column):
                low[j], high[j] = np.quantile(column, [0.025, 0.975], method="inverted_cdf")
    ahead = _win_matrix(a, b, score, np.ones(len(pairs)), k) > 0
    np.fill_diagonal(ahead, False)
    played = pairs.groupby("bot")["score"].agg(["size", "mean"]).reindex(bots)
    out = pd.DataFrame(
        {
            "bot": bots,
            "rating": rating,
            "ci_low": np.where(np.isfinite(rating) | np.isnan(rating), low, rating),
            "ci_high": np.where(np.isfinite(rating) | np.isnan(rating), high, rating),
            "matches": played["size"].to_numpy().astype(int),
            "match_score": played["mean"].to_numpy(),
            "note": _notes(ahead, place, bots),
        }
    )
    return _best_first(out)


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
    bots = orders.bots
    chosen, risk, weight = orders.events()
    if len(chosen) == 0:
        return pd.DataFrame(columns=PL_COLUMNS)
    if anchor is not None and anchor not in bots:
        raise ValueError(f"anchor {anchor!r} is not one of the rated bots ({', '.join(bots)})")
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
        gauge = pl._gauge(len(idx), sub_anchor)[None, :]
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
