"""The net's tests: their mind (the rows they make come from tests/factories.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def the_mind(mind):
    return mind.mind
