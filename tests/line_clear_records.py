"""The Line Clear golden records: how each one is built (``python tests/line_clear_records.py``
rewrites them under ``tests/records/line_clear/``; ``tests/variants/test_line_clear.py`` replays
the files and checks them against hand-worked facts).

Seats: with 5 players the black marker starts 2 seats after the white one (the 3rd player), with
6 players 3 seats after (the 4th). Turn pair k (counted from 0) has the white marker at seat
``first + k`` and the black one at ``first + k + 2`` (or + 3), modulo the player count.

Filler actions are Upgrade B exchanges that keep every count level: a player holding a mono
exchanges it for a domino, else a domino for a mono (everyone starts with one of each).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from finesse_records import TEST_TILES, row
from records_util import RECORDS_DIR, RecordBuilder, white_deck, write_golden

LC_DIR = RECORDS_DIR / "line_clear"
WHITE = white_deck()  # W01..W32: left white row W01-W03, right W04-W06, the deck from W07
BLACK = [f"B{k:02d}" for k in range(1, 21)]  # left B01-B03, right B04-B06, the deck from B07
SHORT_BLACK = BLACK[:7]  # one card left in the black deck (B07): its first draw triggers the end

Act = Callable[["LCBuilder"], Any]


class LCBuilder(RecordBuilder):
    """A Line Clear record: the variant, whole turn pairs, and level filler actions."""

    def __init__(
        self,
        black: list[str],
        players: int = 5,
        first_player: int = 0,
        white: list[str] | None = None,
        **switches: Any,
    ) -> None:
        super().__init__(
            WHITE if white is None else white,
            black,
            players=players,
            first_player=first_player,
            variant="line_clear",
            **switches,
        )
        self.offset = 2 if players == 5 else 3
        # the markers, as written setups name them: white with the first player
        self.setup["markers"] = {
            "white": first_player,
            "black": (first_player + self.offset) % players,
        }
        self.pairs = 0
        self.has_mono = [True] * players

    def filler(self, player: int) -> LCBuilder:
        """One level exchange: mono -> domino, or domino -> mono."""
        if self.has_mono[player]:
            self.upgrade(player, "mono", "domino")
        else:
            self.upgrade(player, "domino", "mono")
        self.has_mono[player] = not self.has_mono[player]
        return self

    def holders(self) -> tuple[int, int]:
        """Return the seats of the white and black markers in the next pair."""
        n = self.rules["players"]
        white = (self.setup["first_player"] + self.pairs) % n
        return white, (white + self.offset) % n

    def pair(
        self, white: list[Act] | None = None, black: list[Act] | None = None, order: str = ""
    ) -> LCBuilder:
        """Play one turn pair: each holder's 3 actions (filler where not given), in the order of
        the rules' ``line_clear_order`` (interleaved, white first; or the white turn first)."""
        w, b = self.holders()
        wacts = (white or []) + [lambda x, w=w: x.filler(w)] * (3 - len(white or []))
        bacts = (black or []) + [lambda x, b=b: x.filler(b)] * (3 - len(black or []))
        order = order or self.rules.get("line_clear_order", "interleave")
        if order == "interleave":
            sequence = [a for pair in zip(wacts, bacts, strict=True) for a in pair]
        else:
            sequence = wacts + bacts
        for act in sequence:
            act(self)
        self.pairs += 1
        return self

    def pairs_of_filler(self, k: int) -> LCBuilder:
        for _ in range(k):
            self.pair()
        return self

    def finish_all(self) -> LCBuilder:
        """Everyone's empty Finishing Touches, from the first player in seat order."""
        n = self.rules["players"]
        for k in range(n):
            self.finish((self.setup["first_player"] + k) % n)
        return self


def opening(b: LCBuilder) -> LCBuilder:
    """Pair 0 of the markers records (white marker seat 1, black seat 3).

    White (left rows): a blind white card (W07), Recycle the left white row (W01-W03 go under
    the deck in that order), take B01 from the left black row. Black (right rows): take W04 from
    the right white row, then B04 from the right black row; then filler. Interleaved (W07, W04,
    Recycle, B04, B01): W04's gap gets W08, the Recycle brings up W09-W11, B04's gap gets B07 and
    B01's B08. White first (W07, Recycle, B01, W04, B04): the Recycle brings up W08-W10, B01's gap
    gets B07, W04's W11 and B04's B08.
    """
    return b.pair(
        [
            lambda x: x.take_deck(1, "white"),
            lambda x: x.recycle(1, "white"),
            lambda x: x.take(1, "B01"),
        ],
        [lambda x: x.take(3, "W04"), lambda x: x.take(3, "B04")],
    )


def markers() -> dict[str, Any]:
    """5 players, first player 1: the opening pair, then five pairs of filler (round 2 starts
    when the white marker is back with seat 1, after pair 4)."""
    b = LCBuilder(BLACK, first_player=1)
    opening(b)
    return b.pairs_of_filler(5).to_json()


def white_first() -> dict[str, Any]:
    """The markers record's opening pair with ``line_clear_order=white_first``."""
    b = LCBuilder(BLACK, first_player=1, line_clear_order="white_first")
    return opening(b).to_json()


def end_first_holds_white() -> dict[str, Any]:
    """5 players, first player 0, a black deck of 7 (one card left after the rows).

    Pair 0 (white 0, black 2): seat 0 draws the last black card blind (B07): the end is
    triggered while the first player holds the white marker; the triggering take doesn't count
    towards the one black puzzle per turn, so seat 0 still takes B01 (not replaced). Seat 2 takes
    B04 from the right row (its one black puzzle). Holding the white marker at the trigger
    doesn't count: the first player receives black after pair 2 and white after pair 4, and the
    game ends then (pairs 1-4 are played after the trigger pair). Finishing Touches: none.
    """
    b = LCBuilder(SHORT_BLACK)
    b.pair(
        [lambda x: x.take_deck(0, "black"), lambda x: x.take(0, "B01")],
        [lambda x: x.take(2, "B04")],
    )
    return b.pairs_of_filler(4).finish_all().to_json()


def end_first_holds_black() -> dict[str, Any]:
    """5 players, first player 0, a black deck of 7: the trigger comes in pair 3 (white 3,
    black 0), seat 3 drawing B07 blind, while the first player holds the black marker.

    The first player receives white after pair 4 (round 2 starts: the game goes on) and black
    after pair 7: the game ends there (pairs 4-7 after the trigger pair).
    """
    b = LCBuilder(SHORT_BLACK)
    b.pairs_of_filler(3)
    b.pair([lambda x: x.take_deck(3, "black")])
    return b.pairs_of_filler(4).finish_all().to_json()


def end_six_players() -> dict[str, Any]:
    """6 players (Phoenix for the 24 black puzzles), first player 2, a black deck of 7.

    Pair 0: white 2, black 5. Pair 1: white 3 draws B07 blind (the trigger), black 0 takes B05.
    The first player receives black after pair 2 (white 5, black 2), white after pair 5: the
    game ends there (a marker cycle of 6 pairs, pairs 2-5 after the trigger pair).
    """
    b = LCBuilder(SHORT_BLACK, players=6, first_player=2, expansions=["phoenix"])
    b.pair()
    b.pair([lambda x: x.take_deck(3, "black")], [lambda x: x.take(0, "B05")])
    return b.pairs_of_filler(4).finish_all().to_json()


def finesse_rounds() -> dict[str, Any]:
    """Finesse Line Clear, 5 players, first player 0: tile 3 (C04: 1 Credit per Take) counts in
    round 3, which starts when seat 0 receives the white marker for the second time, after pair
    9. In pair 9 (round 2: white 4) seat 4 takes W01: nothing. In pair 10 (round 3: white 0,
    black 2) seat 0 takes W02 (its first action) and seat 2 W04 (its first): 1 Credit each,
    inactive until each one's own turn ends.
    """
    b = LCBuilder(BLACK)
    b.rules["expansions"] = ["finesse"]
    b.setup["finesse_tiles"] = row("C04")
    b.pairs_of_filler(9)
    b.pair([lambda x: x.take(4, "W01")])
    b.pair([lambda x: x.take(0, "W02")], [lambda x: x.take(2, "W04")])
    return b.to_json()


def finesse_round_ten() -> dict[str, Any]:
    """Finesse Line Clear: ten rounds (50 pairs of 5 players) of filler; the game ends when the
    first player receives the white marker at the end of round 10 (the 10th tile's removal).

    Round 3's tile (C05, Upgrade) pays every filler exchange: 6 Credits each (bank 5). Round
    10's (C06, the second Upgrade tile) pays them again, until the bank runs dry and the richest
    give Credits back: the Credits then break the all-zero tie.
    """
    b = LCBuilder(BLACK)
    b.rules["expansions"] = ["finesse"]
    b.setup["finesse_tiles"] = row("C05")  # Upgrade pays: every filler action earns a Credit
    return b.pairs_of_filler(50).finish_all().to_json()


RECORDS: dict[str, Callable[[], dict[str, Any]]] = {
    "markers": markers,
    "white_first": white_first,
    "end_first_holds_white": end_first_holds_white,
    "end_first_holds_black": end_first_holds_black,
    "end_six_players": end_six_players,
    "finesse_rounds": finesse_rounds,
    "finesse_round_ten": finesse_round_ten,
}


def main() -> None:
    write_golden(RECORDS, LC_DIR, test_tile_ids={t["id"] for t in TEST_TILES})


if __name__ == "__main__":
    main()
