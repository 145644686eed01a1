"""The serial floor by default (``home_on_connect = false``): it never moves unasked,
the master's turn homes first, a jam reaches the tablet as a fault with a sentence."""
from __future__ import annotations

import threading
import time

import pytest

from controller.config import ConfigError, section
from controller.devices.floor_serial import SerialForestFloor

from .conftest import heard, settled, wait_for


def connected(floor):
    return floor.link.state == "connected"


def test_connecting_moves_nothing(sim, make_floor):
    start = sim.physical.steps
    floor = make_floor(home_on_connect=False)
    assert wait_for(lambda: connected(floor))
    time.sleep(0.3)                                       # a while connected, heartbeats going
    assert sim.physical.steps == start and sim.stepper.pulses == 0
    assert sim.homings == 0 and sim.executed(0x05) == []  # no HOME was ever sent
    status = floor.status()
    assert status["state"] == "idle" and not status["homed"] and status["last_move"] is None


def test_the_masters_first_turn_homes_then_turns(sim, make_floor):
    floor = make_floor(home_on_connect=False)
    assert wait_for(lambda: connected(floor))
    states = []
    floor.on_change(lambda s: states.append(s["state"]))
    floor.rotate(3, "clockwise")
    assert settled(floor)
    assert sim.homings == 1
    assert floor.status()["last_move"] == {"ants": 3, "direction": "clockwise", "result": "done"}
    assert sim.floor_ants(10) == 3.0 and floor.position == 3.0     # 3 ants from the home mark
    # the homing is part of the turn: the tablet sees the floor turning (hands off) until done
    assert heard(states, "idle")
    assert set(states[:-1]) == {"moving"} and states[-1] == "idle"
    floor.rotate(2, "counter_clockwise")                 # homed now: no second homing
    assert settled(floor) and sim.homings == 1 and sim.floor_ants(10) == 1.0


def test_the_serial_back_end_sends_its_homing_speed(sim, make_floor):
    floor = make_floor(home_on_connect=False, homing_speed=700.0)
    assert wait_for(lambda: connected(floor) and sim.floor.home_speed == 700)
    floor.home()
    assert settled(floor) and floor.status()["homed"]
    # the Pico queued every homing step at 700 steps/s
    assert sim.fw.motion.constant_interval_us(700) == sim.floor._home_interval


def test_a_jam_ends_the_turn_as_a_fault_the_tablet_can_explain(sim, make_floor):
    floor = make_floor(home_on_connect=False)
    assert wait_for(lambda: connected(floor))
    floor.rotate(12, "clockwise")
    assert settled(floor) and floor.state == "idle"
    sim.jam()                                            # stuck at 12 ants; the pulses go on
    floor.rotate(8, "clockwise")                         # should pass the home mark at 16
    assert settled(floor)
    status = floor.status()
    assert status["state"] == "fault" and status["fault_code"] == "jam"
    assert "jammed" in status["fault"] and "by hand" in status["fault"]
    assert status["last_move"] == {"ants": 8, "direction": "clockwise", "result": "fault"}
    assert not status["homed"] and sim.floor_ants(10) == 12.0
    # the tablet hears where the floor stuck, not how many steps the Pico sent
    assert status["steps"] % 160 != 120 and floor.position == 12.0
    # freed: the next turn homes again and clears the fault
    sim.jam(False)
    floor.rotate(1, "clockwise")
    assert settled(floor) and floor.state == "idle" and floor.fault is None
    assert sim.homings == 2 and sim.floor_ants(10) == 5.0     # 12 + 8 + 1 = 21 = 5 round the rim


def test_a_turn_cut_by_a_power_cut_is_carried_on_when_the_pico_is_back(sim, make_floor):
    floor = make_floor(home_on_connect=False, top_speed=300.0, acceleration=3000.0)
    assert wait_for(lambda: connected(floor))
    floor.rotate(8, "clockwise")
    assert wait_for(lambda: sim.homings == 1 and 10 <= sim.physical.angle_steps() <= 60)
    sim.unplug()                                          # power lost mid-turn
    assert wait_for(lambda: floor.link.state == "reconnecting")
    sim.replug()
    assert wait_for(lambda: floor.status()["last_move"]["result"] == "done", timeout=10)
    assert sim.homings == 2 and sim.floor_ants(10) == 8.0
    time.sleep(0.2)
    assert floor.state == "idle" and sim.floor_ants(10) == 8.0


def test_a_stop_as_the_pico_comes_back_is_never_overtaken_by_the_carried_on_turn(sim, make_floor):
    """The power came back, and the host decided to carry the cut-short turn on; the
    master's STOP (or done) lands just then, before the turn is sent: not one step more,
    and where the floor stands is not taken from the rebooted Pico's count."""
    floor = make_floor(home_on_connect=False, top_speed=300.0, acceleration=3000.0)
    assert wait_for(lambda: connected(floor))
    floor.rotate(8, "clockwise")
    assert wait_for(lambda: sim.homings == 1 and 10 <= sim.physical.angle_steps() <= 60)
    carry_on, carried = floor._move, threading.Event()

    def stop_cuts_in(*generation):
        floor.stop()                                      # between the decision and the send
        try:
            carry_on(*generation)
        finally:
            carried.set()

    floor._move = stop_cuts_in
    sim.unplug()                                          # power lost mid-turn
    assert wait_for(lambda: floor.link.state == "reconnecting")
    pulses, homings = sim.physical.pulses, sim.homings
    sim.replug()
    assert wait_for(carried.is_set)                       # the carry-on has had its chance
    assert sim.physical.pulses == pulses and sim.homings == homings   # not one step unasked
    status = floor.status()
    assert status["state"] == "idle" and status["last_move"]["result"] == "stopped"
    # the rebooted Pico counts from where it woke: the tablet asks for the whole turn by
    # hand, from where the floor stood before it, never "N more ants" from that count
    assert status["position_lost"] and not status["homed"]


def test_home_on_connect_and_the_link_limits_come_from_the_config():
    cfg = section("forest_floor", home_on_connect=True, link_heartbeat_s=0.5, link_lost_after_s=3)
    assert cfg["home_on_connect"] is True and cfg["link_lost_after_s"] == 3.0
    floor = SerialForestFloor.from_config(cfg, serial_port="/nonexistent/ttyPICO")
    try:
        assert floor.home_on_connect
        assert (floor.link.timings.heartbeat_s, floor.link.timings.lost_after_s) == (0.5, 3.0)
    finally:
        floor.close()
    with pytest.raises(ConfigError, match="home_on_connect = 'yes' is not allowed; use true or false"):
        section("forest_floor", home_on_connect="yes")
    assert section("forest_floor")["home_on_connect"] is False


def test_a_homing_cut_by_a_power_cut_is_never_done_again_once_given_up(sim, make_floor):
    """The master tapped Home; the power went and came back only later (perhaps minutes,
    with hands in the forest): the floor stays still, and the tablet offers Home again."""
    floor = make_floor(home_on_connect=False, homing_speed=150.0)
    assert wait_for(lambda: connected(floor))
    floor.home()
    assert wait_for(lambda: sim.homings == 1 and sim.stepper.pulses >= 5)
    sim.unplug()                                          # power lost mid-homing
    assert wait_for(lambda: floor.link.state == "reconnecting")
    assert floor.state == "homing"                        # hands off while it might still move
    assert wait_for(lambda: floor.status()["last_move"]["result"] == "fault", timeout=10)
    sim.replug()
    assert wait_for(lambda: connected(floor))
    pulses = sim.physical.pulses
    time.sleep(0.4)
    assert sim.physical.pulses == pulses and sim.homings == 1     # not one step unasked
    status = floor.status()
    assert status["fault_code"] == "link_lost" and "home the floor again" in status["fault"]
    assert not status["homed"]
    floor.home()                                          # asked again: now it homes
    assert wait_for(lambda: floor.status()["last_move"] == {"home": True, "result": "done"}, timeout=10)
    assert floor.status()["homed"] and sim.physical.angle_steps() == 0


def test_a_homing_cut_by_a_power_cut_goes_on_if_the_pico_is_back_in_time(sim, make_floor):
    floor = make_floor(home_on_connect=False, homing_speed=150.0)
    assert wait_for(lambda: connected(floor))
    floor.home()
    assert wait_for(lambda: sim.homings == 1 and sim.stepper.pulses >= 5)
    sim.unplug()
    assert wait_for(lambda: floor.link.state == "reconnecting")
    sim.replug()                                          # at once: still the master's homing
    assert wait_for(lambda: floor.status()["last_move"]["result"] == "done", timeout=10)
    assert floor.status()["homed"] and sim.homings == 2 and sim.physical.angle_steps() == 0


def test_a_homing_the_pico_finished_while_the_cable_was_out_ends_done(sim, make_floor):
    floor = make_floor(home_on_connect=False, homing_speed=150.0)
    assert wait_for(lambda: connected(floor))
    floor.home()
    assert wait_for(lambda: sim.homings == 1 and sim.stepper.pulses >= 5)
    sim.unplug(power_loss=False)                          # the motor supply keeps it going
    assert wait_for(lambda: floor.link.state == "reconnecting")
    assert floor.state == "homing"                        # hands off meanwhile
    assert wait_for(lambda: sim.floor.homed, timeout=5)
    sim.replug()
    assert wait_for(lambda: floor.status()["last_move"]["result"] == "done", timeout=5)
    assert floor.status()["homed"] and sim.homings == 1 and sim.physical.angle_steps() == 0
