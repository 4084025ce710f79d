"""The Ghost Piece golden records: how each one is built (``python tests/ghost_records.py`` rewrites
them under ``tests/records/ghost/``; ``tests/expansions/test_ghost.py`` replays the files and
checks them by hand-worked facts).

The builder plays every action on a live game as it appends it, so a record that breaks a rule
fails to build; placements are written as cells found by the tiling index for the named pieces.
Every 2-player record starts from the same decks: the white row GW01 (reward pent_U, 5 cells),
GW04 (domino, 2 cells), GW02 (tri_I, 3 cells), GW03 (tet_I, 4 cells); the black row GB01 (↑, 8
cells), GB02 (⇈, 8 cells), GB04 (↑), GB06 (⇈).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from records_util import RECORDS_DIR, RecordBuilder, write_golden

from projectl_sim.catalogue import mask_cells
from projectl_sim.engine import GameState, new_game
from projectl_sim.engine.actions import from_json
from projectl_sim.rules import Rules
from projectl_sim.tiling.fill import tiling_index

GHOST_DIR = RECORDS_DIR / "ghost"
GHOST = ["ghost_piece"]

WHITE_TOP = ["GW01", "GW04", "GW02", "GW03", "GW05", "GW06", "W01", "W02"]
BLACK_TOP = ["GB01", "GB02", "GB04", "GB06"]
BLACK_REST = ["B01", "B02", "B03", "B04", "B05", "B06", "B07", "B08"]


def white() -> list[str]:
    """Return the whole white deck (base and Ghost Piece puzzles), ``WHITE_TOP`` first."""
    cat = Rules(expansions=GHOST).catalogue
    ids = [cat.puzzles[c].id for c in cat.of_colour("white")]
    return WHITE_TOP + [p for p in ids if p not in WHITE_TOP]


class GhostBuilder(RecordBuilder):
    """A record builder that plays each action on a live game as it is appended."""

    def __init__(self, black: list[str] | None = None, **switches: Any) -> None:
        super().__init__(white(), black or BLACK_TOP + BLACK_REST, **switches)
        self.rules["expansions"] = list(GHOST)
        self._state: GameState | None = None

    @property
    def state(self) -> GameState:
        if self._state is None:
            rules = Rules.from_json(self.rules)
            self._state = new_game(rules, setup=self.setup)
        return self._state

    def act(self, player: int, type: str, **fields: Any) -> GhostBuilder:
        super().act(player, type, **fields)
        state = self.state
        who, action = from_json(self.actions[-1], state.catalogue)
        state.step(who, action)
        return self

    # -- placements by piece names ------------------------------------------------------------
    def cells_for(self, player: int, puzzle: str, pieces: list[str]) -> list[dict[str, Any]]:
        """Return placements of exactly ``pieces`` tiling what ``puzzle`` still has empty."""
        state = self.state
        cat = state.catalogue
        card = cat.puzzle_index(puzzle)
        filled = next(f for c, f, _ in state.slots[player] if c == card)
        empty = cat.puzzles[card].recess & ~filled
        counts = [0] * len(cat.pieces)
        for pid in pieces:
            counts[cat.piece_index(pid)] += 1
        index = tiling_index(cat)
        steps = index.plan_for(empty, index.pack(counts))
        if steps is None:
            raise ValueError(f"{pieces} do not tile the empty cells of {puzzle}")
        return [
            {"puzzle": puzzle, "piece": cat.pieces[p].id, "cells": [list(c) for c in mask_cells(m)]}
            for p, m in steps
        ]

    def part(self, player: int, puzzle: str, piece: str, rest: list[str]) -> dict[str, Any]:
        """Return a placement of ``piece`` on ``puzzle`` that ``rest`` can complete after it."""
        found = self.cells_for(player, puzzle, [piece, *rest])
        return next(p for p in found if p["piece"] == piece)

    def fill(self, player: int, puzzle: str, pieces: list[str]) -> GhostBuilder:
        """Place ``pieces`` one Place action each, completing ``puzzle``."""
        for p in self.cells_for(player, puzzle, pieces):
            self.place(player, p["puzzle"], p["piece"], p["cells"])
        return self

    def level_up(self, player: int, give: str | None = None, get: str | None = None):
        if give is None:
            return self.act(player, "level_up")
        return self.act(player, "level_up", give=give, get=get)

    def ghost(
        self, player: int, ghost: str, take: list[str], placements: list[dict[str, Any]] = ()
    ) -> GhostBuilder:
        return self.act(player, "ghost", ghost=ghost, take=take, placements=list(placements))

    def wait_for(self, player: int) -> GhostBuilder:
        """Let every other seat take level-1 pieces until ``player``'s turn starts."""
        state = self.state
        while state.current != player or state.actions_left != 3:
            self.take_basic(state.current)
        return self

    def filler(self, player: int, times: int = 3) -> GhostBuilder:
        """Take ``times`` level-1 pieces (Upgrade A): actions that change nothing else."""
        return self.take_basic(player, times)


def gain_pent_u(b: GhostBuilder, player: int) -> GhostBuilder:
    """Two turns of ``player``: take GW01, build a tri_L, fill GW01 with domino + tri_L.

    The completion's reward is pent_U; the third action of the second turn is left to the caller
    (the other player's first turn is filler, so the caller's next action is ``player``'s).
    """
    b.take(player, "GW01").upgrade(player, "mono", "domino").upgrade(player, "domino", "tri_L")
    b.filler(1 - player)
    return b.fill(player, "GW01", ["domino", "tri_L"])


# -- the records -----------------------------------------------------------------------------------
def upgrade_cap() -> dict[str, Any]:
    """A ghost is a reward; Upgrade B may give it away for a lower piece, never take one.

    Round 1: p0 takes GW01, upgrades mono -> domino -> tri_L; p1 takes three monos. Round 2:
    p0 places the domino and the tri_L, completing GW01 (reward pent_U), then Upgrade B gives
    the pent_U for a tet_O. p1 takes three monos. Round 3: p0 upgrades the tri_L to a tet_L (the
    test checks that no Upgrade of its level-4 pieces may take a ghost).
    """
    b = GhostBuilder()
    gain_pent_u(b, 0)
    b.upgrade(0, "pent_U", "tet_O")
    b.filler(1)
    b.upgrade(0, "tri_L", "tet_L")
    return b.to_json()


def _level_up_prefix(b: GhostBuilder | None = None) -> GhostBuilder:
    """Both players fill a black Level Up puzzle with domino + tri_I + tri_I in three rounds.

    p0 works on GB02 (⇈), p1 on GB01 (↑). Rounds 1-2: take it, mono -> domino, domino -> tri_I;
    a mono, mono -> domino, domino -> tri_I. Round 3: three Places each. p0's third Place
    completes GB02 (3 points): its domino and two tri_I come back, and the ⇈ opens its two steps.
    ``b``: a builder whose rules and setup are already set (default: a new one).
    """
    b = b if b is not None else GhostBuilder()
    for p, puzzle in ((0, "GB02"), (1, "GB01")):
        b.take(p, puzzle).upgrade(p, "mono", "domino").upgrade(p, "domino", "tri_I")
    for p in (0, 1):
        b.take_basic(p).upgrade(p, "mono", "domino").upgrade(p, "domino", "tri_I")
    return b.fill(0, "GB02", ["tri_I", "tri_I", "domino"])


def level_up_same_piece_to_ghost() -> dict[str, Any]:
    """⇈ on the same piece twice, reaching a ghost: tri_I -> tet_I -> pent_L; p1's ↑ then
    completes GB01 and takes one step, domino -> tri_L."""
    b = _level_up_prefix()
    b.level_up(0, "tri_I", "tet_I").level_up(0, "tet_I", "pent_L")
    b.fill(1, "GB01", ["tri_I", "tri_I", "domino"])
    b.level_up(1, "domino", "tri_L")
    b.take_basic(0)
    return b.to_json()


def level_up_two_pieces() -> dict[str, Any]:
    """⇈ on two pieces: domino -> tri_L and tri_I -> tet_O; p1 declines its ↑."""
    b = _level_up_prefix()
    b.level_up(0, "domino", "tri_L").level_up(0, "tri_I", "tet_O")
    b.fill(1, "GB01", ["tri_I", "tri_I", "domino"])
    b.level_up(1)
    b.take_basic(0)
    return b.to_json()


def level_up_decline() -> dict[str, Any]:
    """⇈ with the first step declined and the second taken (tri_I -> tet_T)."""
    b = _level_up_prefix()
    b.level_up(0).level_up(0, "tri_I", "tet_T")
    b.take_basic(1)
    return b.to_json()


def level_up_order() -> dict[str, Any]:
    """Rewards resolve in the order the puzzles were taken: a Level Up before a later reward.

    p0 takes GB01 (↑) and then GW04 (reward domino) and builds domino + domino + tri_I + tri_I
    (rounds 1-3, p1 taking monos). Round 4: two tri_I on GB01, then a Master puts a domino on
    each, completing both: the ↑ opens first, before the domino reward is in the supply (the
    two dominoes placed are back); p0 levels a domino up to a tri_L, then the reward domino comes.
    """
    b = GhostBuilder()
    b.take(0, "GB01").take(0, "GW04").upgrade(0, "mono", "domino")
    b.filler(1)
    for _ in range(2):
        b.take_basic(0).upgrade(0, "mono", "domino").upgrade(0, "domino", "tri_I")
        b.filler(1)
    gb01 = b.cells_for(0, "GB01", ["tri_I", "tri_I", "domino"])
    for p in gb01:
        if p["piece"] == "tri_I":
            b.place(0, p["puzzle"], p["piece"], p["cells"])
    last = next(p for p in gb01 if p["piece"] == "domino")
    b.master(0, last, b.cells_for(0, "GW04", ["domino"])[0])
    b.level_up(0, "domino", "tri_L")
    return b.to_json()


def shortage() -> dict[str, Any]:
    """The reserve runs out of dominoes: a Level Up and a ghost decomposition use the shortage.

    p0 gains pent_U (``gain_pent_u``) and takes GB01. Then both players collect dominoes, each
    action a mono -> domino while a domino is left and a mono is held, else a mono (Upgrade A),
    until the reserve has no domino; p0 then fills GB01 with four dominoes (keeping monos): its
    ↑ opens with no domino left, so a mono's step goes to tri_I or tri_L (the shortage rule: the
    level above is empty), here tri_L. Then p0's Ghost action exchanges pent_U for tri_L + tri_L:
    the domino of the decomposition domino + tri_L is replaced by a tri_L.
    """
    b = GhostBuilder()
    gain_pent_u(b, 0)
    b.take(0, "GB01")
    state = b.state
    mono, domino = (state.catalogue.piece_index(p) for p in ("mono", "domino"))
    while state.reserve[domino]:
        p = state.current
        if state.supply[p][mono] > (1 if p == 0 else 0):
            b.upgrade(p, "mono", "domino")
        else:
            b.take_basic(p)
    b.wait_for(0)
    plan = b.cells_for(0, "GB01", ["domino"] * 4)
    for p in plan[:3]:
        b.place(0, p["puzzle"], p["piece"], p["cells"])
    b.wait_for(0)
    b.place(0, plan[3]["puzzle"], plan[3]["piece"], plan[3]["cells"])
    b.level_up(0, "mono", "tri_L")
    b.ghost(0, "pent_U", ["tri_L", "tri_L"])
    return b.to_json()


def ghost_action(**switches: Any) -> dict[str, Any]:
    """A Ghost action places new pieces at once, one per puzzle, and completes a puzzle.

    Rounds 1-2: p0 gains pent_U (``gain_pent_u``) and takes GW04 (2 cells, reward domino); p1
    takes monos. Round 3: p0 takes GW02 (3 cells, reward tri_I); exchanges pent_U for domino +
    domino + mono, placing a domino on GW04 (completing it: reward domino) and the other on GW02;
    the mono goes to the supply, and p0's third action places it on GW02 (completing it: reward
    tri_I). Switches (``free``, ``exchange_only``) give the same game under the other readings.
    """
    return _play_ghost_action(GhostBuilder(**switches))


def _play_ghost_action(b: GhostBuilder) -> dict[str, Any]:
    """Play ``ghost_action``'s moves on a builder (its rules and setup already set)."""
    gain_pent_u(b, 0)
    b.take(0, "GW04")
    b.filler(1)
    b.take(0, "GW02")
    gw04 = b.cells_for(0, "GW04", ["domino"])[0]
    gw02 = b.part(0, "GW02", "domino", ["mono"])
    b.ghost(0, "pent_U", ["domino", "domino", "mono"], [gw04, gw02])
    b.fill(0, "GW02", ["mono"])
    return b.to_json()


def finishing() -> dict[str, Any]:
    """No Ghost action in Finishing Touches; a Level Up puzzle completed there gives nothing.

    A 5-card black deck: p0's take of GB02 from the row draws its last card (the end trigger in
    round 2), so round 3 is the last. p0 gains pent_U (rounds 1-2) and holds GB02 (⇈, 3 points);
    in Finishing Touches it places pent_U and tri_L on GB02, completing it: 3 points less 2
    pieces, no Level Up. p1 makes no Finishing Touches.
    """
    b = GhostBuilder(black=BLACK_TOP + BLACK_REST[:1])
    gain_pent_u(b, 0)
    b.take(0, "GB02")
    b.filler(1).filler(0).filler(1)
    b.finish(0, *b.cells_for(0, "GB02", ["pent_U", "tri_L"]))
    b.finish(1)
    return b.to_json()


def solo_mastermind() -> dict[str, Any]:
    """Solo: the mastermind takes a Level Up puzzle (GB10, 5 points, ↑) and gets nothing more.

    Grid (positions 1-9 row by row), locks 1/2/1 monos:

        1 W22 0p   2 W10 1p   3 GB10 5p
        4 W11 1p   5 W02 2p   6 W23 0p
        7 W03 2p   8 W12 1p   9 W24 0p

    The player takes three monos; all columns are locked, one piece above each returns to the
    reserve, columns 1 and 3 open: the mastermind takes GB10 (the most points) to its pile.
    """
    grid = ["W22", "W10", "GB10", "W11", "W02", "W23", "W03", "W12", "W24"]
    rest = ["W13", "W04", "W25", "W14", "W05", "W26", "GB01", "B01", "B06", "B14", "B02"]
    b = RecordBuilder.solo(grid + rest)
    b.rules["expansions"] = list(GHOST)
    b.take_basic(0, 3)
    return b.to_json()


def finesse_place_tile() -> dict[str, Any]:
    """Finesse: round 3's tile (C07, pink: 1 Credit per mono, domino, tri_I or tri_L placed)
    pays the two dominoes the Ghost action of ``ghost_action`` places (2 Credits, not its
    completion of GW04) and the mono the next Place puts on GW02 (1 Credit)."""
    from finesse_records import row

    b = GhostBuilder()
    b.rules["expansions"] = [*GHOST, "finesse"]
    b.setup["finesse_tiles"] = row("C07")
    return _play_ghost_action(b)


def finesse_level_up_tile() -> dict[str, Any]:
    """Finesse: round 3's tile (C06, the second Upgrade tile: 1 per Upgrade action, and with
    Ghost Piece 1 per ↑ and 2 per ⇈ Level Up received) pays the Level Up rewards of round 3.

    ``level_up_two_pieces`` with the tile: p0's three Places complete GB02 (⇈: 2 Credits; its
    two steps are no Upgrade actions), p1's complete GB01 (↑: 1 Credit, though it declines the
    step: the reward was received). Round 4 begins (p0 takes a mono).
    """
    from finesse_records import row

    b = GhostBuilder()
    b.rules["expansions"] = [*GHOST, "finesse"]
    b.setup["finesse_tiles"] = row("C06")
    _level_up_prefix(b)
    b.level_up(0, "domino", "tri_L").level_up(0, "tri_I", "tet_O")
    b.fill(1, "GB01", ["tri_I", "tri_I", "domino"])
    b.level_up(1)
    b.take_basic(0)
    return b.to_json()


RECORDS = {
    "upgrade_cap": upgrade_cap,
    "level_up_same_piece_to_ghost": level_up_same_piece_to_ghost,
    "level_up_two_pieces": level_up_two_pieces,
    "level_up_decline": level_up_decline,
    "level_up_order": level_up_order,
    "shortage": shortage,
    "ghost_action": ghost_action,
    "free": lambda: ghost_action(ghost_action="free"),
    "exchange_only": lambda: ghost_action(ghost_placement="exchange_only"),
    "finishing": finishing,
    "solo_mastermind": solo_mastermind,
    "finesse_place_tile": finesse_place_tile,
    "finesse_level_up_tile": finesse_level_up_tile,
}


def main() -> None:
    write_golden(RECORDS, GHOST_DIR)


if __name__ == "__main__":
    main()
