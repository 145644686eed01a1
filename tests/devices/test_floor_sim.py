"""The simulated forest floor: turns over time, stops mid-move, faults on request."""
import threading

import pytest

from controller.config import section
from controller.devices.floor_sim import HOME_NOT_FOUND, STALL, FloorBusy, SimulatedForestFloor
from controller.devices.forest_floor import FAULT, IDLE, MOVING


def fast():
    return SimulatedForestFloor(ants_around=16, steps_per_ant=100.0, speed=400.0, tick=0.001)


def test_turns_the_ants_asked_for_and_wraps_round_the_rim():
    floor = fast()
    floor.rotate(3, "clockwise")
    assert floor.wait_idle(10)
    assert floor.position == 3.0 and floor.state == IDLE
    floor.rotate(5, "counter_clockwise")
    assert floor.wait_idle(10)
    assert floor.position == 14.0
    assert floor.status() == {"simulated": True, "state": "idle", "position": 14.0, "ants_around": 16,
                              "fault": None, "needs_home": False,
                              "last_move": {"ants": 5, "direction": "counter_clockwise", "result": "done"}}
    floor.close()


def test_moves_over_time_so_the_tablet_sees_motion():
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100.0, speed=200.0, tick=0.002)
    seen = []
    floor.on_change(seen.append)
    floor.rotate(4, "clockwise")
    assert floor.wait_idle(10)
    assert seen[0]["state"] == MOVING and seen[0]["position"] == 0.0
    between = [s["position"] for s in seen if s["state"] == MOVING and 0 < s["position"] < 4]
    assert len(between) >= 3                          # several steps of motion, not a jump
    assert between == sorted(between)                 # creeping forward clockwise
    assert seen[-1]["state"] == IDLE and seen[-1]["position"] == 4.0
    floor.close()


def test_speed_sets_how_far_each_tick_goes():
    slow, quick = SimulatedForestFloor(ants_around=16, steps_per_ant=100.0, speed=50.0, tick=0.002), SimulatedForestFloor(ants_around=16, steps_per_ant=100.0, speed=500.0, tick=0.002)
    counts = []
    for floor in (slow, quick):
        seen = []
        floor.on_change(seen.append)
        floor.rotate(2, "clockwise")
        assert floor.wait_idle(10)
        counts.append(len(seen))
        floor.close()
    assert counts[0] > counts[1]                      # the slower floor reports more steps on the way


def test_stop_works_mid_move():
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100.0, speed=20.0, tick=0.002)
    moving = threading.Event()
    floor.on_change(lambda s: s["position"] > 0.2 and moving.set())
    floor.rotate(8, "clockwise")
    assert moving.wait(10)
    floor.stop()
    stopped_at = floor.position
    assert 0.2 < stopped_at < 8
    assert floor.state == IDLE and floor.status()["last_move"]["result"] == "stopped"
    assert floor.wait_idle(0)
    assert floor.position == stopped_at               # nothing moves after stop()
    floor.close()


def test_stop_from_the_first_moving_notice():
    floor = fast()
    floor.on_change(lambda status: status["state"] == "moving" and floor.stop())
    floor.rotate(4, "clockwise")
    assert floor.wait_idle(10)
    assert floor.position == 0.0 and floor.status()["last_move"]["result"] == "stopped"
    floor.close()


def test_busy_floor_refuses_a_second_move():
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100.0, speed=1.0, tick=0.01)
    floor.rotate(4, "clockwise")
    with pytest.raises(FloorBusy):
        floor.rotate(1, "clockwise")
    with pytest.raises(FloorBusy):
        floor.home()
    floor.stop()
    floor.close()


def test_stall_fault_on_request():
    floor = fast()
    floor.fail_next("stall", after_ants=1.5)
    floor.rotate(3, "clockwise")
    assert floor.wait_idle(10)
    assert floor.state == FAULT and floor.fault == STALL
    assert floor.position == 1.5
    assert floor.status()["last_move"]["result"] == "fault"
    floor.rotate(1, "clockwise")                     # the next move clears the fault
    assert floor.wait_idle(10)
    assert floor.state == IDLE and floor.fault is None
    floor.close()


def test_home_returns_to_the_mark_or_faults_on_request():
    floor = fast()
    floor.rotate(5, "clockwise")
    floor.wait_idle(10)
    floor.home()
    assert floor.wait_idle(10)
    assert floor.state == IDLE and floor.position == 0.0
    floor.fail_next("home")
    floor.home()
    assert floor.wait_idle(10)
    assert floor.state == FAULT and floor.fault == HOME_NOT_FOUND
    floor.close()


@pytest.mark.parametrize("reason", ["stall", "jam"])
def test_a_lost_count_asks_for_homing_until_a_homing_finds_the_mark(reason):
    """``needs_home`` means on the simulation what it means on GPIO and serial: the tablet
    offers "Home the floor" after a fault, even once a later turn has cleared it."""
    floor = fast()
    assert floor.status()["needs_home"] is False       # it starts standing on its mark
    floor.fail_next(reason, after_ants=1.5)
    floor.rotate(3, "clockwise")
    assert floor.wait_idle(10) and floor.status()["needs_home"] is True
    floor.rotate(1, "clockwise")
    assert floor.wait_idle(10) and floor.state == IDLE and floor.status()["needs_home"] is True
    floor.fail_next("home")
    floor.home()
    assert floor.wait_idle(10) and floor.state == FAULT and floor.status()["needs_home"] is True
    floor.home()
    assert floor.wait_idle(10) and floor.position == 0.0 and floor.status()["needs_home"] is False
    floor.close()


def test_effects_from_the_engine_drive_it():
    floor = fast()
    floor.handle_effect({"device": "forest_floor", "op": "rotate", "ants": 3, "direction": "counter_clockwise"})
    assert floor.wait_idle(10)
    assert floor.position == 13.0
    floor.close()


def test_bad_arguments():
    floor = fast()
    with pytest.raises(ValueError):
        floor.rotate(1, "up")
    with pytest.raises(ValueError):
        floor.fail_next("fire")
    with pytest.raises(ValueError):
        SimulatedForestFloor(ants_around=16, steps_per_ant=100.0, speed=0)
    floor.close()


def test_from_config_reads_the_floor_and_simulation_sections():
    floor = SimulatedForestFloor.from_config(section("forest_floor", ants_around=12, steps_per_ant=50.0),
                                             section("simulation", floor_ants_per_second=30.0))
    try:
        assert (floor.ants_around, floor.steps_per_ant, floor.speed) == (12, 50.0, 30.0)
        floor.move_steps(100)                            # two ants at 50 steps an ant
        assert floor.wait_idle(10) and floor.position == 2.0
        assert floor.status()["last_move"] == {"steps": 100, "result": "done"}
    finally:
        floor.close()
