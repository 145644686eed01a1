"""Trapezoidal speed ramp for the floor's stepper, one step interval at a time.

Pure logic (no machine/rp2): the Pico's PIO and the simulated Pico both consume it.
Speed at step i is the smallest of: what acceleration allows from standstill,
the top speed, and what still lets the floor brake to a stop at the last step.

The square roots are worked out once per CONFIG into a table of intervals
(``ramp_table``); a step then costs two table look-ups and a comparison. On the
RP2040 a float is an object on the heap, so computing each step's interval afresh
would allocate on every step and wake the garbage collector mid-move.
"""
import math
from array import array

MIN_SPEED = 20.0   # steps/s; keeps the very first interval from being endless
MAX_TABLE = 1024   # ramp steps kept (4 KiB); a longer ramp cruises a little below top speed


def ramp_table(top_speed, acceleration, min_speed=MIN_SPEED):
    """Intervals (us) of the ramp from standstill: entry k is step k's interval when
    speeding up, the last entry the cruise interval."""
    two_a = 2.0 * float(acceleration)
    top = float(top_speed)
    low = min(float(min_speed), top)
    n = int(top * top / two_a) + 1
    if n > MAX_TABLE:
        n = MAX_TABLE
    table = array("I", range(n))          # same on CPython and MicroPython
    for k in range(n):
        v = min(math.sqrt(two_a * (k + 1)), top)
        table[k] = int(1000000 / (v if v > low else low))
    return table


def ramp_sums(table):
    """Running sums of ``table``: entry k is the time (us) of the ramp's first k steps."""
    sums = array("I", range(len(table) + 1))
    total = 0
    for k in range(len(table)):
        sums[k] = total
        total += table[k]
    sums[len(table)] = total
    return sums


class Ramp:
    def __init__(self, steps, top_speed, acceleration, min_speed=MIN_SPEED, table=None):
        self.steps = int(steps)
        self.top_speed = float(top_speed)
        self.two_a = 2.0 * float(acceleration)
        self.table = table if table is not None else ramp_table(top_speed, acceleration, min_speed)
        self.last = len(self.table) - 1
        self.done = 0

    def next_interval_us(self):
        """Microseconds from this step to the next, or None once every step is handed out.

        Allocation-free: small ints and array look-ups only.
        """
        i = self.done
        if i >= self.steps:
            return None
        self.done = i + 1
        last = self.last
        table = self.table
        up = table[i if i < last else last]             # speeding up from the start
        j = self.steps - 1 - i
        down = table[j if j < last else last]           # braking towards the end
        return up if up > down else down

    def reset(self, steps):
        """The same ramp for a new leg of ``steps`` steps (the firmware reuses one Ramp, so
        a leg that starts inside the loop allocates nothing)."""
        self.steps = steps
        self.done = 0

    def remaining(self):
        return self.steps - self.done

    def duration_us(self, sums):
        """Planned duration in whole microseconds, exactly the sum of the intervals
        ``next_interval_us`` hands out, from ``sums = ramp_sums(table)``. Small ints
        only (no float, so no allocation on the Pico)."""
        n = self.steps
        last = self.last
        half = n // 2
        if half <= last:
            total = 2 * sums[half]
            if n % 2:
                total += self.table[half]
            return total
        return 2 * sums[last] + (n - 2 * last) * self.table[last]

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
