"""The statistics every answer of the analysis is computed with, in one place.

- ``intervals``: the 95% level (``LEVEL``, ``ALPHA``, ``Z95``), Wilson's interval of a rate,
  Newcombe's of a difference of rates, t and Welch intervals of means, the normal interval;
- ``clusters``: means and rates of observations clustered by deal, their design effect (one
  formula, explained there) and the differences of two clustered samples;
- ``significance``: Welch's t test, the test of equal shares of the wins, the p-value of a
  difference of rates, and the multiple-comparison adjustment (``q_values``);
- ``paired``: the paired difference of games played on one deal;
- ``power``: what a run can detect (minimum detectable effect) and the games a precision needs;
- ``distributions``: the normal, t and chi-square functions, from ``scipy.special``.

They take arrays and cluster labels, not tables: which rows count and which deal a row belongs
to is ``analysis.rows``'; the questions (``outcomes``, ``factors``, ``cards``, ...) call these.
"""

from __future__ import annotations

from projectl_sim.analysis.stats.clusters import (
    clustered_mean,
    clustered_rate,
    design_effect,
    diff_clustered_means,
    diff_clustered_rates,
    welch,
)
from projectl_sim.analysis.stats.intervals import (
    ALPHA,
    LEVEL,
    Z95,
    diff_means,
    diff_proportions,
    mean_interval,
    normal_interval,
    wilson,
)
from projectl_sim.analysis.stats.paired import paired_difference, paired_games_needed
from projectl_sim.analysis.stats.power import (
    games_needed,
    games_to_detect,
    minimum_detectable_effect,
    rate_difference_se,
)
from projectl_sim.analysis.stats.significance import (
    equal_shares_test,
    q_values,
    rate_difference_p_value,
    welch_p_value,
)

__all__ = [
    "ALPHA",
    "LEVEL",
    "Z95",
    "clustered_mean",
    "clustered_rate",
    "design_effect",
    "diff_clustered_means",
    "diff_clustered_rates",
    "diff_means",
    "diff_proportions",
    "equal_shares_test",
    "games_needed",
    "games_to_detect",
    "mean_interval",
    "minimum_detectable_effect",
    "normal_interval",
    "paired_difference",
    "paired_games_needed",
    "q_values",
    "rate_difference_p_value",
    "rate_difference_se",
    "welch",
    "welch_p_value",
    "wilson",
]
