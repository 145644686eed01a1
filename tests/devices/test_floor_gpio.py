"""The GPIO forest floor under gpiozero's MockFactory: pulses, direction, ramp, enable, homing."""
import threading

import pytest
from gpiozero.pins.mock import MockFactory

from controller.devices.floor_gpio import (HOME_NOT_FOUND, HOME_STUCK, STALL, FloorBusy, GpioForestFloor,
                                           ramp_delays)
from controller.devices.forest_floor import FAULT, IDLE

from tests.devices.floor_rotor import RecordingPin, Rotor

STEP, DIR, ENABLE, HOME, STALL_PIN = 17, 27, 22, 23, 24
SPA = 4  # steps per ant, small so the tests are quick


@pytest.fixture
def factory():
    RecordingPin.log = []
    f = MockFactory(pin_class=RecordingPin)
    yield f
    f.close()


def make(factory, **kw):
    args = dict(enable_pin=ENABLE, home_pin=None, stall_pin=None, ants_around=16, steps_per_ant=SPA,
                top_speed=20000, start_speed=5000, acceleration=1e6, homing_speed=20000,
                invert_direction=False, pin_factory=factory,
                home_mark_steps=1)           # the model disc's mark: one step (no glitch filter)
    args.update(kw)
    return GpioForestFloor(STEP, DIR, **args)


def pin(factory, n):
    return factory.pin(n)


def rising_edges(p):
    return sum(1 for s in p.states[1:] if s.state)


def log_of(name):
    return [(n, v) for n, v in RecordingPin.log if n == name]


def step_count_hook(at, action):
    """A hook for the step pin: run ``action`` when the ``at``-th step pulse rises."""
    seen = {"n": 0}

    def hook(p, value):
        if value:
            seen["n"] += 1
            if seen["n"] == at:
                action()
    return hook, seen


def run(floor, call, *args):
    call(*args)
    assert floor.wait_idle(10)


# --- pulses and direction -----------------------------------------------------------
@pytest.mark.parametrize("ants,direction,invert,level", [
    (3, "clockwise", False, True), (5, "counter_clockwise", False, False),
    (2, "clockwise", True, False), (4, "counter_clockwise", True, True)])
def test_exactly_ants_times_steps_per_ant_pulses_with_the_right_direction(factory, ants, direction,
                                                                        invert, level):
    floor = make(factory, invert_direction=invert)
    step, dir_ = pin(factory, STEP), pin(factory, DIR)
    step.clear_states()
    RecordingPin.log.clear()
    run(floor, floor.rotate, ants, direction)
    assert rising_edges(step) == ants * SPA
    assert dir_.state is level
    # the direction is set before the first pulse and never changes during the move
    first_pulse = RecordingPin.log.index(("GPIO17", True))
    assert all(n != "GPIO27" for n, _ in RecordingPin.log[first_pulse:])
    assert floor.state == IDLE and floor.status()["last_move"]["result"] == "done"
    floor.close()


def test_position_in_ants_follows_the_moves(factory):
    floor = make(factory)
    run(floor, floor.rotate, 3, "clockwise")
    assert floor.position == 3.0
    run(floor, floor.rotate, 5, "counter_clockwise")
    assert floor.position == 14.0          # 3 - 5 round a rim of 16 ants
    assert floor.steps == -2 * SPA
    floor.close()


def test_fractional_steps_per_ant_never_drift(factory):
    floor = make(factory, steps_per_ant=2.5)
    step = pin(factory, STEP)
    step.clear_states()
    for _ in range(4):
        run(floor, floor.rotate, 1, "clockwise")
    assert rising_edges(step) == 10        # 4 ants x 2.5, whatever the rounding of each move
    assert floor.position == 4.0
    floor.close()


# --- ramp -------------------------------------------------------------------------------
def test_ramp_delays_speed_up_cruise_and_slow_down():
    delays = ramp_delays(40, start_speed=100, top_speed=800, acceleration=20000)
    assert len(delays) == 40
    assert delays[0] == delays[-1] == pytest.approx(1 / 100)
    assert min(delays) == pytest.approx(1 / 800)
    middle = delays.index(min(delays))
    assert all(a >= b for a, b in zip(delays[:middle], delays[1:middle + 1]))
    assert all(a <= b for a, b in zip(delays[middle:], delays[middle + 1:]))
    assert delays == delays[::-1]
    short = ramp_delays(5, 100, 800, 20000)   # too short to reach top speed: a triangle
    assert short[2] < short[0] and min(short) > 1 / 800
    assert ramp_delays(0, 100, 800, 20000) == []
    with pytest.raises(ValueError):
        ramp_delays(10, 0, 800, 100)


def test_pulse_spacing_shrinks_then_grows_on_the_pin(factory):
    floor = make(factory, start_speed=100, top_speed=800, acceleration=20000)
    step = pin(factory, STEP)
    step.clear_states()
    run(floor, floor.rotate, 10, "clockwise")   # 40 steps
    t, rises = 0.0, []
    for s in step.states[1:]:
        t += s.timestamp                        # MockPin stores the time since the previous change
        if s.state:
            rises.append(t)
    gaps = [b - a for a, b in zip(rises, rises[1:])]
    assert len(gaps) == 39
    start, cruise, end = sum(gaps[:3]) / 3, min(gaps[15:24]), sum(gaps[-3:]) / 3
    # planned: 10 ms at the ends, 1.25 ms at top speed
    assert cruise * 2 < start and cruise * 2 < end
    floor.close()


def rise_gaps(step):
    t, rises = 0.0, []
    for s in step.states[1:]:
        t += s.timestamp                        # MockPin stores the time since the previous change
        if s.state:
            rises.append(t)
    return [b - a for a, b in zip(rises, rises[1:])]


def test_no_step_comes_sooner_than_nine_tenths_of_its_interval_even_on_a_busy_machine(factory):
    # A CPU-bound thread makes the pulse loop late now and then; a late step is made up for
    # a little at a time, never with two pulses back to back (a loaded motor misses those).
    floor = make(factory, top_speed=800, start_speed=100, acceleration=1600)
    step = pin(factory, STEP)
    step.clear_states()
    busy = threading.Event()

    def hog():                                  # holds the GIL for a while, now and then
        while not busy.wait(0.003):
            sum(range(30000))
    hogger = threading.Thread(target=hog, daemon=True)
    hogger.start()
    try:
        floor.rotate(200, "clockwise")          # 800 steps, as the issue measured
        assert floor.wait_idle(60)
    finally:
        busy.set()
        hogger.join()
    planned = ramp_delays(800, 100, 800, 1600)
    gaps = rise_gaps(step)
    assert len(gaps) == 799
    short = [(i, g, planned[i]) for i, g in enumerate(gaps) if g < 0.9 * planned[i]]
    assert short == []
    floor.close()


# --- enable --------------------------------------------------------------------------
def test_enable_is_held_only_while_moving(factory):
    floor = make(factory)
    enable = pin(factory, ENABLE)
    assert enable.state is True            # A4988/DRV8825/TMC2209 ENABLE is active low: high = coils off
    RecordingPin.log.clear()
    run(floor, floor.rotate, 2, "clockwise")
    assert enable.state is True            # released when idle
    order = [entry for entry in RecordingPin.log if entry[0] in ("GPIO17", "GPIO22")]
    assert order[0] == ("GPIO22", False)   # enabled before the first step
    assert order[-1] == ("GPIO22", True)   # released after the last
    assert order.count(("GPIO17", True)) == 2 * SPA
    floor.close()


def test_enable_active_high_boards(factory):
    floor = make(factory, enable_active_low=False)
    enable = pin(factory, ENABLE)
    assert enable.state is False
    hook, _ = step_count_hook(1, lambda: seen.append(enable.state))
    seen = []
    pin(factory, STEP).hook = hook
    run(floor, floor.rotate, 1, "clockwise")
    assert seen == [True] and enable.state is False
    floor.close()


# --- stop, busy, notifications -------------------------------------------------------------
def test_stop_halts_at_once_and_releases(factory):
    floor = make(factory, start_speed=200, top_speed=200)   # 5 ms a step: plenty of time to stop
    step, enable = pin(factory, STEP), pin(factory, ENABLE)
    three = threading.Event()
    hook, seen = step_count_hook(3, three.set)
    step.hook = hook
    step.clear_states()
    floor.rotate(16, "clockwise")
    assert three.wait(10)
    floor.stop()
    pulses = rising_edges(step)
    assert 3 <= pulses < 16 * SPA
    assert floor.wait_idle(1) and floor.state == IDLE
    assert floor.status()["last_move"]["result"] == "stopped"
    assert rising_edges(step) == pulses     # not one pulse after stop() returned
    assert enable.state is True and step.state is False
    floor.close()


def test_stop_from_a_listener_in_the_motor_thread(factory):
    floor = make(factory)
    step = pin(factory, STEP)
    hook, _ = step_count_hook(5, floor.stop)
    step.hook = hook
    step.clear_states()
    run(floor, floor.rotate, 4, "clockwise")
    assert rising_edges(step) == 5
    assert floor.position == pytest.approx(5 / SPA)
    # the next whole-ant move starts from where the floor really is
    run(floor, floor.rotate, 1, "clockwise")
    assert floor.position == pytest.approx(2.0)
    floor.close()


def test_stop_from_the_first_moving_notice_moves_nothing(factory):
    floor = make(factory)
    step, enable = pin(factory, STEP), pin(factory, ENABLE)
    floor.on_change(lambda status: status["state"] == "moving" and floor.stop())
    step.clear_states()
    enable.clear_states()
    run(floor, floor.rotate, 4, "clockwise")
    assert rising_edges(step) == 0 and len(enable.states) == 1   # the coils were never enabled
    assert floor.state == IDLE and floor.status()["last_move"]["result"] == "stopped"
    floor.close()


def test_busy_floor_refuses_a_second_move(factory):
    floor = make(factory, start_speed=200, top_speed=200)
    started = threading.Event()
    hook, _ = step_count_hook(1, started.set)
    pin(factory, STEP).hook = hook
    floor.rotate(8, "clockwise")
    assert started.wait(10)
    with pytest.raises(FloorBusy):
        floor.rotate(1, "clockwise")
    floor.stop()
    floor.close()


def test_listeners_see_moving_then_idle(factory):
    floor = make(factory)
    seen = []
    floor.on_change(seen.append)
    run(floor, floor.rotate, 2, "counter_clockwise")
    assert seen[0]["state"] == "moving"
    assert seen[-1]["state"] == "idle" and seen[-1]["position"] == 14.0
    assert seen[-1]["last_move"] == {"ants": 2, "direction": "counter_clockwise", "result": "done"}
    assert any(0 < s["position"] < 16 and s["position"] != 14.0 for s in seen[1:-1])   # motion shown
    floor.close()


def test_bad_arguments(factory):
    floor = make(factory)
    with pytest.raises(ValueError):
        floor.rotate(2, "sideways")
    with pytest.raises(ValueError):
        floor.rotate(-1, "clockwise")
    floor.close()
    floor.close()                           # safe twice
    with pytest.raises(RuntimeError):
        floor.rotate(1, "clockwise")


# --- homing ---------------------------------------------------------------------------
def test_homing_stops_on_the_switch_edge(factory):
    floor = make(factory, home_pin=HOME)
    step, home = pin(factory, STEP), pin(factory, HOME)
    assert home.state is True                      # pulled up: the hall sensor is not at the mark
    assert floor.status()["needs_home"] is True
    step.hook, _ = step_count_hook(10, home.drive_low)
    step.clear_states()
    run(floor, floor.home)
    assert rising_edges(step) == 10                # not one step past the edge
    assert floor.state == IDLE and floor.position == 0.0 and floor.steps == 0
    assert floor.status()["needs_home"] is False
    assert pin(factory, DIR).state is True         # approached clockwise
    assert pin(factory, ENABLE).state is True      # released
    floor.close()


def test_missing_home_becomes_a_fault_after_one_point_two_turns(factory):
    floor = make(factory, home_pin=HOME)
    step = pin(factory, STEP)
    step.clear_states()
    run(floor, floor.home)
    assert floor.state == FAULT and floor.fault == HOME_NOT_FOUND
    assert "turn it by hand" in floor.status()["fault"]
    assert rising_edges(step) == 77                # ceil(1.2 x 16 ants x 4 steps)
    assert pin(factory, ENABLE).state is True
    # a fault does not lock the floor: the next move is allowed and clears it
    run(floor, floor.rotate, 1, "clockwise")
    assert floor.state == IDLE and floor.fault is None
    floor.close()


def test_homing_from_on_the_mark_backs_off_then_approaches(factory):
    home = pin(factory, HOME)
    floor = make(factory, home_pin=HOME)
    home.drive_low()                               # sitting on the mark
    step = pin(factory, STEP)
    events = []

    def hook(p, value):
        if value:
            events.append(pin(factory, DIR).state)
            if len(events) == 3:
                home.drive_high()                  # backed off the mark
            if len(events) == 8:
                home.drive_low()                   # and found it again
    step.hook = hook
    run(floor, floor.home)
    assert events == [False] * 3 + [True] * 5
    assert floor.state == IDLE and floor.steps == 0
    floor.close()


def test_home_sensor_that_never_releases_is_a_fault(factory):
    home = pin(factory, HOME)
    floor = make(factory, home_pin=HOME)
    home.drive_low()
    run(floor, floor.home)
    assert floor.state == FAULT and floor.fault == HOME_STUCK
    floor.close()


def test_no_home_sensor_means_home_is_here(factory):
    floor = make(factory)
    run(floor, floor.rotate, 3, "clockwise")
    run(floor, floor.home)
    assert floor.state == IDLE and floor.position == 0.0 and floor.status()["needs_home"] is False
    floor.close()


# --- stall ---------------------------------------------------------------------------------
def test_stall_input_becomes_a_fault(factory):
    floor = make(factory, home_pin=HOME, stall_pin=STALL_PIN)
    step, stall = pin(factory, STEP), pin(factory, STALL_PIN)
    step.hook, _ = step_count_hook(5, stall.drive_high)   # TMC2209 DIAG goes high on a stall
    step.clear_states()
    run(floor, floor.rotate, 4, "clockwise")
    assert floor.state == FAULT and floor.fault == STALL
    assert rising_edges(step) == 5
    assert pin(factory, ENABLE).state is True
    assert floor.status()["needs_home"] is True
    assert floor.status()["last_move"]["result"] == "fault"
    floor.close()


def test_from_config_reads_the_floor_section_and_minus_one_means_not_wired(factory):
    from controller.config import section
    floor = GpioForestFloor.from_config(
        section("forest_floor", step_pin=STEP, dir_pin=DIR, enable_pin=ENABLE, home_pin=-1,
                stall_pin=STALL_PIN, steps_per_ant=float(SPA), top_speed=20000.0,
                start_speed=5000.0, homing_speed=20000.0, invert_direction=True),
        pin_factory=factory)
    try:
        assert floor.home_in is None and floor.stall_in is not None
        assert (floor.ants_around, floor.steps_per_ant, floor.invert_direction) == (16, SPA, True)
        run(floor, floor.rotate, 2, "clockwise")
        assert rising_edges(pin(factory, STEP)) == 2 * SPA
        assert pin(factory, DIR).state is False          # inverted: clockwise is DIR low
    finally:
        floor.close()


# --- jams: the home mark passes where it should ---------------------------------------------
REV = 16 * SPA


def homed_on_rotor(factory, angle=-5, **kw):
    """A floor with a home sensor over a modelled disc, homed (position 0 at the mark)."""
    floor = make(factory, home_pin=HOME, **kw)
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=REV, angle=angle)
    run(floor, floor.home)
    assert floor.state == IDLE and floor.status()["needs_home"] is False
    assert rotor.at_mark()
    return floor, rotor


def test_turns_that_pass_the_mark_where_it_should_be_are_no_jam(factory):
    floor, rotor = homed_on_rotor(factory)
    for ants, direction in ((5, "clockwise"), (14, "clockwise"), (7, "counter_clockwise"),
                            (16, "counter_clockwise"), (40, "clockwise")):
        run(floor, floor.rotate, ants, direction)
        assert floor.state == IDLE, floor.fault
        assert rotor.angle % REV == floor.steps % REV
    floor.close()


@pytest.mark.parametrize("direction", ["clockwise", "counter_clockwise"])
def test_a_jammed_floor_that_should_pass_the_mark_is_a_jam_fault(factory, direction):
    floor, rotor = homed_on_rotor(factory)
    run(floor, floor.rotate, 4, direction)             # away from the mark
    rotor.jammed = True                                # the disc stops; the pulses go on
    step = pin(factory, STEP)
    step.clear_states()
    run(floor, floor.rotate, 16, direction)            # a whole turn: the mark must pass
    assert floor.state == FAULT and floor.fault.startswith("jam")
    assert "did not turn" in floor.fault and "home the floor" in floor.fault
    assert floor.status()["last_move"]["result"] == "fault"
    assert floor.status()["needs_home"] is True
    # caught within the tolerance after the mark's step, not at the end of the move
    assert rising_edges(step) <= 12 * SPA + 0.5 * SPA + 1
    assert pin(factory, ENABLE).state is True          # coils released
    floor.close()


def test_a_floor_that_slipped_sees_the_mark_where_none_should_be(factory):
    floor, rotor = homed_on_rotor(factory)
    rotor.slip_at, rotor.slip_by = 3, 3 * SPA         # a bump turns it 3 ants further
    run(floor, floor.rotate, 15, "clockwise")
    assert floor.state == FAULT and floor.fault.startswith("jam")
    assert "3.0 ants from where it should be" in floor.fault
    floor.close()


def test_a_jam_in_a_move_that_never_reaches_the_mark_cannot_be_seen(factory):
    # the limit, as documented: only a move across the mark (or off it) can tell
    floor, rotor = homed_on_rotor(factory)
    run(floor, floor.rotate, 4, "clockwise")
    rotor.jammed = True
    run(floor, floor.rotate, 3, "clockwise")
    assert floor.state == IDLE
    floor.close()


def test_a_floor_jammed_on_its_mark_is_a_jam_as_soon_as_it_should_have_left_it(factory):
    floor, rotor = homed_on_rotor(factory)            # standing on the mark
    rotor.jammed = True
    run(floor, floor.rotate, 3, "clockwise")           # the sensor never lets go
    assert floor.state == FAULT and floor.fault.startswith("jam")
    floor.close()


def test_after_a_jam_homing_finds_the_mark_and_the_watch_is_back(factory):
    floor, rotor = homed_on_rotor(factory)
    run(floor, floor.rotate, 4, "clockwise")
    rotor.jammed = True
    run(floor, floor.rotate, 16, "clockwise")
    assert floor.state == FAULT
    rotor.jammed = False                               # the master freed it
    run(floor, floor.home)
    assert floor.state == IDLE and rotor.at_mark() and floor.status()["needs_home"] is False
    rotor.jammed = True
    run(floor, floor.rotate, 17, "counter_clockwise")
    assert floor.state == FAULT and floor.fault.startswith("jam")
    floor.close()


def test_no_watch_before_the_first_homing(factory):
    floor = make(factory, home_pin=HOME)
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=REV, angle=-5)
    rotor.jammed = True
    run(floor, floor.rotate, 20, "clockwise")          # the position means nothing yet
    assert floor.state == IDLE
    floor.close()


def test_a_steps_per_ant_a_hair_off_never_adds_up_to_a_false_jam(factory):
    # the disc really turns once in 64 steps; calibration said 4.05 steps an ant (64.8)
    floor = make(factory, home_pin=HOME, steps_per_ant=4.05)
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=REV, angle=-5)
    run(floor, floor.home)
    for _ in range(8):                                  # eight revolutions: 6.4 steps adrift
        run(floor, floor.rotate, 16, "clockwise")
        assert floor.state == IDLE, floor.fault
    off = rotor.angle % REV
    assert min(off, REV - off) <= 1                     # and the disc really is back at home
    floor.close()


def test_a_tolerance_of_half_the_rim_or_more_is_refused(factory):
    with pytest.raises(ValueError, match="jam_tolerance_ants must be above 0 and below half"):
        make(factory, home_pin=HOME, jam_tolerance_ants=8)


# --- the same rule as the Pico's: half an ant, the clockwise re-sync, the glitch filter ---------
WIDE_SPA = 16                       # half an ant = 8 steps; the mark 4 steps wide
WIDE_REV = 16 * WIDE_SPA


class Blip:
    """A spike on the home wire for one step's sample, ``at`` step pulses from now."""

    def __init__(self, factory, rotor, at):
        self.home, self.rotor, self.left = factory.pin(HOME), rotor, at
        self.step_hook = factory.pin(STEP).hook
        factory.pin(STEP).hook = self

    def __call__(self, p, value):
        self.step_hook(p, value)            # the disc turns first
        if value and self.left is not None:
            self.left -= 1
            if self.left == 0:
                self.home.drive_low()       # reads active for this step's sample only
            elif self.left == -1:
                self.rotor._show()          # gone again: the disc's own level
                self.left = None


def wide_floor(factory, angle=-20):
    floor = make(factory, home_pin=HOME, steps_per_ant=WIDE_SPA, home_mark_steps=4)
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=WIDE_REV, angle=angle, mark_width=4)
    run(floor, floor.home)
    assert floor.state == IDLE and rotor.angle % WIDE_REV == 1       # home + the confirming step
    assert floor.mark_confirm == 2 and floor.steps == 1
    run(floor, floor.rotate, 14, "clockwise")                         # where a game finds it
    assert floor.state == IDLE and rotor.angle % WIDE_REV == floor.steps % WIDE_REV
    return floor, rotor


def three_turns(floor):
    ends = []
    for ants, direction in ((6, "clockwise"), (5, "counter_clockwise"), (7, "clockwise")):
        run(floor, floor.rotate, ants, direction)
        ends.append(floor.state)
        if floor.state == FAULT:
            break
    return ends


@pytest.mark.parametrize("bump", [9, 12, 16, -9, -16])     # 0.56 to 1.00 ant, on or back
def test_gpio_a_slip_of_more_than_half_an_ant_is_a_jam_within_three_turns(factory, bump):
    floor, rotor = wide_floor(factory)
    rotor.angle += bump
    assert three_turns(floor)[-1] == FAULT and floor.fault.startswith("jam"), floor.fault
    assert floor.status()["needs_home"] is True
    floor.close()


@pytest.mark.parametrize("bump", [3, 7, -5, -7])
def test_gpio_a_smaller_slip_is_put_right_exactly_on_the_next_clockwise_pass(factory, bump):
    floor, rotor = wide_floor(factory)
    rotor.angle += bump
    assert three_turns(floor) == [IDLE] * 3
    assert rotor.angle % WIDE_REV == floor.steps % WIDE_REV           # exact, not just close
    assert floor.steps == round((14 + 6 - 5 + 7) * WIDE_SPA)          # at the game's goal
    floor.close()


def test_gpio_a_blip_on_the_home_wire_mid_move_is_no_jam(factory):
    floor, rotor = wide_floor(factory)
    Blip(factory, rotor, at=20)             # half a turn from the mark
    run(floor, floor.rotate, 6, "counter_clockwise")
    assert floor.state == IDLE and floor.fault is None
    floor.close()


def test_gpio_a_blip_while_homing_is_not_home(factory):
    floor = make(factory, home_pin=HOME, steps_per_ant=WIDE_SPA, home_mark_steps=4)
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=WIDE_REV, angle=-100, mark_width=4)
    Blip(factory, rotor, at=30)
    run(floor, floor.home)
    assert floor.state == IDLE and rotor.angle % WIDE_REV == 1        # the mark, not the blip
    floor.close()
