"""GPIO forest floor: how evenly the Python pulse loop spaces its steps (prints figures).

For each top speed the floor turns 800 steps at that speed, on gpiozero's MockFactory
(and on lgpio when this runs on a Pi with it), once on an idle machine and once with a
thread that holds the GIL for a few ms every 3 ms (a busy daemon). It prints the
histogram of step intervals as a share of the planned interval. The loop never fires a
step sooner than 90 % of its interval (by construction), so every figure below 0.9 must
be 0; what the load costs shows as late steps (> 1.5). Pick ``top_speed`` where the
late share is what the motor tolerates: docs/forest-floor.md has the figures measured.
"""
from __future__ import annotations

import statistics
import sys
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


def run(factory, top: float, load: bool, mock: bool) -> tuple[list[float], float]:
    floor = GpioForestFloor(5, 6, enable_pin=13, home_pin=None, stall_pin=None, ants_around=16,
                            steps_per_ant=STEPS / 16, top_speed=top, start_speed=top,
                            acceleration=1e9, homing_speed=top, invert_direction=False,
                            pin_factory=factory)
    step = factory.pin(5)
    recorder = None if mock else EdgeTimes(step)
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


def bench(label: str, factory, mock: bool) -> None:
    head = "  ".join(f"{f'{lo:g}-{hi:g}' if hi < 1e8 else f'>{lo:g}':>6}" for lo, hi in BINS)
    print(f"{label}: intervals as a share of the planned one")
    print(f"  {'steps/s':>7} {'load':>5}  {head}   {'p99 gap':>8}  {'reached':>8}")
    for top in (400, 800, 1600, 3200, 6400):
        for load in (False, True):
            gaps, rate = run(factory, top, load, mock)
            p99 = statistics.quantiles(gaps, n=100)[98]
            print(f"  {top:>7} {'busy' if load else 'idle':>5}  {histogram(gaps, 1 / top)}"
                  f"   {p99 * 1000:6.2f}ms  {rate:6.0f}/s")


def main() -> None:
    print(f"bench_forest_floor: {STEPS} steps per run, Python {sys.version.split()[0]}")
    factory = MockFactory()
    bench("mock pins", factory, mock=True)
    factory.close()
    try:
        real = make_pin_factory("lgpio")
    except PinFactoryError as exc:
        print(f"lgpio: not measured here ({exc})")
        return
    bench("lgpio", real, mock=False)
    real.close()


if __name__ == "__main__":
    main()
