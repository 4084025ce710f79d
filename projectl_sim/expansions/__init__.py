"""The expansions, one module each: its data, its block, its actions and its hooks.

Importing this package registers every shipped expansion by name (``projectl_sim.registry``) and
their record action types (``projectl_sim.engine.actions``): Finesse, Ghost Piece, the Ambassador
Pack, Phoenix and the Endless White Deck (a rules switch rather than a name in ``expansions``).
The engine calls their hooks in the order of their ``order`` (``projectl_sim.engine.hooks``).
"""

# isort: off (the import order is the order record types are listed in, as before)
from projectl_sim.expansions import (
    ambassador_pack,  # noqa: F401
    endless,  # noqa: F401
    finesse,  # noqa: F401
    ghost_piece,  # noqa: F401
    phoenix,  # noqa: F401
)

# isort: on
