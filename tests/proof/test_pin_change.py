"""A PIN change takes effect at once (issue 22). Before, ``potionpi pin --set 2468`` printed
the new PIN while the running daemon kept the old one: the new PIN got 401 (and counted as
a wrong guess), the old PIN 200, and the old tablet cookies and seat links kept working
(4 of 4 checks). docs/api.md and docs/seats.md promise a new PIN locks every tablet and
kills every link. A real daemon, a real ``potionpi pin --set`` in another process."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from controller import secrets_store
from tests.e2e.daemon_proc import DaemonProcess
from tests.web.helpers import Phone

pytestmark = pytest.mark.slow

OLD, NEW = "1357", "8642"


def tablet_unlocked(base: str) -> Phone:
    """A browser that entered the PIN once: the page's cookie and CSRF token."""
    tablet = Phone(base)
    html = tablet.opener.open(base + "/", timeout=30).read().decode()
    tablet.csrf = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
    status, _ = tablet.request("POST", "/api/v1/login", {"pin": OLD}, {"X-CSRF-Token": tablet.csrf})
    assert status == 200
    return tablet


def test_a_new_pin_reaches_the_running_table_at_once(tmp_path, proof_line):
    secrets_store.new_pin(tmp_path, OLD)
    d = DaemonProcess(tmp_path, env={}).start()
    try:
        status, _ = d.request("POST", "/api/v1/session", {"game": "elixir", "players": ["Ann", "Ben"]}, pin=OLD)
        assert status == 201
        tablet = tablet_unlocked(d.url)
        _, seats = d.request("GET", "/api/v1/seats", pin=OLD)
        phone = Phone(d.url)
        token = seats["seats"][0]["token"]
        assert phone.get(f"/api/v1/seat/{token}")[0] == 200
        changed = subprocess.run([sys.executable, "-m", "controller.cli", "pin", "--set", NEW,
                                  "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60,
                                 env={"PATH": "/usr/bin:/bin"})
        assert changed.returncode == 0, changed.stderr
        assert "the running table took the new PIN now: 1 tablet(s) locked" in changed.stdout, changed.stdout
        checks = {
            "the new PIN works": d.request("POST", "/api/v1/sim/cauldron/drop", pin=NEW)[0] in (200, 422),
            "the old PIN is refused": d.request("GET", "/api/v1/seats", pin=OLD)[0] == 401,
            "the old tablet cookie is locked": tablet.request("POST", "/api/v1/session/actions",
                                                              {"action": {"type": "roll", "seat": 0}},
                                                              {"X-CSRF-Token": tablet.csrf})[0] == 401,
            "the old seat link is dead": phone.get(f"/api/v1/seat/{token}")[0] == 403,
        }
        broken = [name for name, ok in checks.items() if not ok]
        proof_line("PIN change reaches the running table", len(checks), len(broken),
                   "potionpi pin --set, then the new PIN, the old PIN, an unlocked tablet, a seat link "
                   "(4 of 4 broken before)")
        assert broken == []
        _, fresh = d.request("GET", "/api/v1/seats", pin=NEW)
        assert fresh["seats"][0]["token"] != token and phone.get(f"/api/v1/seat/{fresh['seats'][0]['token']}")[0] == 200
    finally:
        assert d.terminate() == 0
    # not running: the command says when it applies
    later = subprocess.run([sys.executable, "-m", "controller.cli", "pin", "--set", OLD, "--data-dir",
                            str(tmp_path)], capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert "potionpi is not running with this data dir: it uses the new PIN when it starts" in later.stdout


def test_a_table_with_its_pin_from_the_environment_says_it_keeps_it(tmp_path):
    """The service started with POTIONPI_PIN; `potionpi pin --set` from a shell without it
    writes the file: the command says at once that the table keeps its PIN, and it does."""
    d = DaemonProcess(tmp_path, env={"POTIONPI_PIN": OLD}).start()
    try:
        changed = subprocess.run([sys.executable, "-m", "controller.cli", "pin", "--set", NEW,
                                  "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=60,
                                 env={"PATH": "/usr/bin:/bin"})
        assert changed.returncode == 0, changed.stderr
        assert "the running table takes its PIN from POTIONPI_PIN and keeps it" in changed.stdout, changed.stdout
        assert d.request("POST", "/api/v1/sim/cauldron/drop", pin=OLD)[0] in (200, 422)
        assert d.request("POST", "/api/v1/sim/cauldron/drop", pin=NEW)[0] == 401
    finally:
        assert d.terminate() == 0
