"""The forest floor behind a (simulated) Pico: the tablet and /healthz show the link state.

A Pico with the wrong firmware must be named on the tablet with what to flash, and the
master can still finish the turn by hand; a connected Pico shows its firmware version;
a jammed floor (caught by the Pico's jam watch) is a fault the master finishes by hand.
"""
from __future__ import annotations

import pytest

from controller.firmware import floorproto as P
from controller.devices.hub import DeviceHub
from controller.devices.builtin.forest_floor.wiring import FloorReporter
from controller.devices.sim_pico import SimPico
from controller.store import Store
from controller.table import Table
from tests.e2e.conftest import LiveTable
from tests.link.conftest import REV, serial_floor, wait_for

pytestmark = pytest.mark.browser


@pytest.fixture
def pico_table(tmp_path):
    made = []

    def make(protocol: int = P.PROTOCOL_VERSION):
        pico = SimPico(steps_per_rev=REV, protocol=protocol)
        floor = serial_floor(pico.port)
        table = Table(Store(tmp_path / f"t{len(made)}.sqlite3"))
        hub = DeviceHub(simulated=False, forest_floor=floor)
        floor.on_change(FloorReporter(table))
        table.on_effect(hub.handle_effect)
        live = LiveTable.start(table, hub)
        made.append((live, hub, pico))
        table.start("zauberwald", ["Julie", "Linus"], seed=3)
        return live, floor, pico

    yield make
    for live, hub, pico in made:
        live.stop()
        hub.close()
        pico.close()


def test_wrong_pico_firmware_is_named_on_the_tablet(pico_table, page_on, output_dir):
    live, floor, _ = pico_table(protocol=P.PROTOCOL_VERSION + 1)
    assert wait_for(lambda: floor.link.state == "wrong_firmware")
    status, health = live.call("GET", "/healthz")
    link = health["devices"]["forest_floor"]["link"]
    assert status == 200 and link["state"] == "wrong_firmware"
    assert "potionpi firmware flash" in link["message"]
    page = page_on(live.url, ready="#zw")
    page.wait_for_selector('#zw-floor-state:has-text("Wrong Pico firmware")')
    assert "potionpi firmware flash" in page.locator("#zw-floor-link").inner_text()
    assert page.locator("#zw-home").count() == 0       # homing cannot help until it is flashed
    page.screenshot(path=str(output_dir / "wrong-firmware.png"))


def test_a_connected_pico_shows_its_firmware(pico_table, page_on, output_dir):
    live, floor, _ = pico_table()
    assert wait_for(lambda: floor.link.state == "connected" and floor.state == "idle", timeout=10)
    page = page_on(live.url, ready="#zw")
    page.wait_for_selector('#zw-floor-state:has-text("Pico firmware")')
    assert floor.status()["link"]["firmware"] in page.locator("#zw-floor-state").inner_text()



def test_a_jammed_floor_is_a_fault_the_master_finishes_by_hand(pico_table, page_on, output_dir):
    from tests.e2e.test_tablet_browser import enter_pin, wait_for_phase

    live, floor, pico = pico_table()
    assert wait_for(lambda: floor.link.state == "connected" and floor.status()["homed"], timeout=10)
    pico.jam()                                  # the floor sticks on its home mark; pulses go on
    for action in ({"type": "choose_tile", "seat": 0, "tile": 2},
                   {"type": "turn", "seat": 0, "direction": "clockwise"}):
        status, session = live.call("POST", "/api/v1/session/actions", {"action": action})
        assert status == 200, session
    assert floor.wait_idle(30) and floor.state == "fault"
    assert floor.status()["fault_code"] == "jam"
    page = page_on(live.url, ready="#zw")
    assert wait_for_phase(page, "turning") == "turning"
    page.wait_for_selector('#zw-floor[data-state="fault"]')
    page.wait_for_selector("#zw-by-hand")
    assert "jammed" in page.locator("#zw-stage").inner_text()
    # the floor stuck where it stood: all 2 ants are still to turn, whatever steps went out
    assert "2 ants clockwise" in page.locator("#zw-by-hand").inner_text()
    page.screenshot(path=str(output_dir / "jammed.png"))
    # nothing is scored on the jammed floor: the game waits until the master says "done"
    assert live.table.session()["state"]["phase"] == "turning"
    pico.jam(False)
    page.locator("#btn-lock").tap()
    enter_pin(page)
    page.locator("#zw-done").tap()
    assert wait_for_phase(page, "search") == "search"


def test_a_link_lost_mid_turn_says_hands_off_then_where_the_floor_must_end(tmp_path, page_on, output_dir):
    """The cable is pulled mid-turn and stays out: the tablet first says hands off (a Pico on
    the motor supply may still be turning), then that the position is unknown and where the
    floor must end, counted from where it stood before the turn (never "N more ants")."""
    pico = SimPico(steps_per_rev=REV, start=0)
    # slow enough that the cable surely comes out mid-turn, even on a busy machine
    floor = serial_floor(pico.port, home_on_connect=False, top_speed=50.0, acceleration=500.0,
                         homing_speed=40.0)
    table = Table(Store(tmp_path / "t.sqlite3"))
    hub = DeviceHub(simulated=False, forest_floor=floor).wire(table)
    live = LiveTable.start(table, hub)
    try:
        table.start("zauberwald", ["Julie", "Linus"], seed=3)
        assert wait_for(lambda: floor.link.state == "connected")
        for action in ({"type": "choose_tile", "seat": 0, "tile": 4},
                       {"type": "turn", "seat": 0, "direction": "clockwise"}):
            status, session = live.call("POST", "/api/v1/session/actions", {"action": action})
            assert status == 200, session
        assert wait_for(lambda: pico.homings == 1 and pico.physical.pulses > 2)
        pico.unplug()                                    # the cable is out, and stays out
        assert pico.physical.angle_steps() != 40         # mid-turn indeed
        page = page_on(live.url, ready="#zw")           # the tablet, looked at mid-outage
        page.wait_for_selector('#zw-turn-progress:has-text("link to its motor is lost")')
        assert "Pico reconnecting" in page.locator("#zw-floor-state").inner_text()
        assert page.locator("#zw-done").count() == 0     # hands off: no "done" yet
        page.screenshot(path=str(output_dir / "link-lost-hands-off.png"))
        page.wait_for_selector("#zw-by-hand", timeout=30_000)
        stage = page.locator("#zw-stage").inner_text()
        assert "where the floor stands is unknown" in stage
        by_hand = page.locator("#zw-by-hand").inner_text()
        assert "4 ants clockwise from where it stood before this turn" in by_hand and "more" not in by_hand
        page.screenshot(path=str(output_dir / "link-lost-by-hand.png"))
        notices = [n["message"] for _, n in table._notices if n["kind"] == "floor"]
        assert len(notices) == 1 and "position is unknown" in notices[0]
    finally:
        live.stop()
        hub.close()
        pico.close()
