"""Try a new puzzle: two runs on the same deals, without it and with it, and their report.

The two runs share everything but the catalogue: the same line-ups, player counts, rules, games
and root seed, so the runner gives the i-th configuration of each the same deal seeds (its
seeding discipline) and every game of one has a twin in the other. Their deals differ only by
the new card: with ``replaces``, the new card takes the replaced one's catalogue index, and a
seed deals it where it dealt that one; without, the new card is one of the rules'
``added_puzzles``, dealt in after the rest of the deal (a uniform place of the white deck, or a
black deck's card replaced with the right probability: ``engine.dealing.deal_added``), so the
other cards are dealt as without it. Every game stores its record (the report replays them to
count the actions spent on each puzzle).

A trial folder holds ``catalogue.json`` (the catalogue with the new card, what run B plays on),
``without/`` and ``with/`` (two ordinary run folders: ``summary``, ``report`` and ``compare`` read
them), ``trial.json`` (what was tried) and ``report.txt``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projectl_sim.analysis.trial import TrialReport, trial_report
from projectl_sim.errors import UsageError
from projectl_sim.loading import base_catalogue, load_catalogue
from projectl_sim.puzzles.drawings import DrawnPuzzle, catalogue_dict, with_puzzle
from projectl_sim.sim import runner
from projectl_sim.sim.spec import RunSpec

CATALOGUE_FILE = "catalogue.json"
WITHOUT, WITH = "without", "with"


@dataclass
class Trial:
    """A finished trial: its folder, root seed and report."""

    out: Path
    seed: int
    report: TrialReport


def try_puzzle(
    puzzle: DrawnPuzzle,
    out: str | Path,
    *,
    bots: Sequence[str],
    players: Sequence[int] | str | None = None,
    games: int = 200,
    seed: int | None = None,
    replaces: str | None = None,
    catalogue: str | Path | None = None,
    expansions: Sequence[str] | str | None = None,
    rules: Mapping[str, Any] | None = None,
    options: runner.RunOptions | None = None,
) -> Trial:
    """Play the paired runs of a new puzzle into ``out`` and return their report.

    ``bots`` are line-ups (``"greedy,random"``), ``players`` the counts (default: each line-up's
    size; ``"2,3"`` as ``run --players`` takes it), ``games`` per configuration, ``expansions``
    expansion sets played in both runs (``"finesse"``), ``rules`` a grid of switches and parameters
    for both (``{"row_size": "3,4"}``).
    """
    out = Path(out)
    base = base_catalogue() if catalogue is None else load_catalogue(catalogue)
    changed = with_puzzle(base, puzzle, replaces)  # a DrawingError when it cannot go in
    if seed is None:
        seed = secrets.randbelow(2**32)
    grid: dict[str, Any] = {
        "bots": list(bots),
        "players": players if isinstance(players, str) or players is None else list(players),
        "games": games,
        "seed": seed,
        "records": "all",  # the report replays them (actions spent per puzzle)
        "expansions": expansions
        if isinstance(expansions, str) or not expansions
        else list(expansions),
        "rules": dict(rules or {}),
    }
    without = RunSpec.from_mapping(
        grid | ({"catalogue": str(catalogue)} if catalogue is not None else {})
    )
    added = {} if replaces else {"added_puzzles": puzzle.id}
    if any((out / name / "manifest.json").exists() for name in (WITHOUT, WITH)):
        raise UsageError(f"{out} already holds a trial: choose another --out")
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / CATALOGUE_FILE
        path.write_text(json.dumps(catalogue_dict(changed), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write to {out}: {exc.strerror}") from None
    with_it = RunSpec.from_mapping(
        grid | {"catalogue": str(path), "rules": dict(rules or {}) | added}
    )
    (out / "trial.json").write_text(
        json.dumps(
            {
                "puzzle": puzzle.id,
                "replaces": replaces,
                "rows": puzzle.rows(),
                "colour": puzzle.colour,
                "points": puzzle.points,
                "reward": puzzle.reward,
                "source": puzzle.source,
                "seed": seed,
                "without": without.to_json(),
                "with": with_it.to_json(),
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    options = options or runner.RunOptions(quiet=True)
    runner.run(without, out / WITHOUT, options=options)
    runner.run(with_it, out / WITH, options=options)
    report = trial_report(out / WITHOUT, out / WITH, puzzle.id, replaces)
    (out / "report.txt").write_text(report.text() + "\n", encoding="utf-8")
    return Trial(out, seed, report)
