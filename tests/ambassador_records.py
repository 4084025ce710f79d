"""The golden records of the Ambassador Pack, the Endless White Deck and Phoenix: how each one is
built (``python tests/ambassador_records.py`` rewrites them under ``tests/records/ambassador/``,
``tests/records/endless/`` and ``tests/records/phoenix/``;
``tests/expansions/test_ambassador.py`` replays the files and checks them by hand-worked facts).

Player 1 mostly idles: it exchanges its domino for a tri_I and back (Upgrade B keeps its piece
count and takes no level-1 piece from the reserve).

Puzzles used (cells as [row, col]):

- AW01 (white, 1 point, Ambassador): (0,3) (1,2) (1,3) (1,4) (2,4) = tri_L (0,3)(1,2)(1,3) +
  domino (1,4)(2,4).
- AB01 (black, 3 points, Ambassador): (2,2) (3,0-3) (4,0-3) = tri_L (2,2)(3,2)(3,3) + dominoes
  (4,2)(4,3), (3,0)(4,0), (3,1)(4,1).
- W09 (1 point, mono), W22 / W23 (0 points, domino): (2,2)(3,2), a vertical domino.
- W10 (1 point, domino): (1,2)(2,2)(3,2). W12 (1 point, domino): (2,1)(2,2)(2,3)(3,2).
  W13 (1 point, tri_L): (1,1)(1,2)(2,2)(2,3)(3,3).
- PB07 (Phoenix, 6 points, domino): domino (1,0)(2,0) + four rows of tet_I (r,1)-(r,4), r=1-4.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from finesse_records import row
from records_util import RECORDS_DIR, RecordBuilder, placement, white_deck, write_golden

BLACK = ["B13", "B01", "B06", "B14", "B02", "B07", "B15", "B03", "B08", "B16", "B04", "B09"]
SEED = 20261129  # the Endless records' reshuffle seed

# cells of the placements the records use
TRI_L_AW01 = [[0, 3], [1, 2], [1, 3]]
DOMINO_AW01 = [[1, 4], [2, 4]]
VERTICAL = [[2, 2], [3, 2]]  # W09, W22, W23


class Idle:
    """A player's filler turns: exchanges of its domino and a tri_I, back and forth."""

    def __init__(self, player: int) -> None:
        self.player = player
        self.holds = "domino"

    def turn(self, b: RecordBuilder, actions: int = 3) -> RecordBuilder:
        for _ in range(actions):
            other = "tri_I" if self.holds == "domino" else "domino"
            b.upgrade(self.player, self.holds, other)
            self.holds = other
        return b


def amb(b: RecordBuilder, player: int, *placements: dict[str, Any]) -> RecordBuilder:
    return b.act(player, "ambassador", placements=list(placements))


def ambassador_pack(b: RecordBuilder, *more: str) -> RecordBuilder:
    b.rules["expansions"] = ["ambassador_pack", *more]
    return b


def gain_aw01(b: RecordBuilder, idle: Idle) -> RecordBuilder:
    """Rounds 1-2: player 0 takes AW01 and completes it (an Ambassador), then takes W22."""
    b.take(0, "AW01").upgrade(0, "mono", "domino").upgrade(0, "domino", "tri_L")
    idle.turn(b)
    b.place(0, "AW01", "tri_L", TRI_L_AW01).place(0, "AW01", "domino", DOMINO_AW01)
    return b


# -- Ambassador Pack -------------------------------------------------------------------------------
def use_twice() -> dict[str, Any]:
    """Two Ambassadors gained, then used twice in one turn around the turn's Master.

    Round 1: p0 takes AW01 and AB01, upgrades its domino to a tri_L. Round 2: a domino again, a
    Master (tri_L on AW01, domino on AB01), a mono. Round 3: a domino; completes AW01 (1 point,
    an Ambassador); tri_L on AB01. Round 4: domino on AB01, a mono, a domino. Round 5: completes
    AB01 (3 points, a second Ambassador), takes W10 and W13. Round 6: takes W12, two monos.
    Round 7 (actions 36-38): Ambassador (W10, W13, W12), Master (completing W10 and W13, a mono
    on W12), Ambassador (completing W12): 3 more points, no Ambassador left.
    """
    idle = Idle(1)
    b = ambassador_pack(RecordBuilder(white_deck("AW01", "W10", "W13", "W12"), ["AB01", *BLACK]))
    b.take(0, "AW01").take(0, "AB01").upgrade(0, "domino", "tri_L")
    idle.turn(b)
    b.upgrade(0, "mono", "domino")
    b.master(
        0,
        placement("AW01", "tri_L", TRI_L_AW01),
        placement("AB01", "domino", [[4, 2], [4, 3]]),
    )
    b.take_basic(0)
    idle.turn(b)
    b.upgrade(0, "mono", "domino").place(0, "AW01", "domino", DOMINO_AW01)
    b.place(0, "AB01", "tri_L", [[2, 2], [3, 2], [3, 3]])
    idle.turn(b)
    b.place(0, "AB01", "domino", [[3, 0], [4, 0]]).take_basic(0).upgrade(0, "mono", "domino")
    idle.turn(b)
    b.place(0, "AB01", "domino", [[3, 1], [4, 1]]).take(0, "W10").take(0, "W13")
    idle.turn(b)
    b.take(0, "W12").take_basic(0, 2)
    idle.turn(b)
    amb(
        b,
        0,
        placement("W10", "domino", [[1, 2], [2, 2]]),
        placement("W13", "tri_L", [[1, 1], [1, 2], [2, 2]]),
        placement("W12", "domino", [[2, 1], [2, 2]]),
    )
    b.master(
        0,
        placement("W10", "mono", [[3, 2]]),
        placement("W13", "domino", [[2, 3], [3, 3]]),
        placement("W12", "mono", [[2, 3]]),
    )
    amb(b, 0, placement("W12", "mono", [[3, 2]]))
    return b.to_json()


def finishing_touches() -> dict[str, Any]:
    """An Ambassador is no Finishing Touch, and a puzzle completed then gives none.

    The black deck holds 5 (row 4, deck 1). Rounds 1-2: p0 completes AW01 (an Ambassador) and
    takes W22; p1 takes B13 in round 2, drawing the last black card: round 3 is the last. Round
    3: p0 takes W23 and two monos. Finishing Touches: p0 places a domino on W22 (completing it:
    no reward), p1 none. p0 keeps its Ambassador unused.
    """
    idle = Idle(1)
    b = ambassador_pack(RecordBuilder(white_deck("AW01", "W22", "W23"), BLACK[:5]))
    gain_aw01(b, idle)
    b.take(0, "W22")
    b.take(1, "B13")
    idle.turn(b, 2)
    b.take(0, "W23").take_basic(0, 2)
    idle.turn(b)
    b.finish(0, placement("W22", "domino", VERTICAL)).finish(1)
    return b.to_json()


def finesse_master_tile() -> dict[str, Any]:
    """Finesse: the "Using Master" tile (C02) counts an Ambassador's pieces.

    Round 3's tile is C02. Rounds 1-2: p0 completes AW01 (an Ambassador) and takes W22. Round 3:
    p0 takes W24 and uses the Ambassador: domino on W22 and tri_L on W24 (completing both): 2
    Credits; then a mono. p1 idles; the record stops at the start of round 4.
    """
    idle = Idle(1)
    b = ambassador_pack(RecordBuilder(white_deck("AW01", "W22", "W24"), BLACK), "finesse")
    b.setup["finesse_tiles"] = row("C02")
    gain_aw01(b, idle)
    b.take(0, "W22")
    idle.turn(b)
    b.take(0, "W24")
    amb(
        b,
        0,
        placement("W22", "domino", VERTICAL),
        placement("W24", "tri_L", [[2, 1], [3, 1], [3, 2]]),
    )
    b.take_basic(0)
    idle.turn(b)
    return b.to_json()


def solo_mastermind() -> dict[str, Any]:
    """Solo: the mastermind takes AW01 and gets nothing (it takes puzzles with no reward).

    The grid is AW01 (position 1, 1 point) and eight 0-point puzzles. p0 takes three monos; all
    columns are locked (1/2/1): one piece from each returns, columns 1 and 3 open, and the best
    puzzle there is AW01.
    """
    grid = ["AW01", "W22", "W23", "W24", "W25", "W26", "W27", "W28", "W29"]
    b = ambassador_pack(RecordBuilder.solo([*grid, "W30", "W31", "B13", "B14"]))
    return b.take_basic(0, 3).to_json()


# -- Endless White Deck ----------------------------------------------------------------------------
def endless_reshuffle() -> dict[str, Any]:
    """The white deck runs out, is refilled from the completed white puzzles, points kept.

    White deck W22 W23 W09 W10 (the row) on W24 W25 W26; black deck 4 cards (row only): the end
    is triggered from the start, round 2 is the last.

    Round 1: p0 takes W22, W23 (drawing W24, W25) and W09 (drawing W26: the deck is empty and
    nothing is completed: it stays empty). p1 takes W10 (nothing to draw: the row shrinks to 3)
    and two monos. Round 2: p0 completes W22 (reshuffle 0: W22 noted, the new deck [W22] fills
    the row's gap, the deck is empty again), W23 (reshuffle 1: W23 noted, deck [W23]) and W09 (1
    point; the deck has a card: no reshuffle). p1 completes W10 (1 point) and takes W23 blind
    (the deck is empty: reshuffle 2 of W09 and W10, in the seed's order). Finishing Touches: none.
    Both score 1; p0 completed 3 puzzles (all noted), p1 1: p0 wins the tie-break.
    """
    b = RecordBuilder(
        ["W22", "W23", "W09", "W10", "W24", "W25", "W26"],
        BLACK[:4],
        endless_white_deck=True,
    )
    b.setup["reshuffle_seed"] = SEED
    b.take(0, "W22").take(0, "W23").take(0, "W09")
    b.take(1, "W10").take_basic(1, 2)
    b.place(0, "W22", "domino", VERTICAL)
    b.place(0, "W23", "domino", VERTICAL)
    b.place(0, "W09", "domino", VERTICAL)
    b.place(1, "W10", "domino", [[1, 2], [2, 2]]).place(1, "W10", "mono", [[3, 2]])
    b.take_deck(1, "white")
    b.finish(0).finish(1)
    return b.to_json()


def endless_ambassador() -> dict[str, Any]:
    """An Ambassador is kept across a reshuffle, and AW01 completed twice gives two.

    White deck AW01 W22 W23 W09 (the row) on W24; black deck 5 (row 4, deck 1). Round 1: p0
    takes AW01 (drawing W24: the deck is empty, nothing completed), builds a tri_L. Round 2: p0
    completes AW01 (1 point, an Ambassador; reshuffle 0: AW01 noted, deck [AW01]) and takes AW01
    blind; p1 takes B13 (the last black: round 3 is the last). Round 3: p0 uses its Ambassador
    (tri_L on AW01) and completes AW01 again (1 point, a second Ambassador; reshuffle 1), takes
    AW01 blind once more. Finishing Touches: p0 completes AW01 a third time (2 pieces: -2, +1
    point, no Ambassador): it ends with 1 point and 1 Ambassador unused.
    """
    idle = Idle(1)
    b = ambassador_pack(
        RecordBuilder(["AW01", "W22", "W23", "W09", "W24"], BLACK[:5], endless_white_deck=True)
    )
    b.setup["reshuffle_seed"] = SEED
    gain_aw01(b, idle)
    b.take_deck(0, "white")
    b.take(1, "B13")
    idle.turn(b, 2)
    amb(b, 0, placement("AW01", "tri_L", TRI_L_AW01))
    b.place(0, "AW01", "domino", DOMINO_AW01)
    b.take_deck(0, "white")
    idle.turn(b)
    b.finish(
        0, placement("AW01", "tri_L", TRI_L_AW01), placement("AW01", "domino", DOMINO_AW01)
    ).finish(1)
    return b.to_json()


# -- Phoenix ---------------------------------------------------------------------------------------
def phoenix_complete() -> dict[str, Any]:
    """A Phoenix puzzle (PB07, 6 points, reward domino) completed, and the game played out.

    Black deck PB07 + 5 (row 4, deck 2). Round 1: p0 takes PB07 (deck 1) and upgrades its
    domino to a tri_I, then a tet_I. Rounds 2-7 (18 actions): it places that tet_I on row 1,
    then three times a take_basic, three upgrades (mono, domino, tri_I, tet_I) and the tet_I on
    the next row; then its starting mono becomes a domino, placed on (1,0)(2,0): PB07 is
    complete (6 points, a domino). Round 8: p0 takes three monos, p1 takes the last black card
    blind (round 9 is the last). Round 9: p0 three more monos. Finishing Touches: none.
    """
    idle = Idle(1)
    b = RecordBuilder(white_deck(), ["PB07", *BLACK[:5]])
    b.rules["expansions"] = ["phoenix"]
    climb = [("mono", "domino"), ("domino", "tri_I"), ("tri_I", "tet_I")]
    # round 1: take PB07, domino -> tri_I -> ... (p0 starts with a mono and a domino)
    b.take(0, "PB07").upgrade(0, "domino", "tri_I").upgrade(0, "tri_I", "tet_I")
    idle.turn(b)
    rows = iter(range(1, 5))
    plan: list[tuple[str, Any]] = [("place", next(rows))]  # the first tet_I at once
    for _ in range(3):
        plan += [("take_basic", None), *(("upgrade", c) for c in climb), ("place", next(rows))]
    plan += [("upgrade", ("mono", "domino")), ("final", None)]
    assert len(plan) == 18  # rounds 2-7
    for k, (kind, arg) in enumerate(plan):
        if kind == "place":
            b.place(0, "PB07", "tet_I", [[arg, c] for c in range(1, 5)])
        elif kind == "take_basic":
            b.take_basic(0)
        elif kind == "upgrade":
            b.upgrade(0, *arg)
        else:
            b.place(0, "PB07", "domino", [[1, 0], [2, 0]])
        if k % 3 == 2:
            idle.turn(b)
    b.take_basic(0, 3)  # round 8
    b.take_deck(1, "black")
    idle.turn(b, 2)
    b.take_basic(0, 3)  # round 9, the last
    idle.turn(b)
    b.finish(0).finish(1)
    return b.to_json()


RECORDS = {
    "ambassador/use_twice": use_twice,
    "ambassador/finishing_touches": finishing_touches,
    "ambassador/finesse_master_tile": finesse_master_tile,
    "ambassador/solo_mastermind": solo_mastermind,
    "endless/reshuffle": endless_reshuffle,
    "endless/ambassador_kept": endless_ambassador,
    "phoenix/complete": phoenix_complete,
}


def main() -> None:
    write_golden(RECORDS, RECORDS_DIR)


if __name__ == "__main__":
    main()
