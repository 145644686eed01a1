"""The GPIO floor's wave path end to end, on a model of lgpio's wave queue.

There is no GPIO chip here, so lgpio's transmit thread cannot run. ``QueueModel`` plays
the queued ``lgpio.pulse`` waves the way lgPthTx.c does — back to back on absolute
deadlines from the thread's next wake, at most ``LG_TX_BUF`` queued, all dropped at a
cancel — in real time, and a follower turns the modelled disc (tests/devices/
floor_rotor.py) on every rising edge, stamping the home sensor's edges with the edge's
own time as lgpio's kernel timestamps would. What this proves: the floor feeds the
queue within its room, counts exactly, cancels at once on stop, and catches a jam from
edge times. What only a Pi can show (lgpio's real thread, its timing, the cancel by
freeing the line): docs/forest-floor.md, "Tested where".
"""
from __future__ import annotations

import threading
import time

import pytest

from controller.devices import floor_gpio
from controller.devices.floor_gpio import GpioForestFloor
from controller.devices.forest_floor import FAULT, IDLE
from controller.devices.pins import ClockedMockFactory
from controller.devices.step_wave import LG_TX_BUF

from tests.devices.floor_rotor import RecordingPin, Rotor

STEP, DIR, ENABLE, HOME = 17, 27, 22, 23
SPA = 40                    # steps per ant
REV = 16 * SPA


@pytest.fixture(scope="module", autouse=True)
def lgpio(tmp_path_factory):
    import os
    os.environ["LG_WD"] = str(tmp_path_factory.mktemp("lgwd"))   # its pipe, out of the worktree
    return pytest.importorskip("lgpio")


class Clock:
    """The mock pins' clock: the time of the step edge being played, else now."""

    def __init__(self):
        self.tick: float | None = None

    def __call__(self) -> float:
        return self.tick if self.tick is not None else time.monotonic()


class ClockedRecordingPin(RecordingPin):
    """RecordingPin (hooks, for the software-timed homing) whose edges carry the clock's time."""

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed:
            self._last_change = self.factory.ticks()
        return changed


class QueueModel:
    """lgpio's wave queue for one GPIO as lgPthTx.c plays it, in real time."""

    def __init__(self, wake: float = 0.004):
        self.wake = wake                    # a new record starts at the thread's next wake
        self.entries: list[dict] = []       # start, end, rises (absolute times), cut
        self.queued_max = 0
        self.cancels = 0

    def queue(self, pulses) -> int:
        now = time.monotonic()
        if self.waiting() >= LG_TX_BUF:
            raise AssertionError("tx_wave on a full queue (lgpio: TX_QUEUE_FULL)")
        live = [e for e in self.entries if e["end"] > now and e["cut"] > now]
        start = live[-1]["end"] if live else now + self.wake
        t, level, rises = start, 0, []
        for p in pulses:
            if p.group_bits and not level:
                rises.append(t)
            level = p.group_bits
            t += p.pulse_delay / 1e6
        self.entries.append({"start": start, "end": t, "rises": rises, "cut": float("inf")})
        self.queued_max = max(self.queued_max, self.waiting())
        return LG_TX_BUF - self.waiting()

    def waiting(self) -> int:
        now = time.monotonic()
        return sum(1 for e in self.entries if e["end"] > now and e["cut"] > now)

    def cancel(self) -> None:
        now = time.monotonic()
        self.cancels += 1
        for e in self.entries:
            e["cut"] = min(e["cut"], now)

    def rises_until(self, t: float) -> list[float]:
        return [r for e in self.entries for r in e["rises"] if r <= min(t, e["cut"])]


class Follower:
    """Turns the rotor one step on every rising edge the queue has played."""

    def __init__(self, model: QueueModel, rotor: Rotor, clock: Clock):
        self.model, self.rotor, self.clock = model, rotor, clock
        self.seen = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.0002):
            rises = self.model.rises_until(time.monotonic())
            for t in rises[self.seen:]:
                self.clock.tick = t
                self.rotor._on_step(None, True)
            self.clock.tick = None
            self.seen = len(rises)

    def close(self):
        self._stop.set()
        self._thread.join()


@pytest.fixture
def rig(monkeypatch):
    """A homed floor on the wave path (homing itself runs the software loop), its queue
    model and the disc."""
    RecordingPin.log = []
    monkeypatch.setattr(floor_gpio, "wave_handle", lambda factory: 0)
    clock = Clock()
    factory = ClockedMockFactory(clock, pin_class=ClockedRecordingPin)
    floor = GpioForestFloor(STEP, DIR, enable_pin=ENABLE, home_pin=HOME, stall_pin=None, ants_around=16,
                            steps_per_ant=SPA, top_speed=2000, start_speed=500, acceleration=20000,
                            homing_speed=4000, invert_direction=False, pin_factory=factory,
                            jam_tolerance_ants=1.0)
    model = QueueModel()
    floor._tx = model
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=REV, angle=-5)
    floor.home()                            # software loop: pulses STEP, the hooks turn the disc
    assert floor.wait_idle(10) and floor.state == IDLE and not floor.needs_home
    follower = Follower(model, rotor, clock)
    yield floor, model, rotor, factory
    follower.close()
    floor.close()
    factory.close()


def turn(floor, ants, direction):
    floor.rotate(ants, direction)
    assert floor.wait_idle(20)


def test_turns_play_every_step_from_the_queue_and_count_exactly(rig):
    floor, model, rotor, factory = rig
    assert floor.step_timing == "wave"
    for ants, direction in ((5, "clockwise"), (14, "clockwise"), (7, "counter_clockwise"),
                            (20, "clockwise")):
        before = len(model.rises_until(time.monotonic()))
        turn(floor, ants, direction)
        assert floor.state == IDLE, floor.fault
        assert len(model.rises_until(time.monotonic())) - before == ants * SPA   # the pulses played
        assert rotor.angle % REV == floor.steps % REV       # and the count agrees with the disc
    assert floor.steps == 32 * SPA
    assert model.queued_max <= LG_TX_BUF and model.cancels == 0
    assert factory.pin(ENABLE).state is True                # coils released after the move


def test_stop_cancels_the_queue_at_once_and_counts_what_played(rig):
    floor, model, rotor, factory = rig
    floor.rotate(40, "clockwise")                            # 1,600 steps, about a second
    time.sleep(0.3)
    floor.stop()
    # when stop() returns the queue is gone (no timing threshold: counts, not speed)
    assert model.cancels == 1 and model.waiting() == 0
    played = len(model.rises_until(time.monotonic()))
    time.sleep(0.05)
    assert len(model.rises_until(time.monotonic())) == played    # nothing after the cancel
    low, high = floor.cancel_window
    assert low <= played <= high and high - low <= 2
    assert abs(floor.steps - played) <= 1
    assert floor.status()["last_move"]["result"] == "stopped" and floor.needs_home
    assert factory.pin(ENABLE).state is True


@pytest.mark.parametrize("direction", ["clockwise", "counter_clockwise"])
def test_a_jammed_floor_on_the_wave_path_is_a_jam_fault(rig, direction):
    floor, model, rotor, factory = rig
    turn(floor, 4, direction)
    rotor.jammed = True                                      # the disc stops; the pulses go on
    before = len(model.rises_until(time.monotonic()))
    turn(floor, 30, direction)                               # the mark must pass 12 ants on
    assert floor.state == FAULT and floor.fault.startswith("jam"), floor.fault
    assert "did not turn" in floor.fault
    assert model.cancels == 1                                # the rest of the queue dropped
    # caught after the mark's place plus the tolerance and the edge grace, not at the end
    played = len(model.rises_until(time.monotonic())) - before
    assert 13 * SPA < played < 30 * SPA
    assert floor.status()["needs_home"] is True


def test_a_slip_on_the_wave_path_sees_the_mark_where_none_should_be(rig):
    floor, model, rotor, factory = rig
    rotor.slip_at, rotor.slip_by = 3, 3 * SPA                # a bump turns it 3 ants further
    turn(floor, 15, "clockwise")
    assert floor.state == FAULT and "3.0 ants from where it should be" in floor.fault


def test_the_tablet_sees_the_floor_creep_round_while_the_queue_plays(rig):
    floor, model, rotor, factory = rig
    seen = []
    floor.on_change(lambda status: seen.append((status["state"], status["position"])))
    turn(floor, 8, "clockwise")
    moving = [p for state, p in seen if state == "moving"]
    assert len(set(moving)) >= 8                             # about every quarter ant
    assert moving == sorted(moving) and moving[-1] <= 8      # never ahead of the floor
    assert all(b - a <= 1 for a, b in zip(moving, moving[1:]))
    assert seen[-1] == ("idle", 8.0)


def test_a_stall_on_the_wave_path_drops_the_queue(monkeypatch):
    from gpiozero.pins.mock import MockFactory
    monkeypatch.setattr(floor_gpio, "wave_handle", lambda factory: 0)
    factory = MockFactory()
    floor = GpioForestFloor(STEP, DIR, enable_pin=ENABLE, home_pin=None, stall_pin=24, ants_around=16,
                            steps_per_ant=SPA, top_speed=2000, start_speed=500, acceleration=20000,
                            homing_speed=4000, invert_direction=False, pin_factory=factory)
    model = QueueModel()
    floor._tx = model
    try:
        floor.rotate(40, "clockwise")
        time.sleep(0.2)
        factory.pin(24).drive_high()                         # the driver's DIAG: stalled
        assert floor.wait_idle(5)
        assert floor.state == FAULT and "stall" in floor.fault
        assert model.cancels == 1 and model.waiting() == 0
        assert 0 < len(model.rises_until(time.monotonic())) < 40 * SPA
        assert factory.pin(ENABLE).state is True
    finally:
        floor.close()
        factory.close()
