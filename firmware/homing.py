"""Where a homing run stands: step off the mark if on it, seek it, give up after 1.2 turns.

Pure logic. The steps are queued at home speed like any move, so the floor homes at
the same speed however busy the loop is; the *stepper port* ends the pulses itself
on the step the sensor's edge arrives (on the Pico a hard interrupt on the home pin
stops the PIO), so the floor stops at the same step every time it approaches the mark
from the same side, whatever the loop was doing then. That step is home only if the
sensor still reads active there on a few loop passes in a row: a glitch on the wire
stops the pulses too, and then the seek goes on (floor.py).
"""

LEAVING, SEEKING = "leaving", "seeking"


class Homing:
    def __init__(self, steps_per_rev):
        # 1.2 revolutions: a full turn must pass the mark once; the extra fifth
        # forgives a sensor whose window starts just behind the start position.
        self.limit = steps_per_rev * 12 // 10
        self.phase = None
        self.queued = 0            # steps handed to the port so far
        self.confirmed = 0         # passes the sensor still read active after the stop
        self.glitches = 0          # stops on an edge the sensor did not hold

    def start(self, sensor_active):
        """Starting on the mark: first step off it, then approach it properly."""
        self.phase = LEAVING if sensor_active else SEEKING
