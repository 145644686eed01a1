"""Choosing gpiozero's pin factory: mock pins, lgpio or RPi.GPIO.

Config names one of ``mock``, ``lgpio``, ``rpigpio`` or ``auto``. The real GPIO
libraries (``lgpio``, ``RPi.GPIO``) come from the ``pi`` extra and are imported
only when chosen, so the daemon, the simulator and CI run on any machine.

``gpio_available()`` answers "is there real GPIO here?" without importing those
libraries, so the daemon can say why it falls back to simulated devices.
"""
from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

FACTORY_NAMES = ("auto", "lgpio", "rpigpio", "mock")

INSTALL_HINT = "install the Raspberry Pi extras: pip install 'potionpi[pi]'"

# Where Linux tells us what board and OS this is.
MODEL_PATHS = (Path("/proc/device-tree/model"), Path("/sys/firmware/devicetree/base/model"))
OS_RELEASE = Path("/etc/os-release")
GPIOCHIP = Path("/dev/gpiochip0")

# Debian releases from Bookworm on drop the old sysfs GPIO that RPi.GPIO needs.
_LGPIO_RELEASES = {"bookworm", "trixie", "forky"}

_BACKENDS = {
    # name: (python module of the library, gpiozero module, factory class)
    "lgpio": ("lgpio", "gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("RPi.GPIO", "gpiozero.pins.rpigpio", "RPiGPIOFactory"),
}


class PinFactoryError(RuntimeError):
    """The chosen pin factory cannot start here; the message says what to do."""


def read_board_model(paths=MODEL_PATHS) -> str | None:
    """The board's model string (e.g. "Raspberry Pi 5 Model B Rev 1.0"), or None."""
    for path in paths:
        try:
            return path.read_bytes().decode("ascii", "replace").rstrip("\x00\n ")
        except OSError:
            continue
    return None


def read_os_codename(path: Path = OS_RELEASE) -> str | None:
    try:
        text = path.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip().strip('"') or None
    return None


def choose_backends(model: str | None, codename: str | None) -> list[str]:
    """Back-ends to try for ``auto``, best first; empty when this is no Raspberry Pi."""
    if not model or "raspberry pi" not in model.lower():
        return []
    if "raspberry pi 5" in model.lower():
        return ["lgpio"]  # RPi.GPIO cannot drive the Pi 5's RP1 chip
    if (codename or "").lower() in _LGPIO_RELEASES:
        return ["lgpio", "rpigpio"]
    return ["rpigpio", "lgpio"]


def _library_installed(backend: str) -> bool:
    module = _BACKENDS[backend][0]
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def gpio_available(name: str = "auto") -> tuple[bool, str]:
    """``(True, "...")`` when pin factory ``name`` should work here, else ``(False, why)``.

    Imports no GPIO library; ``mock`` is always available (but is not real GPIO,
    so it answers False with a reason: the caller decides what that means).
    """
    if name == "mock":
        return False, "the mock pin factory was chosen, so no real GPIO is used"
    if name not in FACTORY_NAMES:
        return False, _unknown_name(name)
    model = read_board_model()
    if name == "auto":
        backends = choose_backends(model, read_os_codename())
        if not backends:
            return False, ("this machine is not a Raspberry Pi"
                           + (f" (board: {model})" if model else " (no device-tree model)"))
    else:
        backends = [name]
    if not GPIOCHIP.exists() and model is None:
        return False, f"there is no GPIO chip here ({GPIOCHIP} is missing)"
    missing = [b for b in backends if not _library_installed(b)]
    if len(missing) == len(backends):
        libs = " or ".join(_BACKENDS[b][0] for b in backends)
        return False, f"the GPIO library {libs} is not installed: {INSTALL_HINT}"
    usable = [b for b in backends if b not in missing]
    return True, f"GPIO through {usable[0]} on {model or 'this board'}"


def make_pin_factory(name: str):
    """A gpiozero pin factory for config name ``mock``, ``lgpio``, ``rpigpio`` or ``auto``."""
    if name == "mock":
        from gpiozero.pins.mock import MockFactory
        return MockFactory()
    if name not in FACTORY_NAMES:
        raise PinFactoryError(_unknown_name(name))
    if name != "auto":
        return _load_backend(name)
    model = read_board_model()
    backends = choose_backends(model, read_os_codename())
    if not backends:
        raise PinFactoryError(
            "pin_factory = \"auto\" found no Raspberry Pi here"
            + (f" (board: {model})" if model else "")
            + "; use pin_factory = \"mock\" or run with --sim for simulated devices")
    errors = []
    for backend in backends:
        try:
            return _load_backend(backend)
        except PinFactoryError as exc:
            errors.append(str(exc))
    raise PinFactoryError("; ".join(errors))


def _load_backend(backend: str):
    library, module_name, class_name = _BACKENDS[backend]
    try:
        module = importlib.import_module(module_name)  # imports the library itself
    except ImportError as exc:
        raise PinFactoryError(
            f"pin factory \"{backend}\" needs the {library} library, which is not "
            f"installed ({exc}): {INSTALL_HINT}") from exc
    except RuntimeError as exc:  # RPi.GPIO says "can only be run on a Raspberry Pi"
        raise PinFactoryError(f"pin factory \"{backend}\" cannot start here: {exc}") from exc
    try:
        return getattr(module, class_name)()
    except Exception as exc:  # no /dev/gpiochip, no permission, wrong board
        raise PinFactoryError(
            f"pin factory \"{backend}\" could not open the GPIO chip: {exc} "
            "(is this a Raspberry Pi, and is the user in the 'gpio' group?)") from exc


def _unknown_name(name: str) -> str:
    return (f"unknown pin factory {name!r}: choose one of "
            + ", ".join(f'"{n}"' for n in FACTORY_NAMES))
