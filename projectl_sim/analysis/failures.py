"""Failure states: the ways a rule set can break a game, found in a run's tables.

Each check reads a run and returns the failure states it finds, with the games that show them
(their ids, a few first) and the share of the run's finished games with its 95% Wilson
interval. ``failure_states`` runs ``CHECKS``; ``summary`` lists what it finds. The shipped checks:

- ``stall``: games the engine ended because nobody made progress for the rules' stall limit;
- ``round limit``: games cut at the rules' ``max_rounds`` (or at the runner's decision cap);
- ``tie-break``: games whose best score was shared and a tie-break (or nothing: a shared win)
  decided;
- ``no legal action``: games in which a seat passed a whole turn because it had no legal action
  (the ``events`` table's ``pass`` rows; runs played with ``--tables core`` cannot tell);
- ``never taken``: puzzle cards of the run's catalogue that no seat took in any game (from the
  ``events`` table).

A check is a function of a ``Run`` returning ``FailureState`` values; a study adds its own by
passing ``checks`` (``CHECKS`` plus its own: the across-tiers dominant-strategy check is one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.data import Run
from projectl_sim.analysis.rows import finished_games, finished_seats
from projectl_sim.analysis.stats import wilson

EXAMPLES = 5  # game ids listed per failure state


@dataclass(frozen=True)
class FailureState:
    """One failure state a run shows: what, in how many of its finished games, and which."""

    state: str
    detail: str
    games: int  # games showing it (0 for a state of the catalogue, such as a card never taken)
    total: int  # finished games of the run
    examples: tuple[int, ...] = field(default=())

    @property
    def share(self) -> tuple[float, float, float]:
        """Return the share of the run's finished games showing it and its 95% interval."""
        if not self.total:
            return np.nan, np.nan, np.nan
        low, high = wilson(self.games, self.total)
        return self.games / self.total, float(low), float(high)


Check = Callable[[Run], list[FailureState]]


def _found(state: str, detail: str, ids: Sequence[int], total: int) -> list[FailureState]:
    ids = sorted(int(i) for i in ids)
    if not ids:
        return []
    return [FailureState(state, detail, len(ids), total, tuple(ids[:EXAMPLES]))]


def endings(run: Run) -> list[FailureState]:
    """Return the games ended by a stall and those cut at a round or decision limit."""
    games = finished_games(run.games)
    total = len(games)
    out = []
    reasons = games["end_reason"]
    out += _found(
        "stall",
        "the engine ended the game: no progress for the rules' stall limit",
        games.loc[reasons == "stall", "game_id"],
        total,
    )
    out += _found(
        "round limit",
        "cut at the rules' max_rounds before the game ended",
        games.loc[reasons == "max_rounds", "game_id"],
        total,
    )
    out += _found(
        "decision cap",
        "cut by the runner's cap on decisions (a bot that never ends the game)",
        games.loc[reasons == "max_decisions", "game_id"],
        total,
    )
    return out


def tie_breaks(run: Run) -> list[FailureState]:
    """Return the games whose best score was shared: won on a tie-break, or a shared win."""
    seats = finished_seats(run.seats)
    games = finished_games(run.games)
    seats = seats[seats["players"] > 1]
    if seats.empty:
        return []
    best = seats.groupby("game_id")["score"].transform("max")
    tied = seats[seats["score"] == best].groupby("game_id").size()
    tied_ids = tied[tied > 1].index
    winners = games.set_index("game_id")["winners"].fillna("").str.count(",") + 1
    shared = [g for g in tied_ids if winners.get(g, 1) > 1]
    broken = [g for g in tied_ids if winners.get(g, 1) == 1]
    total = len(games)
    return _found(
        "tie-break",
        "the best score was shared and a tie-break rule chose the winner",
        broken,
        total,
    ) + _found("shared win", "the best score was shared and the win with it", shared, total)


def no_legal_action(run: Run) -> list[FailureState]:
    """Return the games in which a seat passed a whole turn with no legal action."""
    if not run.has("events"):
        return []
    games = finished_games(run.games)
    turns, ids = 0, []
    for events in run.scan("events", ["game_id", "event"]):  # window by window of games
        passed = events[(events["event"] == "pass") & events["game_id"].isin(games["game_id"])]
        turns += len(passed)
        ids.extend(passed["game_id"].unique())
    return _found(
        "no legal action",
        f"a seat had no legal action and passed its turn ({turns} turns in all)",
        ids,
        len(games),
    )


def catalogue_cards(manifest: dict[str, Any]) -> pd.DataFrame:
    """Return the puzzle cards a run's configurations deal from (``card``, ``colour``,
    ``points``, ``puzzle_set``, ``provisional``); empty when its catalogue cannot be read."""
    from projectl_sim.errors import ProjectLError
    from projectl_sim.loading import load_catalogue

    config = manifest.get("config") or {}
    sets = sorted(
        {
            name
            for text in config.get("expansions") or ["none"]
            for name in str(text).split("+")
            if name and name != "none"
        }
    )
    try:
        cat = load_catalogue(
            config.get("catalogue"),
            expansions=sets,
            overrides=config.get("expansion_files") or None,
        )
    except (ProjectLError, OSError, ValueError, KeyError):
        return pd.DataFrame(columns=["card", "colour", "points", "puzzle_set", "provisional"])
    from projectl_sim.catalogue import SPECIAL_REWARD_LEVELS

    # a reward's level: a piece's its cells, a special reward's what the bots count it as
    levels = {p.id: p.level for p in cat.pieces} | dict(SPECIAL_REWARD_LEVELS)
    return pd.DataFrame(
        [
            {
                "card": p.id,
                "colour": p.colour,
                "points": p.points,
                "puzzle_set": p.expansion,
                "provisional": p.provisional,
                "reward": p.reward,
                "reward_level": levels.get(p.reward, np.nan),
            }
            for p in cat.puzzles
        ]
    )


def never_taken(run: Run) -> list[FailureState]:
    """Return the puzzle cards of the run's catalogue that no seat took in any game."""
    if not run.has("events"):
        return []
    cards = catalogue_cards(run.manifest)
    if cards.empty:
        return []
    taken: set[Any] = set()
    for events in run.scan("events", ["event", "card"]):  # window by window of games
        taken.update(events.loc[events["event"] == "taken", "card"].dropna())
    never = [c for c in cards["card"] if c not in taken]
    if not never:
        return []
    total = len(finished_games(run.games))
    shown = ", ".join(never[:12]) + (f" and {len(never) - 12} more" if len(never) > 12 else "")
    return [
        FailureState(
            "never taken",
            f"{len(never)} of {len(cards)} puzzle cards were never taken: {shown}",
            0,
            total,
        )
    ]


CHECKS: tuple[Check, ...] = (endings, tie_breaks, no_legal_action, never_taken)


def failure_states(run: Run, checks: Sequence[Check] = CHECKS) -> list[FailureState]:
    """Return the failure states ``run`` shows (none found: an empty list)."""
    out: list[FailureState] = []
    for check in checks:
        out.extend(check(run))
    return out


def failure_lines(found: Sequence[FailureState]) -> list[str]:
    """Return the ``summary`` lines of the failure states found."""
    lines = []
    for f in found:
        if f.games:
            share, low, high = f.share
            ids = ", ".join(map(str, f.examples)) + (" ..." if f.games > len(f.examples) else "")
            lines.append(
                f"{f.state}: {f.games} of {f.total} games ({share:.1%}, 95% CI "
                f"{low:.1%}-{high:.1%}): {f.detail}; games {ids}"
            )
        else:
            lines.append(f"{f.state}: {f.detail}")
    return lines


__all__ = [
    "CHECKS",
    "FailureState",
    "catalogue_cards",
    "failure_lines",
    "failure_states",
]
