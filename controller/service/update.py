"""`potionpi update`: new software, the service restarted, the Pico flashed if it is older.

A git working copy (``make`` + ``sudo .venv/bin/potionpi install``, the documented way) is
updated with ``git pull --ff-only`` and its venv reinstalled; a pip install with
``pip install --upgrade potionpi``. The Pico's firmware is compared and flashed by the
*new* code, in a fresh process, while the service is stopped (it holds the Pico's port).
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from types import EllipsisType
from typing import IO, Callable

from .install import UNIT_FILE, UNIT_NAME

Run = Callable[[list[str]], int]


def source_dir() -> Path | None:
    """The git working copy this potionpi runs from, or None (installed by pip)."""
    here = Path(__file__).resolve().parents[2]
    return here if (here / ".git").exists() and (here / "pyproject.toml").exists() else None


def plan(*, python: str = sys.executable, checkout: Path | None | EllipsisType = ...,
         service: bool | None = None, extras: str = "pi",
         euid: int | None = None, sudo_user: str | None = None) -> list[tuple[str, list[str]]]:
    """(what, command) in order. ``checkout``: the git working copy (None: installed by
    pip; default: found). ``service``: is the systemd unit installed (default: looked up)?

    Run as the table's user, the service steps go through ``sudo``; run with ``sudo``, the
    software steps go back to that user, so the working copy never gets root-owned files.
    """
    if isinstance(checkout, EllipsisType):          # not given: this potionpi's own
        checkout = source_dir()
    service = Path(UNIT_FILE).exists() if service is None else service
    euid = os.geteuid() if euid is None else euid
    sudo_user = os.environ.get("SUDO_USER") if sudo_user is None else sudo_user
    as_user = ["sudo", "-u", sudo_user] if euid == 0 and sudo_user else []
    as_root = [] if euid == 0 else ["sudo"]
    steps: list[tuple[str, list[str]]] = []
    if checkout is not None:
        steps.append(("get the new software",
                      as_user + ["git", "-C", str(checkout), "pull", "--ff-only"]))
        steps.append(("install it into the venv", as_user + [
            python, "-m", "pip", "install", "--quiet", "-e", f"{checkout}[{extras}]"]))
        # the service sees the checkout read-only: compile once here, not at every start
        steps.append(("compile it", as_user + [
            python, "-m", "compileall", "-q", str(checkout / "controller"), str(checkout / "web_ui")]))
    else:
        steps.append(("get the new software", as_user + [
            python, "-m", "pip", "install", "--quiet", "--upgrade", f"potionpi[{extras}]"]))
    if service:
        steps.append(("stop the table (it holds the Pico's port)",
                      as_root + ["systemctl", "stop", UNIT_NAME]))
    # the new code decides, in a new process: it knows the firmware it brings
    steps.append(("flash the forest-floor Pico if its firmware is older",
                  as_user + [python, "-m", "controller.cli", "firmware", "flash", "--if-older"]))
    if service:
        steps.append(("start the table again", as_root + ["systemctl", "start", UNIT_NAME]))
    return steps


def _is_start(cmd: list[str]) -> bool:
    return cmd[-2:] == ["start", UNIT_NAME]


def _run(cmd: list[str]) -> int:
    try:
        return subprocess.run(cmd, check=False).returncode
    except FileNotFoundError:
        return 127


def update(out: IO[str], *, dry_run: bool, steps: list[tuple[str, list[str]]] | None = None,
           run: Run = _run) -> int:
    steps = plan() if steps is None else steps
    for i, (what, cmd) in enumerate(steps, 1):
        line = shlex.join(cmd)
        if dry_run:
            out.write(f"{i}. {what}: {line}\n")
            continue
        out.write(f"{i}/{len(steps)} {what}: {line}\n")
        out.flush()
        code = run(cmd)
        if code == 0:
            continue
        if "--if-older" in cmd and code == 1:    # no Pico plugged in: nothing to flash
            out.write("   no Pico answered; flash it later with `potionpi firmware flash`\n")
            continue
        restart = [c for _, c in steps[i:] if _is_start(c)]
        out.write(f"   failed (exit {code})" + ("; starting the table again" if restart else "")
                  + "\n")
        for cmd in restart:                      # never leave the table stopped
            run(cmd)
        return 1
    if not dry_run:
        out.write("updated\n")
    return 0


def pico_firmware(port: str | None) -> tuple[int, str | None, str | None]:
    """(code, firmware version, port) of the Pico: code 0 it answered, 1 no Pico, 2 it
    speaks another protocol (flashing fixes that too)."""
    import io

    from ..devices.pico_link import find_pico_ports
    from ..firmware_tools import check

    if port is None:
        found = find_pico_ports()
        port = found[0] if found else None
    out = io.StringIO()
    code = check(port, out, pings=1)
    version = None
    for line in out.getvalue().splitlines():
        words = line.split()
        if words[:1] == ["firmware"]:
            version = words[1].rstrip(",")
        elif "runs forest-floor firmware" in line:
            version = line.split("runs forest-floor firmware", 1)[1].split()[0]
    return code, version, port
