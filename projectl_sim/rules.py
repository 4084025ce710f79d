"""The frozen rules configuration: player count, catalogue and the switches of the rulings."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from projectl_sim.catalogue import Catalogue, base_catalogue
from projectl_sim.errors import RulesError
from projectl_sim.finesse import TileSet, builtin_tiles

# rulings, Base game / Setup: black puzzles in the deck by player count
BLACK_DECK_SIZE = {2: 12, 3: 14, 4: 16, 5: 20, 6: 24}
ROW_SIZE = 4
ACTIONS_PER_TURN = 3
MAX_UNFINISHED = 4
STARTING_SUPPLY = ("mono", "domino")

TIE_BREAKS = ("puzzles_then_pieces", "later_in_turn_order")
VARIANTS = ("standard", "solo")

# rulings, Solo variant: one deck of 15 white on top of 10 black puzzles, a 3x3 grid dealt from
# it (positions 1-9 row by row), lock pieces above the columns, and the opponent's starting supply
# by difficulty.
SOLO_WHITE, SOLO_BLACK = 15, 10
GRID_COLUMNS = 3
GRID_SIZE = GRID_COLUMNS * GRID_COLUMNS
SOLO_LOCKS = (1, 2, 1)
DIFFICULTIES = ("normal", "hard", "unbeatable")
OPPONENT_SUPPLY = {"normal": 6, "hard": 3, "unbeatable": 0}
SOLO_OPPONENT_PIECES = ("mono", "random")
# rulings, Finesse Solo: the solo deck is 20 white on top of 15 black puzzles.
FINESSE_SOLO_WHITE, FINESSE_SOLO_BLACK = 20, 15
EXPANSIONS = ("finesse",)

# Switch name -> (default, allowed values or type) as written in game records.
_SWITCHES: dict[str, tuple[Any, tuple[Any, ...] | type]] = {
    "unfinished_penalty": (True, bool),
    "tie_break": ("puzzles_then_pieces", TIE_BREAKS),
    "known_victory_points": (False, bool),
    "max_rounds": (60, int),
    "stall_rounds": (12, int),
    "solo_opponent_pieces": ("mono", SOLO_OPPONENT_PIECES),
}
# Settings that only mean something in the solo variant (name -> default): other variants must
# leave them at their defaults, and only solo records write them.
_SOLO_ONLY = {"difficulty": "normal", "solo_opponent_pieces": "mono"}
# Settings of the Finesse expansion: only Finesse records write them, so base records are unchanged.
_FINESSE_ONLY = {"finesse_ambassador": False}
# Every switch a run grid may vary (``--rule KEY=V1,V2``): the base ones and Finesse's.
RUN_SWITCHES: dict[str, tuple[Any, tuple[Any, ...] | type]] = {
    **_SWITCHES,
    "finesse_ambassador": (False, bool),
}


@dataclass(frozen=True)
class Rules:
    """One game's rules; every judgement call of the rulings is a switch (default first).

    - ``unfinished_penalty``: unfinished puzzles subtract their points (True) or score 0.
    - ``tie_break``: ``puzzles_then_pieces`` (most completed, then most pieces in supply, then
      shared) or ``later_in_turn_order`` (document 003's reading).
    - ``known_victory_points``: score piles are public (only bots care).
    - ``max_rounds`` / ``stall_rounds``: the simulator's safety cap and stall detection (rounds
      without a completed puzzle or a card drawn); such games end as truncated.

    The solo variant (``players=1, variant="solo"``) adds ``difficulty`` (``normal`` /
    ``hard`` / ``unbeatable``: the opponent starts with 6 / 3 / 0 pieces) and the switch
    ``solo_opponent_pieces``: the locks and the opponent's supply are level-1 pieces (``mono``,
    document 000) or random pieces of any shape (``random``, rulebook 2.5).

    ``expansions`` names the expansions played (any iterable of names, kept as a frozenset; only
    ``finesse`` so far). Finesse adds ``finesse_ambassador`` (deal from the six Finesse Ambassador
    Pack tiles too; off by default, as their texts are not in the rule documents and the shipped
    ones are provisional) and ``finesse_tiles``, the tile set to deal from (the shipped one, or a
    user's file loaded with ``finesse.load_tiles``).
    """

    players: int = 2
    catalogue: Catalogue = field(default_factory=base_catalogue, compare=False, repr=False)
    variant: str = "standard"
    unfinished_penalty: bool = True
    tie_break: str = "puzzles_then_pieces"
    known_victory_points: bool = False
    max_rounds: int = 60
    stall_rounds: int = 12
    difficulty: str = "normal"
    solo_opponent_pieces: str = "mono"
    expansions: frozenset[str] = frozenset()
    finesse_ambassador: bool = False
    finesse_tiles: TileSet = field(default_factory=builtin_tiles, compare=False, repr=False)

    def __post_init__(self) -> None:
        raw = self.expansions
        try:
            names = frozenset((raw,) if isinstance(raw, str) else raw)
        except TypeError:
            raise RulesError(f"expansions must be a list of names, got {raw!r}") from None
        unknown = sorted(str(x) for x in names if x not in EXPANSIONS)
        if unknown:
            raise RulesError(f"unknown expansion {unknown[0]!r} (known: {', '.join(EXPANSIONS)})")
        object.__setattr__(self, "expansions", names)
        if not isinstance(self.finesse_ambassador, bool):
            raise RulesError(
                f"finesse_ambassador must be true or false, got {self.finesse_ambassador!r}"
            )
        if self.finesse_ambassador and not self.finesse:
            raise RulesError("finesse_ambassador applies to the finesse expansion only")
        if self.variant not in VARIANTS:
            raise RulesError(f"unknown variant {self.variant!r} (valid: {', '.join(VARIANTS)})")
        if not isinstance(self.players, int) or isinstance(self.players, bool):
            raise RulesError(f"players must be a whole number, got {self.players!r}")
        if self.variant == "solo":
            if self.players != 1:
                raise RulesError(f"the solo variant is for 1 player, got {self.players}")
        elif self.players == 1:
            raise RulesError("1 player needs the solo variant (variant='solo')")
        elif self.players in (5, 6):
            raise RulesError(
                f"{self.players} players needs the Line Clear variant, not supported yet; "
                "use 2-4 players"
            )
        elif not 2 <= self.players <= 4:
            raise RulesError(f"players must be 2-4, got {self.players}")
        if self.difficulty not in DIFFICULTIES:
            raise RulesError(
                f"unknown difficulty {self.difficulty!r} (valid: {', '.join(DIFFICULTIES)})"
            )
        if self.solo_opponent_pieces not in SOLO_OPPONENT_PIECES:
            raise RulesError(
                f"unknown solo_opponent_pieces {self.solo_opponent_pieces!r} "
                f"(valid: {', '.join(SOLO_OPPONENT_PIECES)})"
            )
        if not self.solo:
            for name, default in _SOLO_ONLY.items():
                if getattr(self, name) != default:
                    raise RulesError(f"{name} applies to the solo variant only")
        if self.tie_break not in TIE_BREAKS:
            raise RulesError(
                f"unknown tie_break {self.tie_break!r} (valid: {', '.join(TIE_BREAKS)})"
            )
        for name in ("max_rounds", "stall_rounds"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise RulesError(f"{name} must be a whole number >= 1, got {value!r}")
        for name in ("unfinished_penalty", "known_victory_points"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, got {getattr(self, name)!r}")
        for pid in STARTING_SUPPLY:
            if pid not in self.catalogue.piece_ids:
                raise RulesError(f"the catalogue has no {pid!r} piece for the starting supply")

    @property
    def solo(self) -> bool:
        """Return whether this is the solo variant (one player against the mastermind)."""
        return self.variant == "solo"

    @property
    def finesse(self) -> bool:
        """Return whether the Finesse expansion is played."""
        return "finesse" in self.expansions

    @property
    def black_deck_size(self) -> int:
        """Return how many black puzzles go into the black deck (the solo deck's bottom part)."""
        available = len(self.catalogue.of_colour("black"))
        if self.solo:
            wanted = FINESSE_SOLO_BLACK if self.finesse else SOLO_BLACK
        else:
            wanted = BLACK_DECK_SIZE[self.players]
        return min(wanted, available)

    @property
    def white_deck_size(self) -> int:
        """Return how many white puzzles go into the white deck (the solo deck's top part)."""
        available = len(self.catalogue.of_colour("white"))
        if not self.solo:
            return available
        return min(FINESSE_SOLO_WHITE if self.finesse else SOLO_WHITE, available)

    @property
    def opponent_supply_size(self) -> int:
        """Return how many pieces the solo opponent starts with (by difficulty)."""
        return OPPONENT_SUPPLY[self.difficulty]

    def to_json(self) -> dict[str, Any]:
        """Return the record form: players, variant and every switch (solo settings in solo)."""
        out: dict[str, Any] = {"players": self.players, "variant": self.variant}
        if self.solo:
            out["difficulty"] = self.difficulty
        for name in _SWITCHES:
            if self.solo or name not in _SOLO_ONLY:
                out[name] = getattr(self, name)
        if self.expansions:
            out["expansions"] = sorted(self.expansions)
        if self.finesse:
            for name in _FINESSE_ONLY:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_json(
        cls,
        data: Any,
        catalogue: Catalogue | None = None,
        warnings: list[str] | None = None,
        finesse_tiles: TileSet | None = None,
    ) -> Rules:
        """Build rules from a record's ``rules`` object; absent switches take their defaults.

        Unknown keys are reported in ``warnings`` (when given) and otherwise ignored; a known key
        with a bad value raises ``RulesError``.
        """
        if not isinstance(data, dict):
            raise RulesError("rules must be an object")
        kwargs: dict[str, Any] = {}
        known = {f.name for f in fields(cls)} - {"catalogue", "finesse_tiles"}
        for key, value in data.items():
            if key not in known:
                if warnings is not None:
                    warnings.append(f"ignoring unknown rules field {key!r}")
                continue
            if key in _SWITCHES:
                _default, allowed = _SWITCHES[key]
                if isinstance(allowed, tuple):
                    if value not in allowed:
                        raise RulesError(
                            f"rules.{key}: unknown value {value!r} "
                            f"(valid: {', '.join(map(str, allowed))})"
                        )
                elif not isinstance(value, allowed) or (allowed is int and isinstance(value, bool)):
                    raise RulesError(f"rules.{key}: {value!r} is not a {allowed.__name__}")
            if key == "expansions" and (
                not isinstance(value, list) or not all(isinstance(v, str) for v in value)
            ):
                raise RulesError(f"rules.expansions must be a list of names, got {value!r}")
            if key in _FINESSE_ONLY and not isinstance(value, bool):
                raise RulesError(f"rules.{key}: {value!r} is not a bool")
            kwargs[key] = value
        if "players" not in kwargs:
            raise RulesError("rules.players is missing")
        if catalogue is not None:
            kwargs["catalogue"] = catalogue
        if finesse_tiles is not None:
            kwargs["finesse_tiles"] = finesse_tiles
        return cls(**kwargs)
