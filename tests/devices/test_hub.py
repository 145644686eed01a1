"""The device hub: simulated devices wired to the table, effects routed, balls in step."""
from __future__ import annotations

import time

import pytest

from controller.config import Config
from controller.devices.hub import DeviceHub
from controller.table import Table


@pytest.fixture
def rig(store):
    table = Table(store)
    hub = DeviceHub.build(Config.defaults(), sim=True, table=table, say=lambda *_: None)
    table.on_effect(hub.handle_effect)
    yield table, hub
    hub.close()


def test_simulated_drop_reaches_the_game(rig):
    table, hub = rig
    table.start("mirakel-mix", ["Ann", "Ben"], seed=4)
    colour = hub.cauldron.drop()
    s = table.session()
    assert s["version"] == 1
    assert sum(s["state"]["cauldron"].values()) == 17 == hub.cauldron.total()
    assert s["state"]["bowls"][0]["drops"] == [colour]


def test_new_game_puts_every_drop_back(rig):
    table, hub = rig
    table.start("mirakel-mix", ["Ann", "Ben"], seed=4)
    hub.cauldron.turn(40)
    assert hub.cauldron.total() < 18
    table.start("mirakel-mix", ["Ann", "Ben"], seed=5)
    assert hub.cauldron.total() == 18


def test_restart_puts_simulated_balls_where_the_game_says(store, rig):
    table, hub = rig
    table.start("mirakel-mix", ["Ann", "Ben"], seed=4)
    for _ in range(5):
        hub.cauldron.drop()
    expected = table.session()["state"]["cauldron"]
    again = Table(store)
    again.resume()
    hub2 = DeviceHub.build(Config.defaults(), sim=True, table=again, say=lambda *_: None)
    try:
        assert {c: n for c, n in hub2.cauldron.contents().items() if n} == \
               {c: n for c, n in expected.items() if n}
    finally:
        hub2.close()


def test_floor_reports_its_turn_to_the_zauberwald_game(rig):
    table, hub = rig
    s = table.start("zauberwald", ["Julie", "Linus"], seed=3)
    s = table.act({"type": "choose_tile", "seat": 0, "tile": 3})
    s = table.act({"type": "turn", "seat": 0, "direction": "counter_clockwise"})
    assert s["state"]["phase"] == "turning"
    deadline = time.monotonic() + 20
    while table.session()["state"]["phase"] == "turning" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert table.session()["state"]["phase"] == "search"
    floor = hub.status()["forest_floor"]
    assert floor["state"] == "idle" and floor["position"] == 16 - 3   # 3 ants counter-clockwise


def test_status_lists_every_device(rig):
    _table, hub = rig
    status = hub.status()
    assert status["simulated"] is True
    assert status["cauldron"]["total"] == 18 and status["forest_floor"]["state"] == "idle"
