"""`potionpi install`: the unit passes systemd's own checks, every file is written (or printed)
and `uninstall` takes it all back."""
from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from controller.cli import UsageError, main
from controller.config import Config
from controller.service import install as inst

SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_systemd = pytest.mark.skipif(SYSTEMD_ANALYZE is None and os.environ.get("CI") != "true",
                                   reason="systemd-analyze is not installed (apt install systemd)")


def some_user() -> str:
    """An ordinary account of this machine to install for (root is refused)."""
    users = [u for u in pwd.getpwall() if u.pw_uid >= 1000 and u.pw_uid != 65534]
    return users[0].pw_name if users else "nobody"


@pytest.fixture
def setup():
    return inst.Setup.for_invoker(some_user())


def cli(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def write_unit(tmp_path: Path, text: str) -> Path:
    path = tmp_path / inst.UNIT_NAME
    path.write_text(text)
    return path


@needs_systemd
@pytest.mark.parametrize("port", [None, 80])
def test_unit_passes_systemd_analyze_verify(tmp_path, capsys, port):
    args = ["install", "--print-unit", "--user", some_user()] + (["--port", str(port)] if port else [])
    code, out, _ = cli(capsys, *args)
    assert code == 0
    unit = write_unit(tmp_path, out)
    result = subprocess.run([SYSTEMD_ANALYZE, "verify", str(unit)], capture_output=True, text=True)
    # "Special user nobody" is systemd's advice about that account, not a unit error
    complaints = [line for line in result.stderr.splitlines() if "Special user nobody" not in line]
    assert result.returncode == 0 and not complaints, result.stderr


@needs_systemd
def test_unit_exposure_is_at_most_2_5(tmp_path, setup):
    unit = write_unit(tmp_path, inst.unit_text(setup))
    result = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=true", str(unit)],
                            capture_output=True, text=True)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert found, result.stdout + result.stderr
    assert float(found.group(1)) <= 2.5, result.stdout


def test_unit_runs_as_the_invoking_user_with_notify_watchdog_and_sandbox(setup, monkeypatch):
    monkeypatch.setenv("SUDO_USER", setup.user)
    unit = inst.unit_text(inst.Setup.for_invoker())
    for line in ("Type=notify", f"User={setup.user}", "Restart=on-failure", "WatchdogSec=30",
                 "Wants=network-online.target", "After=network-online.target avahi-daemon.service",
                 "NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/potionpi",
                 "PrivateTmp=yes", "CapabilityBoundingSet=", "WantedBy=multi-user.target"):
        assert line in unit.splitlines(), line
    assert "User=pi\n" not in unit and "/home/pi" not in unit
    exec_start = next(l for l in unit.splitlines() if l.startswith("ExecStart="))
    assert exec_start.endswith("run --config /etc/potionpi.toml --data-dir /var/lib/potionpi")
    assert Path(exec_start.split("=", 1)[1].split()[0]).is_absolute()
    assert "AmbientCapabilities" not in unit         # only for a port below 1024


def test_groups_this_system_lacks_are_left_out(setup):
    setup.groups = ["dialout"]
    assert "SupplementaryGroups=dialout" in inst.unit_text(setup).splitlines()
    setup.groups = ["gpio", "i2c", "dialout"]
    assert "SupplementaryGroups=gpio i2c dialout" in inst.unit_text(setup).splitlines()


def test_port_80_gets_only_the_bind_capability(setup):
    setup.port = 80
    unit = inst.unit_text(setup).splitlines()
    assert "AmbientCapabilities=CAP_NET_BIND_SERVICE" in unit
    assert "CapabilityBoundingSet=CAP_NET_BIND_SERVICE" in unit
    assert next(l for l in unit if l.startswith("ExecStart=")).endswith("--port 80")
    assert "http://\\4/" in inst.issue_text(80)


def test_root_is_refused_without_sudo_user(monkeypatch):
    monkeypatch.delenv("SUDO_USER", raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(UsageError, match="from the account that should own the table"):
        inst.Setup.for_invoker()
    with pytest.raises(UsageError, match="should not run as root"):
        inst.Setup.for_invoker("root")
    with pytest.raises(UsageError, match="no user 'nosuchuser-xyz'"):
        inst.Setup.for_invoker("nosuchuser-xyz")


def test_dry_run_prints_every_file_and_command_and_writes_nothing(capsys, tmp_path):
    code, out, _ = cli(capsys, "install", "--dry-run", "--user", some_user(), "--root", str(tmp_path))
    assert code == 0
    for path in (inst.UNIT_FILE, inst.UDEV_FILE, inst.AVAHI_FILE, inst.ISSUE_FILE, inst.CONFIG_FILE):
        assert f"=== {path} (mode" in out
    assert "=== /var/lib/potionpi/ (directory" in out
    assert "would run: systemctl enable potionpi.service" in out
    assert list(tmp_path.iterdir()) == []


def test_dry_run_unit_is_the_printed_unit(capsys):
    _, dry, _ = cli(capsys, "install", "--dry-run", "--user", some_user())
    _, unit, _ = cli(capsys, "install", "--print-unit", "--user", some_user())
    section = dry.split(f"=== {inst.UNIT_FILE} (mode 644)\n", 1)[1].split("\n=== ", 1)[0]
    assert section.strip() == unit.strip()


def test_install_and_uninstall_under_a_root(tmp_path, capsys, setup):
    root = tmp_path / "root"
    assert inst.install(setup, sys.stdout, root=root) == 0
    out = capsys.readouterr().out
    for path in (inst.UNIT_FILE, inst.UDEV_FILE, inst.AVAHI_FILE, inst.ISSUE_FILE, inst.CONFIG_FILE):
        assert (root / path.lstrip("/")).is_file(), path
        assert f"wrote {path}" in out
    assert "skipped (--root): systemctl daemon-reload" in out
    config_path = root / "etc/potionpi.toml"
    assert config_path.stat().st_mode & 0o777 == 0o640
    config = Config.load(config_path)                  # a valid config with this install's paths
    assert config["store"]["data_dir"] == "/var/lib/potionpi"
    assert config["forest_floor"]["serial_port"] == "/dev/potionpi-floor"
    assert (root / "var/lib/potionpi").is_dir()

    # the owner's changes to the config survive a second install
    config_path.write_text('[web]\nport = 9000\n')
    inst.install(setup, sys.stdout, root=root)
    assert "keep /etc/potionpi.toml" in capsys.readouterr().out
    assert config_path.read_text() == '[web]\nport = 9000\n'

    assert inst.uninstall(sys.stdout, root=root) == 0
    out = capsys.readouterr().out
    assert not (root / inst.UNIT_FILE.lstrip("/")).exists()
    assert not (root / inst.UDEV_FILE.lstrip("/")).exists()
    assert not (root / inst.AVAHI_FILE.lstrip("/")).exists()
    assert config_path.exists() and (root / "var/lib/potionpi").exists()
    assert "kept /etc/potionpi.toml and the games" in out
    inst.uninstall(sys.stdout, root=root, purge=True)
    assert not config_path.exists() and not (root / "var/lib/potionpi").exists()


def test_earlier_games_move_into_the_data_dir(tmp_path, capsys, setup):
    setup.home = tmp_path / "home"
    old = setup.home / ".local/share/potionpi"
    old.mkdir(parents=True)
    (old / "potionpi.sqlite3").write_bytes(b"games")
    (old / "table_pin").write_text("1234")
    inst.install(setup, sys.stdout, root=tmp_path / "root")
    data = tmp_path / "root/var/lib/potionpi"
    assert (data / "potionpi.sqlite3").read_bytes() == b"games"
    assert (data / "table_pin").read_text() == "1234"


def test_an_existing_config_can_be_copied_in(tmp_path, capsys):
    mine = tmp_path / "mine.toml"
    mine.write_text('[cauldron]\nbeam = 23\n')
    setup = inst.Setup.for_invoker(some_user(), config_from=str(mine))
    inst.install(setup, sys.stdout, root=tmp_path / "root")
    config = Config.load(tmp_path / "root/etc/potionpi.toml")
    assert config["cauldron"]["beam"] == 23 and config["store"]["data_dir"] == "/var/lib/potionpi"


def test_udev_rule_names_the_pico_by_usb_id():
    rule = [l for l in inst.udev_rule().splitlines() if l and not l.startswith("#")]
    assert len(rule) == 1
    pairs = dict(re.findall(r'([A-Z]+(?:\{\w+\})?)(?:==|\+=|=)"([^"]*)"', rule[0]))
    assert pairs == {"SUBSYSTEM": "tty", "ATTRS{idVendor}": "2e8a", "ATTRS{idProduct}": "0005",
                     "SYMLINK": "potionpi-floor", "GROUP": "dialout", "MODE": "0660"}


def test_avahi_service_advertises_http_on_the_port():
    root = ET.fromstring(inst.avahi_service(8080).split("\n", 2)[2])   # past the XML prolog
    assert root.findtext("name") == "potionpi"
    assert root.findtext("service/type") == "_http._tcp"
    assert root.findtext("service/port") == "8080"


def test_install_without_root_says_to_use_sudo(monkeypatch, setup):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(UsageError, match="sudo .venv/bin/potionpi install"):
        inst.install(setup, sys.stdout)


def test_the_advert_and_banner_follow_the_configs_port(tmp_path, capsys):
    mine = tmp_path / "mine.toml"
    mine.write_text('[web]\nport = 9000\n')
    setup = inst.Setup.for_invoker(some_user(), config_from=str(mine))
    assert setup.listen_port == 9000
    files = {f.path: f.text for f in inst.planned_files(setup)}
    assert "<port>9000</port>" in files[inst.AVAHI_FILE]
    assert "http://\\4:9000/" in files[inst.ISSUE_FILE]
    assert "--port" not in files[inst.UNIT_FILE]          # the config says it


def test_help_lists_the_service_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("install", "uninstall", "hotspot", "update", "check"):
        assert f"    {command}" in out


def test_make_sim_ignores_the_installed_config(tmp_path, monkeypatch, capsys):
    from controller import cli
    installed = tmp_path / "potionpi.toml"
    installed.write_text('[web]\nport = 1\n')                  # the service's
    monkeypatch.delenv("POTIONPI_CONFIG", raising=False)
    monkeypatch.setattr(cli, "SYSTEM_CONFIG", installed)
    args = cli.build_parser().parse_args(["run", "--sim"])
    assert cli.config_path(args) == str(installed)              # what `run` without --sim reads
    from controller.service import preflight
    seen = []

    def decide(config, **kw):         # note the config, then stop before anything starts
        seen.append(config.source)
        raise preflight.MissingHardware("stopped by the test")

    monkeypatch.setattr(preflight, "decide", decide)
    assert main(["run", "--sim"]) == 2
    assert seen == ["(defaults)"]


def test_commands_read_the_installed_config(tmp_path, monkeypatch, capsys):
    from controller import cli
    installed = tmp_path / "potionpi.toml"
    installed.write_text(f'[store]\ndata_dir = "{tmp_path / "data"}"\n[table]\npin = "8642"\n')
    monkeypatch.delenv("POTIONPI_CONFIG", raising=False)
    monkeypatch.delenv("POTIONPI_PIN", raising=False)
    monkeypatch.setattr(cli, "SYSTEM_CONFIG", installed)
    assert main(["pin"]) == 0
    assert capsys.readouterr().out == "table PIN: 8642 (from config)\n"
    other = tmp_path / "other.toml"
    other.write_text('[table]\npin = "1357"\n')
    monkeypatch.setenv("POTIONPI_CONFIG", str(other))
    assert main(["pin", "--data-dir", str(tmp_path)]) == 0
    assert "1357" in capsys.readouterr().out


def test_a_venv_the_user_cannot_reach_is_warned_about(tmp_path, capsys, setup):
    if pwd.getpwnam(setup.user).pw_uid == os.getuid():
        pytest.skip("the tests run as the only ordinary user: no one else to be closed out")
    closed = tmp_path / "closed"
    (closed / "bin").mkdir(parents=True)
    (closed / "bin" / "potionpi").write_text("#!/bin/sh\n")
    closed.chmod(0o700)                                   # root's own, like /root
    setup.exe = [str(closed / "bin" / "potionpi")]
    inst.install(setup, sys.stdout, root=tmp_path / "root")
    assert f"warning: {setup.user} cannot reach {setup.exe[0]}" in capsys.readouterr().out
    assert inst.reachable_by(Path("/usr/bin/env"), setup.user)


def test_a_second_potionpi_on_the_port_says_so(tmp_path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--sim", "--host",
                                 "127.0.0.1", "--port", str(port), "--data-dir", str(tmp_path)],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert f"port {port} is already in use: is the service running" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "potionpi.sqlite3").exists()      # the service's games untouched


# --- the UART the TMC2209 is on (issue 25) ------------------------------------------------
def test_the_unit_allows_a_uart_only_when_the_config_drives_a_tmc2209_over_one(tmp_path, setup):
    assert not [l for l in inst.unit_text(setup).splitlines()
                if l.startswith("DeviceAllow=char-tty") and "ttyACM" not in l]
    config = tmp_path / "potionpi.toml"
    config.write_text('[forest_floor]\nbackend = "gpio"\nstall_pin = 26\ntmc2209_uart = "/dev/ttyAMA0"\n')
    with_uart = inst.Setup.for_invoker(setup.user, config_from=str(config))
    assert with_uart.uart == "/dev/ttyAMA0"
    unit = inst.unit_text(with_uart).splitlines()
    assert "DeviceAllow=char-ttyAMA rw" in unit and "DeviceAllow=char-ttyACM rw" in unit
    config.write_text('[forest_floor]\nbackend = "serial"\ntmc2209_uart = "/dev/ttyAMA0"\n')
    assert inst.Setup.for_invoker(setup.user, config_from=str(config)).uart == ""   # no GPIO floor


@needs_systemd
def test_a_unit_with_a_uart_passes_systemd_analyze_verify(tmp_path, setup):
    setup.uart = "/dev/serial0"
    unit = write_unit(tmp_path, inst.unit_text(setup))
    assert "DeviceAllow=char-ttyAMA rw" in unit.read_text()
    result = subprocess.run([SYSTEMD_ANALYZE, "verify", str(unit)], capture_output=True, text=True)
    complaints = [line for line in result.stderr.splitlines() if "Special user nobody" not in line]
    assert result.returncode == 0 and not complaints, result.stderr
