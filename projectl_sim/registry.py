"""What can be played, by name: the expansions and the variants, and what each declares.

An expansion module registers its hook class (``register_expansion``), a variant module its state
class (``register_variant``), when it is imported; ``import projectl_sim`` imports every shipped
one; those of installed packages' entry points (groups ``projectl_sim.expansions`` and
``projectl_sim.variants``) are read the first time a name is not a registered one. A user's own
module registers the same way, or is loaded from a file by ``load_expansion`` / ``load_variant``
(``--expansions path/to/file.py:Class``). A class is checked for what it must be when it is
registered: a subclass of ``Expansion`` (of ``GameState`` for a variant), with a name, whose
methods named like a hook are hooks that exist and take the hook's arguments. A user's class (one
defined outside the package) then has the methods it overrides guarded: an exception they raise,
other than the package's own errors, becomes one ``PluginError`` line naming the class, the method
and the line ("your expansion black_mono raised in puzzle_completed (my_rules.py line 12):
KeyError: 3"), its traceback kept in ``detail``. The shipped classes are not wrapped: the engine's
hot loop calls them directly. Each class declares its rules options and its table columns
(``projectl_sim.options``): ``Rules`` checks expansion and variant names and options against this
registry, ``new_game`` builds the state class of the rules' variant from it (OpenSpiel's registered
games), and the command line, run grids, tables and docs read the declarations from it. Nothing of
the package changes.

The registry holds classes only; it imports nothing of the engine (it sits below it).
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import importlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from projectl_sim.errors import ProjectLError, RulesError, UsageError
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
# the class every expansion extends (``engine.hooks.Expansion``, which declares itself here: the
# registry sits below the engine); a variant extends the one registered as ``standard``
_EXPANSION_BASE: list[type] = []


class PluginError(ProjectLError):
    """A user's expansion or variant raised: the message names the class, the method and the
    line (exit 1); ``detail`` is its traceback (the command line's ``--traceback`` prints it)."""

    exit_code = 1

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


def declare_expansion_base(base: type) -> None:
    """Name the class every expansion must extend (``engine.hooks`` calls it once)."""
    _EXPANSION_BASE[:] = [base]


def _base(kind: str) -> type | None:
    if kind == "expansion":
        return _EXPANSION_BASE[0] if _EXPANSION_BASE else None
    return _VARIANTS.get("standard")


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


def _shipped(cls: type) -> bool:
    """Return whether ``cls`` is the package's own (or Python's): its methods are not guarded."""
    module = getattr(cls, "__module__", "") or ""
    return module in ("builtins", "projectl_sim") or module.startswith("projectl_sim.")


# a class given as the other kind: (that kind, what the refusal says)
_OTHER_KIND = {
    "expansion": ("variant", "a variant; give it to --variant"),
    "variant": ("expansion", "an expansion; give it to --expansions"),
}


def _check_class(kind: str, cls: Any) -> None:
    """Refuse what is not a class of the kind's base (``Expansion``, ``GameState``)."""
    base = _base(kind)
    what = "Expansion" if kind == "expansion" else "GameState (a variant's state class)"
    a_kind = "an expansion" if kind == "expansion" else "a variant"
    if not isinstance(cls, type):
        raise RulesError(f"{a_kind} must be a subclass of {what}, got {cls!r}")
    if base is not None and not issubclass(cls, base):
        other, said = _OTHER_KIND[kind]
        other_base = _base(other)
        hint = f": it is {said}" if other_base and issubclass(cls, other_base) else ""
        raise RulesError(
            f"{cls.__qualname__} is not {a_kind}: it must be a subclass of "
            f"projectl_sim.{what}{hint}"
        )


def _positional(sig: inspect.Signature) -> int | None:
    """Return how many positional arguments a signature is called with (None: any number)."""
    kinds = [p.kind for p in sig.parameters.values()]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return None
    return sum(
        k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for k in kinds
    )


def _check_methods(kind: str, name: str, cls: type) -> None:
    """Refuse a user's class with a method or declaration named like one of the base class's
    that does not exist (a misspelt hook is never called, a misspelt ``columns`` never read), or
    a hook overridden with other arguments than the engine passes."""
    base = _base(kind)
    if base is None or _shipped(cls):
        return
    known = [h for h in dir(base) if not h.startswith("__")]
    for klass in cls.__mro__:
        if _shipped(klass) or klass is object:
            continue
        for attr, value in vars(klass).items():
            if attr.startswith("__") or isinstance(value, type):
                continue
            method = callable(getattr(cls, attr, None))
            if not hasattr(base, attr):
                # a private name is compared with the private ones (a variant's _setup_table)
                alike = [h for h in known if h.startswith("_") == attr.startswith("_")]
                near = difflib.get_close_matches(attr, alike, n=1, cutoff=0.85)
                if near and len(attr) >= 5:
                    what = "hook" if method else "declaration"
                    advice = "" if attr.startswith("_") else "; name one of yours with a _"
                    raise RulesError(
                        f"{kind} {name}: {klass.__qualname__}.{attr} is no {what} of "
                        f"{base.__name__} (did you mean {near[0]}?){advice}"
                    )
                continue
            if not method:
                continue
            try:
                wanted = _positional(inspect.signature(getattr(base, attr)))
                given = inspect.signature(getattr(cls, attr))
            except (TypeError, ValueError):  # no signature to read: the call will tell
                continue
            if wanted is None:
                continue
            try:
                given.bind(*range(wanted))
            except TypeError:
                hook = ", ".join(inspect.signature(getattr(base, attr)).parameters)
                raise RulesError(
                    f"{kind} {name}: {klass.__qualname__}.{attr}({', '.join(given.parameters)}) "
                    f"does not take the arguments the engine calls it with: {attr}({hook})"
                ) from None


def _guard(kind: str, name: str, cls: type) -> None:
    """Wrap the methods a user's class overrides so that what they raise is one line
    (``PluginError``) naming the class and method; the package's own errors pass as they are."""
    base = _base(kind)
    if base is None or _shipped(cls) or "_projectl_sim_guarded" in vars(cls):
        return
    done: set[str] = set()
    for klass in cls.__mro__:
        if _shipped(klass) or klass is object:
            continue
        for attr, value in vars(klass).items():
            if attr in done or (attr != "__init__" and attr.startswith("__")):
                continue
            if attr != "__init__" and not hasattr(base, attr):
                continue  # a helper of the class's own: the hook that calls it names it
            done.add(attr)
            if isinstance(value, classmethod | staticmethod):
                if inspect.isfunction(value.__func__):
                    wrapped = _guarded(kind, name, cls, value.__func__)
                    setattr(cls, attr, type(value)(wrapped))
            elif inspect.isfunction(value):
                setattr(cls, attr, _guarded(kind, name, cls, value))
    cls._projectl_sim_guarded = True  # type: ignore[attr-defined]


def _guarded(kind: str, name: str, cls: type, fn: Callable[..., Any]) -> Callable[..., Any]:
    method = fn.__name__
    # an invariant check raises InvariantError (an AssertionError) on purpose: that is its report
    passes: tuple[type[BaseException], ...] = (
        (ProjectLError, AssertionError) if "invariants" in method else (ProjectLError,)
    )

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except passes:
            raise
        except (Exception, SystemExit) as exc:
            raise plugin_error(kind, name, cls, method, exc) from exc

    return guarded


def plugin_error(kind: str, name: str, cls: type, method: str, exc: BaseException) -> PluginError:
    """Return the one line for ``exc`` raised in ``method`` of a user's class: its name, the
    method, the file and line of that class's code it came from, the exception."""
    frames = traceback.extract_tb(exc.__traceback__)
    module = sys.modules.get(cls.__module__)
    source = getattr(module, "__file__", None)
    mine = [f for f in frames if source and f.filename == source] or frames[-1:]
    where = f" ({Path(mine[-1].filename).name} line {mine[-1].lineno})" if mine else ""
    said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, SystemExit):
        said = f"it called sys.exit({exc.code!r})"
    # from the user's method on (the first frame is the guard's own)
    tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
    detail = "".join(traceback.format_exception(type(exc), exc, tb)).rstrip()
    return PluginError(
        f"your {kind} {name} raised in {method}{where}: {said}".replace("\n", " "), detail
    )


def register_expansion(cls: Any) -> Any:
    """Register an expansion's hook class under its ``name`` (a class decorator)."""
    _check_class("expansion", cls)
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name.isidentifier():
        raise RulesError(f"an expansion needs a name that is an identifier, got {name!r}")
    _check_new("expansion", name, cls, _EXPANSIONS)
    _check_methods("expansion", name, cls)
    _guard("expansion", name, cls)
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
        if _VARIANTS:  # the first is the base game's state class itself
            _check_class("variant", cls)
        own = name or getattr(cls, "variant_name", "")
        if not isinstance(own, str) or not own.isidentifier():
            raise RulesError(f"a variant needs a name that is an identifier, got {own!r}")
        try:
            players = tuple(getattr(cls, "players", ()))
        except TypeError:
            players = ()
        if not players or not all(isinstance(p, int) and 1 <= p <= 6 for p in players):
            raise RulesError(f"variant {own}: players must list player counts 1-6, got {players}")
        _check_new("variant", own, cls, _VARIANTS)
        if _VARIANTS:
            _check_methods("variant", own, cls)
            _guard("variant", own, cls)
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
    except SystemExit as exc:  # a module that ends the process as it is imported
        raise UsageError(
            f"{what} {spec}: importing it called sys.exit({exc.code!r}){_line_of(exc, target)}"
        ) from None
    except Exception as exc:  # a user's module that does not import: one line, not a traceback
        raise UsageError(
            f"{what} {spec}: importing it failed{_line_of(exc, target)} "
            f"({type(exc).__name__}: {exc})"
        ) from None
    cls = getattr(module, attr, None)
    if not isinstance(cls, type):
        raise UsageError(f"{what} {spec}: {target} has no class {attr}")
    return cls


def _line_of(exc: BaseException, target: str) -> str:
    """Return " at line N" of the user's file an exception came from, else ""."""
    if not target.endswith(".py"):
        return ""
    path = str(Path(target).resolve())
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    return f" at line {lines[-1]}" if lines else ""


def kind_of(cls: Any) -> str | None:
    """Return "expansion" or "variant" by the class ``cls`` extends, else None."""
    for kind in ("expansion", "variant"):
        base = _base(kind)
        if base is not None and isinstance(cls, type) and issubclass(cls, base):
            return kind
    return None


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


def source_hash(spec: str) -> str | None:
    """Return a digest of the source file of a loaded class's ``FILE.py:CLASS`` or
    ``MODULE:CLASS`` (its module's file), or None when it has no file to read."""
    target = spec.rpartition(":")[0]
    if target.endswith(".py"):
        path: str | None = target
    else:
        try:
            found = importlib.util.find_spec(target)
        except (ImportError, ValueError):
            return None
        path = found.origin if found is not None else None
    try:
        data = Path(path).read_bytes() if path else None
    except OSError:
        return None
    return None if data is None else hashlib.sha256(data).hexdigest()[:16]


def users_classes(expansions: Iterable[str], variant: str) -> list[str]:
    """Return how a game's own classes are named in an error: ``your expansion creator
    (rules.py:Creator)`` for each expansion and variant played that is not the package's."""
    out = []
    for kind, name, held in [("variant", variant, _VARIANTS)] + [
        ("expansion", n, _EXPANSIONS) for n in sorted(expansions)
    ]:
        cls = held.get(name)
        if cls is not None and not _shipped(cls):
            spec = _SOURCES.get(name, ("", ""))[1]
            where = f" ({Path(spec.rpartition(':')[0]).name}:{cls.__name__})" if spec else ""
            out.append(f"your {kind} {name}{where}")
    return out


def sources() -> dict[str, list[str]]:
    """Return where each class loaded from a file or module came from: name -> [kind, spec]."""
    return {name: list(found) for name, found in _SOURCES.items()}


def load_sources(found: dict[str, Any]) -> None:
    """Load the classes a run's manifest names (``sources``) that are not registered yet."""
    for name, (kind, spec) in found.items():
        if name not in _EXPANSIONS and name not in _VARIANTS:
            (load_variant if kind == "variant" else load_expansion)(spec)


_ENTRY_POINTS_READ = False


def load_entry_points() -> bool:
    """Register the expansions and variants installed packages declare as entry points (groups
    ``projectl_sim.expansions`` and ``projectl_sim.variants``), once a process; return whether
    this call read them. Reading the installed packages' metadata costs about 0.1 s, so it is
    done when a name is not a registered one (``Rules``, ``--expansions``, ``--variant``), not at
    import. Each class is loaded as ``MODULE:CLASS``, so a run's manifest names it and its
    workers load it again."""
    global _ENTRY_POINTS_READ
    if _ENTRY_POINTS_READ:
        return False
    _ENTRY_POINTS_READ = True
    for kind, group in ENTRY_POINT_GROUPS.items():
        for point in metadata.entry_points(group=group):
            try:
                (load_expansion if kind == "expansion" else load_variant)(point.value)
            except ProjectLError as exc:
                raise RulesError(
                    f"the {kind} entry point {point.name} ({point.value}) does not load: {exc}"
                ) from None
    return True


def knows(kind: str, name: str) -> bool:
    """Return whether an expansion or variant ``name`` is registered, reading the installed
    packages' entry points first when it is not."""
    held = _EXPANSIONS if kind == "expansion" else _VARIANTS
    if name not in held:
        load_entry_points()
    return name in held
