"""`potionpi hotspot` and `potionpi update`: the commands they would run, and what happens
when one fails."""
from __future__ import annotations

import io
import shlex
from pathlib import Path

import pytest

from controller.cli import main
from controller.service import update
from controller.service.hotspot import on_commands


def test_hotspot_dry_run_prints_the_nmcli_commands(capsys):
    assert main(["hotspot", "--ssid", "Zauberwald", "--password", "ants and owls", "--dry-run"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "nmcli connection delete potionpi-hotspot"
    add = shlex.split(lines[1])
    assert add[:3] == ["nmcli", "connection", "add"]
    settings = dict(zip(add[3::2], add[4::2]))
    assert settings["ssid"] == "Zauberwald" and settings["con-name"] == "potionpi-hotspot"
    assert settings["802-11-wireless.mode"] == "ap" and settings["ipv4.method"] == "shared"
    assert settings["wifi-sec.key-mgmt"] == "wpa-psk" and settings["wifi-sec.psk"] == "ants and owls"
    assert lines[2] == "nmcli connection up potionpi-hotspot"


def test_hotspot_channel_and_off(capsys):
    cmds = on_commands("T", "12345678", "wlan1", channel=6)
    assert "wlan1" in cmds[1] and cmds[1][cmds[1].index("802-11-wireless.channel") + 1] == "6"
    assert main(["hotspot", "--off", "--dry-run"]) == 0
    assert capsys.readouterr().out == "nmcli connection delete potionpi-hotspot\n"


@pytest.mark.parametrize("args, sentence", [
    (["--ssid", "T", "--password", "short"], "WPA2 needs 8 to 63"),
    (["--ssid", "x" * 33, "--password", "12345678"], "use 1 to 32 characters"),
    (["--ssid", "T"], "name the Wi-Fi and its password"),
])
def test_hotspot_bad_input_changes_nothing(capsys, args, sentence):
    assert main(["hotspot", *args, "--dry-run"]) == 2
    out = capsys.readouterr()
    assert sentence in out.err and out.out == ""


def test_update_plan_from_a_git_checkout_as_the_user():
    steps = update.plan(python="/t/.venv/bin/python", checkout=Path("/t"), service=True,
                        euid=1000, sudo_user="")
    assert [shlex.join(c) for _, c in steps] == [
        "git -C /t pull --ff-only",
        "/t/.venv/bin/python -m pip install --quiet -e '/t[pi]'",
        "/t/.venv/bin/python -m compileall -q /t/controller /t/web_ui",
        "sudo systemctl stop potionpi.service",
        "/t/.venv/bin/python -m controller.cli firmware flash --if-older",
        "sudo systemctl start potionpi.service",
    ]


def test_update_with_sudo_keeps_the_checkout_the_users():
    steps = update.plan(python="/t/.venv/bin/python", checkout=Path("/t"), service=True,
                        euid=0, sudo_user="ann")
    commands = [c for _, c in steps]
    assert commands[0][:3] == ["sudo", "-u", "ann"] and commands[0][3] == "git"
    assert commands[3] == ["systemctl", "stop", "potionpi.service"]


def test_update_from_pip_without_a_service():
    steps = update.plan(python="/v/bin/python", checkout=None, service=False, euid=1000, sudo_user="")
    assert [c for _, c in steps] == [
        ["/v/bin/python", "-m", "pip", "install", "--quiet", "--upgrade", "potionpi[pi]"],
        ["/v/bin/python", "-m", "controller.cli", "firmware", "flash", "--if-older"]]


def test_update_dry_run_lists_the_steps(capsys):
    assert main(["update", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1. get the new software: " in out
    assert "firmware flash --if-older" in out


def test_a_failed_update_starts_the_table_again():
    steps = update.plan(python="py", checkout=Path("/t"), service=True, euid=0, sudo_user="")
    ran = []

    def run(cmd):
        ran.append(cmd)
        return 3 if "pip" in cmd else 0

    out = io.StringIO()
    assert update.update(out, dry_run=False, steps=steps, run=run) == 1
    assert "failed (exit 3); starting the table again" in out.getvalue()
    # pip failed before the service was stopped: nothing stopped, the start is harmless
    assert ran[-1] == ["systemctl", "start", "potionpi.service"]


def test_no_pico_does_not_fail_the_update():
    steps = update.plan(python="py", checkout=Path("/t"), service=True, euid=0, sudo_user="")
    out = io.StringIO()
    assert update.update(out, dry_run=False, steps=steps,
                         run=lambda cmd: 1 if "--if-older" in cmd else 0) == 0
    assert "no Pico answered" in out.getvalue() and out.getvalue().endswith("updated\n")


@pytest.mark.parametrize("pico_version, flashed", [(None, False), ("0.9.0", True)])
def test_flash_if_older_asks_the_pico_first(capsys, monkeypatch, pico_version, flashed):
    from controller import firmware_tools
    from controller.devices.sim_pico import SimPico
    pico = SimPico(steps_per_rev=3200, firmware_version=pico_version)   # None: this potionpi's own
    calls = []
    monkeypatch.setattr(firmware_tools, "flash", lambda port, out: calls.append(port) or 0)
    try:
        assert main(["firmware", "flash", "--if-older", "--port", pico.port]) == 0
    finally:
        pico.close()
    assert calls == ([pico.port] if flashed else [])
    if not flashed:
        host = firmware_tools.firmware_version()
        assert f"is current (this potionpi brings {host}); nothing to flash" in capsys.readouterr().out


def test_flash_if_older_without_a_pico(capsys, tmp_path):
    assert main(["firmware", "flash", "--if-older", "--port", str(tmp_path / "ttyACM7")]) == 1
    assert "no Pico answered; nothing to flash" in capsys.readouterr().out


def test_flash_without_mpremote_names_the_pip_line_not_the_safe_mode_wire(capsys, monkeypatch):
    from controller.service import preflight
    monkeypatch.setattr(preflight, "library_installed", lambda module: module != "mpremote")
    assert main(["firmware", "flash", "--port", "/dev/ttyACM0"]) == 2
    err = capsys.readouterr().err
    assert "flashing needs mpremote, which is not installed" in err and "pip install mpremote" in err
    assert "GP22" not in err
