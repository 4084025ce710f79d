"""The engine: the base game's state, actions, tables, dealing, records and checks.

``state`` (``GameState``, the base game), ``actions`` (the actions and their record form),
``tables`` (per-catalogue tables), ``hooks`` (the ``Expansion`` base class: where expansions
extend the game), ``dealing`` (setups), ``record`` (game records and replay), ``invariants``
(the checker every state passes) and ``render`` (text drawings). The engine names no expansion
and no variant: ``projectl_sim.expansions`` and ``projectl_sim.variants`` plug into it.
"""

from projectl_sim.engine.dealing import deal, new_game, rng_from_seed, setup_of, state_class
from projectl_sim.engine.hooks import Expansion, Hooks, hooks_of
from projectl_sim.engine.state import (
    END_MAX_ROUNDS,
    END_RULES,
    END_STALL,
    FINISHING,
    HIDDEN,
    OVER,
    PLAY,
    REWARD,
    GameState,
    finish_options,
)
from projectl_sim.engine.tables import Tables, shortage_options, tables_of

__all__ = [
    "END_MAX_ROUNDS",
    "END_RULES",
    "END_STALL",
    "FINISHING",
    "HIDDEN",
    "OVER",
    "PLAY",
    "REWARD",
    "Expansion",
    "GameState",
    "Hooks",
    "Tables",
    "deal",
    "finish_options",
    "hooks_of",
    "new_game",
    "rng_from_seed",
    "setup_of",
    "shortage_options",
    "state_class",
    "tables_of",
]
