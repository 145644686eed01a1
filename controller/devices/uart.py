"""The Pi's serial port for a TMC2209: which device it is, which device class the service
must be allowed, and what to tell the maker when it cannot be opened.

- On a Raspberry Pi 5, ``/dev/serial0`` is the 3-pin debug connector between the HDMI
  sockets (``ttyAMA10``), not GPIO14/15: those are UART0, ``/dev/ttyAMA0``, once it is
  switched on (raspi-config's serial port, or ``dtoverlay=uart0-pi5``). On a Pi 3/4
  ``/dev/serial0`` is GPIO14/15's UART, ``ttyS0`` (mini UART) or ``ttyAMA0`` (PL011).
- The installed service runs with ``DevicePolicy=closed``: it may open only the device
  classes its unit names (``char-ttyAMA``, ``char-ttyS``, ... from ``/proc/devices``), so
  ``potionpi install`` adds the UART's class when ``tmc2209_uart`` is set.

``root`` lets the tests stand in a model name, ``/dev`` links and ``/proc/devices``.
"""
from __future__ import annotations

import errno
import os
import re
from pathlib import Path

MODEL = "proc/device-tree/model"
PI5_DEBUG_UART = "ttyAMA10"
# what /dev/serial0 may stand for, where it does not exist (yet) when the unit is written
SERIAL_ALIAS_CLASSES = ("char-ttyAMA", "char-ttyS")

ENABLE_UART = ("enable the serial port's hardware with `sudo raspi-config` (Interface Options → "
               "Serial Port: login shell no, hardware yes) and reboot")
PI5_FIX = ('on a Raspberry Pi 5, GPIO14/15 (header pins 8 and 10) are UART0: set '
           'forest_floor.tmc2209_uart = "/dev/ttyAMA0" and switch it on with `sudo raspi-config` '
           "(Interface Options → Serial Port: login shell no, hardware yes) or "
           "`dtoverlay=uart0-pi5` in /boot/firmware/config.txt, then reboot")


def pi_model(root: Path = Path("/")) -> str:
    try:
        return (root / MODEL).read_bytes().rstrip(b"\0").decode(errors="replace")
    except OSError:
        return ""


def is_pi5(root: Path = Path("/")) -> bool:
    model = pi_model(root)
    return "Raspberry Pi 5" in model or "Compute Module 5" in model


def _node(port: str, root: Path) -> Path:
    return root / port.lstrip("/")


def resolved_name(port: str, root: Path = Path("/")) -> str:
    """The device a port name stands for (``/dev/serial0`` → ``ttyAMA10``), or its own
    name when it does not exist."""
    node = _node(port, root)
    try:
        target = node.resolve(strict=True)
    except (OSError, RuntimeError):
        return node.name
    return target.name


def uart_problem(port: str, root: Path = Path("/")) -> str | None:
    """Why ``port`` is the wrong UART for GPIO14/15 on this Pi, or None."""
    if "://" in port:
        return None                      # a pyserial URL (tests, a network bridge)
    if is_pi5(root) and (resolved_name(port, root) == PI5_DEBUG_UART
                         or port in ("/dev/serial0", f"/dev/{PI5_DEBUG_UART}")):
        return (f"forest_floor.tmc2209_uart = \"{port}\" is the Raspberry Pi 5's debug connector "
                f"({PI5_DEBUG_UART}), not GPIO14/15: {PI5_FIX}")
    return None


def _char_driver(major: int, root: Path) -> str | None:
    """The driver name /proc/devices gives a character major (204 → ttyAMA)."""
    try:
        text = (root / "proc/devices").read_text()
    except OSError:
        return None
    chars = text.split("Block devices:")[0]
    for line in chars.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit() and int(parts[0]) == major:
            return parts[1]
    return None


def device_classes(port: str, root: Path = Path("/")) -> list[str]:
    """The ``DeviceAllow=`` classes the service needs to open ``port``."""
    if "://" in port:
        return []
    node = _node(port, root)
    try:
        st = node.stat()
        driver = _char_driver(os.major(st.st_rdev), root)
        if driver:
            return [f"char-{driver}"]
    except OSError:
        pass
    name = resolved_name(port, root)
    if re.fullmatch(r"serial\d+", name):
        return list(SERIAL_ALIAS_CLASSES)    # an alias not there yet: either UART it may be
    base = re.sub(r"\d+$", "", name)
    return [f"char-{base}"] if base.startswith("tty") else list(SERIAL_ALIAS_CLASSES)


def in_service() -> bool:
    """Running under systemd (as the installed service)."""
    return bool(os.environ.get("INVOCATION_ID"))


def open_failure(port: str, exc: BaseException, root: Path = Path("/")) -> str:
    """One sentence for a UART that did not open, naming the fix for what went wrong."""
    code = getattr(exc, "errno", None)
    text = str(exc)
    if code is None:
        found = re.search(r"\[Errno (\d+)\]", text)
        code = int(found[1]) if found else None
    if code == errno.ENOENT:
        fix = PI5_FIX if is_pi5(root) else ENABLE_UART
        return f"the TMC2209's UART {port} does not exist: {fix}"
    if code == errno.EPERM or (code == errno.EACCES and in_service()):
        return (f"the potionpi service may not open the TMC2209's UART {port}: its unit lets it "
                "open only the serial devices the config named when it was installed, so run "
                "`sudo potionpi install` again now that forest_floor.tmc2209_uart is set")
    if code == errno.EACCES:
        return (f"this user may not open the TMC2209's UART {port}: add it to the dialout group "
                "(`sudo adduser $USER dialout`, then log in again)")
    if code == errno.EBUSY or "lock" in text.lower():
        return (f"the TMC2209's UART {port} is in use: if the serial console runs on it, turn "
                "the login shell off in `sudo raspi-config` (Interface Options → Serial Port)")
    return f"cannot open the TMC2209's UART {port} ({text}): {ENABLE_UART}"
