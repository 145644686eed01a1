"""The forest floor's lgpio path, as far as it runs without a GPIO chip: the trapezoid
turned into lgpio waves (real ``lgpio.pulse`` objects: counts, timings, chunks, the
queue's room), the book that counts steps from what ``tx_room`` shows, the home-mark
check on a window of steps, and which path a pin factory gets. Nothing is transmitted
here (no /dev/gpiochip); docs/forest-floor.md lists what needs a real Pi."""
from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from controller.devices import floor_gpio
from controller.devices.floor_gpio import GpioForestFloor, MarkWatch, ramp_delays
from controller.devices.step_wave import (CHUNK_S, LG_TX_BUF, WaveRun, chunk_steps, rise_times_us,
                                          wave_handle)

LAYOUTS = {"first step alone": None, "10 ms chunks": CHUNK_S}


@pytest.fixture(scope="module")
def lgpio(tmp_path_factory):
    """The real lgpio module; importing it makes its notification pipe in LG_WD, so that
    goes to a temporary directory, not the worktree."""
    import os
    os.environ["LG_WD"] = str(tmp_path_factory.mktemp("lgwd"))
    return pytest.importorskip("lgpio")


TRAPEZOID = dict(start_speed=100, top_speed=800, acceleration=1600)


def play(run: WaveRun) -> list[list]:
    """Queue a whole move as the feeder would if all but one queued wave had played at
    every look: every wave ``next_waves`` hands out, with the room lgpio would report."""
    waves, waiting = [], 0
    while not run.all_queued:
        batch = run.next_waves(LG_TX_BUF - waiting, waiting)
        assert 0 < len(batch) <= LG_TX_BUF - waiting
        waves += batch
        waiting = 1                        # all but the last played before the next look
    return waves


def rising_times(waves) -> list[int]:
    """Rising edges of STEP, in µs from the start of the first wave, as lgpio plays them
    back to back (each pulse: set the bits, then wait its delay)."""
    t, level, out = 0, 0, []
    for wave in waves:
        for p in wave:
            assert p.group_mask == 1        # only STEP, bit 0 of its one-line group
            if p.group_bits and not level:
                out.append(t)
            level = p.group_bits
            t += p.pulse_delay
    return out


# --- the trapezoid as waves ------------------------------------------------------------
def test_rise_times_round_the_running_sum_so_thousands_of_steps_never_drift():
    delays = ramp_delays(5000, **TRAPEZOID)
    rises = rise_times_us(delays)
    assert len(rises) == 5001 and rises[0] == 0
    assert abs(rises[-1] - sum(delays) * 1e6) <= 0.5
    for i, d in enumerate(delays):
        assert abs((rises[i + 1] - rises[i]) - d * 1e6) <= 1


def test_chunks_hold_whole_steps_cover_the_move_once_and_last_about_ten_ms():
    delays = ramp_delays(3000, **TRAPEZOID)
    rises = rise_times_us(delays)
    chunks = chunk_steps(rises, 10_000)
    assert chunks[0].first == 0 and chunks[-1].end == 3000
    assert all(a.end == b.first for a, b in zip(chunks, chunks[1:]))
    assert all(c.steps >= 1 for c in chunks)
    for c in chunks[:-1]:
        assert rises[c.end] - rises[c.first] >= 10_000          # at least the chunk time
        assert rises[c.end - 1] - rises[c.first] < 10_000       # and one step less would not be
    # slow at the ends of the ramp (one step = 10 ms at 100 steps/s), eight at 800 steps/s
    assert chunks[0].steps == 1 and max(c.steps for c in chunks) == 8


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_move_becomes_exactly_its_steps_as_rising_edges_at_their_planned_times(lgpio, layout):
    delays = ramp_delays(1234, **TRAPEZOID)
    run = WaveRun(delays, high_us=5, chunk_s=LAYOUTS[layout], pulse=lgpio.pulse)
    waves = play(run)
    if layout == "first step alone":
        assert [len(w) for w in waves] == [1, 2, 2 * 1233]
    lead = waves[0]
    assert [(p.group_bits, p.pulse_delay) for p in lead] == [(0, 1000)]   # the driver's wake-up
    rises = rising_times(waves)
    assert len(rises) == 1234
    assert rises[0] == 1000
    planned = rise_times_us(delays)
    assert [r - 1000 for r in rises] == planned[:-1]           # every step exactly on plan
    gaps = [b - a for a, b in zip(rises, rises[1:])]
    assert min(g / (d * 1e6) for g, d in zip(gaps, delays)) > 0.99  # none early, none back to back
    highs = [p.pulse_delay for w in waves[1:] for p in w if p.group_bits]
    assert set(highs) == {5}
    assert all(isinstance(p, lgpio.pulse) for w in waves for p in w)


def test_a_single_step_nudge_is_a_lead_in_and_one_step(lgpio):
    run = WaveRun([0.005], pulse=lgpio.pulse)
    waves = play(run)
    assert [len(w) for w in waves] == [1, 2]
    assert rising_times(waves) == [1000]
    assert sum(p.pulse_delay for p in waves[1]) == 5000      # the step's whole interval


def test_lgpio_keeps_almost_nothing_of_a_move_queued_as_the_first_step_and_the_rest(lgpio):
    # lgpio frees a played wave only with its record: every wave but the last stays allocated
    delays = ramp_delays(3200, **TRAPEZOID)
    single = WaveRun(delays, pulse=lgpio.pulse)
    play(single)
    assert single.leaked_bytes() == 24 * (1 + 2)        # the lead-in and the first step
    chunked = WaveRun(delays, chunk_s=CHUNK_S, pulse=lgpio.pulse)
    play(chunked)
    assert chunked.leaked_bytes() > 150_000             # ~48 bytes a step


def test_the_queue_never_gets_more_than_lgpio_has_room_for(lgpio):
    run = WaveRun(ramp_delays(4000, **TRAPEZOID), chunk_s=CHUNK_S, pulse=lgpio.pulse)
    first = run.next_waves(LG_TX_BUF, 0)
    assert len(first) == LG_TX_BUF                 # the lead-in and nine chunks
    assert run.next_waves(0, LG_TX_BUF) == []      # full: nothing
    assert len(run.next_waves(3, LG_TX_BUF - 3)) == 3
    assert run.entries[:2] == [-1, 0] and run.entries[-1] == 11


# --- the book: which steps have happened ------------------------------------------------
class Timeline:
    """When each queued wave plays, given when the first one started (lgpio's transmit
    thread takes a new wave at its next wake) and any lateness from a given entry on:
    used to say what ``tx_room`` would show at a time, so the book can be checked
    against the truth."""

    def __init__(self, run: WaveRun, start: float, late_from: int | None = None, late: float = 0.0):
        self.run, self.start, self.late_from, self.late = run, start, late_from, late
        self.durations: list[float] = []

    def queued(self, waves) -> None:
        self.durations += [sum(p.pulse_delay for p in w) / 1e6 for w in waves]

    def begins(self, i: int) -> float:
        t = self.start + sum(self.durations[:i])
        if self.late_from is not None and i >= self.late_from:
            t += self.late
        return t

    def waiting(self, t: float) -> int:
        """What ``LG_TX_BUF - tx_room`` shows at ``t``: the waves not yet played out."""
        n = len(self.durations)
        for i in range(n):
            end = self.begins(i + 1) if i + 1 < n else self.begins(i) + self.durations[i]
            if t < end:
                return n - i
        return 0

    def steps_by(self, t: float) -> int:
        """Steps that have risen by ``t`` (the truth)."""
        n = 0
        for i, chunk in enumerate(self.run.entries):
            if chunk < 0 or self.begins(i) > t:
                continue
            c = self.run.chunks[chunk]
            base = self.run.rises[c.first]
            n += sum(1 for k in range(c.first, c.end) if self.begins(i) + (self.run.rises[k] - base) / 1e6 <= t)
        return n


def feed(run: WaveRun, line: Timeline, t0: float, until: float, poll: float = 0.001):
    """Look and queue every ``poll`` seconds from ``t0`` to ``until``, as the floor's feeder
    does; checks at every look that the book never claims a step that has not happened."""
    run.begin(t0)
    waiting = 0
    line.queued(run.next_waves(LG_TX_BUF, 0))
    t = t0
    while t < until:
        t += poll
        waiting = line.waiting(t)
        run.look(t, waiting)
        assert run.done_low <= line.steps_by(t)
        line.queued(run.next_waves(LG_TX_BUF - waiting, waiting))
    return t


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_book_brackets_every_step_in_time_and_never_runs_ahead(lgpio, layout):
    delays = ramp_delays(2000, **TRAPEZOID)
    run = WaveRun(delays, chunk_s=LAYOUTS[layout], pulse=lgpio.pulse)
    line = Timeline(run, start=100.0137)           # the transmit thread woke 13.7 ms after queueing
    end = feed(run, line, 100.0, 100.9)
    assert run.lo is not None and run.hi is not None
    true_anchor = line.begins(1)                  # step 0 rises when the first chunk starts
    assert run.lo < true_anchor <= run.hi
    assert run.hi - run.lo <= 0.001               # known to within one look
    for t in (100.2, 100.5, 100.8, end):
        least, best, most = run.estimate(t)
        assert least <= line.steps_by(t) <= most
        assert most - least <= 2                  # within a step or two at up to 800 steps/s


@pytest.mark.parametrize("layout, late_from", [("first step alone", 2), ("10 ms chunks", 20)])
def test_a_late_transmit_thread_moves_the_clock_and_the_bracket_still_holds(lgpio, layout, late_from):
    run = WaveRun(ramp_delays(2000, **TRAPEZOID), chunk_s=LAYOUTS[layout], pulse=lgpio.pulse)
    line = Timeline(run, start=50.004, late_from=late_from, late=0.003)   # from that wave on, 3 ms late
    feed(run, line, 50.0, 50.9)
    for t in (50.5, 50.7, 50.9):
        least, _, most = run.estimate(t)
        assert least <= line.steps_by(t) <= most


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_cancel_mid_wave_counts_what_played(lgpio, layout):
    run = WaveRun(ramp_delays(2000, **TRAPEZOID), chunk_s=LAYOUTS[layout], pulse=lgpio.pulse)
    line = Timeline(run, start=7.002)
    t = feed(run, line, 7.0, 7.6)
    cancel = t + 0.0004
    low, high = run.count_at_cancel(cancel, cancel + 0.00005, line.waiting(cancel))
    truth = line.steps_by(cancel)
    assert low <= truth <= high and high - low <= 2


def test_a_queue_that_ran_dry_restarts_with_a_lead_in_and_a_new_clock(lgpio):
    run = WaveRun(ramp_delays(3000, **TRAPEZOID), chunk_s=CHUNK_S, pulse=lgpio.pulse)
    run.begin(0.0)
    run.next_waves(LG_TX_BUF, 0)
    run.look(0.01, 0)                             # the feeder was away: all nine chunks played
    assert run.done_low == run.chunks[8].end
    waves = run.next_waves(LG_TX_BUF, 0)
    assert [p.group_bits for p in waves[0]] == [0]          # a lead-in first again
    assert run.origin == run.chunks[9].first and run.lo is None
    assert run.steps_at(0.02) == (run.origin, run.steps)    # no clock yet: anything from there


def test_a_wave_queued_into_an_idle_queue_is_no_step_until_it_plays_on(lgpio):
    """The feeder was preempted after the lead-in: that played out, so the first step's
    wave found lgpio's queue idle. It is the current entry at once, but plays only at the
    thread's next wake: no step yet, and no clock from it."""
    run = WaveRun(ramp_delays(2000, **TRAPEZOID), pulse=lgpio.pulse)   # the floor's layout
    run.begin(0.0)
    assert len(run.next_waves(LG_TX_BUF, 0)) == 3       # lead-in, the first step, the rest
    run.queued(LG_TX_BUF - 1)                           # the lead-in, at 0.0
    run.queued(LG_TX_BUF - 1)                           # the first step, at 0.010: queue idle
    run.queued(LG_TX_BUF - 2)                           # the rest, behind it
    run.look(0.011, 2)                                  # the first step's wave is current ...
    assert run.done_low == 0 and run.lo is None         # ... but may not have played
    assert run.estimate(0.011)[:2] == (0, 0)
    assert run.count_at_cancel(0.011, 0.0111, 2) == (0, 2)   # a stop now: none to two steps
    run.look(0.030, 1)              # step 0 rose at 0.019 (a 9 ms wake), the rest from 0.029
    assert run.done_low == 2
    assert run.lo is not None and run.hi is not None
    assert run.lo <= 0.019 <= run.hi                    # the clock, from the rest's start


# --- the home mark on a window of steps ---------------------------------------------------
def watch(start=0, end=4000, tolerance=50):
    return MarkWatch(start, end, revolution=1600, tolerance=tolerance, active_now=False,
                     steps_per_ant=100, confirm=2)


def sighting(w, low, high):
    """The sensor active over a window, then off again a few steps on (a real mark)."""
    return w.level(True, low, high) or w.level(False, high + 3, high + 5)


def test_a_window_that_holds_the_mark_sees_it_and_a_narrow_one_resyncs():
    w = watch()
    assert sighting(w, 1598, 1600) is None
    assert w.take_correction() == 1 and w.reached(1651) is None      # the mark at 1600: seen
    wide = watch()
    assert sighting(wide, 1590, 1620) is None
    assert wide.take_correction() == 0            # not known closely enough to re-sync on


def test_a_window_wholly_away_from_every_mark_is_a_jam_and_a_straddling_one_never_is():
    assert sighting(watch(), 1700, 1702).startswith("jam: the home mark passed 1.0 ants")
    assert sighting(watch(), 1640, 1720) is None  # might have been at 1640: within tolerance


def test_a_blip_shorter_than_the_filter_is_no_sighting():
    w = watch()
    assert w.level(True, 800, 800) is None and w.level(False, 801, 801) is None
    assert w.glitches == 1


def test_a_mark_passed_by_the_steps_known_played_without_an_edge_is_a_jam():
    w = watch()
    assert w.reached(1650) is None                # exactly at the tolerance: not yet
    assert w.reached(1651).startswith("jam: the motor turned the floor past its home mark")


# --- which path a pin factory gets ---------------------------------------------------------
def test_mock_pins_step_in_software_and_say_so():
    f = MockFactory()
    try:
        floor = GpioForestFloor(17, 27, enable_pin=22, home_pin=23, stall_pin=None, ants_around=16,
                                steps_per_ant=4, top_speed=800, start_speed=100, acceleration=1600,
                                homing_speed=200, invert_direction=False, pin_factory=f)
        assert wave_handle(f) is None
        assert floor.step_timing == "software" and floor.status()["step_timing"] == "software"
        floor.close()
    finally:
        f.close()


def test_gpiozero_lgpio_factory_hands_over_its_chip_handle(lgpio):
    from gpiozero.pins.lgpio import LGPIOFactory
    factory = LGPIOFactory.__new__(LGPIOFactory)  # not opened: there is no GPIO chip here
    factory._handle = 3
    assert wave_handle(factory) == 3


def test_an_lgpio_handle_makes_the_floor_queue_waves_on_its_step_line(monkeypatch, lgpio):
    monkeypatch.setattr(floor_gpio, "wave_handle", lambda factory: 5)
    f = MockFactory()
    try:
        floor = GpioForestFloor(17, 27, enable_pin=22, home_pin=None, stall_pin=None, ants_around=16,
                                steps_per_ant=4, top_speed=800, start_speed=100, acceleration=1600,
                                homing_speed=200, invert_direction=False, pin_factory=f)
        assert floor.step_timing == "wave" and floor._tx is not None
        assert (floor._tx.handle, floor._tx.gpio) == (5, 17)
        forced = GpioForestFloor(5, 6, enable_pin=None, home_pin=None, stall_pin=None, ants_around=16,
                                 steps_per_ant=4, top_speed=800, start_speed=100, acceleration=1600,
                                 homing_speed=200, invert_direction=False, pin_factory=f,
                                 step_timing="software")
        assert forced.step_timing == "software"
        with pytest.raises(ValueError, match="step_timing must be one of"):
            GpioForestFloor(7, 8, enable_pin=None, home_pin=None, stall_pin=None, ants_around=16,
                            steps_per_ant=4, top_speed=800, start_speed=100, acceleration=1600,
                            homing_speed=200, invert_direction=False, pin_factory=f, step_timing="dma")
        floor.close()
        forced.close()
    finally:
        f.close()


def test_home_edges_keep_their_own_time_and_gpiozero_still_hears_them():
    f = MockFactory()
    try:
        floor = GpioForestFloor(17, 27, enable_pin=None, home_pin=23, stall_pin=None, ants_around=16,
                                steps_per_ant=4, top_speed=800, start_speed=100, acceleration=1600,
                                homing_speed=200, invert_direction=False, pin_factory=f)
        home = f.pin(23)
        heard = []
        floor.home_in.when_activated = lambda: heard.append("active")
        floor._recording_edges = True
        before = f.ticks()
        home.drive_low()                          # the sensor pulls low at the mark
        home.drive_high()
        edges = list(floor._home_edges)
        assert [a for _, a in edges] == [True, False]
        assert all(before <= t <= f.ticks() for t, _ in edges)
        assert heard == ["active"]                # gpiozero's when_activated still runs
        floor.close()
    finally:
        f.close()
