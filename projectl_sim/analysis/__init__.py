"""Analysis of a run's outcome tables: win rates, seat advantage, ratings, balance, strategy.

Functions take the pandas tables of a run (``load_run(path).seats`` / ``.games``) and return
tables; ``plots`` draws them (each chart takes a table and an optional ``ax``); ``report``
writes one self-contained HTML page of a run; ``sweep`` runs the small seeded sweeps the
notebooks start from.
"""

from projectl_sim.analysis.balance import (
    balance_table,
    end_reasons,
    expansion_effects,
    expansion_sets,
)
from projectl_sim.analysis.data import Run, iter_records, load_run
from projectl_sim.analysis.ratings import (
    bradley_terry,
    fit_bradley_terry,
    head_to_head,
    head_to_head_matrix,
    ladder_lineups,
    pairwise,
    skill_ladder,
)
from projectl_sim.analysis.stats import (
    diff_means,
    diff_proportions,
    mean_interval,
    seat_advantage,
    wilson,
    win_rates,
)
from projectl_sim.analysis.strategy import (
    action_mix,
    credits,
    finishing_touches,
    piece_mix,
    points_per_action,
    puzzle_stats,
    puzzle_value,
    solo_by_difficulty,
)

__all__ = [
    "Run",
    "action_mix",
    "balance_table",
    "bradley_terry",
    "credits",
    "diff_means",
    "diff_proportions",
    "end_reasons",
    "expansion_effects",
    "expansion_sets",
    "finishing_touches",
    "fit_bradley_terry",
    "head_to_head",
    "head_to_head_matrix",
    "iter_records",
    "ladder_lineups",
    "load_run",
    "mean_interval",
    "pairwise",
    "piece_mix",
    "points_per_action",
    "puzzle_stats",
    "puzzle_value",
    "seat_advantage",
    "skill_ladder",
    "solo_by_difficulty",
    "wilson",
    "win_rates",
]
