"""The speed worker of ``benchmarks/bots.py``: one bot's decisions on the positions of saved games.

Run by ``benchmarks/bots.py`` with each build's interpreter (this build's and, with
``--baseline PYTHON``, another checkout's), so both builds decide the very same positions:
``python benchmarks/_bot_speed.py GAMES.json SPEC [EVERY]`` replays every game of the file (a JSON
list of game records) and, at every ``EVERY``-th Play decision (1: all of them), asks the bot
``SPEC`` for its decision (timed: CPU time of this process), then plays on with the record's own
action, so the positions never depend on the bot timed. The first game is played untimed first
(the tiling index and caches warm up as they would in a run). Prints one JSON line: decisions,
their CPU seconds, MCTS iterations, and the build (compiled or pure).

Only public names are used here, imported from where either layout keeps them: the other build
may be an older checkout (before the engine became a package).
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from bots import make_bot  # noqa: E402
from projectl_sim.engine import PLAY  # noqa: E402

try:  # the engine as a package (projectl_sim.engine.actions, .record, .state)
    from projectl_sim.engine import state as _engine_module
    from projectl_sim.engine.actions import from_json
    from projectl_sim.engine.record import start_state
except ImportError:  # an older checkout: one engine module
    from projectl_sim.actions import from_json  # type: ignore[no-redef]
    from projectl_sim.record import start_state  # type: ignore[no-redef]

    from projectl_sim import engine as _engine_module  # type: ignore[no-redef]


def decide_all(records: list[dict], spec: str, every: int, timed: bool) -> tuple[int, float, int]:
    """Return (decisions, CPU seconds, iterations) of ``spec`` on the records' positions."""
    bot = make_bot(spec)
    rng = random.Random(0)
    decisions, cpu, k = 0, 0.0, 0
    sims0 = getattr(bot, "simulations", 0)
    for rec in records:
        state, _ = start_state(rec)
        cat = state.rules.catalogue
        for raw in rec["actions"]:
            player, action = from_json(raw, cat)
            if state.phase == PLAY:
                k += 1
                if k % every == 0:
                    view = state.view(state.current)
                    start = time.process_time()
                    bot(view, rng)
                    cpu += time.process_time() - start
                    decisions += 1
            state.step(player, action)
    return decisions, cpu, getattr(bot, "simulations", 0) - sims0


def main() -> None:
    records = json.loads(Path(sys.argv[1]).read_text())
    spec = sys.argv[2]
    every = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    decide_all(records[:1], spec, every, timed=False)  # warm-up
    decisions, cpu, sims = decide_all(records, spec, every, timed=True)
    build = "pure" if str(_engine_module.__file__).endswith(".py") else "compiled"
    print(
        json.dumps(
            {"spec": spec, "decisions": decisions, "cpu": cpu, "iterations": sims, "build": build}
        )
    )


if __name__ == "__main__":
    main()
