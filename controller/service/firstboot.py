"""The SD-card image's first boot: the table's settings from files a maker edits on any
computer, before the card goes into the Pi (docs/install.md, "The SD-card image").

Read from the card's FAT partition (``/boot/firmware`` on the Pi), at every boot where one
of them changed since it was last applied:

* ``potionpi-setup.txt`` — the table's name, PIN, time zone, Wi-Fi and its own hotspot: a
  plain INI file (:mod:`configparser`), commented, with no quotes to get wrong;
* ``potionpi.toml`` — the daemon's config (``potionpi config --print-default``);
* ``user-data`` and ``network-config`` — what Raspberry Pi Imager's "Edit settings" writes
  for a custom image (cloud-init's NoCloud files): host name, user and password, SSH keys,
  time zone, Wi-Fi. Read as data (YAML), never run.

Everything is checked before anything changes: a bad value is named by file and key, and
then nothing of these files is applied (the table still starts, as it was). Whatever
happened is written beside them in ``potionpi-status.txt``, for a maker with no screen,
and shown on the Pi's screen (``potionpi screen``).

The secrets are made here, on the first boot, never in the image: the table PIN when the
file names none, the hotspot's password when it names none (SSH host keys, the machine id
and the session key are made by their own owners on first use).
"""
from __future__ import annotations

import configparser
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, Callable

from .. import __version__, secrets_store
from ..config import Config, ConfigError, is_pin
from . import hotspot, install

BOOT = Path("/boot/firmware")
SETUP_FILE = "potionpi-setup.txt"
CONFIG_ON_BOOT = "potionpi.toml"
USER_DATA = "user-data"               # Raspberry Pi Imager (cloud-init NoCloud)
NETWORK_CONFIG = "network-config"
STATUS_FILE = "potionpi-status.txt"
SOURCES = (SETUP_FILE, CONFIG_ON_BOOT, USER_DATA, NETWORK_CONFIG)
STATE_DIR = "/var/lib/potionpi-setup"  # root's: what was applied, the hotspot's password
TABLE_USER = "potionpi"                # the image's service account
WIFI_CONNECTION = "potionpi-wifi"
NM_CONNECTIONS = "/etc/NetworkManager/system-connections"
COUNTRY_FILE = "/etc/modprobe.d/potionpi-wifi-country.conf"
SSH_FILE = "/etc/ssh/sshd_config.d/50-potionpi.conf"
DEFAULT_NAME = "potionpi"
# what Imager gives its user, as far as this system has the groups
USER_GROUPS = ("users", "adm", "dialout", "audio", "netdev", "video", "plugdev", "input",
               "gpio", "spi", "i2c", "render", "sudo")

Run = Callable[[list[str]], "subprocess.CompletedProcess[str]"]

# --- reading ---------------------------------------------------------------------
HOSTNAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
ZONE = re.compile(r"^[A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+)*$")
COUNTRY = re.compile(r"^[A-Za-z]{2}$")
HEX_PSK = re.compile(r"^[0-9A-Fa-f]{64}$")
BOOLEAN = {"yes": True, "true": True, "on": True, "1": True,
           "no": False, "false": False, "off": False, "0": False, "": None}

# section -> key -> what is allowed (for the message); the template is image/boot/
SETUP_KEYS: dict[str, dict[str, str]] = {
    "table": {"name": "letters, digits and hyphens (1 to 63, not starting or ending with a hyphen)",
              "pin": "4 to 8 digits",
              "timezone": "a time zone such as Europe/Berlin"},
    "wifi": {"name": "the Wi-Fi's name (1 to 32 characters)",
             "password": "8 to 63 characters (or empty for an open Wi-Fi)",
             "country": "the two letters of the country, e.g. DE, GB, US",
             "hidden": "yes or no"},
    "hotspot": {"enabled": "yes or no",
                "name": "the Wi-Fi's name (1 to 32 characters)",
                "password": "8 to 63 plain (ASCII) characters, or empty to make one"},
}


@dataclass
class Wifi:
    ssid: str
    psk: str               # a passphrase, or Imager's 64 hex digits; "" for an open Wi-Fi
    hidden: bool = False
    source: str = SETUP_FILE


@dataclass
class User:
    """The login Raspberry Pi Imager set up (there is none otherwise)."""
    name: str
    password_hash: str = ""            # crypt(3), as Imager writes it
    locked: bool = False
    keys: list[str] = field(default_factory=list)
    nopasswd_sudo: bool = False


@dataclass
class Settings:
    """What the files on the card ask for; None/empty: not asked (keep what is there)."""
    name: str | None = None
    pin: str | None = None
    timezone: str | None = None
    timezone_from: str = SETUP_FILE
    country: str | None = None
    wifi: Wifi | None = None
    hotspot_enabled: bool = True
    hotspot_ssid: str | None = None
    hotspot_password: str | None = None
    user: User | None = None
    ssh: bool = False
    ssh_passwords: bool = True
    config: Path | None = None         # a potionpi.toml that passed Config.load
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def read_sources(boot: Path) -> dict[str, bytes]:
    """The files of SOURCES that are on the card, by name."""
    found = {}
    for name in SOURCES:
        path = boot / name
        if path.is_file():
            found[name] = path.read_bytes()
    return found


def digest(sources: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + hashlib.sha256(sources[name]).digest())
    return h.hexdigest()


def _text(name: str, data: bytes, errors: list[str]) -> str | None:
    try:
        # utf-8-sig: Notepad on Windows may start the file with a byte-order mark
        return data.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError:
        errors.append(f"{name}: is not plain text in UTF-8; save it again as UTF-8 text")
        return None


def parse_setup(text: str, settings: Settings, errors: list[str]) -> None:
    """potionpi-setup.txt into ``settings``; each bad value is one sentence in ``errors``."""
    parser = configparser.ConfigParser(interpolation=None, strict=True, empty_lines_in_values=False,
                                       comment_prefixes=("#", ";"), inline_comment_prefixes=None)
    parser.optionxform = str.lower      # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text, source=SETUP_FILE)
    except configparser.MissingSectionHeaderError as exc:
        errors.append(f"{SETUP_FILE} line {exc.lineno}: {exc.line.strip()!r} comes before any "
                      "[section]; keep every setting under its [table], [wifi] or [hotspot] line")
        return
    except configparser.DuplicateOptionError as exc:
        errors.append(f"{SETUP_FILE} line {exc.lineno}: [{exc.section}] {exc.option} is set twice; "
                      "keep one")
        return
    except configparser.DuplicateSectionError as exc:
        errors.append(f"{SETUP_FILE} line {exc.lineno}: [{exc.section}] appears twice; keep one")
        return
    except configparser.Error as exc:
        errors.append(f"{SETUP_FILE}: cannot read it ({exc.message.splitlines()[0]})")
        return
    for section in parser.sections():
        if section not in SETUP_KEYS:
            errors.append(f"{SETUP_FILE}: unknown section [{section}]; allowed: "
                          + ", ".join(f"[{s}]" for s in SETUP_KEYS))
            continue
        for key in parser[section]:
            if key not in SETUP_KEYS[section]:
                errors.append(f"{SETUP_FILE}: unknown key {key} in [{section}]; allowed: "
                              + ", ".join(SETUP_KEYS[section]))

    def value(section: str, key: str) -> str:
        return parser.get(section, key, fallback="").strip() if parser.has_section(section) else ""

    def bad(section: str, key: str, shown: str) -> None:
        errors.append(f"{SETUP_FILE}: [{section}] {key} = {shown} is not allowed; use "
                      f"{SETUP_KEYS[section][key]}")

    def flag(section: str, key: str) -> bool | None:
        raw = value(section, key)
        if raw.lower() not in BOOLEAN:
            bad(section, key, repr(raw))
            return None
        return BOOLEAN[raw.lower()]

    name = value("table", "name")
    if name:
        if HOSTNAME.match(name):
            settings.name = name.lower()
        else:
            bad("table", "name", repr(name))
    pin = value("table", "pin")
    if pin:
        if is_pin(pin):
            settings.pin = pin
        else:
            bad("table", "pin", repr(pin))
    zone = value("table", "timezone")
    if zone:
        settings.timezone = zone            # checked against the zone files in check()
        settings.timezone_from = SETUP_FILE
    ssid = value("wifi", "name")
    password = value("wifi", "password")
    country = value("wifi", "country")
    hidden = flag("wifi", "hidden")
    if country:
        if COUNTRY.match(country):
            settings.country = country.upper()
        else:
            bad("wifi", "country", repr(country))
    if ssid:
        problem = hotspot.ssid_problem(ssid)
        if problem:
            bad("wifi", "name", repr(ssid))
        elif password and not (HEX_PSK.match(password) or hotspot.password_problem(password) is None):
            bad("wifi", "password", "(the one given)")     # never echo a password back
        else:
            settings.wifi = Wifi(ssid, password, bool(hidden), SETUP_FILE)
            if not password:
                settings.notes.append(f"{SETUP_FILE}: the Wi-Fi {ssid!r} has no password, so it "
                                      "is joined as an open Wi-Fi")
    elif password:
        errors.append(f"{SETUP_FILE}: [wifi] password is set but [wifi] name is empty; "
                      "write the Wi-Fi's name beside it")
    enabled = flag("hotspot", "enabled")
    if enabled is not None:
        settings.hotspot_enabled = enabled
    hot_ssid = value("hotspot", "name")
    if hot_ssid:
        if hotspot.ssid_problem(hot_ssid):
            bad("hotspot", "name", repr(hot_ssid))
        else:
            settings.hotspot_ssid = hot_ssid
    hot_password = value("hotspot", "password")
    if hot_password:
        if hotspot.password_problem(hot_password):
            bad("hotspot", "password", "(the one given)")
        else:
            settings.hotspot_password = hot_password


def _yaml(name: str, text: str, errors: list[str]) -> Any:
    try:
        import yaml       # PyYAML: only the image needs it (the `image` extra)
    except ImportError:
        errors.append(f"{name}: cannot read Raspberry Pi Imager's settings: PyYAML is not "
                      "installed (`pip install 'potionpi[image]'`)")
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        errors.append(f"{name}{where}: not valid YAML ({getattr(exc, 'problem', None) or exc}); "
                      "write the card with Raspberry Pi Imager again")
        return None


def parse_user_data(text: str, settings: Settings, errors: list[str]) -> None:
    """Imager's ``user-data``: the keys it writes (rpi-imager's customisation generator)."""
    doc = _yaml(USER_DATA, text, errors)
    if doc is None:
        return
    if not isinstance(doc, dict):
        errors.append(f"{USER_DATA}: is not a cloud-config mapping; write the card with "
                      "Raspberry Pi Imager again")
        return
    host = doc.get("hostname")
    if host is not None:
        if isinstance(host, str) and HOSTNAME.match(host):
            settings.name = settings.name or host.lower()
        else:
            errors.append(f"{USER_DATA}: hostname = {host!r} is not allowed; use letters, digits "
                          "and hyphens (1 to 63)")
    zone = doc.get("timezone")
    if zone is not None:
        if isinstance(zone, str):
            if not settings.timezone:
                settings.timezone, settings.timezone_from = zone, USER_DATA
        else:
            errors.append(f"{USER_DATA}: timezone = {zone!r} is not allowed; use a time zone "
                          "such as Europe/Berlin")
    users = doc.get("users") or []
    if not isinstance(users, list):
        errors.append(f"{USER_DATA}: users must be a list of users")
        users = []
    people = [u for u in users if isinstance(u, dict)]
    for extra in people[1:]:
        settings.notes.append(f"{USER_DATA}: only the first user is set up; {extra.get('name')!r} "
                              "is left out")
    if people:
        entry = people[0]
        name = entry.get("name")
        if not isinstance(name, str) or not re.match(r"^[a-z_][a-z0-9_-]{0,31}$", name) \
                or name in ("root", TABLE_USER):
            errors.append(f"{USER_DATA}: users[0].name = {name!r} is not allowed; use a lower-case "
                          f"login name other than root and {TABLE_USER}")
        else:
            keys = entry.get("ssh_authorized_keys") or []
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                errors.append(f"{USER_DATA}: users[0].ssh_authorized_keys must be a list of keys")
                keys = []
            password = entry.get("passwd") or ""
            if not isinstance(password, str) or (password and not password.startswith("$")):
                errors.append(f"{USER_DATA}: users[0].passwd must be a crypted password "
                              "(Imager writes one starting with $)")
                password = ""
            sudo = entry.get("sudo")
            settings.user = User(name=name, password_hash=password,
                                 locked=bool(entry.get("lock_passwd", not password)),
                                 keys=[k.strip() for k in keys if k.strip()],
                                 nopasswd_sudo=isinstance(sudo, str) and "NOPASSWD" in sudo)
    pwauth = doc.get("ssh_pwauth")
    keys_given = bool(settings.user and settings.user.keys)
    settings.ssh = bool(doc.get("enable_ssh")) or pwauth is True or keys_given
    settings.ssh_passwords = pwauth is True or not keys_given
    if doc.get("keyboard") or any("keymap" in str(c) for c in doc.get("runcmd") or []):
        settings.notes.append(f"{USER_DATA}: the keyboard layout is not applied (this image has "
                              "no console keymaps; the table needs no keyboard)")
    if doc.get("runcmd"):
        settings.notes.append(f"{USER_DATA}: runcmd is not run (only Imager's settings are read)")


def parse_network_config(text: str, settings: Settings, errors: list[str]) -> None:
    """Imager's ``network-config`` (netplan version 2): the Wi-Fi and its country."""
    doc = _yaml(NETWORK_CONFIG, text, errors)
    if doc is None:
        return
    if isinstance(doc, dict) and isinstance(doc.get("network"), dict):
        doc = doc["network"]              # newer Imagers nest it under network:
    wifis = doc.get("wifis") if isinstance(doc, dict) else None
    if not isinstance(wifis, dict):
        return
    for iface, spec in wifis.items():
        if not isinstance(spec, dict):
            continue
        domain = spec.get("regulatory-domain")
        if isinstance(domain, str) and COUNTRY.match(domain):
            settings.country = settings.country or domain.upper()
        points = spec.get("access-points")
        if not isinstance(points, dict) or not points:
            continue
        ssid, point = next(iter(points.items()))
        point = point if isinstance(point, dict) else {}
        psk = str(point.get("password") or "")
        if not isinstance(ssid, str) or hotspot.ssid_problem(ssid):
            errors.append(f"{NETWORK_CONFIG}: wifis.{iface}.access-points name {ssid!r} is not a "
                          "Wi-Fi name (1 to 32 characters)")
        elif psk and not (HEX_PSK.match(psk) or hotspot.password_problem(psk) is None):
            errors.append(f"{NETWORK_CONFIG}: the password of the Wi-Fi {ssid!r} is not allowed; "
                          "set it again in Raspberry Pi Imager")
        elif settings.wifi is None:        # potionpi-setup.txt's Wi-Fi comes first
            settings.wifi = Wifi(ssid, psk, bool(point.get("hidden")), NETWORK_CONFIG)
        return


def check(sources: dict[str, bytes], *, boot: Path, root: Path = Path("/")) -> tuple[Settings, list[str]]:
    """What the card asks for, and every problem with it (empty: all of it can be applied)."""
    settings = Settings(sources=sorted(sources))
    errors: list[str] = []
    # potionpi-setup.txt first: where it and Imager both say something, it wins
    for name, parse in ((SETUP_FILE, parse_setup), (USER_DATA, parse_user_data),
                        (NETWORK_CONFIG, parse_network_config)):
        if name in sources:
            text = _text(name, sources[name], errors)
            if text is not None:
                parse(text, settings, errors)
    if CONFIG_ON_BOOT in sources:
        try:
            config = Config.load(boot / CONFIG_ON_BOOT)
            settings.config = boot / CONFIG_ON_BOOT
        except ConfigError as exc:
            errors.append(str(exc).replace(str(boot) + "/", ""))
        else:
            if config["store"]["data_dir"] not in ("", install.DATA_DIR):
                settings.notes.append(f"{CONFIG_ON_BOOT}: store.data_dir stays {install.DATA_DIR} "
                                      "(the only folder the service may write)")
    if settings.timezone:
        zone = settings.timezone
        path = root / "usr/share/zoneinfo" / zone
        if not ZONE.match(zone) or ".." in zone or not path.is_file():
            where = "[table] timezone" if settings.timezone_from == SETUP_FILE else "timezone"
            errors.append(f"{settings.timezone_from}: {where} = {zone!r} is not a time zone this "
                          "system knows; use one such as Europe/Berlin or America/New_York")
    return settings, errors


# --- applying --------------------------------------------------------------------
def _under(root: Path, path: str) -> Path:
    return root / path.lstrip("/")


def _run(cmd: list[str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def _write(path: Path, text: str, mode: int | None = 0o644) -> bool:
    """Write ``text`` atomically; False (and nothing written) when it is there already.
    ``mode=None``: a file on the FAT partition, which has no modes (its mount's umask)."""
    if path.is_file() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".potionpi-new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if mode is None else mode)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    if mode is not None:
        os.chmod(tmp, mode)         # whatever the umask: a keyfile stays 0600
    os.replace(tmp, path)
    return True


class ApplyError(Exception):
    """A system command failed while applying; the sentence says which."""


@dataclass
class Applier:
    """Makes the system what the settings ask for, under ``root`` (tests: a scratch dir;
    system commands go through ``run``)."""
    root: Path = Path("/")
    run: Run = _run
    out: list[str] = field(default_factory=list)

    @property
    def live(self) -> bool:
        return self.root == Path("/")

    def cmd(self, cmd: list[str], what: str) -> str:
        done = self.run(cmd)
        if done.returncode:
            raise ApplyError(f"{what} failed: `{' '.join(cmd[:3])} ...` said "
                             f"{(done.stderr or done.stdout).strip()[:200]!r}")
        return done.stdout

    def hostname(self, name: str) -> None:
        if _write(_under(self.root, "/etc/hostname"), name + "\n"):
            hosts = _under(self.root, "/etc/hosts")
            lines = [l for l in (hosts.read_text().splitlines() if hosts.exists() else [])
                     if not l.startswith("127.0.1.1")]
            lines.append(f"127.0.1.1\t{name}")
            _write(hosts, "\n".join(lines) + "\n")
            if self.live:
                socket.sethostname(name)     # avahi and NetworkManager start after this
            self.out.append(f"the table's name is {name} (http://{name}.local)")

    def timezone(self, zone: str) -> None:
        link = _under(self.root, "/etc/localtime")
        target = f"/usr/share/zoneinfo/{zone}"
        if link.is_symlink() and os.readlink(link) == target:
            return
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        _write(_under(self.root, "/etc/timezone"), zone + "\n")
        self.out.append(f"time zone {zone}")

    def country(self, code: str) -> None:
        _write(_under(self.root, COUNTRY_FILE), f"# written by potionpi's first boot\n"
                                                f"options cfg80211 ieee80211_regdom={code}\n")
        if self.live and Path("/sys/module/cfg80211").exists():
            self.run(["iw", "reg", "set", code])     # the module is loaded already
        self.out.append(f"Wi-Fi country {code}")

    def _keyfile(self, name: str, add: list[str]) -> None:
        """A NetworkManager connection, as nmcli itself writes it (--offline: no daemon
        needed, NetworkManager starts after the first boot's settings)."""
        text = self.cmd(["nmcli", "--offline", *add[1:]], f"making the connection {name}")
        _write(_under(self.root, f"{NM_CONNECTIONS}/{name}.nmconnection"), text, 0o600)

    def wifi(self, wifi: Wifi) -> None:
        add = ["nmcli", "connection", "add", "type", "wifi", "ifname", "wlan0",
               "con-name", WIFI_CONNECTION, "autoconnect", "yes", "ssid", wifi.ssid,
               "ipv4.method", "auto", "ipv6.method", "auto"]
        if wifi.hidden:
            add += ["802-11-wireless.hidden", "yes"]
        if wifi.psk:
            add += ["wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.psk", wifi.psk]
        self._keyfile(WIFI_CONNECTION, add)
        self.out.append(f"joins the Wi-Fi {wifi.ssid!r} (from {wifi.source})")

    def no_wifi(self) -> None:
        path = _under(self.root, f"{NM_CONNECTIONS}/{WIFI_CONNECTION}.nmconnection")
        if path.exists():
            path.unlink()
            self.out.append("forgot the Wi-Fi set before (the card names none now)")

    def hotspot(self, ssid: str, password: str) -> None:
        add = hotspot.on_commands(ssid, password)[1]
        self._keyfile(hotspot.CONNECTION, add)

    def no_hotspot(self) -> None:
        _under(self.root, f"{NM_CONNECTIONS}/{hotspot.CONNECTION}.nmconnection").unlink(missing_ok=True)

    def pin(self, data_dir: Path, pin: str | None) -> str:
        """The table PIN: ``pin`` if given, else the one kept, else a new one."""
        kept = secrets_store.peek_pin(data_dir)
        if pin is None and kept:
            return kept
        made = secrets_store.new_pin(data_dir, pin)
        self._own(data_dir / secrets_store.PIN_FILE)
        self.out.append("the table PIN is " + ("the one in " + SETUP_FILE if pin else "new"))
        return made

    def _own(self, path: Path) -> None:
        if self.live:
            shutil.chown(path, TABLE_USER, TABLE_USER)

    def config(self, source: Path, name: str) -> None:
        """The card's potionpi.toml as /etc/potionpi.toml, then the unit, the mDNS advert
        and the login banner rewritten to its port and the table's name."""
        setup = table_setup(config_from=source, name=name, root=self.root)
        _write(_under(self.root, install.CONFIG_FILE), install.config_text(setup), 0o640)
        if self.live:
            shutil.chown(install.CONFIG_FILE, "root", setup.group)
        self.out.append(f"the config from {CONFIG_ON_BOOT} (port {setup.listen_port})")
        self.service_files(setup)

    def service_files(self, setup: install.Setup) -> None:
        changed = False
        for f in install.planned_files(setup):
            if f.keep:
                continue
            changed |= _write(_under(self.root, f.path), f.text, f.mode)
        if changed and self.live:
            self.cmd(["systemctl", "daemon-reload"], "reloading systemd")

    def user(self, user: User) -> None:
        exists = self.run(["id", "-u", user.name]).returncode == 0
        groups = ",".join(g for g in USER_GROUPS if _group_exists(self.root, g))
        if not exists:
            self.cmd(["useradd", "--create-home", "--shell", "/bin/bash", "--user-group",
                      "--groups", groups, user.name], f"making the user {user.name}")
        if user.password_hash:
            self.cmd(["usermod", "--password", user.password_hash, user.name], "setting the password")
        if user.locked:
            self.cmd(["passwd", "--lock", user.name], "locking the password")
        home = Path(self.cmd(["getent", "passwd", user.name], "finding the home").split(":")[5])
        if user.keys:
            ssh = _under(self.root, str(home)) / ".ssh"
            ssh.mkdir(mode=0o700, parents=True, exist_ok=True)
            _write(ssh / "authorized_keys", "\n".join(user.keys) + "\n", 0o600)
            if self.live:
                for path in (ssh, ssh / "authorized_keys"):
                    shutil.chown(path, user.name, user.name)
        sudoers = _under(self.root, f"/etc/sudoers.d/90-potionpi-{user.name}")
        if user.nopasswd_sudo:
            _write(sudoers, f"# Raspberry Pi Imager's user (potionpi's first boot)\n"
                            f"{user.name} ALL=(ALL) NOPASSWD:ALL\n", 0o440)
        self.out.append(f"the user {user.name}" + (f" with {len(user.keys)} SSH key(s)" if user.keys else ""))

    def ssh(self, passwords: bool) -> None:
        _write(_under(self.root, SSH_FILE), "# written by potionpi's first boot (Imager's settings)\n"
               f"PasswordAuthentication {'yes' if passwords else 'no'}\n")
        self.cmd(["systemctl", "enable", "ssh.service"], "turning SSH on")
        if self.live:      # enabled during boot: start it in this boot too
            self.cmd(["systemctl", "start", "--no-block", "ssh.service"], "starting SSH")
        self.out.append("SSH is on" + ("" if passwords else " (keys only)"))


def _group_exists(root: Path, name: str) -> bool:
    group = _under(root, "/etc/group")
    return group.exists() and any(l.split(":", 1)[0] == name for l in group.read_text().splitlines())


def table_setup(*, config_from: Path | None = None, name: str = DEFAULT_NAME,
                root: Path = Path("/")) -> install.Setup:
    """install.Setup for the image's service account and this potionpi under /opt."""
    return install.Setup(user=TABLE_USER, group=TABLE_USER, home=Path(install.DATA_DIR),
                         exe=install.potionpi_command(),
                         groups=[g for g in install.GROUPS if _group_exists(root, g)],
                         config_from=config_from,
                         config_port=install.configured_port(config_from, root), name=name,
                         https_port=install.secure_port(config_from, root))


@dataclass
class State:
    """What the first boot keeps between boots (root's, in STATE_DIR)."""
    digest: str = ""
    applied_at: str = ""
    hotspot_enabled: bool = True
    hotspot_ssid: str = DEFAULT_NAME
    hotspot_password: str = ""
    errors: list[str] = field(default_factory=list)
    stopped: str = ""            # a system command failed while applying (retried next boot)
    notes: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, root: Path) -> "State":
        path = _under(root, STATE_DIR) / "state.json"
        try:
            raw = json.loads(path.read_text())
        except (OSError, ValueError):
            return cls()
        return cls(**{k: v for k, v in raw.items() if k in cls.__dataclass_fields__})

    def save(self, root: Path) -> None:
        folder = _under(root, STATE_DIR)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        _write(folder / "state.json", json.dumps(asdict(self), indent=1) + "\n", 0o600)


def hotspot_password() -> str:
    """Twelve letters and digits, none that look alike (read off a screen, typed on a phone)."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(12))


def first_boot(*, boot: Path = BOOT, root: Path = Path("/"), run: Run = _run,
               now: Callable[[], float] = time.time, out: IO[str] | None = None) -> int:
    """Apply the card's files if they changed, make the first boot's secrets, write the
    status beside the files. 0: applied (or nothing to do); 1: a file was refused."""
    state = State.load(root)
    sources = read_sources(boot)
    applier = Applier(root=root, run=run)
    data_dir = _under(root, install.DATA_DIR)
    if digest(sources) != state.digest:
        settings, errors = check(sources, boot=boot, root=root)
        state.errors, state.notes, state.stopped = errors, settings.notes, ""
        if not errors:
            try:
                apply(settings, applier, state, data_dir)
            except (ApplyError, OSError) as exc:
                state.stopped = str(exc)
            else:
                state.digest = digest(sources)
                state.applied_at = time.strftime("%Y-%m-%d %H:%M", time.localtime(now()))
            state.done = applier.out
    pin = applier.pin(data_dir, None)            # the first boot's PIN, if none was set
    if state.hotspot_enabled and not state.hotspot_password:
        # no Wi-Fi of yours here, or a refused file: the table still opens its own
        state.hotspot_password = hotspot_password()
        try:
            applier.hotspot(state.hotspot_ssid, state.hotspot_password)
        except ApplyError as exc:
            state.stopped = str(exc)
    state.save(root)
    status = status_text(state, pin=pin, name=_hostname(root), wifi=_wifi_ssid(root),
                         port=install.configured_port(None, root) or install.DEFAULT_PORT)
    try:
        _write(boot / STATUS_FILE, status, mode=None)
    except OSError:
        pass                                     # a read-only card: the screen still shows it
    if out is not None:
        out.write(status)
    return 1 if state.errors or state.stopped else 0


def apply(settings: Settings, applier: Applier, state: State, data_dir: Path) -> None:
    name = settings.name or DEFAULT_NAME
    applier.hostname(name)
    if settings.timezone:
        applier.timezone(settings.timezone)
    if settings.country:
        applier.country(settings.country)
    if settings.wifi:
        applier.wifi(settings.wifi)
    else:
        applier.no_wifi()
    state.hotspot_enabled = settings.hotspot_enabled
    if settings.hotspot_enabled:
        ssid = settings.hotspot_ssid or state.hotspot_ssid or DEFAULT_NAME
        password = settings.hotspot_password or state.hotspot_password or hotspot_password()
        applier.hotspot(ssid, password)
        state.hotspot_ssid, state.hotspot_password = ssid, password
        applier.out.append(f"the table's own Wi-Fi {ssid!r} where it finds no other")
    else:
        applier.no_hotspot()
        state.hotspot_password = ""
    if settings.pin:
        applier.pin(data_dir, settings.pin)
    if settings.config is not None:
        applier.config(settings.config, name)
    else:
        applier.service_files(table_setup(name=name, root=applier.root))
    if settings.user:
        applier.user(settings.user)
    if settings.ssh:
        applier.ssh(settings.ssh_passwords)


def _hostname(root: Path) -> str:
    try:
        return _under(root, "/etc/hostname").read_text().strip() or DEFAULT_NAME
    except OSError:
        return DEFAULT_NAME


def _wifi_ssid(root: Path) -> str | None:
    path = _under(root, f"{NM_CONNECTIONS}/{WIFI_CONNECTION}.nmconnection")
    try:
        for line in path.read_text().splitlines():
            if line.startswith("ssid="):
                return line.split("=", 1)[1]
    except OSError:
        pass
    return None


def status_text(state: State, *, pin: str, name: str, wifi: str | None,
                port: int = install.DEFAULT_PORT) -> str:
    """potionpi-status.txt: what a maker without a screen reads, on the card, after a boot."""
    lines = [f"potionpi {__version__}: how the table set itself up (written at every boot; "
             "edit potionpi-setup.txt, not this file)", "",
             f"Open on the tablet:  http://{name}.local:{port}/  (Android: the number address "
             "on the Pi's screen)",
             f"Table PIN:           {pin}"]
    if wifi:
        lines.append(f"Wi-Fi:               joins {wifi!r}")
    if state.hotspot_password:
        lines.append(f"The table's Wi-Fi:   {state.hotspot_ssid!r}, password {state.hotspot_password}"
                     + ("  (where it finds no Wi-Fi of yours)" if wifi else "")
                     + f"; then open http://{hotspot.ADDRESS}:{port}/")
    lines.append("")
    if state.errors:
        lines.append("NOT APPLIED: the files on the card have these problems, so nothing of "
                     "them was used (fix them and boot again):")
        lines += [f"  - {e}" for e in state.errors]
    elif state.stopped:
        lines.append(f"STOPPED while applying the settings ({state.stopped}); tried again at the "
                     "next boot. Done before it stopped:")
        lines += [f"  - {d}" for d in state.done]
    elif state.applied_at:
        lines.append(f"Applied at {state.applied_at}:")
        lines += [f"  - {d}" for d in state.done]
    for note in state.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines) + "\n"
