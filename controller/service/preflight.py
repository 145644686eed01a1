"""Which table does this machine have? Real devices, simulated ones, or an error.

``make run`` / ``potionpi run`` mean "the table this machine has": simulated only when
asked (``--sim``) or when the machine has no GPIO at all (not a Raspberry Pi), and then
said loudly. A config that names real hardware this machine cannot give — a GPIO
library that is not installed, a GPIO chip that is not there, a Pico that is not plugged
in — is an error with one sentence: what is missing and the line that fixes it. Never
a silent simulation (which would leave a real motor turning beside a simulated cauldron).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..config import Config
from ..devices import pins

# The pip line that installs a library into *this* venv (the one running potionpi).
PIP = f"{sys.executable} -m pip install"
FIXES = {
    "lgpio": f"`{PIP} 'lgpio>=0.2.2'` (a wheel, no compiler needed; `make` does it on a Pi), "
             "or `sudo apt install python3-lgpio` and a venv made with --system-site-packages",
    "rpigpio": f"`sudo apt install gcc python3-dev` then `{PIP} 'RPi.GPIO>=0.7'` "
               "(or choose pin_factory = \"lgpio\", which needs no compiler)",
    "smbus2": f"`{PIP} 'smbus2>=0.4'`",
}
LIBRARY = {"lgpio": "lgpio", "rpigpio": "RPi.GPIO"}
SIM_HINT = "run `make sim` or `potionpi run --sim` to play on simulated devices instead"


class MissingHardware(Exception):
    """The config asks for hardware this machine cannot give; one sentence with the fix."""


@dataclass
class Plan:
    simulated: bool
    why: str            # a sentence for the console: what runs and why

    def banner(self) -> list[str]:
        """What `run` prints first: loud when it simulates without being asked."""
        if not self.simulated or self.why.startswith("asked"):
            return [f"potionpi: {self.why}"]
        bar = "!" * 72
        return [bar, f"!! SIMULATED DEVICES: {self.why}.",
                "!! No cauldron or forest floor is read or driven; the tablet shows a simulation panel.",
                bar]


def library_installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def decide(config: Config, *, sim: bool, sim_mcu: bool = False) -> Plan:
    """The plan for ``config`` on this machine; raises MissingHardware (exit 2)."""
    if sim:
        plan = Plan(True, "asked for simulated devices (--sim)")
    else:
        plan = _gpio_plan(config)
    if not sim_mcu and config["forest_floor"]["backend"] == "serial":
        check_serial_floor(config)
    if not plan.simulated and config["cauldron"]["enabled"] \
            and config["cauldron"]["colour_sensor"] == "tcs34725":
        check_i2c(config)
    return plan


def _gpio_plan(config: Config) -> Plan:
    name = config["gpio"]["pin_factory"]
    source = config.source
    if name == "mock":
        return Plan(False, f"gpio.pin_factory = \"mock\" in {source}: the real device code on "
                           "mock pins, nothing is wired")
    model = pins.read_board_model()
    if name == "auto":
        backends = pins.choose_backends(model, pins.read_os_codename())
        if not backends:
            what = f"board: {model}" if model else "no Raspberry Pi board found"
            return Plan(True, f"this machine has no GPIO ({what}), so every device is simulated")
    else:
        backends = [name]
    usable = [b for b in backends if library_installed(LIBRARY[b])]
    if not usable:
        first = backends[0]
        raise MissingHardware(
            f"gpio.pin_factory = \"{name}\" in {source} needs the {LIBRARY[first]} library, which "
            f"is not installed: install it with {FIXES[first]}")
    if not pins.GPIOCHIP.exists() and not (usable[0] == "rpigpio" and model):
        raise MissingHardware(
            f"gpio.pin_factory = \"{name}\" in {source} needs the GPIO chip {pins.GPIOCHIP}, "
            f"which this machine does not have: {_no_chip_fix(model)}")
    chip = pins.GPIOCHIP
    if chip.exists() and not os.access(chip, os.R_OK | os.W_OK):
        raise MissingHardware(
            f"the user {_user()} may not use the GPIO chip {chip}: add it to the gpio group "
            f"with `sudo usermod -aG gpio {_user()}` and log in again (the service gets the "
            "group from its unit)")
    return Plan(False, f"real devices through {usable[0]} on {model or 'this board'}")


def _no_chip_fix(model: str | None) -> str:
    """What to do about a missing GPIO chip; never the setting that is already there."""
    is_pi = bool(pins.choose_backends(model, None))
    if is_pi:
        # `auto` already chose this board's library; the kernel is what lacks the chip
        return (f"this {model} shows no GPIO chip, so its kernel has no GPIO driver (or this "
                f"runs in a container without /dev/gpiochip*): boot the Pi's own kernel, or {SIM_HINT}")
    # only an explicit library gets here off a Pi: "auto" simulates where there is none
    return f"is it a Raspberry Pi? Set pin_factory = \"auto\" (simulated devices off a Pi), or {SIM_HINT}"


def check_serial_floor(config: Config) -> str:
    """The Pico's port for ``backend = "serial"``; raises MissingHardware when it is not there."""
    from ..devices.pico_link import find_pico_ports

    port = config["forest_floor"]["serial_port"]
    if port:
        if not Path(port).exists():
            raise MissingHardware(
                f"forest_floor.backend = \"serial\" in {config.source} needs the Pico at {port}, "
                "which is not there: plug the forest-floor Pico in by USB (with MicroPython and "
                "`potionpi firmware flash` on it), or empty serial_port to find it by USB id")
    else:
        found = find_pico_ports()
        if not found:
            raise MissingHardware(
                f"forest_floor.backend = \"serial\" in {config.source} needs the forest-floor "
                "Pico, but no Pico (USB id 2e8a) is plugged in: plug it in, or set "
                "backend = \"none\" to turn the floor by hand")
        port = found[0]
    if not os.access(port, os.R_OK | os.W_OK):
        raise MissingHardware(
            f"the user {_user()} may not open the Pico's port {port}: add it to the dialout group "
            f"with `sudo usermod -aG dialout {_user()}` and log in again")
    return port


def check_i2c(config: Config) -> None:
    bus = Path(f"/dev/i2c-{config['cauldron']['i2c_bus']}")
    if not library_installed("smbus2"):
        raise MissingHardware(
            f"cauldron.colour_sensor = \"tcs34725\" in {config.source} needs the smbus2 library, "
            f"which is not installed: install it with {FIXES['smbus2']}")
    if not bus.exists():
        raise MissingHardware(
            f"cauldron.colour_sensor = \"tcs34725\" in {config.source} needs the I2C bus {bus}, "
            "which is off: turn it on with `sudo raspi-config nonint do_i2c 0` and reboot")


def _user() -> str:
    try:
        import pwd
        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return str(os.getuid())
