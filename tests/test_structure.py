"""Structure the import contracts cannot see, read from the source.

The layers contract leaves out imports made only for annotations (``if TYPE_CHECKING:``), so this
checks those against the same layers; and every package of the checkout is in pyproject's list,
so a wheel holds it.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("projectl_sim", "bots")


def _layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] == "layers":
            return [[m.strip() for m in layer.split("|")] for layer in contract["layers"]]
    raise AssertionError("no layers contract in pyproject.toml")


def _place(module: str, layers: list[list[str]]) -> tuple[int, str] | None:
    """Return (layer index, the layer's module) holding ``module``, or None."""
    for i, layer in enumerate(layers):
        for top in layer:
            if module == top or module.startswith(top + "."):
                return i, top
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_imports(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
        if name != "TYPE_CHECKING":
            continue
        for sub in node.body:
            for inner in ast.walk(sub):
                if isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                    found.append((inner.lineno, inner.module))
                elif isinstance(inner, ast.Import):
                    found.extend((inner.lineno, alias.name) for alias in inner.names)
    return found


def test_type_checking_imports_keep_the_layers() -> None:
    layers = _layers()
    problems = []
    checked = 0
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = _module_name(path)
            own = _place(source, layers)
            if own is None:
                continue
            for line, target in _type_checking_imports(ast.parse(path.read_text())):
                there = _place(target, layers)
                if there is None:
                    continue
                checked += 1
                if there[0] < own[0] or (there[0] == own[0] and there[1] != own[1]):
                    problems.append(f"{source}:{line} imports {target} (a higher layer)")
    assert checked > 5  # the engine's annotations of GameState, at least
    assert problems == []


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import bots.greedy\n"
    )
    layers = _layers()
    ((line, target),) = _type_checking_imports(tree)
    assert line == 3 and _place(target, layers)[0] < _place("projectl_sim.engine", layers)[0]


def _declared_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(config["tool"]["setuptools"]["packages"])


def _unlisted(declared: set[str]) -> set[str]:
    """Return the packages of the checkout (folders with an ``__init__.py``) not in ``declared``."""
    found = {
        _module_name(init)
        for top in PACKAGES
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    return found - declared


def test_every_package_is_installed() -> None:
    """A package missing from pyproject's list is left out of a wheel (an editable install
    hides it): every folder with an ``__init__.py`` is listed."""
    assert _unlisted(_declared_packages()) == set()


def test_the_package_check_sees_a_missing_subpackage() -> None:
    declared = _declared_packages() - {"projectl_sim.analysis.stats"}
    assert _unlisted(declared) == {"projectl_sim.analysis.stats"}


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _borrowed_private_names(path: Path, text: str | None = None) -> list[str]:
    """Return every private name ``path`` takes from another module: ``from m import _x`` or
    ``m._x`` on an imported module (a package's private submodule, such as ``_native``, is its
    own to import)."""
    tree = ast.parse(path.read_text() if text is None else text)
    modules: set[str] = set()  # local names bound to an imported module of the checkout
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if _is_module(full):
                    modules.add(alias.asname or alias.name)
                elif _private(alias.name):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {full}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and _is_module(alias.name):
                    modules.add(alias.asname)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _private(node.attr)
        ):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_module_takes_another_modules_private_names() -> None:
    found = [
        hit
        for top in PACKAGES
        for p in (ROOT / top).rglob("*.py")
        for hit in _borrowed_private_names(p)
    ]
    assert not found, (
        "private names used outside their module (give them public names):\n" + "\n".join(found)
    )


def test_the_private_name_check_sees_both_forms() -> None:
    text = (
        "from projectl_sim.sim import runner\n"
        "from projectl_sim.learn.value import _hidden\n"
        "from projectl_sim import _native\n"
        "runner._stderr('x')\n"
    )
    found = _borrowed_private_names(ROOT / "projectl_sim" / "probe.py", text)
    assert [hit.split(": ")[1] for hit in found] == [
        "projectl_sim.learn.value._hidden",
        "runner._stderr",
    ]
