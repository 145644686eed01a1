"""How big a test run is: the quick lane (`make test-quick`) and slow machines (a Pi).

``POTIONPI_EXAMPLES`` is a factor on every property test's number of examples (hypothesis
and the random-game counts): 1 in ``make test``, 0.1 in ``make test-quick``.
``POTIONPI_TIMEOUT_SCALE`` is a factor on every per-test timeout (tests/conftest.py): the
heaviest property test (Mix It's leak test) took 67-146 s on an emulated arm64 Pi against
the 120 s timeout, so ``make test`` there runs with ``POTIONPI_TIMEOUT_SCALE=4`` (README
"Tests").

A test whose work is large (a property test's hundreds of random games, a whole game tapped
through in the browser) takes its per-test timeout from that work: ``timeout_for``.
"""
from __future__ import annotations

import math
import os

import pytest


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


#: The suite's per-test timeout (pyproject.toml ``timeout``), for tests of ordinary size.
TIMEOUT = 120
#: How many times longer than alone a test may take before its timeout calls it stuck: a
#: CPU hog on each of the 2 cores beside other work (load 20-30) leaves a test a tenth of a
#: core or less (Mix It's leak test: 14 CPU seconds alone, over 120 s at load 16-25).
BUSY = 30


def timeout_for(seconds_alone: float) -> pytest.MarkDecorator:
    """The timeout of a test that takes about ``seconds_alone`` on a quiet 2-core machine
    (say how it follows from the work: ``examples(200) * 0.05``, a step's time times the
    steps): BUSY times that, never under ``TIMEOUT``. It is still a timeout: a test that
    loops for ever fails, and the quick lane (a tenth of the examples) gets its own."""
    return pytest.mark.timeout(max(TIMEOUT, math.ceil(BUSY * seconds_alone)))
