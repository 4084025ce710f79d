"""The checkout's benchmark scripts loaded as modules, their command lines run in the test's own
process (their output captured by pytest's ``capsys``), and a written command line's options
read back (the model recipes' commands)."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest


def load_script(path: Path, name: str) -> Any:
    """Return the script at ``path`` loaded as a module named ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_main(
    module: Any, path: Path, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[Any, str, str]:
    """Run ``module.main()`` with ``argv`` as its command line; return what it returned and
    what it printed to stdout and stderr."""
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "argv", [str(path), *argv])
        code = module.main()
    out, err = capsys.readouterr()
    return code, out, err


def flags(command: str) -> dict[str, list[str]]:
    """Return a command's options and their values (an option given twice: both values)."""
    words = shlex.split(command)
    out: dict[str, list[str]] = {}
    for i, w in enumerate(words):
        if w.startswith("--"):
            value = words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("--") else ""
            out.setdefault(w, []).append(value)
    return out
