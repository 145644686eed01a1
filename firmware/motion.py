"""Trapezoidal speed ramp for the floor's stepper, one step interval at a time.

Pure logic (no machine/rp2): the Pico's PIO and the simulated Pico both consume it.
Speed at step i is the smallest of: what acceleration allows from standstill,
the top speed, and what still lets the floor brake to a stop at the last step.
"""
import math

MIN_SPEED = 20.0   # steps/s; keeps the very first interval from being endless


class Ramp:
    def __init__(self, steps, top_speed, acceleration, min_speed=MIN_SPEED):
        self.steps = int(steps)
        self.top_speed = float(top_speed)
        self.two_a = 2.0 * float(acceleration)
        self.min_speed = min(float(min_speed), self.top_speed)
        self.done = 0

    def speed_at(self, i):
        """Speed in steps/s for step ``i`` (0-based)."""
        v_up = math.sqrt(self.two_a * (i + 1))
        v_down = math.sqrt(self.two_a * (self.steps - i))
        v = min(v_up, v_down, self.top_speed)
        return v if v > self.min_speed else self.min_speed

    def next_interval_us(self):
        """Microseconds from this step to the next, or None once every step is handed out."""
        if self.done >= self.steps:
            return None
        v = self.speed_at(self.done)
        self.done += 1
        return int(1000000 / v)

    def remaining(self):
        return self.steps - self.done

    def duration_s(self):
        """Planned duration in seconds, closed form, for the over-long-move watchdog.

        Within a few percent for long moves; short moves come out up to a fifth long.
        """
        n = self.steps
        a = self.two_a / 2.0
        v = self.top_speed
        n_ramp = v * v / self.two_a
        if n >= 2 * n_ramp:
            return 2.0 * v / a + (n - 2 * n_ramp) / v
        return 2.0 * math.sqrt(n / a)


def constant_interval_us(speed):
    """Interval for steady slow moves such as homing."""
    return int(1000000 / max(float(speed), MIN_SPEED))


def pio_delay(interval_us, pulse_us, overhead=3):
    """Loop count for the PIO step program so one step takes ``interval_us``.

    The program spends ``pulse_us`` cycles with STEP high and ``overhead`` on pull, mov and
    the second set, then ``count + 1`` cycles in its delay loop (1 cycle = 1 us at 1 MHz).
    """
    count = interval_us - pulse_us - overhead - 1
    return count if count > 0 else 0
