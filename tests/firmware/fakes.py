"""A stepper port and a clock for driving firmware/floor.py step by step on CPython."""
from __future__ import annotations


class FakeClock:
    def __init__(self):
        self.ms = 0

    def __call__(self) -> int:
        return self.ms


class FakeStepper:
    """Holds queued steps until ``drain`` lets them out; the disc only turns when they do.

    Its edges are what the Pico's interrupt notes: each with the pulse count it came at."""

    FIFO_DEPTH = 8

    def __init__(self, steps_per_rev=160, home_at=0, home_width=3, start=37):
        self.steps_per_rev = steps_per_rev
        self.home_at = home_at
        self.home_width = home_width
        self.steps = start
        self.fifo: list[int] = []
        self.intervals: list[int] = []     # every interval ever queued, in order
        self.forward = True
        self.enabled = False
        self.magnet = True
        self.stall = False
        self.jammed = False         # the disc is stuck: pulses go out, it does not turn
        self.frozen = False         # the pulses never go out (nothing takes them)
        self.edges: list[int] = []  # the sensor's edges as pulses * 2 + active (the Pico's ring)
        self.counted = 0            # pulses since count_from_zero()
        self.armed = False          # stop_at_mark: end the pulses on the mark's edge
        self.stopped = False
        self.glitch_at: int | None = None   # after this many pulses, a glitch: on and off at once

    def room(self):
        return self.FIFO_DEPTH - len(self.fifo)

    def queue(self, interval_us):
        self.fifo.append(interval_us)
        self.intervals.append(interval_us)

    def in_flight(self):
        return len(self.fifo)

    def busy(self):
        return bool(self.fifo)

    def count_from_zero(self):
        self.counted = 0

    def next_edge(self):
        return self.edges.pop(0) if self.edges else -1

    def abort(self):
        dropped = len(self.fifo)
        self.fifo.clear()
        self.stopped = False
        return dropped

    def set_direction(self, forward):
        self.forward = forward

    def enable(self, on):
        self.enabled = on

    def home_active(self):
        return self.magnet and (self.steps - self.home_at) % self.steps_per_rev < self.home_width

    def stall_active(self):
        return self.stall

    def stop_at_mark(self, on):
        self.armed = on
        self.stopped = False

    def stopped_at_mark(self):
        return self.stopped

    def drain(self, n=None):
        """Let ``n`` queued steps (default: all) go out, as the PIO would."""
        if self.frozen:
            return
        count = len(self.fifo) if n is None else min(n, len(self.fifo))
        for _ in range(count):
            if self.stopped:
                return                   # the pulses ended on the mark's edge
            self.fifo.pop(0)
            before = self.home_active()
            if not self.jammed:
                self.steps += 1 if self.forward else -1
            self.counted += 1
            after = self.home_active()
            if after != before:                            # the sensor's edge
                self.edges.append(self.counted * 2 + (1 if after else 0))
                if after and self.armed:
                    self.armed = False
                    self.stopped = True
            if self.glitch_at is not None:
                self.glitch_at -= 1
                if self.glitch_at == 0:                    # a spike on the wire, off the mark
                    self.glitch_at = None
                    self.edges += [self.counted * 2 + 1, self.counted * 2]
                    if self.armed:
                        self.armed = False
                        self.stopped = True


def run(floor, stepper, clock, until=("idle", "fault"), limit=100000, tick_ms=1):
    """Service the floor and let steps out until its state is one of ``until``."""
    names = ("idle", "moving", "homing", "fault")
    for _ in range(limit):
        floor.service()
        stepper.drain()
        clock.ms += tick_ms
        floor.service()
        if names[floor.state] in until and stepper.in_flight() == 0:
            return names[floor.state]
    raise AssertionError(f"floor still {names[floor.state]} after {limit} rounds")
