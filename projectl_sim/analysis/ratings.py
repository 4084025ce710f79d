"""Head-to-head results, Bradley-Terry ratings with bootstrap intervals, and the skill ladder.

**Pairwise decomposition.** A game of N seats is read as the N(N-1)/2 two-player matches between
its seats: the better ``rank`` wins the match, equal ranks (a shared win, or two seats tied for a
place) count half a win to each. Pairs of seats played by the same bot say nothing about bots and
are dropped; failed and solo games are left out. The matches of one game are not independent, so
the bootstrap resamples whole games.

**Bradley-Terry.** Bot i beats bot j with probability ``1 / (1 + exp(theta_j - theta_i))``. The
strengths ``theta`` maximise the likelihood of the matches (half wins enter the likelihood as
fractional counts) plus a weak Gaussian prior, ``-ridge/2 * sum(theta**2)``, that keeps the fit
finite when a bot never wins or never loses (with the default ``ridge`` of 0.01 it is worth a
hundredth of a match per bot). Newton's method fits it; ratings are reported on the Elo scale
(``400 / ln 10`` times theta, so 400 points are 10:1 odds), shifted so their mean is 0 or the
``anchor`` bot sits at 0. Intervals are percentile intervals of ``n_boot`` refits on games drawn
with replacement.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from projectl_sim.sim.summary import finished_seats, wilson

ELO = 400 / math.log(10)

PAIR_COLUMNS = ["game_id", "players", "bot", "opponent", "score"]
RATING_COLUMNS = ["bot", "rating", "ci_low", "ci_high", "matches", "match_score"]
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
    match appears twice (once from each side), so a bot's rows hold all its matches.
    """
    ok = finished_seats(seats)
    ok = ok.loc[ok["players"] > 1, ["game_id", "seat", "players", "bot", "rank"]]
    # every ordered pair of seats of a game: a self-join on the game
    both = ok.merge(ok, on=["game_id", "players"], suffixes=("", "_o"))
    both = both[(both["seat"] != both["seat_o"]) & (both["bot"] != both["bot_o"])]
    ahead = both["rank"] < both["rank_o"]
    level = both["rank"] == both["rank_o"]
    out = pd.DataFrame(
        {
            "game_id": both["game_id"],
            "players": both["players"],
            "bot": both["bot"],
            "opponent": both["bot_o"],
            "score": np.where(ahead, 1.0, np.where(level, 0.5, 0.0)),
        }
    )
    return out.sort_values(["game_id", "bot", "opponent"], kind="stable", ignore_index=True)


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


def bradley_terry(
    seats: pd.DataFrame,
    *,
    rng: np.random.Generator | None = None,
    n_boot: int = 200,
    anchor: str | None = None,
    ridge: float = 0.01,
) -> pd.DataFrame:
    """Return Bradley-Terry ratings (Elo scale) with bootstrap 95% intervals, best first.

    Columns: ``bot``, ``rating``, ``ci_low``, ``ci_high`` (nan without ``rng`` or with
    ``n_boot=0``), ``matches`` and ``match_score`` (its share of match points). Games are
    decomposed into pairwise matches (see the module notes).
    """
    pairs = pairwise(seats)
    if pairs.empty:
        return pd.DataFrame(columns=RATING_COLUMNS)
    bots = sorted(set(pairs["bot"]))
    if anchor is not None and anchor not in bots:
        raise ValueError(f"anchor {anchor!r} is not one of the rated bots ({', '.join(bots)})")
    index = {b: i for i, b in enumerate(bots)}
    k = len(bots)
    a = pairs["bot"].map(index).to_numpy()
    b = pairs["opponent"].map(index).to_numpy()
    score = pairs["score"].to_numpy()
    game_ids, game_of_row = np.unique(pairs["game_id"].to_numpy(), return_inverse=True)

    def rate(weights: np.ndarray) -> np.ndarray:
        theta = fit_bradley_terry(_win_matrix(a, b, score, weights, k), ridge=ridge)
        shift = theta[index[anchor]] if anchor is not None else theta.mean()
        return ELO * (theta - shift)

    rating = rate(np.ones(len(pairs)))
    low = np.full(k, np.nan)
    high = np.full(k, np.nan)
    if rng is not None and n_boot > 0:
        boots = np.empty((n_boot, k))
        g = len(game_ids)
        for r in range(n_boot):
            counts = np.bincount(rng.integers(0, g, g), minlength=g)
            boots[r] = rate(counts[game_of_row].astype(float))
        low, high = np.percentile(boots, [2.5, 97.5], axis=0)
    played = pairs.groupby("bot")["score"].agg(["size", "mean"]).reindex(bots)
    out = pd.DataFrame(
        {
            "bot": bots,
            "rating": rating,
            "ci_low": low,
            "ci_high": high,
            "matches": played["size"].to_numpy().astype(int),
            "match_score": played["mean"].to_numpy(),
        }
    )
    return out.sort_values("rating", ascending=False, ignore_index=True)


def bot_param(spec: str, param: str) -> tuple[str, float | None]:
    """Return a bot spec's name and the value of one numeric parameter (its default if unset)."""
    from bots import REGISTRY

    name, _, rest = spec.partition(":")
    found = re.search(rf"(?:^|,){re.escape(param)}=([^,]+)", rest)
    if found:
        try:
            return name, float(found.group(1))
        except ValueError:
            return name, None
    cls = REGISTRY.get(name)
    if cls is not None and param in cls.params:
        default = cls.params[param][0]
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            return name, float(default)
    return name, None


def skill_ladder(seats: pd.DataFrame, bot: str = "mcts", param: str = "iterations") -> pd.DataFrame:
    """Return how often the larger budget wins each two-seat match-up of one bot vs itself.

    A ladder run plays line-ups ``mcts:iterations=N,mcts:iterations=2N`` (two seats, seats
    rotated): each step of the ladder is one such pair of budgets. Per pair (``low``, ``high``):
    games, wins of the higher budget (sum of ``win_share``), its win rate and Wilson interval.
    A rate above 0.5 whose interval leaves out 0.5 means the doubled budget still buys strength.
    """
    ok = finished_seats(seats)
    ok = ok[ok["players"] == 2]
    rows = []
    for _, game in ok.groupby("game_id", sort=True):
        specs = game["bot"].tolist()
        parsed = [bot_param(s, param) for s in specs]
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


def ladder_lineups(
    budgets: Sequence[int], bot: str = "mcts", param: str = "iterations"
) -> list[str]:
    """Return the line-ups of a doubling ladder: each budget against its double."""
    return [f"{bot}:{param}={n},{bot}:{param}={2 * n}" for n in budgets]
