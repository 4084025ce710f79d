"""Precision on demand: grow a run batch by batch until every requested interval is narrow enough.

``run --until-precision W`` plays a first batch (``--games`` per configuration, default 100),
then after each batch asks ``analysis.sequential.precision_check`` whether every requested
interval is at most ``W`` wide, and if not grows the same run (``--resume --games N``: the same
seeds, new deals after the old ones) by the next batch, until it is, or until every
configuration has played ``--max-games`` games. The intervals are anytime-valid confidence
sequences, so looking after every batch and stopping on what they show keeps them valid (see
that module); the request is stored in the manifest (``manifest["precision"]``), so ``summary``
prints those intervals, and ``run --out OUT --resume`` after a Ctrl-C goes on with the loop.

The loop is an experiment (it drives the runner, ``projectl_sim.sim``, and asks the analysis,
which the runner never imports); the command line parses the request and calls it.

**Batches.** Each batch multiplies the games per configuration by the factor the widest
interval (relative to its target) asks for if its width falls as ``n ** -2/3`` (between the
``1/n`` of a sequence tuned for more deals than it has and the ``1/sqrt(n)`` after), at least
1.25 and at most 2, and never beyond the maximum: few batches (each one a session that reopens
and rewrites the tables), and a stop at most a quarter past the games the target needs when
the guess is right.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from projectl_sim.analysis import labels
from projectl_sim.analysis.data import load_run
from projectl_sim.analysis.sequential import (
    QUANTITIES,
    PrecisionCheck,
    default_planned_deals,
    precision_check,
)
from projectl_sim.errors import UsageError, unknown_name
from projectl_sim.sim import runner, tables
from projectl_sim.sim.spec import RunSpec

__all__ = [
    "DEFAULT_QUANTITIES",
    "PrecisionRequest",
    "grow_until_precise",
    "next_games",
    "parse_request",
]

# the first player's win rate per configuration, and each bot's (mixed line-ups and solo)
DEFAULT_QUANTITIES = ("first_player", "win_rate")
GROWTH_MIN, GROWTH_MAX = 1.25, 2.0
WIDTH_DECAY = 2 / 3  # the guessed exponent of width ~ n ** -WIDTH_DECAY (module notes)


@dataclass(frozen=True)
class PrecisionRequest:
    """What ``--until-precision`` asks: the target width of each quantity and the maximum.

    ``widths`` holds the targets given per quantity (means need one, in their own units);
    ``planned_deals`` tunes the sequences and is fixed when the run starts (never from data).
    """

    width: float
    quantities: tuple[str, ...] = DEFAULT_QUANTITIES
    widths: Mapping[str, float] = field(default_factory=dict)
    max_games: int = 0  # games per configuration; 0: the default for ``width``
    planned_deals: int = 0  # 0: the default for ``width``

    def __post_init__(self) -> None:
        if not self.max_games:
            object.__setattr__(self, "max_games", default_max_games(self.width))
        if not self.planned_deals:
            object.__setattr__(self, "planned_deals", default_planned_deals(self.width))

    def to_json(self) -> dict[str, Any]:
        """Return the manifest's ``precision`` entry (``summary`` reads it)."""
        return {
            "width": self.width,
            "quantities": list(self.quantities),
            "widths": dict(self.widths),
            "max_games": self.max_games,
            "planned_deals": self.planned_deals,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PrecisionRequest:
        """Read a request back from the manifest."""
        return cls(
            width=float(data["width"]),
            quantities=tuple(data.get("quantities") or DEFAULT_QUANTITIES),
            widths={k: float(v) for k, v in (data.get("widths") or {}).items()},
            max_games=int(data.get("max_games") or 0),
            planned_deals=int(data.get("planned_deals") or 0),
        )

    def check(self, seats: pd.DataFrame, games: pd.DataFrame) -> PrecisionCheck:
        """Return ``precision_check`` of the tables, with the same arguments every time."""
        return precision_check(
            seats,
            games,
            width=self.width,
            quantities=self.quantities,
            widths=dict(self.widths) or None,
            max_games=self.max_games,
            planned_deals=self.planned_deals,
        )

    def asked(self) -> str:
        """Return the target as ``0.05 wide (first_player, win_rate, margin 3)``."""
        what = ", ".join(
            f"{q} {self.widths[q]:g}" if q in self.widths else q for q in self.quantities
        )
        return f"{self.width:g} wide ({what})"

    def describe(self) -> str:
        """Return the request as one line (what the run prints first)."""
        return (
            f"until every interval is at most {self.asked()}, or {self.max_games} games per "
            f"configuration (--max-games); 95% anytime-valid intervals, tuned for "
            f"{self.planned_deals} deals"
        )


def default_max_games(width: float) -> int:
    """Return the default maximum games per configuration for a target ``width``: twice the
    deals the sequences are tuned for (a rate of 1/2 reaches the width near that tuning), at
    least 100."""
    return max(100, 2 * default_planned_deals(width))


def parse_request(
    width: float, precision_of: str | None = None, max_games: int | None = None
) -> PrecisionRequest:
    """Return the request of ``--until-precision W [--precision-of Q[=W],...] [--max-games N]``.

    A rate (``first_player``, ``win_rate``, ``effects``) is held to ``W`` unless given its own
    width; a mean (``margin``, ``rounds``) needs its own, in its units (``margin=2``).
    """
    if not (math.isfinite(width) and 0 < width <= 1):
        raise UsageError(
            f"--until-precision {width:g}: a width of a rate's interval, above 0 and at most 1 "
            "(0.06: +-3 points)"
        )
    if max_games is not None and max_games < 1:
        raise UsageError(f"--max-games must be at least 1, got {max_games}")
    quantities: list[str] = []
    widths: dict[str, float] = {}
    for item in (precision_of or ",".join(DEFAULT_QUANTITIES)).split(","):
        name, eq, raw = item.strip().partition("=")
        if not name:
            continue
        if name not in QUANTITIES:
            raise UsageError(f"--precision-of: {unknown_name('quantity', name, QUANTITIES)}")
        if eq:
            try:
                widths[name] = float(raw)
            except ValueError:
                widths[name] = math.nan
            if not (math.isfinite(widths[name]) and widths[name] > 0):
                raise UsageError(f"--precision-of {item.strip()!r}: a width above 0")
        elif QUANTITIES[name] == "mean":
            raise UsageError(
                f"--precision-of {name}: a mean in its own units needs its width "
                f"({name}=2 for an interval 2 {'points' if name == 'margin' else 'rounds'} wide)"
            )
        quantities.append(name)
    if not quantities:
        raise UsageError("--precision-of: name one or more of " + ", ".join(QUANTITIES))
    return PrecisionRequest(width, tuple(dict.fromkeys(quantities)), widths, max_games or 0, 0)


def next_games(games: int, check: PrecisionCheck, max_games: int) -> int:
    """Return the games per configuration of the next batch (module notes)."""
    t = check.intervals
    ratio = (t["width"] / t["target"]).to_numpy(dtype=float) if len(t) else np.array([])
    # an interval not measured yet (a mean before its first deals) asks for the most growth
    worst = float(np.nanmax(ratio)) if np.isfinite(ratio).any() else math.inf
    if not np.isfinite(ratio).all():
        worst = math.inf
    factor = min(GROWTH_MAX, max(GROWTH_MIN, worst ** (1 / WIDTH_DECAY)))
    return min(max_games, max(games + 1, math.ceil(games * factor)))


def widest(check: PrecisionCheck) -> str:
    """Return the interval furthest above its target, as ``0.081 (target 0.06): ...``."""
    t = check.intervals
    if t.empty:
        return "no interval yet"
    ratio = t["width"] / t["target"]
    unmeasured = t[ratio.isna()]
    row = unmeasured.iloc[0] if len(unmeasured) else t.loc[ratio.idxmax()]
    names = labels.config_labels(t) if len(t) > 1 else ["the configuration"]
    where = names[t.index.get_loc(row.name)]
    what = {
        "first_player": "first player's win rate",
        "win_rate": f"{row['bot']}'s win rate",
        "margin": "winner's margin",
        "rounds": "rounds",
        "effects": f"first player's rate against {row['against']}",
    }[row["quantity"]]
    width = "n/a (too few deals)" if not np.isfinite(row["width"]) else f"{row['width']:.3f}"
    return f"{width} (target {row['target']:g}): {what}, {where}"


def grow_until_precise(
    spec: RunSpec | None,
    out: str | Path,
    request: PrecisionRequest,
    *,
    resume: bool = False,
    options: runner.RunOptions | None = None,
) -> tuple[runner.RunResult, PrecisionCheck]:
    """Play ``spec`` into ``out`` in batches until ``request`` is met; return the last
    session's result and the last check.

    ``spec.games`` is the first batch. With ``resume``, finish the batch a stopped session
    left (``spec`` None) and go on from there. Progress goes to ``options.echo`` (stderr):
    a line per batch with the widest interval.
    """
    options = options or runner.RunOptions()
    echo: Callable[[str], None] = options.echo or runner.echo_stderr
    quiet = options.quiet
    if spec is not None and spec.games > request.max_games:
        raise UsageError(
            f"--games {spec.games} (the first batch) is above --max-games {request.max_games}"
        )
    if not quiet:
        echo(request.describe())
    extra = {"precision": request.to_json()}
    session = options
    while True:
        result = runner.run(spec, out, resume=resume, options=session, manifest_extra=extra)
        run = load_run(out)
        check = request.check(run.seats, run.games)
        stored = RunSpec.from_mapping(run.manifest["config"])
        batch = len(run.manifest.get("games_history") or [stored.games])
        if not quiet:
            timing = f", {result.played} played in {result.seconds:.1f} s" if result.played else ""
            echo(
                f"batch {batch}: {stored.games} games per configuration ({len(run.games)} in "
                f"all{timing}); widest interval {widest(check)}; {check.reason}"
            )
        if check.stop:
            return result, check
        spec = replace(stored, games=next_games(stored.games, check, request.max_games))
        resume = True
        session = replace(options, echo=_silent)  # one line per batch is enough


def _silent(line: str) -> None:
    del line


def stored_request(out: str | Path) -> PrecisionRequest | None:
    """Return the precision request a run folder holds, or None."""
    manifest = tables.read_manifest(out)
    data = manifest.get("precision")
    return PrecisionRequest.from_json(data) if isinstance(data, Mapping) else None


def same_request(given: PrecisionRequest, stored: PrecisionRequest, out: str | Path) -> None:
    """Refuse a resumed request that differs from the run's in more than its maximum."""
    if replace(given, max_games=stored.max_games) != stored:
        raise UsageError(
            f"--resume: {out} was asked for intervals at most {stored.asked()}; only "
            "--max-games may change (drop --until-precision and --precision-of to go on with "
            "it, or choose another --out)"
        )


def quantities_help() -> str:
    """Return the ``--precision-of`` help text."""
    return (
        f"what --until-precision makes precise: {', '.join(QUANTITIES)}; a mean (margin, "
        f"rounds) with its own width, margin=2 (default {','.join(DEFAULT_QUANTITIES)})"
    )
