"""The forest floor's routes: live status, the safety stop (no PIN, CSRF-safe) and homing (PIN)."""
from __future__ import annotations

import re

import pytest

from controller.devices.floor_sim import SimulatedForestFloor
from controller.devices.hub import DeviceHub
from controller.devices.builtin.forest_floor.wiring import FloorReporter
from web_ui import create_app

from .helpers import AUTH, PIN, SECRET


@pytest.fixture
def rig(table):
    """A table with a slow simulated floor (1 ant a second), wired as the daemon wires it."""
    floor = SimulatedForestFloor(ants_around=16, steps_per_ant=100, speed=1.0, tick=0.01)
    hub = DeviceHub(simulated=True, forest_floor=floor)
    table.on_effect(hub.handle_effect)
    floor.on_change(FloorReporter(table))
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET)
    yield app.test_client(), table, floor
    hub.close()


def csrf_of(client) -> str:
    page = client.get("/").get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def start_turn(client, tile=4, direction="clockwise"):
    r = client.post("/api/v1/session", json={"game": "zauberwald", "players": ["Julie", "Linus"], "seed": 3},
                    headers=AUTH)
    assert r.status_code == 201, r.get_json()
    for action in ({"type": "choose_tile", "seat": 0, "tile": tile},
                   {"type": "turn", "seat": 0, "direction": direction}):
        r = client.post("/api/v1/session/actions", json={"action": action}, headers=AUTH)
        assert r.status_code == 200, r.get_json()
    return r.get_json()


def notices(table) -> list[str]:
    return [n["message"] for _, n in table._notices]


def test_the_stop_button_halts_a_turning_floor_without_the_pin(rig):
    client, table, floor = rig
    session = start_turn(client, tile=4)
    assert session["state"]["phase"] == "turning"
    assert floor.state == "moving"
    token = csrf_of(client)                      # a locked tablet: page loaded, no PIN entered

    r = client.post("/api/v1/floor/stop", json={}, headers={"X-CSRF-Token": token})

    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["floor"]["state"] == "idle"
    assert body["floor"]["last_move"]["result"] == "stopped"
    where = floor.position
    assert 0 <= where < 4
    assert floor.wait_idle(0)                     # the motion thread has ended: it stays put
    assert floor.position == where
    # the tablet learns how far it got and what is left to turn by hand
    assert body["turn"]["ants"] == 4 and body["turn"]["direction"] == "clockwise"
    assert body["turn"]["travelled"] + body["turn"]["remaining"] == pytest.approx(4)
    assert body["turn"]["remaining"] > 0
    # the game waits for the master: the rest by hand, then "done"
    assert table.session()["state"]["phase"] == "turning"
    r = client.post("/api/v1/session/actions", json={"action": {"type": "floor_turned", "manual": True}},
                    headers=AUTH)
    assert r.status_code == 200
    assert r.get_json()["state"]["phase"] == "search"
    assert r.get_json()["state"]["floor"]["position"] == 4


def test_the_stop_is_refused_from_a_page_on_another_site(rig):
    client, table, floor = rig
    start_turn(client, tile=4)
    csrf_of(client)                               # the cookie is there, the token is not sent
    r = client.post("/api/v1/floor/stop", json={})
    assert r.status_code == 403
    assert "reload" in r.get_json()["error"]
    assert floor.state == "moving"
    r = client.post("/api/v1/floor/stop", json={}, headers={"X-Table-Pin": "0000"})
    assert r.status_code == 401
    assert floor.state == "moving"
    r = client.post("/api/v1/floor/stop", json={}, headers=AUTH)     # a script with the PIN
    assert r.status_code == 200
    assert floor.state == "idle"


def test_without_a_floor_the_routes_say_to_turn_by_hand(client):
    r = client.post("/api/v1/floor/stop", json={}, headers=AUTH)
    assert r.status_code == 404
    assert "turn the floor by hand" in r.get_json()["error"]
    r = client.post("/api/v1/floor/home", json={}, headers=AUTH)
    assert r.status_code == 404
    assert "no forest-floor motor" in r.get_json()["error"]
    r = client.get("/api/v1/floor")
    assert r.status_code == 200
    assert r.get_json()["floor"] is None and "by hand" in r.get_json()["message"]


def test_homing_needs_the_pin_and_does_not_count_as_a_turn(rig):
    client, table, floor = rig
    r = client.post("/api/v1/session", json={"game": "zauberwald", "players": ["Julie", "Linus"], "seed": 3},
                    headers=AUTH)
    floor.move_steps(-50)                         # someone nudged it: half an ant short of home
    floor.wait_idle(10)
    token = csrf_of(client)
    r = client.post("/api/v1/floor/home", json={}, headers={"X-CSRF-Token": token})
    assert r.status_code == 401
    assert "PIN" in r.get_json()["error"]
    assert floor.state == "idle"

    r = client.post("/api/v1/floor/home", json={}, headers=AUTH)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["floor"]["state"] == "homing"
    assert floor.wait_idle(30)
    assert floor.position == 0 and floor.state == "idle"
    # the game heard nothing of it: still the master's choice, no refused sensor event
    session = table.session()
    assert session["version"] == 0 and session["state"]["phase"] == "choose"
    assert not [n for n in notices(table) if "sensor" in n]


def test_homing_is_refused_while_the_floor_turns_or_the_game_waits_for_the_turn(rig):
    client, table, floor = rig
    start_turn(client, tile=2)
    r = client.post("/api/v1/floor/home", json={}, headers=AUTH)
    assert r.status_code == 409
    assert "still turning" in r.get_json()["error"]
    client.post("/api/v1/floor/stop", json={}, headers=AUTH)
    r = client.post("/api/v1/floor/home", json={}, headers=AUTH)
    assert r.status_code == 409
    assert "tap done" in r.get_json()["error"]


def test_a_stall_is_a_fault_the_master_finishes_by_hand(rig):
    client, table, floor = rig
    floor.fail_next("stall", after_ants=0.25)
    start_turn(client, tile=3, direction="counter_clockwise")
    assert floor.wait_idle(30)
    body = client.get("/api/v1/floor").get_json()
    assert body["floor"]["state"] == "fault"
    assert "stall" in body["floor"]["fault"]
    assert body["turn"]["remaining"] == pytest.approx(2.75)
    assert table.session()["state"]["phase"] == "turning"
    r = client.post("/api/v1/session/actions", json={"action": {"type": "floor_turned", "manual": True}},
                    headers=AUTH)
    assert r.get_json()["state"]["phase"] == "search"
    assert r.get_json()["state"]["floor"]["position"] == 13       # 3 ants counter-clockwise of 0


def test_home_not_found_is_a_fault_and_homing_again_clears_it(rig):
    client, table, floor = rig
    floor.speed = 40.0                           # 1.2 revolutions = 19.2 ants: keep it short
    floor.fail_next("home")
    r = client.post("/api/v1/floor/home", json={}, headers=AUTH)
    assert r.status_code == 200
    assert floor.wait_idle(30)
    body = client.get("/api/v1/floor").get_json()
    assert body["floor"]["state"] == "fault"
    assert "home not found" in body["floor"]["fault"]
    r = client.post("/api/v1/floor/home", json={}, headers=AUTH)
    assert r.status_code == 200
    assert floor.wait_idle(30)
    assert client.get("/api/v1/floor").get_json()["floor"]["state"] == "idle"
