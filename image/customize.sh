#!/bin/bash
# potionpi SD-card image: the part that runs inside the arm64 root (under qemu-user),
# as root, from mmdebstrap's customize hook (image/build.sh). Debian's packages are in;
# this adds potionpi, its service and the image's first-boot units, and takes every
# machine secret out again.
#
# In: /tmp/potionpi-image (the wheel, image/files, image/boot, the build machine's CA
# bundle for pip), /root/.cache/potionpi-wheels (the wheels of the last build, synced back
# out with this build's: pip takes them from there without asking PyPI when it can).
set -euo pipefail

IN=/tmp/potionpi-image
STEP=start
trap 'echo "image/customize.sh: step \"$STEP\" failed (line $LINENO)" >&2' ERR
step() {
    STEP=$1
    echo "== image: $STEP"
}

VERSION=$(cat "$IN/VERSION")
WHEEL="$IN/dist/potionpi-$VERSION-py3-none-any.whl"
OPT=/opt/potionpi
RELEASE="$OPT/releases/$VERSION"
export PIP_CERT="$IN/ca-certificates.crt" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_DEFAULT_TIMEOUT=120

step "the table's account and the device groups"
# Debian has no gpio/i2c groups (Raspberry Pi OS has): the udev rule hands them the chips
for group in gpio i2c; do
    getent group "$group" >/dev/null || addgroup --system --quiet "$group"
done
if ! getent passwd potionpi >/dev/null; then
    adduser --system --group --quiet --home /var/lib/potionpi --no-create-home \
        --shell /usr/sbin/nologin --gecos "potionpi game table" potionpi
fi
usermod --append --groups gpio,i2c,dialout potionpi

WHEELS=/root/.cache/potionpi-wheels
mkdir -p "$WHEELS"
# pip from the wheels of the last build alone first (no download), then with PyPI for
# what is new; it only ever installs wheels (nothing is compiled on the Pi's root)
pip_wheels() {
    if "$OPT/current/bin/python" -m pip "$@" --quiet --only-binary=:all: --no-index \
        --find-links "$WHEELS" 2>/tmp/pip-offline.log; then
        echo "   (pip $1: every wheel from the cache, nothing downloaded)"
    else
        echo "   (pip $1: not every wheel in the cache; PyPI for the rest)"
        "$OPT/current/bin/python" -m pip "$@" --quiet --only-binary=:all: --find-links "$WHEELS"
    fi
}

step "potionpi $VERSION in its virtualenv ($RELEASE)"
python3 -m venv "$RELEASE"
ln -sfn "releases/$VERSION" "$OPT/current"
pip_wheels install "${WHEEL}[pi,image]"
# every wheel it runs on, kept: an update from the tablet installs offline from these
pip_wheels download --dest "$OPT/wheels" "${WHEEL}[pi,image]"
find "$OPT/wheels" -name '*.whl' ! -name 'potionpi-*' -exec cp -n {} "$WHEELS/" \;

step "the service (potionpi install --no-start: the same unit as a make install)"
# run through current/, so the unit names /opt/potionpi/current and follows updates
"$OPT/current/bin/python" -m controller.cli install --no-start --user potionpi

step "the image's own units: first boot, screen, growing the card, updates"
cp -a "$IN/files/." /
mkdir -p /usr/lib/potionpi/updater
cp "$RELEASE/lib/python3.11/site-packages/controller/service/release.py" /usr/lib/potionpi/updater/
systemctl enable potionpi-firstboot.service potionpi-growroot.service potionpi-screen.service \
    potionpi-update.path
# the screen has tty1; Alt+F2 gives a login (logind starts one on demand)
systemctl disable getty@tty1.service
# SSH only when the card asks for it (Raspberry Pi Imager's settings): neither the service
# nor its socket (Debian enables both)
systemctl disable ssh.service ssh.socket
# NetworkManager runs the network: systemd-networkd's wait-online would hold
# network-online.target (and the table) for two minutes waiting for links it never manages
systemctl disable systemd-networkd.service systemd-networkd.socket systemd-networkd-wait-online.service
systemctl mask systemd-networkd-wait-online.service
# avahi on IPv4 alone: the table listens on IPv4 (web.host 0.0.0.0), so an AAAA record only
# sends a tablet to an address where nothing answers, and an IPv6 address that changes
# after boot (SLAAC) can have avahi take its own records for another host's and rename the
# table zauberwald-2.local (avahi issue #117; make image-test saw it)
sed -i -e 's/^#\?use-ipv6=.*/use-ipv6=no/' -e 's/^#\?publish-aaaa-on-ipv4=.*/publish-aaaa-on-ipv4=no/' \
    /etc/avahi/avahi-daemon.conf
[ "$(grep -c -x -e 'use-ipv6=no' -e 'publish-aaaa-on-ipv4=no' /etc/avahi/avahi-daemon.conf)" = 2 ]
# systemd's own first-boot wizard asks on the console (locale, root password): no terminal here
systemctl mask systemd-firstboot.service
rm -f /etc/ssh/sshd_not_to_be_run

step "the forest-floor Pico's firmware, compiled (.mpy) and ready to flash"
mkdir -p "$OPT/pico-firmware"
"$OPT/current/bin/python" - "$OPT/pico-firmware" <<'PY'
import shutil, sys
from pathlib import Path
from controller.firmware_tools import compile_firmware, firmware_version
out = Path(sys.argv[1])
for path, name in compile_firmware(out):
    if path.parent != out:
        shutil.copy(path, out / name)
(out / "VERSION").write_text(firmware_version() + "\n")
print("  firmware", firmware_version(), "->", ", ".join(sorted(p.name for p in out.iterdir())))
PY

step "the initrd (once: the packages were installed with INITRD=No), then the boot partition"
# of the modules build.sh's initrd_modules.py listed in /etc/initramfs-tools/modules
# (MODULES=list, conf.d/potionpi-modules): the boards' SD card, USB and QEMU's virtio disk
# initramfs-tools' own post-update hook is raspi-firmware's: it copies the kernel, the initrd
# and the device trees to /boot/firmware and writes config.txt and cmdline.txt from
# /etc/default/raspi-firmware (the image's, copied in above)
update-initramfs -c -k all
install -m 644 "$IN/boot/potionpi-setup.txt" "$IN/boot/README.txt" /boot/firmware/
install -m 644 /etc/potionpi.toml /boot/firmware/potionpi.toml
mkdir -p /boot/firmware/pico-firmware
cp "$OPT/pico-firmware/"* /boot/firmware/pico-firmware/

step "no machine secret in the image: each card makes its own at first boot"
rm -f /etc/ssh/ssh_host_*
# empty, as machine-id(5) asks of an image (and as mmdebstrap leaves it anyway): systemd
# makes each card's id at its first boot and commits it. Not "uninitialized": that boot
# would count as a first boot and systemd would apply its presets to every unit,
# enabling SSH and systemd-networkd again, which this image keeps off.
: >/etc/machine-id
rm -f /var/lib/dbus/machine-id
rm -f /var/lib/systemd/random-seed /var/lib/NetworkManager/secret_key
rm -rf /var/lib/potionpi-setup
find /var/lib/potionpi -mindepth 1 -delete
echo potionpi >/etc/hostname
printf '127.0.0.1\tlocalhost\n127.0.1.1\tpotionpi\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >/etc/hosts

step "smaller: apt's lists and caches, Python's caches of the build"
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/debconf/*-old /var/log/*.log
rm -rf "$IN" /tmp/* /root/.bash_history
echo "== image: done (potionpi $VERSION)"
