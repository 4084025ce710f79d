"""Write the decisions of fixed-seed bot games, to pin a planner's decisions across rewrites.

Run: ``python tools/bot_decisions.py OUT.json`` (with the interpreter of the build to pin). Each
game is ``(name, rules keywords, bot specs, seed)``; the output maps a game's name to its actions
in record form, one compact JSON text per action. ``tests/bots/test_bot_decisions.py`` replays the
same games with today's bots and compares.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from bots import make_bot
from projectl_sim import Rules, play_game

G = "greedy"
MCTS_LEGACY = "mcts:iterations=12,root=ucb,horizon=2"
GAMES: list[tuple[str, dict[str, Any], list[str], int]] = [
    *[(f"2p-greedy-{s}", {"players": 2}, [G, G], s) for s in range(6)],
    *[
        (f"2p-engine-rush-{s}", {"players": 2}, [f"{G}:preset=engine", f"{G}:preset=rush_black"], s)
        for s in range(3)
    ],
    *[(f"2p-cautious-{s}", {"players": 2}, [f"{G}:preset=cautious", G], s) for s in range(3)],
    *[(f"3p-greedy-{s}", {"players": 3}, [G] * 3, s) for s in range(3)],
    *[(f"4p-greedy-{s}", {"players": 4}, [G] * 4, s) for s in range(2)],
    *[
        (f"2p-ghost-{s}", {"players": 2, "expansions": ["ghost_piece"]}, [G, G], s)
        for s in range(2)
    ],
    *[
        (
            f"2p-ambassador-{s}",
            {"players": 2, "expansions": ["ambassador_pack", "phoenix"]},
            [G, G],
            s,
        )
        for s in range(2)
    ],
    ("5p-line-clear-0", {"players": 5, "variant": "line_clear"}, [G] * 5, 0),
    # the legacy search spelled out (the pins predate today's defaults, root=halving, horizon=0)
    *[(f"2p-mcts-{s}", {"players": 2}, [MCTS_LEGACY, G], s) for s in range(2)],
]


def decisions(rules: dict[str, Any], specs: list[str], seed: int) -> list[str]:
    """Return the actions of one game, one compact JSON text each."""
    kw = dict(rules)
    if "expansions" in kw:
        kw["expansions"] = set(kw["expansions"])
    outcome = play_game(Rules(**kw), [make_bot(s) for s in specs], seed)
    return [
        json.dumps(a, sort_keys=True, separators=(",", ":"))
        for a in outcome.record_json()["actions"]
    ]


def main() -> None:
    out = {
        name: {
            "rules": rules,
            "bots": specs,
            "seed": seed,
            "actions": decisions(rules, specs, seed),
        }
        for name, rules, specs, seed in GAMES
    }
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
