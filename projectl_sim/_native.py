"""Compiled or pure: which build of the hot-loop modules this process runs.

``setup.py`` compiles the modules of ``MODULES`` (the engine, the tiling index, the variants and
expansions, the game loop and its flow recorder, the bot base class, the random bot and the planner
bots) with mypyc when it can, and records a digest of each source it compiled. Python would import
a compiled module in preference to its source even after the source is edited (an editable
install), so ``select`` (run on import, first thing in ``projectl_sim/__init__``) loads all of them
from source instead when any source differs from its build, when only some of them were built, or
when the environment sets ``PROJECTL_SIM_PURE=1``. All or none: the compiled modules call each
other natively.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType

# module -> its source, relative to the folder holding the two packages (setup.py reads this
# mapping from here: one list of what is compiled)
MODULES = {
    "projectl_sim.engine.phases": "projectl_sim/engine/phases.py",
    "projectl_sim.engine.state_data": "projectl_sim/engine/state_data.py",
    "projectl_sim.engine.checks": "projectl_sim/engine/checks.py",
    "projectl_sim.engine.moves": "projectl_sim/engine/moves.py",
    "projectl_sim.engine.rewards": "projectl_sim/engine/rewards.py",
    "projectl_sim.engine.state": "projectl_sim/engine/state.py",
    "projectl_sim.engine.hooks": "projectl_sim/engine/hooks.py",
    "projectl_sim.engine.tables": "projectl_sim/engine/tables.py",
    "projectl_sim.engine.sealed": "projectl_sim/engine/sealed.py",
    "projectl_sim.engine.dealing": "projectl_sim/engine/dealing.py",
    "projectl_sim.tiling.fill": "projectl_sim/tiling/fill.py",
    "projectl_sim.variants.solo": "projectl_sim/variants/solo.py",
    "projectl_sim.variants.line_clear": "projectl_sim/variants/line_clear.py",
    "projectl_sim.expansions.finesse": "projectl_sim/expansions/finesse.py",
    "projectl_sim.expansions.ghost_piece": "projectl_sim/expansions/ghost_piece.py",
    "projectl_sim.expansions.ambassador_pack": "projectl_sim/expansions/ambassador_pack.py",
    "projectl_sim.expansions.endless": "projectl_sim/expansions/endless.py",
    "projectl_sim.expansions.phoenix": "projectl_sim/expansions/phoenix.py",
    "projectl_sim.sim.play": "projectl_sim/sim/play.py",
    "projectl_sim.sim.flow": "projectl_sim/sim/flow.py",
    "bots.base": "bots/base.py",
    "bots.random_bot": "bots/random_bot.py",
    "bots._state": "bots/_state.py",
    "bots.heuristics": "bots/heuristics.py",
    "bots.endgame": "bots/endgame.py",
    "bots.greedy": "bots/greedy.py",
    "bots.solo_sense": "bots/solo_sense.py",
    "bots.policies": "bots/policies.py",
    "bots.mcts": "bots/mcts.py",
    "bots.features": "bots/features.py",
    "bots.value_net": "bots/value_net.py",
    "bots.value": "bots/value.py",
}
_ROOT = Path(__file__).resolve().parent.parent
_STAMP = Path(__file__).resolve().parent / "_native_stamp.json"


class _FromSource(importlib.abc.MetaPathFinder):
    """Find the compiled modules' sources first, so that their builds are never imported."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        rel = MODULES.get(fullname)
        return (
            None if rel is None else importlib.util.spec_from_file_location(fullname, _ROOT / rel)
        )


def _built(rel: str) -> bool:
    source = _ROOT / rel
    stem = source.with_suffix("")
    return any(
        Path(f"{stem}{suffix}").exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def _stale() -> list[str]:
    """Return the compiled modules whose source changed since the build (all, without a record)."""
    try:
        digests = json.loads(_STAMP.read_text())
    except (OSError, ValueError):
        return list(MODULES.values())
    return [
        rel
        for rel in MODULES.values()
        if digests.get(rel) != hashlib.sha256((_ROOT / rel).read_bytes()).hexdigest()
    ]


def pure_requested() -> bool:
    """Return whether the environment asks for the pure Python source (``PROJECTL_SIM_PURE``)."""
    return os.environ.get("PROJECTL_SIM_PURE", "") not in ("", "0")


def select() -> None:
    """Import the compiled modules when they are current, else (or when asked) their source."""
    built = [rel for rel in MODULES.values() if _built(rel)]
    if not built:
        return  # a pure install: nothing to choose
    if pure_requested():
        sys.meta_path.insert(0, _FromSource())
        return
    missing = [rel for rel in MODULES.values() if rel not in built]
    if missing:
        why = f"{', '.join(missing)} did not compile"
    else:
        stale = _stale()
        why = f"{', '.join(stale)} changed since it was compiled" if stale else ""
    if why:
        warnings.warn(
            f"projectl-sim: {why}; running the pure Python source (slower). Reinstall "
            "(pip install -e .) to compile it again.",
            stacklevel=3,
        )
        sys.meta_path.insert(0, _FromSource())


def compiled() -> bool:
    """Return whether this process runs the compiled hot-loop modules."""
    import projectl_sim.engine.state

    return not str(projectl_sim.engine.state.__file__).endswith(".py")


select()
