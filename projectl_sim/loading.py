"""Catalogue files and the shipped puzzle sets: reading, checking and combining them.

A file is checked entry by entry (each mistake one ``CatalogueError`` line naming the entry), and
every puzzle's recess must be fillable with the catalogue's pieces: that check is the fillability
module's, which is why loading lives here, above ``projectl_sim.tiling.fill``, and the data model
(``projectl_sim.catalogue``) below it. The shipped base catalogue and each combination of shipped
sets are loaded once per process (the engine and the tiling index cache per catalogue object).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from projectl_sim.catalogue import (
    CATALOGUE_FORMAT,
    COLOURS,
    EXPANSION_FILES,
    EXPANSIONS,
    SIZE,
    SPECIAL_REWARDS,
    Catalogue,
    CatalogueError,
    Mask25,
    Piece,
    Puzzle,
    normalise,
    orientations,
)
from projectl_sim.jsonfile import read_json
from projectl_sim.tiling.fill import can_tile

# the most points a puzzle may be worth (a catalogue's or ``--rule points.ID``): far above any
# printed card (5), and scores stay small whole numbers in every table
MAX_POINTS = 99


def _fail(where: str, problem: str) -> CatalogueError:
    return CatalogueError(f"{where}: {problem}")


def _parse_pieces(raw: Any, *, allow_empty: bool = False) -> tuple[Piece, ...]:
    if raw is None and allow_empty:
        return ()
    if not isinstance(raw, dict) or not (raw or allow_empty):
        raise _fail("pieces", "must be a non-empty object of piece id -> piece")
    pieces = []
    for i, (pid, spec) in enumerate(raw.items()):
        where = f"piece {pid}"
        if pid in SPECIAL_REWARDS:
            raise _fail(where, "the name is reserved for a reward that is not a piece")
        if not isinstance(spec, dict):
            raise _fail(where, "must be an object")
        cells_raw = spec.get("cells")
        if not isinstance(cells_raw, list | tuple):
            raise _fail(where, "cells must be a list of [row, col] pairs")
        try:
            cells = tuple((int(r), int(c)) for r, c in cells_raw)
        except (TypeError, ValueError):
            raise _fail(where, "cells must be a list of [row, col] pairs") from None
        if not cells or len(set(cells)) != len(cells):
            raise _fail(where, "cells must be distinct and non-empty")
        if any(not (0 <= r < SIZE and 0 <= c < SIZE) for r, c in cells):
            raise _fail(where, "cells must lie within a 5x5 grid")
        level = spec.get("level", len(cells))
        if not isinstance(level, int) or level != len(cells):
            raise _fail(where, f"level {level!r} does not equal its {len(cells)} cells")
        copies = spec.get("copies", 15)
        if not isinstance(copies, int) or copies < 0:
            raise _fail(where, f"copies must be a whole number >= 0, got {copies!r}")
        n_orient = spec.get("orientations")
        if n_orient is not None and n_orient != len(orientations(cells)):
            raise _fail(
                where, f"says {n_orient} orientations but its shape has {len(orientations(cells))}"
            )
        pieces.append(
            Piece(pid, i, level, cells, copies, str(spec.get("hex", spec.get("colour", "#888888"))))
        )
    return tuple(pieces)


def _parse_rows(where: str, rows: Any) -> Mask25:
    if not isinstance(rows, list) or len(rows) != SIZE:
        raise _fail(where, f"rows must be a list of {SIZE} strings")
    mask = 0
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != SIZE:
            raise _fail(where, f"row {r} {row!r} must be {SIZE} characters of '#' and '.'")
        for c, ch in enumerate(row):
            if ch == "#":
                mask |= 1 << (r * SIZE + c)
            elif ch != ".":
                raise _fail(where, f"row {r} {row!r} has {ch!r}; use '#' and '.' only")
    if not mask:
        raise _fail(where, "empty recess (no '#' cell)")
    return mask


def _flag(where: str, value: Any, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise _fail(where, f"provisional must be true or false, got {value!r}")
    return value


def _check_reward(where: str, reward: Any, piece_ids: Collection[str]) -> None:
    if reward not in piece_ids and reward not in SPECIAL_REWARDS:
        raise _fail(
            where,
            f"unknown reward piece {reward!r} (a piece id or one of {', '.join(SPECIAL_REWARDS)})",
        )


def _parse_puzzles(
    raw: Any, piece_ids: Collection[str] | None, *, provisional: bool, expansion: str
) -> tuple[Puzzle, ...]:
    """Parse a puzzle list; rewards are checked against ``piece_ids`` unless it is None."""
    if not isinstance(raw, list) or not raw:
        raise _fail("puzzles", "must be a non-empty list")
    puzzles: list[Puzzle] = []
    seen: set[str] = set()
    for i, spec in enumerate(raw):
        if not isinstance(spec, dict):
            raise _fail(f"puzzle #{i}", "must be an object")
        pid = spec.get("id")
        if not isinstance(pid, str) or not pid:
            raise _fail(f"puzzle #{i}", "missing id")
        where = f"puzzle {pid}"
        if pid in seen:
            raise _fail(where, "duplicate id")
        seen.add(pid)
        colour = spec.get("colour")
        if colour not in COLOURS:
            raise _fail(where, f"colour {colour!r} must be 'white' or 'black'")
        points = spec.get("points")
        if not isinstance(points, int) or isinstance(points, bool) or not 0 <= points <= MAX_POINTS:
            raise _fail(where, f"points {points!r} must be a whole number 0-{MAX_POINTS}")
        reward = spec.get("reward")
        if not isinstance(reward, str):
            raise _fail(where, f"reward {reward!r} must be a piece id or a reward name")
        if piece_ids is not None:
            _check_reward(where, reward, piece_ids)
        recess = _parse_rows(where, spec.get("rows"))
        # A puzzle of a provisional file is provisional unless it says otherwise.
        is_provisional = _flag(where, spec.get("provisional"), provisional)
        puzzles.append(Puzzle(pid, i, colour, points, reward, recess, is_provisional, expansion))
    return tuple(puzzles)


def _check_format(data: Any) -> None:
    if not isinstance(data, dict):
        raise _fail("catalogue", "must be a JSON object with 'pieces' and 'puzzles'")
    fmt = data.get("format", CATALOGUE_FORMAT)
    if fmt != CATALOGUE_FORMAT:
        raise _fail("catalogue", f"unknown format {fmt!r} (expected {CATALOGUE_FORMAT!r})")


def catalogue_from_dict(
    data: Any, *, source: str = "<dict>", check_fillable: bool = True
) -> Catalogue:
    """Build and validate a whole catalogue from its parsed JSON form."""
    _check_format(data)
    if "expansion" in data:
        raise _fail(
            "catalogue",
            f"is the expansion puzzle set {data['expansion']!r}, not a whole catalogue "
            f"(load it as an expansion: --expansions {data['expansion']}=FILE)",
        )
    pieces = _parse_pieces(data.get("pieces"))
    file_provisional = _flag("catalogue", data.get("provisional"), False)
    puzzles = _parse_puzzles(
        data.get("puzzles"), {p.id for p in pieces}, provisional=False, expansion="base"
    )
    name = str(data.get("name", "custom" if source != "builtin" else "base"))
    provisional = file_provisional or any(p.provisional for p in puzzles)
    cat = Catalogue(
        pieces,
        puzzles,
        name=name,
        source=source,
        provisional=provisional,
        provisional_sets=(name,) if provisional else (),
    )
    if check_fillable:
        counts = tuple(p.copies for p in pieces)
        for puzzle in cat.puzzles:
            if not can_tile(cat, puzzle.recess, counts):
                raise _fail(f"puzzle {puzzle.id}", "no combination of pieces can fill its recess")
    return cat


@dataclass(frozen=True)
class PuzzleSet:
    """An expansion's pieces and puzzles as read from its file, before they join a catalogue.

    Rewards are checked when the set is combined: they may name pieces of the base game.
    """

    name: str
    pieces: tuple[Piece, ...]
    puzzles: tuple[Puzzle, ...]
    provisional: bool = False
    design: str = ""
    source: str = "builtin"


def puzzle_set_from_dict(data: Any, name: str, *, source: str = "<dict>") -> PuzzleSet:
    """Build and validate one expansion puzzle set from its parsed JSON form."""
    _check_format(data)
    declared = data.get("expansion", name)
    if declared != name:
        raise _fail("catalogue", f"is the expansion puzzle set {declared!r}, not {name!r}")
    design = data.get("design", "")
    if not isinstance(design, str):
        raise _fail("catalogue", "design must be a string")
    provisional = _flag("catalogue", data.get("provisional"), False)
    return PuzzleSet(
        name,
        _parse_pieces(data.get("pieces"), allow_empty=True),
        _parse_puzzles(data.get("puzzles"), None, provisional=provisional, expansion=name),
        provisional,
        design,
        source,
    )


def _same_piece(a: Piece, b: Piece) -> bool:
    return (
        a.level == b.level and a.copies == b.copies and normalise(b.cells) in orientations(a.cells)
    )


def combine(
    base: Catalogue, sets: Iterable[PuzzleSet], *, check_fillable: bool = True
) -> Catalogue:
    """Return ``base`` with the sets' new pieces and puzzles appended, validated together."""
    sets = tuple(sets)
    pieces = list(base.pieces)
    by_id = {p.id: p for p in pieces}
    puzzles = list(base.puzzles)
    seen = {p.id: base.name for p in puzzles}
    names: list[str] = []
    for s in sets:
        if s.name in names or s.name in base.expansions:
            raise _fail(f"expansion {s.name}", "is added twice")
        names.append(s.name)
        for piece in s.pieces:
            known = by_id.get(piece.id)
            if known is None:
                by_id[piece.id] = replace(piece, index=len(pieces))
                pieces.append(by_id[piece.id])
            elif not _same_piece(known, piece):
                raise _fail(f"{s.name}: piece {piece.id}", "differs from the piece of that id")
    for s in sets:
        for puzzle in s.puzzles:
            where = f"{s.name}: puzzle {puzzle.id}"
            if puzzle.id in seen:
                raise _fail(where, f"duplicate id (also in {seen[puzzle.id]})")
            seen[puzzle.id] = s.name
            _check_reward(where, puzzle.reward, by_id)
            puzzles.append(replace(puzzle, index=len(puzzles)))
    provisional_sets = base.provisional_sets + tuple(
        s.name for s in sets if s.provisional or any(p.provisional for p in s.puzzles)
    )
    sources = [base.source, *(s.source for s in sets)]
    cat = Catalogue(
        tuple(pieces),
        tuple(puzzles),
        name="+".join((base.name, *names)),
        source="builtin" if set(sources) == {"builtin"} else "+".join(sources),
        provisional=base.provisional or bool(provisional_sets),
        expansions=base.expansions + tuple(names),
        provisional_sets=provisional_sets,
    )
    if check_fillable:
        counts = tuple(p.copies for p in cat.pieces)
        for puzzle in cat.puzzles[len(base.puzzles) :]:
            if not can_tile(cat, puzzle.recess, counts):
                raise _fail(
                    f"{puzzle.expansion}: puzzle {puzzle.id}",
                    "no combination of pieces can fill its recess",
                )
    return cat


def with_puzzle_changes(
    cat: Catalogue, points: Mapping[str, int], rewards: Mapping[str, str]
) -> Catalogue:
    """Return ``cat`` with some puzzles' points and rewards changed (ids checked by the caller).

    One object per catalogue and changes, per process: the engine's tables and the tiling index
    cache per catalogue object. The result's ``original`` is ``cat``.
    """
    key = (id(cat), tuple(sorted(points.items())), tuple(sorted(rewards.items())))
    hit = _CHANGED.get(key)
    if hit is not None and hit[0] is cat:
        return hit[1]
    puzzles = tuple(
        replace(p, points=points.get(p.id, p.points), reward=rewards.get(p.id, p.reward))
        for p in cat.puzzles
    )
    changed = Catalogue(
        cat.pieces,
        puzzles,
        name=cat.name,
        source=cat.source,
        provisional=cat.provisional,
        expansions=cat.expansions,
        provisional_sets=cat.provisional_sets,
        original=cat,
    )
    if len(_CHANGED) >= 256:
        _CHANGED.clear()
    _CHANGED[key] = (cat, changed)
    return changed


def with_shipped_sets(base: Catalogue, names: Iterable[str]) -> Catalogue:
    """Return ``base`` (a catalogue without expansion sets) with the shipped sets ``names``."""
    sets = expansion_names(names)
    if base is base_catalogue():
        return load_catalogue(expansions=sets)  # one object per combination
    return combine(base, [_read_puzzle_set(n, None) for n in sets])


def _read_puzzle_set(name: str, path: str | Path | None) -> PuzzleSet:
    if path is None:
        text = resources.files("projectl_sim").joinpath(EXPANSION_FILES[name]).read_text("utf-8")
        return puzzle_set_from_dict(json.loads(text), name, source="builtin")
    p = Path(path)
    data = read_json(p, f"expansion {name} file", CatalogueError)
    try:
        return puzzle_set_from_dict(data, name, source=str(p))
    except CatalogueError as exc:
        raise CatalogueError(f"expansion {name} file {p}: {exc}") from None


def expansion_names(expansions: Iterable[str]) -> tuple[str, ...]:
    """Return expansion names checked and in their canonical order; raise for an unknown one."""
    wanted = {expansions} if isinstance(expansions, str) else set(expansions)
    unknown = sorted(wanted - set(EXPANSIONS))
    if unknown:
        raise CatalogueError(
            f"unknown expansion {unknown[0]!r} (puzzle sets: {', '.join(EXPANSIONS)})"
        )
    return tuple(name for name in EXPANSIONS if name in wanted)


def load_catalogue(
    path: str | Path | None = None,
    *,
    expansions: Iterable[str] = (),
    overrides: Mapping[str, str | Path] | None = None,
) -> Catalogue:
    """Load a catalogue (the shipped base when ``path`` is None) with expansion puzzle sets.

    ``expansions`` names the sets to add (``EXPANSIONS``); ``overrides`` maps some of them to
    files of the user's own that replace the shipped (provisional) data.
    """
    names = expansion_names(expansions)
    overrides = dict(overrides or {})
    stray = sorted(set(overrides) - set(names))
    if stray:
        raise CatalogueError(f"a file replaces expansion {stray[0]!r}, which is not switched on")
    if path is None:
        base = base_catalogue()
    else:
        p = Path(path)
        data = read_json(p, "catalogue", CatalogueError)
        try:
            base = catalogue_from_dict(data, source=str(p))
        except CatalogueError as exc:
            raise CatalogueError(f"catalogue {p}: {exc}") from None
    if not names:
        return base
    shipped = path is None and not overrides
    if shipped and names in _COMBINED:
        return _COMBINED[names]
    # the shipped sets' puzzles are fillable: tests/test_catalogue.py checks every combination
    # once, instead of every process that loads them (a few tenths of a CPU second each)
    sets = [_read_puzzle_set(n, overrides.get(n)) for n in names]
    cat = combine(base, sets, check_fillable=not shipped)
    if shipped:
        _COMBINED[names] = cat  # one object per combination: the engine and index cache on it
    return cat


_BASE: list[Catalogue] = []
# shipped expansion names -> the base game with them, loaded once per process
_COMBINED: dict[tuple[str, ...], Catalogue] = {}
# (catalogue id, points, rewards) -> (that catalogue, it with the changes), per process
_CHANGED: dict[tuple[Any, ...], tuple[Catalogue, Catalogue]] = {}


def base_catalogue() -> Catalogue:
    """Return the shipped base catalogue (9 pieces, 52 puzzles), loaded once per process."""
    if not _BASE:
        text = (
            resources.files("projectl_sim").joinpath("data/base_catalogue.json").read_text("utf-8")
        )
        # Every puzzle of the shipped base is fillable: tests/tiling/test_fill.py checks that once,
        # instead of every process (the check is a third of a CPU second, paid by each worker
        # and each command). A user's catalogue is always checked.
        data = json.loads(text)
        _BASE.append(catalogue_from_dict(data, source="builtin", check_fillable=False))
    return _BASE[0]
