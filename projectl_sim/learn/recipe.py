"""The shipped model's recipe: the commands that train it again, read from its recipe file.

``python -m projectl_sim.learn.recipe`` prints the hash the recipe makes and its commands, each
wrapped for a terminal with a trailing backslash (paste them as they are). The recipe file
(``projectl_sim/data/models/value.recipe.json``) also holds each command's seed and the rows it
gives, to check a run against before comparing hashes, and the CPU each took when the whole
recipe was run again (it wrote the shipped file byte for byte).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from bots.value_model import SHIPPED

RECIPE = SHIPPED.parent / "value.recipe.json"
WIDTH = 92


def recipe(path: Path = RECIPE) -> dict[str, Any]:
    """Return the recipe file's contents."""
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def wrapped(command: str, width: int = WIDTH) -> str:
    """Return a command wrapped at spaces, each line but the last ending in a backslash."""
    lines = textwrap.wrap(
        command, width - 2, subsequent_indent="    ", break_on_hyphens=False, break_long_words=False
    )
    return " \\\n".join(lines)


def main() -> None:
    r = recipe()
    print(f"the shipped model {r['hash']} ({r['model']}) is trained again by:")
    for command in r["commands"]:
        print(wrapped(command))


if __name__ == "__main__":
    main()
