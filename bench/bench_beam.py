"""Beam edge → drop delivered, on gpiozero MockFactory pins (figures only, no thresholds).

Measures, with the real clock:
- edge cost: how long the beam's rising edge keeps the GPIO callback busy
  (on a Pi this is time the lgpio callback thread cannot spend on the next edge);
- delivery: from the edge that ends a 3 ms pulse until the sink holds the drop
  (through the cauldron's delivery thread), without and with the simulated colour sensor;
- encoder: detents per second the encoder path can take;
- drops lost vs callback delay: the callback thread is held up for D ms out of every
  20 ms (as lgpio's single thread on a busy Pi), 3 ms balls, counted by the cauldron
  (edge timestamps) next to what a clock read in the callback would have measured.

Run: .venv/bin/python bench/bench_beam.py  (make bench runs every bench/bench_*.py)
"""
from __future__ import annotations

import queue
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from controller.config import section  # noqa: E402
from controller.devices.cauldron import Cauldron  # noqa: E402
from controller.devices.colour_sensor import SimulatedColourSensor  # noqa: E402

PULSES = 300


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def show(label, seconds):
    us = [s * 1e6 for s in seconds]
    print(f"{label:<46} median {statistics.median(us):8.1f} µs   p99 {percentile(us, 99):8.1f} µs"
          f"   (n={len(us)})")


def beam_run(colour_sensor):
    factory = MockFactory()
    arrived = threading.Event()
    stamp = {}

    def sink(action):
        stamp["t"] = time.perf_counter()
        arrived.set()

    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory, sink=sink,
                                    colour_sensor=colour_sensor)
    beam = factory.pin(22)
    edge_cost, delivery = [], []
    try:
        for _ in range(PULSES):
            arrived.clear()
            if colour_sensor is not None:
                colour_sensor.present("red")
            beam.drive_low()
            time.sleep(0.003)
            t0 = time.perf_counter()
            beam.drive_high()
            t1 = time.perf_counter()
            if not arrived.wait(5):
                raise SystemExit("a drop was never delivered")
            edge_cost.append(t1 - t0)
            delivery.append(stamp["t"] - t0)
    finally:
        cauldron.close()
    return edge_cost, delivery


def encoder_run(detents=5000):
    factory = MockFactory()
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory)
    cauldron.max_rev_per_s = float("inf")   # no "turn gently" notices in the way of the figure
    a, b = factory.pin(17), factory.pin(27)
    t0 = time.perf_counter()
    for _ in range(detents):
        a.drive_low()
        b.drive_low()
        a.drive_high()
        b.drive_high()
    elapsed = time.perf_counter() - t0
    assert cauldron.status()["position"] == detents
    cauldron.close()
    return detents / elapsed


def held_up_run(hold_ms, pulses=150):
    """(drops the cauldron counted, drops a callback-time clock would have counted)."""
    factory = MockFactory()
    drops = []
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory, sink=drops.append,
                                    colour_sensor=None)
    beam = factory.pin(22)
    deliver = beam.when_changed
    backlog: queue.Queue = queue.Queue()
    thread_lock = threading.Lock()        # the callback thread; the hog keeps it busy
    done = threading.Event()

    def relay(ticks, state):
        backlog.put((ticks, state))
    beam.when_changed = relay

    def hog():
        while not done.is_set():
            with thread_lock:
                time.sleep(hold_ms / 1000)
            time.sleep((20 - hold_ms) / 1000)

    late_widths, dark_at = [], [None]

    def callback_thread():
        while (item := backlog.get()) is not None:
            with thread_lock:
                now = time.perf_counter()
                if not item[1]:
                    dark_at[0] = now
                elif dark_at[0] is not None:
                    late_widths.append(now - dark_at[0])
                deliver(*item)

    threads = [threading.Thread(target=hog, daemon=True),
               threading.Thread(target=callback_thread, daemon=True)]
    for t in threads:
        t.start()
    rng = random.Random(hold_ms)
    try:
        for _ in range(pulses):
            beam.drive_low()
            time.sleep(0.003)
            beam.drive_high()
            time.sleep(rng.uniform(0.005, 0.015))
        backlog.put(None)
        threads[1].join()
        done.set()
        cauldron.flush()
        glitch_s = cauldron.glitch_s
        return len(drops), sum(w >= glitch_s for w in late_widths)
    finally:
        done.set()
        cauldron.close()


def main():
    print(f"bench_beam: {PULSES} beam pulses of 3 ms on MockFactory, Python {sys.version.split()[0]}")
    edge, plain = beam_run(None)
    show("beam edge cost in the GPIO callback", edge)
    show("edge → drop in sink (no colour sensor)", plain)
    _, coloured = beam_run(SimulatedColourSensor(seed=1))
    show("edge → drop in sink (simulated colour sensor)", coloured)
    print(f"{'encoder throughput':<46} {encoder_run():,.0f} detents/s")
    print("drops lost vs callback delay (150 balls of 3 ms; thread held D ms of every 20 ms):")
    print(f"  {'held D':>8}  {'lost, edge timestamps':>22}  {'lost, clock in callback':>24}")
    for hold_ms in (0, 1, 2, 5, 10, 15):
        counted, by_callback_clock = held_up_run(hold_ms)
        print(f"  {hold_ms:>6} ms  {150 - counted:>22}  {150 - by_callback_clock:>24}")


if __name__ == "__main__":
    main()
