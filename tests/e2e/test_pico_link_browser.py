"""The forest floor behind a (simulated) Pico: the tablet and /healthz show the link state.

A Pico with the wrong firmware must be named on the tablet with what to flash, and the
master can still finish the turn by hand; a connected Pico shows its firmware version.
"""
from __future__ import annotations

import pytest

from controller.firmware import floorproto as P
from controller.devices.hub import DeviceHub, FloorReporter
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
        return live, floor

    yield make
    for live, hub, pico in made:
        live.stop()
        hub.close()
        pico.close()


def test_wrong_pico_firmware_is_named_on_the_tablet(pico_table, page_on, output_dir):
    live, floor = pico_table(protocol=P.PROTOCOL_VERSION + 1)
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
    live, floor = pico_table()
    assert wait_for(lambda: floor.link.state == "connected" and floor.state == "idle", timeout=10)
    page = page_on(live.url, ready="#zw")
    page.wait_for_selector('#zw-floor-state:has-text("Pico firmware")')
    assert floor.status()["link"]["firmware"] in page.locator("#zw-floor-state").inner_text()
