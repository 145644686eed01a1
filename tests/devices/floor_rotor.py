"""A model of the forest floor's disc for tests on mock pins: it turns one step per STEP
pulse (DIR says which way) unless jammed, and holds the home sensor's pin at the mark.

Hooked onto the step pin of ``RecordingPin`` mock pins (below): the
hook runs as the floor's motor thread raises STEP, so the home input changes on the very
step the disc reaches the mark, as a hall sensor's would.
"""
from __future__ import annotations

from gpiozero.pins.mock import MockPin


class RecordingPin(MockPin):
    """A MockPin that also writes every change into one log shared by all pins (global order),
    and calls ``hook(pin, value)`` so a test can play the floor's sensors."""
    log: list = []

    def __init__(self, factory, info):
        self.hook = None
        super().__init__(factory, info)

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed:
            RecordingPin.log.append((self.info.name, value))
            if self.hook is not None:
                self.hook(self, value)
        return changed


class Rotor:
    """``angle`` in motor steps; the mark covers ``mark_width`` steps from angle 0 on."""

    def __init__(self, factory, step, dir_, home, *, revolution: int, angle: int = 0,
                 mark_width: int = 1, invert: bool = False):
        self.revolution, self.angle, self.mark_width = revolution, angle, mark_width
        self.dir_pin, self.home_pin = factory.pin(dir_), factory.pin(home)
        self.invert = invert
        self.jammed = False
        self.slip_at: int | None = None   # pulses from now after which the disc skips ahead
        self.slip_by = 0
        factory.pin(step).hook = self._on_step
        self._show()

    def at_mark(self) -> bool:
        return self.angle % self.revolution < self.mark_width

    def _on_step(self, pin, value):
        if not value:
            return
        if self.slip_at is not None:
            self.slip_at -= 1
            if self.slip_at == 0:
                self.angle += self.slip_by     # a bump turns the disc behind the motor's back
                self.slip_at = None
        if not self.jammed:
            clockwise = bool(self.dir_pin.state) != self.invert
            self.angle += 1 if clockwise else -1
        self._show()

    def _show(self):
        # the sensor pulls low at the mark (home_active_low)
        self.home_pin.drive_low() if self.at_mark() else self.home_pin.drive_high()
