"""Homing, moves, faults and refusals of firmware/floor.py on a fake stepper."""
from __future__ import annotations

from controller.firmware import floorproto as P

from .fakes import run


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


def test_the_homing_state_machine_alone(fw):
    h = fw.homing.Homing(100)
    answers = [h.update(False) for _ in range(120)]
    assert answers == ["step"] * 120
    assert h.update(False) == "fail" and h.update(True) == "fail"
    h = fw.homing.Homing(100)
    assert [h.update(s) for s in (True, True, False, False, True)] == ["step", "step", "step", "step", "done"]


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
    cfg = {"steps_per_rev": 160, "top_speed": 1, "acceleration": 1, "home_speed": 1, "max_move": 1, "flags": 0}
    assert floor.configure(cfg) == P.ERR_BUSY


def test_invert_swaps_the_dir_level_but_not_the_position(rig):
    floor, stepper, clock = rig
    cfg = {"steps_per_rev": 160, "top_speed": 2000, "acceleration": 20000, "home_speed": 500,
           "max_move": 320, "flags": P.FLAG_INVERT}
    assert floor.configure(cfg) == 0
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
    stepper.jammed = True                              # pulses are never taken
    assert run(floor, stepper, clock, until=("fault",), tick_ms=10) == "fault"
    assert P.FAULT_NAMES[floor.fault] == "move_timeout"
