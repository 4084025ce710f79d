"""The run specification: what a run plays, its configurations, seeds and game tasks.

A run is a grid: bot line-ups x player counts x variants x expansions x rule switches, each cell
(a *configuration*) played for ``games`` games. Seeding discipline: the root seed spawns one
``SeedSequence`` child per *deal setting* and one grandchild per *deal* (``spawn_key`` =
``(deal key, deal)``); a deal is played once under every distinct rotation of the line-up over the
seats, with the same game seed, so every bot plays every seat equally often on the same deals
(paired games). A game's seed is an int drawn from its deal's child; ``play_game(rules, bots,
seed)`` with the row's seed replays it.

Common random numbers (seed scheme ``shared-deals``): every configuration of a run at the same
player count and variant plays the same deal seeds, whatever its line-up, expansions, rules
switches or rule parameters, and in whatever grid (the deals' spawn key is the player count and
the variant, ``deal_setting_of``: two runs with one root seed share them too). Configurations
that differ only in switches or parameters so play the same deals, and their differences are
measured on pairs of games; an expansion that deals extra cards (a puzzle set) changes the decks a
seed deals, which the analysis says (``analysis.factors``). A run's manifest names its scheme
(``seed_scheme``); a run made before it (``per-configuration``: a child per configuration, a
round robin's subsets of one setting sharing theirs) resumes with its own, and a scheme this
version does not know is refused in one line.

Everything is decided here, in the parent, so results are the same for any number of jobs and
any backend (``projectl_sim.sim.runner`` plays the tasks).

Specs come from flags, a TOML/YAML config file or a preset (``merge_sources``); ``RunSpec``
checks every value before anything runs, so a user mistake is one ``UsageError`` line.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import tomllib
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, overload

import numpy as np

from bots import declared_name, make_bot, split_spec
from projectl_sim.catalogue import EXPANSIONS as CATALOGUE_SETS
from projectl_sim.catalogue import Catalogue
from projectl_sim.errors import UsageError, closest, unknown_name
from projectl_sim.expansions.finesse import TileSet, load_tiles
from projectl_sim.loading import base_catalogue, load_catalogue
from projectl_sim.registry import is_class_spec, knows, load_sources, load_variant, sources
from projectl_sim.rules import (
    DIFFICULTIES,
    EXPANSIONS,
    FINESSE_SOLO_WHITE,
    SOLO_WHITE,
    TIE_BREAKS,
    Rules,
    expansion_subsets,
    is_run_switch,
    parse_expansions,
    rules_keywords,
    run_switches,
    switch_default,
    switch_value,
    variant_counts,
)
from projectl_sim.sim import rows
from projectl_sim.sim.position_study import (
    StudyPosition,
    action_label,
    action_of,
    action_text,
    read_study_position,
    study_actions,
)

# -- what the runner accepts -----------------------------------------------------------------
# A grid value standing for every subset of the expansions (16 sets, "none" included).
ALL_SUBSETS = "all-subsets"

RECORDS_HELP = "all|sample:N|none"
# The most games of a configuration a run takes: a trillion is centuries of CPU, and more
# would overflow the plan's 64-bit game ids (``--games 99999999999999999999``)
MAX_GAMES = 10**12
SPEC_KEYS = (
    "bots",
    "round_robin",
    "players",
    "variant",
    "expansions",
    "rules",
    "difficulty",
    "games",
    "seed",
    "records",
    "format",
    "tables",
    "catalogue",
    "tiles",
    "expansion_files",
    "plugins",
    # a study (``sim.position_study``): the position file, a record's step, the file's digest
    # (a manifest's), and the actions compared (their record form; none: the candidates)
    "position",
    "step",
    "position_digest",
    "actions",
)

# Presets are config mappings like a config file's; flags and a config file override them.
PRESETS: dict[str, dict[str, Any]] = {
    # The README's first job: does moving first win more games? Equal greedy bots, so any gap
    # is the seat's; 2,400 games a player count find an edge of 2-3 points (20-30 s on 2 cores).
    "demo": {"bots": ["greedy"], "players": [2, 3, 4], "games": 2400, "seed": 2026},
    # A tiny run to check an installation.
    "smoke": {"bots": ["random"], "players": [2], "games": 20, "seed": 1},
    # Turn-order advantage: identical bots, so any win-rate gap is the seat's.
    "seats": {"bots": ["random"], "players": [2, 3, 4], "games": 2000},
    # The solo variant: how often greedy beats the mastermind at each difficulty.
    "solo": {
        "bots": ["greedy"],
        "players": [1],
        "variant": "solo",
        "difficulty": ["normal", "hard", "unbeatable"],
        "games": 300,
    },
    # The Finesse expansion at 2-4 players (provisional Set A/B tiles: rows say so).
    "finesse": {
        "bots": ["greedy,random", "greedy,greedy:preset=rush_black"],
        "players": [2, 3, 4],
        "expansions": ["finesse"],
        "games": 200,
    },
    # Finesse Solo: how often greedy beats the two-puzzle mastermind at each difficulty.
    "finesse-solo": {
        "bots": ["greedy"],
        "players": [1],
        "variant": "solo",
        "expansions": ["finesse"],
        "difficulty": ["normal", "hard", "unbeatable"],
        "games": 300,
    },
    # What the judgement-call switches change.
    "switches": {
        "bots": ["random"],
        "players": [2, 3, 4],
        "rules": {
            "unfinished_penalty": [True, False],
            "tie_break": list(TIE_BREAKS),
        },
        "games": 500,
    },
    # Expansion balance: two greedy styles in every subset of the four expansions, 2-4 players
    # (the Ghost Piece, Ambassador Pack and Phoenix puzzles are provisional: rows say so).
    "expansions": {
        "bots": ["greedy,greedy:preset=rush_black"],
        "players": [2, 3, 4],
        "expansions": [ALL_SUBSETS],
        "games": 100,
    },
    # Line Clear at 5 and 6 players (6 needs the Ghost Piece or Phoenix black puzzles).
    "line-clear": {
        "bots": ["greedy,random,greedy:preset=rush_black"],
        "players": [5, 6],
        "variant": "line_clear",
        "expansions": ["ghost_piece", "phoenix", "ghost_piece+phoenix"],
        "rules": {"line_clear_order": ["interleave", "white_first"]},
        "games": 100,
    },
    # Ghost Piece's two judgement calls, and the Endless White Deck, against the default reading.
    "ghost-switches": {
        "bots": ["greedy,random", "greedy,greedy:preset=engine"],
        "players": [2, 3, 4],
        "expansions": ["ghost_piece"],
        "rules": {
            "ghost_action": ["action", "free"],
            "ghost_placement": ["piece", "exchange_only"],
            "endless_white_deck": [False, True],
        },
        "games": 100,
    },
}


# -- the run specification -------------------------------------------------------------------
def split_lineup(text: str) -> list[str]:
    """Split ``greedy:a=1,b=2,random`` into bot specs: a ``key=value`` item continues a spec
    (``mymodule:MyBot:a=1,b=2`` and ``bots/mine.py:MyBot,a=1`` too)."""
    specs: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        key = item.partition("=")[0]
        if "=" in item and ":" not in key and specs:
            sep = "," if split_spec(specs[-1])[1] else ":"
            specs[-1] += sep + item
        else:
            specs.append(item)
    return specs


def _as_list(value: Any, name: str) -> list[Any]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (int, float, bool)):
        return [value]
    raise UsageError(f"{name}: expected a value or a list, got {value!r}")


def whole_number(value: Any, name: str) -> int:
    """Return a setting's whole number (``"3"`` too); one line naming ``name`` otherwise."""
    if isinstance(value, bool):
        raise UsageError(f"{name}: expected a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise UsageError(f"{name}: expected a whole number, got {value!r}") from None


def _switch_value(key: str, raw: Any) -> Any:
    return switch_value(key, raw)  # the rules' parameters and puzzle keys too


# -- the axes experiments add to the grid ----------------------------------------------------
@dataclass(frozen=True)
class GridAxis:
    """A setting that plays a grid's configurations again along an experiment's axis.

    The experiment declares it (``declare_axis``; ``experiments.tiers``: the grid once per
    skill tier, ``experiments.replicates``: each deal several times per seating); the spec keeps
    its checked value under ``key`` (``RunSpec.axes``), a manifest keeps it as the setting was
    given, and ``configurations`` hands the grid's plain configurations to ``expand``. So the
    runner plays configurations and knows no experiment.
    """

    key: str  # the setting's name (a config file's key, ``--KEY`` with dashes)
    # the value checked and normalised (hashable; UsageError: one line); None: not set
    read: Callable[[Any], Any]
    # the configurations of the grid along the axis, numbered from 0 (ids and deals as the
    # runner plays them: ``GameConfig.deal_key``), the seed scheme the run deals by
    expand: Callable[[list[GameConfig], Any, str], list[GameConfig]]
    # the value checked against the line-ups (``lineups``) or the round robin's bots
    check: Callable[[Any, Mapping[str, Any]], None] | None = None
    # the settings made whole when the axis is set and no line-up is given (None: refused)
    default_bots: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    # a seat of the line-ups the axis fills, a bot's name only with the setting given, and the
    # one line for it without
    placeholder: str = ""
    unset: str = ""
    # the one line for the axis in a study (empty: a study takes it)
    not_in_a_study: str = ""


_AXES: dict[str, GridAxis] = {}


def declare_axis(axis: GridAxis) -> None:
    """Make ``axis.key`` a setting of a run (declared again: replaced)."""
    _AXES[axis.key] = axis


def run_bot_name(text: str, filled: frozenset[str] = frozenset()) -> str:
    """Return a bot spec normalised (an axis' placeholder in ``filled`` kept); a person is
    refused."""
    name = text.strip()
    if name in filled:
        return name
    for axis in _AXES.values():
        if axis.placeholder and name == axis.placeholder:
            raise UsageError(axis.unset)
    bot = make_bot(text)  # validates and normalises
    if getattr(bot, "interactive", False):
        raise UsageError(
            f"bots: {bot!r} is a person at the terminal, and a run plays bots only: "
            f"play one game with 'projectl-sim play --bots {bot!r},greedy'"
        )
    return repr(bot)


def _lineups(value: Any, filled: frozenset[str] = frozenset()) -> tuple[tuple[str, ...], ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise UsageError("bots: give at least one line-up, such as 'greedy,random'")
    out = []
    for item in items:
        specs = split_lineup(item) if isinstance(item, str) else list(item)
        if not specs or not all(isinstance(s, str) for s in specs):
            raise UsageError(f"bots: a line-up is a comma list of bot specs, got {item!r}")
        out.append(tuple(run_bot_name(s, filled) for s in specs))
    return tuple(dict.fromkeys(out))


def spec_list(value: Any, setting: str) -> list[str]:
    """Return the bot specs of a setting's value, a comma list (``greedy:a=1,random``) or a
    list of such texts, in order; refuse anything else in one line that names ``setting``."""
    items = split_lineup(value) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(s, str) for s in items):
        raise UsageError(f"{setting}: a comma list of bot specs, got {value!r}")
    return [text for item in items for text in split_lineup(item)]


def _round_robin(value: Any, filled: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Return a round robin's bots, normalised (``repr``), each once; at least two."""
    seen: dict[str, str] = {}
    for text in spec_list(value, "round_robin"):
        name = run_bot_name(text, filled)
        if name in seen:
            same = "" if seen[name] == text else f" and {seen[name]!r}"
            raise UsageError(f"round_robin: {text!r}{same} name the same bot ({name}) twice")
        seen[name] = text
    if len(seen) < 2:
        raise UsageError("round_robin: give two or more different bots, such as 'greedy,random'")
    return tuple(seen)


def _expansion_sets(text: Any) -> list[tuple[str, ...]]:
    """Return the expansion sets one grid value stands for (one set, or every subset)."""
    if not isinstance(text, str):
        raise UsageError(
            f"expansions: expected names such as 'none' or 'ghost+finesse', got {text!r}"
        )
    if text.strip() == ALL_SUBSETS:
        return [tuple(n for n in EXPANSIONS if n in names) for names in expansion_subsets()]
    if "=" in text:
        raise UsageError(
            f"expansions: {text!r}: give your own puzzle files with --expansion-file NAME=FILE"
        )
    names, _ = parse_expansions(text.replace(",", "+"), option="expansions")
    return [names]


def _expansion_files(data: Any, catalogue: str | None) -> tuple[tuple[str, str], ...]:
    """Check ``{set name: puzzle file}`` (each file loads) and return it with absolute paths."""
    if not isinstance(data, Mapping):
        raise UsageError(f"expansion_files: expected a table of NAME = FILE, got {data!r}")
    out = []
    for name, path in sorted(data.items()):
        if name not in CATALOGUE_SETS:
            raise UsageError(
                f"expansion_files: {name!r} is not a puzzle set ({', '.join(CATALOGUE_SETS)})"
            )
        full = str(Path(str(path)).resolve())
        _catalogue(catalogue, (name,), ((name, full),))  # a bad file stops the run (exit 2)
        out.append((name, full))
    return tuple(out)


@dataclass(frozen=True)
class RunSpec:
    """What a run plays: the grid, games per configuration, root seed and outputs.

    ``players`` empty means each line-up plays with as many players as it has bots. ``rules``
    maps a rules switch to the values the grid takes. A round robin gives ``round_robin`` (its
    bots) instead of ``lineups``: its line-ups are every subset of them of each player count
    (``players`` empty: 2), see ``configurations``.
    """

    lineups: tuple[tuple[str, ...], ...] = ()
    players: tuple[int, ...] = ()
    variants: tuple[str, ...] = ("standard",)
    expansions: tuple[tuple[str, ...], ...] = ((),)
    rules: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    difficulty: tuple[str, ...] = ()  # solo only; empty: the rules' default
    games: int = 100
    seed: int | None = None
    records: str = "none"
    format: str = "parquet"
    # which tables: all (the flow's events and rounds too) or core (seats and games)
    tables: str = "all"
    catalogue: str | None = None  # a catalogue file (absolute path); None: the shipped one
    tiles: str | None = None  # a Finesse tiles file (absolute path); None: the shipped one
    # puzzle files replacing shipped expansion sets: (set name, absolute path), sorted
    expansion_files: tuple[tuple[str, str], ...] = ()
    round_robin: tuple[str, ...] = ()  # a round robin's bots (normalised specs), or none
    # the users' expansion and variant classes the grid plays, loaded from a file or a module:
    # (name, kind, FILE:CLASS with an absolute path, or MODULE:CLASS), sorted
    plugins: tuple[tuple[str, str, str], ...] = ()
    # the experiments' axes it is played along (``GridAxis``): (key, checked value), sorted
    axes: tuple[tuple[str, Any], ...] = ()
    # a study: its games start from this position (absolute path), a record's ``position_step``,
    # the file's sha256, and compare these actions of the seat to move (their record form)
    position: str | None = None
    position_step: int | None = None
    position_digest: str | None = None
    study_actions: tuple[str, ...] = ()

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RunSpec:
        """Build and check a spec from a config mapping (file, preset, flags or manifest)."""
        known = (*SPEC_KEYS, *_AXES)
        unknown = sorted(set(data) - set(known))
        if unknown:
            # no axis declared yet: the setting may be an experiment's (tiers, replicates)
            hint = "" if _AXES else f" (or {_UNDECLARED})"
            raise UsageError(unknown_name("setting", unknown[0], known) + hint)
        has_bots = data.get("bots") not in (None, [], "")
        has_round_robin = data.get("round_robin") not in (None, [], "")
        if has_bots and has_round_robin:
            raise UsageError(
                "give line-ups (--bots) or a round robin (--round-robin), not both: a round "
                "robin makes its own line-ups"
            )
        axes = {
            key: value
            for key, axis in sorted(_AXES.items())
            if data.get(key) not in (None, [], "") and (value := axis.read(data[key])) is not None
        }
        filled = frozenset(_AXES[k].placeholder for k in axes if _AXES[k].placeholder)
        if not (has_bots or has_round_robin):
            fill = next((_AXES[k].default_bots for k in axes if _AXES[k].default_bots), None)
            if fill is None:
                raise UsageError("no bots given: use --bots, --round-robin, --config or --preset")
            data = {**data, **fill(data)}  # such as every seat the tier's bot (self-play)
            has_bots = True
        if data.get("plugins"):  # a manifest's (resume): the classes its run was played with
            load_sources({name: (kind, spec) for name, kind, spec in data["plugins"]})
        kwargs: dict[str, Any] = (
            {"lineups": _lineups(data["bots"], filled)}
            if has_bots
            else {"round_robin": _round_robin(data["round_robin"], filled)}
        )
        for key, value in axes.items():
            check = _AXES[key].check
            if check is not None:
                check(value, kwargs)
        kwargs["axes"] = tuple(axes.items())
        if data.get("players") is not None:
            players = tuple(
                dict.fromkeys(
                    whole_number(v, "players") for v in _as_list(data["players"], "players")
                )
            )
            kwargs["players"] = players
        if data.get("variant") is not None:
            variants = tuple(dict.fromkeys(str(v) for v in _as_list(data["variant"], "variant")))
            if not variants or "" in variants:
                raise UsageError(
                    f"variant: {data['variant']!r} names no variant: give "
                    f"{', '.join(variant_counts())}"
                )
            variants = tuple(load_variant(v) if is_class_spec(v) else v for v in variants)
            for v in variants:
                if not knows("variant", v):
                    raise UsageError(unknown_name("variant", v, variant_counts()))
            kwargs["variants"] = variants
        if data.get("expansions") is not None:
            sets = [
                s for v in _as_list(data["expansions"], "expansions") for s in _expansion_sets(v)
            ]
            if not sets:
                raise UsageError(
                    f"expansions: {data['expansions']!r} names no expansion set: give none for "
                    "the base game, or names such as ghost+finesse"
                )
            kwargs["expansions"] = tuple(dict.fromkeys(sets))
        rules = data.get("rules") or {}
        if not isinstance(rules, Mapping):
            raise UsageError(f"rules: expected a table of switches, got {rules!r}")
        grid = []
        for key in sorted(rules):
            if not is_run_switch(key):
                known = unknown_name(
                    "rules switch", key, run_switches(), more=("points.ID", "reward.ID")
                )
                raise UsageError(known)
            values = (
                rules[key] if isinstance(rules[key], (list, tuple)) else _as_list(rules[key], key)
            )
            if not values or any(isinstance(v, str) and not v.strip() for v in values):
                raise UsageError(
                    f"rules: {key} has an empty value: give --rule {key}=VALUE[,VALUE...]"
                )
            grid.append((key, tuple(dict.fromkeys(_switch_value(key, v) for v in values))))
        kwargs["rules"] = tuple(grid)
        if data.get("difficulty") is not None:
            levels = _as_list(data["difficulty"], "difficulty")
            for level in levels:
                if level not in DIFFICULTIES:
                    raise UsageError(unknown_name("difficulty", level, DIFFICULTIES))
            kwargs["difficulty"] = tuple(dict.fromkeys(levels))
        if data.get("games") is not None:
            kwargs["games"] = whole_number(data["games"], "games")
        if kwargs.get("games", cls.games) < 1:
            raise UsageError(f"games must be at least 1, got {kwargs['games']}")
        if kwargs.get("games", cls.games) > MAX_GAMES:
            raise UsageError(f"games must be at most {MAX_GAMES:,}, got {kwargs['games']}")
        if data.get("seed") is not None:
            seed = whole_number(data["seed"], "seed")
            if seed < 0:
                raise UsageError(f"seed must be >= 0, got {seed}")
            kwargs["seed"] = seed
        if data.get("records") is not None:
            kwargs["records"] = _check_records(str(data["records"]))
        if data.get("format") is not None:
            if data["format"] not in rows.FORMATS:
                raise UsageError(unknown_name("format", data["format"], rows.FORMATS))
            kwargs["format"] = data["format"]
        if data.get("tables") is not None:
            if data["tables"] not in rows.TABLE_SETS:
                raise UsageError(unknown_name("tables", data["tables"], rows.TABLE_SETS))
            kwargs["tables"] = data["tables"]
        if data.get("catalogue") is not None:
            path = str(Path(str(data["catalogue"])).resolve())
            _catalogue(path)  # a malformed file stops the run before any game (exit 2)
            kwargs["catalogue"] = path
        if data.get("tiles") is not None:
            path = str(Path(str(data["tiles"])).resolve())
            _tiles(path, kwargs.get("catalogue"))  # a bad file stops the run (exit 2)
            kwargs["tiles"] = path
        if data.get("expansion_files"):
            kwargs["expansion_files"] = _expansion_files(
                data["expansion_files"], kwargs.get("catalogue")
            )
        if data.get("position") not in (None, ""):
            kwargs |= _study_keys(data, kwargs)
        elif data.get("actions") or data.get("step") is not None:
            raise UsageError("actions and step belong to a study: give its position file too")
        used = {*kwargs.get("variants", ()), *(n for s in kwargs.get("expansions", ()) for n in s)}
        kwargs["plugins"] = tuple(
            sorted((name, kind, spec) for name, (kind, spec) in sources().items() if name in used)
        )
        return cls(**kwargs)

    def axis(self, key: str, default: Any = None) -> Any:
        """Return the value of the axis ``key`` (``default`` when the run is not played along
        it)."""
        return dict(self.axes).get(key, default)

    def to_json(self) -> dict[str, Any]:
        """Return the config mapping this spec comes from (``from_mapping`` reads it back)."""
        # a round robin names its bots instead of line-ups (and other runs keep the keys, and
        # so the run ids, they always had)
        who: dict[str, Any] = (
            {"round_robin": list(self.round_robin)}
            if self.round_robin
            else {"bots": [",".join(lineup) for lineup in self.lineups]}
        )
        return (
            who
            | {
                "players": list(self.players) or None,
                "variant": list(self.variants),
                "expansions": ["+".join(e) or "none" for e in self.expansions],
                "rules": {k: list(v) for k, v in self.rules},
                "difficulty": list(self.difficulty) or None,
                "games": self.games,
                "seed": self.seed,
                "records": self.records,
                "format": self.format,
                "tables": self.tables,
                "catalogue": self.catalogue,
                "tiles": self.tiles,
                "expansion_files": dict(self.expansion_files) or None,
            }
            | ({"plugins": [list(p) for p in self.plugins]} if self.plugins else {})
            # only when set: the runs before these keys keep their ids
            | {key: list(v) if isinstance(v, tuple) else v for key, v in self.axes}
            | (
                {
                    "position": self.position,
                    "step": self.position_step,
                    "position_digest": self.position_digest,
                    "actions": list(self.study_actions),
                }
                if self.position
                else {}
            )
        )


# what a study's position fixes: the grid settings it cannot take
_NOT_IN_A_STUDY = (
    *("round_robin", "players", "variant", "expansions", "rules", "difficulty"),
    *("catalogue", "tiles", "expansion_files"),  # (the position's record is replayed as shipped)
)


def _study_keys(data: Mapping[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """Check a study's settings (``sim.position_study``) and return its spec's fields."""
    fresh = data.get("position_digest") is None  # not a manifest's (resume), which has them all
    for key in _NOT_IN_A_STUDY if fresh else ():
        if data.get(key) not in (None, [], "", {}):
            raise UsageError(
                f"a study plays its position's game: leave out {key} (the position fixes it)"
            )
    if kwargs.get("records", "none") != "none":
        raise UsageError(
            "a study writes no records (its games start from a position, their hidden cards "
            "drawn again): leave out --records"
        )
    for key, _ in kwargs.get("axes", ()):
        if _AXES[key].not_in_a_study:
            raise UsageError(_AXES[key].not_in_a_study)
    path = str(Path(str(data["position"])).resolve())
    step = data.get("step")
    if step is not None:
        step = int(whole_number(step, "step"))
    digest = data.get("position_digest")
    position = read_study_position(path, step, digest)
    state = position.state
    given = data.get("actions") or []
    if not isinstance(given, (list, tuple)):
        raise UsageError(f"actions: expected a list of actions, got {given!r}")
    texts = [a if isinstance(a, str) else json.dumps(a, sort_keys=True) for a in given]
    actions = [action_of(t, state) for t in texts] or study_actions(state)
    texts = list(dict.fromkeys(action_text(a, state) for a in actions))
    for lineup in kwargs["lineups"]:
        if len(lineup) not in (1, state.n):
            raise UsageError(
                f"--bots {','.join(lineup)}: the position's game has {state.n} seats: give one "
                "bot for every seat, or one per seat in seat order"
            )
    return {
        "players": (state.n,),
        "position": path,
        "position_step": position.step if step is not None else None,
        "position_digest": position.digest,
        "study_actions": tuple(texts),
    }


def _check_records(text: str) -> str:
    if text in ("all", "none"):
        return text
    kind, _, n = text.partition(":")
    if kind == "sample" and n.isdigit() and int(n) >= 1:
        return f"sample:{int(n)}"
    if kind not in ("all", "none", "sample"):  # a misspelt word: the closest of the three
        guess = closest(kind, ["all", "none", "sample"])
        if guess is not None:
            said = f"{guess}:{n}" if guess == "sample" and n else guess
            raise UsageError(f"--records {text!r}: did you mean {said!r}? use {RECORDS_HELP}")
    raise UsageError(f"--records {text!r}: expected {RECORDS_HELP}")


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read a run config from a TOML or YAML file (the keys of ``SPEC_KEYS``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"config {p}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"config {p}: not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x}); "
            "save it as UTF-8"
        ) from None
    try:
        if p.suffix == ".toml":
            data = tomllib.loads(text)
        elif p.suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            raise UsageError(f"config {p}: use a .toml, .yaml or .yml file")
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config {p}: malformed TOML ({exc})") from None
    except Exception as exc:  # yaml.YAMLError and friends: one line for the user
        if isinstance(exc, UsageError):
            raise
        raise UsageError(f"config {p}: malformed YAML ({' '.join(str(exc).split())})") from None
    if not isinstance(data, dict):
        raise UsageError(f"config {p}: expected a table of settings")
    return data


_WHO = {"bots", "round_robin"}


def merge_sources(*sources: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge config mappings, later ones winning key by key (rules switch by switch).

    Line-ups (``bots``) and a ``round_robin`` replace each other: a source giving either drops
    both from the sources before it (one source giving both is refused by ``RunSpec``).
    """
    out: dict[str, Any] = {}
    for source in sources:
        if any((source or {}).get(key) is not None for key in _WHO):
            for key in _WHO:
                out.pop(key, None)
        for key, value in (source or {}).items():
            if value is None:
                continue
            if (
                key == "rules"
                and isinstance(value, Mapping)
                and isinstance(out.get("rules"), Mapping)
            ):
                out["rules"] = {**out["rules"], **value}
            else:
                out[key] = value
    return out


def preset(name: str) -> dict[str, Any]:
    """Return a preset's config mapping."""
    if name not in PRESETS:
        raise UsageError(unknown_name("preset", name, PRESETS))
    return dict(PRESETS[name])


# -- configurations and games ----------------------------------------------------------------
def _text(value: Any) -> str:
    """Return a switch value as flags and config files write it (``false``, ``60``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class GameConfig:
    """One cell of the grid: what every game of it shares."""

    config_id: int
    players: int
    lineup: tuple[str, ...]  # one bot spec per seat, before rotation
    variant: str = "standard"
    expansions: tuple[str, ...] = ()
    switches: tuple[tuple[str, Any], ...] = ()  # non-default rules switches, sorted
    difficulty: str | None = None  # solo only; None: the rules' default
    catalogue: str | None = None  # a catalogue file; None: the shipped base catalogue
    tiles: str | None = None  # a Finesse tiles file; None: the shipped tiles
    expansion_files: tuple[tuple[str, str], ...] = ()  # puzzle files replacing shipped sets
    # the configuration whose deals it plays (seed scheme per-configuration: a round robin's
    # subsets of one setting share them); None: its own
    deals_of: int | None = None
    # seed scheme shared-deals: the key its deal seeds are spawned from, (players, variant code),
    # whatever the rest of the grid; None: an older run's (``deals_of``)
    deal_setting: tuple[int, ...] | None = None
    # users' classes to load first (``RunSpec.plugins``): a worker process gets them too
    plugins: tuple[tuple[str, str, str], ...] = ()
    # each deal played this many times under each seating (``experiments.replicates``)
    replicates: int = 1
    # the skill tier (its bot's spec) and the line-up as given, the placeholder in the tier's
    # seats (one per seat; ``experiments.tiers``); None and (): a run without tiers
    tier: str | None = None
    template: tuple[str, ...] = ()
    # users' bot sources of the line-up and the name each goes by in the tables' ``bot`` column
    # (``bot_names``): ``(("/abs/placer.py:Placer", "placer"),)``; (): every bot by its spec
    bot_names: tuple[tuple[str, str], ...] = ()
    # a study (``sim.position_study``): the position its games start from (path, a record's
    # step, digest), the action of the seat to move applied first (record form) and its text
    position: str | None = None
    position_step: int | None = None
    position_digest: str | None = None
    action: str | None = None
    action_label: str | None = None

    @property
    def deal_key(self) -> tuple[int, ...]:
        """Return the spawn key its deal seeds are spawned from (the deal number follows)."""
        if self.deal_setting is not None:
            return self.deal_setting
        return (self.config_id if self.deals_of is None else self.deals_of,)

    @property
    def rotations(self) -> tuple[int, ...]:
        """Return the seat shifts giving distinct seatings (one for identical bots)."""
        if self.position:  # a study's seats are the position's: never rotated
            return (0,)
        seen: dict[tuple[str, ...], int] = {}
        for r in range(self.players):
            seen.setdefault(self.seated(r), r)
        return tuple(seen.values())

    @property
    def per_deal(self) -> int:
        """Return the games each deal is played in: every seating, each replicate times."""
        return len(self.rotations) * self.replicates

    def seated(self, rotation: int) -> tuple[str, ...]:
        """Return the bot spec of each seat when the line-up is shifted by ``rotation``."""
        return self.lineup[rotation:] + self.lineup[:rotation]

    def labels(self, rotation: int) -> tuple[str, ...]:
        """Return the name each seat's bot goes by in the tables (``placer:eagerness=0.5`` for
        ``/abs/placer.py:Placer:eagerness=0.5``; a built-in bot: its spec)."""
        names = dict(self.bot_names)
        out = []
        for spec in self.seated(rotation):
            source, rest = split_spec(spec)
            out.append(names[source] + (f":{rest}" if rest else "") if source in names else spec)
        return tuple(out)

    def rules(self) -> Rules:
        """Return the rules every game of this configuration is played with."""
        if self.plugins:
            load_sources({name: (kind, spec) for name, kind, spec in self.plugins})
        if self.position:  # the rules its record plays
            return self.study_position().state.rules
        level = {"difficulty": self.difficulty} if self.difficulty else {}
        sets = tuple(n for n in self.expansions if n in CATALOGUE_SETS)
        files = tuple((n, f) for n, f in self.expansion_files if n in sets)
        cat = {"catalogue": _catalogue(self.catalogue, sets, files)}
        if self.tiles and "finesse" in self.expansions:
            cat["finesse_tiles"] = _tiles(self.tiles, self.catalogue)
        return Rules(
            players=self.players,
            variant=self.variant,
            expansions=frozenset(self.expansions),
            **level,
            **cat,
            **rules_keywords(self.switches),
        )

    def columns(self) -> dict[str, Any]:
        """Return the table columns naming this configuration."""
        changed = [("difficulty", self.difficulty)] if self.difficulty else []
        switches = ",".join(f"{k}={_text(v)}" for k, v in [*changed, *self.switches])
        return {
            "config_id": self.config_id,
            "players": self.players,
            "variant": self.variant,
            "expansions": "+".join(self.expansions) or "none",
            "switches": switches or "default",
            "lineup": ",".join(self.lineup),
            "tier": self.tier,
            "action": self.action_label,
        }

    def study_position(self) -> StudyPosition:
        """Return a study's position (read once per process)."""
        assert self.position is not None
        return read_study_position(self.position, self.position_step, self.position_digest)

    def to_json(self) -> dict[str, Any]:
        """Return the manifest form (with its rotations, for readers)."""
        out = asdict(self) | {"switches": dict(self.switches), "rotations": list(self.rotations)}
        if not self.plugins:
            del out["plugins"]  # the manifests of runs of shipped classes stay as they were
        for key, default in (
            ("replicates", 1),
            ("tier", None),
            ("template", []),
            ("bot_names", []),
            ("position", None),
            ("position_step", None),
            ("position_digest", None),
            ("action", None),
            ("action_label", None),
        ):
            if out[key] == default or out[key] == ():
                del out[key]  # likewise the runs without replicates or tiers
        if "template" in out:
            out["template"] = list(out["template"])
        if "bot_names" in out:
            out["bot_names"] = dict(out["bot_names"])
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameConfig:
        """Read a configuration back from its manifest form."""
        return cls(
            config_id=data["config_id"],
            players=data["players"],
            lineup=tuple(data["lineup"]),
            variant=data["variant"],
            expansions=tuple(data["expansions"]),
            switches=tuple(sorted(data["switches"].items())),
            difficulty=data.get("difficulty"),
            catalogue=data.get("catalogue"),
            tiles=data.get("tiles"),
            expansion_files=tuple(tuple(x) for x in data.get("expansion_files", ())),
            deals_of=data.get("deals_of"),
            deal_setting=tuple(data["deal_setting"]) if data.get("deal_setting") else None,
            plugins=tuple(tuple(p) for p in data.get("plugins", ())),
            replicates=int(data.get("replicates", 1)),
            tier=data.get("tier"),
            template=tuple(data.get("template", ())),
            bot_names=tuple(sorted((data.get("bot_names") or {}).items())),
            position=data.get("position"),
            position_step=data.get("position_step"),
            position_digest=data.get("position_digest"),
            action=data.get("action"),
            action_label=data.get("action_label"),
        )


@dataclass(frozen=True)
class GameTask:
    """One game to play: its id, configuration, seed and seating."""

    game_id: int
    config_id: int
    deal: int
    rotation: int
    seed: int
    record: bool = False
    replicate: int = 0  # which play of the deal under this seating (the bots' seeds)


def _check_grid(spec: RunSpec, counts: set[int]) -> None:
    """Refuse impossible mixes (one line, exit 2).

    Each player count plays under the grid's variants made for it (``--players 1,2 --variant
    solo,standard`` is solo at 1 and standard at 2); a count no variant of the grid is made for,
    or a variant no count suits, is an error.
    """
    if spec.tiles and not any("finesse" in names for names in spec.expansions):
        raise UsageError("--tiles is a Finesse tiles file: add finesse to --expansions")
    for p in sorted(counts):
        if not any(p in variant_counts()[v] for v in spec.variants):
            needs = [name for name, made_for in variant_counts().items() if p in made_for]
            if not needs:
                raise UsageError(f"players must be 1-6, got {p}")
            have = ", ".join(f"{v} is for {_counts(v)}" for v in spec.variants)
            raise UsageError(
                f"{p} player{'s' if p > 1 else ''} needs the {needs[0]} variant "
                f"(--variant {needs[0]}); {have}"
            )
    for variant in spec.variants:
        if not counts & set(variant_counts()[variant]):
            raise UsageError(
                f"the {variant} variant is for {_counts(variant)}: add it to --players"
            )
    if spec.difficulty and "solo" not in spec.variants:
        raise UsageError("--difficulty applies to the solo variant only")


def _counts(variant: str) -> str:
    made_for = variant_counts()[variant]
    if len(made_for) == 1:
        return f"{made_for[0]} player{'s' if made_for[0] > 1 else ''}"
    return f"{min(made_for)}-{max(made_for)} players"


def _cells(spec: RunSpec) -> list[tuple[tuple[str, ...], int]]:
    """Return the (line-up, player count) cells of the grid, in configuration order."""
    if spec.round_robin:
        return _round_robin_cells(spec.round_robin, spec.players or (2,))
    for lineup in spec.lineups:
        if not spec.players and len(lineup) == 1 and "solo" not in spec.variants:
            raise UsageError(
                f"line-up {lineup[0]} has one bot: give --players N to seat it N times"
            )
    cells = []
    for lineup in spec.lineups:
        for players in spec.players or (len(lineup),):
            if len(lineup) > players:
                raise UsageError(
                    f"line-up {','.join(lineup)} has {len(lineup)} bots for {players} players; "
                    f"to play every {_subset(players)} of them: --round-robin {','.join(lineup)}"
                    f" --players {players}"
                )
            cells.append((lineup, players))
    return cells


def _subset(players: int) -> str:
    return {2: "pair", 3: "three"}.get(players, f"{players}")


def _round_robin_cells(
    bots: tuple[str, ...], counts: Sequence[int]
) -> list[tuple[tuple[str, ...], int]]:
    """Return a round robin's cells: per player count N, every N-subset of ``bots`` (in the
    order given), each seated one bot per seat."""
    cells = []
    for players in counts:
        if players < 2:
            raise UsageError(
                f"a round robin plays 2 or more players, got {players}: a solo game seats one "
                "bot (--bots BOT --players 1 --variant solo)"
            )
        if players > len(bots):
            raise UsageError(
                f"a round robin of {len(bots)} bots cannot fill {players} seats: give --players "
                f"up to {len(bots)} (each game seats different bots)"
            )
        cells.extend((subset, players) for subset in itertools.combinations(bots, players))
    return cells


# -- seed schemes: which configurations share deals ------------------------------------------
SHARED_DEALS = "shared-deals"  # every configuration of a player count and variant: one deal set
PER_CONFIGURATION = "per-configuration"  # before: a seed child per configuration
SEED_SCHEMES = (SHARED_DEALS, PER_CONFIGURATION)
SEED_SCHEME = SHARED_DEALS  # what a new run uses


def seed_scheme_of(manifest: Mapping[str, Any], where: object = "the run") -> str:
    """Return the seed scheme a run's manifest names (none: ``per-configuration``, the scheme
    of the runs made before the field); one line for a scheme this version does not know."""
    scheme = manifest.get("seed_scheme", PER_CONFIGURATION)
    if scheme not in SEED_SCHEMES:
        raise UsageError(
            f"{where} deals its games by seed scheme {scheme!r}, which this version does not "
            f"know ({', '.join(SEED_SCHEMES)}): resume it with the version that started it"
        )
    return str(scheme)


def deal_setting_of(players: int, variant: str) -> tuple[int, int]:
    """Return the spawn key of the deals of a player count and variant (scheme shared-deals):
    the same in every run with the same root seed, whatever its grid's shape."""
    return (players, zlib.crc32(variant.encode()))


def configurations(spec: RunSpec, seed_scheme: str = SEED_SCHEME) -> list[GameConfig]:
    """Expand the grid into configurations, checking each before any game is played.

    Under ``seed_scheme`` ``shared-deals`` every configuration of a player count and variant
    plays the same deals (``GameConfig.deal_setting``, the same in any grid): line-ups,
    expansion sets, switches and parameters are compared on the same deal seeds, and so are
    two runs with the same root seed, whatever the shape of their grids. Under ``per-configuration``
    (older runs) each has its own, except a round robin's: per player count N and setting,
    every N-subset of its bots shares the deals of the setting. Either way each deal is played
    under every rotation of the line-up.
    """
    if seed_scheme not in SEED_SCHEMES:
        raise ValueError(f"unknown seed scheme {seed_scheme!r}")
    out = (
        _study_configurations(spec, seed_scheme)
        if spec.position
        else _grid_configurations(spec, seed_scheme)
    )
    for key, value in spec.axes:  # the experiments' axes, each over the plain configurations
        if key not in _AXES:
            raise UsageError(f"the run is played along {key!r}, {_UNDECLARED}")
        out = _AXES[key].expand(out, value, seed_scheme)
    names = bot_names(out)
    return [
        replace(c, bot_names=tuple((s, n) for s, n in names.items() if s in _sources(c.lineup)))
        for c in out
    ]


# the one line for a setting of an experiment whose module is not loaded
_UNDECLARED = "a setting of an experiment: import projectl_sim.experiments first"


def _grid_configurations(spec: RunSpec, seed_scheme: str) -> list[GameConfig]:
    """Return the grid's configurations, in order, each checked (the axes not applied)."""
    keys = [k for k, _ in spec.rules]
    cells = _cells(spec)
    _check_grid(spec, {players for _, players in cells})
    out: list[GameConfig] = []
    shared: dict[tuple[Any, ...], int] = {}  # a round robin's setting -> its first config id
    for lineup, players in cells:
        seats = tuple(lineup[i % len(lineup)] for i in range(players))
        variants = [v for v in spec.variants if players in variant_counts()[v]]
        for variant, expansions in itertools.product(variants, spec.expansions):
            # a solo configuration always names its difficulty (the default is normal)
            levels = (spec.difficulty or ("normal",)) if variant == "solo" else (None,)
            for level, values in itertools.product(
                levels, itertools.product(*(v for _, v in spec.rules))
            ):
                switches = tuple(
                    (k, v) for k, v in zip(keys, values, strict=True) if v != switch_default(k)
                )
                deals_of: int | None = None
                if seed_scheme == PER_CONFIGURATION and spec.round_robin:
                    setting = (players, variant, expansions, switches, level)
                    deals_of = shared.setdefault(setting, len(out))
                deal_setting = (
                    deal_setting_of(players, variant) if seed_scheme == SHARED_DEALS else None
                )
                config = GameConfig(
                    len(out),
                    players,
                    seats,
                    variant,
                    expansions,
                    switches,
                    level,
                    spec.catalogue,
                    spec.tiles,
                    tuple((n, f) for n, f in spec.expansion_files if n in expansions),
                    deals_of=deals_of,
                    deal_setting=deal_setting,
                    plugins=spec.plugins,
                )
                check_decks(config.rules(), spec.catalogue)  # RulesError for a bad switch
                out.append(config)
    return out


def _study_configurations(spec: RunSpec, seed_scheme: str) -> list[GameConfig]:
    """Return a study's configurations: per line-up, one per action, on the same deals."""
    assert spec.position is not None
    position = read_study_position(spec.position, spec.position_step, spec.position_digest)
    state = position.state
    rules = state.rules
    out = []
    for lineup in spec.lineups:
        seats = tuple(lineup[i % len(lineup)] for i in range(state.n))
        for text in spec.study_actions:
            action = action_of(text, state)
            out.append(
                GameConfig(
                    len(out),
                    state.n,
                    seats,
                    rules.variant,
                    tuple(sorted(rules.expansions)),
                    deals_of=0 if seed_scheme == PER_CONFIGURATION else None,
                    deal_setting=(
                        deal_setting_of(state.n, rules.variant)
                        if seed_scheme == SHARED_DEALS
                        else None
                    ),
                    plugins=spec.plugins,
                    position=spec.position,
                    position_step=spec.position_step,
                    position_digest=spec.position_digest,
                    action=text,
                    action_label=action_label(action, rules.catalogue),
                )
            )
    return out


def _sources(lineup: Sequence[str]) -> set[str]:
    return {split_spec(s)[0] for s in lineup}


def bot_names(configs: Sequence[GameConfig]) -> dict[str, str]:
    """Return the names the tables give the users' bots of these configurations: each module
    or file source (``/abs/placer.py:Placer``) whose class declares a name of its own
    (``placer``), when no other source of the run declares the same one."""
    sources = sorted(s for s in _sources([b for c in configs for b in c.lineup]) if ":" in s)
    found = {s: n for s in sources if (n := declared_name(s))}
    named = list(found.values())
    return {s: n for s, n in found.items() if named.count(n) == 1}


def check_decks(rules: Rules, catalogue: str | None, least: bool = False) -> None:
    """Refuse a catalogue too small for the game (one line): the rulebook's decks by player count
    (rulings, Base game / Setup; Solo variant) need so many black puzzles, and a full row of
    white ones (solo: its deck's white part). ``least`` (``play``, to try a small catalogue):
    one black puzzle is enough, as the game deals what there is; none cannot end by the rules."""
    black = len(rules.catalogue.of_colour("black"))
    white = len(rules.catalogue.of_colour("white"))
    need_black = 1 if least else rules.black_deck_wanted  # a parameter, by player count
    if rules.solo:
        need_white = FINESSE_SOLO_WHITE if rules.finesse else SOLO_WHITE
        who = "the solo variant" + (" with finesse" if rules.finesse else "")
    else:
        need_white = rules.row_size
        who = f"{rules.players} players"
    where = f"catalogue {catalogue}" if catalogue else "the catalogue"
    for colour, have, need in (("black", black, need_black), ("white", white, need_white)):
        if have < need:
            raise UsageError(
                f"{where} has {have} {colour} puzzle{'s' if have != 1 else ''}; {who} "
                f"need{'s' if rules.solo else ''} at least {need}"
            )


def game_seed(ss: np.random.SeedSequence) -> int:
    """Return the int seed of a game: 63 bits of its seed sequence (fits a signed int64)."""
    return int(ss.generate_state(1, dtype=np.uint64)[0]) >> 1


def _deals(config: GameConfig, games: int) -> int:
    """Return the deals a configuration plays for ``games`` games (whole rotation groups)."""
    return math.ceil(games / config.per_deal)


def deal_seed(root_seed: int, deal_key: int | tuple[int, ...], deal: int) -> int:
    """Return the seed of one deal: the descendant ``(*deal_key, deal)`` of the root seed.

    ``SeedSequence(root, spawn_key=(c, d))`` is the sequence ``SeedSequence(root).spawn(...)[c]
    .spawn(...)[d]`` is, without spawning the ones before it: seeds are drawn as games are
    played, and a larger ``games`` keeps the seeds of the first games. ``deal_key`` is a
    configuration's (``GameConfig.deal_key``; an int: an older run's configuration id).
    """
    key = (deal_key,) if isinstance(deal_key, int) else tuple(deal_key)
    return game_seed(np.random.SeedSequence(root_seed, spawn_key=(*key, deal)))


@dataclass(frozen=True)
class Tasks(Sequence[GameTask]):
    """Every game of a run in game-id order, made as they are asked for (nothing up front).

    ``history`` is the run's ``games`` and every larger value it was grown to (``--resume
    --games``). Game ids go growth by growth: the first ``games`` of every configuration in
    configuration order (deal by deal, each deal's rotations in a row), then the deals each growth
    adds, again configuration by configuration, numbered after all the games before them. So
    growing never renumbers a game, and a run never grown numbers its games as it always did.
    """

    configs: tuple[GameConfig, ...]
    history: tuple[int, ...]
    root_seed: int
    records: str = "none"

    def _blocks(self) -> list[tuple[int, GameConfig, int, int]]:
        """Return ``(first game id, config, first deal, deals)`` of each block, in id order."""
        return _blocks(self.configs, self.history)

    def __len__(self) -> int:
        blocks = self._blocks()
        if not blocks:
            return 0
        first, config, _, deals = blocks[-1]
        return first + deals * config.per_deal

    def __iter__(self) -> Iterator[GameTask]:
        return self.from_id(0)

    def from_id(self, start: int) -> Iterator[GameTask]:
        """Yield the games from id ``start`` on, in id order."""
        recorded = self._recorded()
        for first, config, deal0, deals in self._blocks():
            rotations = config.rotations
            per_deal = config.per_deal
            size = deals * per_deal
            if first + size <= start:
                continue
            skip = max(0, start - first)
            d = skip // per_deal
            game_id = first + d * per_deal
            for deal in range(deal0 + d, deal0 + deals):
                seed = deal_seed(self.root_seed, config.deal_key, deal)
                # a deal's games: each replicate plays every seating (replicate 0 first)
                for rep in range(config.replicates):
                    for r in rotations:
                        if game_id >= start:
                            yield GameTask(
                                game_id, config.config_id, deal, r, seed, recorded(game_id), rep
                            )
                        game_id += 1

    @overload
    def __getitem__(self, index: int) -> GameTask: ...

    @overload
    def __getitem__(self, index: slice) -> list[GameTask]: ...

    def __getitem__(self, index: int | slice) -> GameTask | list[GameTask]:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return list(itertools.islice(self.from_id(start), max(0, stop - start)))
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        return next(self.from_id(index))

    def _recorded(self) -> Callable[[int], bool]:
        """Return which game ids write a record: ``sample:N`` picks N spread over the games of
        the run as first planned, and N more over the games each growth adds."""
        if self.records in ("all", "none"):
            return _recorded(self.records, 0, 0)
        picks: list[Callable[[int], bool]] = []
        for first, size in _segments(self.configs, self.history):
            picks.append(_recorded(self.records, first, size))
        return lambda game_id: any(p(game_id) for p in picks)


def _segments(configs: Sequence[GameConfig], history: Sequence[int]) -> list[tuple[int, int]]:
    """Return ``(first game id, games)`` of the run as first planned and of each growth."""
    out = []
    first = 0
    before = 0
    for games in history:
        size = sum(
            (_deals(c, games) - (_deals(c, before) if before else 0)) * c.per_deal for c in configs
        )
        out.append((first, size))
        first += size
        before = games
    return out


@functools.lru_cache(maxsize=64)
def _blocks(
    configs: tuple[GameConfig, ...], history: tuple[int, ...]
) -> list[tuple[int, GameConfig, int, int]]:
    out = []
    first = 0
    before = 0
    for games in history:
        for config in configs:
            deal0 = _deals(config, before) if before else 0
            deals = _deals(config, games) - deal0
            if deals > 0:
                out.append((first, config, deal0, deals))
                first += deals * config.per_deal
        before = games
    return out


def _recorded(records: str, first: int, total: int) -> Callable[[int], bool]:
    if records == "all":
        return lambda _: True
    if records == "none" or total <= 0:
        return lambda _: False
    n = min(int(records.partition(":")[2]), total)
    picked = {first + i * total // n for i in range(n)}  # evenly spread over the games
    return picked.__contains__


def plan(
    spec: RunSpec,
    root_seed: int,
    history: Sequence[int] | None = None,
    seed_scheme: str = SEED_SCHEME,
) -> tuple[list[GameConfig], Tasks]:
    """Return the configurations and every game of a run, in game-id order (made lazily).

    ``history`` is the run's ``games`` and each value it grew to; by default ``(spec.games,)``.
    ``seed_scheme`` is the run's (``seed_scheme_of`` its manifest; a new run: ``SEED_SCHEME``).
    """
    configs = configurations(spec, seed_scheme)
    grown = tuple(history) if history else (spec.games,)
    if list(grown) != sorted(set(grown)) or grown[-1] != spec.games:
        raise ValueError(f"a run's games only grow, ending at spec.games: {grown}")
    return configs, Tasks(tuple(configs), grown, root_seed, spec.records)


def run_id_of(spec: RunSpec, root_seed: int, seed_scheme: str = SEED_SCHEME) -> str:
    """Return the run's id: a hash of its grid, root seed and seed scheme (the same run, the
    same id; a run of the older ``per-configuration`` scheme leaves the scheme out).

    Not of its size: a run grown to N games (``--resume --games N``) plays the games a run
    started with N plays, and has its id.
    """
    return _run_hash(spec, root_seed, seed_scheme, ("records", "format", "tables", "seed", "games"))


def run_id_v1(spec: RunSpec, root_seed: int, games: int, seed_scheme: str = SEED_SCHEME) -> str:
    """Return the id runs written before ids left out the size had: the hash of their grid with
    the ``games`` they started with (a resume accepts it, and keeps it)."""
    return _run_hash(
        replace(spec, games=games), root_seed, seed_scheme, ("records", "format", "tables", "seed")
    )


def _run_hash(spec: RunSpec, root_seed: int, seed_scheme: str, leave_out: tuple[str, ...]) -> str:
    grid = {k: v for k, v in spec.to_json().items() if k not in leave_out}
    ident: dict[str, Any] = {"grid": grid, "root_seed": root_seed}
    if seed_scheme != PER_CONFIGURATION:
        ident["seed_scheme"] = seed_scheme
    text = json.dumps(ident, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# -- per-process caches (workers too) ----------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _catalogue(
    path: str | None,
    sets: tuple[str, ...] = (),
    files: tuple[tuple[str, str], ...] = (),
) -> Catalogue:
    # One catalogue object per (file, sets, replacement files) and process: the engine and the
    # index cache per catalogue object.
    return load_catalogue(path, expansions=sets, overrides=dict(files))


@functools.lru_cache(maxsize=8)
def _tiles(path: str, catalogue: str | None) -> TileSet:
    # One tile set per file and process, checked against the catalogue's pieces.
    cat = _catalogue(catalogue) if catalogue else base_catalogue()
    return load_tiles(path, cat.piece_ids)


@functools.lru_cache(maxsize=64)
def rules_of(config: GameConfig) -> Rules:
    """Return the rules of a configuration, built once per process (workers too)."""
    # One Rules per configuration and process: the engine caches its tables per catalogue.
    return config.rules()
