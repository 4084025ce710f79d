"""Helpers for tests that compare a run's tables with another's."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from projectl_sim.sim import tables


def without_timing(run_dir: Path) -> dict[str, pa.Table]:
    """Return a run's tables without their timing columns (the only ones that vary by play)."""
    return {
        name: tables.read_table(run_dir, name).drop_columns(list(tables.TIMING_COLUMNS[name]))
        for name in tables.TABLES
    }
