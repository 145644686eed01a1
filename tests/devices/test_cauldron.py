"""The cauldron's sensors on gpiozero MockFactory pins: encoder, drop beam, notices."""
from __future__ import annotations

import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from controller.config import section
from controller.devices.cauldron import DISPENSING, MIXING, Cauldron
from controller.devices.colour_sensor import ColourClassifier, SimulatedColourSensor
from controller.devices.pins import ClockedMockFactory
from controller.devices.sim_cauldron import SimClock

A, B, BEAM = 17, 27, 22
# What the default [cauldron] section gives (test_the_default_section_gives_these_settings
# keeps the two in step); each test names what it changes.
SETTINGS = dict(detents_per_rev=20, reverse=False, beam_pull_up=True, beam_dark="low",
                glitch_s=0.001, stuck_s=1.0, max_rev_per_s=2.0)


class Table:
    """Collects what the cauldron reports, as the daemon's table would."""

    def __init__(self):
        self.actions: list[dict] = []
        self.notices: list[dict] = []
        self.fault_seen = threading.Event()

    def sink(self, action):
        self.actions.append(action)
        if action["type"] == "sensor_fault":
            self.fault_seen.set()

    def drops(self):
        return [a for a in self.actions if a["type"] == "drop"]

    def faults(self):
        return [a for a in self.actions if a["type"] == "sensor_fault"]

    def kinds(self):
        return [n["kind"] for n in self.notices]


@pytest.fixture
def rig():
    """A cauldron on fresh mock pins with a hand-driven clock."""
    clock = SimClock(real=False)
    factory = ClockedMockFactory(clock)     # edges stamped by the hand-driven clock
    table = Table()
    made = []

    def make(**kwargs):
        kwargs = {"clock": clock, **SETTINGS, **kwargs}
        cauldron = Cauldron(A, B, BEAM, pin_factory=factory, sink=table.sink,
                            on_notice=table.notices.append, **kwargs)
        made.append(cauldron)
        return cauldron

    class Rig:
        pass

    rig = Rig()
    rig.factory, rig.clock, rig.table, rig.make = factory, clock, table, make
    rig.a, rig.b, rig.beam = (factory.pin(p) for p in (A, B, BEAM))
    yield rig
    for cauldron in made:
        cauldron.close()


def drive(pin, level):
    pin.drive_high() if level else pin.drive_low()


def detent(rig, clockwise=True, seconds=0.05, bounce=0):
    """One detent of the grip: A and B fall and rise in quadrature (pull-ups: rest high).

    ``bounce`` adds contact chatter on the first channel to change at each step.
    """
    first, second = (rig.a, rig.b) if clockwise else (rig.b, rig.a)
    for pin, level in ((first, 0), (second, 0), (first, 1), (second, 1)):
        rig.clock.advance(seconds / 4)
        drive(pin, level)
        if pin is first:
            for _ in range(bounce):
                drive(pin, 1 - level)
                drive(pin, level)


def pulse(rig, seconds, dark_low=True):
    drive(rig.beam, 0 if dark_low else 1)
    rig.clock.advance(seconds)
    drive(rig.beam, 1 if dark_low else 0)


# --- the twist-grip -------------------------------------------------------------
def test_clockwise_turning_counts_detents_as_dispensing(rig):
    cauldron = rig.make()
    for _ in range(7):
        detent(rig, clockwise=True)
    assert cauldron.status()["position"] == 7
    assert cauldron.status()["direction"] == DISPENSING


def test_counter_clockwise_turning_is_mixing(rig):
    cauldron = rig.make()
    for _ in range(5):
        detent(rig, clockwise=False)
    status = cauldron.status()
    assert status["position"] == -5
    assert status["direction"] == MIXING
    assert status["revolutions"] == -0.25


def test_contact_bounce_on_one_channel_does_not_change_the_count(rig):
    cauldron = rig.make()
    for _ in range(6):
        detent(rig, clockwise=True, bounce=2)
    for _ in range(4):
        detent(rig, clockwise=False, bounce=3)
    assert cauldron.status()["position"] == 2
    assert cauldron.status()["direction"] == MIXING


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(st.tuples(st.booleans(), st.integers(0, 3)), min_size=1, max_size=30))
def test_any_mix_of_directions_with_jitter_is_counted_exactly(rig, turns):
    cauldron = rig.make()
    try:
        for clockwise, bounce in turns:
            detent(rig, clockwise=clockwise, bounce=bounce)
        expected = sum(1 if cw else -1 for cw, _ in turns)
        assert cauldron.status()["position"] == expected
        assert cauldron.status()["direction"] == (DISPENSING if turns[-1][0] else MIXING)
    finally:
        cauldron.close()


def test_reversed_encoder_swaps_the_meaning_of_the_directions(rig):
    cauldron = rig.make(reverse=True)
    for _ in range(3):
        detent(rig, clockwise=False)
    assert cauldron.status()["position"] == 3
    assert cauldron.status()["direction"] == DISPENSING


def test_a_half_finished_detent_counts_nothing(rig):
    cauldron = rig.make()
    drive(rig.a, 0)
    drive(rig.b, 0)
    drive(rig.b, 1)
    drive(rig.a, 1)  # the grip wobbled back to where it was
    assert cauldron.status()["position"] == 0


# --- the drop beam ---------------------------------------------------------------
def test_each_3ms_pulse_is_exactly_one_drop(rig):
    cauldron = rig.make()
    for _ in range(10):
        pulse(rig, 0.003)
        rig.clock.advance(0.2)
    cauldron.flush()
    assert rig.table.actions == [{"type": "drop"}] * 10
    assert cauldron.status()["drops_seen"] == 10


@pytest.mark.parametrize("ms", [1.0, 3, 8, 15, 40])
def test_pulses_of_a_real_ball_count_once(rig, ms):
    cauldron = rig.make()
    pulse(rig, ms / 1000)
    cauldron.flush()
    assert rig.table.drops() == [{"type": "drop"}]


def test_a_half_millisecond_glitch_is_ignored(rig):
    cauldron = rig.make()
    pulse(rig, 0.0005)
    cauldron.flush()
    assert rig.table.actions == []
    assert cauldron.status()["glitches_ignored"] == 1
    pulse(rig, 0.003)  # the next real drop still counts
    cauldron.flush()
    assert rig.table.actions == [{"type": "drop"}]


def test_beam_stuck_dark_for_2s_is_one_fault_and_no_drop(rig):
    cauldron = rig.make()  # default stuck limit: 1 s
    pulse(rig, 2.0)
    cauldron.flush()
    assert rig.table.drops() == []
    assert len(rig.table.faults()) == 1
    assert "stuck" in rig.table.faults()[0]["message"]
    pulse(rig, 0.003)  # the sensor works again afterwards
    cauldron.flush()
    assert rig.table.drops() == [{"type": "drop"}]


def real_time_cauldron(rig, **kwargs):
    """A cauldron whose clock and edge ticks are real time plus what the test adds: the
    watchdog judges a dark beam by its edge's own time, so that time must pass too."""
    clock = SimClock(real=True)
    factory = ClockedMockFactory(clock)
    cauldron = Cauldron(A, B, BEAM, pin_factory=factory, sink=rig.table.sink,
                        on_notice=rig.table.notices.append, clock=clock,
                        **{**SETTINGS, **kwargs})
    return cauldron, clock, factory.pin(BEAM), factory


def test_stuck_beam_is_reported_while_still_dark_and_only_once(rig):
    cauldron, clock, beam, factory = real_time_cauldron(rig, stuck_s=0.3)
    try:
        drive(beam, 0)
        assert rig.table.fault_seen.wait(timeout=10), "no sensor fault while the beam stayed dark"
        assert cauldron.status()["fault"] is not None
        assert cauldron.status()["beam"] == "dark"
        drive(beam, 1)
        cauldron.flush()
        assert len(rig.table.faults()) == 1
        assert rig.table.drops() == []
        assert cauldron.status()["fault"] is None
        assert "beam_ok" in rig.table.kinds()
        drive(beam, 0)
        clock.advance(0.004)               # the edges' clock
        drive(beam, 1)
        cauldron.flush()
        assert rig.table.drops() == [{"type": "drop"}]
    finally:
        cauldron.close()
        factory.close()


def test_beam_stuck_dark_for_2_real_seconds_at_the_default_limit(rig):
    cauldron, clock, beam, factory = real_time_cauldron(rig)
    try:
        drive(beam, 0)
        assert rig.table.fault_seen.wait(timeout=10)
        drive(beam, 1)
        cauldron.flush()
        assert rig.table.drops() == []
        assert len(rig.table.faults()) == 1
    finally:
        cauldron.close()
        factory.close()


def test_beam_that_is_dark_when_high(rig):
    cauldron = rig.make(beam_pull_up=False, beam_dark="high")
    pulse(rig, 0.004, dark_low=False)
    pulse(rig, 0.0004, dark_low=False)
    cauldron.flush()
    assert rig.table.drops() == [{"type": "drop"}]
    assert cauldron.status()["beam"] == "clear"


def test_a_beam_already_dark_at_start_up_is_timed_from_start_up(rig):
    # A floating input reads low on mock pins: dark, for a beam that is dark when low.
    cauldron = rig.make(beam_pull_up=None, beam_dark="low")
    assert cauldron.status()["beam"] == "dark"
    rig.clock.advance(2.0)
    drive(rig.beam, 1)
    cauldron.flush()
    assert [a["type"] for a in rig.table.actions] == ["sensor_fault"]


def test_drop_carries_the_colour_the_sensor_saw(rig):
    sensor = SimulatedColourSensor(seed=3)
    cauldron = rig.make(colour_sensor=sensor)
    for colour in ("blue", "orange", "red"):
        sensor.present(colour)
        pulse(rig, 0.004)
        cauldron.flush()
    assert rig.table.drops() == [{"type": "drop", "colour": c} for c in ("blue", "orange", "red")]
    assert cauldron.status()["last_drop_colour"] == "red"


def test_uncalibrated_colour_sensor_leaves_the_colour_to_the_tablet(rig):
    sensor = SimulatedColourSensor(seed=3, classifier=ColourClassifier({}))
    sensor.present("green")
    cauldron = rig.make(colour_sensor=sensor)
    pulse(rig, 0.004)
    cauldron.flush()
    assert rig.table.actions == [{"type": "drop"}]


def test_a_failing_colour_sensor_is_one_fault_and_the_drops_still_count(rig):
    class Unplugged(SimulatedColourSensor):
        def read_rgbc(self):
            raise OSError("I2C remote I/O error")

    cauldron = rig.make(colour_sensor=Unplugged())
    pulse(rig, 0.004)
    pulse(rig, 0.004)
    cauldron.flush()
    assert rig.table.drops() == [{"type": "drop"}, {"type": "drop"}]
    assert len(rig.table.faults()) == 1
    assert "colour sensor" in rig.table.faults()[0]["message"]


def test_wait_for_drop(rig):
    cauldron = rig.make()
    assert cauldron.wait_for_drop(timeout=0.01) is False
    before = cauldron.status()["drops_seen"]
    result = []
    waiter = threading.Thread(
        target=lambda: result.append(cauldron.wait_for_drop(timeout=30, after=before)))
    waiter.start()
    pulse(rig, 0.003)  # before or while the waiter waits: either way it is seen
    waiter.join()
    assert result == [True]
    pulse(rig, 0.0002)  # a glitch wakes nobody
    assert cauldron.wait_for_drop(timeout=0.01) is False


def test_beam_waiter_misses_no_drop_and_counts_none_twice(rig):
    cauldron = rig.make()
    wait = cauldron.beam_waiter()
    pulse(rig, 0.003)   # falls before anyone waits
    pulse(rig, 0.003)
    assert wait(0.01) is True
    assert wait(0.01) is True
    assert wait(0.01) is False


def test_a_crashing_consumer_does_not_stop_later_drops(rig):
    cauldron = rig.make()
    seen = []

    def sink(action):
        seen.append(action)
        if len(seen) == 1:
            raise RuntimeError("database busy")

    cauldron.sink = sink
    pulse(rig, 0.003)
    pulse(rig, 0.003)
    cauldron.flush()
    assert len(seen) == 2


# --- notices for the players ---------------------------------------------------------
def test_a_full_clockwise_turn_without_a_drop_says_stuck(rig):
    cauldron = rig.make(detents_per_rev=20)
    for _ in range(19):
        detent(rig)
    cauldron.flush()
    assert rig.table.notices == []
    detent(rig)
    cauldron.flush()
    assert rig.table.kinds() == ["stuck"]
    message = rig.table.notices[0]["message"].lower()
    assert "the cauldron may be stuck: turn back a little, then forward again" in message
    assert rig.table.actions == []  # a notice is not a game action


def test_a_drop_during_the_turn_means_not_stuck(rig):
    cauldron = rig.make(detents_per_rev=20)
    for _ in range(15):
        detent(rig)
    pulse(rig, 0.004)
    for _ in range(15):
        detent(rig)
    cauldron.flush()
    assert "stuck" not in rig.table.kinds()


def test_turning_back_a_little_starts_the_count_again(rig):
    cauldron = rig.make(detents_per_rev=20)
    for _ in range(15):
        detent(rig)
    detent(rig, clockwise=False)
    for _ in range(15):
        detent(rig)
    cauldron.flush()
    assert "stuck" not in rig.table.kinds()


def test_mixing_never_says_stuck(rig):
    cauldron = rig.make(detents_per_rev=20)
    for _ in range(60):
        detent(rig, clockwise=False)
    cauldron.flush()
    assert "stuck" not in rig.table.kinds()


def test_two_empty_revolutions_say_stuck_twice(rig):
    cauldron = rig.make(detents_per_rev=12)
    for _ in range(24):
        detent(rig)
    cauldron.flush()
    assert rig.table.kinds() == ["stuck", "stuck"]


def test_fast_turning_says_turn_gently_once_per_fast_spell(rig):
    cauldron = rig.make(detents_per_rev=20, max_rev_per_s=3.0)
    for _ in range(40):
        detent(rig, seconds=0.005)  # 10 revolutions per second
    cauldron.flush()
    assert rig.table.kinds().count("too_fast") == 1
    assert "turn gently" in rig.table.notices[0]["message"].lower()
    for _ in range(10):
        detent(rig, seconds=0.1)   # calm again ...
    for _ in range(10):
        detent(rig, seconds=0.005)  # ... and wild again
    cauldron.flush()
    assert rig.table.kinds().count("too_fast") == 2


def test_gentle_turning_is_fine(rig):
    cauldron = rig.make(detents_per_rev=20, max_rev_per_s=3.0)
    for _ in range(19):
        detent(rig, seconds=0.05)  # 1 revolution per second
        detent(rig, clockwise=False, seconds=0.05)
    cauldron.flush()
    assert "too_fast" not in rig.table.kinds()


def test_fast_mixing_also_says_turn_gently(rig):
    cauldron = rig.make(detents_per_rev=20, max_rev_per_s=2.0)
    for _ in range(10):
        detent(rig, clockwise=False, seconds=0.01)
    cauldron.flush()
    assert rig.table.kinds() == ["too_fast"]


# --- releasing the pins ---------------------------------------------------------------
def test_close_releases_every_pin_for_a_new_cauldron(rig):
    first = rig.make()
    first.close()
    first.close()  # twice is harmless
    second = rig.make()
    detent(rig)
    pulse(rig, 0.003)
    second.flush()
    assert second.status()["position"] == 1
    assert first.status()["position"] == 0
    assert rig.table.drops() == [{"type": "drop"}]


def test_a_closed_cauldron_reports_nothing(rig):
    cauldron = rig.make()
    cauldron.close()
    pulse(rig, 0.003)
    detent(rig)
    assert rig.table.actions == []
    assert cauldron.status()["position"] == 0


def test_bad_settings_are_refused_with_a_reason(rig):
    with pytest.raises(ValueError, match="detents"):
        rig.make(detents_per_rev=0)
    with pytest.raises(ValueError, match="beam_dark"):
        rig.make(beam_dark="dim")
    with pytest.raises(ValueError, match="shorter"):
        rig.make(glitch_s=2.0, stuck_s=1.0)


def test_the_default_section_gives_these_settings(rig):
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=rig.factory)
    try:
        assert cauldron.colour_sensor is None          # the default: no colour sensor
        assert {name: getattr(cauldron, name) for name in
                ("detents_per_rev", "reverse", "glitch_s", "stuck_s", "max_rev_per_s")} == \
            {name: SETTINGS[name] for name in
             ("detents_per_rev", "reverse", "glitch_s", "stuck_s", "max_rev_per_s")}
        assert cauldron.beam_dark is False             # pulled up: light until a ball passes
        assert cauldron.status()["beam"] == "clear"
    finally:
        cauldron.close()


def test_from_config_reads_the_cauldron_section(rig):
    cauldron = Cauldron.from_config(section("cauldron", detents_per_revolution=4, glitch_ms=2.0,
                                            stuck_beam_seconds=0.5, encoder_reverse=True),
                                    pin_factory=rig.factory, sink=rig.table.sink,
                                    on_notice=rig.table.notices.append, clock=rig.clock)
    try:
        assert cauldron.colour_sensor is None          # the default: no colour sensor
        pulse(rig, 0.0015)  # below the 2 ms configured here
        for _ in range(4):
            detent(rig, clockwise=False, seconds=0.25)  # reversed: this is dispensing
        cauldron.flush()
        assert rig.table.actions == []
        assert rig.table.kinds() == ["stuck"]
        pulse(rig, 0.6)     # over the 0.5 s stuck limit
        cauldron.flush()
        assert [a["type"] for a in rig.table.actions] == ["sensor_fault"]
    finally:
        cauldron.close()


def test_from_config_beam_active_high(rig):
    cauldron = Cauldron.from_config(section("cauldron", beam_active_low=False), pin_factory=rig.factory,
                                    sink=rig.table.sink, clock=rig.clock)
    try:
        pulse(rig, 0.004, dark_low=False)
        cauldron.flush()
        assert rig.table.drops() == [{"type": "drop"}]
    finally:
        cauldron.close()


# --- lost edges, and the watchdog on edge times (issue 25) ------------------------------------
class HeldCallbacks:
    """Stands between the beam pin and the cauldron as lgpio's callback thread does: hands
    the dark edge on at once and holds the light one back until ``release()``, with the
    edge's own tick (a thread held up, or an event that never comes)."""

    def __init__(self, pin):
        self.deliver = pin.when_changed          # the cauldron's own pin callback
        self.held: list[tuple[float, bool]] = []
        self._relay = self._on_edge
        pin.when_changed = self._relay           # gpiozero holds callbacks weakly: keep it

    def _on_edge(self, ticks, state):
        if state:
            self.held.append((ticks, state))     # light: late
        else:
            self.deliver(ticks, state)

    def release(self):
        for ticks, state in self.held:
            self.deliver(ticks, state)
        self.held.clear()


def wait_until(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "not within the deadline"
        time.sleep(0.01)


def test_a_callback_thread_held_up_past_the_stuck_limit_still_counts_the_drop(rig):
    cauldron, clock, beam, factory = real_time_cauldron(rig, stuck_s=0.3)
    held = HeldCallbacks(beam)
    try:
        drive(beam, 0)
        clock.advance(0.004)
        drive(beam, 1)                           # the ball has passed; its light edge waits
        wait_until(lambda: cauldron.watchdog_looks >= 1)   # the watchdog looked: beam clear
        assert rig.table.faults() == [] and cauldron.status()["fault"] is None
        held.release()                           # the thread catches up, well past 0.3 s
        cauldron.flush()
        assert rig.table.drops() == [{"type": "drop"}] and rig.table.faults() == []
    finally:
        cauldron.close()
        factory.close()


def test_a_light_edge_that_never_comes_is_a_lost_edge_not_a_stuck_beam(rig):
    cauldron, clock, beam, factory = real_time_cauldron(rig, stuck_s=0.3)
    HeldCallbacks(beam)                          # never released: the event was lost
    try:
        drive(beam, 0)
        clock.advance(0.004)
        drive(beam, 1)
        wait_until(lambda: cauldron.status()["edges_lost"] == 1)
        cauldron.flush()
        assert rig.table.faults() == [] and cauldron.status()["beam"] == "clear"
        lost = [n for n in rig.table.notices if n["kind"] == "sensor"]
        assert len(lost) == 1 and "may not have been counted" in lost[0]["message"]
    finally:
        cauldron.close()
        factory.close()


def test_an_impossible_sequence_of_levels_is_a_lost_edge(rig):
    cauldron = rig.make()
    callback = rig.beam.when_changed             # the levels as the pin factory hands them over
    callback(rig.clock(), False)                 # dark
    rig.clock.advance(0.004)
    callback(rig.clock(), False)                 # dark again: the light edge between was lost
    rig.clock.advance(0.004)
    callback(rig.clock(), True)                  # light: the second ball, 4 ms
    rig.clock.advance(1.5)
    callback(rig.clock(), True)                  # light again: a dark edge was lost
    cauldron.flush()
    assert cauldron.status()["edges_lost"] == 2
    assert rig.table.drops() == [{"type": "drop"}]           # the ball that was timed
    assert [n["kind"] for n in rig.table.notices].count("sensor") == 2
