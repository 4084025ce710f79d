"""Error types with messages meant for users: the CLI prints them as one line and exits."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence


class ProjectLError(Exception):
    """Base of the errors a user can cause; ``exit_code`` is what the CLI exits with."""

    exit_code = 2


class UsageError(ProjectLError):
    """A bad command-line value, file or option (exit 2)."""

    exit_code = 2


class IllegalActionError(ProjectLError):
    """An action is not legal in the current state; the message says why (exit 1 in replay)."""

    exit_code = 1


class RecordError(ProjectLError):
    """A game record is malformed: bad JSON, a missing field or an unknown value (exit 2)."""

    exit_code = 2


class RulesError(ProjectLError):
    """A rules configuration is invalid (exit 2)."""

    exit_code = 2


class RunFailed(ProjectLError):
    """A run stopped on a failure its games cannot absorb (a full disk, workers that cannot play
    it); the message says what was saved and how to go on (exit 1)."""

    exit_code = 1


class NotebookFailed(ProjectLError):
    """A cell of a notebook executed by ``projectl-sim notebook`` raised; the message names the
    cell, its error and the executed copy kept (exit 1)."""

    exit_code = 1


class BotError(ProjectLError):
    """A bot raised or returned an illegal action; the message names the seat and the bot (exit 1).

    Declared here, not in the compiled game loop (``sim.play``) that raises it: a mypyc-compiled
    subclass of an exception does not keep a class attribute it overrides (``exit_code`` read 2).
    """

    exit_code = 1

    def __init__(self, message: str, seat: int, detail: str = "") -> None:
        super().__init__(message)
        self.seat = seat
        self.detail = detail


class InvariantBroken(ProjectLError):
    """A game broke its invariants with no user's class in play: a bot that reached into the
    game's state, or the engine's bug (exit 1; declared here for the reason ``BotError`` is)."""

    exit_code = 1


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM); the message says what was saved (exit 130)."""


def unknown_name(
    what: str,
    name: object,
    valid: Iterable[str],
    *,
    short: Mapping[str, str] | None = None,
    listing: str | None = None,
    more: Sequence[str] = (),
) -> str:
    """Return the one line for an unknown name, the closest valid one suggested.

    ``unknown bot 'gready' (did you mean 'greedy'? valid: greedy, mcts, random)``. ``short``
    maps short names to the names they stand for: each is listed beside its name
    (``ghost_piece (ghost)``) and may be suggested. ``listing`` replaces the list of names (a
    long one, such as puzzle ids: ``W01-W36, B01-B16``); ``more`` ends it (``MODULE:CLASS``).
    """
    names = list(dict.fromkeys(valid))
    aliases = dict(short or {})
    guess = closest(str(name), [*names, *aliases])
    if listing is None:
        shorts = {n: [s for s, full in aliases.items() if full == n] for n in names}
        listing = ", ".join(f"{n} ({', '.join(shorts[n])})" if shorts[n] else n for n in names)
    listing = ", ".join(x for x in (listing, *more) if x)
    hint = f"did you mean {guess!r}? " if guess is not None else ""
    return f"unknown {what} {name!r} ({hint}valid: {listing})"


def closest(name: str, candidates: Sequence[str]) -> str | None:
    """Return the candidate closest to ``name``, or None if none is close.

    Letter case aside, in this order: the same name; the same id number (``B3`` is ``B03``);
    the one name it begins (``later`` is ``later_in_turn_order``); the most similar by
    ``difflib`` (a ratio of 0.6 or more; on a tie, the first candidate).
    """
    want = name.strip().lower()
    folded = {c.lower(): c for c in reversed(candidates)}
    if want in folded:
        return folded[want]
    number = _NUMBERED.fullmatch(want)
    if number:
        for c in candidates:
            other = _NUMBERED.fullmatch(c.lower())
            if other and other[1] == number[1] and int(other[2]) == int(number[2]):
                return c
    starting = [c for c in candidates if want and c.lower().startswith(want)]
    if len(starting) == 1:
        return starting[0]
    best, score = None, 0.6
    for c in candidates:
        ratio = difflib.SequenceMatcher(None, want, c.lower()).ratio()
        if ratio > score or (ratio == score and best is None):
            best, score = c, ratio
    return best


_NUMBERED = re.compile(r"([a-z_]*?)(\d+)")


def id_ranges(ids: Iterable[str]) -> str:
    """Return ids such as ``W01 W02 ... W36 B01`` as runs: ``W01-W36, B01``."""
    runs: list[list[str]] = []
    last: tuple[str, int, int] | None = None  # prefix, number, digits of the id before
    for pid in ids:
        stem = pid.rstrip("0123456789")
        digits = pid[len(stem) :]
        here = (stem, int(digits), len(digits)) if digits else None
        if here and last and here[0] == last[0] and here[2] == last[2] and here[1] == last[1] + 1:
            runs[-1][1:] = [pid]
        else:
            runs.append([pid])
        last = here
    return ", ".join("-".join(r) for r in runs)
