"""Analysis of a run's outcome tables: win rates, seat advantage, effects, ratings, strategy.

Functions take the pandas tables of a run (``load_run(path).seats`` / ``.games``), or of several
runs side by side (``load_runs([...])``: a ``run`` column, games and deals kept apart per run),
and return tables; ``answers.summary_text`` puts the answers in the text ``projectl-sim
summary`` prints; ``conclusions`` writes each notebook's answer in words from its tables;
``compare`` sets two runs on shared deals side by side; ``sequential.precision_check`` tells a
growing run when its intervals are narrow enough; ``plots`` draws the tables (each chart takes
a table and an optional ``ax``, or a ``fig`` for the faceted ones); ``report`` writes one
self-contained HTML page of a run (the seeded sweeps the notebooks start from are in
``projectl_sim.sim.sweep``). Nothing here re-simulates or imports the bots.
"""

from projectl_sim.analysis.answers import summary_text
from projectl_sim.analysis.balance import (
    balance_table,
    end_reasons,
    expansion_effects,
    expansion_sets,
)
from projectl_sim.analysis.conclusions import (
    balance_answer,
    bot_strength_answer,
    designer_answer,
    puzzle_answer,
    solo_finesse_answer,
)
from projectl_sim.analysis.data import Run, Runs, iter_records, load_run, load_runs
from projectl_sim.analysis.factors import effects
from projectl_sim.analysis.paired import compare, compare_text
from projectl_sim.analysis.power import games_needed, games_to_detect, minimum_detectable_effect
from projectl_sim.analysis.ratings import (
    bradley_terry,
    fit_bradley_terry,
    head_to_head,
    head_to_head_matrix,
    pair_results,
    pairwise,
    plackett_luce,
    skill_ladder,
)
from projectl_sim.analysis.sequential import PrecisionCheck, precision_check
from projectl_sim.analysis.stats import (
    clustered_mean,
    clustered_rate,
    diff_clustered_means,
    diff_clustered_rates,
    diff_means,
    diff_proportions,
    equal_shares_test,
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
from projectl_sim.analysis.timing import decision_times

__all__ = [
    "PrecisionCheck",
    "Run",
    "Runs",
    "action_mix",
    "balance_answer",
    "balance_table",
    "bot_strength_answer",
    "bradley_terry",
    "clustered_mean",
    "clustered_rate",
    "compare",
    "compare_text",
    "credits",
    "decision_times",
    "designer_answer",
    "diff_clustered_means",
    "diff_clustered_rates",
    "diff_means",
    "diff_proportions",
    "effects",
    "end_reasons",
    "equal_shares_test",
    "expansion_effects",
    "expansion_sets",
    "finishing_touches",
    "fit_bradley_terry",
    "games_needed",
    "games_to_detect",
    "head_to_head",
    "head_to_head_matrix",
    "iter_records",
    "load_run",
    "load_runs",
    "mean_interval",
    "minimum_detectable_effect",
    "pair_results",
    "pairwise",
    "piece_mix",
    "plackett_luce",
    "points_per_action",
    "precision_check",
    "puzzle_answer",
    "puzzle_stats",
    "puzzle_value",
    "seat_advantage",
    "skill_ladder",
    "solo_by_difficulty",
    "solo_finesse_answer",
    "summary_text",
    "wilson",
    "win_rates",
]
