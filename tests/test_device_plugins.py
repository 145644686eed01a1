"""Devices as plug-ins: declarations read as data, the hub a map by name, the floor's tablet
module and routes served from its plug-in, defaults from the declarations only."""
from __future__ import annotations

import inspect
import json
import re

import pytest

from controller import devices
from controller.config import SCHEMA, ConfigError, DeviceDeclaration, read_declarations
from controller.devices.hub import DeviceHub


def test_every_built_in_device_is_a_plug_in_in_its_order():
    assert list(devices.plugins()) == ["cauldron", "forest_floor"]
    # their sections sit after [gpio], each with the keys its device.toml declares
    assert list(SCHEMA) == ["table", "web", "store", "gpio", "cauldron", "forest_floor", "simulation"]


def write(tmp_path, text: str):
    folder = tmp_path / "devices" / "thing"
    folder.mkdir(parents=True)
    (folder / "device.toml").write_text(text)
    return folder / "device.toml"


@pytest.mark.parametrize("text, says", [
    ('[device]\nname = "thing"\n[keys.size]\nkind = "colour"\ndefault = 1\nhelp = "How big."\n',
     r"\[keys.size\] kind = 'colour'; use one of 'str', 'int'"),
    ('[device]\nname = "thing"\n[keys.pin]\nkind = "pin"\ndefault = 40\nhelp = "Its pin."\n',
     r"\[keys.pin\] default = 40 is not allowed by its own kind; use a whole number from 0 to 27"),
    ('[device]\nname = "thing"\n[keys.pin]\nkind = "pin"\ndefault = 4\n',
     r"\[keys.pin\] needs a default and a help"),
    ('[device]\nname = "thing"\n[[pins]]\nkeys = ["pin"]\n',
     r"\[\[pins\]\] names pin, not a key of \[keys\]"),
    ('[keys.pin]\nkind = "pin"\ndefault = 4\nhelp = "Its pin."\n', r"needs a \[device\] table"),
])
def test_a_bad_declaration_is_refused_naming_its_file_and_entry(tmp_path, text, says):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=re.escape(str(path)) + ".*" + says):
        DeviceDeclaration.read(path)


def test_a_device_may_not_take_a_core_section_or_a_name_twice(tmp_path):
    write(tmp_path, '[device]\nname = "web"\n')
    with pytest.raises(ConfigError, match=r"section \[web\] is the core's"):
        read_declarations([tmp_path / "devices"])
    other = tmp_path / "more" / "cauldron"
    other.mkdir(parents=True)
    (other / "device.toml").write_text('[device]\nname = "cauldron"\nsection = "cauldron2"\n')
    from controller.config import BUILTIN_DEVICES
    with pytest.raises(ConfigError, match="a device named 'cauldron' is declared twice"):
        read_declarations([BUILTIN_DEVICES, tmp_path / "more"])


class Recorder:
    """A device that keeps the effects it is handed."""

    def __init__(self):
        self.effects = []

    def handle_effect(self, effect):
        self.effects.append(effect)

    def status(self):
        return {"simulated": True}

    def close(self):
        pass


def test_the_hub_routes_each_effect_by_device_name():
    cauldron, floor = Recorder(), Recorder()
    hub = DeviceHub(simulated=True, cauldron=cauldron, forest_floor=floor)
    turn = {"device": "forest_floor", "op": "rotate", "ants": 3, "direction": "clockwise"}
    fill = {"device": "cauldron", "op": "fill", "drops": ["red"]}
    reset = {"device": "*", "op": "reset"}
    news = {"type": "game_over", "reason": "target"}       # Zaubercocktail's: no device's
    for effect in (turn, fill, reset, news):
        hub.handle_effect(effect)
    assert floor.effects == [turn, reset] and cauldron.effects == [fill, reset]
    assert hub.get("forest_floor") is floor and hub.forest_floor is floor
    assert hub.get("scale") is None
    with pytest.raises(AttributeError):
        hub.scale          # noqa: B018  (no such device declared: a typo, not None)
    assert hub.status() == {"simulated": True, "cauldron": {"simulated": True},
                            "forest_floor": {"simulated": True}}


def test_a_table_without_a_device_reports_it_as_none():
    assert DeviceHub(simulated=False).status() == {"simulated": False, "cauldron": None, "forest_floor": None}


@pytest.mark.parametrize("cls, key, param", [
    ("controller.devices.floor_gpio:GpioForestFloor", "forest_floor.enable_active_low", "enable_active_low"),
    ("controller.devices.floor_gpio:GpioForestFloor", "forest_floor.home_active_low", "home_active_low"),
    ("controller.devices.floor_gpio:GpioForestFloor", "forest_floor.stall_active_high", "stall_active_high"),
    ("controller.devices.floor_gpio:GpioForestFloor", "forest_floor.jam_tolerance_ants", "jam_tolerance_ants"),
    ("controller.devices.floor_gpio:GpioForestFloor", "forest_floor.home_mark_steps", "home_mark_steps"),
    ("controller.devices.floor_serial:SerialForestFloor", "forest_floor.home_on_connect", "home_on_connect"),
    ("controller.devices.floor_serial:SerialForestFloor", "forest_floor.jam_tolerance_ants", "jam_tolerance_ants"),
    ("controller.devices.colour_sensor:TCS34725", "cauldron.colour_gain", "gain"),
    ("controller.devices.colour_sensor:TCS34725", "cauldron.colour_integration_ms", "integration_ms"),
    ("controller.devices.colour_sensor:TCS34725", "cauldron.i2c_bus", "bus_number"),
])
def test_a_constructor_left_a_key_out_takes_the_declared_default(monkeypatch, cls, key, param):
    """The declarations are the one source: a changed default in device.toml reaches a
    device built without that key (a test's, a bench's), not a copy in the constructor."""
    import importlib
    module_name, _, name = cls.partition(":")
    section, _, key_name = key.partition(".")
    declared = SCHEMA[section][key_name].default
    signature = inspect.signature(getattr(importlib.import_module(module_name), name).__init__)
    assert signature.parameters[param].default == declared


def test_the_settle_time_default_is_the_declared_one_in_seconds():
    from controller.devices.colour_sensor import TCS34725
    settle = inspect.signature(TCS34725.__init__).parameters["settle_s"].default
    assert settle == SCHEMA["cauldron"]["colour_settle_ms"].default / 1000


def test_the_floors_module_is_served_from_its_plug_in_and_in_the_page(tmp_path):
    from controller.config import Config
    from controller.store import Store
    from controller.table import Table
    from tests.web.helpers import PIN, SECRET
    from web_ui import create_app

    store = Store(tmp_path / "t.sqlite3")
    table = Table(store)
    config = Config.defaults()
    config["forest_floor"]["backend"] = "sim"
    hub = DeviceHub.build(config, sim=True, table=table, say=lambda *_: None)
    try:
        client = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET).test_client()
        module = client.get("/devices/forest_floor/floor.js")
        assert module.status_code == 200 and "export function followFloor" in module.get_data(as_text=True)
        assert client.get("/devices/forest_floor/../device.toml").status_code == 404
        assert client.get("/devices/scale/floor.js").status_code == 404
        page = client.get("/").get_data(as_text=True)
        imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', page).group(1))["imports"]
        assert imports["/devices/forest_floor/floor.js"].startswith("/devices/forest_floor/floor.js?v=")
        boot = json.loads(re.search(r'<script type="application/json" id="boot">(.*?)</script>', page,
                                    re.S).group(1))
        assert boot["devices"]["forest_floor"]["floor"]["state"] == "idle"
        assert client.get("/api/v1/floor").get_json()["floor"]["state"] == "idle"
    finally:
        hub.close()
        store.close()
