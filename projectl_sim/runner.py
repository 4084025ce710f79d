"""Run a grid of games in parallel: configurations, seeds, seat rotations, appends and resume.

A run is a grid: bot line-ups x player counts x variants x expansions x rule switches, each cell
(a *configuration*) played for ``games`` games. Seeding discipline: the root seed spawns one
``SeedSequence`` child per configuration and one grandchild per *deal* (``spawn_key`` =
``(config, deal)``); a deal is played once under every distinct rotation of the line-up over the
seats, with the same game seed, so every bot plays every seat equally often on the same deals
(paired games). A game's seed is an int drawn from its deal's child; ``play_game(rules, bots,
seed)`` with the row's seed replays it. Everything is decided in the parent, so results are the
same for any number of jobs and any backend.

Games run through joblib (``loky`` processes, or a ``dask.distributed`` cluster through joblib's
Dask backend); finished games are appended as part files (see ``tables``), and ``resume`` plays
only the games missing from them.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import secrets
import sys
import time
import tomllib
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pyarrow.compute as pc
from tqdm import tqdm

from bots import make_bot
from bots.base import Bot
from projectl_sim import tables
from projectl_sim.actions import Action
from projectl_sim.catalogue import EXPANSIONS as CATALOGUE_SETS
from projectl_sim.catalogue import Catalogue, base_catalogue, load_catalogue
from projectl_sim.engine import GameState, deal, new_game
from projectl_sim.errors import UsageError
from projectl_sim.finesse import TileSet, load_tiles
from projectl_sim.play import BotError, game_seeds, play_game
from projectl_sim.rules import (
    DIFFICULTIES,
    EXPANSIONS,
    RUN_SWITCHES,
    TIE_BREAKS,
    VARIANT_PLAYERS,
    Rules,
    expansion_subsets,
    parse_expansions,
)

# -- what the runner accepts -----------------------------------------------------------------
# A grid value standing for every subset of the expansions (16 sets, "none" included).
ALL_SUBSETS = "all-subsets"

RECORDS_HELP = "all|sample:N|none"
SPEC_KEYS = (
    "bots",
    "players",
    "variant",
    "expansions",
    "rules",
    "difficulty",
    "games",
    "seed",
    "records",
    "format",
    "catalogue",
    "tiles",
    "expansion_files",
)

# Presets are config mappings like a config file's; flags and a config file override them.
PRESETS: dict[str, dict[str, Any]] = {
    # The README's first job: a few hundred games, then the summary table.
    "demo": {
        "bots": ["greedy,random", "greedy:preset=rush_black,greedy"],
        "players": [2, 3, 4],
        "games": 100,
        "seed": 2026,
    },
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

# A part file at least this often, so a killed run loses little; in a long run, every 1% of the
# time so far (a ten-hour run writes a few hundred parts, not thousands).
FLUSH_SECONDS = 5.0


# -- the run specification -------------------------------------------------------------------
def split_lineup(text: str) -> list[str]:
    """Split ``greedy:a=1,b=2,random`` into bot specs: a ``key=value`` item continues a spec."""
    specs: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        key = item.partition("=")[0]
        if "=" in item and ":" not in key and specs:
            sep = "," if ":" in specs[-1] else ":"
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


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise UsageError(f"{name}: expected a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise UsageError(f"{name}: expected a whole number, got {value!r}") from None


def _switch_value(key: str, raw: Any) -> Any:
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
        return _whole(raw, f"rule {key}")
    if isinstance(allowed, tuple) and raw not in allowed:
        raise UsageError(f"rule {key}: unknown value {raw!r} (valid: {', '.join(allowed)})")
    return raw


def _lineups(value: Any) -> tuple[tuple[str, ...], ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise UsageError("bots: give at least one line-up, such as 'greedy,random'")
    out = []
    for item in items:
        specs = split_lineup(item) if isinstance(item, str) else list(item)
        if not specs or not all(isinstance(s, str) for s in specs):
            raise UsageError(f"bots: a line-up is a comma list of bot specs, got {item!r}")
        out.append(tuple(repr(make_bot(s)) for s in specs))  # validates and normalises
    return tuple(dict.fromkeys(out))


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
    maps a rules switch to the values the grid takes.
    """

    lineups: tuple[tuple[str, ...], ...]
    players: tuple[int, ...] = ()
    variants: tuple[str, ...] = ("standard",)
    expansions: tuple[tuple[str, ...], ...] = ((),)
    rules: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    difficulty: tuple[str, ...] = ()  # solo only; empty: the rules' default
    games: int = 100
    seed: int | None = None
    records: str = "none"
    format: str = "parquet"
    catalogue: str | None = None  # a catalogue file (absolute path); None: the shipped one
    tiles: str | None = None  # a Finesse tiles file (absolute path); None: the shipped one
    # puzzle files replacing shipped expansion sets: (set name, absolute path), sorted
    expansion_files: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RunSpec:
        """Build and check a spec from a config mapping (file, preset, flags or manifest)."""
        unknown = sorted(set(data) - set(SPEC_KEYS))
        if unknown:
            raise UsageError(f"unknown setting {unknown[0]!r} (valid: {', '.join(SPEC_KEYS)})")
        if "bots" not in data or data["bots"] in (None, [], ""):
            raise UsageError("no bots given: use --bots, --config or --preset")
        kwargs: dict[str, Any] = {"lineups": _lineups(data["bots"])}
        if data.get("players") is not None:
            players = tuple(
                dict.fromkeys(_whole(v, "players") for v in _as_list(data["players"], "players"))
            )
            kwargs["players"] = players
        if data.get("variant") is not None:
            variants = tuple(dict.fromkeys(str(v) for v in _as_list(data["variant"], "variant")))
            for v in variants:
                if v not in VARIANT_PLAYERS:
                    raise UsageError(f"unknown variant {v!r} (valid: {', '.join(VARIANT_PLAYERS)})")
            kwargs["variants"] = variants
        if data.get("expansions") is not None:
            sets = [
                s for v in _as_list(data["expansions"], "expansions") for s in _expansion_sets(v)
            ]
            kwargs["expansions"] = tuple(dict.fromkeys(sets))
        rules = data.get("rules") or {}
        if not isinstance(rules, Mapping):
            raise UsageError(f"rules: expected a table of switches, got {rules!r}")
        grid = []
        for key in sorted(rules):
            if key not in RUN_SWITCHES:
                raise UsageError(f"unknown rules switch {key!r} (valid: {', '.join(RUN_SWITCHES)})")
            values = (
                rules[key] if isinstance(rules[key], (list, tuple)) else _as_list(rules[key], key)
            )
            grid.append((key, tuple(dict.fromkeys(_switch_value(key, v) for v in values))))
        kwargs["rules"] = tuple(grid)
        if data.get("difficulty") is not None:
            levels = _as_list(data["difficulty"], "difficulty")
            for level in levels:
                if level not in DIFFICULTIES:
                    valid = ", ".join(DIFFICULTIES)
                    raise UsageError(f"unknown difficulty {level!r} (valid: {valid})")
            kwargs["difficulty"] = tuple(dict.fromkeys(levels))
        if data.get("games") is not None:
            kwargs["games"] = _whole(data["games"], "games")
        if kwargs.get("games", cls.games) < 1:
            raise UsageError(f"games must be at least 1, got {kwargs['games']}")
        if data.get("seed") is not None:
            seed = _whole(data["seed"], "seed")
            if seed < 0:
                raise UsageError(f"seed must be >= 0, got {seed}")
            kwargs["seed"] = seed
        if data.get("records") is not None:
            kwargs["records"] = _check_records(str(data["records"]))
        if data.get("format") is not None:
            if data["format"] not in tables.FORMATS:
                raise UsageError(
                    f"unknown format {data['format']!r} (valid: {', '.join(tables.FORMATS)})"
                )
            kwargs["format"] = data["format"]
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
        return cls(**kwargs)

    def to_json(self) -> dict[str, Any]:
        """Return the config mapping this spec comes from (``from_mapping`` reads it back)."""
        return {
            "bots": [",".join(lineup) for lineup in self.lineups],
            "players": list(self.players) or None,
            "variant": list(self.variants),
            "expansions": ["+".join(e) or "none" for e in self.expansions],
            "rules": {k: list(v) for k, v in self.rules},
            "difficulty": list(self.difficulty) or None,
            "games": self.games,
            "seed": self.seed,
            "records": self.records,
            "format": self.format,
            "catalogue": self.catalogue,
            "tiles": self.tiles,
            "expansion_files": dict(self.expansion_files) or None,
        }


def _check_records(text: str) -> str:
    if text in ("all", "none"):
        return text
    kind, _, n = text.partition(":")
    if kind == "sample" and n.isdigit() and int(n) >= 1:
        return f"sample:{int(n)}"
    raise UsageError(f"--records {text!r}: expected {RECORDS_HELP}")


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read a run config from a TOML or YAML file (the keys of ``SPEC_KEYS``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"config {p}: cannot read ({exc.strerror})") from None
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


def merge_sources(*sources: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge config mappings, later ones winning key by key (rules switch by switch)."""
    out: dict[str, Any] = {}
    for source in sources:
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
        raise UsageError(f"unknown preset {name!r} (valid: {', '.join(PRESETS)})")
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

    @property
    def rotations(self) -> tuple[int, ...]:
        """Return the seat shifts giving distinct seatings (one for identical bots)."""
        seen: dict[tuple[str, ...], int] = {}
        for r in range(self.players):
            seen.setdefault(self.seated(r), r)
        return tuple(seen.values())

    def seated(self, rotation: int) -> tuple[str, ...]:
        """Return the bot spec of each seat when the line-up is shifted by ``rotation``."""
        return self.lineup[rotation:] + self.lineup[:rotation]

    def rules(self) -> Rules:
        """Return the rules every game of this configuration is played with."""
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
            **dict(self.switches),
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
        }

    def to_json(self) -> dict[str, Any]:
        """Return the manifest form (with its rotations, for readers)."""
        return asdict(self) | {"switches": dict(self.switches), "rotations": list(self.rotations)}

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


def _check_grid(spec: RunSpec, counts: set[int]) -> None:
    """Refuse impossible mixes (one line, exit 2).

    Each player count plays under the grid's variants made for it (``--players 1,2 --variant
    solo,standard`` is solo at 1 and standard at 2); a count no variant of the grid is made for,
    or a variant no count suits, is an error.
    """
    if spec.tiles and not any("finesse" in names for names in spec.expansions):
        raise UsageError("--tiles is a Finesse tiles file: add finesse to --expansions")
    for p in sorted(counts):
        if not any(p in VARIANT_PLAYERS[v] for v in spec.variants):
            needs = [name for name, made_for in VARIANT_PLAYERS.items() if p in made_for]
            if not needs:
                raise UsageError(f"players must be 1-6, got {p}")
            have = ", ".join(f"{v} is for {_counts(v)}" for v in spec.variants)
            raise UsageError(
                f"{p} player{'s' if p > 1 else ''} needs the {needs[0]} variant "
                f"(--variant {needs[0]}); {have}"
            )
    for variant in spec.variants:
        if not counts & set(VARIANT_PLAYERS[variant]):
            raise UsageError(
                f"the {variant} variant is for {_counts(variant)}: add it to --players"
            )
    if spec.difficulty and "solo" not in spec.variants:
        raise UsageError("--difficulty applies to the solo variant only")


def _counts(variant: str) -> str:
    made_for = VARIANT_PLAYERS[variant]
    if len(made_for) == 1:
        return f"{made_for[0]} player{'s' if made_for[0] > 1 else ''}"
    return f"{min(made_for)}-{max(made_for)} players"


def configurations(spec: RunSpec) -> list[GameConfig]:
    """Expand the grid into configurations, checking each before any game is played."""
    keys = [k for k, _ in spec.rules]
    for lineup in spec.lineups:
        if not spec.players and len(lineup) == 1 and "solo" not in spec.variants:
            raise UsageError(
                f"line-up {lineup[0]} has one bot: give --players N to seat it N times"
            )
    _check_grid(spec, set(spec.players or (len(lineup) for lineup in spec.lineups)))
    out: list[GameConfig] = []
    for lineup in spec.lineups:
        for players in spec.players or (len(lineup),):
            if len(lineup) > players:
                raise UsageError(
                    f"line-up {','.join(lineup)} has {len(lineup)} bots for {players} players"
                )
            seats = tuple(lineup[i % len(lineup)] for i in range(players))
            variants = [v for v in spec.variants if players in VARIANT_PLAYERS[v]]
            for variant, expansions in itertools.product(variants, spec.expansions):
                # a solo configuration always names its difficulty (the default is normal)
                levels = (spec.difficulty or ("normal",)) if variant == "solo" else (None,)
                for level, values in itertools.product(
                    levels, itertools.product(*(v for _, v in spec.rules))
                ):
                    switches = tuple(
                        (k, v) for k, v in zip(keys, values, strict=True) if v != RUN_SWITCHES[k][0]
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
                    )
                    config.rules()  # raises RulesError (exit 2) for a bad switch value
                    out.append(config)
    return out


def game_seed(ss: np.random.SeedSequence) -> int:
    """Return the int seed of a game: 63 bits of its seed sequence (fits a signed int64)."""
    return int(ss.generate_state(1, dtype=np.uint64)[0]) >> 1


def _recorded(records: str, total: int) -> Callable[[int], bool]:
    if records == "all":
        return lambda _: True
    if records == "none":
        return lambda _: False
    n = min(int(records.partition(":")[2]), total)
    picked = {i * total // n for i in range(n)}  # evenly spread over the run
    return picked.__contains__


def plan(spec: RunSpec, root_seed: int) -> tuple[list[GameConfig], list[GameTask]]:
    """Return the configurations and every game of a run, in game-id order."""
    configs = configurations(spec)
    per_config = np.random.SeedSequence(root_seed).spawn(len(configs))
    tasks: list[GameTask] = []
    for config, ss in zip(configs, per_config, strict=True):
        rotations = config.rotations
        deals = math.ceil(spec.games / len(rotations))  # whole rotation groups
        for d, deal_ss in enumerate(ss.spawn(deals)):
            seed = game_seed(deal_ss)
            for r in rotations:
                tasks.append(GameTask(len(tasks), config.config_id, d, r, seed))
    recorded = _recorded(spec.records, len(tasks))
    return configs, [
        GameTask(t.game_id, t.config_id, t.deal, t.rotation, t.seed, recorded(t.game_id))
        for t in tasks
    ]


def run_id_of(spec: RunSpec, root_seed: int) -> str:
    """Return the run's id: a hash of its grid and root seed (the same run, the same id)."""
    grid = {k: v for k, v in spec.to_json().items() if k not in ("records", "format", "seed")}
    text = json.dumps({"grid": grid, "root_seed": root_seed}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# -- playing one game (runs in the workers) --------------------------------------------------
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
def _rules(config: GameConfig) -> Rules:
    # One Rules per configuration and process: the engine caches its tables per catalogue.
    return config.rules()


@dataclass
class GameResult:
    """What a worker sends back: the rows of one game and, when asked, its record."""

    game_id: int
    seats: list[dict[str, Any]]
    game: dict[str, Any]
    record: dict[str, Any] | None


def play_task(task: GameTask, config: GameConfig, run_id: str) -> GameResult:
    """Play one game of a run and return its rows; a failing game becomes an error row."""
    rules = _rules(config)
    seats = config.seated(task.rotation)
    bots = [make_bot(spec) for spec in seats]
    seconds = [0.0] * len(seats)  # each seat's decision time
    cpu = [[0.0, 0.0] for _ in seats]  # each seat's decision CPU time, decisions measured
    actions = [dict.fromkeys(tables.ACTION_KINDS, 0) for _ in seats]
    last: list[GameState] = []
    kind_of = tables.RECORD_KIND

    def on_step(state: GameState, seat: int, action: Action) -> None:
        actions[seat][kind_of[action.kind]] += 1
        if not last:
            last.append(state)

    start = time.perf_counter()
    error_seat: int | None = None
    error: str | None = None
    record: dict[str, Any] | None = None
    try:
        outcome = play_game(
            rules,
            bots,
            task.seed,
            record=task.record,
            seat_names=seats,
            on_step=on_step,
            seconds=seconds,
            cpu=cpu,
        )
        state = outcome.state
        if outcome.record is not None:
            record = outcome.record.to_json(state)
    except BotError as exc:
        partial = exc.outcome  # type: ignore[attr-defined]
        state, error_seat = partial.state, exc.seat
        error = f"{exc}\n{exc.detail}".strip()
        if partial.record is not None:
            record = partial.record.to_json(state)
    except Exception as exc:  # an engine or bot bug must not stop a long run: it is a row
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}".strip()
        # play_game keeps one state object throughout; before any step, deal it again.
        state = (
            last[0]
            if last
            else new_game(rules, setup=deal(rules, game_seeds(task.seed, rules.players)[0]))
        )
    duration = time.perf_counter() - start
    ident = {"run_id": run_id, "game_id": task.game_id, "seed": task.seed}
    ident |= config.columns() | {"deal": task.deal}
    seat_rows, game_row = tables.game_rows(
        ident,
        rotation=task.rotation,
        seats=seats,
        state=state,
        actions=actions,
        decision_seconds=seconds,
        duration=duration,
        decision_cpu=cpu,
        error_seat=error_seat,
        error=error,
    )
    return GameResult(task.game_id, seat_rows, game_row, record)


# -- running ---------------------------------------------------------------------------------
@dataclass
class RunOptions:
    """How to run (none of it changes the results)."""

    jobs: int | None = None  # default: every core
    backend: str = "loky"
    scheduler: str | None = None
    quiet: bool = False
    chunk: int | None = None  # games per part file (default: sized from the run)
    echo: Callable[[str], None] | None = None  # where info lines go (default: stderr)


@dataclass
class RunResult:
    """A finished (or interrupted) run: where it is and what it did."""

    out: Path
    run_id: str
    root_seed: int
    games: int
    played: int
    failed: int
    seconds: float
    complete: bool
    manifest: dict[str, Any] = field(repr=False, default_factory=dict)


def _writable(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"cannot write to output folder {out}: {exc.strerror}") from None


def _jobs(options: RunOptions) -> int:
    if options.jobs is None or options.jobs == -1:
        return joblib.cpu_count()
    if options.jobs < 1:
        raise UsageError(f"--jobs must be at least 1 (or -1 for every core), got {options.jobs}")
    return options.jobs


def _check_options(options: RunOptions) -> None:
    """Check how-to-run options before anything is created."""
    if options.backend not in ("loky", "dask"):
        raise UsageError(f"unknown backend {options.backend!r} (valid: loky, dask)")
    if options.backend == "loky" and options.scheduler:
        raise UsageError("--scheduler needs --backend dask")
    if options.backend == "dask" and not options.scheduler:
        raise UsageError("--backend dask needs --scheduler tcp://HOST:PORT")
    if options.chunk is not None and options.chunk < 1:
        raise UsageError(f"--chunk must be at least 1, got {options.chunk}")
    _jobs(options)


@contextmanager
def _backend(options: RunOptions) -> Iterator[int]:
    """Set up joblib's backend; yield the n_jobs to ask for."""
    _check_options(options)
    if options.backend == "loky":
        with joblib.parallel_config(backend="loky"):
            yield _jobs(options)
        return
    from distributed import Client

    try:
        client = Client(options.scheduler, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the dask scheduler at {options.scheduler}: {exc}") from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield -1  # the cluster's workers decide
    finally:
        client.close()


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _session_manifest(
    spec: RunSpec, seed: int, run_id: str, configs: list[GameConfig], n_games: int
) -> dict[str, Any]:
    return {
        "format": "projectl-run/1",
        "run_id": run_id,
        "root_seed": seed,
        "config": spec.to_json() | {"seed": seed},
        "configs": [c.to_json() for c in configs],
        "games_planned": n_games,
        "versions": tables.versions(),
        "git": tables.git_commit(),
        "started": tables.now(),
        "sessions": [],
        "status": "running",
    }


def run(
    spec: RunSpec | None,
    out: str | Path,
    *,
    resume: bool = False,
    options: RunOptions | None = None,
) -> RunResult:
    """Play a run into ``out`` (or finish one there with ``resume``); return what happened.

    Everything a user can get wrong (bots, combinations, the folder, the scheduler) is checked
    before the first game and raises ``UsageError``.
    """
    options = options or RunOptions()
    echo = options.echo or _stderr
    out = Path(out)
    if resume:
        manifest = tables.read_manifest(out)
        stored = RunSpec.from_mapping(manifest["config"])
        if spec is not None:
            mine = spec.to_json() | {"seed": spec.seed if spec.seed is not None else stored.seed}
            if mine != stored.to_json():
                raise UsageError(
                    f"--resume: the settings differ from the run in {out}; "
                    "drop them to finish that run, or choose another --out"
                )
        spec = stored
        if manifest.get("status") == "complete":  # its parts are gone: the tables are all
            if not options.quiet:
                echo(f"run {manifest['run_id']} in {out} is already complete")
            n, failed = manifest["games_done"], manifest["games_failed"]
            return RunResult(
                out, manifest["run_id"], manifest["root_seed"], n, 0, failed, 0.0, True, manifest
            )
    else:
        if spec is None:
            raise UsageError("nothing to run: give --bots, --config or --preset")
        if (out / tables.MANIFEST).exists():
            raise UsageError(
                f"{out} already holds a run: add --resume to finish it, or choose another --out"
            )
        if spec.seed is None:
            spec = replace(spec, seed=secrets.randbelow(2**31))
        manifest = {}
    assert spec.seed is not None
    seed = spec.seed
    configs, tasks = plan(spec, seed)
    run_id = run_id_of(spec, seed)
    _check_options(options)
    created = not out.exists()
    _writable(out)
    with ExitStack() as stack:
        try:
            n_jobs = stack.enter_context(_backend(options))  # connects to a cluster: no game yet
        except UsageError:
            if created:
                out.rmdir()
            raise
        if not resume:
            manifest = _session_manifest(spec, seed, run_id, configs, len(tasks))
            tables.write_manifest(out, manifest)
        tables.clean_parts(out)
        done = tables.done_game_ids(out)
        todo = [t for t in tasks if t.game_id not in done]
        if not options.quiet:
            verb = "resuming" if resume else "running"
            echo(
                f"{verb} run {run_id}: {len(configs)} configuration(s), {len(tasks)} games"
                f"{f' ({len(todo)} left)' if resume else ''}, root seed {seed} -> {out}"
            )
        result = _play(out, spec, configs, tasks, todo, run_id, manifest, n_jobs, options)
    return result


def _play(
    out: Path,
    spec: RunSpec,
    configs: list[GameConfig],
    tasks: list[GameTask],
    todo: list[GameTask],
    run_id: str,
    manifest: dict[str, Any],
    n_jobs: int,
    options: RunOptions,
) -> RunResult:
    workers = n_jobs if n_jobs > 0 else 1
    chunk = options.chunk or max(10, min(1000, len(todo) // (8 * workers) or 1))
    session = {"started": tables.now(), "jobs": n_jobs, "backend": options.backend}
    numbers = tables.part_numbers(out)
    next_part = (numbers[-1] + 1) if numbers else 0
    buffer: list[GameResult] = []
    played = 0
    start = last_flush = time.perf_counter()
    status = "interrupted"

    def flush() -> None:
        nonlocal next_part, last_flush
        if buffer:
            tables.write_records(out, [(r.game_id, r.record) for r in buffer if r.record])
            seats = [row for r in buffer for row in r.seats]
            tables.write_part(out, next_part, seats, [r.game for r in buffer])
            next_part += 1
            buffer.clear()
        last_flush = time.perf_counter()

    bar = tqdm(
        total=len(tasks),
        initial=len(tasks) - len(todo),
        unit="game",
        disable=options.quiet or not sys.stderr.isatty(),
        dynamic_ncols=True,
    )
    results = None
    try:
        if todo:
            by_id = {c.config_id: c for c in configs}
            parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            results = parallel(
                joblib.delayed(play_task)(t, by_id[t.config_id], run_id) for t in todo
            )
            for result in results:
                buffer.append(result)
                played += 1
                bar.update()
                now = time.perf_counter()
                every = max(FLUSH_SECONDS, (now - start) / 100)
                if len(buffer) >= chunk or now - last_flush >= every:
                    flush()
        status = "complete"
    finally:
        if results is not None:
            results.close()  # stops the workers on an interrupt
        bar.close()
        flush()
        seconds = time.perf_counter() - start
        written = tables.consolidate(out, spec.format)
        games = written["games"]
        complete = status == "complete" and games.num_rows == len(tasks)
        failed = games.num_rows - pc.sum(pc.is_null(games.column("error"))).as_py()
        session |= {"finished": tables.now(), "games_played": played, "status": status}
        manifest["sessions"] = [*manifest.get("sessions", []), session]
        manifest |= {
            "status": "complete" if complete else status,
            "finished": session["finished"],
            "games_done": games.num_rows,
            "games_failed": failed,
            "failures": tables.failure_list(games),
        }
        tables.write_manifest(out, manifest)
        if complete:
            tables.remove_parts(out)
        elif not options.quiet:
            (options.echo or _stderr)(
                f"stopped: {games.num_rows}/{len(tasks)} games saved in {out}; "
                f"finish with: projectl-sim run --out {out} --resume"
            )
    if not options.quiet:
        rate = played / seconds if seconds else 0.0
        (options.echo or _stderr)(
            f"{played} games played in {seconds:.1f} s ({rate:.0f} games/s); "
            f"{games.num_rows}/{len(tasks)} done, {failed} failed; tables in {out}"
        )
    return RunResult(
        out, run_id, manifest["root_seed"], len(tasks), played, failed, seconds, complete, manifest
    )


# -- one game back from its row --------------------------------------------------------------
def game_from_run(run_dir: str | Path, game_id: int) -> tuple[Rules, list[Bot], int]:
    """Return the rules, bots (in seat order) and seed that replay one game of a run.

    ``play_game(*game_from_run(run, game_id))`` plays the game of that row again, move for move.
    """
    manifest = tables.read_manifest(run_dir)
    games = tables.read_table(run_dir, "games")
    rows = games.filter(pc.equal(games.column("game_id"), game_id)).to_pylist()
    if not rows:
        raise UsageError(f"{run_dir} has no game {game_id} ({games.num_rows} games in its tables)")
    row = rows[0]
    config = GameConfig.from_json(manifest["configs"][row["config_id"]])
    bots = [make_bot(spec) for spec in config.seated(row["rotation"])]
    return config.rules(), bots, row["seed"]
