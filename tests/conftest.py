"""Shared fixtures (temp stores) and the size of a run (tests/sizes.py): property tests'
examples and per-test timeouts scaled by environment variables."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from controller.store import Store
from tests.sizes import TIMEOUT, TIMEOUT_SCALE, examples

# Property tests that name no count take hypothesis's 100, scaled like the others; no
# deadline and no "too slow" health check: a per-example time limit and a limit on the time
# spent making examples are timing thresholds, which a busy machine or a Pi breaks.
settings.register_profile("potionpi", max_examples=examples(100), deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("potionpi")


def pytest_configure(config: pytest.Config) -> None:
    """tests/sizes.py's ``TIMEOUT`` (the floor of ``timeout_for``) is pyproject's timeout."""
    if float(config.getini("timeout") or 0) != TIMEOUT:
        raise pytest.UsageError(f"pyproject.toml timeout = {config.getini('timeout')}: "
                                f"set tests/sizes.py TIMEOUT to the same")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every per-test timeout (pyproject's ``timeout`` or a test's own mark) times
    ``POTIONPI_TIMEOUT_SCALE``: the same suite holds on a Pi Zero 2 W."""
    if TIMEOUT_SCALE == 1:
        return
    default = float(config.getini("timeout") or 0)
    for item in items:
        mark = item.get_closest_marker("timeout")
        seconds = float(mark.args[0]) if mark is not None and mark.args else default
        if seconds:
            item.add_marker(pytest.mark.timeout(seconds * TIMEOUT_SCALE), append=False)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "potionpi.sqlite3")
    yield s
    s.close()
