"""How big a test run is: the quick lane (`make test-quick`) and slow machines (a Pi).

``POTIONPI_EXAMPLES`` is a factor on every property test's number of examples (hypothesis
and the random-game counts): 1 in ``make test``, 0.1 in ``make test-quick``.
``POTIONPI_TIMEOUT_SCALE`` is a factor on every per-test timeout (tests/conftest.py): the
heaviest property test (Mix It's leak test) took 67-146 s on an emulated arm64 Pi against
the 120 s timeout, so ``make test`` there runs with ``POTIONPI_TIMEOUT_SCALE=4`` (README
"Tests").
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
