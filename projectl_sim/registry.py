"""What can be played, by name: the expansions and the variants, and what each declares.

An expansion module registers its hook class (``register_expansion``), a variant module its state
class (``register_variant``), when it is imported; ``import projectl_sim`` imports every shipped
one, then those of installed packages' entry points (groups ``projectl_sim.expansions`` and
``projectl_sim.variants``). A user's own module registers the same way, or is loaded from a file
by ``load_expansion`` / ``load_variant`` (``--expansions path/to/file.py:Class``). Each class
declares its rules options and its table columns (``projectl_sim.options``): ``Rules`` checks
expansion and variant names and options against this registry, ``new_game`` builds the state
class of the rules' variant from it (OpenSpiel's registered games), and the command line, run
grids, tables and docs read the declarations from it. Nothing of the package changes.

The registry holds classes only; it imports nothing of the engine (it sits below it).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from projectl_sim.errors import RulesError, UsageError
from projectl_sim.frozen import ReadOnlyDict
from projectl_sim.options import Column, Option, check_declarations

_EXPANSIONS: dict[str, Any] = {}  # name -> Expansion subclass, in registration order
_VARIANTS: dict[str, Any] = {}  # name -> GameState (sub)class
# the base game's option names (``rules.BASE_OPTIONS``): no expansion or variant may reuse one
_RESERVED: set[str] = set()
# name -> where a class loaded by ``load_expansion`` / ``load_variant`` came from ("FILE:CLASS"
# or "MODULE:CLASS"), so that a run's manifest names it and its readers load it again
_SOURCES: dict[str, tuple[str, str]] = {}
ENTRY_POINT_GROUPS = {"expansion": "projectl_sim.expansions", "variant": "projectl_sim.variants"}
# What the registered classes declare, by question (``declared_options``, ``data_names``): worked
# out once and kept until a class is registered or forgotten, which empties it. Every ``Rules``
# reads it when it is built (a study builds thousands).
_DECLARED: dict[str, Any] = {}


def reserve_options(names: set[str]) -> None:
    """Keep the base game's option names from being declared by an expansion or variant."""
    _RESERVED.update(names)


def _declared(cls: Any) -> tuple[tuple[Option, ...], tuple[Column, ...]]:
    return tuple(getattr(cls, "options", ())), tuple(getattr(cls, "columns", ()))


def _check_new(kind: str, name: str, cls: Any, held: dict[str, Any]) -> None:
    """Refuse a class whose declarations clash with the base game's or another class's."""
    options, columns = _declared(cls)
    check_declarations(f"{kind} {name}", options, columns)
    for option in options:
        if option.name in _RESERVED:
            raise RulesError(f"{kind} {name}: option {option.name!r} is the base game's")
        owner = option_owner(option.name)
        if owner is not None and owner[1] != name:
            raise RulesError(
                f"{kind} {name}: option {option.name!r} is declared by the {owner[0]} {owner[1]}"
            )
    for column in columns:
        for other_kind, other, other_cls in _every_class():
            if other == name and other_kind == kind:
                continue
            if any(
                (c.table, c.name) == (column.table, column.name) for c in _declared(other_cls)[1]
            ):
                raise RulesError(
                    f"{kind} {name}: the {column.table} column {column.name!r} is declared by "
                    f"the {other_kind} {other}"
                )
    previous = held.get(name)
    if previous is not None and previous.__qualname__ != cls.__qualname__:
        raise RulesError(f"two {kind}s are called {name!r}: {previous.__qualname__} and {cls}")


def register_expansion(cls: Any) -> Any:
    """Register an expansion's hook class under its ``name`` (a class decorator)."""
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name.isidentifier():
        raise RulesError(f"an expansion needs a name that is an identifier, got {name!r}")
    _check_new("expansion", name, cls, _EXPANSIONS)
    _EXPANSIONS[name] = cls
    _DECLARED.clear()
    return cls


def unregister_expansion(name: str) -> None:
    """Forget the expansion ``name`` (a test's own expansion, once the test is done)."""
    _EXPANSIONS.pop(name, None)
    _SOURCES.pop(name, None)
    _DECLARED.clear()


def register_variant(name: str | None = None) -> Any:
    """Return a class decorator registering a state class as a variant: ``name``, else the
    class's ``variant_name``. The class declares ``players`` (the counts it is for), and its
    ``options`` and ``columns``."""

    def register(cls: Any) -> Any:
        own = name or getattr(cls, "variant_name", "")
        if not isinstance(own, str) or not own.isidentifier():
            raise RulesError(f"a variant needs a name that is an identifier, got {own!r}")
        players = tuple(getattr(cls, "players", ()))
        if not players or not all(isinstance(p, int) and 1 <= p <= 6 for p in players):
            raise RulesError(f"variant {own}: players must list player counts 1-6, got {players}")
        _check_new("variant", own, cls, _VARIANTS)
        _VARIANTS[own] = cls
        _DECLARED.clear()
        return cls

    return register


def unregister_variant(name: str) -> None:
    """Forget the variant ``name`` (a test's own variant, once the test is done)."""
    _VARIANTS.pop(name, None)
    _SOURCES.pop(name, None)
    _DECLARED.clear()


def data_names() -> dict[str, str]:
    """Return the keyword of each registered expansion's data (its class's ``data_name``:
    ``finesse_tiles``) -> the expansion's name (read-only)."""
    found = _DECLARED.get("data_names")
    if found is None:
        found = _DECLARED["data_names"] = ReadOnlyDict(
            {
                cls.data_name: cls.name
                for cls in _EXPANSIONS.values()
                if getattr(cls, "data_name", "")
            }
        )
    return found


def expansion_classes() -> tuple[Any, ...]:
    """Return every registered expansion class, in registration order."""
    return tuple(_EXPANSIONS.values())


def expansion_class(name: str) -> Any:
    """Return the registered expansion class ``name`` (``KeyError`` when there is none)."""
    return _EXPANSIONS[name]


def variant_class(name: str) -> Any:
    """Return the state class of the variant ``name`` (``KeyError`` when there is none)."""
    return _VARIANTS[name]


def variant_names() -> tuple[str, ...]:
    """Return every registered variant's name: ``standard`` first, then by their fewest players
    (``solo``, ``line_clear``, then users' in registration order among equals)."""
    rest = sorted(
        (n for n in _VARIANTS if n != "standard"), key=lambda n: min(_VARIANTS[n].players)
    )
    return (*(["standard"] if "standard" in _VARIANTS else []), *rest)


def variant_players() -> dict[str, tuple[int, ...]]:
    """Return each variant's player counts."""
    return {name: tuple(_VARIANTS[name].players) for name in variant_names()}


def _every_class() -> list[tuple[str, str, Any]]:
    return [("variant", n, c) for n, c in _VARIANTS.items()] + [
        ("expansion", n, c) for n, c in _EXPANSIONS.items()
    ]


def option_owner(option: str) -> tuple[str, str] | None:
    """Return ``(kind, name)`` of the expansion or variant declaring ``option``, else None."""
    for kind, name, cls in _every_class():
        if any(o.name == option for o in _declared(cls)[0]):
            return kind, name
    return None


def declared_options() -> dict[str, Option]:
    """Return every option the registered variants and expansions declare, by name (read-only)."""
    found = _DECLARED.get("options")
    if found is None:
        found = _DECLARED["options"] = ReadOnlyDict(
            {o.name: o for _, _, cls in _every_class() for o in _declared(cls)[0]}
        )
    return found


def declared_columns(table: str) -> dict[str, tuple[Column, str]]:
    """Return every column of ``table`` (seats, games) the registered classes declare: name ->
    (column, the declaring expansion's or variant's name), variants first, in registration
    order."""
    out: dict[str, tuple[Column, str]] = {}
    for _, name, cls in _every_class():
        for column in _declared(cls)[1]:
            if column.table == table:
                out[column.name] = (column, name)
    return out


def options_of(kind: str, name: str) -> tuple[Option, ...]:
    """Return the options a registered expansion or variant declares."""
    held = _EXPANSIONS if kind == "expansion" else _VARIANTS
    return _declared(held[name])[0]


# -- users' classes from a file, a module or an installed package's entry point ---------------
def is_class_spec(text: str) -> bool:
    """Return whether ``text`` names a class to load (``FILE.py:CLASS`` or ``MODULE:CLASS``)."""
    target, colon, attr = text.rpartition(":")
    return bool(colon and target and attr.isidentifier())


def _load_class(spec: str, what: str) -> Any:
    target, _, attr = spec.rpartition(":")
    try:
        if target.endswith(".py"):
            path = Path(target).resolve()
            if not path.is_file():
                raise UsageError(f"{what} {spec}: no file {target}")
            module_name = f"projectl_sim_user_{path.stem}_{abs(hash(str(path)))}"
            module = sys.modules.get(module_name)
            if module is None:
                loader = importlib.util.spec_from_file_location(module_name, path)
                if loader is None or loader.loader is None:
                    raise UsageError(f"{what} {spec}: cannot import {target}")
                module = importlib.util.module_from_spec(loader)
                sys.modules[module_name] = module
                try:
                    loader.loader.exec_module(module)
                except BaseException:
                    del sys.modules[module_name]
                    raise
        else:
            module = importlib.import_module(target)
    except UsageError:
        raise
    except RulesError as exc:
        raise UsageError(f"{what} {spec}: {exc}") from None
    except Exception as exc:  # a user's module that does not import: one line, not a traceback
        raise UsageError(
            f"{what} {spec}: importing it failed ({type(exc).__name__}: {exc})"
        ) from None
    cls = getattr(module, attr, None)
    if not isinstance(cls, type):
        raise UsageError(f"{what} {spec}: {target} has no class {attr}")
    return cls


def load_class(spec: str) -> Any:
    """Return the class ``FILE.py:CLASS`` or ``MODULE:CLASS`` (imported once; ``UsageError``
    for one that does not load)."""
    return _load_class(spec, "class")


def _source(spec: str) -> str:
    target, _, attr = spec.rpartition(":")
    return f"{Path(target).resolve()}:{attr}" if target.endswith(".py") else spec


def load_expansion(spec: str) -> str:
    """Load (and register) the expansion class ``FILE.py:CLASS`` or ``MODULE:CLASS``; return its
    name. Loading it again is harmless."""
    cls = _load_class(spec, "expansion")
    name = getattr(cls, "name", "")
    try:
        if _EXPANSIONS.get(name) is not cls:
            register_expansion(cls)
    except RulesError as exc:
        raise UsageError(f"expansion {spec}: {exc}") from None
    _SOURCES[name] = ("expansion", _source(spec))
    return str(name)


def load_variant(spec: str) -> str:
    """Load (and register) the variant state class ``FILE.py:CLASS`` or ``MODULE:CLASS``; return
    its name (the class's ``variant_name``)."""
    cls = _load_class(spec, "variant")
    name = getattr(cls, "variant_name", "")
    try:
        if _VARIANTS.get(name) is not cls:
            register_variant()(cls)
    except RulesError as exc:
        raise UsageError(f"variant {spec}: {exc}") from None
    _SOURCES[name] = ("variant", _source(spec))
    return str(name)


def sources() -> dict[str, list[str]]:
    """Return where each class loaded from a file or module came from: name -> [kind, spec]."""
    return {name: list(found) for name, found in _SOURCES.items()}


def load_sources(found: dict[str, Any]) -> None:
    """Load the classes a run's manifest names (``sources``) that are not registered yet."""
    for name, (kind, spec) in found.items():
        if name not in _EXPANSIONS and name not in _VARIANTS:
            (load_variant if kind == "variant" else load_expansion)(spec)


def load_entry_points() -> None:
    """Register the expansions and variants installed packages declare as entry points."""
    for kind, group in ENTRY_POINT_GROUPS.items():
        for point in metadata.entry_points(group=group):
            try:
                cls = point.load()
            except Exception as exc:
                raise RulesError(
                    f"the {kind} entry point {point.name} ({point.value}) does not load: {exc}"
                ) from None
            if kind == "expansion":
                if _EXPANSIONS.get(getattr(cls, "name", "")) is not cls:
                    register_expansion(cls)
            elif _VARIANTS.get(getattr(cls, "variant_name", "")) is not cls:
                register_variant()(cls)
