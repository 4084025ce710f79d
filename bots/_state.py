"""What the bots read of a game beyond its public queries, in one place.

The planner reads the catalogue's cards and pieces through ``Tables`` (built here from the public
catalogue, with the action objects the planner returns made once) and each expansion's or
variant's table block through the small functions below, which call the expansion modules' and
variants' public accessors (``finesse.credits``, ``ghost_piece.ghosts``, ``SoloState.solo``...).
When the engine's structure changes, these functions are what changes; the planner does not.
"""

from __future__ import annotations

import random
from typing import Final

from projectl_sim.catalogue import AMBASSADOR, LEVEL_UP_1, LEVEL_UP_2, Catalogue, Mask25
from projectl_sim.engine import FINISHING as _FINISHING
from projectl_sim.engine import OVER as _OVER
from projectl_sim.engine import PLAY as _PLAY
from projectl_sim.engine import REWARD as _REWARD
from projectl_sim.engine import GameState
from projectl_sim.engine.actions import Place, TakeBasic, Upgrade
from projectl_sim.expansions import ambassador_pack, finesse, ghost_piece
from projectl_sim.expansions import endless as endless_x
from projectl_sim.expansions.ghost_piece import Ghosts
from projectl_sim.variants import line_clear
from projectl_sim.variants.line_clear import LineClearState
from projectl_sim.variants.solo import Solo, SoloState

__all__ = [
    "FINISHING",
    "LEVEL_UP",
    "OVER",
    "PLAY",
    "REWARD",
    "ROW_LENGTH",
    "TAKE_BASIC",
    "Tables",
    "active_credits",
    "ambassadors_held",
    "determinize",
    "endless_noted",
    "ghost_block",
    "ghost_pieces_of",
    "line_clear_remaining",
    "plays_finesse",
    "plays_line_clear",
    "solo_table",
    "solo_unlock_takes",
    "tables",
]

# Constants of the engine and its expansions, bound once (compiled: static, not a module lookup)
ROW_LENGTH: Final[int] = finesse.ROW_LENGTH
PLAY: Final[str] = _PLAY
REWARD: Final[str] = _REWARD
FINISHING: Final[str] = _FINISHING
LEVEL_UP: Final[str] = ghost_piece.LEVEL_UP
OVER: Final[str] = _OVER
TAKE_BASIC: Final = TakeBasic()

# What a reward that is not a piece is worth in piece levels, for the bots' evaluations: a Level Up
# its steps, an Ambassador (a free Master) as much as a level-2 piece.
_SPECIAL_REWARD_LEVELS: Final = {LEVEL_UP_1: 1, LEVEL_UP_2: 2, AMBASSADOR: 2}


class Tables:
    """Per-catalogue card and piece facts the planner reads in its hot loop (immutable)."""

    def __init__(self, cat: Catalogue) -> None:
        self.cat = cat
        self.n_pieces = len(cat.pieces)
        self.levels: tuple[int, ...] = tuple(p.level for p in cat.pieces)
        by_level: dict[int, tuple[int, ...]] = {}
        for p in cat.pieces:
            by_level[p.level] = (*by_level.get(p.level, ()), p.index)
        self.by_level = by_level
        self.max_level = max(by_level)
        self.recess: tuple[Mask25, ...] = tuple(p.recess for p in cat.puzzles)
        self.points: tuple[int, ...] = tuple(p.points for p in cat.puzzles)
        self.is_black: tuple[bool, ...] = tuple(p.is_black for p in cat.puzzles)
        levels = {p.id: p.level for p in cat.pieces}
        self.reward_level: tuple[int, ...] = tuple(
            _SPECIAL_REWARD_LEVELS[p.reward]
            if p.reward in _SPECIAL_REWARD_LEVELS
            else levels[p.reward]
            for p in cat.puzzles
        )
        self.mono = cat.piece_index("mono")
        self.ghosts: tuple[int, ...] = tuple(cat.ghost_pieces)
        # empty mask -> the pieces that fill it in one placement
        self.piece_of_mask: dict[Mask25, tuple[int, ...]] = cat.piece_of_mask
        # the action objects the planner returns, made once (a frozen dataclass costs ~1 us to
        # build from compiled code; a look-up is native)
        n = self.n_pieces
        self.upgrades: list[list[Upgrade]] = [[Upgrade(g, w) for w in range(n)] for g in range(n)]
        self._places: dict[int, Place] = {}

    def place(self, card: int, piece: int, mask: Mask25) -> Place:
        """Return the Place action of ``piece`` at ``mask`` in ``card`` (shared, immutable)."""
        key = mask | piece << 25 | card << 32
        a = self._places.get(key)
        if a is None:
            a = self._places[key] = Place(card, piece, mask)
        return a


_TABLES: Final[dict[int, Tables]] = {}


def tables(state: GameState) -> Tables:
    """Return the card and piece tables of a state's catalogue (one per catalogue)."""
    cat = state.rules.catalogue
    t = _TABLES.get(id(cat))
    if t is None or t.cat is not cat:
        t = _TABLES[id(cat)] = Tables(cat)
    return t


# -- table blocks of the variants and expansions ------------------------------------------------
def solo_table(state: GameState) -> Solo | None:
    """Return the solo grid, locks and mastermind (None outside the solo variant).

    The grid, the locks and the mastermind's supply and pile are public in solo.
    """
    return state.solo if isinstance(state, SoloState) else None


def solo_unlock_takes(state: GameState) -> bool:
    """Return whether the mastermind still takes in the turn it unlocks (the ``solo_unlock``
    switch of the rules: ``take``, the default, or ``pass``; rules without it: take)."""
    return getattr(state.rules, "solo_unlock", "take") != "pass"


def plays_finesse(state: GameState) -> bool:
    """Return whether the game plays the Finesse expansion."""
    return finesse.credits(state) is not None


def active_credits(state: GameState, player: int) -> int:
    """Return ``player``'s active Finesse Credits (0 without Finesse)."""
    fin = finesse.credits(state)
    return 0 if fin is None else fin.active[player]


def ambassadors_held(state: GameState, player: int) -> int:
    """Return how many Ambassador actions ``player`` holds (0 without the Ambassador Pack)."""
    amb = ambassador_pack.ambassadors(state)
    return 0 if amb is None else amb.held[player]


def ghost_block(state: GameState) -> Ghosts | None:
    """Return the Ghost Piece block (its switches and tables), None without the expansion."""
    return ghost_piece.ghosts(state)


def ghost_pieces_of(state: GameState) -> tuple[int, ...]:
    """Return the ghost piece indices a Ghost action can return (empty without Ghost Piece)."""
    gs = ghost_piece.ghosts(state)
    return () if gs is None else tuple(gs.tables.ghosts)


def plays_line_clear(state: GameState) -> bool:
    """Return whether the game is a Line Clear game."""
    return isinstance(state, LineClearState)


def line_clear_remaining(state: GameState, player: int) -> int | None:
    """Return the actions ``player`` has left in a Line Clear game (None: not known yet).

    The markers' schedule decides; with Finesse, round 10 ends the game too.
    """
    if not isinstance(state, LineClearState):
        return None
    return line_clear.remaining_actions(state, player, finesse.last_round(state))


def endless_noted(state: GameState) -> tuple[tuple[int, ...], ...] | None:
    """Return each player's noted white puzzles (Endless White Deck), None without it."""
    endless = endless_x.endless(state)
    return None if endless is None else endless.noted


# -- determinization ----------------------------------------------------------------------------
def determinize(view: GameState, rng: random.Random) -> GameState:
    """Return a full state consistent with ``view`` (the engine's ``GameState.determinize``:
    hidden piles filled, each expansion's hidden cards drawn, unseen decks dealt)."""
    return view.determinize(rng)
