"""Shared fixtures."""

from __future__ import annotations

import signal

import pytest

from projectl_sim.catalogue import Catalogue
from projectl_sim.loading import base_catalogue


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
