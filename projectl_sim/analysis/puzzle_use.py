"""One puzzle's use in a run: how often it is taken and completed, by which bot, and the points it
gives per action spent on it, read from the run's game records.

A *take* is one player holding one puzzle card in one game (taken from a row or blind from a
deck). Per take, the records are replayed to count the *actions spent on it*: the take itself,
every Place into it, and a share of each Master (or Ambassador, or placing Ghost action) that put
a piece into it (1/k of one action for a Master placing into k puzzles; an Insert counts as the
action it holds). The actions getting pieces (Upgrade, taking a mono) are shared by every puzzle
the player works on and are not counted: the cost of the pieces is in the puzzle's atlas row
(``puzzle check``), the time on the table is here. Its *points* are the card's points when it was
completed, minus its points when left unfinished (with the unfinished penalty), minus one per
Finishing Touches piece placed into it paid with a point.

Intervals are 95%, deals (game seeds) as clusters: rates are Wilson's on the effective size
(``stats.clustered_rate``); points per action is a ratio of sums over takes, with the
cluster-robust (linearised) standard error of a ratio and Student's t on clusters - 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.rows import finished_seats
from projectl_sim.analysis.stats import clustered_mean, clustered_rate
from projectl_sim.analysis.stats import distributions as distribution
from projectl_sim.catalogue import EXPANSIONS as CATALOGUE_SETS
from projectl_sim.catalogue import Catalogue
from projectl_sim.engine.actions import Finish, Master, Place, from_json
from projectl_sim.engine.record import read_record, start_state
from projectl_sim.expansions.finesse import paid_credits
from projectl_sim.loading import load_catalogue
from projectl_sim.sim import tables

TAKE_COLUMNS = [
    "game_id",
    "seed",
    "seats",
    "seat",
    "bot",
    "puzzle",
    "completed",
    "points",
    "actions",
]
USE_COLUMNS = [
    "puzzle",
    "bot",
    "games",
    "takes",
    "taken_rate",
    "taken_ci_low",
    "taken_ci_high",
    "completion_rate",
    "completion_ci_low",
    "completion_ci_high",
    "points_per_action",
    "ppa_ci_low",
    "ppa_ci_high",
]


def _placed_cards(action: Any) -> list[int]:
    """Return the cards an action puts a piece into, once per placement."""
    inner = getattr(action, "inner", None)  # a Finesse Insert: the action it holds
    if inner is not None:
        return _placed_cards(inner)
    if isinstance(action, Place):
        return [action.card]
    placements = getattr(action, "placements", None)
    if isinstance(action, Master) or (placements and not isinstance(action, Finish)):
        return [card for card, _, _ in placements or ()]
    return []


def takes_of_record(record: dict[str, Any], catalogue: Catalogue | None = None) -> list[dict]:
    """Return one row per take of one game record (``TAKE_COLUMNS`` but the game's keys)."""
    state, _ = start_state(record, catalogue)
    cat = state.rules.catalogue
    seats = list(record.get("seats") or [])
    spent: dict[tuple[int, int], float] = {}
    touches: dict[tuple[int, int], float] = {}
    for raw in record.get("actions", []):
        player, action = from_json(raw, cat)
        if isinstance(action, Finish):
            paid = 1 - paid_credits(action) / len(action.placements) if action.placements else 0.0
            for card, _, _ in action.placements:
                touches[player, card] = touches.get((player, card), 0.0) + paid
            state.step(player, action)
            continue
        held = set(state.unfinished(player))
        cards = _placed_cards(action)
        state.step(player, action)
        for card in set(state.unfinished(player)) - held:  # a take (from a row or blind)
            spent[player, card] = spent.get((player, card), 0.0) + 1.0
        for card in set(cards):
            share = cards.count(card) / len(cards)
            spent[player, card] = spent.get((player, card), 0.0) + share
    penalty = state.rules.unfinished_penalty
    rows = []
    for (player, card), actions in spent.items():
        done = card in state.piles[player] or card in state.completed_elsewhere(player)
        points = cat.puzzles[card].points
        net = points if done else (-points if penalty else 0)
        rows.append(
            {
                "seat": player,
                "bot": seats[player] if player < len(seats) else str(player),
                "puzzle": cat.puzzles[card].id,
                "completed": done,
                "points": net - touches.get((player, card), 0.0),
                "actions": actions,
            }
        )
    return rows


def puzzle_takes(run_dir: str | Path, puzzles: Iterable[str] | None = None) -> pd.DataFrame:
    """Return one row per take in a run's stored records (every puzzle, or only ``puzzles``).

    The run's own catalogue file (its manifest's ``catalogue``) is loaded to replay them. Empty
    when the run stored no records.
    """
    run_dir = Path(run_dir)
    config = tables.read_manifest(run_dir)["config"]
    wanted = None if puzzles is None else set(puzzles)
    cats: dict[tuple[str, ...], Catalogue] = {}
    rows = []
    for path in sorted((run_dir / tables.RECORDS).glob("game-*.json")):
        record = read_record(path)
        played = record["rules"].get("expansions", [])
        sets = tuple(n for n in CATALOGUE_SETS if n in played)
        if sets not in cats:
            cats[sets] = load_catalogue(config.get("catalogue"), expansions=sets)
        game_id = int(path.stem.partition("-")[2])
        for row in takes_of_record(record, cats[sets]):
            if wanted is None or row["puzzle"] in wanted:
                rows.append(
                    {
                        "game_id": game_id,
                        "seed": record.get("seed"),
                        "seats": ",".join(record.get("seats") or []),
                    }
                    | row
                )
    return pd.DataFrame(rows, columns=TAKE_COLUMNS)


def ratio_interval(
    y: np.ndarray, x: np.ndarray, clusters: np.ndarray, level: float = 0.95
) -> tuple[float, float, float]:
    """Return ``sum(y) / sum(x)`` and its interval, clusters independent (linearised ratio)."""
    y, x = np.asarray(y, dtype=float), np.asarray(x, dtype=float)
    if not len(x) or x.sum() <= 0:
        return np.nan, np.nan, np.nan
    r = float(y.sum() / x.sum())
    codes = pd.factorize(np.asarray(clusters))[0]
    c = int(codes.max()) + 1
    if c < 2:
        return r, np.nan, np.nan
    resid = np.bincount(codes, weights=y - r * x, minlength=c)
    se = float(np.sqrt(c / (c - 1) * np.sum(resid**2)) / x.sum())
    half = float(distribution.t_ppf(0.5 + level / 2, c - 1)) * se
    return r, r - half, r + half


def puzzle_use(takes: pd.DataFrame, seats: pd.DataFrame, puzzle: str) -> pd.DataFrame:
    """Return one puzzle's use per bot and over all (``bot`` "all"), from a run's takes and seats.

    ``taken_rate``: over all, the share of finished games in which some player took it; per bot,
    the share of that bot's seats that took it. ``completion_rate``: completed takes over takes.
    ``points_per_action``: points over actions spent, summed over its takes (module notes).
    """
    ok = finished_seats(seats)
    mine = takes[takes["puzzle"] == puzzle]
    mine = mine[mine["game_id"].isin(ok["game_id"])]
    key = ["game_id", "seat"]
    took = ok[key].merge(mine[key].drop_duplicates().assign(took=1.0), on=key, how="left")
    ok = ok.assign(took=took["took"].fillna(0.0).to_numpy())
    rows = []
    groups: list[tuple[str, pd.DataFrame, pd.DataFrame]] = [("all", ok, mine)]
    groups += [(b, ok[ok["bot"] == b], mine[mine["bot"] == b]) for b in sorted(set(ok["bot"]))]
    for bot, at, its in groups:
        if bot == "all":
            per_game = at.groupby("game_id").agg(took=("took", "max"), seed=("seed", "first"))
            rate, low, high, _ = clustered_rate(per_game["took"], per_game["seed"])
            n = len(per_game)
        else:
            rate, low, high, _ = clustered_rate(at["took"], at["seed"])
            n = len(at)
        done, d_low, d_high, _ = clustered_rate(its["completed"].astype(float), its["seed"])
        ppa, p_low, p_high = ratio_interval(
            its["points"].to_numpy(), its["actions"].to_numpy(), its["seed"].to_numpy()
        )
        rows.append(
            {
                "puzzle": puzzle,
                "bot": bot,
                "games": n,
                "takes": len(its),
                "taken_rate": rate,
                "taken_ci_low": low,
                "taken_ci_high": high,
                "completion_rate": done,
                "completion_ci_low": d_low,
                "completion_ci_high": d_high,
                "points_per_action": ppa,
                "ppa_ci_low": p_low,
                "ppa_ci_high": p_high,
            }
        )
    return pd.DataFrame(rows, columns=USE_COLUMNS)


def taken_difference(
    takes_a: pd.DataFrame,
    seats_a: pd.DataFrame,
    puzzle_a: str,
    takes_b: pd.DataFrame,
    seats_b: pd.DataFrame,
    puzzle_b: str,
    level: float = 0.95,
) -> dict[str, float]:
    """Return how much more often ``puzzle_b`` is taken in run B than ``puzzle_a`` in run A, on
    games paired by seed and seats: the mean per-game difference with its t interval (deals as
    clusters) and the pairs."""

    def per_game(takes: pd.DataFrame, seats: pd.DataFrame, puzzle: str) -> pd.DataFrame:
        ok = finished_seats(seats).groupby("game_id").agg(seed=("seed", "first"))
        took = set(takes.loc[takes["puzzle"] == puzzle, "game_id"])
        games = ok.reset_index()
        games["took"] = games["game_id"].isin(took).astype(float)
        return games

    a, b = per_game(takes_a, seats_a, puzzle_a), per_game(takes_b, seats_b, puzzle_b)
    keys_a = finished_seats(seats_a).groupby("game_id")["bot"].agg(",".join).rename("seats")
    keys_b = finished_seats(seats_b).groupby("game_id")["bot"].agg(",".join).rename("seats")
    a = a.merge(keys_a, left_on="game_id", right_index=True)
    b = b.merge(keys_b, left_on="game_id", right_index=True)
    merged = a.merge(b, on=["seed", "seats"], suffixes=("_a", "_b"))
    if merged.empty:
        return {"diff": np.nan, "ci_low": np.nan, "ci_high": np.nan, "pairs": 0}
    d, se, n, c = clustered_mean(merged["took_b"] - merged["took_a"], merged["seed"])
    half = (
        float(distribution.t_ppf(0.5 + level / 2, c - 1)) * se
        if c > 1 and np.isfinite(se)
        else np.nan
    )
    return {"diff": d, "ci_low": d - half, "ci_high": d + half, "pairs": n}
