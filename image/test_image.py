"""`make image-test`: the built SD-card image, checked from outside.

The card is looked at as written (no machine secret in it, boot files for every Pi), then
two copies are booted with ``qemu-system-aarch64 -M virt``: the image's own kernel, initrd
and cmdline.txt, the card as a virtio disk, no login anywhere. Copy A carries a
potionpi-setup.txt, a potionpi.toml and Raspberry Pi Imager's user-data, as a maker would
write them; the tests reach it on forwarded ports (the page, SSH as Imager's user, mDNS)
and check systemd, the service and its watchdog, avahi, the first-boot settings, a game
that survives a reboot and the updates from the settings page. Copy B has only Imager's
settings: its secrets must differ from A's.

QEMU's virt machine has no GPIO: the table runs on SIMULATED DEVICES there, and the tests
check that it says so. Figures (boot-to-page times) go to build/image/image-test-figures.txt.
Minutes under emulation; not part of `make test`.
"""
from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

import vm

REPO = Path(__file__).resolve().parents[1]
PIN = "4711"
NAME = "zauberwald"
PORT = 8081                      # potionpi.toml on copy A moves the page here
FIGURES: dict[str, str] = {}


def figure(name: str, value: str) -> None:
    FIGURES[name] = value
    print(f"\n   figure: {name}: {value}")


@pytest.fixture(scope="module", autouse=True)
def write_figures(image_dir):
    yield
    if FIGURES:
        lines = [f"{k}: {v}" for k, v in FIGURES.items()]
        (image_dir / "image-test-figures.txt").write_text("\n".join(lines) + "\n")


# --- the card as written ---------------------------------------------------------------
@pytest.fixture(scope="module")
def root_fs(built_image, tmp_path_factory) -> Path:
    return vm.Card(built_image).root_image(tmp_path_factory.mktemp("rootfs") / "root.ext4")


def test_the_card_holds_no_machine_secret(root_fs):
    """Every card makes its own at first boot: none may come with the image."""
    # empty (machine-id(5)): each card makes its own at first boot; "uninitialized" would
    # have systemd apply its presets, turning SSH and systemd-networkd on again
    assert vm.exists(root_fs, "/etc/machine-id") and vm.debugfs(root_fs, "cat /etc/machine-id") == ""
    ssh = vm.debugfs(root_fs, "ls -l /etc/ssh")
    assert "ssh_host_" not in ssh, ssh
    data = vm.debugfs(root_fs, "ls /var/lib/potionpi")
    assert "table_pin" not in data and "secret_key" not in data and "sqlite3" not in data, data
    assert vm.exists(root_fs, "/var/lib/potionpi")
    for secret in ("/var/lib/potionpi-setup", "/var/lib/systemd/random-seed",
                   "/var/lib/NetworkManager/secret_key", "/var/lib/dbus/machine-id"):
        assert not vm.exists(root_fs, secret), secret
    # SSH is off until the card asks for it (Imager's settings)
    assert not vm.exists(root_fs, "/etc/systemd/system/multi-user.target.wants/ssh.service")
    assert not vm.exists(root_fs, "/etc/systemd/system/sockets.target.wants/ssh.socket")


def test_the_boot_partition_boots_a_pi_3_4_and_zero_2_w(built_image):
    card = vm.Card(built_image)
    files = card.fat_files()
    config = card.read_fat("config.txt")
    assert "arm_64bit=1" in config
    kernel = re.search(r"^kernel=(\S+)", config, re.M).group(1)
    initrd = re.search(r"^initramfs (\S+)", config, re.M).group(1)
    assert kernel in files and initrd in files
    for dtb in ("bcm2837-rpi-3-b.dtb", "bcm2837-rpi-3-b-plus.dtb", "bcm2711-rpi-4-b.dtb",
                "bcm2837-rpi-zero-2-w.dtb"):
        assert dtb in files, f"{dtb} missing: {sorted(f for f in files if f.endswith('.dtb'))}"
    for blob in ("bootcode.bin", "start.elf", "start4.elf", "fixup.dat", "fixup4.dat"):
        assert blob in files, blob
    cmdline = card.read_fat("cmdline.txt")
    assert "root=LABEL=RASPIROOT" in cmdline and "\n" not in cmdline.strip()
    for first_boot in ("potionpi-setup.txt", "potionpi.toml", "README.txt"):
        assert first_boot in files
    firmware = card.fat_files("pico-firmware")
    assert "main.py" in firmware and "app.mpy" in firmware and "floorproto.mpy" in firmware, firmware


# --- copy A: a maker's card ---------------------------------------------------------
SETUP = f"""# written by the image test, as a maker would
[table]
name = {NAME}
pin = {PIN}
timezone = Europe/Berlin

[wifi]
name = Home Wi-Fi
password = ants and owls
country = DE

[hotspot]
name = Zauberwald-Tisch
password = cauldron-42
"""


def user_data(key: Path, hostname: str = "") -> str:
    """What Raspberry Pi Imager writes for "Edit settings" with a user and an SSH key."""
    public = key.with_suffix(".pub").read_text().strip()
    return (f"#cloud-config\n" + (f"hostname: {hostname}\nmanage_etc_hosts: true\n" if hostname else "")
            + f"""users:
- name: maker
  groups: users,adm,dialout,audio,netdev,video,plugdev,cdrom,games,input,gpio,spi,i2c,render,sudo
  shell: /bin/bash
  lock_passwd: true
  ssh_authorized_keys:
    - {public}
  sudo: ALL=(ALL) NOPASSWD:ALL

enable_ssh: true
timezone: Europe/London
""")


def card_copy(built_image: Path, folder: Path, grow_to: str = "4G") -> Path:
    copy = folder / "card.img"
    subprocess.run(["cp", "--sparse=always", str(built_image), str(copy)], check=True)
    subprocess.run(["truncate", "-s", grow_to, str(copy)], check=True)     # a bigger card
    return copy


@pytest.fixture(scope="module")
def machine_a(built_image, ssh_key, tmp_path_factory, output):
    folder = tmp_path_factory.mktemp("card-a")
    copy = card_copy(built_image, folder)
    card = vm.Card(copy)
    card.write_fat("potionpi-setup.txt", SETUP, folder)
    config = card.read_fat("potionpi.toml").replace("port = 8080", f"port = {PORT}", 1)
    assert f"port = {PORT}" in config
    card.write_fat("potionpi.toml", config, folder)
    card.write_fat("user-data", user_data(ssh_key), folder)
    machine = vm.Machine(copy, folder, page_guest_port=PORT, key=ssh_key)
    print("\n" + "!" * 72 + "\n!! The image boots in QEMU's virt machine: no GPIO, so the table runs on "
          "SIMULATED DEVICES.\n" + "!" * 72)
    machine.start()
    try:
        seconds = machine.wait_for_page()
        figure("first boot to page (copy A, QEMU TCG, 2 vCPUs, 512 MB)", f"{seconds:.0f} s")
        machine.wait_for_ssh()
        yield machine
    finally:
        shutil.copy(machine.console, output / "console-a.log")
        machine.stop()


def test_systemd_reaches_multi_user_with_no_login(machine_a, output):
    state = machine_a.ssh("systemctl is-system-running --wait", check=False).strip()
    failed = machine_a.ssh("systemctl --failed --no-legend --plain", check=False)
    assert state == "running", f"{state}; failed units:\n{failed}"
    assert machine_a.ssh("systemctl is-active multi-user.target").strip() == "active"
    # nobody logged in anywhere: no session but the test's own SSH one
    sessions = machine_a.ssh("loginctl list-sessions --no-legend")
    assert len([l for l in sessions.splitlines() if l.strip()]) <= 1, sessions


def test_potionpi_is_active_with_its_watchdog(machine_a):
    show = lambda: dict(l.split("=", 1) for l in machine_a.ssh(  # noqa: E731
        "systemctl show potionpi.service -p ActiveState,SubState,Type,WatchdogUSec,"
        "WatchdogTimestampMonotonic,NRestarts,User").splitlines() if "=" in l)
    first = show()
    assert first["ActiveState"] == "active" and first["SubState"] == "running", first
    assert first["Type"] == "notify" and first["WatchdogUSec"] == "30s" and first["User"] == "potionpi"
    # a ping from the daemon moves the watchdog's time on; without pings systemd restarts it
    later = vm.wait_until("a watchdog ping", lambda: (s := show())["WatchdogTimestampMonotonic"]
                          != first["WatchdogTimestampMonotonic"] and s, deadline_s=120)
    assert later["NRestarts"] == "0" and later["ActiveState"] == "active"
    memory = machine_a.ssh("systemctl show -p MemoryCurrent --value potionpi.service "
                           "potionpi-screen.service").split()
    figure("memory (cgroup) of potionpi.service / potionpi-screen.service, idle",
           " / ".join(f"{int(m) / 2**20:.0f} MB" for m in memory if m.isdigit()))
    # the daemon's own resident set (the cgroup's figure counts the page cache too)
    rss_kb = machine_a.ssh("grep VmRSS /proc/$(systemctl show -p MainPID --value "
                           "potionpi.service)/status").split()[1]
    figure("RSS of the potionpi daemon, idle", f"{int(rss_kb) / 1024:.0f} MB")
    free = machine_a.ssh("free -m | awk '/^Mem:/ {print $3}'").strip()
    figure("memory used by the whole system (free -m, of 512 MB)", f"{free} MB")
    journal = machine_a.ssh("sudo journalctl -u potionpi.service -b --no-pager -o cat")
    assert "!! SIMULATED DEVICES: this machine has no GPIO" in journal, journal[-2000:]


def test_the_page_answers_on_the_forwarded_port_with_simulated_devices(machine_a):
    status, body = vm.http_get(machine_a.page, "/healthz")
    health = json.loads(body)
    assert status == 200 and health["simulated"] is True and health["status"] == "ok"
    status, page = vm.http_get(machine_a.page, "/")
    assert status == 200 and b"<html" in page.lower()


def test_avahi_publishes_the_table(machine_a):
    inside = machine_a.ssh("avahi-browse --resolve --parsable --terminate _http._tcp")
    entries = [l.split(";") for l in inside.splitlines() if l.startswith("=")]
    assert any(e[3] == NAME and e[8] == str(PORT) for e in entries), inside
    # on the wire: an mDNS query (DNS packets over UDP to port 5353) answered by avahi's
    # responder, as a phone's resolver asks; sent inside the guest, since QEMU's user
    # network carries no multicast and its UDP forward to port 5353 loses the answers
    script = Path(vm.__file__).read_text() + (
        "\nimport json\nprint(json.dumps(mdns_query(5353, '_http._tcp.local')))\n")
    names = json.loads(machine_a.python(script))
    assert f"{NAME}._http._tcp.local" in names and f"port={PORT}" in names, names
    assert f"{NAME}.local" in names, names


def test_the_first_boot_files_took_effect(machine_a, output):
    assert machine_a.ssh("hostname").strip() == NAME
    assert machine_a.ssh("timedatectl show -p Timezone --value").strip() == "Europe/Berlin"
    wifi = machine_a.ssh("sudo nmcli -g 802-11-wireless.ssid,802-11-wireless-security.psk "
                         "--show-secrets connection show potionpi-wifi").split()
    assert wifi[:2] == ["Home", "Wi-Fi"] or "Home Wi-Fi" in " ".join(wifi), wifi
    hotspot = machine_a.ssh("sudo nmcli -g 802-11-wireless.ssid,802-11-wireless.mode,ipv4.method "
                            "connection show potionpi-hotspot")
    assert "Zauberwald-Tisch" in hotspot and "ap" in hotspot and "shared" in hotspot, hotspot
    assert "ieee80211_regdom=DE" in machine_a.ssh("cat /etc/modprobe.d/potionpi-wifi-country.conf")
    # the PIN from the file: right one starts a game, a wrong one does not
    body = json.dumps({"game": "mirakel-mix", "players": ["Ann", "Ben"]}).encode()
    wrong, _ = vm.http_send(machine_a.page, "POST", "/api/v1/session", body,
                            {"Content-Type": "application/json", "X-Table-Pin": "0000"})
    assert wrong == 401
    # the config from the card: the page is on its port (this test reaches it there)
    assert f"port = {PORT}" in machine_a.ssh("sudo cat /etc/potionpi.toml")
    status_file = machine_a.ssh("sudo cat /boot/firmware/potionpi-status.txt")
    assert "Applied at" in status_file and f"Table PIN:           {PIN}" in status_file, status_file
    assert f"http://{NAME}.local:{PORT}/" in status_file
    # the root partition grew to the (bigger) card
    size = int(machine_a.ssh("df --output=size -B1M / | tail -1"))
    assert size > 3000, f"/ is {size} MB on a 4 GB card"
    # the screen (HDMI): the address and the PIN, no login prompt
    screen = vm.wait_until("the table's screen", lambda: (t := machine_a.screen_text())
                           and f"Table PIN:           {PIN}" in t and t, deadline_s=120)
    assert "Open on the tablet:  http://" in screen and "login:" not in screen
    shot = machine_a.screenshot(output / "screen-a.png")
    print(f"\n   the Pi's screen: {shot}")
    # the serial port's login banner: the address a tablet can open (agetty's own \4 showed
    # the host name's 127.0.1.1 there until the network was up)
    issue = machine_a.ssh("cat /run/potionpi-screen/console.issue")
    assert f":{PORT}/ " in issue and "127." not in issue, issue
    serial = vm.wait_until("the serial login banner", lambda: "potionpi: open http://" in (
        t := machine_a.console.read_text(errors="replace")) and t, deadline_s=120)
    assert "127.0.1.1" not in serial, serial[-2000:]


def test_a_reboot_resumes_the_game_in_progress(machine_a):
    headers = {"Content-Type": "application/json", "X-Table-Pin": PIN}
    body = json.dumps({"game": "mirakel-mix", "players": ["Ann", "Ben"]}).encode()
    status, raw = vm.http_send(machine_a.page, "POST", "/api/v1/session", body, headers)
    assert status == 201, raw
    game = json.loads(raw)
    for _ in range(2):
        action = game["legal_actions"][0]
        status, raw = vm.http_send(machine_a.page, "POST", "/api/v1/session/actions",
                                   json.dumps({"action": action, "version": game["version"],
                                               "game_id": game["id"]}).encode(), headers)
        assert status == 200, raw
        game = json.loads(raw)
    machine_a.ssh("sudo systemctl reboot", check=False)
    machine_a.wait_down()
    seconds = machine_a.wait_for_page()
    figure("reboot to page (copy A)", f"{seconds:.0f} s")
    machine_a.wait_for_ssh()
    status, raw = vm.http_get(machine_a.page, "/api/v1/session")
    resumed = json.loads(raw)
    assert status == 200
    assert (resumed["id"], resumed["version"], resumed["players"]) == (game["id"], game["version"],
                                                                        ["Ann", "Ben"])
    assert resumed["state"] == game["state"]


# --- updates from the settings page ------------------------------------------------
@pytest.fixture(scope="module")
def same_dependencies(image_dir):
    """The updates are built from this checkout: the card's wheels must be for its
    dependencies (an image from an older pyproject.toml lacks a newer dependency's wheel,
    and pip on the card rightly refuses the update)."""
    info = (image_dir / "build-info.txt").read_text() if (image_dir / "build-info.txt").exists() else ""
    built = re.search(r"^pyproject\s+(\w+)", info, re.M)
    here = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if not built or built.group(1) != here:
        pytest.fail(f"the image in {image_dir} was built from another pyproject.toml than this "
                    "checkout's: its wheels may lack a dependency the update needs; run `make image` again")


def built_wheel(folder: Path, version: str, *, broken: bool = False) -> Path:
    """A potionpi wheel from this checkout with another version (and a broken daemon)."""
    src = folder / f"src-{version}"
    shutil.copytree(REPO, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv", "build", ".git", "test-output", "__pycache__", "*.egg-info", "tests", "bench"))
    init = src / "controller" / "__init__.py"
    init.write_text(re.sub(r'__version__ = "[^"]+"', f'__version__ = "{version}"', init.read_text()))
    pyproject = src / "pyproject.toml"
    pyproject.write_text(re.sub(r'^version = "[^"]+"', f'version = "{version}"', pyproject.read_text(),
                                count=1, flags=re.M))
    if broken:
        (src / "controller" / "daemon.py").write_text(
            "raise ImportError('potionpi 0.1.2 was built broken, for the rollback test')\n")
    dist = folder / f"dist-{version}"
    subprocess.run([str(REPO / ".venv/bin/python"), "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--wheel-dir", str(dist), str(src)], check=True)
    return next(dist.glob("*.whl"))


def release_archive(image_dir: Path, folder: Path, wheel: Path, version: str) -> Path:
    """The project's release archive for ``version``: the build's, with this wheel in it."""
    built = next(image_dir.glob("potionpi-*-bookworm-arm64.tar.gz"))
    unpacked = folder / "archive"
    with tarfile.open(built) as tar:
        tar.extractall(unpacked, filter="data")
    top = next(unpacked.iterdir())
    for old in top.glob("potionpi-*.whl"):
        old.unlink()
    shutil.copy(wheel, top)
    target = folder / f"potionpi-{version}-bookworm-arm64.tar.gz"
    with tarfile.open(target, "w:gz") as tar:
        tar.add(top, arcname=f"potionpi-{version}")
    return target


def upload(machine: vm.Machine, name: str, data: bytes) -> tuple[int, str]:
    body, kind = vm.multipart("package", name, data)
    status, raw = vm.http_send(machine.page, "POST", "/settings/update", body,
                               {"Content-Type": kind, "X-Table-Pin": PIN})
    return status, raw.decode(errors="replace")


def update_status(machine: vm.Machine) -> dict:
    return json.loads(machine.ssh("sudo cat /var/lib/potionpi/update/status.json"))


def finished(machine: vm.Machine, version: str) -> dict | None:
    try:
        status = update_status(machine)
    except (AssertionError, ValueError, subprocess.TimeoutExpired):
        return None                      # the table (or SSH) is restarting
    return status if status["version"] == version and status["state"] not in ("waiting", "installing") else None


def test_a_bad_update_file_gets_a_sentence_and_changes_nothing(machine_a, image_dir):
    status, page = upload(machine_a, "notes.txt", b"not potionpi")
    assert status == 400 and "is neither a potionpi wheel (.whl) nor a release archive" in page
    assert "Nothing was changed." in page
    built = next(image_dir.glob("potionpi-*-bookworm-arm64.tar.gz"))
    status, page = upload(machine_a, built.name, built.read_bytes())
    assert status == 409 and "is already installed" in page
    assert machine_a.ssh("ls /var/lib/potionpi/update/ 2>/dev/null | grep -v status.json || true").strip() == ""
    assert json.loads(vm.http_get(machine_a.page, "/healthz")[1])["version"] == "0.1.0"


def update_unit_limit() -> int:
    """Seconds the card's update unit may take to say how it ended: its start limit (the
    install, the switch and the health checks), then its stop hook's (``--after-stop``
    marks a stopped install failed)."""
    unit = (REPO / "image/files/etc/systemd/system/potionpi-update.service").read_text()
    return sum(int(re.search(rf"^{key}=(\d+)$", unit, re.M).group(1))
               for key in ("TimeoutStartSec", "TimeoutStopSec"))


def install_from_the_page(machine: vm.Machine, file: Path, version: str, what: str) -> dict:
    """Upload ``file`` on the settings page and wait for the root service to be done (as
    long as its unit allows, and a little: a slow install under load is still an install)."""
    started = time.monotonic()
    status, page = upload(machine, file.name, file.read_bytes())
    assert status == 202, page
    done = vm.wait_until("the update's end", lambda: finished(machine, version),
                         deadline_s=update_unit_limit() + 120, every=10)
    figure(what, f"{time.monotonic() - started:.0f} s")
    return done


def test_a_broken_wheel_rolls_back_to_the_running_potionpi(machine_a, same_dependencies, tmp_path):
    game = json.loads(vm.http_get(machine_a.page, "/api/v1/session")[1])
    done = install_from_the_page(machine_a, built_wheel(tmp_path, "0.1.2", broken=True), "0.1.2",
                                 "a broken wheel: upload to rolled back")
    assert done["state"] == "rolled-back", done
    assert "potionpi 0.1.2 did not come up" in done["message"] and "0.1.0 runs again" in done["message"]
    machine_a.wait_for_page()
    assert json.loads(vm.http_get(machine_a.page, "/healthz")[1])["version"] == "0.1.0"
    assert machine_a.ssh("readlink /opt/potionpi/current").strip() == "releases/0.1.0"
    resumed = json.loads(vm.http_get(machine_a.page, "/api/v1/session")[1])
    assert (resumed["id"], resumed["version"]) == (game["id"], game["version"])
    status, page = vm.http_get(machine_a.page, "/settings", {"X-Table-Pin": PIN})
    assert "did not come up" in page.decode()


def test_a_newer_release_archive_is_installed_keeping_games_pin_and_config(machine_a, same_dependencies,
                                                                           image_dir, tmp_path):
    game = json.loads(vm.http_get(machine_a.page, "/api/v1/session")[1])
    archive = release_archive(image_dir, tmp_path, built_wheel(tmp_path, "0.1.1"), "0.1.1")
    done = install_from_the_page(machine_a, archive, "0.1.1",
                                 "a release archive: upload to installed and healthy")
    assert done["state"] == "installed", done
    machine_a.wait_for_page()
    assert json.loads(vm.http_get(machine_a.page, "/healthz")[1])["version"] == "0.1.1"
    resumed = json.loads(vm.http_get(machine_a.page, "/api/v1/session")[1])
    assert (resumed["id"], resumed["version"]) == (game["id"], game["version"])
    status, page = vm.http_get(machine_a.page, "/settings", {"X-Table-Pin": PIN})   # the same PIN
    assert status == 200 and "0.1.1" in page.decode() and "is installed and running" in page.decode()
    assert f"port = {PORT}" in machine_a.ssh("sudo cat /etc/potionpi.toml")          # the same config
    assert machine_a.ssh("systemctl is-active potionpi.service").strip() == "active"


# --- copy B: only Imager's settings; its own secrets -----------------------------------------
def secrets_of(machine: vm.Machine) -> dict[str, str]:
    read = machine.ssh("sudo sh -c 'cat /etc/machine-id; sha256sum /var/lib/potionpi/secret_key; "
                       "cat /var/lib/potionpi/table_pin; cat /var/lib/potionpi-setup/state.json'")
    lines = read.splitlines()
    state = json.loads("\n".join(lines[3:]))
    return {"machine-id": lines[0], "session key": lines[1].split()[0], "PIN": lines[2],
            "hotspot password": state["hotspot_password"], "SSH host keys": machine.host_keys()}


def test_two_copies_of_the_card_make_their_own_secrets(machine_a, built_image, ssh_key,
                                                       tmp_path_factory, output):
    a = secrets_of(machine_a)
    folder = tmp_path_factory.mktemp("card-b")
    copy = card_copy(built_image, folder)
    vm.Card(copy).write_fat("user-data", user_data(ssh_key, hostname="kitchen-table"), folder)
    machine_a.stop()                      # one machine at a time: 2 cores are shared
    b_machine = vm.Machine(copy, folder, key=ssh_key)
    b_machine.start()
    try:
        seconds = b_machine.wait_for_page()
        figure("first boot to page (copy B, defaults)", f"{seconds:.0f} s")
        b_machine.wait_for_ssh()
        b = secrets_of(b_machine)
        for what in a:
            assert a[what] and b[what] and a[what] != b[what], f"{what} is the same on both cards"
        assert re.fullmatch(r"\d{4}", b["PIN"]) and len(b["hotspot password"]) == 12
        assert b_machine.ssh("hostname").strip() == "kitchen-table"          # Imager's name
        status_file = b_machine.ssh("sudo cat /boot/firmware/potionpi-status.txt")
        assert f"Table PIN:           {b['PIN']}" in status_file
        assert f"'potionpi', password {b['hotspot password']}" in status_file
        screen = vm.wait_until("B's screen", lambda: (t := b_machine.screen_text())
                               and b["PIN"] in t and t, deadline_s=120)
        assert b["hotspot password"] in screen
        b_machine.screenshot(output / "screen-b.png")
    finally:
        shutil.copy(b_machine.console, output / "console-b.log")
        b_machine.stop()
