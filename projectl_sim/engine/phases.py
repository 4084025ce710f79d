"""The base game's phases, why a game ended, and hidden cards: the engine's shared constants.

Kept apart from ``state`` so that the modules ``state`` calls (``checks``, ``moves``,
``rewards``) name them without importing it; ``state`` re-exports them.
"""

from __future__ import annotations

from typing import Final

# Final: the compiled modules read them as constants, not from this module's namespace (the
# phase is compared at every decision).
# Phases of the base game (an expansion may add its own: Ghost Piece's Level Up steps)
PLAY: Final = "play"
REWARD: Final = "reward"
FINISHING: Final = "finishing_touches"
OVER: Final = "over"
BASE_PHASES = (PLAY, REWARD, FINISHING, OVER)
# Why a game ended
END_RULES: Final = "rules"
END_MAX_ROUNDS: Final = "max_rounds"
END_STALL: Final = "stall"

HIDDEN: Final = -1  # a deck card the viewing player cannot see


# Hidden decks of each length, shared by every view (a deck is an immutable tuple).
_HIDDEN_DECKS: Final[tuple[tuple[int, ...], ...]] = tuple((HIDDEN,) * n for n in range(64))


def hide(deck: tuple[int, ...], known_bottom: int) -> tuple[int, ...]:
    """Return ``deck`` with all but its ``known_bottom`` cards ``HIDDEN``."""
    unseen = len(deck) - known_bottom
    hidden = _HIDDEN_DECKS[unseen] if unseen < len(_HIDDEN_DECKS) else (HIDDEN,) * unseen
    return hidden + deck[unseen:] if known_bottom else hidden
