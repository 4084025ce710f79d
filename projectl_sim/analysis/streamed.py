"""The summary's detail tables from a run's tables read a window of games at a time.

``summary_text`` of a run folder whose questions are all counts reads its seats, games and
rounds here, a window of whole deals at a time (``tables.scan``), and keeps only what each
question adds up: the header's counts, the seats' win shares per configuration and turn order,
the decision times per bot and the game flow per configuration as clustered moments
(``stats.clusters.Moments``: two windows of different deals add up), the win-rate tables' sums,
and the failure states' counts. The detail tables are then made by the functions the whole
tables go through (``seat_advantage_of``, ``win_rates_of``, ``decision_times_of``,
``flow_summary_of``) and fed to ``findings``, so the text is the same and nothing is decided
here; the memory is a window's, whatever the run's size.

A run is counted so when each line-up seats one bot (no pair, rating or seat left unmeasured),
no configuration has its base game beside it (no effect), and it has no tiers, deal replicates,
precision target or round robin (their questions pair games across the table): the others
(``streamed_details`` returns None) are read whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis import failures
from projectl_sim.analysis.data import ANSWER_COLUMNS, Run, named_bots
from projectl_sim.analysis.factors import CONFIG, EFFECT_COLUMNS, comparisons_of
from projectl_sim.analysis.findings import findings
from projectl_sim.analysis.game_flow import (
    FLOW_BY,
    ROUND_COLUMNS,
    flow_moments,
    flow_summary_of,
    game_flow,
)
from projectl_sim.analysis.outcomes import (
    WIN_TABLES,
    seat_advantage_of,
    seat_moments,
    win_rates_of,
    win_sums,
)
from projectl_sim.analysis.ratings import pair_results, rate_bots
from projectl_sim.analysis.rows import finished_games, finished_seats
from projectl_sim.analysis.stats.clusters import Moments
from projectl_sim.analysis.timing import (
    DECISION_TIME_COLUMNS,
    TIME_COLUMNS,
    decision_times_of,
    time_moments,
)
from projectl_sim.sim import tables
from projectl_sim.sim.summary import provenance_counts

__all__ = ["countable", "header_counts", "streamed_details", "windows"]


def countable(manifest: dict[str, Any]) -> bool:
    """Return whether a run's manifest allows its summary from counts: one bot per line-up, no
    tiers, deal replicates, precision target or round robin (effects are checked on the
    configurations its tables hold)."""
    config = manifest.get("config") or {}
    if config.get("round_robin") or manifest.get("precision") or config.get("tiers"):
        return False
    if int(config.get("deal_replicates") or 1) > 1:
        return False
    configs = manifest.get("configs")
    if not configs:
        return False
    return all(len(set(c.get("lineup") or [])) == 1 and not c.get("tier") for c in configs)


def header_counts(games: pd.DataFrame) -> dict[str, Any]:
    """Return what the summary's first lines read of some games (``_header_lines``): counts a
    window's add to another's (``streamed``), and the first row of each configuration."""
    ok = finished_games(games)
    return {
        "games": len(games),
        "failed": int(games["error"].notna().sum()),
        "configs": games.drop_duplicates(CONFIG),
        "reasons": ok["end_reason"].value_counts(),
        "finished": len(ok),
        "shared": int((ok["winners"].fillna("").str.count(",") > 0).sum()),
        "provenance": provenance_counts(games),
    }


def _add(into: dict, more: dict) -> None:
    for key, value in more.items():
        into[key] = into[key] + value if key in into else value


def _whole_deals(windows: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """Yield windows holding every row of their deals: the rows of a window's last seed wait for
    the next window (a deal's games have consecutive ids)."""
    rest: pd.DataFrame | None = None
    for window in windows:
        if rest is not None:
            window = pd.concat([rest, window], ignore_index=True)
        if window.empty:
            continue
        last = window["seed"].iloc[-1]
        ending = (window["seed"] == last).to_numpy()
        rest = window[ending]
        if (~ending).any():
            yield window[~ending].reset_index(drop=True)
    if rest is not None and len(rest):
        yield rest.reset_index(drop=True)


class _Aligned:
    """Rows of a table read in game-id order, handed out up to a game id at a time."""

    def __init__(self, windows: Iterator[pd.DataFrame], columns: Sequence[str]) -> None:
        self.windows = windows
        self.held = pd.DataFrame(columns=list(columns))
        self.done = False

    def upto(self, last: int | None) -> pd.DataFrame:
        """Return the rows not handed out yet whose game id is at most ``last`` (None: all)."""
        parts = [self.held]
        while not self.done and (
            last is None or parts[-1].empty or parts[-1]["game_id"].max() <= last
        ):
            more = next(self.windows, None)
            if more is None:
                self.done = True
            else:
                parts.append(more)
        rows = (
            pd.concat([p for p in parts if len(p)], ignore_index=True)
            if len(parts) > 1
            else parts[0]
        )
        if last is None:
            self.held = rows[:0]
            return rows
        inside = (rows["game_id"] <= last).to_numpy()
        self.held = rows[~inside].reset_index(drop=True)
        return rows[inside].reset_index(drop=True)


def windows(
    run_dir: Path, names: dict[str, str]
) -> Iterator[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]]:
    """Yield a run's seats, games and rounds (None without a rounds table) a window of whole
    deals at a time, in game-id order: ``ANSWER_COLUMNS`` of the first two, bots named as
    ``load_run`` names them."""

    def scan(name: str, columns: Sequence[str]) -> Iterator[pd.DataFrame]:
        for window in tables.scan(run_dir, name, columns):
            yield window.to_pandas(use_threads=False)

    games = _Aligned(scan("games", ANSWER_COLUMNS["games"]), ANSWER_COLUMNS["games"])
    has_rounds = "rounds" in tables.written_tables(run_dir)
    rounds = _Aligned(scan("rounds", ROUND_COLUMNS), ROUND_COLUMNS) if has_rounds else None
    seats_windows = _whole_deals(scan("seats", ANSWER_COLUMNS["seats"]))
    window = next(seats_windows, None)
    while window is not None:
        after = next(seats_windows, None)
        last = None if after is None else int(window["game_id"].max())
        g = games.upto(last)
        r = rounds.upto(last) if rounds is not None else None
        yield named_bots(window, names), named_bots(g, names), r
        window = after
    if window is None and not games.done:  # games without seat rows (none expected)
        g = games.upto(None)
        if len(g):
            yield pd.DataFrame(columns=list(ANSWER_COLUMNS["seats"])), named_bots(g, names), None


# the states ``failures.endings`` and ``failures.tie_breaks`` find, in their order
_WINDOW_STATES = ("stall", "round limit", "decision cap", "tie-break", "shared win")


def _merge_states(parts: list[failures.FailureState], total: int) -> list[failures.FailureState]:
    """Return the failure states of windows as one per state (in ``failures.CHECKS``' order):
    games added up, the first examples, of ``total`` finished games."""
    merged: dict[str, failures.FailureState] = {}
    for f in sorted(parts, key=lambda f: _WINDOW_STATES.index(f.state)):
        held = merged.get(f.state)
        if held is None:
            merged[f.state] = failures.FailureState(f.state, f.detail, f.games, total, f.examples)
        else:
            examples = (*held.examples, *f.examples)[: failures.EXAMPLES]
            merged[f.state] = failures.FailureState(
                f.state, f.detail, held.games + f.games, total, examples
            )
    return list(merged.values())


def streamed_details(run_dir: Path) -> dict[str, Any] | None:
    """Return the summary's detail tables of a run folder read window by window (as
    ``answers.whole_details`` gives them from the whole tables), or None for a run whose
    questions are not all counts."""
    with tables.system_pool():
        return _streamed_details(run_dir)


def _streamed_details(run_dir: Path) -> dict[str, Any] | None:
    if not run_dir.is_dir() or not (run_dir / tables.MANIFEST).exists():
        return None
    manifest = tables.read_manifest(run_dir)
    if not countable(manifest):
        return None
    names = manifest.get("bot_names") or {}
    header: dict[str, Any] = {}
    configs: pd.DataFrame | None = None  # the first row of each configuration, so far
    seats_moments: dict[tuple, Moments] = {}
    sums: dict[str, list[pd.DataFrame]] = {name: [] for name in WIN_TABLES}
    timed: dict[str, dict[tuple, Moments]] = {c: {} for c in TIME_COLUMNS}
    clocks: set[str] = set()
    flow: dict[tuple, dict[str, Moments]] = {}
    flow_by: list[str] | None = None
    states: list[failures.FailureState] = []
    finished_ids: list[np.ndarray] = []
    bots: dict[Any, set[str]] = {}
    first: pd.DataFrame | None = None
    seat_by = list(dict.fromkeys([*CONFIG, "players"]))
    for seats, games, rounds in windows(run_dir, names):
        counts = header_counts(games)
        seen_configs = counts.pop("configs")
        if configs is None:
            configs = seen_configs
        else:  # kept merged: a frame a window would grow with the games
            configs = pd.concat([configs, seen_configs]).drop_duplicates(CONFIG)
        reasons = counts.pop("reasons")
        provenance = counts.pop("provenance")
        _add(header, counts)
        header["reasons"] = reasons.add(header.get("reasons", reasons[:0]), fill_value=0)
        total, used, seen, failed = provenance
        held = header.get("provenance", (0, 0, set(), None))
        header["provenance"] = (held[0] + total, held[1] + used, held[2] | seen, held[3] or failed)
        for config, bot in seats.groupby("config_id", observed=True)["bot"]:
            bots.setdefault(config, set()).update(bot.astype(str).unique())
        if first is None and len(seats):
            first = seats
        ok = finished_seats(seats)
        _add(seats_moments, seat_moments(ok[ok["players"] > 1], seat_by))
        for name, by in WIN_TABLES.items():
            sums[name].append(win_sums(ok, by))
        for column in TIME_COLUMNS:
            if column in seats and seats[column].notna().any():
                clocks.add(column)
                _add(timed[column], time_moments(ok, ["bot"], column))
        ok_games = finished_games(games)
        finished_ids.append(ok_games["game_id"].to_numpy())
        window_run = Run(run_dir, seats, games, manifest)
        states += failures.endings(window_run) + failures.tie_breaks(window_run)
        if rounds is not None:
            part = game_flow(rounds, games)
            flow_by = [c for c in FLOW_BY if c in part]
            if len(part):
                for key, held_moments in flow_moments(part, flow_by).items():
                    if key in flow:
                        _add(flow[key], held_moments)
                    else:
                        flow[key] = held_moments
    if first is None or configs is None or any(len(b) > 1 for b in bots.values()):
        return None
    header["configs"] = configs
    keys = [tuple(r) for r in header["configs"][CONFIG].itertuples(index=False)]
    if comparisons_of(sorted(set(keys), key=str)):
        return None  # an effect pairs games across configurations: read whole
    header["reasons"] = header["reasons"].astype("int64")
    run = Run(run_dir, first[:0], header["configs"], manifest)
    details: dict[str, Any] = {"run": run, "header": header}
    if not header["finished"]:
        return details
    column = next((c for c in TIME_COLUMNS if c in clocks), None)
    times = (
        decision_times_of(timed[column], ["bot"], column)
        if column
        else pd.DataFrame(columns=DECISION_TIME_COLUMNS)
    )
    win_tables = {}
    for name, by in WIN_TABLES.items():
        added = pd.concat(sums[name]).groupby(by, sort=True, observed=True).sum().reset_index()
        win_tables[name] = win_rates_of(added, by)
    finished = np.concatenate(finished_ids)
    ids_run = Run(run_dir, first[:0], pd.DataFrame({"game_id": finished, "error": None}), manifest)
    states = _merge_states(states, len(finished))
    states += failures.no_legal_action(ids_run) + failures.never_taken(ids_run)
    flow_table = None
    if flow_by is not None:
        flow_table = (
            flow_summary_of(flow, flow_by) if flow else pd.DataFrame(columns=[*flow_by, "games"])
        )
    seat_table = seat_advantage_of(seats_moments, seat_by, {})
    effect_table = pd.DataFrame(columns=EFFECT_COLUMNS)
    # one bot per line-up: no game seats two different bots, in any window as in the whole
    pairs = pair_results(first, by=("players",))
    rated = rate_bots(first)
    details |= {
        "seat_table": seat_table,
        "effects": effect_table,
        "pairs": pairs,
        "rated": rated,
        "times": times,
        "win_tables": win_tables,
        "flow": flow_table,
        "states": states,
        "inter": None,
        "extra": [],
    }
    details["found"] = findings(
        first[:0],
        header["configs"],
        seat_table=seat_table,
        effect_table=effect_table,
        pairs=pairs,
        rated=rated,
        times=times,
        flow=flow_table,
        failures=states,
    )
    return details
