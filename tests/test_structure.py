"""Structure the import contracts cannot see, read from the source: every package of the
checkout is in pyproject's list, so a wheel holds it, no module takes another module's private
names, and no package calls the private methods of another package's objects. (The contracts count
the imports made only for annotations too: ``exclude_type_checking_imports = false``.)
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("projectl_sim", "bots")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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


def _private_defs(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Return the private methods a module's classes define, and every private function or
    method it defines."""
    methods: set[str] = set()
    defined: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _private(item.name):
                    methods.add(item.name)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
            defined.add(node.name)
    return methods, defined


def _borrowed_private_methods(sources: dict[Path, str]) -> list[str]:
    """Return every ``x._m`` in ``sources`` (path -> text) where ``_m`` is a private method of a
    class of another package and no function of the caller's own package has that name; ``self``,
    ``cls`` and ``super()`` are the object's own. By name, not type: a package's private names
    are its own (the engine's modules share the state's hooks), and a name both packages define
    counts as the caller's."""
    trees = {path: ast.parse(text) for path, text in sources.items()}
    methods: dict[Path, set[str]] = {}  # package folder -> private methods its classes define
    defined: dict[Path, set[str]] = {}  # package folder -> its private functions and methods
    for path, tree in trees.items():
        mine, every = _private_defs(tree)
        methods.setdefault(path.parent, set()).update(mine)
        defined.setdefault(path.parent, set()).update(every)
    found = []
    for path, tree in trees.items():
        others = set().union(*(m for pkg, m in methods.items() if pkg != path.parent))
        foreign = others - defined[path.parent]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr in foreign):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and ast.unparse(owner.func) == "super":
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            found.append(f"{where}: {ast.unparse(owner)}.{node.attr}")
    return found


def test_no_package_calls_another_packages_private_methods() -> None:
    sources = {p: p.read_text() for top in PACKAGES for p in (ROOT / top).rglob("*.py")}
    assert _borrowed_private_methods(sources) == []  # each: give the method a public name


def test_the_private_method_check_sees_a_call_from_another_package() -> None:
    bot = (
        "class Scorer:\n"
        "    def _after(self, s):\n"
        "        return s\n"
        "    def act(self, s):\n"
        "        return self._after(s)\n"
    )
    caller = (
        "from bots.scorer import Scorer\n"
        "class Mine(Scorer):\n"
        "    def act(self, s):\n"
        "        return super()._after(s)\n"
        "def label(bot, s):\n"
        "    return bot._after(s)\n"
    )
    sources = {
        ROOT / "bots" / "scorer.py": bot,
        ROOT / "bots" / "rival.py": "def turn(bot, s):\n    return bot._after(s)\n",
        ROOT / "projectl_sim" / "learn" / "probe.py": caller,
    }
    assert _borrowed_private_methods(sources) == ["projectl_sim/learn/probe.py:6: bot._after"]
