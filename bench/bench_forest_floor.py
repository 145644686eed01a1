"""GPIO forest floor: how evenly the steps are spaced, on both step paths (prints figures).

Software path (the Python pulse loop, used on every pin factory but lgpio's): for each
top speed the floor turns 800 steps at that speed, on gpiozero's MockFactory (and on
lgpio with ``step_timing="software"`` when this runs on a Pi), once on an idle machine
and once with a thread that holds the GIL for a few ms every 3 ms (a busy daemon). It
prints the histogram of step intervals as a share of the planned interval. The loop
never fires a step sooner than 90 % of its interval (by construction), so every figure
below 0.9 must be 0; what the load costs shows as late steps (> 1.5).

Wave path (lgpio's transmit thread plays queued ``tx_wave`` pulses): the same moves built
into waves with the real ``lgpio.pulse`` (wherever lgpio imports), printing the histogram
of the *scheduled* intervals, how many waves a move needs, the Python time to build them
and what lgpio keeps allocated afterwards (it frees a played wave only with the last). What lgpio's thread then makes of that schedule shows only on
a Pi, with STEP jumpered to a spare input: ``FLOOR_LOOPBACK_PIN=<BCM>`` times every
rising edge by its kernel timestamp and prints that histogram too.
docs/forest-floor.md has the figures measured and where.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from controller.devices.floor_gpio import GpioForestFloor  # noqa: E402
from controller.devices.pins import PinFactoryError, make_pin_factory  # noqa: E402

STEPS = 800
BINS = [(0.0, 0.9), (0.9, 0.97), (0.97, 1.03), (1.03, 1.1), (1.1, 1.5), (1.5, 2.0), (2.0, 1e9)]


def rise_gaps(step_pin) -> list[float]:
    t, rises = 0.0, []
    for s in step_pin.states[1:]:
        t += s.timestamp                  # MockPin keeps the time since the previous change
        if s.state:
            rises.append(t)
    return [b - a for a, b in zip(rises, rises[1:])]


class EdgeTimes:
    """Rising-edge times of an output pin that keeps no history (lgpio): the pin's state
    setter is wrapped, so the time is taken as the write returns."""

    def __init__(self, pin):
        self.rises: list[float] = []
        original = type(pin)._set_state

        def stamped(this, value, _orig=original):
            _orig(this, value)
            if value:
                self.rises.append(time.perf_counter())
        pin._set_state = stamped.__get__(pin)

    def gaps(self) -> list[float]:
        return [b - a for a, b in zip(self.rises, self.rises[1:])]


def run(factory, top: float, load: bool, mock: bool, timing: str = "software",
        loopback=None) -> tuple[list[float], float]:
    floor = GpioForestFloor(5, 6, enable_pin=13, home_pin=None, stall_pin=None, ants_around=16,
                            steps_per_ant=STEPS / 16, top_speed=top, start_speed=top,
                            acceleration=1e9, homing_speed=top, invert_direction=False,
                            pin_factory=factory, step_timing=timing)
    step = factory.pin(5)
    recorder = loopback if loopback is not None else None if mock else EdgeTimes(step)
    if loopback is not None:
        loopback.rises.clear()
    if mock:
        step.clear_states()
    stop = threading.Event()

    def hog():
        while not stop.wait(0.003):
            sum(range(30000))
    hogger = threading.Thread(target=hog, daemon=True)
    if load:
        hogger.start()
    t0 = time.perf_counter()
    try:
        floor.rotate(16, "clockwise")
        floor.wait_idle()
    finally:
        stop.set()
        took = time.perf_counter() - t0
        floor.close()
    gaps = rise_gaps(step) if recorder is None else recorder.gaps()
    return gaps, STEPS / took


def histogram(gaps: list[float], nominal: float) -> str:
    ratios = [g / nominal for g in gaps]
    cells = []
    for low, high in BINS:
        n = sum(low <= r < high for r in ratios)
        cells.append(f"{100 * n / len(ratios):5.1f}%")
    return "  ".join(cells)


HEAD = "  ".join(f"{f'{lo:g}-{hi:g}' if hi < 1e8 else f'>{lo:g}':>6}" for lo, hi in BINS)


def bench(label: str, factory, mock: bool, timing: str = "software", loopback=None) -> None:
    print(f"{label}: intervals as a share of the planned one")
    print(f"  {'steps/s':>7} {'load':>5}  {HEAD}   {'p99 gap':>8}  {'reached':>8}")
    for top in (400, 800, 1600, 3200, 6400):
        for load in (False, True):
            gaps, rate = run(factory, top, load, mock, timing, loopback)
            if len(gaps) < 2:
                print(f"  {top:>7} {'busy' if load else 'idle':>5}  no edges recorded")
                continue
            p99 = statistics.quantiles(gaps, n=100)[98]
            print(f"  {top:>7} {'busy' if load else 'idle':>5}  {histogram(gaps, 1 / top)}"
                  f"   {p99 * 1000:6.2f}ms  {rate:6.0f}/s")


def bench_wave_schedule() -> None:
    """The waves a move becomes, as queued to lgpio: scheduled intervals, waves, cost, and
    what lgpio keeps allocated afterwards, for the floor's layout (the first step alone,
    then the rest as one wave) and for 10 ms chunks."""
    # importing lgpio makes its notification pipe in LG_WD (else the current directory:
    # the repo, under `make bench`)
    os.environ.setdefault("LG_WD", tempfile.gettempdir())
    try:
        import lgpio
    except ImportError as exc:
        print(f"wave path: lgpio does not import here ({exc}): not measured")
        return
    from controller.devices.floor_gpio import ramp_delays
    from controller.devices.step_wave import CHUNK_S, WaveRun
    print("wave path (lgpio tx_wave), scheduled: intervals as a share of the planned one")
    print(f"  {'move':>24} {'layout':>8}  {HEAD}   {'waves':>5}  {'build':>7}  {'lgpio keeps':>11}")
    moves = [(f"{STEPS} at {top}/s, no ramp", [1 / top] * STEPS) for top in (400, 800, 1600, 3200, 6400)]
    moves.append(("3200, ramp 100-800/s", ramp_delays(3200, 100, 800, 1600)))
    for label, delays in moves:
        for layout, chunk_s in (("floor", None), ("10 ms", CHUNK_S)):
            t0 = time.perf_counter()
            run_ = WaveRun(delays, chunk_s=chunk_s, pulse=lgpio.pulse)
            waves, waiting = [], 0
            while not run_.all_queued:
                waves += run_.next_waves(10 - waiting, waiting)
                waiting = 1
            took = time.perf_counter() - t0
            t, level, rises = 0, 0, []
            for wave in waves:
                for p in wave:
                    if p.group_bits and not level:
                        rises.append(t)
                    level = p.group_bits
                    t += p.pulse_delay
            ratios = [(b - a) / 1e6 / d for a, b, d in zip(rises, rises[1:], delays)]
            cells = "  ".join(f"{100 * sum(lo <= r < hi for r in ratios) / len(ratios):5.1f}%"
                              for lo, hi in BINS)
            kept = run_.leaked_bytes()
            print(f"  {label:>24} {layout:>8}  {cells}   {len(waves):>5}  {took * 1000:5.1f}ms"
                  f"  {kept / 1000:9.1f}kB")


class LoopbackEdges:
    """Rising edges of STEP jumpered to an input, timed by lgpio's kernel timestamps."""

    def __init__(self, factory, pin: int):
        from gpiozero import DigitalInputDevice
        self.device = DigitalInputDevice(pin, pin_factory=factory)
        self.rises: list[float] = []
        self.device.pin.when_changed = self._changed

    def _changed(self, ticks, state) -> None:
        if state:
            self.rises.append(ticks)

    def gaps(self) -> list[float]:
        return [b - a for a, b in zip(self.rises, self.rises[1:])]


def rss_kb() -> int:
    """This process's resident memory (Linux), in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    print(f"bench_forest_floor: {STEPS} steps per run, Python {sys.version.split()[0]}")
    factory = MockFactory()
    bench("software path, mock pins", factory, mock=True)
    factory.close()
    bench_wave_schedule()
    try:
        real = make_pin_factory("lgpio")
    except PinFactoryError as exc:
        print(f"lgpio pins: not measured here ({exc})")
        return
    bench("software path, lgpio pins", real, mock=False)
    loopback_pin = os.environ.get("FLOOR_LOOPBACK_PIN")
    if loopback_pin:
        edges = LoopbackEdges(real, int(loopback_pin))
        before = rss_kb()
        bench(f"wave path, lgpio pins, STEP looped back to GPIO{loopback_pin}", real, mock=False,
              timing="auto", loopback=edges)
        print(f"  the process grew {rss_kb() - before} kB over those {10 * STEPS} queued steps")
        edges.device.close()
    else:
        print("wave path on lgpio pins: set FLOOR_LOOPBACK_PIN (STEP jumpered to that input) to time it")
    real.close()


if __name__ == "__main__":
    main()
