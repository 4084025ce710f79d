"""Bots for projectl-sim, built from spec strings such as ``random`` or ``greedy:rush_black=1``."""

from __future__ import annotations

from typing import Any

import projectl_sim._native  # noqa: F401  (first: it picks the compiled or the source hot-loop modules)
from bots.base import Bot
from bots.greedy import GreedyBot
from bots.mcts import MCTSBot
from bots.random_bot import RandomBot
from projectl_sim.errors import UsageError

REGISTRY: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, GreedyBot, MCTSBot)}


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


def make_bot(spec: str) -> Bot:
    """Build a bot from its spec ``name[:key=value,...]``; unknown names or keys are errors."""
    name, _, rest = spec.strip().partition(":")
    cls = REGISTRY.get(name)
    if cls is None:
        raise UsageError(f"unknown bot {name!r} (valid: {', '.join(sorted(REGISTRY))})")
    kwargs: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq or key not in cls.params:
            valid = ", ".join(cls.params) or "none"
            raise UsageError(f"bot {name!r} has no parameter {key!r} (valid: {valid})")
        kwargs[key] = _parse_value(key, raw, cls.params[key][0])
    return cls(**kwargs)


def describe_bots() -> list[str]:
    """Return one block of text per bot: spec name, parameters with defaults, one line of what."""
    out = []
    for name in sorted(REGISTRY):
        cls = REGISTRY[name]
        lines = [f"{name}: {cls.summary}"]
        for key, (default, help_) in cls.params.items():
            lines.append(f"    {key}={default!r}  {help_}")
        out.append("\n".join(lines))
    return out


__all__ = ["REGISTRY", "Bot", "GreedyBot", "MCTSBot", "RandomBot", "describe_bots", "make_bot"]
