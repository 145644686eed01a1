"""Choosing gpiozero's pin factory: mock pins, lgpio or RPi.GPIO.

Config names one of ``mock``, ``lgpio``, ``rpigpio`` or ``auto``. The real GPIO
libraries (``lgpio``, ``RPi.GPIO``) come from the ``pi`` extra and are imported
only when chosen, so the daemon, the simulator and CI run on any machine.

``gpio_available()`` answers "is there real GPIO here?" without importing those
libraries, so the daemon can say why it falls back to simulated devices.

The drop beam needs each edge's own timestamp (``require_edge_times``): lgpio and
the mock pins hand it over, RPi.GPIO does not. ``ClockedMockFactory``
(devices/clocked_mock.py, imported only where something is simulated) is gpiozero's
MockFactory with its edge ticks read from a given clock, so a simulation (or a test)
can let simulated milliseconds pass without sleeping through them.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .clocked_mock import ClockedMockFactory, ClockedMockPin  # noqa: F401
else:
    def __getattr__(name: str) -> Any:
        """``ClockedMockFactory`` and ``ClockedMockPin`` from here too, imported on first use:
        a table on real GPIO never loads gpiozero's mock pins."""
        if name in ("ClockedMockFactory", "ClockedMockPin"):
            from . import clocked_mock
            return getattr(clocked_mock, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FACTORY_NAMES = ("auto", "lgpio", "rpigpio", "mock")

INSTALL_HINT = "install the Raspberry Pi extras: pip install 'potionpi[pi]'"

# Where Linux tells us what board and OS this is.
MODEL_PATHS = (Path("/proc/device-tree/model"), Path("/sys/firmware/devicetree/base/model"))
OS_RELEASE = Path("/etc/os-release")
GPIOCHIP = Path("/dev/gpiochip0")

# Releases whose kernels (before 5.10) lack the GPIO character-device v2 interface lgpio
# needs; everywhere else lgpio comes first, since only it times the drop beam's edges.
_OLD_RELEASES = {"jessie", "stretch", "buster"}

# Pin factories whose when_changed ticks are the time of the edge itself (lgpio: the
# kernel's timestamp; pigpio: the daemon's; mock pins: the moment the test drove it).
# RPi.GPIO (and gpiozero's native factory) pass the time the callback ran instead.
EDGE_TIMED_FACTORIES = ("LGPIOFactory", "PiGPIOFactory", "MockFactory")

# lgpio's notification pipe goes into LG_WD, else the current directory (gpiozero #1106).
LGPIO_WORKDIR = "LG_WD"

_BACKENDS = {
    # name: (python module of the library, gpiozero module, factory class)
    "lgpio": ("lgpio", "gpiozero.pins.lgpio", "LGPIOFactory"),
    "rpigpio": ("RPi.GPIO", "gpiozero.pins.rpigpio", "RPiGPIOFactory"),
}


class PinFactoryError(RuntimeError):
    """The chosen pin factory cannot start here; the message says what to do."""


def read_board_model(paths: tuple[Path, ...] = MODEL_PATHS) -> str | None:
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
    if (codename or "").lower() in _OLD_RELEASES:
        return ["rpigpio", "lgpio"]
    return ["lgpio", "rpigpio"]


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


def make_pin_factory(name: str) -> Any:
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


def lgpio_workdir() -> str:
    """Where lgpio may create its notification pipe: LG_WD if set, the current directory
    if writable, else the user's runtime directory or the temporary directory."""
    if os.environ.get(LGPIO_WORKDIR):
        return os.environ[LGPIO_WORKDIR]
    if os.access(os.getcwd(), os.W_OK):
        return os.getcwd()
    for candidate in (os.environ.get("XDG_RUNTIME_DIR"), tempfile.gettempdir()):
        if candidate and os.access(candidate, os.W_OK):
            return candidate
    return os.getcwd()


def _load_backend(backend: str) -> Any:
    library, module_name, class_name = _BACKENDS[backend]
    if backend == "lgpio":
        # lgpio makes a named pipe in its working directory when it loads: a service
        # started in / (read-only for its user) would fail there (gpiozero #1106).
        os.environ[LGPIO_WORKDIR] = lgpio_workdir()
    try:
        module = importlib.import_module(module_name)  # imports the library itself
    except OSError as exc:
        raise PinFactoryError(_pipe_message(backend, exc)) from exc
    except ImportError as exc:
        raise PinFactoryError(
            f"pin factory \"{backend}\" needs the {library} library, which is not "
            f"installed ({exc}): {INSTALL_HINT}") from exc
    except RuntimeError as exc:  # RPi.GPIO says "can only be run on a Raspberry Pi"
        raise PinFactoryError(f"pin factory \"{backend}\" cannot start here: {exc}") from exc
    try:
        return getattr(module, class_name)()
    except OSError as exc:
        if ".lgd-nfy" in str(exc) or "pipe" in str(exc).lower():
            raise PinFactoryError(_pipe_message(backend, exc)) from exc
        raise PinFactoryError(
            f"pin factory \"{backend}\" could not open the GPIO chip: {exc} "
            "(is this a Raspberry Pi, and is the user in the 'gpio' group?)") from exc
    except Exception as exc:  # no /dev/gpiochip, no permission, wrong board
        raise PinFactoryError(
            f"pin factory \"{backend}\" could not open the GPIO chip: {exc} "
            "(is this a Raspberry Pi, and is the user in the 'gpio' group?)") from exc


def _unknown_name(name: str) -> str:
    return (f"unknown pin factory {name!r}: choose one of "
            + ", ".join(f'"{n}"' for n in FACTORY_NAMES))


def _pipe_message(backend: str, exc: OSError) -> str:
    where = os.environ.get(LGPIO_WORKDIR) or os.getcwd()
    return (f"pin factory \"{backend}\" could not create its notification pipe in {where} "
            f"({exc}): start potionpi from a directory its user may write to (the service's "
            "WorkingDirectory, e.g. the data dir), or set LG_WD to one (LG_WD=/tmp)")


def require_edge_times(factory: Any, what: str) -> None:
    """Refuse a pin factory that cannot say when an edge happened, for ``what`` needs it."""
    names = {cls.__name__ for cls in type(factory).__mro__}
    if names.isdisjoint(EDGE_TIMED_FACTORIES):
        raise PinFactoryError(
            f"{what} needs the time of each edge, and the {type(factory).__name__} pin factory "
            "only says when its callback ran (RPi.GPIO reads the level late, so a 3 ms ball "
            "can vanish): set pin_factory = \"lgpio\" in [gpio] (pip install lgpio)")
