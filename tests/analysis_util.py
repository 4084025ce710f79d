"""Hand-made outcome tables for the analysis tests: a few games written out seat by seat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pyarrow as pa

from projectl_sim.sim import tables


@dataclass
class G:
    """One game: bots and scores by seat, ranks (1 = winner) and what the game row says."""

    bots: Sequence[str]
    scores: Sequence[int]
    ranks: Sequence[int]
    first_player: int = 0
    rounds: int = 10
    turns: int = 20
    end_reason: str = "rules"
    expansions: str = "none"
    variant: str = "standard"
    switches: str = "default"
    error: str | None = None
    seat: dict[str, Sequence[Any]] = field(default_factory=dict)  # extra seat columns
    opponent_score: int | None = None


def make_tables(games: Sequence[G]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (seats, games) frames with the runner's columns for the given games."""
    seat_rows: list[dict[str, Any]] = []
    game_rows: list[dict[str, Any]] = []
    for game_id, g in enumerate(games):
        n = len(g.bots)
        ok = g.error is None
        winners = [p for p in range(n) if g.ranks[p] == 1] if ok else []
        lineup = ",".join(g.bots)
        ident = {
            "run_id": "test",
            "game_id": game_id,
            "seed": game_id,
            "config_id": 0,
            "players": n,
            "variant": g.variant,
            "expansions": g.expansions,
            "switches": g.switches,
            "lineup": lineup,
            "deal": game_id,
        }
        for p in range(n):
            row = dict.fromkeys(tables.SEATS_SCHEMA.names) | ident
            row |= {
                "seat": p,
                "first_player": g.first_player,
                "turn_order": (p - g.first_player) % n,
                "bot": g.bots[p],
                "score": g.scores[p] if ok else None,
                "rank": g.ranks[p] if ok else None,
                "won": (p in winners) if ok else None,
                "win_share": (1 / len(winners) if p in winners else 0.0) if ok else None,
                "finishing_pieces": 0,
                "unfinished": 0,
                "unfinished_penalty": 0,
                "error": g.error,
            }
            row |= {f"actions_{k}": 0 for k in tables.ACTION_KINDS}
            for column, values in g.seat.items():
                row[column] = values[p]
            seat_rows.append(row)
        if ok and g.variant == "solo":
            margin = g.scores[0] - (g.opponent_score or 0)
        elif ok:
            others = [g.scores[p] for p in range(n) if p not in winners]
            margin = g.scores[winners[0]] - max(others) if others else 0
        else:
            margin = None
        game_rows.append(
            dict.fromkeys(tables.GAMES_SCHEMA.names)
            | ident
            | {
                "rotation": 0,
                "seats": lineup,
                "first_player": g.first_player,
                "rounds": g.rounds,
                "turns": g.turns,
                "end_reason": g.end_reason if ok else None,
                "winners": ",".join(map(str, winners)) if ok else None,
                "margin": margin,
                "opponent_score": g.opponent_score,
                "error": g.error,
            }
        )
    # through Arrow, so the frames have the dtypes of a run read from disk
    seats = pa.Table.from_pylist(seat_rows, schema=tables.SEATS_SCHEMA).to_pandas()
    extra = {c for g in games for c in g.seat} - set(tables.SEATS_SCHEMA.names)
    for column in sorted(extra):  # columns the schema does not know (expansions to come)
        seats[column] = pd.Series([r.get(column) for r in seat_rows], dtype="float64")
    return seats, pa.Table.from_pylist(game_rows, schema=tables.GAMES_SCHEMA).to_pandas()


EXPANSION_SETS = [
    "none",
    "ghost_piece",
    "ambassador_pack",
    "finesse",
    "phoenix",
    "ghost_piece+ambassador_pack",
    "ghost_piece+finesse",
    "ghost_piece+phoenix",
    "ambassador_pack+finesse",
    "ambassador_pack+phoenix",
    "finesse+phoenix",
    "ghost_piece+ambassador_pack+finesse",
    "ghost_piece+ambassador_pack+phoenix",
    "ghost_piece+finesse+phoenix",
    "ambassador_pack+finesse+phoenix",
    "ghost_piece+ambassador_pack+finesse+phoenix",
]


def grid_tables(
    rng: Any,
    *,
    games: int = 40,
    players: Sequence[int] = (2, 3, 4),
    lineups: Sequence[Sequence[str]] = (("a",),),
    planted: dict[tuple[int, str], float] | None = None,
    drop: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return tables of a grid: player counts x the 16 expansion sets x line-ups (less ``drop``).

    The first player wins with probability 1/N, or ``planted[(players, expansions)]``; game
    length is about 20 rounds. Each configuration has its own ``config_id``, deals 0, 1, ...
    """
    planted = planted or {}
    seat_frames, game_frames = [], []
    cells = [(n, e, lu) for n in players for lu in lineups for e in EXPANSION_SETS]
    for config, (n, expansions, lineup) in enumerate(cells[: len(cells) - drop]):
        bots = [lineup[i % len(lineup)] for i in range(n)]
        p_first = planted.get((n, expansions), 1 / n)
        batch = []
        for _ in range(games):
            first = rng.random() < p_first
            winner = 0 if first else int(rng.integers(1, n))
            ranks = [1 if s == winner else 2 + (s > winner) + s % 2 for s in range(n)]
            scores = [20 if s == winner else 10 + s for s in range(n)]
            batch.append(
                G(bots, scores, ranks, rounds=int(rng.integers(15, 26)), expansions=expansions)
            )
        seats, table = make_tables(batch)
        for frame in (seats, table):
            frame["config_id"] = config
            frame["deal"] = frame["game_id"]
            frame["seed"] = config * 100_000 + frame["game_id"]  # independent configurations
        seat_frames.append(seats)
        game_frames.append(table)
    seats = pd.concat(seat_frames, ignore_index=True)
    table = pd.concat(game_frames, ignore_index=True)
    pairs = zip(table["config_id"], table["game_id"], strict=True)
    ids = {key: i for i, key in enumerate(pairs)}
    for frame in (seats, table):  # game ids unique over the run
        keys = zip(frame["config_id"], frame["game_id"], strict=True)
        frame["game_id"] = [ids[key] for key in keys]
    return seats, table
