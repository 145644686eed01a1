"""How big a test run is: the quick lane (`make test-quick`) and slow machines (a Pi).

``POTIONPI_EXAMPLES`` is a factor on every property test's number of examples (hypothesis
and the random-game counts): 1 in ``make test``, 0.1 in ``make test-quick``.
``POTIONPI_TIMEOUT_SCALE`` is a factor on every per-test timeout (tests/conftest.py): the
heaviest property tests take up to 20 times longer on a Pi Zero 2 W than on a laptop, so
``make test`` there runs with ``POTIONPI_TIMEOUT_SCALE=20`` (README "Tests").
"""
from __future__ import annotations

import math
import os


def _factor(name: str) -> float:
    text = os.environ.get(name, "1")
    try:
        value = float(text)
    except ValueError:
        raise SystemExit(f"{name}={text!r}: use a number such as 0.1 or 4") from None
    if not value > 0:
        raise SystemExit(f"{name}={text!r}: use a number above 0")
    return value


EXAMPLES = _factor("POTIONPI_EXAMPLES")
TIMEOUT_SCALE = _factor("POTIONPI_TIMEOUT_SCALE")


def examples(n: int) -> int:
    """``n`` examples scaled for this run (at least one)."""
    return max(1, math.ceil(n * EXAMPLES))
