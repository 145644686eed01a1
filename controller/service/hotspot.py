"""The table's own Wi-Fi, for a games night with no home Wi-Fi: a NetworkManager hotspot.

Raspberry Pi OS Bookworm manages Wi-Fi with NetworkManager, so one ``nmcli`` connection
does it: access-point mode, WPA2, and ``ipv4.method shared`` (NetworkManager hands out
addresses and the Pi is 10.42.0.1). The tablet then opens http://10.42.0.1:8080/.
"""
from __future__ import annotations

import shlex
import subprocess
from typing import IO

from ..cli import UsageError
from ..config import SCHEMA

CONNECTION = "potionpi-hotspot"
ADDRESS = "10.42.0.1"      # NetworkManager's default for a shared connection


def ssid_problem(ssid: str) -> str | None:
    """Why ``ssid`` cannot name a Wi-Fi, or None (also for the image's first-boot file)."""
    return None if 1 <= len(ssid.encode()) <= 32 else "use 1 to 32 characters"


def password_problem(password: str) -> str | None:
    """Why ``password`` cannot be a WPA2 passphrase, or None."""
    if 8 <= len(password) <= 63 and password.isascii() and password.isprintable():
        return None
    return "WPA2 needs 8 to 63 plain (ASCII) characters"


def check(ssid: str, password: str) -> None:
    if (problem := ssid_problem(ssid)) is not None:
        raise UsageError(f"--ssid {ssid!r} is not allowed; {problem}")
    if (problem := password_problem(password)) is not None:
        raise UsageError(f"--password is not allowed; {problem}")


def on_commands(ssid: str, password: str, interface: str = "wlan0",
                band: str = "bg", channel: int | None = None) -> list[list[str]]:
    """The nmcli commands that make (or remake) the hotspot and bring it up."""
    check(ssid, password)
    add = ["nmcli", "connection", "add", "type", "wifi", "ifname", interface,
           "con-name", CONNECTION, "autoconnect", "yes", "ssid", ssid,
           "802-11-wireless.mode", "ap", "802-11-wireless.band", band,
           "ipv4.method", "shared", "ipv6.method", "ignore",
           "wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.proto", "rsn",
           "wifi-sec.pairwise", "ccmp", "wifi-sec.psk", password,
           # below a home network the Pi already knows, so that one wins where it exists
           "connection.autoconnect-priority", "-10"]
    if channel is not None:
        add[add.index("802-11-wireless.band") + 2:add.index("802-11-wireless.band") + 2] = [
            "802-11-wireless.channel", str(channel)]
    return [["nmcli", "connection", "delete", CONNECTION],
            add,
            ["nmcli", "connection", "up", CONNECTION]]


def off_commands() -> list[list[str]]:
    return [["nmcli", "connection", "delete", CONNECTION]]


def run(commands: list[list[str]], out: IO[str], *, dry_run: bool,
        port: int = SCHEMA["web"]["port"].default) -> int:
    """Print (``dry_run``) or run the commands; the first may fail (no old hotspot)."""
    for i, cmd in enumerate(commands):
        shown = shlex.join(cmd)
        if dry_run:
            out.write(shown + "\n")
            continue
        try:
            code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True).returncode
        except FileNotFoundError:
            out.write("nmcli is not installed: this needs NetworkManager "
                      "(Raspberry Pi OS Bookworm has it; `sudo apt install network-manager`)\n")
            return 1
        if code and not (i == 0 and cmd[2] == "delete" and len(commands) > 1):
            out.write(f"`{shown}` failed (exit {code}); run it by hand to see why "
                      "(it needs sudo)\n")
            return 1
    if not dry_run and len(commands) > 1:
        out.write(f"hotspot {CONNECTION} is up: join its Wi-Fi, then open "
                  f"http://{ADDRESS}:{port}/ on the tablet\n")
    return 0
