"""Two config keys on one GPIO pin: refused when the config loads (so at start), naming both.

Each device plug-in declares the pins it claims and when (``[[pins]]`` in its device.toml);
a pin of a device this config does not use claims nothing.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from controller.config import Config, ConfigError, claimed_pins
from controller.service.check import TableCheck


def load(tmp_path, text):
    path = tmp_path / "potionpi.toml"
    path.write_text(text)
    return path, Config.load(path)


def test_two_keys_on_one_pin_are_refused_with_both_named(tmp_path):
    path = tmp_path / "potionpi.toml"
    path.write_text("[cauldron]\nbeam = 17\n")
    with pytest.raises(ConfigError) as refused:
        Config.load(path)
    assert str(refused.value) == (f"{path}: cauldron.encoder_a = 17 and cauldron.beam = 17 claim the same "
                                  "GPIO pin (BCM 17); give each its own pin (hardware/ has the pin map)")


def test_keys_of_two_devices_on_one_pin_are_refused(tmp_path):
    path = tmp_path / "potionpi.toml"
    path.write_text('[forest_floor]\nbackend = "gpio"\nstep_pin = 22\n')
    with pytest.raises(ConfigError, match=r"cauldron\.beam = 22 and forest_floor\.step_pin = 22 claim "
                                          r"the same GPIO pin \(BCM 22\)"):
        Config.load(path)


def test_a_key_on_the_colour_sensors_i2c_pins_is_refused(tmp_path):
    path = tmp_path / "potionpi.toml"
    path.write_text('[cauldron]\ncolour_sensor = "tcs34725"\nencoder_b = 3\n')
    with pytest.raises(ConfigError, match=r"cauldron\.encoder_b = 3 and I2C SCL \(colour sensor\) claim"):
        Config.load(path)


@pytest.mark.parametrize("text", [
    # the floor turns by hand (or by the Pico): its GPIO pins are not wired
    '[forest_floor]\nbackend = "serial"\nstep_pin = 17\n',
    # no cauldron on this Pi: its pins are free for the floor
    '[cauldron]\nenabled = false\n[forest_floor]\nbackend = "gpio"\nstep_pin = 17\ndir_pin = 27\n',
    # -1 is "none wired", however many keys say so
    '[forest_floor]\nbackend = "gpio"\nhome_pin = -1\nstall_pin = -1\n',
    # no colour sensor: BCM 2 and 3 are plain pins
    '[cauldron]\nencoder_a = 2\nencoder_b = 3\n',
])
def test_pins_a_device_does_not_use_claim_nothing(tmp_path, text):
    load(tmp_path, text)


def test_what_the_gpio_floor_claims(tmp_path):
    _, config = load(tmp_path, '[forest_floor]\nbackend = "gpio"\nstall_pin = 26\n')
    assert claimed_pins(config.values) == {
        "cauldron.encoder_a": 17, "cauldron.encoder_b": 27, "cauldron.beam": 22,
        "forest_floor.step_pin": 5, "forest_floor.dir_pin": 6, "forest_floor.enable_pin": 13,
        "forest_floor.home_pin": 19, "forest_floor.stall_pin": 26}


def test_the_daemon_does_not_start_on_a_pin_claimed_twice(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[cauldron]\nencoder_b = 17\n")
    for command in (["run", "--config", str(bad), "--data-dir", str(tmp_path)], ["config", "--check", str(bad)]):
        result = subprocess.run([sys.executable, "-m", "controller.cli", *command],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, result
        assert "Traceback" not in result.stderr
        assert result.stderr.strip() == (
            f"potionpi: bad config: {bad}: cauldron.encoder_a = 17 and cauldron.encoder_b = 17 claim the "
            "same GPIO pin (BCM 17); give each its own pin (hardware/ has the pin map)")


def test_potionpi_check_names_the_same_pins_from_the_declarations():
    config = Config.defaults()
    config["forest_floor"]["backend"] = "gpio"
    config["forest_floor"]["dir_pin"] = 27
    pins = next(r for r in TableCheck(config, sim=True).run() if r.name == "pins")
    assert (pins.status, pins.detail) == ("fail", "BCM 27 is used by cauldron.encoder_b and forest_floor.dir_pin")
