"""``projectl-sim cards RUN``: which puzzle cards and reward pieces win games (the flow tables)."""

from __future__ import annotations

import argparse
from typing import Any


def cmd_cards(args: argparse.Namespace) -> int:
    """Print the run's card and reward-piece strength tables, with their flags."""
    from projectl_sim.analysis.cards import cards_text
    from projectl_sim.board.study import refuse_a_study

    refuse_a_study(args.run, "cards")
    print(cards_text(args.run))
    return 0


def register(subparsers: Any) -> None:
    """Add ``cards`` to the command line's subparsers."""
    cards = subparsers.add_parser(
        "cards",
        help="per puzzle card and reward piece: take and completion rates, actions, and the "
        "win-rate lift of completing it, flagged against its peers",
        description="Read a run's events table: per puzzle card its take rate, completion rate, "
        "actions from take to completion, points per action and the win-rate lift of completing "
        "it (adjusted for configuration, bot and turn order), with 95%% intervals; cards whose "
        "lift stands out from their colour's others after a Benjamini-Yekutieli correction are "
        "flagged. The same for reward pieces.",
    )
    cards.add_argument("run", metavar="RUN", help="run folder (results/NAME)")
    cards.set_defaults(func=cmd_cards)
