"""The golden records of the ``solo_unlock`` switch: how each one is built (``python
tests/solo_records.py`` rewrites them under ``tests/records/``; ``tests/variants/test_solo.py``
replays them and checks them by hand-worked facts). The other solo records are written by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from records_util import RECORDS_DIR, RecordBuilder, load, write_golden


def unlock(reading: str) -> dict[str, Any]:
    """Normal difficulty, the deck of ``solo_mastermind``: the player takes three monos a turn
    for three rounds; the mastermind's first turn finds every column locked (1/2/1) and unlocks,
    then takes a puzzle in the same turn (``take``) or not (``pass``)."""
    deck = load("solo_mastermind")["setup"]["deck"]
    b = RecordBuilder.solo(deck, solo_unlock=reading)
    b.take_basic(0, 9)
    return b.to_json()


RECORDS = {
    "solo_unlock_take": lambda: unlock("take"),
    "solo_unlock_pass": lambda: unlock("pass"),
}


def main() -> None:
    write_golden(RECORDS, RECORDS_DIR)


if __name__ == "__main__":
    main()
