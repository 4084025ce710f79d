"""A played game's table rows, and the names the tables use, without any table library.

What a worker process needs to turn a finished game into rows: ``game_rows`` (one row per seat,
one per game), the action kinds the rows count, and the check that a hook's columns are
declared. ``projectl_sim.sim.tables`` writes these rows to part files with pyarrow; keeping
them apart means a worker, which only plays games and sends rows back, never imports pyarrow
(about 0.13 s of CPU at every worker's start).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from projectl_sim.engine import GameState
from projectl_sim.registry import declared_columns

# what --tables and --format accept: all tables (with the flow's) or the core ones; file formats
TABLE_SETS = ("all", "core")
FORMATS = ("parquet", "csv")

# Action kinds as game records name them (a deck take is written as "take").
ACTION_KINDS = (
    "take",
    "recycle",
    "take_basic",
    "upgrade",
    "place",
    "master",
    "reward",
    "finish",
    "insert",
    "ghost",
    "level_up",
    "ambassador",
)
RECORD_KIND = {"take_deck": "take"} | {k: k for k in ACTION_KINDS}


class ColumnError(ValueError):
    """A hook returned a column its class does not declare (it would be lost)."""


def declared_by(x: Any, table: str, hook: str, values: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return a hook's columns, once each is checked to be declared by its class."""
    declared = {c.name for c in getattr(x, "columns", ()) if c.table == table}
    undeclared = sorted(set(values) - declared)
    if undeclared:
        owner = getattr(x, "name", "") or getattr(x, "variant_name", "") or type(x).__name__
        raise ColumnError(
            f"{owner}.{hook} returned the column {undeclared[0]!r}, which {type(x).__name__} "
            f"does not declare: add Column({undeclared[0]!r}, TYPE, HELP"
            f"{', table=' + repr(table) if table != 'seats' else ''}) to its columns"
        )
    return values


# -- rows ----------------------------------------------------------------------------------------
def _ranks(scores: Sequence[int], winners: Sequence[int]) -> list[int]:
    """Rank 1 for every winner; below, 1 + how many seats beat this one (equal scores share)."""
    won = set(winners)

    def beats(a: int, b: int) -> bool:
        return scores[a] > scores[b] or (scores[a] == scores[b] and a in won and b not in won)

    n = len(scores)
    return [1 + sum(beats(q, p) for q in range(n) if q != p) for p in range(n)]


def game_rows(
    ident: Mapping[str, Any],
    *,
    rotation: int,
    seats: Sequence[str],
    state: GameState,
    actions: Sequence[Mapping[str, int]],
    decision_seconds: Sequence[float],
    duration: float,
    decision_cpu_seconds: Sequence[float] | None = None,
    error_seat: int | None = None,
    error: str | None = None,
    labels: Sequence[str] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Return the seat rows and the game row of one played (or failed) game.

    ``ident`` holds the columns shared with the game's configuration (run_id, game_id, seed,
    config_id, players, variant, expansions, switches, lineup, deal). A failed game (a bot raised
    or chose an illegal action) keeps its counts so far but has no score, rank or winner; every
    one of its rows carries the error. ``seats`` are the bots' specs, ``labels`` the names they
    go by (``GameConfig.labels``: a user's bot by the name its class declares; by default the
    specs): ``bot`` and ``winning_bots`` hold the names, ``bot_spec`` the spec that builds the
    bot again.
    """
    n = len(seats)
    names = list(seats if labels is None else labels)
    t = state.tables
    hooks = state.hooks
    ok = error is None
    solo = state.rules.solo
    scores = state.final_scores() if ok else [None] * n
    winners = state.winners() if ok else []
    opponent = state.opponent_score() if ok and solo else None
    if not ok:
        ranks: list[int | None] = [None] * n
    elif solo:  # the opponent is the other competitor: beaten, or ahead (ties go to it)
        ranks = [1 if winners else 2]
    else:
        ranks = list(_ranks(scores, winners))  # type: ignore[arg-type]
    # which provisional data the game used: the catalogue's provisional puzzle sets, and what
    # the expansions name (Finesse: its tiles, when the game's row holds a provisional one)
    used = list(state.rules.catalogue.provisional_sets)
    for x in hooks.provisional:
        used.extend(x.provisional(state))
    provisional = bool(used)
    provisional_sets = "+".join(used) or None
    puzzle_ids = [puzzle.id for puzzle in state.rules.catalogue.puzzles]
    # completed cards no longer in the pile (Endless: the noted white puzzles)
    elsewhere = [state.completed_elsewhere(p) for p in range(n)]
    seat_rows = []
    for p in range(n):
        done = state.piles[p]
        decisions = sum(actions[p].values())
        penalty = (
            sum(t.points[s[0]] for s in state.slots[p]) if state.rules.unfinished_penalty else 0
        )
        row = dict(ident)
        row |= {
            "seat": p,
            "first_player": state.first_player,
            "turn_order": (p - state.first_player) % n,
            "bot": names[p],
            "bot_spec": seats[p],
            "score": scores[p],
            "rank": ranks[p],
            "won": (p in winners) if ok else None,
            "win_share": (1 / len(winners) if p in winners else 0.0) if ok else None,
            "completed_white": sum(1 for c in done if not t.is_black[c])
            + sum(1 for c in elsewhere[p] if not t.is_black[c]),
            "completed_black": sum(1 for c in done if t.is_black[c])
            + sum(1 for c in elsewhere[p] if t.is_black[c]),
            "unfinished": len(state.slots[p]),
            "unfinished_penalty": penalty,
            "finishing_pieces": state.ft_pieces[p],
            "points_from_puzzles": state.scores[p],
            "pieces_final": sum(state.supply[p]),
            # Endless: the noted white puzzles (reshuffled away) first, then the pile
            "puzzles_completed": " ".join(puzzle_ids[c] for c in (*elsewhere[p], *done)) or None,
            "puzzles_unfinished": " ".join(puzzle_ids[s[0]] for s in state.slots[p]) or None,
        }
        row |= {f"actions_{k}": actions[p].get(k, 0) for k in ACTION_KINDS}
        # the declared columns (null where the game does not play their class)
        row |= dict.fromkeys(declared_columns("seats"))
        for x in hooks.seat_columns:
            row |= declared_by(x, "seats", "seat_columns", x.seat_columns(state, p))
        row |= declared_by(state, "seats", "variant_seat_columns", state.variant_seat_columns(p))
        row |= {
            "decisions": decisions,
            "decision_time_mean": decision_seconds[p] / decisions if decisions else None,
            "decision_cpu_mean": (
                decision_cpu_seconds[p] / decisions
                if decisions and decision_cpu_seconds is not None
                else None
            ),
            "provisional_data": provisional,
            "provisional_sets": provisional_sets,
            "error": error,
        }
        seat_rows.append(row)
    margin = None
    if ok and solo:
        margin = scores[0] - opponent  # negative when the opponent won
    elif ok:
        best_other = max((s for p, s in enumerate(scores) if p not in winners), default=None)
        margin = scores[winners[0]] - best_other if best_other is not None else 0
    game = dict(ident) | {
        "rotation": rotation,
        "seats": ",".join(seats),
        "first_player": state.first_player,
        "rounds": state.round,
        "turns": state.turn - 1,
        "decisions": sum(sum(a.values()) for a in actions),
        "end_reason": state.end_reason if ok else None,
        "winners": ",".join(map(str, winners)) if ok else None,
        "winning_bots": ",".join(names[w] for w in winners) if ok else None,
        "margin": margin,
        "opponent_score": opponent,
        **dict.fromkeys(declared_columns("games")),
        "duration": duration,
        "provisional_data": provisional,
        "provisional_sets": provisional_sets,
        "error_seat": error_seat,
        "error": error,
    }
    for x in hooks.game_columns:
        game |= declared_by(x, "games", "game_columns", x.game_columns(state))
    game |= declared_by(state, "games", "variant_game_columns", state.variant_game_columns())
    return seat_rows, game
