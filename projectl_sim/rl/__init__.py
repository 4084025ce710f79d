"""Project L for learning agents: a PettingZoo environment, a Gymnasium wrapper, an OpenSpiel game.

- ``projectl_sim.rl.env(players=2, variant="standard", expansions=(), **rules options)``: the
  PettingZoo AEC environment with PettingZoo's usual wrappers; ``raw_env(...)`` without them
  (``projectl_sim.rl.aec``).
- ``import projectl_sim.rl`` registers ``projectl_sim/ProjectL-v0`` with Gymnasium (when it is
  installed): one seat learns, the others are projectl-sim bots (``opponents="greedy,greedy"``;
  ``projectl_sim.rl.gym_env``).
- ``import projectl_sim.rl.openspiel`` registers ``python_project_l`` with OpenSpiel.
- ``--bots rl:module:callable`` seats a PettingZoo or OpenSpiel policy at a projectl-sim table
  (``projectl_sim.rl.bridge``).

The tokens and observations they share are ``projectl_sim.rl.codec``'s; the libraries are the
``rl`` extra (``pip install 'projectl-sim[rl]'``), imported only by the module that needs one.
"""

from __future__ import annotations

from typing import Any

_LAZY = {"env": "projectl_sim.rl.aec", "raw_env": "projectl_sim.rl.aec"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'projectl_sim.rl' has no attribute {name!r}")
    import importlib

    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as exc:
        if exc.name in ("pettingzoo", "gymnasium"):
            raise ModuleNotFoundError(
                f"projectl_sim.rl.{name} needs {exc.name}: pip install 'projectl-sim[rl]'",
                name=exc.name,
            ) from None
        raise


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ModuleNotFoundError:
        return  # the rl extra is not installed: env() says how to install it
    if "projectl_sim/ProjectL-v0" not in gymnasium.registry:
        gymnasium.register(
            id="projectl_sim/ProjectL-v0", entry_point="projectl_sim.rl.gym_env:ProjectLEnv"
        )


_register_gymnasium()

__all__ = ["env", "raw_env"]
