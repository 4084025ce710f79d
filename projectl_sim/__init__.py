"""projectl-sim: rules engine, fillability, bots and simulation for the board game Project L."""

from projectl_sim.actions import (
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
from projectl_sim.catalogue import (
    Catalogue,
    CatalogueError,
    Mask25,
    Piece,
    PieceId,
    Puzzle,
    PuzzleId,
    base_catalogue,
    load_catalogue,
)
from projectl_sim.engine import GameState, finish_options, new_game
from projectl_sim.errors import IllegalActionError, ProjectLError, RecordError, RulesError
from projectl_sim.play import BotError, play_game
from projectl_sim.record import read_record, replay, write_record
from projectl_sim.rules import Rules

__version__ = "0.1.0"

__all__ = [
    "Action",
    "BotError",
    "Catalogue",
    "CatalogueError",
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
    "RecordError",
    "Recycle",
    "Reward",
    "Rules",
    "RulesError",
    "Take",
    "TakeBasic",
    "TakeDeck",
    "Upgrade",
    "base_catalogue",
    "finish_options",
    "load_catalogue",
    "new_game",
    "play_game",
    "read_record",
    "replay",
    "write_record",
]
