"""Shared fixtures."""

from __future__ import annotations

import os
import signal

import pytest

from projectl_sim.catalogue import Catalogue
from projectl_sim.loading import base_catalogue
from projectl_sim_launch import ONE_THREAD


def pytest_configure(config: pytest.Config) -> None:
    """Give every process the suite starts one BLAS thread, as the ``projectl-sim`` script and a
    run's workers have: two test workers on two cores start command-line processes, run workers
    and kernels, whose spinning BLAS thread pools would crowd the cores (a caller's count stands).
    Set before the test workers start, so they and all they start inherit it."""
    for name in ONE_THREAD:
        os.environ.setdefault(name, "1")


@pytest.fixture(scope="session")
def cat() -> Catalogue:
    return base_catalogue()


@pytest.fixture(autouse=True, scope="session")
def _ctrl_c_delivered() -> None:
    """Let Ctrl-C through when the suite was started with SIGINT ignored (as a shell does for
    a background job): the tests that stop runs with SIGINT, here and in the CLI processes they
    start, need it delivered, as at a terminal."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# The longest tests (a documentation page played to its end, a notebook executed, the fault and
# Dask runs that kill processes) run first: the suite's workers then end together, on short tests,
# rather than one of them starting a 25-second page while the other has nothing left.
_LONG_FIRST = (
    "tests/docs/test_docs.py::test_page_runs_to_the_end",
    "tests/cli/test_notebooks.py::test_the_command_executes",
    "tests/experiments/test_precision.py",
    "tests/sim/test_runner_dask.py",
    "tests/sim/test_faults.py",
    "tests/engine/test_random_play.py",
    "tests/analysis/test_report_browser.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(_LONG_FIRST))  # stable: else as found
