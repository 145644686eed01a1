"""`potionpi run` imports only what runs (a Pi Zero 2 W's memory and start-up are mostly
imports): an idle daemon has loaded no engine of a game nobody plays, no flashing or
self-check tools, no export, no BG Stats file, statistics, replay or update-from-file
code before one is asked for, no HTTPS without a certificate, no QR library once the
console's QR code was drawn for its address; deciding the pin factory loads no mock pins,
and the web app itself loads no GPIO library (the devices bring gpiozero, not Flask's side)."""
from __future__ import annotations

import json
import subprocess
import sys

from controller.service import discovery

IDLE_DAEMON = """
import json, sys, tempfile, urllib.request
from controller.cli import build_parser            # what every command loads
from controller.config import Config
from controller.daemon import Daemon
from controller.service import preflight
preflight.decide(Config.defaults(), sim=True, sim_mcu=False)
d = Daemon(Config.defaults(), sim=True, data_dir=tempfile.mkdtemp(), say=lambda *_: None)
port = d.start("127.0.0.1", 0)
urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz").read()
print(json.dumps(sorted(sys.modules)))
d.close()
"""

NOT_AT_IDLE = ["controller.service.check", "controller.service.bundle", "controller.service.update",
               "controller.service.install", "controller.calibrate", "controller.firmware_tools",
               "controller.devices.pico_link", "controller.devices.sim_pico", "controller.doctor",
               "controller.games.zaubercocktail.engine", "controller.games.zaubercocktail.laydown",
               "controller.games.mirakel_mix.engine", "controller.games.zauberwald.engine",
               "controller.games.elixir.engine", "controller.games.mix_it.engine", "serial",
               "segno", "web_ui.tls", "plistlib",
               # the downloads' and the settings page's own code, imported when first asked for
               "controller.bgstats", "controller.stats", "controller.replays", "controller.service.release",
               "tarfile", "controller.service.certs"]


def modules_of(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_an_idle_daemon_loads_no_tool_and_no_engine_of_a_game_not_played():
    loaded = modules_of(IDLE_DAEMON)
    assert "web_ui.stream" in loaded and "controller.devices.sim_cauldron" in loaded   # it did run
    assert not [m for m in NOT_AT_IDLE if m in loaded]


WEB_APP = """
import json, sys, tempfile
from pathlib import Path
from controller.store import Store
from controller.table import Table
from web_ui import create_app
table = Table(Store(Path(tempfile.mkdtemp()) / "table.sqlite3"))
client = create_app(table=table, pin="2468", secret_key="k").test_client()
assert client.get("/healthz").status_code == 200 and client.get("/").status_code == 200
print(json.dumps(sorted(sys.modules)))
"""

WHEN_ASKED = {"/api/v1/history.bgsplay": "controller.bgstats", "/api/v1/stats": "controller.stats",
              "/api/v1/history/1/replay": "controller.replays", "/settings": "controller.service.release"}


def test_the_web_app_loads_no_gpio_library_and_no_download_code_until_asked():
    loaded = modules_of(WEB_APP)
    assert "web_ui.records_api" in loaded and "web_ui.update_page" in loaded     # their routes are there
    assert not [m for m in loaded if m.split(".")[0] in ("gpiozero", "colorzero", "lgpio")]
    assert not [m for m in NOT_AT_IDLE if m in loaded]
    for path, module in WHEN_ASKED.items():            # ... and each loads its code when asked
        asked = modules_of(WEB_APP.replace('print(', f'client.get("{path}")\nprint(', 1))
        assert module in asked, path


def test_choosing_the_pin_factory_loads_no_mock_pins():
    loaded = modules_of("import json, sys\nfrom controller.service import preflight\n"
                        "print(json.dumps(sorted(sys.modules)))")
    assert "controller.devices.pins" in loaded
    assert not [m for m in loaded if m.startswith("gpiozero")]


QR_WITHOUT_SEGNO = """
import sys
from pathlib import Path
sys.modules["segno"] = None                         # importing it would fail
from controller.service import discovery
print(discovery.terminal_qr(sys.argv[1], keep=Path(sys.argv[2])), end="")
"""


def test_the_console_qr_code_is_drawn_once_per_address_and_then_needs_no_qr_library(tmp_path):
    keep = tmp_path / discovery.QR_FILE
    url = "http://192.168.1.20:8080/"
    drawn = discovery.terminal_qr(url, keep=keep)
    assert drawn == discovery.terminal_qr(url) and "\u2588" in drawn      # the same blocks as drawn afresh
    again = subprocess.run([sys.executable, "-c", QR_WITHOUT_SEGNO, url, str(keep)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stdout == drawn
    moved = subprocess.run([sys.executable, "-c", QR_WITHOUT_SEGNO, "http://192.168.1.21:8080/", str(keep)],
                           capture_output=True, text=True, timeout=120)
    assert moved.returncode != 0 and "segno" in moved.stderr             # a new address is drawn again
    new = discovery.terminal_qr("http://192.168.1.21:8080/", keep=keep)
    assert new != drawn and new == discovery.terminal_qr("http://192.168.1.21:8080/")


def test_a_console_qr_file_that_cannot_be_kept_still_gives_the_drawing(tmp_path):
    keep = tmp_path / "missing-folder" / discovery.QR_FILE
    assert discovery.terminal_qr("http://10.0.0.5/", keep=keep) == discovery.terminal_qr("http://10.0.0.5/")
    assert not keep.exists()
    garbled = tmp_path / discovery.QR_FILE
    garbled.write_bytes(b"\xff\xfe not text")
    assert discovery.terminal_qr("http://10.0.0.5/", keep=garbled) == discovery.terminal_qr("http://10.0.0.5/")
