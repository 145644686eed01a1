"""Config: defaults, overlay, and one clear error per bad file."""
from __future__ import annotations

import tomllib

import pytest

from controller.config import Config, ConfigError, default_file


def write(tmp_path, text):
    p = tmp_path / "potionpi.toml"
    p.write_text(text)
    return p


def test_printed_default_file_is_valid_toml_and_loads_to_defaults(tmp_path):
    text = default_file()
    assert tomllib.loads(text)
    assert Config.load(write(tmp_path, text)).values == Config.defaults().values


def test_overlay_keeps_other_defaults(tmp_path):
    c = Config.load(write(tmp_path, "[web]\nport = 9000\n[cauldron]\nbeam = 22\n"))
    assert c["web"]["port"] == 9000 and c["cauldron"]["beam"] == 22
    assert c["cauldron"]["encoder_a"] == 17


@pytest.mark.parametrize("text, needle", [
    ("[web]\nport = 70000\n", "web.port = 70000 is not allowed; use a whole number from 1 to 65535"),
    ("[web]\nport = \"80\"\n", "web.port = '80' is not allowed"),
    ("[gpio]\npin_factory = \"pigpio\"\n", "gpio.pin_factory = 'pigpio' is not allowed; use one of 'auto', 'lgpio'"),
    ("[cauldron]\nbeem = 3\n", "unknown key cauldron.beem; allowed: enabled, encoder_a"),
    ("[cauldorn]\n", "unknown section [cauldorn]"),
    ("[table]\npin = \"12a4\"\n", "table.pin = '12a4' is not allowed; use 4 to 8 digits"),
    ("[web\nport=1", "not valid TOML"),
    ("[cauldron]\nenabled = 1\n", "cauldron.enabled = 1 is not allowed; use true or false"),
    # tables: the entry at fault, by its name
    ("[cauldron]\ncolours = 3\n",
     "cauldron.colours = 3 is not allowed; use a table of name = three numbers [r, g, b]"),
    ("[cauldron.colours]\nred = [0.6, 0.2]\n",
     "cauldron.colours.red = [0.6, 0.2] is not allowed; use three numbers [r, g, b]"),
    ("[cauldron.colours]\nred = [0.6, 0.2, true]\n", "cauldron.colours.red = [0.6, 0.2, True] is not allowed"),
    ("[cauldron.colours]\nred = [0.6, 0.2, nan]\n", "cauldron.colours.red = [0.6, 0.2, nan] is not allowed"),
    ("[simulation.drops]\nred = 31\n",
     "simulation.drops.red = 31 is not allowed; use a whole number from 0 to 30"),
    ("[simulation.drops]\npink = 3\n", "simulation.drops.pink is not a name of this table; names: 'red'"),
])
def test_bad_values_name_file_key_value_and_allowed(tmp_path, text, needle):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as exc:
        Config.load(path)
    assert str(path) in str(exc.value) and needle in str(exc.value)


def test_learned_colours_load_as_numbers_and_are_none_by_default(tmp_path):
    assert Config.defaults()["cauldron"]["colours"] == {}
    c = Config.load(write(tmp_path, "[cauldron.colours]\nred = [1, 0.2, 0.1]\n"))
    assert c["cauldron"]["colours"] == {"red": [1.0, 0.2, 0.1]}
    assert all(isinstance(x, float) for x in c["cauldron"]["colours"]["red"])


def test_the_printed_learned_colours_example_loads_once_uncommented(tmp_path):
    # a table written by a tool is printed commented out, after its section's plain keys
    text = default_file().replace("# [cauldron.colours]", "[cauldron.colours]") \
        .replace("# red = [0.62, 0.21, 0.17]", "red = [0.62, 0.21, 0.17]")
    assert Config.load(write(tmp_path, text))["cauldron"]["colours"] == {"red": [0.62, 0.21, 0.17]}


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        Config.load(tmp_path / "nope.toml")


def test_integers_accepted_where_numbers_are(tmp_path):
    c = Config.load(write(tmp_path, "[cauldron]\nglitch_ms = 2\n"))
    assert c["cauldron"]["glitch_ms"] == 2.0 and isinstance(c["cauldron"]["glitch_ms"], float)


def test_docs_config_md_matches_the_schema():
    from pathlib import Path

    from controller.config import markdown
    doc = Path(__file__).resolve().parent.parent / "docs" / "config.md"
    assert doc.read_text() == markdown(), "regenerate docs/config.md from controller.config.markdown()"


def test_the_config_loads_no_device_and_no_web_module():
    """Devices and the web read their defaults from SCHEMA; the config reads none of them."""
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "import json, sys, controller.config; "
                          "print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, timeout=120, check=True)
    loaded = json.loads(out.stdout)
    assert not [m for m in loaded if m.startswith(("controller.devices", "web_ui", "controller.cli"))]
