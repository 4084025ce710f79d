"""The skill ladder: every shipped bot and budget rated on one scale, with its cost beside.

``ladder`` plays a round robin of the bots (2 players by default, every pair on the same deals
under both seatings: the runner's ``round_robin``, so the run is resumable and growable like any
other) and fits one joint Plackett-Luce model over all its games
(``analysis.ratings.plackett_luce``: at 2 players the same model as Bradley-Terry), Elo-scaled
and anchored on greedy (0; a ladder without greedy has its rated bots' mean at 0), the scale
named in the table's ``scale`` column, on the chart's axis and above the text, with
profile-likelihood 95% intervals. Beside each rating: the bot's
CPU time per decision (the seats table's ``decision_cpu_mean``, weighted by decisions). Written
to ``ladder.csv`` and ``ladder.png`` (rating against CPU per decision, log scale) in the folder.
Games that ended in an error row (a bot that raised) are left out of the fit and counted in the
table's ``attrs["failed"]``; a run with no finished game to rate is a ``RunFailed`` naming the
first error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# The shipped bots and budgets, cheapest first (the default ladder).
LADDER_BOTS: tuple[str, ...] = (
    "random",
    "setter",
    "builder",
    "recycler",
    "greedy",
    "rusher",
    "value",
    "value:ply=2",
    "mcts:leaf=value",
    "mcts:iterations=50",
    "mcts:leaf=value,iterations=200",
    "mcts",
    "mcts:iterations=800",
)
LADDER_COLUMNS = [
    "bot",
    "rating",
    "ci_low",
    "ci_high",
    "games",
    "wins",
    "match_score",
    "cpu_ms",
    "note",
    "scale",
]


def ladder_table(seats: pd.DataFrame, anchor: str = "greedy") -> pd.DataFrame:
    """Return the ladder of a run's seats table: ratings, intervals, CPU per decision, and the
    scale the ratings are on (``scale``: ``Elo, greedy = 0``; without the anchor, the rated
    bots' mean is 0)."""
    from projectl_sim.analysis.ratings import rate_bots

    table = rate_bots(seats, anchor)
    seats = seats[seats["decisions"] > 0]
    cpu = (seats["decision_cpu_mean"] * seats["decisions"]).groupby(seats["bot"]).sum()
    per = cpu / seats.groupby("bot")["decisions"].sum() * 1000
    table["cpu_ms"] = table["bot"].map(per)
    return table.reindex(columns=LADDER_COLUMNS)


def plot_ladder_cost(table: pd.DataFrame, ax: Any = None) -> Any:
    """Draw each bot's rating (with its interval) against its CPU time per decision."""
    from projectl_sim.analysis import plots

    if ax is None:
        ax = plots.new_axes(8.0, 5.0)
    finite = table[np.isfinite(table["rating"]) & (table["cpu_ms"] > 0)]
    x = finite["cpu_ms"].to_numpy()
    y = finite["rating"].to_numpy()
    lo = np.where(np.isfinite(finite["ci_low"]), y - finite["ci_low"], 0)
    hi = np.where(np.isfinite(finite["ci_high"]), finite["ci_high"] - y, 0)
    ax.errorbar(x, y, yerr=[lo, hi], fmt="o", capsize=3, color="#1f5f99")
    ax.set_xscale("log")
    ax.set_xlabel("CPU time per decision (ms, log scale)")
    ax.set_ylabel(f"rating ({_scale(table)})")
    names = [str(b) for b in finite["bot"]]
    # the hashes of the bots that name no model (the shipped one's); a bot that names its model
    # (``model=``) is told by that name
    hashes = sorted({h for h in (_model_hash(b) for b in names if "model=" not in b) if h})
    named = any("model=" in b for b in names)
    # one model for all: its hash once, in the title; several: each name keeps its own
    title = "Skill ladder: strength against cost"
    if len(hashes) == 1:
        title += f" (value model #{hashes[0]}{' unless named' if named else ''})"
    ax.set_title(title)
    ax.axhline(0.0, color="grey", lw=0.8, ls=":")
    ax.margins(x=0.25, y=0.12)
    # names beside the points where they fit (the strongest first), never over each other; a
    # name that fits nowhere gives way to a number, spelled out in the key below: the key's
    # lines numbered 1, 2, 3 in the points' order (strongest first), the named points skipped
    order = np.argsort(-y)
    short = [_short(b, len(hashes) == 1 or "model=" in b) for b in names]
    plots.place_labels(ax, [(short[k], x[k], y[k]) for k in order], 8)
    placed = {t.get_text() for t in ax.texts}
    missing = [k for k in order if short[k] not in placed]
    if missing:
        number = {k: i + 1 for i, k in enumerate(missing)}
        plots.place_labels(ax, [(str(number[k]), x[k], y[k]) for k in missing], 8)
        key = "\n".join(f"{number[k]}: {short[k]}" for k in missing)  # one a line: long names
        ax.set_xlabel(ax.get_xlabel() + "\n" + key, fontsize=8)
    return ax


def _scale(table: pd.DataFrame) -> str:
    """Return the scale a ladder's ratings are on (a table without the column: greedy = 0)."""
    if "scale" in table and len(table):
        return str(table["scale"].iloc[0])
    return "Elo, greedy = 0"


def _model_hash(spec: str) -> str:
    return spec.split("hash=")[1][:12] if "hash=" in spec else ""


def _short(spec: str, drop_hash: bool) -> str:
    """Return a bot's name for the chart: its whole spec (a cut one can read as another bot: a
    value search cut to a rollout search), without its model's hash when the title names the
    one model."""
    if drop_hash:
        return spec.replace(":hash=" + _model_hash(spec), "").replace(
            ",hash=" + _model_hash(spec), ""
        )
    return spec.split(":hash=")[0].replace(",hash=", " #")


def ladder(
    out: Path,
    bots: tuple[str, ...] = LADDER_BOTS,
    *,
    games: int = 40,
    seed: int = 1,
    players: int = 2,
    options: Any = None,
) -> pd.DataFrame:
    """Play (or finish) the round robin in ``out/run``; write and return the ladder."""
    from projectl_sim.analysis.data import load_run
    from projectl_sim.errors import RunFailed
    from projectl_sim.sim import runner, tables
    from projectl_sim.sim.spec import RunSpec

    run_dir = out / "run"
    spec = RunSpec.from_mapping(
        {"round_robin": ",".join(bots), "games": games, "seed": seed, "players": [players]}
    )
    resume = (run_dir / "manifest.json").exists()
    if resume:
        tables.read_manifest(run_dir)
    runner.run(spec, run_dir, resume=resume, options=options)
    run = load_run(run_dir)
    seats, games = run.seats, run.games
    errors = games["error"].dropna() if "error" in games else pd.Series(dtype=object)
    table = ladder_table(seats)
    first = str(errors.iloc[0]).splitlines()[0] if len(errors) else ""
    if table.empty:
        why = f" ({len(errors)} of {len(games)} games are error rows; the first: {first})"
        raise RunFailed(
            f"ladder: no finished game to rate{why if len(errors) else ''}: see {run_dir}"
        )
    table.attrs["failed"] = (len(errors), len(games), first)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "ladder.csv", index=False)
    ax = plot_ladder_cost(table)
    from projectl_sim.analysis import plots

    plots.save(ax, out / "ladder.png", dpi=110)
    return table


def format_ladder(table: pd.DataFrame) -> str:
    """Return the ladder as text, best first, under the scale its ratings are on."""
    lines = [f"ratings: {_scale(table)}, 95% profile-likelihood intervals"]
    lines += [f"{'bot':44s} {'rating':>7s} {'95% interval':>17s} {'games':>6s} {'ms/dec':>8s}"]
    for r in table.itertuples(index=False):
        lines.append(
            f"{r.bot:44s} {r.rating:7.0f} [{r.ci_low:6.0f}, {r.ci_high:6.0f}] {int(r.games):6d} "
            f"{r.cpu_ms:8.3f}"
        )
    return "\n".join(lines)


__all__ = ["LADDER_BOTS", "format_ladder", "ladder", "ladder_table", "plot_ladder_cost"]
