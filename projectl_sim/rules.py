"""The frozen rules configuration: player count, catalogue and the switches of the rulings."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from projectl_sim.catalogue import Catalogue, base_catalogue
from projectl_sim.errors import RulesError

# rulings, Base game / Setup: black puzzles in the deck by player count
BLACK_DECK_SIZE = {2: 12, 3: 14, 4: 16, 5: 20, 6: 24}
ROW_SIZE = 4
ACTIONS_PER_TURN = 3
MAX_UNFINISHED = 4
STARTING_SUPPLY = ("mono", "domino")

TIE_BREAKS = ("puzzles_then_pieces", "later_in_turn_order")
VARIANTS = ("standard",)

# Switch name -> (default, allowed values or type) as written in game records.
_SWITCHES: dict[str, tuple[Any, tuple[Any, ...] | type]] = {
    "unfinished_penalty": (True, bool),
    "tie_break": ("puzzles_then_pieces", TIE_BREAKS),
    "known_victory_points": (False, bool),
    "max_rounds": (60, int),
    "stall_rounds": (12, int),
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
    """

    players: int = 2
    catalogue: Catalogue = field(default_factory=base_catalogue, compare=False, repr=False)
    variant: str = "standard"
    unfinished_penalty: bool = True
    tie_break: str = "puzzles_then_pieces"
    known_victory_points: bool = False
    max_rounds: int = 60
    stall_rounds: int = 12

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise RulesError(f"unknown variant {self.variant!r} (valid: {', '.join(VARIANTS)})")
        if not isinstance(self.players, int) or isinstance(self.players, bool):
            raise RulesError(f"players must be a whole number, got {self.players!r}")
        if self.players == 1 or self.players in (5, 6):
            raise RulesError(
                f"{self.players} players needs the "
                f"{'solo' if self.players == 1 else 'Line Clear'} variant, not supported yet; "
                "use 2-4 players"
            )
        if not 2 <= self.players <= 4:
            raise RulesError(f"players must be 2-4, got {self.players}")
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
    def black_deck_size(self) -> int:
        """Return how many black puzzles go into the black deck."""
        available = len(self.catalogue.of_colour("black"))
        return min(BLACK_DECK_SIZE[self.players], available)

    def to_json(self) -> dict[str, Any]:
        """Return the record form: players, variant and every switch."""
        out: dict[str, Any] = {"players": self.players, "variant": self.variant}
        for name in _SWITCHES:
            out[name] = getattr(self, name)
        return out

    @classmethod
    def from_json(
        cls, data: Any, catalogue: Catalogue | None = None, warnings: list[str] | None = None
    ) -> Rules:
        """Build rules from a record's ``rules`` object; absent switches take their defaults.

        Unknown keys are reported in ``warnings`` (when given) and otherwise ignored; a known key
        with a bad value raises ``RulesError``.
        """
        if not isinstance(data, dict):
            raise RulesError("rules must be an object")
        kwargs: dict[str, Any] = {}
        known = {f.name for f in fields(cls)} - {"catalogue"}
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
            kwargs[key] = value
        if "players" not in kwargs:
            raise RulesError("rules.players is missing")
        if catalogue is not None:
            kwargs["catalogue"] = catalogue
        return cls(**kwargs)
