"""Bots for projectl-sim, built from spec strings such as ``random`` or ``greedy:risk=1.5``.

A spec is ``SOURCE[:key=value,...]``. The source is a built-in bot (``REGISTRY``), a plugin an
installed package declares in the entry point group ``projectl_sim.bots`` (its name), a class in
an importable module (``mymodule:MyBot``) or a class in a Python file (``path/to/file.py:MyBot``,
read once per process), or a prefixed source ``PREFIX:WHERE:NAME`` whose prefix an installed
package declares in the group ``projectl_sim.bot_sources`` (``rl:mypolicy:act``: a learned
policy, ``projectl_sim.rl.bridge``). A bot loaded from a module or file goes by that source in
result tables (a file by its absolute path), so any process can build it again from the table's
spec.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import projectl_sim._native  # noqa: F401  (first: it picks the compiled or the source hot-loop modules)
from bots.base import Bot
from bots.greedy import GreedyBot
from bots.mcts import MCTSBot
from bots.params import OneOf, Range, check_value
from bots.policies import BuilderBot, RecyclerBot, RusherBot, SetterBot
from bots.random_bot import RandomBot
from bots.solo_search import SoloSearchBot
from bots.value import ValueBot
from projectl_sim.errors import ProjectLError, UsageError, closest, unknown_name

REGISTRY: dict[str, type[Bot]] = {
    cls.name: cls
    for cls in (
        RandomBot,
        GreedyBot,
        BuilderBot,
        RusherBot,
        SetterBot,
        RecyclerBot,
        MCTSBot,
        ValueBot,
        SoloSearchBot,
    )
}
BUILTIN = dict(REGISTRY)
# Installed packages add bots here: [project.entry-points."projectl_sim.bots"] name = "pkg:Class"
ENTRY_POINT_GROUP = "projectl_sim.bots"
# ... and spec prefixes: [project.entry-points."projectl_sim.bot_sources"] rl = "pkg:bot_class",
# a function that returns the bot class of a whole source ("rl:mypolicy:act")
SOURCE_GROUP = "projectl_sim.bot_sources"

# module:Class or path/file.py:Class, then the parameters (":key=value,...")
_EXTERNAL = re.compile(
    r"(?P<source>(?:[^:=,]+\.py|[A-Za-z_][\w.]*):[A-Za-z_]\w*)(?::(?P<rest>.*))?"
)
_LOADED: dict[str, type[Bot]] = {}  # external sources loaded in this process


@functools.cache
def _source_prefixes() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=SOURCE_GROUP)}


def split_spec(spec: str) -> tuple[str, str]:
    """Split a bot spec into its source and its ``key=value,...`` text."""
    spec = spec.strip()
    prefix, colon, body = spec.partition(":")
    if colon and prefix in _source_prefixes():
        source, rest = split_spec(body)
        return f"{prefix}:{source}", rest
    m = _EXTERNAL.fullmatch(spec)
    if m and "=" not in m.group("source"):
        return m.group("source"), m.group("rest") or ""
    name, _, rest = spec.partition(":")
    return name, rest


def _named(cls: type[Bot], source: str) -> type[Bot]:
    """Return ``cls`` going by ``source`` in specs and tables (a subclass if it is named else);
    the name the class declares is kept as ``declared_name`` (``declared_name``)."""
    if getattr(cls, "name", None) == source:
        return cls
    declared = getattr(cls, "name", None)
    named = type(cls.__name__, (cls,), {"name": source, "__module__": cls.__module__})
    named.declared_name = declared  # type: ignore[attr-defined]
    return named


_NAME = re.compile(r"[A-Za-z_][\w.-]*")


def declared_name(source: str) -> str | None:
    """Return the name a bot loaded from a module or file declares (its class's ``name``), or
    None: a built-in or plugin bot, a class that declares none of its own (``bot``, or the name
    of the shipped bot it extends), or one that is no plain name or names another bot.

    Tables keep the spec that builds the bot again (a file by its absolute path); the analysis
    shows this name instead (the run's manifest, ``bot_names``).
    """
    cls = bot_class(source)
    name = getattr(cls, "declared_name", None)
    taken = {Bot.name, *REGISTRY, *_plugins()}
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in taken:
        return None
    return name


def _as_bot(obj: Any, source: str) -> type[Bot]:
    if not (isinstance(obj, type) and issubclass(obj, Bot)):
        raise UsageError(f"bot {source}: {obj!r} is not a bot class (a subclass of bots.Bot)")
    return _named(obj, source)


def _load_file(path: str, cls_name: str) -> type[Bot]:
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"bot file {path}: no such file")
    name = "projectl_sim_user_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, p)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before running it: dataclasses and pickle look it up
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            del sys.modules[name]
            raise UsageError(
                f"bot file {path}: cannot load it ({type(exc).__name__}: {exc})"
            ) from None
    if not hasattr(module, cls_name):
        raise UsageError(f"bot file {path} has no class {cls_name!r}")
    return _as_bot(getattr(module, cls_name), f"{path}:{cls_name}")


def _load_module(module_name: str, cls_name: str) -> type[Bot]:
    source = f"{module_name}:{cls_name}"
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())  # a module in the current folder, as with python -m
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise UsageError(f"bot {source}: no module named {exc.name!r}") from None
        raise UsageError(f"bot {source}: cannot import it ({exc})") from None
    except Exception as exc:
        raise UsageError(f"bot {source}: cannot import it ({type(exc).__name__}: {exc})") from None
    if not hasattr(module, cls_name):
        raise UsageError(f"bot {source}: module {module_name!r} has no class {cls_name!r}")
    return _as_bot(getattr(module, cls_name), source)


def _plugins() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def bot_class(source: str) -> type[Bot]:
    """Return the bot class of a spec's source (built in, plugin, ``module:Class``, file)."""
    cls = REGISTRY.get(source) or _LOADED.get(source)
    if cls is not None:
        return cls
    prefix = source.partition(":")[0]
    if ":" in source and prefix in _source_prefixes():
        ep = _source_prefixes()[prefix]
        try:
            loader = ep.load()
        except Exception as exc:
            raise UsageError(
                f"bot source {prefix}: ({ep.value}): cannot load it ({type(exc).__name__}: {exc})"
            ) from None
        cls = _as_bot(loader(source), source)
    elif ":" in source:
        where, _, cls_name = source.rpartition(":")
        if where.endswith(".py"):
            cls = _load_file(where, cls_name)
        else:
            cls = _load_module(where, cls_name)
    else:
        ep = _plugins().get(source)
        if ep is None:
            known = sorted({*REGISTRY, *_plugins()})
            more = ["MODULE:CLASS or FILE.py:CLASS"]
            raise UsageError(unknown_name("bot", source, known, more=more))
        try:
            loaded = ep.load()
        except Exception as exc:
            raise UsageError(
                f"bot plugin {source!r} ({ep.value}): cannot load it ({type(exc).__name__}: {exc})"
            ) from None
        cls = _as_bot(loaded, source)
    _LOADED[source] = cls
    return cls


def _parse_value(name: str, raw: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError:
        raise UsageError(
            f"bot parameter {name}={raw!r} is not a {type(default).__name__}"
        ) from None
    return raw


@functools.lru_cache(maxsize=256)
def _source(spec: str) -> tuple[str, str]:
    """Return a spec's source (a file by its absolute path) and its parameter text."""
    source, rest = split_spec(spec)
    prefix, colon, _ = source.partition(":")
    head = f"{prefix}:" if colon and prefix in _source_prefixes() else ""
    where, _, cls_name = source[len(head) :].rpartition(":")
    if where.endswith(".py"):
        source = f"{head}{Path(where).resolve()}:{cls_name}"
    return source, rest


@functools.lru_cache(maxsize=256)
def _kwargs(cls: type[Bot], source: str, rest: str) -> tuple[tuple[str, Any], ...]:
    """Return the checked keyword arguments of a spec's parameter text (parsed once)."""
    kwargs: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq or key not in cls.params:
            valid = ", ".join(cls.params) or "none"
            guess = closest(key, list(cls.params)) if eq else None
            hint = f"did you mean {guess!r}? " if guess else ""
            raise UsageError(f"bot {source!r} has no parameter {key!r} ({hint}valid: {valid})")
        entry = cls.params[key]
        value = _parse_value(key, raw, entry[0])
        problem = check_value(source, key, value, entry)
        if problem:
            raise UsageError(problem)
        kwargs[key] = value
    return tuple(kwargs.items())


def make_bot(spec: str) -> Bot:
    """Build a bot from its spec ``source[:key=value,...]``; a bad source, key or value is a
    ``UsageError`` (one line)."""
    source, rest = _source(spec)
    cls = bot_class(source)
    kwargs = dict(_kwargs(cls, source, rest))
    try:
        return cls(**kwargs)
    except ProjectLError:
        raise
    except Exception as exc:  # a user's bot whose __init__ fails: one line, not a traceback
        raise BotBuildError(spec, exc) from None


class BotBuildError(UsageError):
    """A bot's constructor raised: one line naming the bot, and ``cause``, what it raised."""

    def __init__(self, spec: str, cause: Exception) -> None:
        self.cause = cause
        self.cause_line = f"{type(cause).__name__}: {' '.join(str(cause).split())}".rstrip(": ")
        super().__init__(f"bot {spec}: building it raised {self.cause_line}")


def extra_bots() -> dict[str, type[Bot]]:
    """Return the bots added to ``REGISTRY`` in this process (workers must be given them)."""
    return {k: v for k, v in REGISTRY.items() if BUILTIN.get(k) is not v}


def describe_bots(names: Sequence[str] = ()) -> list[str]:
    """Return one block of text per bot: spec name, parameters with defaults, one line of what.

    ``names``: only these bots (a spec's source: ``greedy``, ``mcts:iterations=50``,
    ``FILE.py:CLASS``), in that order; an unknown one is a ``UsageError`` naming the closest.
    """
    from bots.measured import LADDER_MODEL, rating_text, rows_of

    out = [
        "strength: the skill ladder's rating (Elo scale, greedy = 0; 400 points are 10:1 odds; "
        f"2 players, value model {LADDER_MODEL}) and CPU ms a decision, as measured "
        "(bots/measured.py names each figure's command)"
    ]
    classes: dict[str, type[Bot] | str] = {}
    if names:
        for spec in names:
            source = _source(spec)[0]
            classes[source] = bot_class(source)
    else:
        classes.update(REGISTRY)
        for name in sorted(_plugins()):
            if name not in classes:
                try:
                    classes[name] = bot_class(name)
                except UsageError as exc:
                    classes[name] = str(exc)
    for name in classes if names else sorted(classes):
        cls = classes[name]
        if isinstance(cls, str):
            out.append(f"{name}: (plugin) {cls}")
            continue
        lines = [f"{name}: {cls.summary}" + ("" if name in BUILTIN else " (plugin)")]
        for row in rows_of(name) if name in BUILTIN else ():
            lines.append(
                f"  strength: {row.spec} {rating_text(row)}; cost {row.cpu_ms:.3g} ms a decision"
            )
        for key, entry in cls.params.items():
            valid = f"  [{entry[2]}]" if len(entry) > 2 else ""
            lines.append(f"    {key}={entry[0]!r}  {entry[1]}{valid}")
        out.append("\n".join(lines))
    return out


__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "REGISTRY",
    "Bot",
    "BotBuildError",
    "BuilderBot",
    "GreedyBot",
    "MCTSBot",
    "OneOf",
    "RandomBot",
    "Range",
    "RecyclerBot",
    "RusherBot",
    "SetterBot",
    "SoloSearchBot",
    "ValueBot",
    "bot_class",
    "declared_name",
    "describe_bots",
    "extra_bots",
    "make_bot",
    "split_spec",
]
