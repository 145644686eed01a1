#!/usr/bin/env python3
"""The initrd's modules for the card (image/build.sh runs this on the build machine,
on the arm64 root, before the initrd is made).

Debian's default (`MODULES=most`) puts some 1,300 modules in the initrd (118 MB unpacked
into the Pi's RAM at every boot) and makes it with thousands of processes, each one an
emulated program on an x86-64 build machine. The card is for three boards and a virtual
machine, so it names what they can need instead (`MODULES=list`): the driver of every
device on the way to the root in the Raspberry Pis' own device trees (what udev would
load for them, by their `of:` modalias: the SD card's controller, its regulators, USB),
and the few drivers of what is found below those
devices (the SD card, a USB disk or keyboard, QEMU's virtio disk) and of the root's
filesystem. modprobe adds their dependencies when the initrd is made.

    initrd_modules.py ROOT [KERNEL_VERSION]   writes ROOT/etc/initramfs-tools/modules
                                              (default: the root's newest kernel)
"""
from __future__ import annotations

import fnmatch
import struct
import sys
from pathlib import Path

#: the boards' device trees (in the kernel package's broadcom/ folder)
BOARDS = ("bcm2711-rpi-*.dtb", "bcm2837-rpi-*.dtb")
#: of those, the ones on the way to the root (the SD card's controller, its regulators and
#: resets, USB): not the GPU, sound, Bluetooth or sensors, which udev loads from the root
ON_THE_WAY = ("mmc", "regulator", "reset", "usb", "phy", "gpio", "clk", "pinctrl", "pci",
              "bus", "mfd", "dma", "soc", "firmware")
#: drivers no device tree names: what sits on the buses, and the root's filesystem
BELOW = {
    "the SD card's blocks (mmc_block is built in) and the root's filesystem": ["ext4"],
    "a USB disk (a Pi 4 boots from one) and a USB keyboard for the initrd's shell":
        ["usb_storage", "uas", "sd_mod", "xhci_pci", "usbhid", "hid_generic"],
    "QEMU's virt machine (make image-test): the virtio disk on PCI or MMIO":
        ["virtio_blk", "virtio_pci", "virtio_mmio"],
}

FDT_MAGIC = 0xD00DFEED
BEGIN_NODE, END_NODE, PROP, NOP, END = 1, 2, 3, 4, 9


def modaliases(dtb: bytes) -> list[str]:
    """The `of:N<name>T<type>C<compatible>...` modalias of every node with a compatible,
    as the kernel makes it (drivers/of/device.c) from a flattened device tree. (Each
    driver's aliases come in pairs, `...Cfoo` and `...CfooC*`, for a last compatible and
    one followed by others.)"""
    magic, _size, off_struct, off_strings = struct.unpack_from(">4I", dtb)
    if magic != FDT_MAGIC:
        raise ValueError("not a flattened device tree")

    def string(at: int) -> str:
        return dtb[at:dtb.index(b"\0", at)].decode()

    found: list[str] = []
    nodes: list[dict[str, object]] = []
    at = off_struct
    while True:
        (token,) = struct.unpack_from(">I", dtb, at)
        at += 4
        if token == BEGIN_NODE:
            name = string(at)
            at = (at + len(name.encode()) + 1 + 3) & ~3
            nodes.append({"name": name.split("@")[0]})
        elif token == PROP:
            length, name_at = struct.unpack_from(">2I", dtb, at)
            value = dtb[at + 8:at + 8 + length]
            at = (at + 8 + length + 3) & ~3
            nodes[-1][string(off_strings + name_at)] = value
        elif token == END_NODE:
            node = nodes.pop()
            compatible = node.get("compatible")
            if isinstance(compatible, bytes):
                kind = node.get("device_type")
                kind = kind.rstrip(b"\0").decode() if isinstance(kind, bytes) else ""
                names = [c.decode() for c in compatible.split(b"\0") if c]
                found.append(f"of:N{node['name']}T{kind}" + "".join(f"C{c}" for c in names))
        elif token == NOP:
            continue
        elif token == END:
            return found
        else:
            raise ValueError(f"unknown device tree token {token} at byte {at - 4}")


def drivers(modules: Path, wanted: set[str]) -> set[str]:
    """The modules on the way to the root whose `of:` aliases match any of the modaliases
    (modules: the kernel's /usr/lib/modules/VERSION)."""
    folder = {}
    for line in (modules / "modules.dep").read_text().splitlines():
        path = Path(line.split(":", 1)[0])
        folder[path.name.split(".")[0].replace("-", "_")] = path.parts
    out: set[str] = set()
    for line in (modules / "modules.alias").read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "alias" and parts[1].startswith("of:"):
            where = folder.get(parts[2], ())
            if (len(where) > 2 and where[:2] == ("kernel", "drivers") and where[2] in ON_THE_WAY
                    and any(fnmatch.fnmatchcase(alias, parts[1]) for alias in wanted)):
                out.add(parts[2])
    return out


def main(root: Path, version: str) -> int:
    trees = sorted(p for pattern in BOARDS
                   for p in (root / f"usr/lib/linux-image-{version}/broadcom").glob(pattern))
    if not trees:
        print(f"initrd_modules: no Raspberry Pi device trees in {root}/usr/lib/"
              f"linux-image-{version}/broadcom", file=sys.stderr)
        return 1
    wanted = {alias for tree in trees for alias in modaliases(tree.read_bytes())}
    found = drivers(root / f"usr/lib/modules/{version}", wanted)
    lines = ["# The SD-card image's initrd (MODULES=list, image/initrd_modules.py): the drivers",
             "# of the devices in " + ", ".join(t.name for t in trees) + ",",
             "# then the ones below them; modprobe adds what they depend on."]
    lines += sorted(found)
    for why, names in BELOW.items():
        lines += [f"# {why}", *names]
    out = root / "etc/initramfs-tools/modules"
    out.write_text("\n".join(lines) + "\n")
    named = len(found) + sum(map(len, BELOW.values()))
    print(f"   initrd: {named} modules named ({len(found)} from {len(trees)} device trees)")
    return 0


def newest_kernel(root: Path) -> str:
    versions = sorted((p.name for p in (root / "usr/lib/modules").iterdir() if p.is_dir()),
                      key=lambda v: [int(n) if n.isdigit() else n for n in v.replace("-", ".").split(".")])
    if not versions:
        raise SystemExit(f"initrd_modules: no kernel in {root}/usr/lib/modules")
    return versions[-1]


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    root = Path(sys.argv[1])
    sys.exit(main(root, sys.argv[2] if len(sys.argv) == 3 else newest_kernel(root)))
