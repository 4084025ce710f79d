"""The balance objectives' names and what each measures, for the ``tune`` command's help.

Kept apart from ``objectives`` (which computes them with numpy, pandas and scipy) so that the
command line builds its parser without loading those.
"""

from __future__ import annotations

CLOSE = 2  # points: a close game's margin at most

OBJECTIVE_HELP = {
    "seat_advantage": "largest gap of a turn order's win share from 1/N",
    "strategy_spread": "best bot's win rate less the worst's (mixed line-ups)",
    "first_player": "first player's win share less 1/N",
    "rounds": "mean length in rounds",
    "margin": "mean winning margin (points)",
    "close_games": f"minus the share of games won by at most {CLOSE} points",
    "tiers": "distance of a round robin of --tiers from --tiers-target (win rates, first player)",
}
# bot tuning's (``tune --bot``): not a rules objective
STRENGTH_HELP = "minus the candidate bot's win rate against its --field, paired deals"
