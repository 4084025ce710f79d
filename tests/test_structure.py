"""Structure the import contracts cannot see, read from the source: every package of the
checkout is in pyproject's list, so a wheel holds it. (The contracts count the imports made only
for annotations too: ``exclude_type_checking_imports = false``.)
"""

from __future__ import annotations

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
