"""What can be played, by name: the expansions and the variants.

An expansion module registers its hook class (``register_expansion``), a variant module its state
class (``register_variant``), when it is imported; ``import projectl_sim`` imports every shipped
one. ``Rules`` checks expansion and variant names against this registry and ``new_game`` builds
the state class of the rules' variant from it (OpenSpiel's registered games). A user's own
expansion registers the same way (docs/reference/architecture.md); nothing of the package changes.

The registry holds classes only; it imports nothing of the engine (it sits below it).
"""

from __future__ import annotations

from typing import Any

from projectl_sim.errors import RulesError

_EXPANSIONS: dict[str, Any] = {}  # name -> Expansion subclass, in registration order
_VARIANTS: dict[str, Any] = {}  # name -> GameState (sub)class


def register_expansion(cls: Any) -> Any:
    """Register an expansion's hook class under its ``name`` (a class decorator)."""
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name.isidentifier():
        raise RulesError(f"an expansion needs a name that is an identifier, got {name!r}")
    held = _EXPANSIONS.get(name)
    if held is not None and held.__qualname__ != cls.__qualname__:
        raise RulesError(f"two expansions are called {name!r}: {held.__qualname__} and {cls}")
    _EXPANSIONS[name] = cls
    return cls


def unregister_expansion(name: str) -> None:
    """Forget the expansion ``name`` (a test's own expansion, once the test is done)."""
    _EXPANSIONS.pop(name, None)


def register_variant(name: str) -> Any:
    """Return a class decorator registering a state class as the variant ``name``."""

    def register(cls: Any) -> Any:
        _VARIANTS[name] = cls
        return cls

    return register


def expansion_classes() -> tuple[Any, ...]:
    """Return every registered expansion class, in registration order."""
    return tuple(_EXPANSIONS.values())


def expansion_class(name: str) -> Any:
    """Return the registered expansion class ``name`` (``KeyError`` when there is none)."""
    return _EXPANSIONS[name]


def variant_class(name: str) -> Any:
    """Return the state class of the variant ``name`` (``KeyError`` when there is none)."""
    return _VARIANTS[name]
