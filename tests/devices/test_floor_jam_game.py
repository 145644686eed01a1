"""A jam on the GPIO floor, end to end: Zauberwald's master turns, the disc jams on mock pins,
the master is told the floor jammed and must be homed, and the game scores nothing on a
position the floor never reached (it waits for ``floor_turned``)."""
from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from controller.config import section
from controller.devices.floor_gpio import GpioForestFloor
from controller.devices.hub import DeviceHub
from controller.table import Table
from tests.devices.floor_rotor import RecordingPin, Rotor

SPA = 4
STEP, DIR, HOME = 5, 6, 19                 # the [forest_floor] defaults


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


@pytest.fixture
def table_on_a_gpio_floor(store):
    factory = MockFactory(pin_class=RecordingPin)
    floor = GpioForestFloor.from_config(
        section("forest_floor", backend="gpio", steps_per_ant=float(SPA), top_speed=20000.0,
                start_speed=5000.0, acceleration=500000.0, homing_speed=20000.0,
                home_mark_steps=1),                 # the model disc's one-step mark
        pin_factory=factory)
    rotor = Rotor(factory, STEP, DIR, HOME, revolution=16 * SPA, angle=-5)
    floor.home()
    assert floor.wait_idle(10) and floor.state == "idle"
    floor.rotate(14, "clockwise")          # where the floor stands when the game begins
    assert floor.wait_idle(10) and floor.state == "idle"
    table = Table(store)
    hub = DeviceHub(simulated=False, forest_floor=floor).wire(table)
    yield table, hub, rotor
    hub.close()
    factory.close()


def floor_notices(table):
    return [n["message"] for _, n in table._notices if n["kind"] == "floor"]


def test_a_jammed_turn_tells_the_master_and_scores_nothing(table_on_a_gpio_floor):
    table, hub, rotor = table_on_a_gpio_floor
    table.start("zauberwald", ["Julie", "Linus"], seed=3)
    table.act({"type": "choose_tile", "seat": 0, "tile": 3})
    before = table.session()["state"]["floor"]["position"]
    rotor.jammed = True                    # a tree caught under the board
    table.act({"type": "turn", "seat": 0, "direction": "clockwise"})   # 14 → 1: past the mark
    assert wait_for(lambda: floor_notices(table))
    message = floor_notices(table)[0]
    assert "jammed" in message and "position is lost" in message and "home the floor" in message
    status = hub.status()["forest_floor"]
    assert status["state"] == "fault" and status["fault"].startswith("jam")
    assert status["needs_home"] is True
    time.sleep(0.2)                        # a floor_turned would come from a thread
    state = table.session()["state"]
    assert state["phase"] == "turning" and state["floor"]["position"] == before
    log = table.store.actions(table.session()["id"])
    assert not any(e["action"]["type"] == "floor_turned" for e in log)
    # the master frees it, turns it by hand and taps done: the game goes on from there
    table.act({"type": "floor_turned", "manual": True, "seat": 0})
    assert table.session()["state"]["phase"] == "search"


def test_a_turn_that_goes_well_reports_floor_turned(table_on_a_gpio_floor):
    table, hub, rotor = table_on_a_gpio_floor
    table.start("zauberwald", ["Julie", "Linus"], seed=3)
    table.act({"type": "choose_tile", "seat": 0, "tile": 3})
    table.act({"type": "turn", "seat": 0, "direction": "clockwise"})
    assert wait_for(lambda: table.session()["state"]["phase"] == "search")
    assert floor_notices(table) == []
    assert rotor.angle % (16 * SPA) == 1 * SPA       # the disc really stands at ant 1
