"""Analysis of a run's outcome tables: win rates, seat advantage, effects, ratings, strategy.

Functions take the pandas tables of a run (``load_run(path).seats`` / ``.games``), or of several
runs side by side (``load_runs([...])``: a ``run`` column, games and deals kept apart per run), and
return tables. The flow, one layer reading the ones before it:

- reading the tables: ``data`` (runs), ``rows`` (which rows count, each row's deal and game, the
  configuration's columns);
- statistics: ``stats`` (intervals, clustered means and rates, the design effect, tests and the
  multiple-comparison adjustment, paired differences, power), with no table in it;
- questions: ``outcomes`` (win rates, seat advantage), ``factors`` (effects of expansions and
  switches), ``ratings``, ``cards``, ``deals``, ``tiers``, ``game_flow``, ``timing``, ...; what a
  run could not measure is decided once, in ``measurable``;
- findings: ``findings`` turns the questions' tables into one table of findings (estimate,
  interval, test, p, q over its family, what the run could detect, verdict), decided once;
- render: ``fmt`` (how every number is written), ``answers`` (the text ``projectl-sim summary``
  prints), ``verdicts`` (the findings' verdict lines), ``conclusions`` (each notebook's answer in
  words), ``paired.compare_text``, ``report`` (one self-contained HTML page) and ``plots`` (each
  chart takes a table and an optional ``ax``, or a ``fig`` for the faceted ones).

``sequential.precision_check`` tells a growing run when its intervals are narrow enough (the
seeded sweeps the notebooks start from are in ``projectl_sim.experiments.sweep``). Nothing here
re-simulates or imports the bots. The names below load their module when first used, so that a
command that needs none of them (``projectl-sim bots``) starts without pandas and scipy.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any


def _declared_names(module: str) -> tuple[str, ...]:
    """Return the ``__all__`` a submodule declares, read from its source: importing it here
    would load pandas and scipy at every start."""
    found = importlib.util.find_spec(f"{__name__}.{module}")
    assert found is not None and found.origin is not None
    for node in ast.parse(Path(found.origin).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    raise ImportError(f"{__name__}.{module} declares no __all__")


# each module of the package, and the names it gives the package
_EXPORTS: dict[str, tuple[str, ...]] = {
    "answers": ("summary_text",),
    "balance": ("balance_table", "end_reasons", "expansion_sets"),
    "cards": ("card_strength", "cards_text", "piece_strength"),
    "conclusions": (
        "balance_answer",
        "bot_strength_answer",
        "designer_answer",
        "puzzle_answer",
        "solo_finesse_answer",
    ),
    "data": ("Run", "Runs", "iter_records", "load_run", "load_runs"),
    "failures": ("failure_states",),
    "findings": ("Finding", "findings"),
    "game_flow": ("flow_summary", "margin_distribution"),
    "factors": ("effects",),
    "paired": ("compare", "compare_text"),
    "outcomes": ("seat_advantage", "win_rates"),
    "ratings": (
        "head_to_head",
        "head_to_head_matrix",
        "pair_results",
        "pairwise",
        "plackett_luce",
        "rate_bots",
        "skill_ladder",
    ),
    "sequential": ("PrecisionCheck", "precision_check"),
    "stats": _declared_names("stats"),
    "strategy": (
        "action_mix",
        "credits",
        "finishing_touches",
        "piece_mix",
        "points_per_action",
        "puzzle_stats",
        "puzzle_value",
        "solo_by_difficulty",
    ),
    "timing": ("decision_times",),
    "verdicts": ("verdicts",),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # loaded once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


__all__ = sorted(_HOME)
