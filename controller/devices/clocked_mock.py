"""gpiozero's mock pins with their edges stamped by a given clock (a simulation's SimClock).

Apart from devices/pins.py so that a table on real GPIO never imports the mock pin
factory: only the simulated devices (and tests driving pins by hand) do.
"""
from __future__ import annotations

from typing import Any, Callable

from gpiozero.pins.mock import MockFactory, MockPin


class ClockedMockPin(MockPin):
    """A MockPin whose edges are stamped by its factory's clock."""

    def _change_state(self, value: bool) -> bool:
        changed = bool(super()._change_state(value))
        if changed:
            self._last_change = self.factory.ticks()   # the tick when_changed hands over
        return changed


class ClockedMockFactory(MockFactory):
    """gpiozero's MockFactory whose ticks come from ``clock`` (seconds), e.g. a SimClock."""

    def __init__(self, clock: Callable[[], float], **kwargs: Any):
        self._clock = clock
        kwargs.setdefault("pin_class", ClockedMockPin)
        super().__init__(**kwargs)

    def ticks(self) -> float:
        return self._clock()

    def ticks_diff(self, later: float, earlier: float) -> float:
        return later - earlier
