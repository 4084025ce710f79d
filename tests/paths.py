"""Where the tests find the checkout and their own support files (records, fault bots)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
