"""A link fault in the middle of the master's turn (issue 15 item 11), at the table:
the floor moves only for the turn the game still waits for, a turn the motor finished
is reported once and never asked for by hand, and a turn that cannot be finished
safely ends with the position unknown and one instruction that cannot make a double turn."""
from __future__ import annotations

import time

import pytest

from controller.devices.hub import DeviceHub
from controller.firmware import floorproto as P
from controller.table import Table

from .conftest import STEPS_PER_ANT, serial_floor, wait_for


@pytest.fixture
def table_on_a_pico(sim, store):
    """Zauberwald on the serial floor (default config: no homing on connect), slow enough
    that a fault lands mid-turn. The physical disc starts on the home mark."""
    sim.physical.steps = 0
    floor = serial_floor(sim.port, home_on_connect=False, top_speed=150.0, acceleration=1500.0,
                         homing_speed=200.0)
    table = Table(store)
    hub = DeviceHub(simulated=False, forest_floor=floor).wire(table)
    assert wait_for(lambda: floor.link.state == "connected")
    table.start("zauberwald", ["Julie", "Linus"], seed=3)
    yield table, floor
    hub.close()


def turn(table, direction="clockwise"):
    state = table.session()["state"]
    table.act({"type": "choose_tile", "seat": state["master"], "tile": 4})
    table.act({"type": "turn", "seat": state["master"], "direction": direction})


def floor_notices(table):
    return [n["message"] for _, n in table._notices if n["kind"] == "floor"]


def heard_turned(table):
    return [e for e in table.store.actions(table.session()["id"]) if e["action"]["type"] == "floor_turned"]


def phase(table):
    return table.session()["state"]["phase"]


def steps_after(sim, seconds):
    before = sim.physical.pulses
    time.sleep(seconds)
    return sim.physical.pulses - before


def test_a_turn_the_pico_finished_alone_is_heard_once_and_never_asked_for_by_hand(table_on_a_pico, sim):
    table, floor = table_on_a_pico
    turn(table)                                            # 4 ants: home first, then 40 steps
    assert wait_for(lambda: sim.homings == 1 and sim.physical.pulses > 5)
    sim.unplug(power_loss=False)                           # the motor supply keeps the Pico going
    assert wait_for(lambda: floor.link.state == "reconnecting")
    assert floor.state == "moving"                         # hands off: it may still be turning
    assert wait_for(lambda: sim.floor.state == P.IDLE and sim.floor.homed, timeout=5)   # the Pico is at rest...
    sim.replug()                                           # ...and says so once the link is back
    assert wait_for(lambda: phase(table) == "search", timeout=5)
    assert sim.floor_ants(STEPS_PER_ANT) == 4.0
    assert len(heard_turned(table)) == 1 and heard_turned(table)[0]["source"] == "sensor"
    assert floor_notices(table) == []
    assert steps_after(sim, 0.3) == 0


def test_a_link_that_stays_down_gives_the_turn_up_with_one_instruction(table_on_a_pico, sim):
    table, floor = table_on_a_pico
    turn(table, "counter_clockwise")
    assert wait_for(lambda: sim.homings == 1 and sim.physical.pulses > 5)
    sim.unplug()                                           # power lost; the cable stays out
    assert wait_for(lambda: floor.link.state == "reconnecting")
    assert floor.state == "moving"
    # once a powered Pico would have stopped by itself, the turn is given up: said once
    assert wait_for(lambda: floor.state == "fault", timeout=8)
    status = floor.status()
    assert status["fault_code"] == "link_lost" and status["position_lost"] is True
    assert status["last_move"] == {"ants": 4, "direction": "counter_clockwise", "result": "fault"}
    assert wait_for(lambda: floor_notices(table))
    time.sleep(0.2)
    (message,) = floor_notices(table)
    assert "position is unknown" in message
    assert "until it stands 4 ants counter-clockwise of where it stood before this turn" in message
    assert "home the floor before its next turn" in message
    assert phase(table) == "turning" and heard_turned(table) == []
    # the master sets the floor by hand and taps done; then the cable goes back in
    sim.physical.steps = -4 * STEPS_PER_ANT
    table.act({"type": "floor_turned", "manual": True, "seat": 0})
    sim.replug()
    assert wait_for(lambda: floor.link.state == "connected")
    assert steps_after(sim, 0.5) == 0                      # nothing of that turn moves it now
    assert floor.status()["state"] == "fault" and not floor.status()["homed"]
    assert len(floor_notices(table)) == 1


def test_stop_while_the_link_is_down_never_asks_for_the_rest_of_the_way(table_on_a_pico, sim):
    """The Pico on the motor supply finished the turn out of sight; the master, seeing the
    tablet say "turning" and nothing turn, taps STOP. He must not be told "N more ants"."""
    table, floor = table_on_a_pico
    turn(table)
    assert wait_for(lambda: sim.homings == 1 and sim.physical.pulses > 5)
    sim.unplug(power_loss=False)
    assert wait_for(lambda: floor.link.state == "reconnecting")
    assert wait_for(lambda: sim.floor.state == P.IDLE and sim.floor.homed, timeout=5)
    floor.stop()
    assert wait_for(lambda: floor_notices(table))
    time.sleep(0.2)
    (message,) = floor_notices(table)
    assert "position is unknown" in message and "rest of the way" not in message
    assert floor.status()["position_lost"] is True
    assert floor.status()["last_move"]["result"] == "fault"


def test_done_tapped_elsewhere_stops_a_turn_being_carried_on(table_on_a_pico, sim):
    table, floor = table_on_a_pico
    turn(table)
    assert wait_for(lambda: sim.homings == 1 and sim.physical.pulses > 3)
    sim.unplug()                                           # power cut mid-turn
    assert wait_for(lambda: floor.link.state == "reconnecting")
    sim.replug()                                           # back in time: the turn goes on
    assert wait_for(lambda: sim.homings == 2 and sim.stepper.pulses > 3, timeout=5)
    table.act({"type": "floor_turned", "manual": True, "seat": 0})   # a second tablet: "done"
    time.sleep(0.05)                                       # the STOP's way to the Pico
    assert steps_after(sim, 0.5) == 0
    assert floor.status()["last_move"]["result"] == "stopped"
    assert floor_notices(table) == []                      # the game no longer waits: nothing to say
    # the floor no longer knows where it stands: the next turn homes first, and ends right
    assert not floor.status()["homed"]


def test_the_next_turn_after_one_given_up_homes_first_and_ends_where_the_game_counts(table_on_a_pico, sim):
    table, floor = table_on_a_pico
    turn(table)
    assert wait_for(lambda: sim.homings == 1 and sim.physical.pulses > 5)
    sim.unplug(power_loss=False)                           # the Pico finishes out of sight
    assert wait_for(lambda: floor.state == "fault", timeout=8)
    sim.physical.steps += 3                                # the master nudges it a bit, by hand
    table.act({"type": "floor_turned", "manual": True, "seat": 0})
    sim.replug()
    assert wait_for(lambda: floor.link.state == "connected")
    assert steps_after(sim, 0.3) == 0
    # on to the next turn (the search and the check, quickly)
    for _ in range(50):
        session = table.session()
        if session["state"]["phase"] == "turn":
            break
        legal = [a for a in session["legal_actions"] if a["type"] not in ("undo", "stop")]
        table.act(legal[0])
    state = table.session()["state"]
    table.act({"type": "turn", "seat": state["master"], "direction": "clockwise"})
    ants = state["round"]["tile"]
    assert wait_for(lambda: phase(table) == "search", timeout=10)
    assert sim.homings == 2                                # it homed first (its count was stale)
    assert sim.floor_ants(STEPS_PER_ANT) == (4 + ants) % 16


def test_a_turn_asked_while_the_cable_is_out_goes_once_it_is_back_in_time(table_on_a_pico, sim):
    table, floor = table_on_a_pico
    sim.unplug()
    assert wait_for(lambda: floor.link.state == "reconnecting")
    turn(table)                                            # the tablet still lets the master turn
    assert floor.state == "moving" and sim.physical.pulses == 0
    sim.replug()
    assert wait_for(lambda: phase(table) == "search", timeout=10)
    assert sim.floor_ants(STEPS_PER_ANT) == 4.0 and sim.homings == 1
    assert len(heard_turned(table)) == 1 and floor_notices(table) == []
