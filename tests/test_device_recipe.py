"""The device recipe of docs/architecture.md, followed step by step: the scale under the
cauldron, its two files copied from the page into a temporary folder named by
``POTIONPI_DEVICES``. Each check runs potionpi in a process of its own (the config's
SCHEMA is assembled from the declarations when it is first imported), as a maker would."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECIPE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split("## Adding a device")[1]


def recipe_files() -> dict[str, str]:
    """The recipe's code blocks that name their file on their first line (``# scale/...``)."""
    files = {}
    for block in re.findall(r"```(?:toml|python)\n(.*?)```", RECIPE, flags=re.S):
        block = textwrap.dedent(block)
        first, _, rest = block.partition("\n")
        if first.startswith("# scale/"):
            files[first.removeprefix("# ")] = rest if first.endswith(".py") else block
    return files


@pytest.fixture
def scale_folder(tmp_path):
    folder = tmp_path / "devices"
    for name, text in recipe_files().items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def potionpi(folder: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """``potionpi ARGS`` (or ``python -c CODE``) with the recipe's folder of devices."""
    env = dict(os.environ, POTIONPI_DEVICES=str(folder))
    command = ["-c", code] if code is not None else ["-m", "controller.cli", *args]
    return subprocess.run([sys.executable, *command], capture_output=True, text=True, timeout=120,
                          env=env, cwd=ROOT)


def test_the_recipe_gives_both_files():
    assert set(recipe_files()) == {"scale/device.toml", "scale/__init__.py"}


def test_the_scales_keys_are_in_the_printed_config_and_its_docs(scale_folder):
    printed = potionpi(scale_folder, "config", "--print-default")
    assert printed.returncode == 0, printed.stderr
    section = printed.stdout.split("[scale]\n")[1].split("\n[")[0]
    assert ("# BCM pin of the scale board's output, high while the cauldron stands on the scale.\n"
            "# Allowed: a whole number from 0 to 27.\npin = 23") in section
    assert "enabled = false" in section
    docs = potionpi(scale_folder, code="from controller.config import markdown; print(markdown())")
    assert "## [scale]" in docs.stdout and "| `pin` | `23` | a whole number from 0 to 27 |" in docs.stdout


def test_a_bad_scale_value_and_a_pin_shared_with_the_cauldron_are_refused(scale_folder, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[scale]\nenabled = true\npin = 99\n")
    result = potionpi(scale_folder, "config", "--check", str(bad))
    assert result.returncode == 2
    assert result.stderr.strip() == (f"potionpi: bad config: {bad}: scale.pin = 99 is not allowed; "
                                     "use a whole number from 0 to 27")
    bad.write_text("[scale]\nenabled = true\npin = 17\n")
    result = potionpi(scale_folder, "run", "--sim", "--config", str(bad), "--data-dir", str(tmp_path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (f"{bad}: cauldron.encoder_a = 17 and scale.pin = 17 claim the same GPIO pin (BCM 17)"
            in result.stderr)
    # a scale that is not switched on claims no pin
    bad.write_text("[scale]\npin = 17\n")
    assert potionpi(scale_folder, "config", "--check", str(bad)).returncode == 0


THE_DAEMON = """
import json, sys, urllib.request
from controller.config import Config
from controller.daemon import Daemon
from controller.table import Told

d = Daemon(Config.load(sys.argv[1]), sim=True, data_dir=sys.argv[2], say=lambda *_: None)
port = d.start("127.0.0.1", 0)
health = lambda: json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz").read())["devices"]
out = {"before": health()}
scale = d.devices.get("scale")
watch = d.table.subscribe()
scale.board.pin.drive_high()          # the cauldron is put on the scale
out["on"] = health()["scale"]
scale.board.pin.drive_low()           # ... and lifted off it
out["lifted"] = health()["scale"]
item = watch.get(timeout=30)
while item is not None and not isinstance(item, Told):
    item = watch.get(timeout=30)
out["told"] = item.notice if item is not None else None
d.close()
print(json.dumps(out))
"""


def test_the_daemon_builds_the_scale_on_mock_pins_and_shows_it(scale_folder, tmp_path):
    config = tmp_path / "potionpi.toml"
    config.write_text("[scale]\nenabled = true\n")
    result = subprocess.run([sys.executable, "-c", THE_DAEMON, str(config), str(tmp_path / "data")],
                            capture_output=True, text=True, timeout=120, cwd=ROOT,
                            env=dict(os.environ, POTIONPI_DEVICES=str(scale_folder)))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    # /healthz: every device by name, the scale after the cauldron and the floor
    assert list(out["before"]) == ["simulated", "cauldron", "forest_floor", "scale"]
    assert out["before"]["scale"] == {"simulated": True, "on_scale": False, "lifts": 0}
    assert out["on"] == {"simulated": True, "on_scale": True, "lifts": 0}
    assert out["lifted"] == {"simulated": True, "on_scale": False, "lifts": 1}
    assert out["told"] == {"kind": "sensor", "message": "The cauldron was lifted off the scale: "
                                                        "put it back before the next drop."}


def test_potionpi_check_runs_the_scales_own_check_after_the_built_in_ones(scale_folder, tmp_path):
    config = tmp_path / "potionpi.toml"
    config.write_text("[scale]\nenabled = true\n")
    result = potionpi(scale_folder, "check", "--sim", "--json", "--config", str(config))
    assert result.returncode == 0, result.stdout + result.stderr
    checks = json.loads(result.stdout)["checks"]
    assert [c["name"] for c in checks][-1] == "scale"          # its plug-in's order: 30, last
    assert checks[-1]["status"] == "pass" and "BCM 23" in checks[-1]["detail"]
    assert {"encoder", "beam", "floor homing"} <= {c["name"] for c in checks if c["status"] == "pass"}
    # a table without the scale switched on gets no line for it
    config.write_text("")
    result = potionpi(scale_folder, "check", "--sim", "--json", "--config", str(config))
    assert result.returncode == 0 and "scale" not in [c["name"] for c in json.loads(result.stdout)["checks"]]
