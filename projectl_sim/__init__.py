"""projectl-sim: rules engine, fillability, bots and simulation for the board game Project L.

Importing the package registers every shipped expansion and variant (``projectl_sim.expansions``,
``projectl_sim.variants``), so that ``Rules`` and ``new_game`` know them by name.
"""

# first: chooses the compiled hot-loop modules or their source, before anything imports them
from projectl_sim import (  # noqa: F401
    _native,
    expansions,
    variants,
)
from projectl_sim.catalogue import (
    EXPANSIONS,
    Catalogue,
    CatalogueError,
    Mask25,
    Piece,
    PieceId,
    Puzzle,
    PuzzleId,
)

# isort: off (the engine, then what plugs into it: the expansions and variants register)
from projectl_sim.engine import Expansion, GameState, finish_options, new_game

# isort: on
from projectl_sim.engine.actions import (
    Action,
    Finish,
    Master,
    Place,
    Recycle,
    Reward,
    Take,
    TakeBasic,
    TakeDeck,
    Upgrade,
)
from projectl_sim.engine.record import read_record, replay, write_record
from projectl_sim.errors import IllegalActionError, ProjectLError, RecordError, RulesError
from projectl_sim.loading import PuzzleSet, base_catalogue, load_catalogue, puzzle_set_from_dict
from projectl_sim.rules import Rules
from projectl_sim.sim.play import BotError, play_game
from projectl_sim.tiling.fill import (
    FillResult,
    TilingIndex,
    admits_ghost,
    all_completions,
    can_tile,
    can_tile_using,
    cheapest_completion,
    count_tilings,
    counts_of,
    fill_puzzle,
    fill_region,
    min_pieces,
    plan,
    puzzle_empty,
    tiling_index,
)

__version__ = "0.1.0"

# The simulation layer (runner, tables, summary) needs pyarrow and pandas and imports the
# bots; it is re-exported lazily so that importing the engine stays light.
_LAZY = {
    "run": "projectl_sim.sim.runner",
    "RunSpec": "projectl_sim.sim.spec",
    "RunOptions": "projectl_sim.sim.runner",
    "game_from_run": "projectl_sim.sim.runner",
    "read_table": "projectl_sim.sim.tables",
    "win_rates": "projectl_sim.analysis.outcomes",
    # the designer's loop
    "read_puzzles": "projectl_sim.puzzles.drawings",
    "check_puzzle": "projectl_sim.puzzles.puzzle_check",
    "try_puzzle": "projectl_sim.experiments.trial",
    "tune": "projectl_sim.experiments.tune",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'projectl_sim' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "EXPANSIONS",
    "Action",
    "BotError",
    "Catalogue",
    "CatalogueError",
    "Expansion",
    "FillResult",
    "Finish",
    "GameState",
    "IllegalActionError",
    "Mask25",
    "Master",
    "Piece",
    "PieceId",
    "Place",
    "ProjectLError",
    "Puzzle",
    "PuzzleId",
    "PuzzleSet",
    "RecordError",
    "Recycle",
    "Reward",
    "Rules",
    "RulesError",
    "RunOptions",
    "RunSpec",
    "Take",
    "TakeBasic",
    "TakeDeck",
    "TilingIndex",
    "Upgrade",
    "admits_ghost",
    "all_completions",
    "base_catalogue",
    "can_tile",
    "can_tile_using",
    "cheapest_completion",
    "check_puzzle",
    "count_tilings",
    "counts_of",
    "fill_puzzle",
    "fill_region",
    "finish_options",
    "game_from_run",
    "load_catalogue",
    "min_pieces",
    "new_game",
    "plan",
    "play_game",
    "puzzle_empty",
    "puzzle_set_from_dict",
    "read_puzzles",
    "read_record",
    "read_table",
    "replay",
    "run",
    "tiling_index",
    "try_puzzle",
    "tune",
    "win_rates",
    "write_record",
]
