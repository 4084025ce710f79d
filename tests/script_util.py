"""The checkout's benchmark scripts loaded as modules, their command lines run in the test's own
process (their output captured by pytest's ``capsys``), and a written command line's options
read back (the model recipes' commands)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
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


def oracle_rows(argv: list[str], root: Path, out: Path) -> tuple[int, str]:
    """Run the oracle command ``argv`` (the checkout ``root`` on its path) in ``out``'s folder;
    return how many rows it wrote to ``out`` and their digest as the model recipes record it
    (sha256 of x rounded to 6 decimals, margin, win)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(argv, cwd=out.parent, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    with np.load(out) as rows:
        digest = hashlib.sha256()
        digest.update(np.round(rows["x"], 6).tobytes())
        digest.update(rows["margin"].tobytes())
        digest.update(rows["win"].tobytes())
        return len(rows["x"]), digest.hexdigest()
