"""benchmarks/engine.py's warm line: new deals after a warm-up, none of them played before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from script_util import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "engine.py"


def test_the_warm_line_times_new_deals_after_others(capsys: Any, monkeypatch: Any) -> None:
    engine = load_script(SCRIPT, "bench_engine")
    played: list[list[int]] = []
    real = engine._play

    def spy(seeds: np.ndarray) -> Any:
        played.append([int(s) for s in seeds])
        return real(seeds)

    monkeypatch.setattr(engine, "_play", spy)
    engine.bench_games(3, 11, warm=2)
    out = capsys.readouterr().out
    assert [len(p) for p in played] == [3, 2, 3]
    seen = [s for p in played for s in p]
    assert len(set(seen)) == len(seen)  # no deal twice: no game answered by the caches
    assert "3 new games after 2 on other deals" in out
    assert played[0] == [int(s) for s in np.random.SeedSequence(11).generate_state(3)]
    engine.bench_games(3, 11)
    assert "warm:" not in capsys.readouterr().out and len(played) == 4
