"""The home mark's one rule: is the floor where its steps say it is?

Shared by both floors that step a motor themselves: the Pico (firmware/floor.py, fed
the edges its interrupt noted, each with the exact step it came at) and the Pi's GPIO
floor (controller/devices/floor_gpio.py, fed each step's level, or lgpio's edge times
mapped onto a window of steps). One file, so one rule; the same test vectors
(tests/firmware/markwatch_vectors.json) run it on CPython, on MicroPython's unix port
and on the emulated RP2040.

Once homed, the mark passes the sensor at every whole revolution of steps from home
(step 0 is where homing, turning clockwise, first saw it). During a move the watch
hears the sensor's level changes with the steps they came at (``low``..``high`` when
the very step is not known) and how far the floor has surely turned (``reached``):

- a sighting counts once the sensor stayed active for ``confirm`` steps: a glitch on
  the wire (motor leads beside the sensor's) is shorter and is only counted;
- a sighting farther than ``tolerance`` steps from every mark is MISPLACED: the
  floor slipped or was pushed (``off`` says by how many steps, signed);
- a sensor that stays active while the floor surely turned more than twice the
  tolerance (room for the mark's width) is STUCK: the floor sits on its mark and
  does not turn (``off``: the steps it stayed active for);
- a mark whose whole tolerance window lies inside the move and that is not seen by
  the time the floor is ``tolerance`` past it is MISSED: the motor turned, the floor
  did not;
- a sighting turning clockwise (the side homing approaches from) whose step is known
  to within ``resync_width`` re-syncs the count: ``take_correction()`` hands over the
  steps to add to it (the mark's step minus the step it was seen at), so a slip below
  the tolerance, or a steps-per-ant a hair off, never adds up.

The mark must be narrower than the tolerance: turning counter-clockwise the sensor
first sees the mark's far side.

Small ints only on the Pico, and nothing allocates after __init__: the firmware calls
this on every loop pass with the heap locked in its tests. The GPIO floor passes
floats for a fractional revolution; the same arithmetic holds.
"""

OK, MISPLACED, MISSED, STUCK = 0, 1, 2, 3
VERDICT_NAMES = ("ok", "misplaced", "missed", "stuck")
DEFAULT_CONFIRM = 2     # steps a sighting must last while the mark's width is not measured


def confirm_steps(mark_steps):
    """The glitch filter sized from the mark's width (steps, as `potionpi calibrate
    floor` measures it; 0: not measured): half the mark, at least a step."""
    return mark_steps // 2 if mark_steps > 3 else (1 if mark_steps > 0 else DEFAULT_CONFIRM)


class MarkWatch:
    def __init__(self):
        self.revolution = 1
        self.tolerance = 0
        self.confirm = 1
        self.resync_width = 0
        self.sign = 1
        self.verdict = OK
        self.off = 0           # MISPLACED: sighting minus the nearest mark's tolerance edge
        self.glitches = 0      # activations shorter than ``confirm`` steps, ignored
        self.sightings = 0     # confirmed sightings in this move
        self._correction = 0
        self._active = False
        self._open = False     # an activation not yet confirmed (or thrown away)
        self._lo = 0
        self._hi = 0
        self._since = 0        # the step the sensor turned active at (the latest it can be)
        self._next = 0         # the next mark (its revolution number) the move must pass
        self._left = 0         # marks still to be seen

    def start(self, start, end, revolution, tolerance, confirm, active, resync_width=0):
        """A move from step ``start`` to ``end``; ``active``: the sensor's level now."""
        self.revolution = revolution
        self.tolerance = tolerance
        self.confirm = confirm if confirm > 1 else 1
        self.resync_width = resync_width
        self.sign = 1 if end >= start else -1
        low = start if start < end else end
        high = end if start < end else start
        # the marks whose whole tolerance window lies inside the move: only they must be seen
        first = (low + tolerance) // revolution + 1
        last = -((tolerance - high) // revolution) - 1
        self._left = last - first + 1 if last >= first else 0
        self._next = first if self.sign > 0 else last
        self.verdict = OK
        self.off = 0
        self.glitches = 0
        self.sightings = 0
        self._correction = 0
        self._active = active
        self._open = False
        self._since = start

    def level(self, active, low, high):
        """The sensor turned ``active`` (or not) when the count was between ``low`` and
        ``high``; returns the verdict so far."""
        if self.verdict or active == self._active:
            return self.verdict      # (a repeated level: an edge pair came and went unseen)
        self._active = active
        if active:
            self._open = True
            self._lo = low
            self._hi = high
            self._since = high if self.sign > 0 else low
        elif self._open:
            self._open = False
            # steps the sensor stayed active, the most the two windows allow
            span = high - self._lo if self.sign > 0 else self._hi - low
            if span >= self.confirm:
                self._judge(self._lo, self._hi)
            else:
                self.glitches += 1
        return self.verdict

    def reached(self, steps):
        """The floor has surely turned to ``steps``; returns the verdict so far."""
        if self.verdict:
            return self.verdict
        if self._open and (steps - (self._lo if self.sign > 0 else self._hi)) * self.sign >= self.confirm:
            self._open = False       # still active after ``confirm`` steps: a real sighting
            self._judge(self._lo, self._hi)
            if self.verdict:
                return self.verdict
        if self._active:
            # the floor cannot stay on a mark narrower than the tolerance for twice as long
            held = (steps - self._since) * self.sign
            if held > 2 * self.tolerance:
                self.verdict = STUCK
                self.off = held
                return self.verdict
        if self._left and (steps - self._next * self.revolution) * self.sign > self.tolerance:
            self.verdict = MISSED
        return self.verdict

    def take_correction(self):
        """Steps to add to the count since the last call (0: none); the caller adds them,
        and every step it passes from then on is in the corrected count."""
        c = self._correction
        self._correction = 0
        self._since += c
        return c

    def expected(self):
        """The step of the next mark the move must still pass (for messages)."""
        return self._next * self.revolution

    def _judge(self, lo, hi):
        rev = self.revolution
        k = (lo + hi + rev) // (2 * rev)        # the mark nearest the window's middle
        mark = k * rev
        if lo > mark + self.tolerance:
            self.verdict = MISPLACED
            self.off = lo - mark
            return
        if hi < mark - self.tolerance:
            self.verdict = MISPLACED
            self.off = hi - mark
            return
        self.sightings += 1
        if self._left and k == self._next:
            self._left -= 1
            self._next += self.sign
        if self.sign > 0 and hi - lo <= self.resync_width:
            self._correction += mark - (lo + hi) // 2
