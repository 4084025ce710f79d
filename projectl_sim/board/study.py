"""A position as a study: each action of the seat to move played out on shared deals, as a run.

"What should I do here": from a position (``board.position``), each action the seat to move may
take is played, then the game to its end by the chosen bots, ``games`` times. The study is a run
(``sim.position_study``): each action is a configuration of it, so it is played by the runner
(``--jobs``, ``--backend dask``, ``--resume``, the same tables for any of them) and its tables
are a run's (``seats`` and ``games``, with an ``action`` column). Game ``g`` of every action
shares its game seed: the same deal of what the seat to move cannot see (drawn again from its
view) and the same seeds for the bots, so the actions differ by the action alone and two
actions compare paired.

The actions studied are the ``value`` bot's candidates (its heuristic's narrowing of the legal
actions: every take and upgrade, the placements worth considering) or, with ``every``, each
legal action, and any action named beside them (the one a record played). ``study_rows`` reads
the run's seat-to-move rows (its win share and its margin over the best rival per game), and
``study_summary`` gives per action the win rate with its 95% Wilson interval (a tie's shared win
counted as its share), the mean margin, and the paired difference from the best action with its
95% interval (the games' differences, clustered by deal), best first.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis.stats.intervals import wilson
from projectl_sim.analysis.stats.paired import paired_difference
from projectl_sim.board.position import Position
from projectl_sim.engine.actions import Action
from projectl_sim.errors import UsageError
from projectl_sim.sim import tables
from projectl_sim.sim.position_study import action_text, study_actions
from projectl_sim.sim.spec import GameConfig


def study_config(
    path: str | Path,
    position: Position,
    bots: Sequence[str],
    games: int,
    seed: int,
    *,
    step: int | None = None,
    every: bool = False,
    also: Sequence[Action] = (),
) -> dict[str, Any]:
    """Return the run configuration of a study of ``position`` (read from ``path``, a record
    cut at ``step`` or a position file): one bot per seat, ``games`` per action."""
    state = position.state
    actions = study_actions(state, every)
    actions += [a for a in also if a not in actions]
    return {
        "bots": [",".join(bots)],
        "position": str(path),
        "step": step,
        "actions": [action_text(a, state) for a in actions],
        "games": games,
        "seed": seed,
        "tables": "core",
    }


def study_seat(run_dir: str | Path) -> int:
    """Return the seat to move of a study run (its position's)."""
    manifest = tables.read_manifest(Path(run_dir))
    configs = manifest.get("configs") or []
    if not configs or not configs[0].get("position"):
        raise UsageError(f"{run_dir} is a run, not a study (its games start from the deal)")
    return GameConfig.from_json(configs[0]).study_position().seat


def study_rows(seats: pd.DataFrame, seat: int, games: pd.DataFrame | None = None) -> pd.DataFrame:
    """Return one row per action and game of a study's seats table: the seat to move's win
    share and its margin over the best rival (solo: the mastermind, the ``games`` table's
    ``opponent_score``); ``deal``: the game's deal, shared by the actions; errors left out."""
    ok = seats[seats["error"].isna()]
    rival = ok[ok["seat"] != seat].groupby("game_id")["score"].max()
    if games is not None and "opponent_score" in games:
        mastermind = games.set_index("game_id")["opponent_score"].dropna()
        rival = rival.combine_first(mastermind)
    mine = ok[ok["seat"] == seat].set_index("game_id")
    mine = mine.assign(margin=mine["score"] - rival.reindex(mine.index))
    out = mine.reset_index()[["action", "deal", "seed", "game_id", "win_share", "margin"]]
    return out.sort_values(["action", "deal"]).reset_index(drop=True)


def study_summary(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """Return per action: games, win rate and its 95% Wilson interval, mean margin, and the
    paired difference in win rate from the best action (``diff``, ``diff_low``,
    ``diff_high``; the best's own: 0); best first (by win rate, then margin)."""
    out = []
    for action, mine in rows.groupby("action", sort=False):
        n = len(mine)
        wins = float(mine["win_share"].sum())
        low, high = wilson(wins, n)
        out.append(
            {
                "action": action,
                "games": n,
                "win_rate": round(wins / n, 4),
                "low": round(float(low), 4),
                "high": round(float(high), 4),
                "margin": round(float(mine["margin"].mean()), 2),
            }
        )
    out.sort(key=lambda r: (-r["win_rate"], -r["margin"], r["action"]))
    if not out:
        return out
    by_deal = rows.pivot_table(index="deal", columns="action", values="win_share")
    best = by_deal[out[0]["action"]].to_numpy()
    for r in out:
        other = by_deal[r["action"]].to_numpy()
        d = paired_difference(best, other, by_deal.index.to_numpy(), "rate")
        # a difference of two rates lies in [-1, 1]: so does its interval (a few games' t
        # interval may reach past it)
        r["diff"], r["diff_low"], r["diff_high"] = (
            (np.nan,) * 3
            if d is None
            else (d["diff"], max(-1.0, d["ci_low"]), min(1.0, d["ci_high"]))
        )
    return out


def study_command(run_dir: str | Path) -> str | None:
    """Return the ``projectl-sim study`` command that prints the answer of the study in
    ``run_dir`` (asked again, a finished study plays nothing); None when it holds no study."""
    import json
    import shlex

    from projectl_sim.sim.position_study import action_text

    path = Path(run_dir) / tables.MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # no run there: the command's own reader says so
    config = manifest.get("config") if isinstance(manifest, dict) else None
    configs = (manifest.get("configs") or []) if isinstance(manifest, dict) else []
    if not isinstance(config, dict) or not config.get("position") or not configs:
        return None
    lineup = [str(b) for b in configs[0].get("lineup", ())]
    bots = lineup[:1] if len(set(lineup)) == 1 else lineup
    words = ["projectl-sim", "study", str(config["position"])]
    if config.get("step") is not None:
        words += ["--step", str(config["step"])]
    words += ["--bots", (";" if any("," in b for b in bots) else ",").join(bots)]
    words += ["--games", str(config.get("games")), "--seed", str(config.get("seed"))]
    try:  # more than the value bot's candidates (and the record's move): every legal action
        state = GameConfig.from_json(configs[0]).study_position().state
        candidates = {action_text(a, state) for a in study_actions(state)}
        if len(set(config.get("actions") or ()) - candidates) > 1:
            words.append("--every-action")
    except UsageError:
        pass  # the position file moved or changed: the command names it all the same
    return " ".join(shlex.quote(w) for w in [*words, "--out", str(run_dir)])


def refuse_a_study(run_dir: str | Path, command: str) -> None:
    """Raise a one-line ``UsageError`` when ``run_dir`` holds a study, which ``command`` (a
    reader of a run's configurations: seats, expansions, line-ups) would misread."""
    again = study_command(run_dir)
    if again is not None:
        raise UsageError(
            f"{run_dir} holds a study of one position (a configuration per action), which "
            f"{command} does not read: its answer is printed by {again}"
        )


__all__ = [
    "refuse_a_study",
    "study_actions",
    "study_command",
    "study_config",
    "study_rows",
    "study_seat",
    "study_summary",
]
