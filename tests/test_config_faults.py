"""Issue 15 item 10: config and command-line values that used to slip through."""
from __future__ import annotations

import subprocess
import sys

import pytest

from controller.config import Config, ConfigError
from controller.games import BadSetup, load


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_nan_and_infinity_are_not_numbers_here(tmp_path, value):
    path = tmp_path / "c.toml"
    path.write_text(f"[web]\nkeepalive_seconds = {value}\n")
    with pytest.raises(ConfigError) as err:
        Config.load(path)
    assert f"web.keepalive_seconds = {value}" in str(err.value)
    assert "from 0.5 to 14" in str(err.value)


@pytest.mark.parametrize("pin", ["٤٧١١", "４７１１", "4711²"])
def test_a_pin_is_ascii_digits(tmp_path, pin):
    path = tmp_path / "c.toml"
    path.write_text(f'[table]\npin = "{pin}"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        Config.load(path)
    assert "use 4 to 8 digits" in str(err.value)


def test_pin_set_refuses_non_ascii_digits(tmp_path):
    result = run("pin", "--data-dir", str(tmp_path), "--set", "٤٧١١")
    assert result.returncode == 2 and "use 4 to 8 digits" in result.stderr


def test_port_out_of_range_is_a_usage_error():
    result = run("run", "--sim", "--port", "99999")
    assert result.returncode == 2
    assert "99999 is not a port number; use 0 to 65535" in result.stderr


def test_a_host_that_cannot_be_listened_on_is_exit_2_with_a_sentence(tmp_path):
    env = {"POTIONPI_PIN": "4711", "PATH": "/usr/bin:/bin"}
    result = run("run", "--sim", "--data-dir", str(tmp_path), "--host", "203.0.113.77", "--port", "0",
                 env=env)
    assert result.returncode == 2, result.stderr
    assert "cannot listen on 203.0.113.77:0" in result.stderr and "Traceback" not in result.stderr


def test_zauberwald_refuses_an_unknown_option():
    with pytest.raises(BadSetup) as err:
        load("zauberwald").setup(["Ann", "Ben"], 1, {"card": "physical"})
    assert str(err.value) == "Im großen Zauberwald has no option 'card'; it knows: cards, first"
