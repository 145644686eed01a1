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


def _device_tree(nodes: dict[str, dict[str, bytes]]) -> bytes:
    """A flattened device tree (the format of the kernel's .dtb files): a root node with
    the given child nodes and their properties."""
    import struct
    strings = b""
    offsets: dict[str, int] = {}

    def prop(name: str, value: bytes) -> bytes:
        nonlocal strings
        if name not in offsets:
            offsets[name] = len(strings)
            strings += name.encode() + b"\0"
        return struct.pack(">3I", 3, len(value), offsets[name]) + value + b"\0" * (-len(value) % 4)

    def node(name: str, props: dict[str, bytes], children: bytes = b"") -> bytes:
        head = name.encode() + b"\0"
        return (struct.pack(">I", 1) + head + b"\0" * (-len(head) % 4)
                + b"".join(prop(k, v) for k, v in props.items()) + children + struct.pack(">I", 2))

    body = node("", {"compatible": b"raspberrypi,4-model-b\0brcm,bcm2711\0"},
                b"".join(node(n, p) for n, p in nodes.items())) + struct.pack(">I", 9)
    header_size = 40
    return (struct.pack(">10I", 0xD00DFEED, header_size + len(body) + len(strings), header_size,
                        header_size + len(body), 0, 17, 16, 0, len(strings), len(body))
            + body + strings)


def test_the_initrd_names_the_drivers_on_the_way_to_the_boards_root(tmp_path):
    """initrd_modules.py (make image): from the boards' device trees, the SD card's
    controller and its regulator go in the initrd (MODULES=list), the GPU does not, and the
    drivers below them (ext4, the SD card's, USB disks', QEMU's virtio disk) always do."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("initrd_modules", IMAGE / "initrd_modules.py")
    initrd_modules = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(initrd_modules)

    version = "6.1.0-57-arm64"
    trees = tmp_path / f"usr/lib/linux-image-{version}/broadcom"
    trees.mkdir(parents=True)
    (trees / "bcm2711-rpi-4-b.dtb").write_bytes(_device_tree({
        "mmc@7e340000": {"compatible": b"brcm,bcm2711-emmc2\0", "status": b"okay\0"},
        "sd_io_1v8_reg": {"compatible": b"regulator-gpio\0"},
        "gpu": {"compatible": b"brcm,bcm2711-vc5\0"},
        "chosen": {"bootargs": b"console=ttyS1\0"},
    }))
    modules = tmp_path / f"usr/lib/modules/{version}"
    modules.mkdir(parents=True)
    (modules / "modules.dep").write_text(
        "kernel/drivers/mmc/host/sdhci-iproc.ko: kernel/drivers/mmc/host/sdhci-pltfm.ko\n"
        "kernel/drivers/regulator/gpio-regulator.ko:\n"
        "kernel/drivers/gpu/drm/vc4/vc4.ko:\n"
        "kernel/drivers/mmc/host/sdhci-pltfm.ko:\n")
    (modules / "modules.alias").write_text(
        "alias of:N*T*Cbrcm,bcm2711-emmc2C* sdhci_iproc\n"
        "alias of:N*T*Cbrcm,bcm2711-emmc2 sdhci_iproc\n"
        "alias of:N*T*Cregulator-gpioC* gpio_regulator\n"
        "alias of:N*T*Cregulator-gpio gpio_regulator\n"
        "alias of:N*T*Cbrcm,bcm2711-vc5 vc4\n"
        "alias of:N*T*Cbrcm,bcm2835-sdhost bcm2835\n")
    (tmp_path / "etc/initramfs-tools").mkdir(parents=True)

    assert initrd_modules.newest_kernel(tmp_path) == version
    assert initrd_modules.main(tmp_path, version) == 0
    named = [l for l in (tmp_path / "etc/initramfs-tools/modules").read_text().splitlines()
             if l and not l.startswith("#")]
    assert {"sdhci_iproc", "gpio_regulator"} <= set(named)
    assert "vc4" not in named and "bcm2835" not in named        # the GPU; no such device
    assert {"ext4", "virtio_blk", "usb_storage"} <= set(named)
    conf = (IMAGE / "files/etc/initramfs-tools/conf.d/potionpi-modules").read_text()
    assert "\nMODULES=list\n" in conf
