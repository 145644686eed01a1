"""The device hub: simulated devices wired to the table, effects routed, balls in step.

The hub names no game: the running game's ``device_sync`` effects say what the devices
should hold, and the floor reports its turns only to a game with a ``floor_turned`` action.
The first tests use two small games made here for that; the rest play the real ones.
"""
from __future__ import annotations

import time

import pytest

from controller.config import Config
from controller.devices.hub import DeviceHub
from controller.games.base import Game, Outcome
from controller.table import Table


class Brewing(Game):
    """A cauldron game that remembers every drop and puts the rest back after a restart."""

    id = "test-brewing"
    name = "Brewing"
    min_players, max_players = 1, 4

    def setup(self, players, seed, options=None):
        return {"players": list(players), "cauldron": {"red": 3, "blue": 3}}

    def _do_drop(self, state, action):
        state["cauldron"][action["colour"]] -= 1

    def device_sync(self, state):
        return [{"device": "cauldron", "op": "set_contents", "contents": dict(state["cauldron"])}]

    def legal_actions(self, state):
        return [{"type": "drop", "colour": c} for c, n in state["cauldron"].items() if n]

    def view(self, state, seat=None):
        return state

    def outcome(self, state) -> Outcome | None:
        return None


class Walking(Brewing):
    """A game whose master waits for the forest floor to turn."""

    id = "test-walking"

    def _do_turn(self, state, action):
        state["phase"] = "turning"
        return [{"device": "forest_floor", "op": "rotate", "ants": action["ants"],
                 "direction": "clockwise"}]

    def _do_floor_turned(self, state, action):
        state["phase"] = "search"


def load_test_game(game_id: str) -> Game:
    return {"test-brewing": Brewing, "test-walking": Walking}[game_id]()


def fast_sim_config() -> Config:
    config = Config.defaults()
    config["simulation"]["floor_ants_per_second"] = 40.0
    return config


@pytest.fixture
def rig(store):
    """A table on the real games, wired by DeviceHub.build as the daemon wires it."""
    table = Table(store)
    hub = DeviceHub.build(Config.defaults(), sim=True, table=table, say=lambda *_: None)
    yield table, hub
    hub.close()


@pytest.fixture
def test_rig(store):
    """The same on the two games above."""
    table = Table(store, load_game=load_test_game)
    hub = DeviceHub.build(fast_sim_config(), sim=True, table=table, say=lambda *_: None)
    yield table, hub
    hub.close()


def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


# --- the seams, on games made for the test -----------------------------------------
def test_build_wires_effects_once_and_drops_reach_the_game(test_rig):
    table, hub = test_rig
    table.start("test-brewing", ["Ann"], seed=1)
    colour = hub.cauldron.drop()
    state = table.session()["state"]
    assert table.session()["version"] == 1
    assert state["cauldron"][colour] == 2 and sum(state["cauldron"].values()) == 5
    assert hub.cauldron.total() == 5                 # set_contents at the start, then one fell


def test_a_restart_puts_the_balls_where_the_games_device_sync_says(store, test_rig):
    table, hub = test_rig
    table.start("test-brewing", ["Ann"], seed=1)
    hub.cauldron.drop("red")
    hub.cauldron.drop("red")
    again = Table(store, load_game=load_test_game)
    again.resume()
    hub2 = DeviceHub.build(Config.defaults(), sim=True, table=again, say=lambda *_: None)
    try:
        assert {c: n for c, n in hub2.cauldron.contents().items() if n} == {"red": 1, "blue": 3}
    finally:
        hub2.close()


def test_without_a_running_game_every_drop_stays_in(test_rig):
    _table, hub = test_rig
    assert hub.cauldron.total() == 18


def test_the_floor_reports_its_turn_to_a_game_that_waits_for_it(test_rig):
    table, hub = test_rig
    table.start("test-walking", ["Ann"], seed=1)
    table.act({"type": "turn", "ants": 2})
    assert wait_for(lambda: table.session()["state"].get("phase") == "search")
    log = table.store.actions(table.session()["id"])
    assert [(e["source"], e["action"]) for e in log][-1] == ("sensor", {"type": "floor_turned"})


def test_a_game_without_a_floor_hears_nothing_of_a_turn(test_rig):
    table, hub = test_rig
    table.start("test-brewing", ["Ann"], seed=1)
    hub.forest_floor.rotate(2, "clockwise")
    assert hub.forest_floor.wait_idle(10)
    time.sleep(0.2)                                   # the report would come from a thread
    assert table.session()["version"] == 0
    assert not any(n["kind"] == "sensor" for _, n in table._notices)


def test_a_stopped_turn_asks_the_master_to_finish_by_hand(test_rig):
    table, hub = test_rig
    table.start("test-walking", ["Ann"], seed=1)
    hub.forest_floor.fail_next("stall", after_ants=0.5)
    table.act({"type": "turn", "ants": 3})
    assert wait_for(lambda: any(n["kind"] == "floor" for _, n in table._notices))
    message = next(n["message"] for _, n in table._notices if n["kind"] == "floor")
    assert "stuck" in message and "by hand" in message
    assert table.session()["state"]["phase"] == "turning"


# --- the real games ------------------------------------------------------------------
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


def test_the_device_code_names_no_game():
    from pathlib import Path

    import controller.devices as devices
    for path in Path(devices.__file__).parent.glob("*.py"):
        text = path.read_text().lower()
        for game in ("mirakel", "zauberwald", "zaubercocktail"):
            assert game not in text, f"{path.name} names the game {game!r}"
