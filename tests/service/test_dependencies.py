"""The `pi` extra installs on Raspberry Pi OS Bookworm without a compiler: pip finds lgpio
wheels for CPython 3.11 on 64-bit (aarch64) and 32-bit (armv7l) Pis."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NO_INDEX = ("NewConnectionError", "Temporary failure in name resolution", "Network is unreachable",
            "Could not fetch URL")


def extras() -> dict[str, list[str]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


def test_runtime_has_mpremote_and_the_pi_extra_no_source_only_library():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("mpremote") for d in project["dependencies"])
    pi = extras()["pi"]
    assert any(d.startswith("lgpio>=0.2.2") for d in pi)
    assert not any(d.lower().startswith("rpi.gpio") for d in pi)          # opt-in only
    assert any(d.lower().startswith("rpi.gpio") for d in extras()["rpigpio"])


@pytest.mark.slow
@pytest.mark.parametrize("tag", ["aarch64", "armv7l"])
def test_lgpio_comes_as_a_wheel_for_bookworm(tmp_path, tag):
    spec = next(d for d in extras()["pi"] if d.startswith("lgpio")).split(";")[0]
    # what pip on Bookworm (glibc 2.36) accepts: manylinux up to 2.36, and plain linux wheels
    platforms = [f"manylinux_2_{minor}_{tag}" for minor in range(17, 37)] + [f"linux_{tag}"]
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
         *[arg for p in platforms for arg in ("--platform", p)], "--python-version", "3.11",
         "--implementation", "cp", "--dest", str(tmp_path), spec],
        capture_output=True, text=True, timeout=300)
    if result.returncode and any(s in result.stderr for s in NO_INDEX):
        pytest.skip(f"no package index reachable: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, result.stderr
    wheels = [p.name for p in tmp_path.glob("*.whl")]
    assert len(wheels) == 1 and "cp311" in wheels[0] and tag in wheels[0], wheels
