"""The variants that change the table or the turn order: subclasses of the base game's state.

Importing this package registers them by name (``projectl_sim.registry``): ``solo`` (one player
against the mastermind) and ``line_clear`` (5-6 players, two markers). ``standard`` is the base
game's ``GameState`` itself.
"""

from projectl_sim.variants import line_clear, solo  # noqa: F401
