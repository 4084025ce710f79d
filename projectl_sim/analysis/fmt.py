"""How every renderer writes a number: rates, differences, intervals, p and q, ordinals.

One convention for the text ``summary``, ``compare``, ``cards``, ``deals``, the verdicts and the
notebooks' answers print:

- a rate in percent, ``41%`` (``digits`` more when asked: ``41.3%``);
- a rate and its 95% interval, the bounds in the rate's unit without repeating it: ``41% [26, 58]``;
- a difference of rates in percentage points, signed, with its interval: ``+3.1 pts [-1.0, +7.2]``;
  a difference of means signed, two decimals, its unit after the estimate: ``+0.43 [-0.02, +0.88]``;
- a p-value or q-value with three decimals, ``<0.001`` below that;
- anything that could not be computed (no games, no variance) as ``n/a``, the one spelling.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "NA",
    "diff_interval",
    "ordinal",
    "ordinal_word",
    "p_text",
    "pct",
    "points",
    "pts",
    "rate_interval",
    "value",
]

NA = "n/a"  # a figure that could not be computed

_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}


def _finite(*xs: Any) -> bool:
    return all(x is not None and np.isfinite(float(x)) for x in xs)


def pct(x: float, digits: int = 0) -> str:
    """Return a rate in percent: ``41%`` (``n/a`` when it is not a number)."""
    return f"{100 * x:.{digits}f}%" if _finite(x) else NA


def pts(d: float, digits: int = 1) -> str:
    """Return a difference of rates in signed percentage points: ``+3.1 pts``."""
    return f"{100 * d:+.{digits}f} pts" if _finite(d) else NA


def points(x: float) -> str:
    """Return a size in percentage points, unsigned, with two significant digits at least:
    ``12``, ``5.6``, ``0.28`` (a million games detect a fraction of a point; ``n/a`` when it is
    not a number). Without the unit, so that a range reads ``0.28-0.31 pts``."""
    if not _finite(x):
        return NA
    v = 100 * abs(float(x))
    return f"{v:.0f}" if v >= 9.95 else f"{v:.2g}"


MORE_DIGITS = 3  # at most this many decimals more than asked, so a narrow interval shows


def rate_interval(x: float, low: float, high: float, digits: int = 0) -> str:
    """Return a rate and its interval in percent: ``41% [26, 58]`` (the rate alone without
    bounds).

    An interval that rounds to one number although it is not one gets the decimals it needs
    (``50.0% [49.8, 50.2]``, not ``50% [50, 50]``); one that is a point stays ``0% [0, 0]``."""
    if not _finite(x):
        return NA
    if not _finite(low, high):
        return pct(x, digits)
    for more in range(MORE_DIGITS + 1):
        d = digits + more
        bounds = f"{100 * low:.{d}f}", f"{100 * high:.{d}f}"
        if bounds[0] != bounds[1] or high <= low:
            break
    return f"{pct(x, d)} [{bounds[0]}, {bounds[1]}]"


def diff_interval(kind: str, d: float, low: float, high: float, unit: str = "") -> str:
    """Return a signed difference and its interval: ``+3.1 pts [-1.0, +7.2]`` for rates
    (``kind`` ``"rate"``), ``+0.43 [-0.02, +0.88]`` for means (``unit`` after the estimate)."""
    if not _finite(d):
        return NA
    if kind == "rate":
        bounds = f" [{100 * low:+.1f}, {100 * high:+.1f}]" if _finite(low, high) else ""
        return pts(d) + bounds
    bounds = f" [{low:+.2f}, {high:+.2f}]" if _finite(low, high) else ""
    return f"{d:+.2f}{unit}{bounds}"


def value(kind: str, x: float, digits: int = 1) -> str:
    """Return a rate in percent with ``digits`` decimals (``50.0%``) or a mean with two
    (``35.09``)."""
    if not _finite(x):
        return NA
    return pct(x, digits) if kind == "rate" else f"{x:.2f}"


def p_text(p: float) -> str:
    """Return a p-value or q-value: ``0.012``, ``<0.001``."""
    if not _finite(p):
        return NA
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def ordinal(n: int) -> str:
    """Return ``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ordinal_word(n: int) -> str:
    """Return ``first``, ``second``, ... (``7th`` past the sixth)."""
    return _WORDS.get(n, ordinal(n))
