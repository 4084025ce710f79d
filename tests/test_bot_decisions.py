"""The planner's decisions are pinned: fixed-seed games play exactly as the pinned build played.

``pinned/bot_decisions.json`` holds the actions of fixed-seed games (greedy and its presets at
2-4 players, Ghost Piece, the Ambassador Pack, Line Clear, and MCTS with the legacy search),
written by ``tools/bot_decisions.py`` with the build before the planner was compiled and
rewritten for speed. Whichever build runs the tests (compiled or pure), the same seeds must give
the same games: the rewrite changed the speed, not the decisions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from bot_decisions import decisions

PINNED = json.loads((Path(__file__).parent / "pinned" / "bot_decisions.json").read_text())
# today's spec of a pinned bot whose defaults changed since the pin
LEGACY = {"mcts:iterations=12": "mcts:iterations=12,root=ucb,horizon=2"}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_games_play_the_same(name: str) -> None:
    game = PINNED[name]
    bots = [LEGACY.get(s, s) for s in game["bots"]]
    played = decisions(game["rules"], bots, game["seed"])
    for i, (got, want) in enumerate(zip(played, game["actions"], strict=False)):
        assert got == want, f"{name}: action {i} differs"
    assert len(played) == len(game["actions"])
