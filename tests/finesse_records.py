"""The Finesse golden records: how each one is built (``python tests/finesse_records.py`` rewrites
them under ``tests/records/``; the tests replay the files and check them by hand-worked facts).

Every 2-player record starts from the same decks, and its tile row puts the tile under test at
position 3 (the first tile that counts: tiles 1-2 are face down, rulings). Rounds 1-2 are filler
(Upgrade A, "take_basic"), so both players reach round 3 with level-1 pieces to spare.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from records_util import (
    RECORDS_DIR,
    TEST_TILES_FILE,
    RecordBuilder,
    placement,
    white_deck,
    write_golden,
)

BLACK = ["B13", "B01", "B06", "B14", "B02", "B07", "B15", "B03", "B08", "B16", "B04", "B09"]
WHITE = white_deck("W22", "W23", "W09", "W29", "W10", "W24")

# The builtin tiles the records use; ``row(tile)`` fills the rest of a legal row around one.
FILLER = {
    "A": ["A01", "A02", "A03"],
    "B": ["B01", "B02", "B03"],
    "C": ["C01", "C02", "C03", "C04", "C05", "C06", "C07", "C08"],
}


def row(test: str, set_name: str = "C", later: tuple[tuple[str, str], ...] = ()) -> list[str]:
    """Return a 2 A / 2 B / 6 C row with ``test`` third (round 3) and ``later`` after it."""
    want = {"A": 2, "B": 2, "C": 6}
    chosen = [(test, set_name), *later]
    for _tid, s in chosen:
        want[s] -= 1
    fill = [t for s in "ABC" for t in [x for x in FILLER[s] if x not in dict(chosen)][: want[s]]]
    out = fill[:2] + [tid for tid, _ in chosen] + fill[2:]
    return out


def finesse(b: RecordBuilder, tiles: list[str], **switches: Any) -> RecordBuilder:
    b.rules["expansions"] = ["finesse"]
    b.rules.update(switches)
    b.setup["finesse_tiles"] = tiles
    return b


def two_rounds_of_filler(b: RecordBuilder) -> RecordBuilder:
    """Rounds 1-2: player 0 takes W22 then five level-1 pieces, player 1 six."""
    b.take(0, "W22").take_basic(0, 2).take_basic(1, 3)
    return b.take_basic(0, 3).take_basic(1, 3)


def triggers(tile: str, set_name: str = "C", **switches: Any) -> dict[str, Any]:
    """Round 3 exercises every trigger once; the tile in round 3 decides what pays.

    Player 0: Take W23; Place its domino on W22 (completing it: reward domino); Master: one
    mono on W23. Player 1: Upgrade A (take_basic), Upgrade B (mono -> domino), Recycle the white
    row. Then round 4 begins (player 0 takes a mono).
    """
    b = finesse(RecordBuilder(WHITE, BLACK), row(tile, set_name), **switches)
    two_rounds_of_filler(b)
    b.take(0, "W23")
    b.place(0, "W22", "domino", [[2, 2], [3, 2]])
    b.master(0, placement("W23", "mono", [[2, 2]]))
    b.take_basic(1).upgrade(1, "mono", "domino").recycle(1, "white")
    b.take_basic(0)
    return b.to_json()


def insert_limits() -> dict[str, Any]:
    """A rich player 0 Inserts twice in round 4, Master once (rulings: Insert, Master).

    Round 3's tile is the test tile set's ``TAKE20`` (pink, 20 Credits per Take): player 0 takes
    W23 and ends round 3 with 20 Credits, active from the end of its turn. Round 4: two
    actions, an inserted Master, an inserted Place (completing W23), then its third action
    (completing W22), which ends the turn.
    """
    b = finesse(RecordBuilder(WHITE, BLACK), row("TAKE20"))
    two_rounds_of_filler(b)
    b.take(0, "W23").take_basic(0, 2)
    b.take_basic(1, 3)
    # round 4: two actions, two Inserts (2 Credits each), the third action
    b.take_basic(0, 2)
    b.act(
        0, "insert", action={"type": "master", "placements": [placement("W23", "mono", [[2, 2]])]}
    )
    b.act(
        0, "insert", action={"type": "place", "puzzle": "W23", "piece": "mono", "cells": [[3, 2]]}
    )
    b.place(0, "W22", "domino", [[2, 2], [3, 2]])
    return b.to_json()


def bank_empty() -> dict[str, Any]:
    """Both players take under 20-Credit take tiles: the bank runs dry in round 4."""
    b = finesse(RecordBuilder(WHITE, BLACK), row("TAKE20", later=(("TAKE20B", "C"),)))
    two_rounds_of_filler(b)
    b.take(0, "W23").take_basic(0, 2)  # round 3: player 0 gets 20 (bank 15)
    b.take_basic(1, 3)
    b.take_basic(0, 3)  # round 4: player 1 takes, wanting 20 of 15
    b.take(1, "W09")
    return b.to_json()


def round_ten() -> dict[str, Any]:
    """Ten rounds without a puzzle: the game ends after round 10 (no extra round).

    Round 3's tile is X02 (Ambassador Pack: 2 Credits per Recycle): player 0 recycles the white
    row three times (6 Credits); player 1 takes level-1 pieces, so it ends with more pieces in
    supply (11 to 8). Then both exchange a domino and a tri_I back and forth (Upgrade B keeps the
    piece count); player 0 never Inserts, though its Credits would allow it. Nobody completes or
    holds a puzzle: both score 0, and the Credits break the tie for player 0 (the base
    tie-break, pieces in supply, would name player 1). Round 10's tile (C05, Upgrade) pays both
    players 3 more: player 0 ends with 9 Credits, player 1 with 3.
    """
    b = finesse(RecordBuilder(WHITE, BLACK), row("X02"), finesse_ambassador=True)
    b.take_basic(0, 3).take_basic(1, 3)
    b.take_basic(0, 3).take_basic(1, 3)
    b.recycle(0, "white").recycle(0, "white").recycle(0, "white")
    b.take_basic(1, 3)
    holds = ["domino", "domino"]  # the piece each player exchanges back and forth
    other = {"domino": "tri_I", "tri_I": "domino"}
    for _ in range(4, 11):
        for player in (0, 1):
            for _ in range(3):
                b.upgrade(player, holds[player], other[holds[player]])
                holds[player] = other[holds[player]]
    b.finish(0).finish(1)
    return b.to_json()


# -- the Finesse Ambassador Pack's "have" tiles: one record each, paid to p0 and not to p1 -------
def every_level() -> dict[str, Any]:
    """X03 (blue, 4 Credits once): a piece of every level 1-4 held at the end of the turn.

    Player 0 builds a tet_I (round 1: a mono, mono -> domino, domino -> tri_I; round 2: tri_I
    -> tet_I, a mono, mono -> domino); in round 3 it takes W22, places its mono there (held on
    an unfinished puzzle: it counts) and upgrades a domino to a tri_I. It ends the turn with
    the mono on W22, a domino, a tri_I and a tet_I in supply: paid 4. Its supply alone lacks
    level 1. Player 1 takes monos: levels 1-2 only, not paid.
    """
    b = finesse(RecordBuilder(WHITE, BLACK), row("X03"), finesse_ambassador=True)
    b.take_basic(0).upgrade(0, "mono", "domino").upgrade(0, "domino", "tri_I")
    b.take_basic(1, 3)
    b.upgrade(0, "tri_I", "tet_I").take_basic(0).upgrade(0, "mono", "domino")
    b.take_basic(1, 3)
    b.take(0, "W22").place(0, "W22", "mono", [[2, 2]]).upgrade(0, "domino", "tri_I")
    b.take_basic(1, 3)
    b.take_basic(0)
    return b.to_json()


def distinct_shapes() -> dict[str, Any]:
    """X05 (blue, 4 Credits once): no two pieces of the same shape held at the end of the turn.

    Player 0 keeps one mono and one level-3 piece (exchanging domino -> tri_I -> tri_L -> ...),
    and in round 3 places its mono on W22: mono (on W22) and tri_L, no two alike: paid 4.
    Player 1 places its mono on W23 in round 1 and takes another (Upgrade A), then exchanges
    its second piece back and forth: its supply is a mono and a tri_L, but with the mono on
    W23 it holds two monos: not paid (a supply-only reading would pay it).
    """
    b = finesse(RecordBuilder(WHITE, BLACK), row("X05"), finesse_ambassador=True)
    b.upgrade(0, "domino", "tri_I").upgrade(0, "tri_I", "tri_L").upgrade(0, "tri_L", "tri_I")
    b.take(1, "W23").place(1, "W23", "mono", [[2, 2]]).take_basic(1)
    b.upgrade(0, "tri_I", "tri_L").upgrade(0, "tri_L", "tri_I").upgrade(0, "tri_I", "tri_L")
    b.upgrade(1, "domino", "tri_I").upgrade(1, "tri_I", "tri_L").upgrade(1, "tri_L", "tri_I")
    b.take(0, "W22").place(0, "W22", "mono", [[2, 2]]).upgrade(0, "tri_L", "tri_I")
    b.upgrade(1, "tri_I", "tri_L").upgrade(1, "tri_L", "tri_I").upgrade(1, "tri_I", "tri_L")
    b.take_basic(0)
    return b.to_json()


def no_level_1_2() -> dict[str, Any]:
    """X06 (blue, 3 Credits once): no level-1 or level-2 piece held at the end of the turn.

    Player 0 climbs out of levels 1-2 in round 1 (domino -> tri_I, mono -> domino, domino ->
    tri_L), places its tri_I on W29 in round 2 and climbs on: it ends round 3 with a tri_I on
    W29 and a tet_S: paid 3. Player 1 climbs too but keeps a domino, placed on W10 (which
    refilled the row after W29): no level-1 piece, its supply has no level 2 either, yet it
    holds a domino on an unfinished puzzle: not paid.
    """
    b = finesse(RecordBuilder(WHITE, BLACK), row("X06"), finesse_ambassador=True)
    b.upgrade(0, "domino", "tri_I").upgrade(0, "mono", "domino").upgrade(0, "domino", "tri_L")
    b.upgrade(1, "mono", "domino").upgrade(1, "domino", "tri_I").upgrade(1, "tri_I", "tri_L")
    b.take(0, "W29").place(0, "W29", "tri_I", [[1, 1], [2, 1], [3, 1]])
    b.upgrade(0, "tri_L", "tet_L")
    b.take(1, "W10").place(1, "W10", "domino", [[1, 2], [2, 2]]).upgrade(1, "tri_L", "tet_L")
    b.upgrade(0, "tet_L", "tet_O").upgrade(0, "tet_O", "tet_T").upgrade(0, "tet_T", "tet_S")
    b.upgrade(1, "tet_L", "tet_O").upgrade(1, "tet_O", "tet_T").upgrade(1, "tet_T", "tet_S")
    b.take_basic(0)
    return b.to_json()


def insert_tile() -> dict[str, Any]:
    """X04 (pink, 1 Credit per Insert) in round 4, after C04 (1 Credit per Take) in round 3.

    Rounds 1-2: both take monos. Round 3: player 0 takes W22 and W23 (2 Credits, active at the
    end of its turn), player 1 takes W09 (1 Credit). Round 4: player 0 Inserts a mono (Upgrade
    A): it spends 2 and gains 1 (inactive until its turn ends), then takes three monos; player
    1, with 1 Credit, cannot Insert and takes three monos: paid nothing. Round 5 begins.
    """
    b = finesse(
        RecordBuilder(WHITE, BLACK), row("C04", later=(("X04", "C"),)), finesse_ambassador=True
    )
    b.take_basic(0, 3).take_basic(1, 3)
    b.take_basic(0, 3).take_basic(1, 3)
    b.take(0, "W22").take(0, "W23").take_basic(0)
    b.take(1, "W09").take_basic(1, 2)
    b.act(0, "insert", action={"type": "take_basic"}).take_basic(0, 3)
    b.take_basic(1, 3)
    b.take_basic(0)
    return b.to_json()


def finishing_credits() -> dict[str, Any]:
    """Finishing Touches paid with Credits decide the game (rulings: Finishing Touches).

    Player 0 builds two dominoes (rounds 1-2), takes W23 (0 points) under TAKE20 in round 3
    (20 Credits), holds it through round 6 (C01, 1 Credit per unfinished puzzle: 21), and takes
    W09 (1 point) in round 10; everyone else recycles the black row. The game ends after round
    10; player 0 completes both puzzles with its two dominoes, both paid with Credits: it scores
    0 + 1 and keeps 19 Credits; player 1 scores 0. Paid with points it would score -1 and lose.
    """
    b = finesse(RecordBuilder(WHITE, BLACK), row("TAKE20"))
    b.take_basic(0, 3).take_basic(1, 3)
    b.upgrade(0, "mono", "domino").take_basic(0, 2).take_basic(1, 3)
    b.take(0, "W23").take_basic(0, 2).take_basic(1, 3)
    for r in range(4, 11):
        if r == 10:
            b.take(0, "W09").recycle(0, "black").recycle(0, "black")
        else:
            b.recycle(0, "black").recycle(0, "black").recycle(0, "black")
        b.recycle(1, "black").recycle(1, "black").recycle(1, "black")
    b.act(
        0,
        "finish",
        placements=[
            placement("W23", "domino", [[2, 2], [3, 2]]),
            placement("W09", "domino", [[2, 2], [3, 2]]),
        ],
        credits=2,
    )
    b.finish(1)
    return b.to_json()


SOLO_GRID = ["W22", "W10", "W01", "W11", "W02", "W23", "W03", "W12", "W24"]
SOLO_REST = ["W13", "W04", "W25", "W14", "W05", "W26", "B13", "B01", "B06", "B14", "B02"]


def solo_mastermind() -> dict[str, Any]:
    """Finesse Solo: the mastermind takes two puzzles of one column, refilling the top gap first.

    Grid (positions 1-9 row by row; columns = position mod 3):

        1 W22 0p   2 W10 1p   3 W01 2p
        4 W11 1p   5 W02 2p   6 W23 0p
        7 W03 2p   8 W12 1p   9 W24 0p

    The player takes three level-1 pieces. All columns are locked (1/2/1): one piece from above
    each returns to the reserve, leaving columns 1 and 3 open. The best is 2 points, W01 (pos 3)
    and W03 (pos 7) tie: the lowest position, W01. The second is the least valuable of column 3:
    W23 (pos 6) and W24 (pos 9) tie at 0, the one nearest the top, W23. The topmost gap (3)
    refills first with W13, then gap 6 with W04.
    """
    b = RecordBuilder.solo(SOLO_GRID + SOLO_REST)
    b.rules["expansions"] = ["finesse"]
    b.setup["finesse_tiles"] = row("C01")
    b.take_basic(0, 3)
    return b.to_json()


def solo_pack() -> dict[str, Any]:
    """Finesse Solo with the Finesse Ambassador Pack: a row of pack tiles (no Recycle tile).

    Row: AX1, BX1 (face down), X01, X04, AX2, BX2, X03, X05, X06, C01. Rounds 1-2: the player
    takes monos (the mastermind takes two puzzles each round). Round 3 (X01, no unfinished
    puzzle: 4 Credits once): the player takes monos and holds no puzzle: 4 Credits, active at
    the end of its turn. Round 4 (X04, 1 Credit per Insert): it Inserts a mono, spending 2 and
    gaining 1, then takes three more: 3 Credits. The mastermind never earns any.
    """
    b = RecordBuilder.solo(SOLO_GRID + SOLO_REST, finesse_ambassador=True)
    b.rules["expansions"] = ["finesse"]
    b.setup["finesse_tiles"] = [
        "AX1",
        "BX1",
        "X01",
        "X04",
        "AX2",
        "BX2",
        "X03",
        "X05",
        "X06",
        "C01",
    ]
    b.take_basic(0, 9)
    b.act(0, "insert", action={"type": "take_basic"}).take_basic(0, 3)
    return b.to_json()


TEST_TILES = [
    {
        "id": "PLACE12",
        "set": "A",
        "colour": "pink",
        "trigger": "place",
        "pieces": ["mono", "domino"],
    },
    {"id": "TAKE20", "set": "C", "colour": "pink", "trigger": "take", "credits": 20},
    {"id": "TAKE20B", "set": "C", "colour": "pink", "trigger": "take", "credits": 20},
    {"id": "OWN12", "set": "B", "colour": "blue", "trigger": "own", "pieces": ["mono", "domino"]},
    {
        "id": "VARIETY",
        "set": "C",
        "colour": "blue",
        "trigger": "variety",
        "pieces": ["mono", "domino", "tet_I"],
    },
]

# tile -> its set, for the trigger records (one per Set C tile and per kind of the test tiles)
TRIGGER_TILES = {
    **{f"C{k:02d}": "C" for k in range(1, 11)},
    "X01": "C",
    "X02": "C",
    "PLACE12": "A",
    "OWN12": "B",
    "VARIETY": "C",
}

RECORDS = {
    **{
        f"finesse_tile_{tile}": (
            lambda tile=tile, s=s: triggers(
                tile, s, **({"finesse_ambassador": True} if tile.startswith("X") else {})
            )
        )
        for tile, s in TRIGGER_TILES.items()
    },
    "finesse_tile_X03": every_level,
    "finesse_tile_X04": insert_tile,
    "finesse_tile_X05": distinct_shapes,
    "finesse_tile_X06": no_level_1_2,
    "finesse_insert": insert_limits,
    "finesse_bank_empty": bank_empty,
    "finesse_round_ten": round_ten,
    "finesse_finishing_credits": finishing_credits,
    "finesse_solo_mastermind": solo_mastermind,
    "finesse_solo_pack": solo_pack,
}


def write_test_tiles() -> None:
    """Write the test tile file: the shipped tiles plus ``TEST_TILES`` (a user's tile file)."""
    data = json.loads(
        resources.files("projectl_sim").joinpath("data/finesse_tiles.json").read_text()
    )
    data["tiles"] += TEST_TILES
    data["name"] = "test"
    data["note"] = "The shipped tiles plus the test tiles of tests/finesse_records.py."
    lines = ["{"] + [
        f" {json.dumps(k)}: {json.dumps(data[k])}," for k in ("format", "name", "note")
    ]
    lines.append(' "tiles": [')
    lines += [f"  {json.dumps(t)}," for t in data["tiles"]]
    lines[-1] = lines[-1].rstrip(",")
    lines += [" ]", "}"]
    TEST_TILES_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    write_test_tiles()
    write_golden(RECORDS, RECORDS_DIR, test_tile_ids={t["id"] for t in TEST_TILES})


if __name__ == "__main__":
    main()
