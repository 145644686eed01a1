"""`make run` means the table this machine has: simulated only without GPIO (said loudly)
or when asked; configured hardware that is missing stops it with exit 2 and the fix."""
from __future__ import annotations

import subprocess
import sys

import pytest

from controller.config import Config
from controller.devices import pins
from controller.service import preflight
from controller.service.preflight import MissingHardware, decide


def run(*args):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args],
                          capture_output=True, text=True, timeout=60)


def config_file(tmp_path, text):
    path = tmp_path / "potionpi.toml"
    path.write_text(text)
    return path


@pytest.fixture
def no_lgpio(monkeypatch):
    real = preflight.library_installed
    monkeypatch.setattr(preflight, "library_installed",
                        lambda module: False if module in ("lgpio", "RPi.GPIO") else real(module))


@pytest.fixture
def on_a_pi(monkeypatch):
    monkeypatch.setattr(pins, "read_board_model", lambda *a: "Raspberry Pi 4 Model B Rev 1.5")
    monkeypatch.setattr(pins, "read_os_codename", lambda *a: "bookworm")


def test_config_naming_lgpio_without_lgpio_exits_2_with_the_pip_line(tmp_path, no_lgpio):
    path = config_file(tmp_path, '[gpio]\npin_factory = "lgpio"\n')
    with pytest.raises(MissingHardware) as err:
        decide(Config.load(path), sim=False)
    sentence = str(err.value)
    assert f'gpio.pin_factory = "lgpio" in {path} needs the lgpio library' in sentence
    assert f"{sys.executable} -m pip install 'lgpio>=0.2.2'" in sentence
    assert "sudo apt install python3-lgpio" in sentence


def test_the_command_exits_2_in_one_sentence_and_starts_nothing(tmp_path):
    if preflight.library_installed("lgpio"):
        pytest.skip("lgpio is installed here")
    path = config_file(tmp_path, '[gpio]\npin_factory = "lgpio"\n')
    result = run("run", "--config", str(path), "--data-dir", str(tmp_path / "data"), "--port", "0")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("potionpi: gpio.pin_factory = \"lgpio\"")
    assert "pip install 'lgpio>=0.2.2'" in lines[0]
    assert not (tmp_path / "data").exists()          # nothing was started or written


def test_a_pi_without_its_gpio_library_is_an_error_not_a_simulation(on_a_pi, no_lgpio):
    with pytest.raises(MissingHardware, match="needs the lgpio library"):
        decide(Config.defaults(), sim=False)


def test_no_gpio_here_means_simulated_and_says_so_loudly(monkeypatch):
    monkeypatch.setattr(pins, "read_board_model", lambda *a: None)
    plan = decide(Config.defaults(), sim=False)
    assert plan.simulated
    banner = "\n".join(plan.banner())
    assert "SIMULATED DEVICES" in banner and "no GPIO" in banner


def test_asked_for_simulation_is_simulated_quietly():
    plan = decide(Config.defaults(), sim=True)
    assert plan.simulated and plan.banner() == ["potionpi: asked for simulated devices (--sim)"]


def test_lgpio_chosen_on_a_machine_without_a_gpio_chip(tmp_path, monkeypatch):
    monkeypatch.setattr(preflight, "library_installed", lambda module: True)
    monkeypatch.setattr(pins, "GPIOCHIP", tmp_path / "gpiochip0")
    monkeypatch.setattr(pins, "read_board_model", lambda *a: None)
    path = config_file(tmp_path, '[gpio]\npin_factory = "lgpio"\n')
    with pytest.raises(MissingHardware, match="needs the GPIO chip .*`make sim`"):
        decide(Config.load(path), sim=False)


def test_auto_on_a_pi_without_a_gpio_chip_never_advises_auto(on_a_pi, tmp_path, monkeypatch):
    """The setting is already "auto": the advice names what is missing (the kernel's GPIO
    driver) and the way to simulate, not the value that is set."""
    monkeypatch.setattr(preflight, "library_installed", lambda module: True)
    monkeypatch.setattr(pins, "GPIOCHIP", tmp_path / "gpiochip0")
    with pytest.raises(MissingHardware) as err:
        decide(Config.defaults(), sim=False)
    message = str(err.value)
    assert 'gpio.pin_factory = "auto"' in message and "set pin_factory" not in message
    assert "Raspberry Pi 4 Model B Rev 1.5 shows no GPIO chip" in message and "`make sim`" in message


def test_serial_floor_without_its_pico_exits_2_even_when_simulated(tmp_path):
    path = config_file(tmp_path, '[forest_floor]\nbackend = "serial"\nserial_port = "/dev/potionpi-floor"\n')
    result = run("run", "--sim", "--config", str(path), "--data-dir", str(tmp_path), "--port", "0")
    assert result.returncode == 2
    assert "needs the Pico at /dev/potionpi-floor, which is not there: plug the forest-floor Pico in" \
        in result.stderr


def test_a_simulated_pico_needs_no_port():
    config = Config.defaults()
    config["forest_floor"]["backend"] = "serial"
    config["forest_floor"]["serial_port"] = "/dev/nothing-here"
    assert decide(config, sim=True, sim_mcu=True).simulated


def test_colour_sensor_without_i2c(on_a_pi, monkeypatch, tmp_path):
    monkeypatch.setattr(preflight, "library_installed", lambda module: True)
    chip = tmp_path / "gpiochip0"
    chip.write_text("")
    monkeypatch.setattr(pins, "GPIOCHIP", chip)
    path = config_file(tmp_path, '[cauldron]\ncolour_sensor = "tcs34725"\ni2c_bus = 9\n')
    with pytest.raises(MissingHardware, match="needs the I2C bus /dev/i2c-9.*raspi-config nonint do_i2c 0"):
        decide(Config.load(path), sim=False)


@pytest.mark.skipif(not __import__("shutil").which("make"), reason="make is not installed")
def test_make_run_is_the_real_table_and_make_sim_the_simulation():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]

    def recipe(target):
        # -n: print the commands; -o: take the venv as built (nothing is installed)
        out = subprocess.run(["make", "-n", "-o", ".venv/.installed-run", target, "ARGS=--port 9"],
                             cwd=root, capture_output=True, text=True, timeout=30).stdout
        return [line for line in out.splitlines() if "potionpi run" in line]

    assert recipe("run") == [".venv/bin/potionpi run --port 9"]
    assert recipe("sim") == [".venv/bin/potionpi run --sim --port 9"]
