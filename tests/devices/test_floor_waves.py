"""The GPIO floor's wave path end to end, on a model of lgpio's wave queue.

There is no GPIO chip here, so lgpio's transmit thread cannot run. ``QueueModel`` plays
the queued ``lgpio.pulse`` waves the way lgPthTx.c does — back to back on absolute
deadlines from the thread's next wake, at most ``LG_TX_BUF`` queued, all dropped at a
cancel — on a virtual clock the floor reads too, and turns the modelled disc (tests/
devices/floor_rotor.py) on every rising edge, stamping the home sensor's edges with the
edge's own time as lgpio's kernel timestamps would. The results never depend on how
busy the test machine is; a late feeder is a test case of its own. What this proves: the floor feeds the
queue within its room, counts exactly, cancels at once on stop, and catches a jam from
edge times. What only a Pi can show (lgpio's real thread, its timing, the cancel by
freeing the line): docs/forest-floor.md, "Tested where".
"""
from __future__ import annotations

import itertools
import re
import threading
from typing import Any, Callable

import pytest

from controller.devices import floor_gpio
from controller.devices.floor_gpio import GpioForestFloor
from controller.devices.forest_floor import FAULT, IDLE
from controller.devices.pins import ClockedMockFactory
from controller.devices.step_wave import LG_TX_BUF, POLL_S

from tests.devices.floor_rotor import RecordingPin, Rotor

STEP, DIR, ENABLE, HOME = 17, 27, 22, 23
SPA = 40                    # steps per ant
REV = 16 * SPA


@pytest.fixture(scope="module", autouse=True)
def lgpio(tmp_path_factory):
    import os
    os.environ["LG_WD"] = str(tmp_path_factory.mktemp("lgwd"))   # its pipe, out of the worktree
    return pytest.importorskip("lgpio")


class ClockedRecordingPin(RecordingPin):
    """RecordingPin (hooks, for the software-timed homing) whose edges carry the clock's time."""

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed:
            self._last_change = self.factory.ticks()
        return changed


class QueueModel:
    """lgpio's wave queue for one GPIO as lgPthTx.c plays it — back to back on absolute
    deadlines from the thread's next wake, at most ``LG_TX_BUF`` queued, all dropped at a
    cancel — on a virtual clock that the floor reads too (its ``clock``).

    Time passes while the feeder is away: the first clock read of each of its passes is
    ``gaps`` (cycled) later than the pass before, however long the test process really
    took; the reads around one look at the queue see the same instant. Whatever rose in
    between plays then, on the feeder's thread: the disc turns a step per rising edge and
    the home sensor's edges carry that edge's own time, as lgpio's kernel timestamps
    would. So the test's scheduling cannot change a result; a late feeder is a ``gaps``
    entry. ``at_step(n, act)`` runs ``act`` (the driver's DIAG, a stop) as step ``n`` plays.
    """

    def __init__(self, gaps=(POLL_S,), wake: float = 0.00437, preempted: float = 0.0):
        # a new record starts at the thread's next wake: off the feeder's grid of polls, as
        # on a Pi (a wave starting on the very instant of a read is a tie no real clock makes)
        self.wake = wake
        self.t = 1000.0                     # the virtual clock
        self.tick: float | None = None      # the edge being played, for the pins' ticks
        self.gaps = tuple(gaps)
        self.preempted = preempted          # the feeder is away this long after each lead-in
        self._after_lead_in = False
        self._gaps = itertools.cycle(gaps)
        self._just_read = False             # the last thing the feeder did was read the queue
        self.entries: list[dict] = []       # start, end, rises (absolute times), cut
        self.played = 0                     # rising edges played so far
        self.rotor: Rotor | None = None
        self._acts: dict[int, Callable[[], object]] = {}
        self.queued_max = 0
        self.cancels = 0

    # --- the floor's clock and its tx (queue, waiting, cancel) ---------------------------
    def clock(self) -> float:
        if not self._just_read:             # a new pass (or the cancel): time has passed
            self._play_until(self.t + next(self._gaps))
        self._just_read = False
        return self.t

    def ticks(self) -> float:
        """The pin factory's clock: the edge being played, else the virtual now."""
        return self.tick if self.tick is not None else self.t

    def queue(self, pulses) -> int:
        self._just_read = False
        if self._after_lead_in:             # the lead-in may play out meanwhile
            self._play_until(self.t + self.preempted)
        self._after_lead_in = len(pulses) == 1 and not pulses[0].group_bits
        if self.queued() >= LG_TX_BUF:
            raise AssertionError("tx_wave on a full queue (lgpio: TX_QUEUE_FULL)")
        live = self._live()
        start = live[-1]["end"] if live else self.t + self.wake
        t, level, rises = start, 0, []
        for p in pulses:
            if p.group_bits and not level:
                rises.append(t)
            level = p.group_bits
            t += p.pulse_delay / 1e6
        self.entries.append({"start": start, "end": t, "rises": rises, "cut": float("inf")})
        self.queued_max = max(self.queued_max, self.queued())
        return LG_TX_BUF - self.queued()

    def waiting(self) -> int:
        self._just_read = True              # at the instant the clock was just read
        return self.queued()

    def cancel(self) -> None:
        self._just_read = True              # (the clock read right after it: the same instant)
        self.cancels += 1
        for e in self.entries:
            e["cut"] = min(e["cut"], self.t)

    # --- what the test looks at --------------------------------------------------------
    def queued(self) -> int:
        return len(self._live())

    def at_step(self, n: int, act) -> None:
        self._acts[n] = act

    def rises_until(self, t: float) -> list[float]:
        return [r for e in self.entries for r in e["rises"] if r <= min(t, e["cut"])]

    def _live(self) -> list[dict]:
        return [e for e in self.entries if e["end"] > self.t and e["cut"] > self.t]

    def _play_until(self, t: float) -> None:
        rises = self.rises_until(t)
        for r in rises[self.played:]:
            self.t = self.tick = r
            self.played += 1
            if self.rotor is not None:
                self.rotor._on_step(None, True)
            act = self._acts.pop(self.played, None)
            if act is not None:
                act()
        self.tick = None
        self.t = t


@pytest.fixture
def rig(monkeypatch, request):
    """A homed floor on the wave path (homing itself runs the software loop), its queue
    model and the disc. The indirect parameter: how the feeder runs (``FEEDERS``)."""
    RecordingPin.log = []
    monkeypatch.setattr(floor_gpio, "wave_handle", lambda factory: 0)
    model = QueueModel(**FEEDERS[getattr(request, "param", "on-time")])
    factory = ClockedMockFactory(model.ticks, pin_class=ClockedRecordingPin)
    floor = GpioForestFloor(STEP, DIR, enable_pin=ENABLE, home_pin=HOME, stall_pin=None, ants_around=16,
                            steps_per_ant=SPA, top_speed=2000, start_speed=500, acceleration=20000,
                            homing_speed=4000, invert_direction=False, pin_factory=factory,
                            jam_tolerance_ants=1.0, home_mark_steps=1, clock=model.clock)
    floor._tx = model
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=REV, angle=-5)
    floor.home()                            # software loop: pulses STEP, the hooks turn the disc
    assert floor.wait_idle(10) and floor.state == IDLE and not floor.needs_home
    model.rotor = rotor                     # from now on the queue's edges turn it
    yield floor, model, rotor, factory
    floor.close()
    factory.close()


def turn(floor, ants, direction):
    floor.rotate(ants, direction)
    assert floor.wait_idle(20)


FEEDERS: dict[str, dict[str, Any]] = {
    "on-time": {},
    # a busy Pi: every seventh poll 30 ms late
    "late-feeder": {"gaps": (POLL_S,) * 6 + (0.03,)},
    # preempted between queueing the lead-in and the first step: that finds lgpio's queue
    # idle, so it is current at once but starts only at the thread's next wake
    "preempted-while-queueing": {"preempted": 0.01},
}
ALL = pytest.mark.parametrize("rig", FEEDERS, indirect=True)


@ALL
def test_turns_play_every_step_from_the_queue_and_count_exactly(rig):
    floor, model, rotor, factory = rig
    assert floor.step_timing == "wave"
    for ants, direction in ((5, "clockwise"), (14, "clockwise"), (7, "counter_clockwise"),
                            (20, "clockwise")):
        before = model.played
        turn(floor, ants, direction)
        assert floor.state == IDLE, floor.fault
        assert model.played - before == ants * SPA          # the pulses played
        assert rotor.angle % REV == floor.steps % REV       # and the count agrees with the disc
    assert floor.steps == 32 * SPA
    assert model.queued_max <= LG_TX_BUF and model.cancels == 0
    assert factory.pin(ENABLE).state is True                # coils released after the move


@ALL
def test_stop_cancels_the_queue_at_once_and_counts_what_played(rig):
    floor, model, rotor, factory = rig
    pressed = threading.Event()

    def press_stop():
        # the master presses stop as step 500 plays; the world waits (on the floor's own
        # stop flag) until stop() is under way, so the step it lands on is always the same
        pressed.set()
        floor._stop.wait(10)

    model.at_step(500, press_stop)
    floor.rotate(40, "clockwise")                            # 1,600 steps
    assert pressed.wait(10)
    floor.stop()
    # when stop() returns the queue is gone
    assert model.cancels == 1 and model.queued() == 0
    played = model.played
    assert 500 <= played < 40 * SPA
    assert len(model.rises_until(float("inf"))) == played    # nothing after the cancel
    low, high = floor.cancel_window
    assert low <= played <= high
    # known to within a step or two when the feeder saw the first step's wave play; a
    # feeder that missed it (late by a poll of 30 ms) knows the steps only to that poll
    assert high - low <= (2 if max(model.gaps) == POLL_S else 2 + 0.03 * 2000)
    assert abs(floor.steps - played) <= (high - low) // 2 + 1
    assert floor.status()["last_move"]["result"] == "stopped" and floor.needs_home
    assert factory.pin(ENABLE).state is True


@pytest.mark.parametrize("direction", ["clockwise", "counter_clockwise"])
def test_a_jammed_floor_on_the_wave_path_is_a_jam_fault(rig, direction):
    floor, model, rotor, factory = rig
    turn(floor, 4, direction)
    rotor.jammed = True                                      # the disc stops; the pulses go on
    before = model.played
    turn(floor, 30, direction)                               # the mark must pass 12 ants on
    assert floor.state == FAULT and floor.fault.startswith("jam"), floor.fault
    assert "did not turn" in floor.fault
    assert model.cancels == 1                                # the rest of the queue dropped
    # caught after the mark's place plus the tolerance and the edge grace, not at the end
    played = model.played - before
    assert 13 * SPA < played < 30 * SPA
    assert floor.status()["needs_home"] is True


@ALL
def test_a_slip_on_the_wave_path_sees_the_mark_where_none_should_be(rig):
    floor, model, rotor, factory = rig
    rotor.slip_at, rotor.slip_by = 3, 3 * SPA                # a bump turns it 3 ants further
    turn(floor, 15, "clockwise")
    assert floor.state == FAULT and "slipped" in floor.fault, floor.fault
    found = re.search(r"passed (\d+\.\d) ants from where it should be", floor.fault)
    assert found, floor.fault
    off = float(found[1])
    if max(model.gaps) == POLL_S:
        assert off == 3.0
    else:                           # the edge's step known only to the late poll: never more
        assert 1.0 < off <= 3.0     # than the slip, and beyond the tolerance


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
    model = QueueModel()
    floor = GpioForestFloor(STEP, DIR, enable_pin=ENABLE, home_pin=None, stall_pin=24, ants_around=16,
                            steps_per_ant=SPA, top_speed=2000, start_speed=500, acceleration=20000,
                            homing_speed=4000, invert_direction=False, pin_factory=factory,
                            clock=model.clock)
    floor._tx = model
    model.at_step(300, factory.pin(24).drive_high)          # the driver's DIAG: stalled
    try:
        floor.rotate(40, "clockwise")
        assert floor.wait_idle(5)
        assert floor.state == FAULT and "stall" in floor.fault
        assert model.cancels == 1 and model.queued() == 0
        assert 300 <= model.played < 40 * SPA
        assert factory.pin(ENABLE).state is True
    finally:
        floor.close()
        factory.close()
