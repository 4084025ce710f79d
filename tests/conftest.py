"""Shared fixtures."""

from __future__ import annotations

import pytest

from projectl_sim.catalogue import Catalogue
from projectl_sim.loading import base_catalogue


@pytest.fixture(scope="session")
def cat() -> Catalogue:
    return base_catalogue()
