"""`potionpi run` imports only what runs (a Pi Zero 2 W's memory and start-up are mostly
imports): an idle daemon has loaded no engine of a game nobody plays, no flashing or
self-check tools, no export; deciding the pin factory loads no mock pins."""
from __future__ import annotations

import json
import subprocess
import sys

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
               "controller.games.elixir.engine", "controller.games.mix_it.engine", "serial"]


def modules_of(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_an_idle_daemon_loads_no_tool_and_no_engine_of_a_game_not_played():
    loaded = modules_of(IDLE_DAEMON)
    assert "web_ui.stream" in loaded and "controller.devices.sim_cauldron" in loaded   # it did run
    assert not [m for m in NOT_AT_IDLE if m in loaded]


def test_choosing_the_pin_factory_loads_no_mock_pins():
    loaded = modules_of("import json, sys\nfrom controller.service import preflight\n"
                        "print(json.dumps(sorted(sys.modules)))")
    assert "controller.devices.pins" in loaded
    assert not [m for m in loaded if m.startswith("gpiozero")]
