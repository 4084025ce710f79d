"""Balance objectives of a run, to be made small, with intervals from the deals (``tune``).

Each objective reads a run's finished games and gives one number, smaller is better:

- ``seat_advantage``: the largest gap between a turn order's share of the wins and 1/N (0: every
  seat wins as often), in share points; averaged over the run's configurations.
- ``strategy_spread``: the best bot's win rate less the worst's, in games with more than one kind
  of bot (0: every strategy as strong); averaged over configurations of mixed line-ups.
- ``first_player``: the first player's share of the wins less 1/N, without the sign taken away
  (a target of 0 makes it the seat advantage of the first seat alone).
- ``rounds``, ``margin``: the mean length in rounds and the mean winning margin (points).
- ``close_games``: minus the share of games won by at most ``CLOSE`` points (more is better).
- ``tiers``: the distance of a round robin of skill tiers from a target (``TiersTarget``): the
  root mean square, in win-rate points, of each targeted pair's win rate (the row tier's share of
  the wins against the column tier, 2 players, both seatings) less its target, with the first
  player's win rate less its target as one more term (TAG's 2025 balancing competition scores a
  rule set by such a distance; this is our reading of it). 0: every target met.
- ``strength`` (bot tuning): minus the win rate of the first bot of each line-up (the candidate)
  against the others, averaged over the configurations (one per opponent of its field).

``--target T`` turns a value into its distance from T (``rounds`` with a target of 12 asks for
games of twelve rounds). Intervals are a bootstrap over deals: a resample draws the run's deal
seeds with replacement and each game counts as often as its seed was drawn, so the rotations of a
deal stay together, and runs on the same seeds resample the same deals (``paired``): the
difference of two settings is measured on shared deals, the luck of the deal cancelling out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.objective_help import CLOSE
from projectl_sim.analysis.rows import finished_games, finished_seats


@dataclass(frozen=True)
class GameMatrix:
    """One row per finished game: the numbers every objective reads, as arrays."""

    seed: np.ndarray  # the deal (game seed) of each game
    config: np.ndarray  # config_id of each game
    players: np.ndarray
    rounds: np.ndarray
    margin: np.ndarray
    order_wins: np.ndarray  # games x 6: win share of turn order k (0 beyond the players)
    bot_wins: np.ndarray  # games x bots: win shares of that bot's seats, summed
    bot_seats: np.ndarray  # games x bots: that bot's seats
    bots: tuple[str, ...]
    # the column of each game's candidate (its line-up's first bot: bot tuning), -1 if absent
    focus: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    def __len__(self) -> int:
        return len(self.seed)


def game_matrix(seats: pd.DataFrame, games: pd.DataFrame) -> GameMatrix:
    """Return the finished games of a run's tables as a ``GameMatrix``."""
    ok = finished_games(games).sort_values("game_id")
    ok_seats = finished_seats(seats)
    ok_seats = ok_seats[ok_seats["game_id"].isin(ok["game_id"])]
    ids = ok["game_id"].to_numpy()
    where = pd.Index(ids)
    rows = where.get_indexer(ok_seats["game_id"])
    order_wins = np.zeros((len(ids), 6))
    np.add.at(
        order_wins,
        (rows, ok_seats["turn_order"].to_numpy(dtype=int)),
        ok_seats["win_share"].to_numpy(dtype=float),
    )
    bots = tuple(sorted(set(ok_seats["bot"])))
    col = pd.Index(bots).get_indexer(ok_seats["bot"])
    bot_wins = np.zeros((len(ids), len(bots)))
    bot_seats = np.zeros((len(ids), len(bots)))
    np.add.at(bot_wins, (rows, col), ok_seats["win_share"].to_numpy(dtype=float))
    np.add.at(bot_seats, (rows, col), 1.0)
    focus = (
        pd.Index(bots).get_indexer(ok["lineup"].astype(str).map(_first_bot(bots)))
        if "lineup" in ok
        else np.full(len(ids), -1)
    ).astype(int)
    return GameMatrix(
        ok["seed"].to_numpy(),
        ok["config_id"].to_numpy(),
        ok["players"].to_numpy(dtype=int),
        ok["rounds"].to_numpy(dtype=float),
        ok["margin"].to_numpy(dtype=float),
        order_wins,
        bot_wins,
        bot_seats,
        bots,
        focus,
    )


def _first_bot(bots: Sequence[str]) -> Callable[[str], str | None]:
    """Return the function giving a line-up's first bot among ``bots``: the longest one the
    line-up starts with, followed by a comma or its end (a bot's own parameters hold commas:
    ``greedy:reward=0.5,risk=1.9,greedy``)."""
    longest_first = sorted(bots, key=len, reverse=True)

    def first(lineup: str) -> str | None:
        for bot in longest_first:
            if lineup == bot or lineup.startswith(bot + ","):
                return bot
        return None

    return first


def _per_config(
    m: GameMatrix, w: np.ndarray, one: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    """Average ``one(rows, weights)`` (one value per weight row) over the configurations."""
    values = []
    for config in np.unique(m.config):
        rows = np.flatnonzero(m.config == config)
        v = one(rows, w[:, rows])
        if v is not None:
            values.append(v)
    if not values:
        return np.full(w.shape[0], np.nan)
    return np.nanmean(np.vstack(values), axis=0)


def _seat_advantage(m: GameMatrix, w: np.ndarray) -> np.ndarray:
    def one(rows: np.ndarray, wr: np.ndarray) -> np.ndarray | None:
        n = int(m.players[rows[0]])
        if n < 2:
            return None
        total = wr.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = wr @ m.order_wins[rows, :n] / total
        return np.abs(share - 1 / n).max(axis=1)

    return _per_config(m, w, one)


def _first_player(m: GameMatrix, w: np.ndarray) -> np.ndarray:
    def one(rows: np.ndarray, wr: np.ndarray) -> np.ndarray | None:
        n = int(m.players[rows[0]])
        if n < 2:
            return None
        with np.errstate(invalid="ignore", divide="ignore"):
            return wr @ m.order_wins[rows, 0] / wr.sum(axis=1) - 1 / n

    return _per_config(m, w, one)


def _strategy_spread(m: GameMatrix, w: np.ndarray) -> np.ndarray:
    mixed = (m.bot_seats > 0).sum(axis=1) > 1

    def one(rows: np.ndarray, wr: np.ndarray) -> np.ndarray | None:
        keep = mixed[rows]
        if not keep.any():
            return None
        rows, wr = rows[keep], wr[:, keep]
        seats = wr @ m.bot_seats[rows]
        present = seats[0] > 0 if len(seats) else np.zeros(0, bool)
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = (wr @ m.bot_wins[rows])[:, present] / seats[:, present]
        return rate.max(axis=1) - rate.min(axis=1)

    return _per_config(m, w, one)


def _mean_of(column: str) -> Callable[[GameMatrix, np.ndarray], np.ndarray]:
    def objective(m: GameMatrix, w: np.ndarray) -> np.ndarray:
        def one(rows: np.ndarray, wr: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return wr @ getattr(m, column)[rows] / wr.sum(axis=1)

        return _per_config(m, w, one)

    return objective


def _close_games(m: GameMatrix, w: np.ndarray) -> np.ndarray:
    close = (m.margin <= CLOSE).astype(float)

    def one(rows: np.ndarray, wr: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return -(wr @ close[rows]) / wr.sum(axis=1)

    return _per_config(m, w, one)


def _strength(m: GameMatrix, w: np.ndarray) -> np.ndarray:
    def one(rows: np.ndarray, wr: np.ndarray) -> np.ndarray | None:
        col = int(m.focus[rows[0]]) if len(m.focus) else -1
        if col < 0:
            return None
        with np.errstate(invalid="ignore", divide="ignore"):
            return -(wr @ m.bot_wins[rows, col]) / (wr @ m.bot_seats[rows, col])

    return _per_config(m, w, one)


@dataclass(frozen=True)
class TiersTarget:
    """What ``tiers`` measures a round robin of tiers against: ``beats[(a, b)]``, the win rate
    tier ``a`` should have against ``b`` (bot specs as the tables name them), and the first
    player's win rate (None: not targeted)."""

    beats: Mapping[tuple[str, str], float]
    first_player: float | None = 0.5

    def text(self) -> str:
        pairs = ", ".join(f"{a} > {b}: {t:.2f}" for (a, b), t in self.beats.items())
        first = "" if self.first_player is None else f"; first player {self.first_player:.2f}"
        return pairs + first


def tiers_distance(m: GameMatrix, w: np.ndarray, target: TiersTarget) -> np.ndarray:
    """Return the ``tiers`` objective under each row of game weights (see the module notes)."""
    col = {b: i for i, b in enumerate(m.bots)}
    terms = []
    for (a, b), t in target.beats.items():
        if a not in col or b not in col:
            continue
        i, j = col[a], col[b]
        rows = np.flatnonzero((m.bot_seats[:, i] > 0) & (m.bot_seats[:, j] > 0))
        if not len(rows):
            continue
        wr = w[:, rows]
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (wr @ m.bot_wins[rows, i]) / (wr @ (m.bot_wins[rows, i] + m.bot_wins[rows, j]))
        terms.append(share - t)
    if target.first_player is not None and len(m):
        two = np.flatnonzero(m.players == 2)
        if len(two):
            wr = w[:, two]
            with np.errstate(invalid="ignore", divide="ignore"):
                terms.append(wr @ m.order_wins[two, 0] / wr.sum(axis=1) - target.first_player)
    if not terms:
        return np.full(w.shape[0], np.nan)
    return np.sqrt(np.mean(np.vstack(terms) ** 2, axis=0))


OBJECTIVES: dict[str, Callable[[GameMatrix, np.ndarray], np.ndarray]] = {
    "seat_advantage": _seat_advantage,
    "strategy_spread": _strategy_spread,
    "first_player": _first_player,
    "rounds": _mean_of("rounds"),
    "margin": _mean_of("margin"),
    "close_games": _close_games,
}
TIERS = "tiers"  # the objective that takes a TiersTarget (``tiers_distance``)
STRENGTH = "strength"  # bot tuning's, not a rules objective
_ALL = OBJECTIVES | {STRENGTH: _strength}


def objective_values(
    m: GameMatrix, name: str, weights: np.ndarray, target: Any = None
) -> np.ndarray:
    """Return objective ``name`` under each row of game ``weights`` (resamples x games);
    ``target``: a number to take the distance from, or the ``TiersTarget`` of ``tiers``."""
    if name == TIERS:
        return tiers_distance(m, np.atleast_2d(weights), target)
    values = _ALL[name](m, np.atleast_2d(weights))
    return values if target is None else np.abs(values - target)


def objective(m: GameMatrix, name: str, target: Any = None) -> float:
    """Return objective ``name`` of the games (each counted once)."""
    if not len(m):
        return float("nan")
    return float(objective_values(m, name, np.ones((1, len(m))), target)[0])


def deal_weights(seeds: Sequence[int], resamples: int, rng: np.random.Generator) -> dict:
    """Return ``resamples`` bootstrap draws of the deals: {seed: its count in each draw}."""
    deals = np.unique(np.asarray(seeds))
    picks = rng.integers(0, len(deals), size=(resamples, len(deals)))
    counts = np.zeros((resamples, len(deals)))
    np.add.at(counts, (np.arange(resamples)[:, None], picks), 1.0)
    return {int(s): counts[:, i] for i, s in enumerate(deals)}


def _weights_for(m: GameMatrix, draws: dict, resamples: int) -> np.ndarray:
    zero = np.zeros(resamples)
    return (
        np.column_stack([draws.get(int(s), zero) for s in m.seed])
        if len(m)
        else np.zeros((resamples, 0))
    )


def paired_intervals(
    matrices: Sequence[GameMatrix],
    name: str,
    *,
    target: Any = None,
    resamples: int = 1000,
    level: float = 0.95,
    rng: np.random.Generator,
    reference: int | None = None,
) -> pd.DataFrame:
    """Return each run's objective with its bootstrap interval, and its difference from the
    smallest (``diff``, ``diff_low``, ``diff_high``) on the same resampled deals; with a
    ``reference`` (an index into ``matrices``), also each one's difference from that run
    (``ref_diff``, ``ref_low``, ``ref_high``) on the same resampled deals.

    The runs should share their deal seeds (the same root seed and grid); deals one run lacks
    count nothing in it.
    """
    seeds = np.concatenate([m.seed for m in matrices]) if matrices else np.zeros(0)
    draws = deal_weights(seeds, resamples, rng)
    values = [objective(m, name, target) for m in matrices]
    boots = np.vstack(
        [objective_values(m, name, _weights_for(m, draws, resamples), target) for m in matrices]
    )
    lo_q, hi_q = 50 * (1 - level), 100 - 50 * (1 - level)
    best = int(np.nanargmin(values)) if np.isfinite(values).any() else 0
    rows = []
    for i, v in enumerate(values):
        d = boots[i] - boots[best]
        row = {
            "value": v,
            "ci_low": float(np.nanpercentile(boots[i], lo_q)),
            "ci_high": float(np.nanpercentile(boots[i], hi_q)),
            "diff": v - values[best],
            "diff_low": float(np.nanpercentile(d, lo_q)),
            "diff_high": float(np.nanpercentile(d, hi_q)),
            "games": len(matrices[i]),
        }
        if reference is not None:
            r = boots[i] - boots[reference]
            row |= {
                "ref_diff": v - values[reference],
                "ref_low": float(np.nanpercentile(r, lo_q)),
                "ref_high": float(np.nanpercentile(r, hi_q)),
            }
        rows.append(row)
    return pd.DataFrame(rows)
