"""The Plackett-Luce model of a game's order of finish: fit, existence, profile likelihood.

Each bot ``i`` has a strength ``theta_i``. A game's order of finish is drawn place by place: the
next place goes to seat ``s`` of the seats not yet placed with probability ``exp(theta_bot(s))``
over the sum of ``exp(theta)`` of those seats. With two seats this is Bradley-Terry; with more it
uses the whole order, where the pairwise decomposition (``ratings.pairwise``) counts one game as
N(N-1)/2 matches that are not independent. Games are independent, so the log-likelihood is a sum
over games and its profile gives honest intervals (Wilks: the set of strengths whose deviance
from the maximum is below the chi-square quantile, one degree of freedom per rating).

Ties (a shared win, or two seats level on score and tie-break) count as every order of the tied
seats with equal weight (two seats: half a win each, as chess counts a draw). Two seats of the
same bot are two entries with the same strength.

**Existence.** The maximum is finite only when the "finished ahead of" graph of the bots is
strongly connected (Hunter 2004; a tie is an edge both ways): a bot (or a group) that never
finished behind the others has its strength unbounded above, one that never finished ahead
unbounded below. ``ahead_of`` gives that graph (``ratings`` finds its strongly connected
groups); ratings are fitted within
each group (the limit of the likelihood as the groups move apart is the model of the orders
restricted to each group) and reported finite only in the main group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import permutations

import numpy as np
import pandas as pd

from projectl_sim.analysis.rows import finished_seats, game_labels
from projectl_sim.analysis.stats import distributions as distribution

__all__ = ["Orders", "ahead_of", "fit", "orders_of", "profile_interval"]


@dataclass(frozen=True)
class Orders:
    """The finished games' orders of finish: per game, the bot index and rank of each seat."""

    bots: list[str]
    games: list[tuple[np.ndarray, np.ndarray]]  # (bot index per seat, rank per seat)

    def events(self, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the place-by-place choices: chosen bot, seats per bot left, weight (aggregated).

        ``keep`` (a bool per bot) restricts every game to the seats of those bots.
        """
        k = len(self.bots)
        rows: dict[tuple[int, ...], float] = {}
        for bots, ranks in self.games:
            if keep is not None:
                mask = keep[bots]
                bots, ranks = bots[mask], ranks[mask]
            if len(bots) < 2 or len(set(bots.tolist())) < 2:
                continue  # one bot left: the order says nothing about strengths
            left = np.bincount(bots, minlength=k)
            for rank in np.unique(ranks):
                tied = bots[ranks == rank]
                orders = [tied] if len(tied) == 1 else list(permutations(tied.tolist()))
                w = 1 / len(orders)
                for order in orders:
                    risk = left.copy()
                    for b in order:
                        if risk.sum() > 1:
                            key = (int(b), *risk.tolist())
                            rows[key] = rows.get(key, 0.0) + w
                        risk[b] -= 1
                left = left - np.bincount(tied, minlength=k)
        if not rows:
            return np.zeros(0, int), np.zeros((0, k), int), np.zeros(0)
        keys = np.array(list(rows), dtype=int)
        return keys[:, 0], keys[:, 1:], np.array(list(rows.values()))


def orders_of(seats: pd.DataFrame) -> Orders:
    """Return the orders of finish of a seat table's finished games with two or more seats."""
    ok = finished_seats(seats)
    ok = ok[ok["players"] > 1]
    bots = sorted(set(ok["bot"]))
    index = {b: i for i, b in enumerate(bots)}
    codes = ok["bot"].map(index).to_numpy(dtype=int)
    ranks = ok["rank"].to_numpy(dtype=int)
    games = []
    if len(ok):
        game = game_labels(ok)
        starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
        for lo, hi in zip(starts, [*starts[1:], len(ok)], strict=True):
            games.append((codes[lo:hi], ranks[lo:hi]))
    return Orders(bots, games)


def ahead_of(chosen: np.ndarray, risk: np.ndarray, weight: np.ndarray, k: int) -> np.ndarray:
    """Return ``ahead[i, j]``: bot i finished ahead of (or level with) bot j in some game."""
    ahead = np.zeros((k, k), dtype=bool)
    for c, r, w in zip(chosen, risk, weight, strict=True):
        if w > 0:
            ahead[c, r > 0] = True
    np.fill_diagonal(ahead, False)
    return ahead


def _parts(theta: np.ndarray, chosen: np.ndarray, risk: np.ndarray, weight: np.ndarray):
    """Return the log-likelihood, its gradient and Hessian at ``theta``."""
    k = len(theta)
    e = np.exp(theta - theta.max())
    share = risk * e  # (U, k): each bot's weight in the choice
    total = share.sum(axis=1)
    log_lik = float(np.sum(weight * (theta[chosen] - theta.max() - np.log(total))))
    p = share / total[:, None]
    grad = np.bincount(chosen, weights=weight, minlength=k) - (weight[:, None] * p).sum(axis=0)
    hess = (p * weight[:, None]).T @ p - np.diag((weight[:, None] * p).sum(axis=0))
    return log_lik, grad, hess


def fit(
    chosen: np.ndarray,
    risk: np.ndarray,
    weight: np.ndarray,
    constraints: np.ndarray,
    values: np.ndarray,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> tuple[np.ndarray, float]:
    """Return the strengths maximising the likelihood subject to ``constraints @ theta = values``.

    Newton's method in the constraints' null space with step halving. The events must come from a
    strongly connected group of bots (else the maximum is at infinity and this stops at
    ``max_iter``).
    """
    # scipy.linalg and scipy.optimize are imported here, not at the top: a quarter second of CPU
    # that every summary would pay, and only a run with ratings to fit uses them
    from scipy.linalg import null_space

    basis = null_space(constraints)
    theta = np.linalg.lstsq(constraints, values, rcond=None)[0]
    log_lik, grad, hess = _parts(theta, chosen, risk, weight)
    for _ in range(max_iter):
        g = basis.T @ grad
        h = basis.T @ hess @ basis
        step = basis @ np.linalg.solve(h - 1e-12 * np.eye(len(h)), -g)
        t = 1.0
        while True:
            new = theta + t * step
            new_lik, new_grad, new_hess = _parts(new, chosen, risk, weight)
            if new_lik >= log_lik - 1e-12 or t < 1e-8:
                break
            t /= 2
        theta, log_lik, grad, hess = new, new_lik, new_grad, new_hess
        if np.max(np.abs(t * step)) < tol:
            break
    return theta, log_lik


def gauge_of(k: int, anchor: int | None) -> np.ndarray:
    row = np.zeros(k)
    if anchor is None:
        row[:] = 1.0  # strengths sum to zero
    else:
        row[anchor] = 1.0  # the anchor at zero
    return row


def profile_interval(
    chosen: np.ndarray,
    risk: np.ndarray,
    weight: np.ndarray,
    theta_hat: np.ndarray,
    log_lik_hat: float,
    bot: int,
    anchor: int | None,
    level: float = 0.95,
    reach: float = 40.0,
) -> tuple[float, float]:
    """Return the profile likelihood interval of one bot's strength (in the given gauge).

    The set of values ``t`` where twice the drop of the profile log-likelihood (the other
    strengths refitted with ``theta[bot] = t``) stays below the chi-square(1) quantile. A bound
    further than ``reach`` (in strength units; 40 is odds of e^40) from the estimate is infinite.
    """
    from scipy.linalg import null_space
    from scipy.optimize import brentq

    k = len(theta_hat)
    crit = float(distribution.chi2_ppf(level, 1))
    gauge = gauge_of(k, anchor)
    fix = np.zeros(k)
    fix[bot] = 1.0
    constraints = np.vstack([gauge, fix])

    def deviance(t: float) -> float:
        _, lik = fit(chosen, risk, weight, constraints, np.array([0.0, t]))
        return 2 * (log_lik_hat - lik) - crit

    est = float(theta_hat[bot])
    _, _, hess = _parts(theta_hat, chosen, risk, weight)
    basis = null_space(gauge[None, :])
    cov = basis @ np.linalg.inv(-(basis.T @ hess @ basis)) @ basis.T
    step = max(float(np.sqrt(max(cov[bot, bot], 0.0))), 0.05)
    bounds = []
    for sign in (-1.0, 1.0):
        inner, dist = est, step
        while True:
            outer = est + sign * min(dist, reach)
            if deviance(outer) >= 0:
                lo, hi = sorted((inner, outer))
                bounds.append(brentq(deviance, lo, hi, xtol=1e-6))
                break
            if dist >= reach:
                bounds.append(sign * math.inf)
                break
            inner, dist = outer, 2 * dist
    return bounds[0], bounds[1]
