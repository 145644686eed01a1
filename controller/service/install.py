"""`potionpi install` / `uninstall`: the table as a systemd service, for the invoking user.

Writes (``--dry-run`` prints each file instead; ``--root DIR`` writes under DIR and runs
no system command, for packaging and tests):

* ``/etc/systemd/system/potionpi.service`` — ``Type=notify`` with a watchdog, restart on
  failure, sandboxed (see ``unit_text``), running as the user who ran ``sudo``;
* ``/etc/udev/rules.d/99-potionpi.rules`` — the forest-floor Pico (MicroPython's USB id
  2e8a:0005) always appears as ``/dev/potionpi-floor``;
* ``/etc/avahi/services/potionpi.service`` — the tablet page advertised over mDNS;
* ``/etc/issue.d/potionpi.issue`` — the table's address in the console login banner;
* ``/etc/potionpi.toml`` — the config, only if there is none (never overwritten);
* ``/var/lib/potionpi`` — the data dir, owned by the user (a user's earlier games are
  copied in from ``~/.local/share/potionpi`` if it has none).
"""
from __future__ import annotations

import grp
import os
import pwd
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable

import tomlkit

from .. import __version__
from ..cli import UsageError
from ..config import SCHEMA, Config, default_file
from .discovery import AVAHI_FILE, SERVICE_NAME, avahi_service

UNIT_NAME = "potionpi.service"
UNIT_FILE = f"/etc/systemd/system/{UNIT_NAME}"
UDEV_FILE = "/etc/udev/rules.d/99-potionpi.rules"
ISSUE_FILE = "/etc/issue.d/potionpi.issue"
CONFIG_FILE = "/etc/potionpi.toml"
DATA_DIR = "/var/lib/potionpi"
FLOOR_LINK = "/dev/potionpi-floor"
PICO_USB = ("2e8a", "0005")          # Raspberry Pi's vendor id, MicroPython's product id
GROUPS = ("gpio", "i2c", "dialout")  # GPIO chip, colour sensor's I2C bus, the Pico's port
WATCHDOG_SEC = 30
DEFAULT_PORT: int = SCHEMA["web"]["port"].default

Run = Callable[[list[str]], int]


@dataclass
class Setup:
    """Who runs the table and from where."""

    user: str
    group: str
    home: Path
    exe: list[str]                    # the command that starts potionpi (absolute)
    port: int | None = None           # None: the config's port
    groups: list[str] = field(default_factory=list)   # the GROUPS this system has
    config_from: Path | None = None   # an existing config to copy to /etc/potionpi.toml
    config_port: int | None = None    # web.port of the config the service will read
    uart: str = ""                    # forest_floor.tmc2209_uart of that config ("" : none)
    name: str = SERVICE_NAME          # the table's name in the mDNS advert
    https_port: int | None = None     # the HTTPS port the service will serve (a certificate is there)

    @property
    def listen_port(self) -> int:
        """The port the tablets use: --port, else the config's, else the default (for the mDNS
        advert and the login banner, which must name the port the service listens on)."""
        return self.port or self.config_port or DEFAULT_PORT

    @classmethod
    def for_invoker(cls, user: str | None = None, port: int | None = None,
                    config_from: str | None = None) -> "Setup":
        """The user who ran ``sudo`` (``SUDO_USER``), or ``user``; the running potionpi."""
        name = user or os.environ.get("SUDO_USER") or ""
        if not name:
            if os.geteuid() == 0:
                raise UsageError("run `sudo .venv/bin/potionpi install` from the account that "
                                 "should own the table (not as root), or name it with --user")
            name = pwd.getpwuid(os.getuid()).pw_name
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            raise UsageError(f"there is no user {name!r} on this system") from None
        if entry.pw_uid == 0:
            raise UsageError("the table should not run as root: name another user with --user")
        if port is not None and not 1 <= port <= 65535:
            raise UsageError(f"--port {port} is not allowed; use 1 to 65535")
        source = Path(config_from) if config_from else None
        if source is not None and not source.is_file():
            raise UsageError(f"--config {source}: no such file")
        return cls(user=name, group=grp.getgrgid(entry.pw_gid).gr_name, home=Path(entry.pw_dir),
                   exe=potionpi_command(), port=port, groups=existing_groups(),
                   config_from=source, config_port=configured_port(source),
                   uart=configured_uart(source), https_port=secure_port(source))


def _service_config(source: Path | None, root: Path) -> Config | None:
    """The config the service will read: the one copied in, else the existing
    /etc/potionpi.toml (a bad one is reported by `potionpi config --check`, not here)."""
    from ..config import ConfigError

    path = source or root / CONFIG_FILE.lstrip("/")
    if source is None and not path.exists():
        return None
    try:
        return Config.load(path)
    except ConfigError:
        return None


def configured_port(source: Path | None, root: Path = Path("/"), key: str = "port") -> int | None:
    """web.port (or another [web] ``key``) of the config the service will read: the one copied
    in, else the existing /etc/potionpi.toml (a bad one is reported by `potionpi config
    --check`, not here)."""
    from ..config import SCHEMA, Config, ConfigError

    path = source or root / CONFIG_FILE.lstrip("/")
    if source is None and not path.exists():
        return None if key == "port" else int(SCHEMA["web"][key].default)
    try:
        return int(Config.load(path)["web"][key])
    except ConfigError:
        return None


def configured_uart(source: Path | None, root: Path = Path("/")) -> str:
    """forest_floor.tmc2209_uart of the config the service will read, when its GPIO floor
    drives a TMC2209 over it ("" otherwise): the unit then allows that serial device."""
    config = _service_config(source, root)
    if config is None:
        return ""
    floor = config["forest_floor"]
    return floor["tmc2209_uart"] if floor["backend"] == "gpio" else ""


def secure_port(source: Path | None, root: Path = Path("/")) -> int | None:
    """The HTTPS port the service will serve, once `potionpi tls` made the table's
    certificate in the service's data dir (docs/https.md); None before that, or when off."""
    from . import certs

    if not certs.ready(root / DATA_DIR.lstrip("/")):
        return None
    return configured_port(source, root, "https_port") or None



def potionpi_command() -> list[str]:
    """The venv's ``potionpi`` script beside the running interpreter (not resolved: the
    venv's python must stay the venv's), else ``python -m controller.cli``."""
    script = Path(sys.executable).parent / "potionpi"
    if script.is_file():
        return [str(script.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "controller.cli"]


def reachable_by(path: Path, user: str) -> bool:
    """Can ``user`` get to ``path`` (execute every folder on the way, read the file)?"""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return False
    gids = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if user in g.gr_mem}

    def allowed(p: Path, owner_bit: int, group_bit: int, other_bit: int) -> bool:
        st = p.stat()
        if st.st_uid == entry.pw_uid:
            return bool(st.st_mode & owner_bit)
        if st.st_gid in gids:
            return bool(st.st_mode & group_bit)
        return bool(st.st_mode & other_bit)

    try:
        folders_ok = all(allowed(p, 0o100, 0o010, 0o001) for p in path.parents)
        return folders_ok and allowed(path, 0o400, 0o040, 0o004)
    except OSError:
        return False


def existing_groups() -> list[str]:
    out = []
    for name in GROUPS:
        try:
            grp.getgrnam(name)
            out.append(name)
        except KeyError:
            pass
    return out


# --- the files -----------------------------------------------------------------
def unit_text(setup: Setup) -> str:
    args = setup.exe + ["run", "--config", CONFIG_FILE, "--data-dir", DATA_DIR]
    if setup.port is not None:
        args += ["--port", str(setup.port)]
    low_ports = [p for p in (setup.listen_port, setup.https_port) if p and p < 1024]
    groups = " ".join(setup.groups)
    lines = [
        f"# {UNIT_FILE}: written by `potionpi install` (potionpi {__version__}) for {setup.user}.",
        "# `potionpi install --print-unit` prints it, `potionpi uninstall` removes it;",
        "# local changes belong in `sudo systemctl edit potionpi`.",
        "[Unit]",
        "Description=potionpi game-night table (tablet page, cauldron, forest floor)",
        "Documentation=https://github.com/potionpi/potionpi/blob/main/docs/install.md",
        # the tablet needs the Wi-Fi address; Wants= pulls the wait-online unit in
        "Wants=network-online.target",
        "After=network-online.target avahi-daemon.service",
        "",
        "[Service]",
        "Type=notify",
        "NotifyAccess=main",
        f"User={setup.user}",
        f"Group={setup.group}",
    ]
    if groups:
        lines.append(f"SupplementaryGroups={groups}")
    lines += [
        "ExecStart=" + shlex.join(args),
        # lgpio makes its notification pipes in the working directory: keep it writable
        f"WorkingDirectory={DATA_DIR}",
        f"Environment=PYTHONUNBUFFERED=1 LG_WD={DATA_DIR}",
        "StateDirectory=potionpi",
        "StateDirectoryMode=0750",
        "Restart=on-failure",
        "RestartSec=5",
        f"WatchdogSec={WATCHDOG_SEC}",
        # a Pi Zero 2 W takes a while to import everything on a cold SD card
        "TimeoutStartSec=120",
        "TimeoutStopSec=20",
        "KillSignal=SIGTERM",
        "",
        "# Sandbox: read-only system and home, writable data dir only, no privileges.",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=read-only",
        f"ReadWritePaths={DATA_DIR}",
        "PrivateTmp=yes",
        "UMask=0027",
        # Devices: only the GPIO chip, the Pico's USB serial port and the I2C bus
        # (/dev/gpiomem for RPi.GPIO; systemd skips it where it does not exist).
        "DevicePolicy=closed",
        "DeviceAllow=char-gpiochip rw",
        "DeviceAllow=char-ttyACM rw",
        "DeviceAllow=char-i2c rw",
        "DeviceAllow=/dev/gpiomem rw",
    ]
    if setup.uart:
        from ..devices.uart import device_classes
        lines.append(f"# the TMC2209's UART (forest_floor.tmc2209_uart = {setup.uart}); "
                     "install again if it changes")
        lines += [f"DeviceAllow={c} rw" for c in device_classes(setup.uart)]
    lines += [
        "ProtectKernelTunables=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        "ProtectProc=invisible",
        "RestrictNamespaces=yes",
        "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "RemoveIPC=yes",
        "PrivateMounts=yes",
        # AF_UNIX: the notify socket; AF_INET(6): the tablets
        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        "SystemCallFilter=~@privileged @resources @mount @debug @cpu-emulation @obsolete",
        "SystemCallErrorNumber=EPERM",
    ]
    if low_ports:
        lines += [f"# {' and '.join(f'port {p}' for p in low_ports)} below 1024: the one capability it needs",
                  "AmbientCapabilities=CAP_NET_BIND_SERVICE",
                  "CapabilityBoundingSet=CAP_NET_BIND_SERVICE"]
    else:
        lines.append("CapabilityBoundingSet=")
    lines += ["", "[Install]", "WantedBy=multi-user.target", ""]
    return "\n".join(lines)


def may_bind(port: int, root: Path = Path("/")) -> bool:
    """Can the installed service bind ``port`` (no unit: the table is not a service here)?"""
    unit = root / UNIT_FILE.lstrip("/")
    return port >= 1024 or not unit.is_file() or "CAP_NET_BIND_SERVICE" in unit.read_text()


def udev_rule() -> str:
    vendor, product = PICO_USB
    return (
        "# written by `potionpi install`: the forest-floor Pico (MicroPython, USB "
        f"{vendor}:{product}) as {FLOOR_LINK}\n"
        f'SUBSYSTEM=="tty", ATTRS{{idVendor}}=="{vendor}", ATTRS{{idProduct}}=="{product}", '
        f'SYMLINK+="{FLOOR_LINK.removeprefix("/dev/")}", GROUP="dialout", MODE="0660"\n')


def issue_text(port: int) -> str:
    # agetty replaces \4 with this machine's IPv4 address when it shows the login prompt
    host = "\\4" if port == 80 else f"\\4:{port}"
    return f"potionpi: open http://{host}/ on the tablet (the table PIN: `potionpi pin`)\n\n"


def config_text(setup: Setup) -> str:
    """The commented default config with this install's data dir and the Pico's stable name."""
    if setup.config_from is not None:
        doc = tomlkit.parse(setup.config_from.read_text())
    else:
        doc = tomlkit.parse(default_file())
    store = doc.setdefault("store", tomlkit.table())
    store["data_dir"] = DATA_DIR
    floor = doc.setdefault("forest_floor", tomlkit.table())
    if not floor.get("serial_port"):
        floor["serial_port"] = FLOOR_LINK
    return tomlkit.dumps(doc)


@dataclass
class File:
    path: str
    text: str
    mode: int = 0o644
    group: str | None = None
    keep: bool = False                # an existing file stays (the owner's config)


def planned_files(setup: Setup) -> list[File]:
    return [
        File(UNIT_FILE, unit_text(setup)),
        File(UDEV_FILE, udev_rule()),
        File(AVAHI_FILE, avahi_service(setup.listen_port, setup.name)),
        File(ISSUE_FILE, issue_text(setup.listen_port)),
        # the config may hold the table PIN: readable by the table's user only
        File(CONFIG_FILE, config_text(setup), mode=0o640, group=setup.group, keep=True),
    ]


# --- doing it ------------------------------------------------------------------
def _under(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def _run(cmd: list[str]) -> int:
    try:
        return subprocess.run(cmd, check=False).returncode
    except FileNotFoundError:
        return 127


def install(setup: Setup, out: IO[str], *, root: Path = Path("/"), dry_run: bool = False,
            run: Run = _run, start: bool = True) -> int:
    """Write every file (or print it, ``dry_run``), then enable and start the service
    (``start=False``: enable it only, for the next boot: an SD-card image being built)."""
    system = root == Path("/")
    if not dry_run and system and os.geteuid() != 0:
        raise UsageError("installing needs root: run `sudo .venv/bin/potionpi install`")
    for f in planned_files(setup):
        target = _under(root, f.path)
        if f.keep and target.exists():
            out.write(f"keep {f.path} (it exists; your settings stay)\n")
            continue
        if dry_run:
            out.write(f"=== {f.path} (mode {f.mode:o})\n{f.text}")
            out.write("" if f.text.endswith("\n") else "\n")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".potionpi-new")
        tmp.write_text(f.text)
        os.chmod(tmp, f.mode)
        if f.group and system:
            shutil.chown(tmp, "root", f.group)
        os.replace(tmp, target)
        out.write(f"wrote {f.path}\n")
    data = _under(root, DATA_DIR)
    old = setup.home / ".local" / "share" / "potionpi"
    if dry_run:
        out.write(f"=== {DATA_DIR}/ (directory, owner {setup.user}, mode 750)\n")
        if (old / "potionpi.sqlite3").exists() and not (data / "potionpi.sqlite3").exists():
            out.write(f"copy {old}/* to {DATA_DIR}/ (your earlier games, PIN and key)\n")
    else:
        data.mkdir(parents=True, exist_ok=True)
        if (old / "potionpi.sqlite3").exists() and not (data / "potionpi.sqlite3").exists():
            shutil.copytree(old, data, dirs_exist_ok=True)
            out.write(f"copied your earlier games from {old} to {DATA_DIR}\n")
        for path in [data, *data.rglob("*")]:
            if system:
                shutil.chown(path, setup.user, setup.group)
        os.chmod(data, 0o750)
        out.write(f"data dir {DATA_DIR} (owner {setup.user})\n")
    if not reachable_by(Path(setup.exe[0]), setup.user):
        out.write(f"warning: {setup.user} cannot reach {setup.exe[0]} (a folder on the way is "
                  "closed to them): make the venv in their home, e.g. ~/potionpi\n")
    missing = [g for g in GROUPS if g not in setup.groups]
    if missing:
        out.write(f"note: this system has no group {', '.join(missing)}; the service runs "
                  "without it (a Raspberry Pi OS system has all three)\n")
    if setup.uart:
        from ..devices.uart import uart_problem
        problem = uart_problem(setup.uart)
        if problem:
            out.write(f"warning: {problem}\n")
    commands = [["udevadm", "control", "--reload-rules"],
                ["udevadm", "trigger", "--subsystem-match=tty"],
                ["systemctl", "daemon-reload"],
                ["systemctl", "enable", UNIT_NAME],
                ["systemctl", "restart", UNIT_NAME]]
    if not start:         # nothing runs yet (a chroot): the unit is enabled for the first boot
        return _commands([["systemctl", "enable", UNIT_NAME]], out, dry_run=dry_run,
                         system=system, run=run,
                         after="the table starts at the next boot, and at every boot after it")
    return _commands(commands, out, dry_run=dry_run, system=system, run=run,
                     after=f"the table starts now and at every boot; `journalctl -u potionpi -f` "
                           f"shows it, the tablet opens http://<this Pi>:{setup.listen_port}/ or "
                           "http://" + _hostname() + ".local" +
                           ("" if setup.listen_port == 80 else f":{setup.listen_port}") + "/")


def uninstall(out: IO[str], *, root: Path = Path("/"), purge: bool = False, dry_run: bool = False,
              run: Run = _run) -> int:
    """Stop and remove the service and every file install wrote; the config and the games
    stay unless ``purge``."""
    system = root == Path("/")
    if not dry_run and system and os.geteuid() != 0:
        raise UsageError("uninstalling needs root: run `sudo .venv/bin/potionpi uninstall`")
    code = _commands([["systemctl", "disable", "--now", UNIT_NAME]], out, dry_run=dry_run,
                     system=system, run=run, quiet_fail=True)
    paths = [UNIT_FILE, UDEV_FILE, AVAHI_FILE, ISSUE_FILE]
    if purge:
        paths += [CONFIG_FILE, DATA_DIR]
    for path in paths:
        target = _under(root, path)
        if not target.exists():
            continue
        if dry_run:
            out.write(f"would remove {path}\n")
        elif target.is_dir():
            shutil.rmtree(target)
            out.write(f"removed {path}/\n")
        else:
            target.unlink()
            out.write(f"removed {path}\n")
    if not purge:
        out.write(f"kept {CONFIG_FILE} and the games in {DATA_DIR} (`--purge` removes them)\n")
    code2 = _commands([["systemctl", "daemon-reload"], ["udevadm", "control", "--reload-rules"]],
                      out, dry_run=dry_run, system=system, run=run)
    return code or code2


def _commands(commands: list[list[str]], out: IO[str], *, dry_run: bool, system: bool, run: Run,
              after: str = "", quiet_fail: bool = False) -> int:
    for cmd in commands:
        line = shlex.join(cmd)
        if dry_run or not system:
            out.write(f"{'would run' if dry_run else 'skipped (--root)'}: {line}\n")
            continue
        code = run(cmd)
        if code and not quiet_fail:
            out.write(f"`{line}` failed (exit {code}); see its message above\n")
            return 1
    if after and not dry_run and system:
        out.write(after + "\n")
    return 0


def _hostname() -> str:
    import socket
    return socket.gethostname()
