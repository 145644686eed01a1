"""Choosing the pin factory: mock, lgpio, RPi.GPIO or auto, with clear errors."""
from __future__ import annotations

import sys
import time

import pytest
from gpiozero.pins.mock import MockFactory

from controller.config import section
from controller.devices import pins
from controller.devices.cauldron import Cauldron
from controller.devices.pins import PinFactoryError, choose_backends, gpio_available, make_pin_factory


def test_mock_factory_drives_a_real_cauldron():
    factory = make_pin_factory("mock")
    assert isinstance(factory, MockFactory)
    seen = []
    cauldron = Cauldron.from_config(section("cauldron"), pin_factory=factory, sink=seen.append)
    try:
        beam = factory.pin(22)
        beam.drive_low()
        time.sleep(0.003)                  # plain mock pins stamp edges with the real clock
        beam.drive_high()
        cauldron.flush()
        assert seen == [{"type": "drop"}]
    finally:
        cauldron.close()


def test_unknown_name_lists_the_choices():
    with pytest.raises(PinFactoryError, match='"auto", "lgpio", "rpigpio", "mock"'):
        make_pin_factory("pigpio")
    ok, reason = gpio_available("pigpio")
    assert not ok and "unknown pin factory" in reason


@pytest.mark.parametrize("model, codename, expected", [
    ("Raspberry Pi 5 Model B Rev 1.0", "bookworm", ["lgpio"]),
    ("Raspberry Pi 5 Model B Rev 1.0", "bullseye", ["lgpio"]),
    ("Raspberry Pi 4 Model B Rev 1.4", "bookworm", ["lgpio", "rpigpio"]),
    ("Raspberry Pi 4 Model B Rev 1.4", "bullseye", ["lgpio", "rpigpio"]),
    ("Raspberry Pi 3 Model B Rev 1.2", "buster", ["rpigpio", "lgpio"]),
    ("Raspberry Pi Zero 2 W Rev 1.0", None, ["lgpio", "rpigpio"]),
    ("Radxa ROCK 5B", "bookworm", []),
    (None, "bookworm", []),
])
def test_auto_prefers_lgpio_except_on_kernels_too_old_for_it(model, codename, expected):
    assert choose_backends(model, codename) == expected


@pytest.fixture
def no_gpio_libraries(monkeypatch):
    """As on a fresh machine without the pi extra: importing lgpio / RPi.GPIO fails."""
    for name in ("lgpio", "RPi", "RPi.GPIO"):
        monkeypatch.setitem(sys.modules, name, None)
    for name in ("gpiozero.pins.lgpio", "gpiozero.pins.rpigpio"):
        monkeypatch.delitem(sys.modules, name, raising=False)


@pytest.mark.parametrize("name, library", [("lgpio", "lgpio"), ("rpigpio", "RPi.GPIO")])
def test_missing_library_says_what_to_install(no_gpio_libraries, name, library):
    with pytest.raises(PinFactoryError) as caught:
        make_pin_factory(name)
    message = str(caught.value)
    assert library in message
    assert "potionpi[pi]" in message


def test_auto_off_a_pi_says_so_and_imports_no_gpio_library(monkeypatch):
    monkeypatch.setattr(pins, "read_board_model", lambda: None)
    before = {m for m in ("lgpio", "RPi.GPIO") if m in sys.modules}
    with pytest.raises(PinFactoryError, match="no Raspberry Pi"):
        make_pin_factory("auto")
    assert {m for m in ("lgpio", "RPi.GPIO") if m in sys.modules} == before
    ok, reason = gpio_available("auto")
    assert not ok
    assert "not a Raspberry Pi" in reason


def test_auto_on_a_pi_without_the_libraries(no_gpio_libraries, monkeypatch):
    monkeypatch.setattr(pins, "read_board_model", lambda: "Raspberry Pi 4 Model B Rev 1.4")
    monkeypatch.setattr(pins, "read_os_codename", lambda: "bookworm")
    monkeypatch.setattr(pins, "_library_installed", lambda backend: False)
    ok, reason = gpio_available("auto")
    assert not ok and "potionpi[pi]" in reason
    with pytest.raises(PinFactoryError) as caught:
        make_pin_factory("auto")
    assert "lgpio" in str(caught.value) and "RPi.GPIO" in str(caught.value)


def test_gpio_available_on_a_pi_with_lgpio(monkeypatch):
    monkeypatch.setattr(pins, "read_board_model", lambda: "Raspberry Pi 5 Model B Rev 1.0")
    monkeypatch.setattr(pins, "read_os_codename", lambda: "bookworm")
    monkeypatch.setattr(pins, "_library_installed", lambda backend: backend == "lgpio")
    assert gpio_available("auto") == (True, "GPIO through lgpio on Raspberry Pi 5 Model B Rev 1.0")


def test_mock_is_never_real_gpio():
    ok, reason = gpio_available("mock")
    assert not ok and "mock" in reason


def test_board_model_and_os_release_files(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\x00")
    assert pins.read_board_model((tmp_path / "missing", model)) == "Raspberry Pi 4 Model B Rev 1.4"
    assert pins.read_board_model((tmp_path / "missing",)) is None
    release = tmp_path / "os-release"
    release.write_text('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n')
    assert pins.read_os_codename(release) == "bookworm"
    assert pins.read_os_codename(tmp_path / "nope") is None


# --- lgpio's notification pipe (gpiozero #1106) ------------------------------------------
def test_lgpio_pipe_that_cannot_be_created_names_the_fix(monkeypatch):
    def import_module(name):
        # what lgpio raises when it cannot make its pipe in the working directory
        raise FileNotFoundError(2, "No such file or directory", ".lgd-nfy-3")
    monkeypatch.setattr(pins.importlib, "import_module", import_module)
    monkeypatch.setenv("LG_WD", "/nonexistent")
    with pytest.raises(PinFactoryError) as err:
        make_pin_factory("lgpio")
    message = str(err.value)
    assert "notification pipe in /nonexistent" in message
    assert "directory its user may write to" in message and "LG_WD" in message


def test_lgpio_gets_a_writable_working_directory_before_it_loads(monkeypatch, tmp_path):
    seen = {}

    def import_module(name):
        seen["LG_WD"] = pins.os.environ.get("LG_WD")
        raise ImportError("No module named 'lgpio'")
    monkeypatch.setattr(pins.importlib, "import_module", import_module)
    monkeypatch.delenv("LG_WD", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.chdir("/")
    # the service's user may not write to / (root may: ask as that user would be answered)
    monkeypatch.setattr(pins.os, "access", lambda path, mode: path != "/")
    with pytest.raises(PinFactoryError, match="needs the lgpio library"):
        make_pin_factory("lgpio")
    assert seen["LG_WD"] == str(tmp_path)


def test_lgpio_keeps_a_working_directory_the_maker_chose(monkeypatch, tmp_path):
    monkeypatch.setenv("LG_WD", str(tmp_path))
    assert pins.lgpio_workdir() == str(tmp_path)
    monkeypatch.delenv("LG_WD")
    monkeypatch.chdir(tmp_path)
    assert pins.lgpio_workdir() == str(tmp_path)      # a writable cwd is fine as it is
