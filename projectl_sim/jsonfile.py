"""Reading a user's JSON file, with one-line errors that name the file and the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from projectl_sim.errors import ProjectLError


def read_text(path: Path, name: str, error: type[ProjectLError]) -> str:
    """Return the UTF-8 text of ``path``; raise ``error("<name>: ...")`` if it can't be read."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{name}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise error(f"{name}: not a UTF-8 text file") from None


def read_json(path: str | Path, what: str, error: type[ProjectLError]) -> Any:
    """Return the parsed JSON of ``path``; raise ``error("<what> <path>: ...")`` if it can't."""
    p = Path(path)
    text = read_text(p, f"{what} {p}", error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{what} {p}: malformed JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise error(f"{what} {p}: malformed JSON (nested too deeply)") from None
