"""The drop beam times each ball by its edges' own timestamps, however late the callbacks come.

On a Pi, lgpio delivers every edge from one callback thread; when that thread is held up
(a busy Pi Zero, a garbage collection) the dark and the light edge of a 3 ms ball reach
the cauldron back to back. Here a slow consumer thread sits between the mock beam pin and
the cauldron, as that thread would, while the pin stamps each edge at a known tick.
"""
from __future__ import annotations

import queue
import threading
import time

import pytest
from gpiozero.pins import Factory

from controller.config import section
from controller.devices.cauldron import Cauldron
from controller.devices.pins import ClockedMockFactory, PinFactoryError, require_edge_times
from controller.devices.sim_cauldron import SimClock

BEAM = 22
PULSES = 1000


class SlowCallbackThread:
    """Holds the beam pin's callbacks in a queue and hands them on late, in order, from one
    thread: lgpio's delivery when its thread is busy. Records when each one was delivered."""

    def __init__(self, pin, stall_every: int = 50, stall_s: float = 0.01):
        self.deliver = pin.when_changed        # the cauldron's own pin callback
        self.backlog: queue.Queue = queue.Queue()
        self.stall_every, self.stall_s = stall_every, stall_s
        self.delivered_at: list[tuple[bool, float]] = []
        self._relay = lambda ticks, state: self.backlog.put((ticks, state))
        pin.when_changed = self._relay         # gpiozero holds callbacks weakly: keep _relay
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        n = 0
        while (item := self.backlog.get()) is not None:
            n += 1
            if n % self.stall_every == 0:
                time.sleep(self.stall_s)       # the busy Pi: everything queued waits
            self.delivered_at.append((item[1], time.monotonic()))
            self.deliver(*item)

    def finish(self):
        self.backlog.put(None)
        self.thread.join(30)

    def widths_at_delivery(self):
        """The pulse widths a clock read in the callback would have measured."""
        out, dark_at = [], None
        for state, at in self.delivered_at:
            if not state:
                dark_at = at
            elif dark_at is not None:
                out.append(at - dark_at)
        return out


def test_a_held_up_callback_thread_loses_none_of_1000_drops_of_3ms():
    ticks = SimClock(real=False)               # the edges happen at known ticks
    factory = ClockedMockFactory(ticks)
    drops = []
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory,
                                    sink=drops.append, colour_sensor=None)
    beam = factory.pin(BEAM)
    slow = SlowCallbackThread(beam)
    try:
        for _ in range(PULSES):
            beam.drive_low()                   # a ball blocks the beam ...
            ticks.advance(0.003)
            beam.drive_high()                  # ... for 3 ms
            ticks.advance(0.050)
        slow.finish()
        assert cauldron.flush(10)
        # the delay was real: timed at delivery, most balls would have looked like glitches
        late = slow.widths_at_delivery()
        assert len(late) == PULSES
        assert sum(w < 0.001 for w in late) > PULSES // 2
        assert len(drops) == PULSES
        assert cauldron.status()["glitches_ignored"] == 0
    finally:
        cauldron.close()


def test_a_glitch_stays_a_glitch_however_late_it_is_delivered():
    ticks = SimClock(real=False)
    factory = ClockedMockFactory(ticks)
    drops = []
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory, sink=drops.append,
                                    colour_sensor=None)
    beam = factory.pin(BEAM)
    slow = SlowCallbackThread(beam, stall_every=1, stall_s=0.005)
    try:
        for width in (0.0004, 0.003, 0.0002, 0.012):
            beam.drive_low()
            ticks.advance(width)
            beam.drive_high()
            ticks.advance(0.1)
        slow.finish()
        cauldron.flush(10)
        assert len(drops) == 2
        assert cauldron.status()["glitches_ignored"] == 2
    finally:
        cauldron.close()


def test_a_pin_factory_without_edge_times_is_refused_for_the_beam():
    # gpiozero's base Factory, like RPi.GPIO's, gives the callback's own time as the tick
    with pytest.raises(PinFactoryError, match='needs the time of each edge.*pin_factory = "lgpio"'):
        require_edge_times(Factory(), "the drop beam")
    require_edge_times(ClockedMockFactory(time.monotonic), "the drop beam")   # mock pins: fine
