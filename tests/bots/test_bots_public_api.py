"""Bots reach the game through its public API: read from their source.

No bot imports or reads a private name (a leading underscore) of the engine, an expansion or a
variant, and no bot assigns to a game state's attributes (a determinized world is the engine's
``GameState.determinize``, not a bot's own surgery). The expansions' public names a bot uses (their
action classes and block accessors) are their documented API (architecture page).
"""

from __future__ import annotations

import ast

from paths import ROOT

# the sources, read from the checkout: a compiled module's __file__ names its .so
BOTS = sorted((ROOT / "bots").glob("*.py"))
STATE_SOURCE = ROOT / "projectl_sim" / "engine" / "state.py"
# the build selector: imported first so that the bots' compiled modules match the engine's
ALLOWED_PRIVATE_MODULES = {"projectl_sim._native"}


def _state_attributes() -> set[str]:
    """Return every attribute a ``GameState`` method assigns on ``self``."""
    tree = ast.parse(STATE_SOURCE.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "GameState":
            for sub in ast.walk(node):
                if (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.ctx, ast.Store)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id in ("self", "g")
                ):
                    names.add(sub.attr)
    return names


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_state_attributes_are_found() -> None:
    found = _state_attributes()
    assert {"decks", "rows", "supply", "slots", "piles", "scores", "phase"} <= found


def test_bots_use_no_private_name_of_the_game() -> None:
    problems = []
    for path in BOTS:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("projectl_sim"):
                module = node.module or ""
                if any(_private(part) for part in module.split(".")):
                    problems.append(f"{path.name}:{node.lineno} imports from {module}")
                for alias in node.names:
                    if _private(alias.name):
                        problems.append(f"{path.name}:{node.lineno} imports {alias.name}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    private = any(_private(part) for part in alias.name.split("."))
                    if private and alias.name not in ALLOWED_PRIVATE_MODULES:
                        problems.append(f"{path.name}:{node.lineno} imports {alias.name}")
            elif isinstance(node, ast.Attribute) and _private(node.attr):
                base = node.value
                own = isinstance(base, ast.Name) and base.id in ("self", "cls")
                own = own or (
                    isinstance(base, ast.Call) and getattr(base.func, "id", "") == "super"
                )
                if not own:
                    problems.append(f"{path.name}:{node.lineno} reads .{node.attr}")
    assert problems == []


def _own_attributes(trees: list[ast.Module]) -> set[str]:
    """Return the attributes the bots' own classes assign on ``self`` (a tree node's ``n``)."""
    return {
        node.attr
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def test_bots_write_no_state_attribute() -> None:
    trees = {path.name: ast.parse(path.read_text()) for path in BOTS}
    attributes = _state_attributes() - _own_attributes(list(trees.values()))
    assert {"decks", "rows", "supply", "slots", "piles"} <= attributes
    problems = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in targets:
                chain = target
                while isinstance(chain, ast.Subscript):
                    chain = chain.value
                if not isinstance(chain, ast.Attribute) or chain.attr not in attributes:
                    continue
                root = _root(chain)
                if isinstance(root, ast.Name) and root.id in ("self", "cls"):
                    continue  # a bot's own attribute of the same name
                problems.append(f"{name}:{node.lineno} assigns .{chain.attr}")
    assert problems == []
