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

import pytest
from paths import ROOT, TESTS

sys.path.insert(0, str(ROOT / "tools"))
from bot_decisions import MCTS_LEGACY, decisions

PINNED = json.loads((TESTS / "pinned" / "bot_decisions.json").read_text())
# the pins written before tools/bot_decisions.py spelled the legacy search out name it by its old
# spec, whose defaults have changed since
LEGACY = {"mcts:iterations=12": MCTS_LEGACY}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_games_play_the_same(name: str) -> None:
    game = PINNED[name]
    bots = [LEGACY.get(s, s) for s in game["bots"]]
    played = decisions(game["rules"], bots, game["seed"])
    for i, (got, want) in enumerate(zip(played, game["actions"], strict=False)):
        assert got == want, f"{name}: action {i} differs"
    assert len(played) == len(game["actions"])
