"""The frozen rules configuration: player count, catalogue, the switches of the rulings, and the
rulebook's numbers as parameters (deck sizes, row size, limits, starting supply, a puzzle's points
or reward) that a designer may change."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from projectl_sim.catalogue import (
    AMBASSADOR,
    LEVEL_UP_1,
    LEVEL_UP_2,
    SPECIAL_REWARDS,
    Catalogue,
)
from projectl_sim.catalogue import EXPANSIONS as CATALOGUE_SETS
from projectl_sim.errors import RulesError, UsageError, unknown_name
from projectl_sim.loading import base_catalogue, with_puzzle_changes, with_shipped_sets
from projectl_sim.registry import expansion_classes

# rulings, Base game / Setup: black puzzles in the deck by player count
BLACK_DECK_SIZE = {2: 12, 3: 14, 4: 16, 5: 20, 6: 24}
ROW_SIZE = 4
ACTIONS_PER_TURN = 3
MAX_UNFINISHED = 4
STARTING_SUPPLY = ("mono", "domino")
# rulings, Finesse expansion: 35 Credits in the bank; an Insert costs 2 active Credits
FINESSE_BANK = 35
INSERT_COST = 2

TIE_BREAKS = ("puzzles_then_pieces", "later_in_turn_order")
VARIANTS = ("standard", "solo", "line_clear")
# rulings, Line Clear: the variant of 5 and 6 players (and the only one for them)
LINE_CLEAR_PLAYERS = (5, 6)
# rulings, Ghost Piece, the two judgement calls: the Ghost action uses one of the 3 actions or is
# free; a ghost may be placed like any piece or only exchanged.
GHOST_ACTIONS = ("action", "free")
GHOST_PLACEMENTS = ("piece", "exchange_only")
# Line Clear: how the two marker holders' "simultaneous" turns are resolved: their actions
# interleaved one by one, white marker first (default), or the white holder's whole turn first.
LINE_CLEAR_ORDERS = ("interleave", "white_first")

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
# Solo: after unlocking (all columns locked), the mastermind still takes a puzzle in the same
# turn if a column is open (``take``: the rulebook's order, "first return ..., then take") or
# unlocking is its whole turn (``pass``).
SOLO_UNLOCKS = ("take", "pass")
# rulings, Finesse Solo: the solo deck is 20 white on top of 15 black puzzles.
FINESSE_SOLO_WHITE, FINESSE_SOLO_BLACK = 20, 15
# Every expansion, in canonical order; those with a puzzle set (catalogue.EXPANSIONS) add their
# puzzles (and pieces) to the catalogue.
EXPANSIONS = ("ghost_piece", "ambassador_pack", "finesse", "phoenix")
# Short names users may type for them
EXPANSION_ALIASES = {"ghost": "ghost_piece", "ambassador": "ambassador_pack"}


def expansion_names() -> tuple[str, ...]:
    """Return every expansion ``Rules`` may name: the shipped ones, then those registered by
    users' own modules (``projectl_sim.registry``), in the order they registered."""
    extra = [
        cls.name
        for cls in expansion_classes()
        if getattr(cls, "named", True) and cls.name not in EXPANSIONS
    ]
    return (*EXPANSIONS, *extra)


# Switch name -> (default, allowed values or type) as written in game records.
_SWITCHES: dict[str, tuple[Any, tuple[Any, ...] | type]] = {
    "unfinished_penalty": (True, bool),
    "tie_break": ("puzzles_then_pieces", TIE_BREAKS),
    "known_victory_points": (False, bool),
    "max_rounds": (60, int),
    "stall_rounds": (12, int),
    "solo_opponent_pieces": ("mono", SOLO_OPPONENT_PIECES),
    "solo_unlock": ("take", SOLO_UNLOCKS),
    "endless_white_deck": (False, bool),
    "ghost_action": ("action", GHOST_ACTIONS),
    "ghost_placement": ("piece", GHOST_PLACEMENTS),
    "line_clear_order": ("interleave", LINE_CLEAR_ORDERS),
}
# Settings that only mean something in the solo variant (name -> default): other variants must
# leave them at their defaults, and only solo records write them.
_SOLO_ONLY = {"difficulty": "normal", "solo_opponent_pieces": "mono", "solo_unlock": "take"}
# Settings of the Finesse expansion: only Finesse records write them, so base records are unchanged.
_FINESSE_ONLY = {"finesse_ambassador": False}
# Settings of the Ghost Piece expansion and of the Line Clear variant (written only there).
_GHOST_ONLY = {"ghost_action": "action", "ghost_placement": "piece"}
_LINE_CLEAR_ONLY = {"line_clear_order": "interleave"}
# The rulebook's numbers as parameters (name -> default, lowest, highest allowed). Unlike the
# switches, a record or a table names a parameter only when it differs from its default, so the
# records (and golden files) of the rulebook's game stay as they were. ``black_deck_Np`` is the
# black deck of N players (the solo deck's sizes are the variant's own); ``row_size`` the face-up
# row of the standard game (Line Clear's rows of 3 and the solo grid are their variants' own);
# the caps keep the legal-action lists finite (a row of 6 has 720 Recycle orders).
PARAMETERS: dict[str, tuple[int, int, int]] = {
    **{f"black_deck_{n}p": (size, 1, 200) for n, size in BLACK_DECK_SIZE.items()},
    "row_size": (ROW_SIZE, 1, 6),
    "max_unfinished": (MAX_UNFINISHED, 1, 6),
    "actions_per_turn": (ACTIONS_PER_TURN, 1, 10),
    "finesse_bank": (FINESSE_BANK, 0, 10_000),
    "insert_cost": (INSERT_COST, 1, 100),
}
# Parameters of the Finesse expansion only (other games must leave them at their defaults).
_FINESSE_PARAMETERS = ("finesse_bank", "insert_cost")
# A puzzle's points and reward, by puzzle id: ``points.W07=3``, ``reward.B02=tet_O`` in a run
# grid (``--rule``); ``puzzle_points`` / ``puzzle_rewards`` in ``Rules`` and records.
PUZZLE_KEYS = {"points": "puzzle_points", "reward": "puzzle_rewards"}

# Every switch a run grid may vary (``--rule KEY=V1,V2``): the base ones, Finesse's, and the
# parameters (``starting_supply`` as piece ids joined by ``+``, ``none`` for no piece); the puzzle
# keys ``points.ID`` and ``reward.ID`` too (``is_run_switch``).
RUN_SWITCHES: dict[str, tuple[Any, tuple[Any, ...] | type]] = {
    **_SWITCHES,
    "finesse_ambassador": (False, bool),
    **{name: (default, int) for name, (default, _, _) in PARAMETERS.items()},
    "starting_supply": ("+".join(STARTING_SUPPLY), str),
    # puzzle ids joined by + (``puzzle try`` deals a new card in with it)
    "added_puzzles": ("none", str),
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
    document 000) or random pieces of any shape (``random``, rulebook 2.5); and the switch
    ``solo_unlock``: after unlocking, the mastermind takes a puzzle in the same turn if it can
    (``take``, the rulebook's order) or unlocking uses up its turn (``pass``). A record without
    the key replays as ``take``.

    ``variant="line_clear"`` is the 5-6 player game (and 5-6 players need it), with the switch
    ``line_clear_order`` (``interleave``: the two marker holders' actions alternate one by one,
    white marker first; ``white_first``: the white holder's whole turn, then the black's). Its
    round, for ``max_rounds``, ``stall_rounds`` and the Finesse tiles, is a marker cycle: a new
    round starts when the first player receives the white marker
    (``projectl_sim.variants.line_clear``).
    ``endless_white_deck``: the Endless White Deck variant (2-6 players; not solo, whose one
    deck ends the game: see ``projectl_sim.expansions.endless``).

    ``expansions`` names the expansions played (any iterable of ``EXPANSIONS`` names, kept as a
    frozenset). ``ghost_piece``, ``ambassador_pack`` and ``phoenix`` add their puzzle sets: a
    catalogue without expansion sets (the shipped base, or a user's) gets the shipped sets added;
    a catalogue loaded with sets (``load_catalogue(expansions=...)``, e.g. a user's replacement
    of provisional data) must hold exactly the expansions played. Ghost Piece adds the switches
    ``ghost_action`` (``action``: the Ghost action is one of the 3; ``free``) and
    ``ghost_placement`` (``piece``: a ghost may be placed like any piece; ``exchange_only``).
    Finesse adds ``finesse_ambassador`` (the Finesse Ambassador Pack's 2 Set A, 2 Set B and 6
    Set C tiles are shuffled into their sets before the row is drawn; off by default, as the
    rulings say; in solo its Recycle tile is left out) and ``finesse_tiles``, the tile set to
    deal from (the shipped one, or a user's file loaded with ``finesse.load_tiles``).

    The rulebook's numbers are parameters (``PARAMETERS``; defaults as printed):
    ``black_deck_2p`` ... ``black_deck_6p`` (the black deck by player count; a game uses its own
    count's), ``row_size`` (standard game), ``max_unfinished``, ``actions_per_turn``,
    ``starting_supply`` (piece ids, one per piece each player starts with), and Finesse's
    ``finesse_bank`` and ``insert_cost``. ``puzzle_points`` and ``puzzle_rewards`` change printed
    puzzles (``{"W07": 3}``, ``{"B02": "tet_O"}``; the rules' catalogue then holds the changed
    cards). ``added_puzzles`` names catalogue puzzles dealt in after the others (standard game):
    a seed deals the other puzzles exactly as without them, each added one going to a uniform
    place (``projectl_sim.engine.dealing``), so games with and without a new puzzle pair up.
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
    solo_unlock: str = "take"
    endless_white_deck: bool = False
    ghost_action: str = "action"
    ghost_placement: str = "piece"
    line_clear_order: str = "interleave"
    expansions: frozenset[str] = frozenset()
    finesse_ambassador: bool = False
    # the Finesse tile set to deal from (``finesse.load_tiles``); None: the shipped one
    finesse_tiles: Any = field(default=None, compare=False, repr=False)
    # the rulebook's numbers (PARAMETERS), then a puzzle's points and reward, and added puzzles
    black_deck_2p: int = BLACK_DECK_SIZE[2]
    black_deck_3p: int = BLACK_DECK_SIZE[3]
    black_deck_4p: int = BLACK_DECK_SIZE[4]
    black_deck_5p: int = BLACK_DECK_SIZE[5]
    black_deck_6p: int = BLACK_DECK_SIZE[6]
    row_size: int = ROW_SIZE
    max_unfinished: int = MAX_UNFINISHED
    actions_per_turn: int = ACTIONS_PER_TURN
    starting_supply: tuple[str, ...] = STARTING_SUPPLY
    finesse_bank: int = FINESSE_BANK
    insert_cost: int = INSERT_COST
    puzzle_points: tuple[tuple[str, int], ...] = ()
    puzzle_rewards: tuple[tuple[str, str], ...] = ()
    added_puzzles: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # a catalogue these rules' own puzzle changes made is changed again from its original
        original = self.catalogue.original
        if original is not None:
            object.__setattr__(self, "catalogue", original)
        self._normalise_parameters()
        raw = self.expansions
        try:
            names = frozenset((raw,) if isinstance(raw, str) else raw)
        except TypeError:
            raise RulesError(f"expansions must be a list of names, got {raw!r}") from None
        known = expansion_names()
        unknown = sorted(str(x) for x in names if x not in known)
        if unknown:
            raise RulesError(unknown_name("expansion", unknown[0], known))
        object.__setattr__(self, "expansions", names)
        if not isinstance(self.finesse_ambassador, bool):
            raise RulesError(
                f"finesse_ambassador must be true or false, got {self.finesse_ambassador!r}"
            )
        if self.finesse_ambassador and not self.finesse:
            raise RulesError("finesse_ambassador applies to the finesse expansion only")
        if self.variant not in VARIANTS:
            raise RulesError(unknown_name("variant", self.variant, VARIANTS))
        if not isinstance(self.players, int) or isinstance(self.players, bool):
            raise RulesError(f"players must be a whole number, got {self.players!r}")
        if self.variant == "solo":
            if self.players != 1:
                raise RulesError(f"the solo variant is for 1 player, got {self.players}")
        elif self.variant == "line_clear":
            if self.players not in LINE_CLEAR_PLAYERS:
                raise RulesError(
                    f"the line_clear variant is for 5 or 6 players, got {self.players}"
                )
        elif self.players == 1:
            raise RulesError("1 player needs the solo variant (variant='solo')")
        elif self.players in LINE_CLEAR_PLAYERS:
            raise RulesError(
                f"{self.players} players needs the Line Clear variant (variant='line_clear')"
            )
        elif not 2 <= self.players <= 4:
            raise RulesError(f"players must be 1-6, got {self.players}")
        self._check_expansion_settings()
        if self.difficulty not in DIFFICULTIES:
            raise RulesError(unknown_name("difficulty", self.difficulty, DIFFICULTIES))
        if self.solo_opponent_pieces not in SOLO_OPPONENT_PIECES:
            raise RulesError(
                unknown_name(
                    "solo_opponent_pieces", self.solo_opponent_pieces, SOLO_OPPONENT_PIECES
                )
            )
        if self.solo_unlock not in SOLO_UNLOCKS:
            raise RulesError(unknown_name("solo_unlock", self.solo_unlock, SOLO_UNLOCKS))
        if not self.solo:
            for name, default in _SOLO_ONLY.items():
                if getattr(self, name) != default:
                    raise RulesError(f"{name} applies to the solo variant only")
        if self.tie_break not in TIE_BREAKS:
            raise RulesError(unknown_name("tie_break", self.tie_break, TIE_BREAKS))
        for name in ("max_rounds", "stall_rounds"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise RulesError(f"{name} must be a whole number >= 1, got {value!r}")
        for name in ("unfinished_penalty", "known_victory_points"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, got {getattr(self, name)!r}")
        self._check_parameters()
        # asked for by bots' evaluations in their hot loop: worked out once
        cat = self.catalogue
        available = len(cat.of_colour("black"))
        available -= sum(cat.puzzle(p).is_black for p in self.added_puzzles)
        object.__setattr__(self, "_black_deck_size", min(self.black_deck_wanted, available))

    def _normalise_parameters(self) -> None:
        """Turn the forms records and flags give (lists, mappings, ``a+b`` text) into tuples."""
        supply = self.starting_supply
        if isinstance(supply, str):
            supply = tuple(p for p in supply.replace(",", "+").split("+") if p and p != "none")
        try:
            supply = tuple(supply)
        except TypeError:
            raise RulesError(f"starting_supply must be piece ids, got {supply!r}") from None
        if not all(isinstance(p, str) for p in supply):
            raise RulesError(f"starting_supply must be piece ids, got {list(supply)!r}")
        object.__setattr__(self, "starting_supply", supply)
        for name in ("puzzle_points", "puzzle_rewards"):
            raw = getattr(self, name)
            try:
                pairs = raw.items() if isinstance(raw, Mapping) else raw
                changes = tuple(sorted((str(k), v) for k, v in pairs))
            except (TypeError, ValueError):
                raise RulesError(f"{name} must map puzzle ids to values, got {raw!r}") from None
            object.__setattr__(self, name, changes)
        added = self.added_puzzles
        if isinstance(added, str):  # a grid's text: ids joined by +, or none
            added = tuple(p for p in added.split("+") if p and p != "none")
        try:
            added = tuple(dict.fromkeys(added))
        except TypeError:
            raise RulesError(f"added_puzzles must be puzzle ids, got {added!r}") from None
        object.__setattr__(self, "added_puzzles", added)

    def _check_parameters(self) -> None:
        """Check the rulebook's numbers and the puzzle changes (one ``RulesError`` line each)."""
        for name, (default, low, high) in PARAMETERS.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise RulesError(f"{name} must be a whole number {low}-{high}, got {value!r}")
            if name in _FINESSE_PARAMETERS and value != default and not self.finesse:
                raise RulesError(f"{name} applies to the finesse expansion only")
        if self.row_size != ROW_SIZE and self.variant != "standard":
            raise RulesError(
                "row_size applies to the standard game (Line Clear's rows of 3 and the solo "
                "grid are their variants' own)"
            )
        cat = self.catalogue
        for pid in set(self.starting_supply):
            if pid not in cat.piece_ids:
                raise RulesError(
                    f"the catalogue has no {pid!r} piece for the starting supply "
                    f"(pieces: {', '.join(cat.piece_ids)})"
                )
            need = self.starting_supply.count(pid) * self.players
            copies = cat.pieces[cat.piece_index(pid)].copies
            if need > copies:
                raise RulesError(
                    f"starting_supply: {self.players} players need {need} {pid}, the reserve "
                    f"holds {copies}"
                )
        if self.added_puzzles:
            if self.variant != "standard":
                raise RulesError("added_puzzles applies to the standard game")
            for pid in self.added_puzzles:
                if not cat.has_puzzle(pid):
                    raise RulesError(f"added_puzzles: the catalogue has no puzzle {pid!r}")
        if self.players in BLACK_DECK_SIZE and not self.solo:
            wanted = self.black_deck_wanted
            available = len(self.catalogue.of_colour("black")) - sum(
                cat.puzzle(p).is_black for p in self.added_puzzles
            )
            name = f"black_deck_{self.players}p"
            if self.players == 6 and available < wanted and wanted == BLACK_DECK_SIZE[6]:
                raise RulesError(
                    f"6 players need {wanted} black puzzles, the catalogue has {available}: "
                    "add the ghost_piece or phoenix expansion"
                )
            if available < wanted != PARAMETERS[name][0]:
                raise RulesError(f"{name}={wanted} but the catalogue has {available} black puzzles")

    def _check_expansion_settings(self) -> None:
        """Check the expansion and variant switches; give the catalogue the puzzle sets played."""
        for name, allowed in (
            ("ghost_action", GHOST_ACTIONS),
            ("ghost_placement", GHOST_PLACEMENTS),
            ("line_clear_order", LINE_CLEAR_ORDERS),
        ):
            if getattr(self, name) not in allowed:
                raise RulesError(unknown_name(name, getattr(self, name), allowed))
        if not isinstance(self.endless_white_deck, bool):
            raise RulesError(
                f"endless_white_deck must be true or false, got {self.endless_white_deck!r}"
            )
        if self.endless_white_deck and self.variant == "solo":
            # a decision (projectl_sim.expansions.endless): the solo deck is one deck, whites on
            # top of blacks, whose running out ends the game; refilling its white part would keep
            # the blacks from coming up
            raise RulesError("endless_white_deck does not apply to the solo variant (one deck)")
        if not self.ghost:
            for name, default in _GHOST_ONLY.items():
                if getattr(self, name) != default:
                    raise RulesError(f"{name} applies to the ghost_piece expansion only")
        if not self.line_clear:
            for name, default in _LINE_CLEAR_ONLY.items():
                if getattr(self, name) != default:
                    raise RulesError(f"{name} applies to the line_clear variant only")
        sets = tuple(n for n in CATALOGUE_SETS if n in self.expansions)
        cat = self.catalogue
        if not cat.expansions and sets:
            object.__setattr__(self, "catalogue", with_shipped_sets(cat, sets))
        elif cat.expansions != sets:
            held = ", ".join(cat.expansions) or "none"
            raise RulesError(
                f"the catalogue holds the expansion puzzle sets {held} but the rules play "
                f"{', '.join(sets) or 'none'}"
            )
        self._change_puzzles()
        features = self.catalogue.expansion_features()
        needs = {
            "ghost pieces": "ghost_piece",
            f"{LEVEL_UP_1} rewards": "ghost_piece",
            f"{LEVEL_UP_2} rewards": "ghost_piece",
            f"{AMBASSADOR} rewards": "ambassador_pack",
        }
        for feature in features:
            expansion = needs.get(feature)
            if expansion is not None and expansion not in self.expansions:
                raise RulesError(
                    f"catalogue {self.catalogue.name} has {feature}: play it with the "
                    f"{expansion} expansion"
                )

    def _change_puzzles(self) -> None:
        """Check ``puzzle_points`` / ``puzzle_rewards`` and give the rules the changed cards."""
        cat = self.catalogue
        for name, changes in (("points", self.puzzle_points), ("reward", self.puzzle_rewards)):
            for pid, value in changes:
                if not cat.has_puzzle(pid):
                    raise RulesError(f"{name}.{pid}: the catalogue has no puzzle {pid!r}")
                if name == "points" and (
                    not isinstance(value, int) or isinstance(value, bool) or value < 0
                ):
                    raise RulesError(f"points.{pid} must be a whole number >= 0, got {value!r}")
                if name == "reward" and value not in (*cat.piece_ids, *SPECIAL_REWARDS):
                    raise RulesError(
                        f"reward.{pid}: {value!r} is no piece of the catalogue "
                        f"({', '.join(cat.piece_ids)}) nor one of {', '.join(SPECIAL_REWARDS)}"
                    )
        if self.puzzle_points or self.puzzle_rewards:
            changed = with_puzzle_changes(cat, dict(self.puzzle_points), dict(self.puzzle_rewards))
            object.__setattr__(self, "catalogue", changed)

    @property
    def black_deck_wanted(self) -> int:
        """Return the black deck size these rules ask for at their player count (solo: its
        deck's black part), before a small catalogue caps it (``black_deck_size``)."""
        if self.solo:
            return FINESSE_SOLO_BLACK if self.finesse else SOLO_BLACK
        value: int = getattr(self, f"black_deck_{self.players}p")
        return value

    @property
    def solo(self) -> bool:
        """Return whether this is the solo variant (one player against the mastermind)."""
        return self.variant == "solo"

    @property
    def finesse(self) -> bool:
        """Return whether the Finesse expansion is played."""
        return "finesse" in self.expansions

    @property
    def ghost(self) -> bool:
        """Return whether the Ghost Piece expansion is played."""
        return "ghost_piece" in self.expansions

    @property
    def ambassador(self) -> bool:
        """Return whether the Ambassador Pack expansion is played."""
        return "ambassador_pack" in self.expansions

    @property
    def line_clear(self) -> bool:
        """Return whether this is the Line Clear variant (5-6 players, two markers)."""
        return self.variant == "line_clear"

    @property
    def black_deck_size(self) -> int:
        """Return how many black puzzles go into the black deck (the solo deck's bottom part)."""
        size: int = self.__dict__["_black_deck_size"]
        return size

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
            if name in _GHOST_ONLY or name in _LINE_CLEAR_ONLY:
                continue  # written below, with their expansion or variant
            if self.solo or name not in _SOLO_ONLY:
                out[name] = getattr(self, name)
        if self.expansions:
            out["expansions"] = sorted(self.expansions)
        for flag, names in (
            (self.finesse, _FINESSE_ONLY),
            (self.ghost, _GHOST_ONLY),
            (self.line_clear, _LINE_CLEAR_ONLY),
        ):
            if flag:
                out.update({name: getattr(self, name) for name in names})
        out.update(self.changed_parameters())
        return out

    def changed_parameters(self) -> dict[str, Any]:
        """Return the parameters that differ from the rulebook (record form: lists, objects).

        A black deck size is named only for these rules' player count (the others play no part
        in their games); nothing for the rulebook's game, whose records are unchanged.
        """
        out: dict[str, Any] = {}
        for name, (default, _, _) in PARAMETERS.items():
            value = getattr(self, name)
            own = not name.startswith("black_deck_") or name == f"black_deck_{self.players}p"
            if value != default and own:
                out[name] = value
        if self.starting_supply != STARTING_SUPPLY:
            out["starting_supply"] = list(self.starting_supply)
        if self.puzzle_points:
            out["puzzle_points"] = dict(self.puzzle_points)
        if self.puzzle_rewards:
            out["puzzle_rewards"] = dict(self.puzzle_rewards)
        if self.added_puzzles:
            out["added_puzzles"] = list(self.added_puzzles)
        return out

    @classmethod
    def from_json(
        cls,
        data: Any,
        catalogue: Catalogue | None = None,
        warnings: list[str] | None = None,
        finesse_tiles: Any = None,
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
            if key in PARAMETERS and (not isinstance(value, int) or isinstance(value, bool)):
                raise RulesError(f"rules.{key}: {value!r} is not a whole number")
            if key in ("starting_supply", "added_puzzles") and (
                not isinstance(value, list) or not all(isinstance(v, str) for v in value)
            ):
                raise RulesError(f"rules.{key} must be a list of ids, got {value!r}")
            if key in ("puzzle_points", "puzzle_rewards") and not isinstance(value, dict):
                raise RulesError(f"rules.{key} must be an object of puzzle id -> value")
            kwargs[key] = value
        if "players" not in kwargs:
            raise RulesError("rules.players is missing")
        if catalogue is not None:
            kwargs["catalogue"] = catalogue
        if finesse_tiles is not None:
            kwargs["finesse_tiles"] = finesse_tiles
        return cls(**kwargs)


# The player counts of each variant
VARIANT_PLAYERS = {"standard": (2, 3, 4), "solo": (1,), "line_clear": LINE_CLEAR_PLAYERS}


def expansion_subsets() -> list[frozenset[str]]:
    """Return every subset of the expansions (none first, then by size, in canonical order)."""
    return [
        frozenset(names)
        for k in range(len(EXPANSIONS) + 1)
        for names in itertools.combinations(EXPANSIONS, k)
    ]


def every_combination(**switches: Any) -> list[Rules]:
    """Return the rules of every legal combination: expansion subset x variant x player count.

    ``switches`` (e.g. ``endless_white_deck=True``) apply to every combination. A combination
    the rules refuse (6 players without 24 black puzzles) is left out.
    """
    out = []
    for names in expansion_subsets():
        for variant, counts in VARIANT_PLAYERS.items():
            for players in counts:
                try:
                    out.append(
                        Rules(players=players, variant=variant, expansions=names, **switches)
                    )
                except RulesError:
                    continue
    return out


def parse_expansions(
    text: str | None, valid: tuple[str, ...] = EXPANSIONS, option: str = "--expansions"
) -> tuple[tuple[str, ...], dict[str, str]]:
    """Return the expansion names (canonical order) and replacement files of a user's list.

    ``"ghost+finesse"``, ``"ghost_piece,phoenix=my_phoenix.json"``, ``"none"`` or ``"all"``:
    names joined with ``+`` or ``,`` (short names of ``EXPANSION_ALIASES`` allowed); ``NAME=FILE``
    replaces a puzzle set's shipped (provisional) data with the user's own file.
    """
    names: set[str] = set()
    files: dict[str, str] = {}
    for item in (text or "").replace("+", ",").split(","):
        name, eq, path = item.strip().partition("=")
        name = EXPANSION_ALIASES.get(name, name)
        if not name or (name == "none" and not eq):
            continue
        if name == "all" and not eq:
            names.update(valid)
            continue
        if name not in valid:
            short = {s: full for s, full in EXPANSION_ALIASES.items() if full in valid}
            message = unknown_name("expansion", name, valid, short=short, more=("all", "none"))
            raise UsageError(f"{option}: {message}")
        names.add(name)
        if eq:
            if name not in CATALOGUE_SETS:
                raise UsageError(f"{option}: {name} has no puzzle file to replace")
            if not path:
                raise UsageError(f"{option}: {name}= needs a file")
            files[name] = path
    return tuple(n for n in valid if n in names), files


# -- rules switches and parameters as a run grid and the command line name them ------------------
def puzzle_key(key: str) -> tuple[str, str] | None:
    """Return ``(kind, puzzle id)`` of a puzzle key (``points.W07``, ``reward.B02``), else None."""
    kind, dot, pid = key.partition(".")
    return (kind, pid) if dot and kind in PUZZLE_KEYS and pid else None


def is_run_switch(key: str) -> bool:
    """Return whether a run grid may vary ``key`` (``--rule KEY=V1,V2``)."""
    return key in RUN_SWITCHES or puzzle_key(key) is not None


def switch_default(key: str) -> Any:
    """Return the value a grid leaves out of a configuration's name (None: always named).

    A puzzle key has no one default (each card's own is printed on it), so it is always named.
    """
    return None if puzzle_key(key) else RUN_SWITCHES[key][0]


def switch_value(key: str, raw: Any) -> Any:
    """Return a grid or flag value of ``key`` in its rules form; a bad one is a ``UsageError``.

    Booleans read ``true/false/1/0/yes/no/on/off``; numbers must be whole; ``starting_supply``
    is piece ids joined by ``+`` (``mono+domino``, ``none``), kept in that canonical text;
    ``points.ID`` a whole number, ``reward.ID`` a piece id (checked with the catalogue, when
    the rules are built).
    """
    puzzle = puzzle_key(key)
    if puzzle is not None:
        if puzzle[0] == "points":
            return _whole_value(f"rule {key}", raw)
        return str(raw).strip()
    default, allowed = RUN_SWITCHES[key]
    if isinstance(default, bool):
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in ("true", "1", "yes", "on"):
            return True
        if str(raw).lower() in ("false", "0", "no", "off"):
            return False
        raise UsageError(f"rule {key}: expected true or false, got {raw!r}")
    if isinstance(default, int):
        value = _whole_value(f"rule {key}", raw)
        if key in PARAMETERS:
            _, low, high = PARAMETERS[key]
            if not low <= value <= high:
                raise UsageError(f"rule {key}: expected a whole number {low}-{high}, got {value}")
        return value
    if key == "added_puzzles":
        items = raw if isinstance(raw, (list, tuple)) else str(raw).replace(",", "+").split("+")
        ids = [str(p).strip() for p in items if str(p).strip() not in ("", "none")]
        return "+".join(dict.fromkeys(ids)) or "none"
    if key == "starting_supply":
        items = raw if isinstance(raw, (list, tuple)) else str(raw).replace(",", "+").split("+")
        pieces = [str(p).strip() for p in items if str(p).strip() not in ("", "none")]
        return "+".join(pieces) or "none"
    if isinstance(allowed, tuple) and raw not in allowed:
        raise UsageError(f"rule {key}: {unknown_name('value', raw, allowed)}")
    return raw


def _whole_value(name: str, raw: Any) -> int:
    if isinstance(raw, bool):
        raise UsageError(f"{name}: expected a whole number, got {raw!r}")
    if isinstance(raw, int):
        return raw
    try:
        return int(str(raw).strip())
    except ValueError:
        raise UsageError(f"{name}: expected a whole number, got {raw!r}") from None


def rules_keywords(switches: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Return the ``Rules`` keywords of a configuration's switches (``points.W07`` included)."""
    out: dict[str, Any] = {}
    for key, value in switches:
        puzzle = puzzle_key(key)
        if puzzle is None:
            out[key] = value
        else:
            field_name = PUZZLE_KEYS[puzzle[0]]
            out[field_name] = {**out.get(field_name, {}), puzzle[1]: value}
    return out
