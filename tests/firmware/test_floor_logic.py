"""Homing, moves, faults and refusals of firmware/floor.py on a fake stepper."""
from __future__ import annotations

from controller.firmware import floorproto as P

import pytest

from .fakes import FakeClock, FakeStepper, run


def config(*fields):
    """CONFIG's fields as the link hands them to the floor: from the bytes."""
    return P.unpack_config(P.pack_config(*fields))


def home(rig):
    floor, stepper, clock = rig
    assert floor.home() == 0
    return run(floor, stepper, clock)


# --- homing ----------------------------------------------------------------------
def test_homing_stops_on_the_mark_and_calls_it_zero(rig):
    floor, stepper, _ = rig
    assert home(rig) == "idle"
    assert floor.homed and floor.position() == 0
    assert stepper.steps % 160 == 0                    # the first step that saw the mark
    assert not stepper.enabled                         # coils released when idle


def test_homing_from_on_the_mark_steps_off_and_comes_round(fw, rig):
    floor, stepper, _ = rig
    stepper.steps = 1                                  # inside the 3-step sensor window
    assert home(rig) == "idle"
    assert stepper.steps == 160                        # went all the way round to the edge


def test_homing_without_a_mark_is_a_fault_after_1_2_turns(rig):
    floor, stepper, _ = rig
    stepper.magnet = False
    start = stepper.steps
    assert home(rig) == "fault"
    assert P.FAULT_NAMES[floor.fault] == "home_not_found"
    assert stepper.steps - start == 192                # 1.2 x 160 steps, then it gave up
    assert not floor.homed and not stepper.enabled


def test_homing_keeps_the_fifo_full_so_its_speed_does_not_depend_on_the_loop(fw, rig):
    # 123 steps to the mark: the loop only tops the 8-word FIFO up, never one step a pass.
    floor, stepper, clock = rig
    passes = 0
    floor.home()
    while floor.state == P.HOMING:
        floor.service()
        stepper.drain()
        passes += 1
    assert floor.homed and stepper.steps == 160
    # (and then a few passes standing on the mark to be sure the sensor holds it)
    assert passes <= 123 // 8 + 2 + fw.floor.HOME_CONFIRM_PASSES
    assert set(stepper.intervals) == {fw.motion.constant_interval_us(500)}   # home speed, steady


def test_homing_stops_on_the_marks_edge_even_with_steps_still_queued(fw, rig):
    floor, stepper, clock = rig
    floor.home()
    floor.service()
    while not stepper.stopped:
        stepper.drain(1)                               # the port stops on the edge by itself
        floor.service() if stepper.in_flight() == 0 else None
    assert stepper.in_flight() > 0                     # pulses were still queued past the mark
    for _ in range(fw.floor.HOME_CONFIRM_PASSES):      # the sensor holds the mark: home
        floor.service()
    assert floor.homed and floor.position() == 0 and stepper.steps == 160


def test_a_new_home_clears_a_fault(rig):
    floor, stepper, _ = rig
    stepper.magnet = False
    home(rig)
    stepper.magnet = True
    assert home(rig) == "idle" and floor.fault == P.NO_FAULT


# --- moves -------------------------------------------------------------------------
def test_move_to_turns_exactly_the_difference_each_way(rig):
    floor, stepper, clock = rig
    home(rig)
    assert floor.move_to(30) == 0
    assert run(floor, stepper, clock) == "idle"
    assert stepper.steps == 160 + 30 - 0 and floor.position() == 30
    assert floor.move_to(-20) == 0
    run(floor, stepper, clock)
    assert floor.position() == -20 and stepper.steps == 160 - 20


def test_the_same_target_twice_turns_once(rig):
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(40)
    floor.service()
    assert floor.move_to(40) == 0                      # again while moving
    run(floor, stepper, clock)
    assert floor.move_to(40) == 0                      # again when there
    run(floor, stepper, clock)
    assert floor.position() == 40 and stepper.steps == 200


def test_a_new_target_while_moving_follows_on(rig):
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(40)
    floor.service()
    stepper.drain(5)
    assert floor.move_to(10) == 0
    run(floor, stepper, clock)
    assert floor.position() == 10 and stepper.steps == 170


def test_moves_need_a_homed_floor(rig):
    floor, _, _ = rig
    assert floor.move_to(10) == P.ERR_NOT_HOMED


def test_an_overlong_move_is_refused_and_nothing_turns(rig):
    floor, stepper, _ = rig
    home(rig)
    assert floor.move_to(321) == P.ERR_TOO_LONG
    assert floor.state == P.IDLE and stepper.steps == 160


def test_config_while_moving_is_refused(rig):
    floor, _, _ = rig
    home(rig)
    floor.move_to(50)
    floor.service()
    assert floor.configure(config(160, 1, 1, 1, 1, 0)) == P.ERR_BUSY


def test_invert_swaps_the_dir_level_but_not_the_position(rig):
    floor, stepper, clock = rig
    assert floor.configure(config(160, 2000, 20000, 500, 320, P.FLAG_INVERT)) == 0
    floor.home()
    floor.service()
    assert stepper.forward is False                    # homing "forward" is DIR low now


# --- stop, stall, watchdog -------------------------------------------------------------
def test_stop_halts_at_once_and_keeps_the_position(rig):
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(100)
    floor.service()
    stepper.drain(3)
    floor.stop()
    assert floor.state == P.IDLE and not stepper.enabled and stepper.in_flight() == 0
    assert floor.position() == 3 == floor.target
    assert stepper.steps == 163


def test_a_stall_stops_the_move_and_is_a_fault(rig):
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(100)
    floor.service()
    stepper.drain(4)
    stepper.stall = True
    floor.service()
    assert floor.state == P.FAULTED and P.FAULT_NAMES[floor.fault] == "stall"
    assert not floor.homed and not stepper.enabled and stepper.in_flight() == 0
    assert floor.move_to(0) == P.ERR_NOT_HOMED         # a guessed position is not trusted


def test_a_stall_during_homing_is_a_fault_too(rig):
    floor, stepper, clock = rig
    floor.home()
    floor.service()
    stepper.stall = True
    floor.service()
    assert P.FAULT_NAMES[floor.fault] == "stall"


def test_a_move_that_never_finishes_is_an_overlong_move_fault(rig):
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(100)
    stepper.frozen = True                              # pulses are never taken
    assert run(floor, stepper, clock, until=("fault",), tick_ms=10) == "fault"
    assert P.FAULT_NAMES[floor.fault] == "move_timeout"


# --- jam watch ------------------------------------------------------------------------
def test_moves_past_the_mark_either_way_are_no_jam(rig):
    floor, stepper, clock = rig
    home(rig)
    for target in (300, 60, -100, 150, -10, 20):
        assert floor.move_to(target) == 0
        assert run(floor, stepper, clock) == "idle", target
        assert floor.fault == P.NO_FAULT and floor.homed
        assert stepper.steps - 160 == target


def test_a_jammed_floor_that_should_pass_the_mark_is_a_jam(rig):
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(60)
    run(floor, stepper, clock)
    stepper.jammed = True                              # stuck off the mark; pulses go on
    floor.move_to(200)                                 # passes step 160, the mark's place
    assert run(floor, stepper, clock) == "fault"
    assert P.FAULT_NAMES[floor.fault] == "jam"
    assert not floor.homed and not stepper.enabled
    assert 160 + 10 < floor.position() <= 160 + 10 + 8 + 1     # just past the window
    assert floor.move_to(0) == P.ERR_NOT_HOMED


def test_a_jammed_floor_still_on_the_mark_is_a_jam(rig):
    floor, stepper, clock = rig
    home(rig)
    stepper.jammed = True                              # the sensor keeps seeing the mark
    floor.move_to(100)
    assert run(floor, stepper, clock) == "fault"
    assert P.FAULT_NAMES[floor.fault] == "jam"
    assert floor.position() < 100


def test_a_floor_that_slipped_meets_the_mark_in_the_wrong_place(rig):
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(100)
    run(floor, stepper, clock)
    stepper.steps += 30                                # it was pushed on 30 steps unseen
    floor.move_to(150)                                 # the mark comes at 130: 30 too early
    assert run(floor, stepper, clock) == "fault"
    assert P.FAULT_NAMES[floor.fault] == "jam"


def test_a_leg_that_ends_near_the_mark_is_not_judged(rig):
    # A calibration nudge may stop short of the mark: no verdict until it is passed.
    floor, stepper, clock = rig
    home(rig)
    floor.move_to(150)
    run(floor, stepper, clock)
    stepper.jammed = True
    floor.move_to(158)                                 # inside the window, short of 160
    assert run(floor, stepper, clock) == "idle" and floor.fault == P.NO_FAULT


def test_with_the_jam_watch_off_a_guessed_turn_never_jams(fw, rig):
    # Calibrating: the host believes 128 steps a turn, the floor really takes 160.
    floor, stepper, clock = rig
    assert floor.configure(config(128, 2000, 20000, 500, 320, P.FLAG_NO_JAM_WATCH)) == 0
    assert not floor.jam_watch
    home(rig)
    floor.move_to(200)                                 # meets the real mark at 160, 32 off 128
    assert run(floor, stepper, clock) == "idle" and floor.fault == P.NO_FAULT
    # the same with the watch on: a jam
    assert floor.configure(config(128, 2000, 20000, 500, 320, 0)) == 0 and floor.jam_watch
    home(rig)
    floor.move_to(200)
    assert run(floor, stepper, clock) == "fault" and P.FAULT_NAMES[floor.fault] == "jam"


# --- the slip reproducer of issue 25: half an ant, and the clockwise re-sync ----------------
ANT = 200                                             # 16 ants x 200 steps = 3200 a turn
TURNS = (6, -5, 7)                                    # three turns of the master's, from ant 14


def a_game_floor(fw):
    """A 3200-step floor homed and standing at ant 14, as a game might find it."""
    clock = FakeClock()
    stepper = FakeStepper(steps_per_rev=16 * ANT, home_width=20, start=2000)
    floor = fw.floor.Floor(stepper, clock, steps_per_rev=16 * ANT, top_speed=20000,
                           acceleration=200000, home_speed=5000, max_move=2 * 16 * ANT)
    floor.home()
    assert run(floor, stepper, clock) == "idle" and floor.homed
    floor.move_to(14 * ANT)
    assert run(floor, stepper, clock) == "idle" and floor.fault == P.NO_FAULT
    return floor, stepper, clock


def play(floor, stepper, clock):
    """The three turns; the name of each turn's end."""
    ends, goal = [], floor.target
    for ants in TURNS:
        goal += ants * ANT
        assert floor.move_to(goal) == 0
        ends.append(run(floor, stepper, clock))
        if ends[-1] == "fault":
            break
    return ends


def disc_off(floor, stepper):
    """How far the disc stands from where the count says, in steps."""
    return (stepper.steps - floor.position()) % (16 * ANT)


@pytest.mark.parametrize("bump", [101, 150, 199, 201, -101, -150, -199, -201])
def test_a_slip_of_more_than_half_an_ant_is_a_jam_within_three_turns(fw, bump):
    floor, stepper, clock = a_game_floor(fw)
    stepper.steps += bump                              # knocked on (or back) behind the count
    ends = play(floor, stepper, clock)
    assert ends[-1] == "fault" and P.FAULT_NAMES[floor.fault] == "jam", (bump, ends)
    assert not floor.homed                             # the next turn homes first


@pytest.mark.parametrize("bump", [1, 37, 99, -1, -60, -99])
def test_a_slip_of_less_than_half_an_ant_is_put_right_exactly_on_the_next_clockwise_pass(fw, bump):
    floor, stepper, clock = a_game_floor(fw)
    stepper.steps += bump
    assert play(floor, stepper, clock) == ["idle"] * 3
    assert floor.fault == P.NO_FAULT and floor.homed and floor.resyncs >= 1
    assert disc_off(floor, stepper) == 0               # the disc is exactly where the count says
    assert floor.position() == floor.target            # ... and that is where the game wanted it


def test_a_glitch_on_the_wire_far_from_the_mark_is_no_jam(rig):
    floor, stepper, clock = rig
    home(rig)
    stepper.glitch_at = 40                             # a spike 40 steps into the move
    floor.move_to(100)
    assert run(floor, stepper, clock) == "idle" and floor.fault == P.NO_FAULT
    assert floor.watch.glitches == 1


def test_a_glitch_while_homing_does_not_become_home(fw, rig):
    floor, stepper, clock = rig                        # the disc at 37: the mark 123 steps on
    stepper.glitch_at = 50
    assert home(rig) == "idle" and floor.homed
    assert stepper.steps == 160 and floor.position() == 0   # home is the mark, not the spike
