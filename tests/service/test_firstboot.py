"""The SD-card image's first boot: the card's files read, bad values named by file and key
(and then nothing applied), good ones applied once, the first boot's secrets made per card.

System commands (nmcli, useradd, systemctl) go through a recorder here; the image test
(`make image-test`) runs the real ones in the booted image."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from controller import secrets_store
from controller.cli import main
from controller.service import firstboot as fb
from controller.service import hotspot, install

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "image" / "boot" / fb.SETUP_FILE


class System:
    """Records the commands the first boot runs; nmcli --offline answers with the keyfile
    lines the test looks at (ssid, psk), as the real one prints a keyfile."""

    def __init__(self):
        self.ran: list[list[str]] = []

    def __call__(self, cmd: list[str]) -> subprocess.CompletedProcess[str]:
        self.ran.append(cmd)
        out, code = "", 0
        if cmd[:2] == ["nmcli", "--offline"]:
            args = dict(zip(cmd[4::2], cmd[5::2]))
            out = (f"[connection]\nid={args['con-name']}\n[wifi]\nssid={args['ssid']}\n"
                   + (f"[wifi-security]\npsk={args['wifi-sec.psk']}\n" if "wifi-sec.psk" in args else ""))
        elif cmd[:2] == ["id", "-u"]:
            code = 1                                  # no such user yet
        elif cmd[:2] == ["getent", "passwd"]:
            out = f"{cmd[2]}:x:1001:1001::/home/{cmd[2]}:/bin/bash\n"
        return subprocess.CompletedProcess(cmd, code, out, "")

    def commands(self, first: str) -> list[list[str]]:
        return [c for c in self.ran if c[0] == first]


@pytest.fixture
def card(tmp_path):
    """A card as the image writes it: the template, a system root with its zone files."""
    boot, root = tmp_path / "boot", tmp_path / "root"
    boot.mkdir()
    (boot / fb.SETUP_FILE).write_text(TEMPLATE.read_text())
    (root / "etc").mkdir(parents=True)
    (root / "etc/hostname").write_text("potionpi\n")
    (root / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\tpotionpi\n")
    (root / "etc/group").write_text("sudo:x:27:\ndialout:x:20:\ngpio:x:997:\npotionpi:x:998:\n")
    zones = root / "usr/share/zoneinfo/Europe"
    zones.mkdir(parents=True)
    (zones / "Berlin").write_bytes(b"TZif2")
    return boot, root


def setup_file(boot: Path, **sections: dict[str, str]) -> None:
    """The template with these values filled in, as a maker would edit it."""
    lines, section = [], ""
    for line in TEMPLATE.read_text().splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        key = line.split("=", 1)[0].strip()
        if "=" in line and not line.startswith("#") and key in sections.get(section, {}):
            line = f"{key} = {sections[section][key]}"
        lines.append(line)
    (boot / fb.SETUP_FILE).write_text("\r\n".join(lines) + "\r\n")     # Notepad's line ends


def boot_once(boot: Path, root: Path, system: System | None = None) -> tuple[int, str]:
    code = fb.first_boot(boot=boot, root=root, run=system or System())
    return code, (boot / fb.STATUS_FILE).read_text()


def test_the_template_as_shipped_reads_with_no_problem_and_asks_for_nothing(card):
    boot, root = card
    settings, errors = fb.check(fb.read_sources(boot), boot=boot, root=root)
    assert errors == []
    assert (settings.name, settings.pin, settings.wifi, settings.timezone) == (None, None, None, None)
    assert settings.hotspot_enabled and settings.hotspot_ssid == "potionpi"


def test_every_bad_value_is_named_by_its_key_and_nothing_is_applied(card):
    boot, root = card
    setup_file(boot, table={"name": "Our Table!", "pin": "12", "timezone": "Mars/Olympus"},
               wifi={"name": "Home", "password": "short", "country": "Germany", "hidden": "maybe"},
               hotspot={"password": "ünicode-pass"})
    with (boot / fb.SETUP_FILE).open("a") as fh:
        fh.write("[cauldron]\nbeam = 22\n")
    system = System()
    code, status = boot_once(boot, root, system)
    assert code == 1
    for expected in ("[table] name = 'Our Table!' is not allowed; use letters, digits and hyphens",
                     "[table] pin = '12' is not allowed; use 4 to 8 digits",
                     "[table] timezone = 'Mars/Olympus' is not a time zone this system knows",
                     "[wifi] password = (the one given) is not allowed; use 8 to 63 characters",
                     "[wifi] country = 'Germany' is not allowed; use the two letters of the country",
                     "[wifi] hidden = 'maybe' is not allowed; use yes or no",
                     "[hotspot] password = (the one given) is not allowed",
                     "unknown section [cauldron]; allowed: [table], [wifi], [hotspot]"):
        assert expected in status, expected
    assert "short" not in status and "ünicode-pass" not in status     # never a password echoed
    assert "NOT APPLIED" in status
    # nothing of the file: the name, no Wi-Fi of theirs; the image's own first-boot defaults only
    assert (root / "etc/hostname").read_text() == "potionpi\n"
    assert not (root / fb.NM_CONNECTIONS.lstrip("/") / "potionpi-wifi.nmconnection").exists()
    assert not (root / "etc/localtime").exists()
    made = [c for c in system.commands("nmcli")]
    assert [dict(zip(c[4::2], c[5::2]))["con-name"] for c in made] == [hotspot.CONNECTION]


def test_a_line_before_any_section_and_a_key_set_twice_are_named(card):
    boot, root = card
    (boot / fb.SETUP_FILE).write_text("pin = 4711\n[table]\nname = a\n")
    _, errors = fb.check(fb.read_sources(boot), boot=boot, root=root)
    assert errors == ["potionpi-setup.txt line 1: 'pin = 4711' comes before any [section]; keep "
                      "every setting under its [table], [wifi] or [hotspot] line"]
    (boot / fb.SETUP_FILE).write_text("[table]\npin = 4711\npin = 1234\n")
    _, errors = fb.check(fb.read_sources(boot), boot=boot, root=root)
    assert errors == ["potionpi-setup.txt line 3: [table] pin is set twice; keep one"]


def test_good_settings_are_applied_once_and_the_owners_later_pin_stays(card):
    boot, root = card
    setup_file(boot, table={"name": "Zauberwald", "pin": "4711", "timezone": "Europe/Berlin"},
               wifi={"name": "Home Wi-Fi", "password": "ants and owls", "country": "de"},
               hotspot={"password": "cauldron-42"})
    system = System()
    code, status = boot_once(boot, root, system)
    assert code == 0, status
    assert (root / "etc/hostname").read_text() == "zauberwald\n"
    assert "127.0.1.1\tzauberwald" in (root / "etc/hosts").read_text()
    assert (root / "etc/localtime").readlink() == Path("/usr/share/zoneinfo/Europe/Berlin")
    assert "ieee80211_regdom=DE" in (root / fb.COUNTRY_FILE.lstrip("/")).read_text()
    nm = root / fb.NM_CONNECTIONS.lstrip("/")
    assert "ssid=Home Wi-Fi" in (nm / "potionpi-wifi.nmconnection").read_text()
    assert "psk=cauldron-42" in (nm / "potionpi-hotspot.nmconnection").read_text()
    assert (nm / "potionpi-wifi.nmconnection").stat().st_mode & 0o777 == 0o600
    data = root / install.DATA_DIR.lstrip("/")
    assert secrets_store.peek_pin(data) == "4711"
    avahi = (root / install.AVAHI_FILE.lstrip("/")).read_text()
    assert "<name>zauberwald</name>" in avahi and "<port>8080</port>" in avahi
    assert "Table PIN:           4711" in status and "joins 'Home Wi-Fi'" in status
    assert "http://zauberwald.local:8080/" in status
    # the owner changes the PIN on the tablet; the next boot, same card: it stays
    secrets_store.new_pin(data, "9876")
    again = System()
    code, status = boot_once(boot, root, again)
    assert code == 0 and secrets_store.peek_pin(data) == "9876"
    assert again.commands("nmcli") == []              # nothing re-made
    assert "Table PIN:           9876" in status


def test_the_hotspot_password_and_pin_are_made_per_card(card, tmp_path):
    """Two copies of one image, two first boots: two PINs, two hotspot passwords."""
    boot, root = card
    other_boot, other_root = tmp_path / "b2", tmp_path / "r2"
    import shutil
    shutil.copytree(boot, other_boot)
    shutil.copytree(root, other_root)
    boot_once(boot, root)
    boot_once(other_boot, other_root)
    first, second = fb.State.load(root), fb.State.load(other_root)
    assert len(first.hotspot_password) == 12 and first.hotspot_password != second.hotspot_password
    pins = {secrets_store.peek_pin(r / install.DATA_DIR.lstrip("/")) for r in (root, other_root)}
    assert len(pins) == 2 and None not in pins      # (a 1-in-10,000 chance of a false failure)
    # the hotspot's password is root's (state and keyfile), shown on the status file for the maker
    assert (root / fb.STATE_DIR.lstrip("/") / "state.json").stat().st_mode & 0o777 == 0o600
    assert first.hotspot_password in (boot / fb.STATUS_FILE).read_text()


USER_DATA = """#cloud-config
hostname: kitchen
manage_etc_hosts: true
packages:
- avahi-daemon
timezone: Europe/Berlin
keyboard:
  model: pc105
  layout: "de"
enable_ssh: true
users:
- name: ann
  groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo
  shell: /bin/bash
  lock_passwd: true
  ssh_authorized_keys:
    - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG7q ann@laptop
  sudo: ALL=(ALL) NOPASSWD:ALL
"""
# Imager 1.8 wrote netplan without the network: level; newer ones nest it
NETWORK_OLD = """version: 2
wifis:
  renderer: networkd
  wlan0:
    dhcp4: true
    optional: true
    access-points:
      "Home":
        password: "%s"
""" % ("a" * 64)
NETWORK_NEW = """network:
  version: 2
  wifis:
    wlan0:
      dhcp4: true
      regulatory-domain: "GB"
      access-points:
        "Home":
          hidden: true
          password: "%s"
""" % ("b" * 64)


@pytest.mark.parametrize("network", [NETWORK_OLD, NETWORK_NEW])
def test_raspberry_pi_imagers_settings_are_honoured(card, network):
    boot, root = card
    (boot / fb.USER_DATA).write_text(USER_DATA)
    (boot / fb.NETWORK_CONFIG).write_text(network)
    system = System()
    code, status = boot_once(boot, root, system)
    assert code == 0, status
    assert (root / "etc/hostname").read_text() == "kitchen\n"
    assert (root / "etc/localtime").readlink() == Path("/usr/share/zoneinfo/Europe/Berlin")
    wifi = next(c for c in system.commands("nmcli") if fb.WIFI_CONNECTION in c)
    args = dict(zip(wifi[4::2], wifi[5::2]))
    assert args["ssid"] == "Home" and args["wifi-sec.psk"] == ("a" if network == NETWORK_OLD else "b") * 64
    assert ("802-11-wireless.hidden" in wifi) == (network == NETWORK_NEW)
    useradd = system.commands("useradd")[0]
    assert useradd[-1] == "ann" and "dialout" in useradd[useradd.index("--groups") + 1]
    assert "cdrom" not in useradd[useradd.index("--groups") + 1]        # not on this system
    keys = root / "home/ann/.ssh/authorized_keys"
    assert keys.read_text() == "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG7q ann@laptop\n"
    assert (root / "etc/sudoers.d/90-potionpi-ann").read_text().endswith("ann ALL=(ALL) NOPASSWD:ALL\n")
    assert ["systemctl", "enable", "ssh.service"] in system.ran
    assert "PasswordAuthentication no" in (root / fb.SSH_FILE.lstrip("/")).read_text()
    assert "the keyboard layout is not applied" in status


def test_potionpi_setup_wins_over_imager_for_the_name_and_the_wifi(card):
    boot, root = card
    setup_file(boot, table={"name": "zauberwald"}, wifi={"name": "Garden", "password": "12345678"})
    (boot / fb.USER_DATA).write_text(USER_DATA)
    (boot / fb.NETWORK_CONFIG).write_text(NETWORK_NEW)
    settings, errors = fb.check(fb.read_sources(boot), boot=boot, root=root)
    assert errors == [] and settings.name == "zauberwald" and settings.wifi.ssid == "Garden"
    assert settings.country == "GB" and settings.user.name == "ann"


def test_a_bad_config_on_the_card_is_named_and_a_good_one_moves_the_port(card):
    boot, root = card
    (boot / fb.CONFIG_ON_BOOT).write_text("[web]\nport = 99999\n")
    code, status = boot_once(boot, root)
    assert code == 1
    assert "potionpi.toml: web.port = 99999 is not allowed; use a whole number from 1 to 65535" in status
    assert not (root / "etc/potionpi.toml").exists()
    (boot / fb.CONFIG_ON_BOOT).write_text("[web]\nport = 8081\n")
    code, status = boot_once(boot, root)
    assert code == 0, status
    config = (root / "etc/potionpi.toml").read_text()
    assert "port = 8081" in config and 'data_dir = "/var/lib/potionpi"' in config
    assert "<port>8081</port>" in (root / install.AVAHI_FILE.lstrip("/")).read_text()
    assert "http://potionpi.local:8081/" in status


def test_imager_files_that_are_not_yaml_are_named(card):
    boot, root = card
    (boot / fb.USER_DATA).write_text("#cloud-config\nusers: [\n")
    _, errors = fb.check(fb.read_sources(boot), boot=boot, root=root)
    assert len(errors) == 1 and errors[0].startswith("user-data line ") and "not valid YAML" in errors[0]


def test_firstboot_check_from_the_command_line(card, capsys):
    boot, _ = card
    setup_file(boot, table={"pin": "abcd"})
    assert main(["firstboot", "--check", "--boot", str(boot)]) == 2
    err = capsys.readouterr().err
    assert "[table] pin = 'abcd' is not allowed; use 4 to 8 digits" in err


def test_the_pis_screen_shows_the_address_pin_and_the_tables_wifi():
    from controller.service import screen
    state = fb.State(hotspot_ssid="Zauberwald-Tisch", hotspot_password="cauldron-42")
    text = screen.screen_text(name="zauberwald", urls=["http://192.168.1.20:8081/",
                                                       "http://zauberwald.local:8081/",
                                                       "http://127.0.0.1:8081/"],
                              pin="4711", ready=True, state=state, wifi="Home Wi-Fi", qr="QR\n")
    lines = text.splitlines()
    assert "  Open on the tablet:  http://192.168.1.20:8081/" in lines
    assert "                  or:  http://zauberwald.local:8081/" in lines
    assert "127.0.0.1" not in text                   # the Pi's own loopback helps no tablet
    assert "  Table PIN:           4711" in lines and text.endswith("QR\n")
    assert "  The table's Wi-Fi:   'Zauberwald-Tisch'  password cauldron-42" in lines
    assert all(len(line) <= 80 for line in lines)     # a small console shows whole lines
    # no network yet, no PIN yet, a refused file
    state.errors = ["potionpi-setup.txt: [table] pin = '12' is not allowed; use 4 to 8 digits"]
    text = screen.screen_text(name="potionpi", urls=["http://potionpi.local:8080/",
                                                     "http://127.0.0.1:8080/"], pin=None,
                              ready=False, state=state, wifi=None, qr="QR\n")
    assert "(starting...)" in text and "No network yet" in text and "QR" not in text
    assert "(made when the table has started)" in text
    assert "potionpi-setup.txt was NOT applied" in text and "[table] pin = '12'" in text


def test_the_login_prompts_banner_shows_the_tablets_address_or_waits_for_the_network(tmp_path):
    """The serial port's and Alt+F2's login banner (the image's gettys read the file
    potionpi-screen keeps): never the host name's 127.0.1.1 before the network is up."""
    from controller.service import screen
    waiting = screen.console_issue(name="zauberwald", addresses=[], port=8081)
    assert "waiting for the network" in waiting and "127." not in waiting and "http" not in waiting
    up = screen.console_issue(name="zauberwald", addresses=["192.168.1.20", "10.42.0.1"], port=8081)
    assert up.startswith("potionpi: open http://192.168.1.20:8081/ or http://10.42.0.1:8081/ "
                         "or http://zauberwald.local:8081/ on the tablet")

    issue, reload = tmp_path / "console.issue", tmp_path / "agetty.reload"
    reload.touch()
    os.utime(reload, (1, 1))
    assert screen.keep_console_issue(waiting, issue, reload)
    assert issue.read_text() == waiting and reload.stat().st_mtime > 1     # the prompts redraw
    os.utime(reload, (1, 1))
    assert not screen.keep_console_issue(waiting, issue, reload)            # unchanged: no redraw
    assert reload.stat().st_mtime == 1
    assert screen.keep_console_issue(up, issue, reload) and issue.read_text() == up
    assert not screen.keep_console_issue(up, tmp_path / "not-the-image" / "console.issue", reload)
    drop_ins = sorted((REPO / "image/files/etc/systemd/system").glob("*getty@.service.d/*.conf"))
    assert len(drop_ins) == 2
    for drop_in in drop_ins:
        assert f"--issue-file /etc/issue:{screen.CONSOLE_ISSUE} " in drop_in.read_text()


@pytest.mark.parametrize("size, beside, shown", [((120, 33), True, True), ((80, 40), False, True),
                                                 ((80, 22), False, False), (None, False, True)])
def test_the_qr_code_goes_where_the_screen_has_room(size, beside, shown):
    from controller.service import discovery, screen
    url = "http://192.168.178.23:8080/"
    qr = discovery.terminal_qr(url)
    text = screen.screen_text(name="potionpi", urls=[url], pin="4711", ready=True,
                              state=fb.State(), wifi="Home", qr=qr, size=size)
    lines = text.splitlines()
    first_qr_line = qr.splitlines()[0]
    assert any(first_qr_line in line for line in lines) == shown
    assert any(line.startswith("potionpi ") and line.rstrip().endswith(first_qr_line.rstrip())
               for line in lines) == beside
    if size:
        assert len(lines) <= size[1]
    assert any(l.startswith("  Table PIN:           4711") for l in lines)
