"""The frozen rules configuration: player count, catalogue, the switches of the rulings, and the
rulebook's numbers as parameters (deck sizes, row size, limits, starting supply, a puzzle's points
or reward) that a designer may change."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
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
from projectl_sim.frozen import ReadOnlyDict
from projectl_sim.loading import (
    MAX_POINTS,
    base_catalogue,
    with_puzzle_changes,
    with_shipped_sets,
)
from projectl_sim.options import Option
from projectl_sim.registry import (
    data_names,
    declared_options,
    expansion_class,
    expansion_classes,
    is_class_spec,
    knows,
    load_expansion,
    option_owner,
    options_of,
    reserve_options,
    variant_class,
    variant_names,
    variant_players,
)

# rulings, Base game / Setup: black puzzles in the deck by player count
BLACK_DECK_SIZE = {2: 12, 3: 14, 4: 16, 5: 20, 6: 24}
ROW_SIZE = 4
ACTIONS_PER_TURN = 3
MAX_UNFINISHED = 4
STARTING_SUPPLY = ("mono", "domino")

TIE_BREAKS = ("puzzles_then_pieces", "later_in_turn_order")
# rulings, Line Clear: the variant of 5 and 6 players (and the only one for them)
LINE_CLEAR_PLAYERS = (5, 6)

# rulings, Solo variant: one deck of 15 white on top of 10 black puzzles, a 3x3 grid dealt from
# it (positions 1-9 row by row), lock pieces above the columns, and the opponent's starting supply
# by difficulty (the solo deck's sizes, which Rules reports; the variant's own options are
# declared by projectl_sim.variants.solo).
SOLO_WHITE, SOLO_BLACK = 15, 10
GRID_COLUMNS = 3
GRID_SIZE = GRID_COLUMNS * GRID_COLUMNS
SOLO_LOCKS = (1, 2, 1)
DIFFICULTIES = ("normal", "hard", "unbeatable")
OPPONENT_SUPPLY = {"normal": 6, "hard": 3, "unbeatable": 0}
# rulings, Finesse Solo: the solo deck is 20 white on top of 15 black puzzles.
FINESSE_SOLO_WHITE, FINESSE_SOLO_BLACK = 20, 15
# Every shipped expansion, in canonical order; those with a puzzle set (catalogue.EXPANSIONS) add
# their puzzles (and pieces) to the catalogue. Users' expansions follow (``expansion_names``).
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


# The base game's options, the fields of ``Rules`` (an expansion's or a variant's are declared by
# its class and held in ``Rules.options``). The switches are written in every record; the
# rulebook's numbers (``recorded="changed"``) only when they differ from the rulebook, so the
# records (and golden files) of the rulebook's game stay as they were. ``black_deck_Np`` is the
# black deck of N players (the solo deck's sizes are the variant's own); ``row_size`` the face-up
# row of the standard game (Line Clear's rows of 3 and the solo grid are their variants' own);
# the caps keep the legal-action lists finite (a row of 6 has 720 Recycle orders).
BASE_OPTIONS: tuple[Option, ...] = (
    Option(
        "unfinished_penalty",
        True,
        "unfinished puzzles subtract their points, or score 0 (document 003)",
    ),
    Option(
        "tie_break",
        "puzzles_then_pieces",
        "most completed puzzles, then most pieces in supply, then shared; or the player later in "
        "turn order (document 003)",
        choices=TIE_BREAKS,
    ),
    Option(
        "known_victory_points",
        False,
        "victory piles face down (a seat's view hides the others' piles and scores) or public",
    ),
    Option(
        "max_rounds",
        60,
        "simulator safety cap: the game ends as truncated",
        low=1,
        high=100_000,
    ),
    Option(
        "stall_rounds",
        12,
        "stall detection: that many rounds without a completed puzzle or a card drawn ends the "
        "game as truncated",
        low=1,
        high=100_000,
    ),
    *(
        Option(
            f"black_deck_{n}p",
            size,
            f"black puzzles in the deck at {n} players (a small catalogue caps it)",
            low=1,
            high=200,
            recorded="changed",
        )
        for n, size in BLACK_DECK_SIZE.items()
    ),
    Option(
        "row_size",
        ROW_SIZE,
        "face-up puzzles per row, standard game only (Line Clear's rows of 3 and the solo grid "
        "are their variants' own)",
        low=1,
        high=6,
        recorded="changed",
    ),
    Option(
        "max_unfinished",
        MAX_UNFINISHED,
        "unfinished puzzles a player may hold",
        low=1,
        high=6,
        recorded="changed",
    ),
    Option(
        "actions_per_turn",
        ACTIONS_PER_TURN,
        "actions in a turn",
        low=1,
        high=10,
        recorded="changed",
    ),
)
_BASE = {o.name: o for o in BASE_OPTIONS}
# The rulebook's numbers of the base game (name -> default, lowest, highest allowed)
PARAMETERS: dict[str, tuple[int, int, int]] = {
    o.name: (o.default, o.low, o.high)  # type: ignore[misc]
    for o in BASE_OPTIONS
    if o.recorded == "changed"
}
# Settings of the base game that are no switch: piece ids, puzzle changes, added puzzles
_OTHER_FIELDS = ("starting_supply", "puzzle_points", "puzzle_rewards", "added_puzzles")
reserve_options(
    {
        *_BASE,
        *_OTHER_FIELDS,
        "players",
        "variant",
        "expansions",
        "catalogue",
        "expansion_data",
        "options",
    }
)
# A puzzle's points and reward, by puzzle id: ``points.W07=3``, ``reward.B02=tet_O`` in a run
# grid (``--rule``); ``puzzle_points`` / ``puzzle_rewards`` in ``Rules`` and records.
PUZZLE_KEYS = {"points": "puzzle_points", "reward": "puzzle_rewards"}
# Run-grid keys that are no option: piece ids joined by ``+`` (``none`` for no piece)
_TEXT_SWITCHES = {"starting_supply": "+".join(STARTING_SUPPLY), "added_puzzles": "none"}


def every_option() -> dict[str, Option]:
    """Return every option by name: the base game's, then the registered variants' and
    expansions' declarations (``projectl_sim.registry``)."""
    return {**_BASE, **declared_options()}


def __getattr__(name: str) -> Any:
    # names from before the options were declared by their classes, computed from them now
    if name == "RUN_SWITCHES":  # key -> (default, its values or its type)
        return {
            key: (default, option.choices or option.kind)
            if (option := every_option().get(key)) is not None
            else (default, str)
            for key, default in run_switches().items()
        }
    if name == "VARIANTS":
        return variant_names()
    if name == "VARIANT_PLAYERS":
        return variant_players()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_switches() -> dict[str, Any]:
    """Return every key a run grid may vary (``--rule KEY=V1,V2``) and its default: the options,
    ``starting_supply`` and ``added_puzzles`` (the puzzle keys ``points.ID`` and ``reward.ID``
    too: ``is_run_switch``)."""
    return {
        **{name: o.default for name, o in every_option().items() if name != "difficulty"},
        **_TEXT_SWITCHES,
    }


@dataclass(frozen=True, init=False)
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
    rulings say; in solo its Recycle tile is left out) and its data ``finesse_tiles``, the tile
    set to deal from (the shipped one, or a user's file loaded with ``finesse.load_tiles``).

    ``expansion_data`` holds, by expansion name, the data an expansion is played with beyond its
    options (a table loaded from a file: Finesse's tile set). Each is given by the keyword the
    expansion class declares as its ``data_name`` (``Rules(finesse_tiles=tiles)``), and read by
    it too (``rules.finesse_tiles``; None: the expansion's shipped data).

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
    expansions: frozenset[str] = frozenset()
    # expansion name -> the data it is played with (``data_name``); absent: its shipped data
    expansion_data: Mapping[str, Any] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )
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
    puzzle_points: tuple[tuple[str, int], ...] = ()
    puzzle_rewards: tuple[tuple[str, str], ...] = ()
    added_puzzles: tuple[str, ...] = ()
    # the options the variant and the expansions played declare (``projectl_sim.registry``),
    # every one of them, at its default unless given: one mapping, name -> value
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __init__(self, players: int = 2, **given: Any) -> None:
        """Take the fields by keyword; any other keyword is an option of the variant or an
        expansion played (``Rules(expansions={"ghost_piece"}, ghost_action="free")``), as is
        each key of ``options``."""
        own = {f.name for f in fields(Rules)}
        data = dict(given.pop("expansion_data", None) or {})
        for name, owner in data_names().items():
            value = given.pop(name, None)
            if value is not None:
                data[owner] = value
        given["expansion_data"] = ReadOnlyDict(data)
        options = dict(given.pop("options", None) or {})
        options.update({k: given.pop(k) for k in list(given) if k not in own})
        object.__setattr__(self, "players", players)
        for f in fields(Rules):
            if f.name in ("players", "options"):
                continue
            if f.name in given:
                value = given[f.name]
            elif f.default_factory is not MISSING:
                value = f.default_factory()
            else:
                value = f.default
            object.__setattr__(self, f.name, value)
        object.__setattr__(self, "options", options)
        self.__post_init__()

    def __getattr__(self, name: str) -> Any:
        # Every option declared when these rules were built is an attribute (``_options``), so
        # this runs only for a class registered after them: its option reads as its default, its
        # data (``data_name``) as what was given, resolved once and then held like the others.
        if not name.startswith("_"):
            option = declared_options().get(name)
            owner = data_names().get(name)
            if option is not None or owner is not None:
                value = (
                    option.default
                    if option is not None
                    else self.__dict__["expansion_data"].get(owner)
                )
                object.__setattr__(self, name, value)
                return value
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

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
        unknown = sorted(str(x) for x in names if not knows("expansion", x))
        if unknown:
            known = expansion_names()
            raise RulesError(unknown_name("expansion", unknown[0], known))
        object.__setattr__(self, "expansions", names)
        if not isinstance(self.players, int) or isinstance(self.players, bool):
            raise RulesError(f"players must be a whole number, got {self.players!r}")
        self._check_variant()
        self._options()
        for name in (
            "unfinished_penalty",
            "tie_break",
            "known_victory_points",
            "max_rounds",
            "stall_rounds",
        ):
            _BASE[name].check(getattr(self, name))
        self._check_expansion_settings()
        self._check_parameters()
        for owner in self._owners():
            owner.check_rules(self)
        # asked for by bots' evaluations in their hot loop: worked out once
        cat = self.catalogue
        available = len(cat.of_colour("black"))
        available -= sum(cat.puzzle(p).is_black for p in self.added_puzzles)
        object.__setattr__(self, "_black_deck_size", min(self.black_deck_wanted, available))

    def _check_variant(self) -> None:
        """Check the variant is registered and made for the player count."""
        knows("variant", self.variant)
        counts = variant_players()
        if self.variant not in counts:
            raise RulesError(unknown_name("variant", self.variant, variant_names()))
        if self.players in counts[self.variant]:
            return
        for_count = [v for v, made in counts.items() if self.players in made]
        if not for_count:
            raise RulesError(f"players must be 1-6, got {self.players}")
        if self.variant != "standard":
            made = counts[self.variant]
            span = f"{made[0]}" if len(made) == 1 else f"{min(made)} or {max(made)}"
            plural = "player" if made == (1,) else "players"
            raise RulesError(
                f"the {self.variant} variant is for {span} {plural}, got {self.players}"
            )
        need = for_count[0]
        if self.players == 1:
            raise RulesError(f"1 player needs the {need} variant (variant={need!r})")
        pretty = " ".join(w.capitalize() for w in need.split("_"))
        raise RulesError(f"{self.players} players needs the {pretty} variant (variant={need!r})")

    def _owners(self) -> list[Any]:
        """Return the classes whose options these rules hold: the variant's state class, then
        the expansions played by name, then those played by an option of their own."""
        out = [variant_class(self.variant)]
        for cls in expansion_classes():
            if cls.name in self.expansions or not getattr(cls, "named", True):
                out.append(cls)
        return out

    def _options(self) -> None:
        """Check the given options against the declarations of what these rules play, and hold
        every one of them (defaults filled in) in ``options`` and as attributes."""
        given = dict(self.options)
        held: dict[str, Any] = {}
        for owner in self._owners():
            for option in getattr(owner, "options", ()):
                value = given.pop(option.name, option.default)
                held[option.name] = option.check(value)
        for name, value in given.items():
            found = option_owner(name)
            if found is None:
                known = sorted({*held, *_BASE, *_OTHER_FIELDS})
                raise RulesError(unknown_name("rules option", name, known))
            kind, owner = found
            option = {o.name: o for o in options_of(kind, owner)}[name]
            if value != option.default:
                raise RulesError(f"{name} applies to the {owner} {kind} only")
        # read-only: every game and bot's view of these rules shares them
        object.__setattr__(self, "options", ReadOnlyDict(held))
        for name, value in held.items():
            object.__setattr__(self, name, value)
        # An option of what is not played reads as its default (``rules.insert_cost`` of a game
        # without Finesse), an expansion's data as what was given (None: its shipped data): plain
        # attributes too, set once here, since bots read them in their hot loops. Neither is a
        # field: comparing, hashing and the records see ``options`` only.
        for name, option in declared_options().items():
            if name not in held:
                object.__setattr__(self, name, option.default)
        for name, owner in data_names().items():
            object.__setattr__(self, name, self.expansion_data.get(owner))

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
        for name, (_default, low, high) in PARAMETERS.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise RulesError(f"{name} must be a whole number {low}-{high}, got {value!r}")
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
        """Give the catalogue the puzzle sets played (checking one loaded with sets)."""
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
                    not isinstance(value, int)
                    or isinstance(value, bool)
                    or not 0 <= value <= MAX_POINTS
                ):
                    raise RulesError(
                        f"points.{pid} must be a whole number 0-{MAX_POINTS}, got {value!r}"
                    )
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
        """Return the record form: players, variant, the base game's switches, the expansions,
        the options of what is played (``recorded="always"``), then what differs from the
        rulebook (``changed_parameters``)."""
        out: dict[str, Any] = {"players": self.players, "variant": self.variant}
        for option in BASE_OPTIONS:
            if option.recorded == "always":
                out[option.name] = getattr(self, option.name)
        owners = self._owners()
        unnamed = [o for o in owners[1:] if not getattr(o, "named", True)]
        for owner in [owners[0], *unnamed]:
            out.update(self._recorded(owner))
        if self.expansions:
            out["expansions"] = sorted(self.expansions)
        for owner in owners[1:]:
            if getattr(owner, "named", True):
                out.update(self._recorded(owner))
        out.update(self.changed_parameters())
        return out

    def _recorded(self, owner: Any) -> dict[str, Any]:
        return {
            o.name: self.options[o.name]
            for o in getattr(owner, "options", ())
            if o.recorded == "always"
        }

    def changed_parameters(self) -> dict[str, Any]:
        """Return the rulebook's numbers that differ (record form: lists, objects), the options
        of what is played among them.

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
        for owner in self._owners():
            for o in getattr(owner, "options", ()):
                if o.recorded == "changed" and self.options[o.name] != o.default:
                    out[o.name] = self.options[o.name]
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
        expansion_data: Mapping[str, Any] | None = None,
        **named_data: Any,
    ) -> Rules:
        """Build rules from a record's ``rules`` object; absent switches take their defaults.

        Unknown keys are reported in ``warnings`` (when given) and otherwise ignored; a known key
        with a bad value raises ``RulesError``. ``expansion_data`` and ``named_data`` (by each
        expansion's ``data_name``: ``finesse_tiles=``) are the expansions' data to play with.
        """
        if not isinstance(data, dict):
            raise RulesError("rules must be an object")
        kwargs: dict[str, Any] = {}
        options = every_option()
        known = {f.name for f in fields(cls)} - {"catalogue", "expansion_data", "options"}
        for key, value in data.items():
            if key not in known and key not in options:
                if warnings is not None:
                    warnings.append(f"ignoring unknown rules field {key!r}")
                continue
            option = options.get(key)
            if option is not None:
                problem = option.error(value)
                if problem and option.kind is str:
                    raise RulesError(
                        f"rules.{key}: unknown value {value!r} (valid: {', '.join(option.choices)})"
                    )
                if problem and option.kind is int:
                    raise RulesError(f"rules.{key}: {value!r} is not a whole number")
                if problem:
                    raise RulesError(f"rules.{key}: {value!r} is not a bool")
            if key == "expansions" and (
                not isinstance(value, list) or not all(isinstance(v, str) for v in value)
            ):
                raise RulesError(f"rules.expansions must be a list of names, got {value!r}")
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
        if expansion_data:
            kwargs["expansion_data"] = expansion_data
        unknown = sorted(set(named_data) - set(data_names()))
        if unknown:
            raise TypeError(f"Rules.from_json got an unexpected keyword {unknown[0]!r}")
        kwargs.update(named_data)
        return cls(**kwargs)


# The player counts of each variant
def variant_counts() -> dict[str, tuple[int, ...]]:
    """Return each registered variant's player counts (``standard``: 2-4, ``solo``: 1 ...)."""
    return variant_players()


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
        for variant, counts in variant_players().items():
            for players in counts:
                try:
                    out.append(
                        Rules(players=players, variant=variant, expansions=names, **switches)
                    )
                except RulesError:
                    continue
    return out


def parse_expansions(
    text: str | None, valid: tuple[str, ...] | None = None, option: str = "--expansions"
) -> tuple[tuple[str, ...], dict[str, str]]:
    """Return the expansion names (canonical order) and replacement files of a user's list.

    ``"ghost+finesse"``, ``"ghost_piece,phoenix=my_phoenix.json"``, ``"none"`` or ``"all"``:
    names joined with ``+`` or ``,`` (short names of ``EXPANSION_ALIASES`` allowed); ``NAME=FILE``
    replaces a puzzle set's shipped (provisional) data with the user's own file. Without
    ``valid``, a registered expansion of a user's may be named too, and ``FILE.py:CLASS`` or
    ``MODULE:CLASS`` loads one; ``all`` is the shipped ones.
    """
    names: set[str] = set()
    files: dict[str, str] = {}
    items = (text or "").replace("+", ",").split(",")
    # ``all``: the shipped expansions (a user's own are played by naming them)
    every = EXPANSIONS if valid is None else valid
    registered = valid is None  # any registered name, an installed package's included
    if valid is None:
        # a user's expansion class, FILE.py:CLASS or MODULE:CLASS, is loaded and then named
        items = [load_expansion(i.strip()) if is_class_spec(i.strip()) else i for i in items]
        valid = expansion_names()
    for item in items:
        name, eq, path = item.strip().partition("=")
        name = EXPANSION_ALIASES.get(name, name)
        if not name or (name == "none" and not eq):
            continue
        if name == "all" and not eq:
            names.update(every)
            continue
        if name not in valid and not (registered and knows("expansion", name)):
            short = {s: full for s, full in EXPANSION_ALIASES.items() if full in valid}
            message = unknown_name("expansion", name, valid, short=short, more=("all", "none"))
            raise UsageError(f"{option}: {message}")
        if name not in valid:
            # registered but played by its switch (the Endless White Deck): naming it here would
            # be dropped from the rules and play the game without it
            switch = expansion_class(name).options[0].name
            raise UsageError(
                f"{option}: {name} is not played by name but by the rules switch {switch} "
                f"(--rule {switch}=true, or Rules({switch}=True))"
            )
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
    return key in run_switches() or puzzle_key(key) is not None


def switch_default(key: str) -> Any:
    """Return the value a grid leaves out of a configuration's name (None: always named).

    A puzzle key has no one default (each card's own is printed on it), so it is always named.
    """
    return None if puzzle_key(key) else run_switches()[key]


def switch_value(key: str, raw: Any) -> Any:
    """Return a grid or flag value of ``key`` in its rules form; a bad one is a ``UsageError``.

    An option's value is read by its declaration (``Option.parse``: booleans read
    ``true/false/1/0/yes/no/on/off``, numbers must be whole and in range, a choice one of its
    values); ``starting_supply`` is piece ids joined by ``+`` (``mono+domino``, ``none``), kept
    in that canonical text; ``points.ID`` a whole number, ``reward.ID`` a piece id (checked with
    the catalogue, when the rules are built).
    """
    puzzle = puzzle_key(key)
    if puzzle is not None:
        if puzzle[0] == "points":
            return _whole_value(f"rule {key}", raw)
        return str(raw).strip()
    if key in _TEXT_SWITCHES:
        items = raw if isinstance(raw, (list, tuple)) else str(raw).replace(",", "+").split("+")
        ids = [str(p).strip() for p in items if str(p).strip() not in ("", "none")]
        if key == "added_puzzles":
            ids = list(dict.fromkeys(ids))
        return "+".join(ids) or "none"
    return every_option()[key].parse(raw)


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
