"""The SD-card image's recipe (image/), as far as it can be checked without building it:
its scripts parse (and pass shellcheck where installed), its units pass systemd's own
checks, and it asks Debian for what a table needs. `make image-test` checks the built image."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IMAGE = REPO / "image"
SCRIPTS = [IMAGE / "build.sh", IMAGE / "customize.sh", IMAGE / "binfmt.sh",
           IMAGE / "files/usr/lib/potionpi/growroot"]
UNITS = sorted((IMAGE / "files/etc/systemd/system").glob("potionpi-*"))
CI = os.environ.get("CI") == "true"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_recipes_scripts_parse_and_are_executable(script):
    assert os.access(script, os.X_OK), f"{script} is not executable"
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert script.read_text().startswith("#!/bin/bash\n")


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed "
                                                               "(apt install shellcheck)")
def test_the_recipes_scripts_pass_shellcheck():
    done = subprocess.run(["shellcheck", "-x", *map(str, SCRIPTS)], capture_output=True,
                          text=True, cwd=IMAGE)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None and not CI,
                    reason="systemd-analyze is not installed (apt install systemd)")
def test_the_images_units_pass_systemd_analyze_verify(tmp_path):
    for unit in UNITS:
        shutil.copy(unit, tmp_path / unit.name)
    done = subprocess.run(["systemd-analyze", "verify", *(str(tmp_path / u.name) for u in UNITS)],
                          capture_output=True, text=True)
    # the programs are in the image, not on this machine
    complaints = [l for l in done.stderr.splitlines()
                  if "is not executable: No such file or directory" not in l]
    assert not complaints, "\n".join(complaints)


def test_the_image_asks_debian_for_what_a_table_needs():
    packages = {l.strip() for l in (IMAGE / "packages.txt").read_text().splitlines()
                if l.strip() and not l.startswith("#")}
    for needed in ("raspi-firmware", "linux-image-arm64", "systemd-sysv", "network-manager",
                   "avahi-daemon", "python3-venv", "firmware-brcm80211", "cloud-guest-utils"):
        assert needed in packages, needed


def test_the_image_starts_the_one_unit_install_writes():
    """The table's own unit is `potionpi install`'s (no second copy in image/files)."""
    assert not (IMAGE / "files/etc/systemd/system/potionpi.service").exists()
    customize = (IMAGE / "customize.sh").read_text()
    assert "-m controller.cli install --no-start --user potionpi" in customize
    for unit in UNITS:
        if unit.suffix == ".service" and "[Install]" in unit.read_text():
            assert unit.name in customize, f"{unit.name} is never enabled"
    assert "potionpi-update.path" in customize
