"""Shared fixtures: temp stores."""
from __future__ import annotations

import pytest

from controller.store import Store


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "potionpi.sqlite3")
    yield s
    s.close()
