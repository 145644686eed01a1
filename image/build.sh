#!/bin/bash
# potionpi SD-card image for the Raspberry Pi 3, 4 and Zero 2 W (arm64), from Debian 12's
# own packages: `make image` runs this. docs/install.md says how to write and boot it.
#
#   image/build.sh [OUT]          OUT: where the image goes (default build/image)
#
# IMAGE_KEEP_ROOT=1 keeps the root folder; IMAGE_REUSE_ROOT=1 then builds the card from
# it again without the (long) root step.
#
# Steps: the tools (qemu-user through binfmt_misc for the arm64 root), the potionpi wheel,
# the root (mmdebstrap: Debian's packages, then image/customize.sh inside it), the two
# filesystems, the card image and the release archive. Each step says its name; a failure
# says which one failed. Downloads are cached in $IMAGE_CACHE (default
# ~/.cache/potionpi-image: apt's .debs, and the wheels potionpi was installed from, which
# pip takes again without asking PyPI; delete wheels/ there for the newest), so a second
# build downloads nothing but Debian's package lists. Needs root (mmdebstrap's root mode, binfmt_misc; `make image` asks sudo for it),
# about 4 GB of disk.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
OUT=$(realpath -m "${1:-$REPO/build/image}")
CACHE=$(realpath -m "${IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/potionpi-image}")
PYTHON=${PYTHON:-$REPO/.venv/bin/python}
MIRROR=${IMAGE_MIRROR:-http://deb.debian.org/debian}
SECURITY=${IMAGE_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
BOOT_MB=256
NICE=${IMAGE_NICE:-10}

STEP="start"
STARTED=$(date +%s)
LAST=$STARTED
mkdir -p "$OUT"
: >"$OUT/build-times.txt"
trap 'echo "make image: step \"$STEP\" failed (see the lines above)" >&2' ERR
step() {
    local now
    now=$(date +%s)
    if [ "$STEP" != start ]; then
        printf '%-12s %5d s\n' "$STEP" $((now - LAST)) >>"$OUT/build-times.txt"
    fi
    LAST=$now
    STEP=$1
    echo "== make image: $1: $2"
}

# --- 1. tools --------------------------------------------------------------------
step tools "mmdebstrap, mkfs, mtools, sfdisk; qemu-aarch64 registered in binfmt_misc"
[ "$(id -u)" = 0 ] || { echo "image/build.sh needs root (mmdebstrap, binfmt_misc): sudo image/build.sh" >&2; false; }
missing=""
for tool in mmdebstrap mkfs.ext4 mkfs.vfat mcopy mmd sfdisk qemu-aarch64-static; do
    command -v "$tool" >/dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    echo "missing:$missing; install them with: sudo apt-get install mmdebstrap e2fsprogs" \
         "dosfstools mtools fdisk qemu-user-static" >&2
    false
fi
"$HERE/binfmt.sh"

# --- 2. the wheel ------------------------------------------------------------------
step wheel "potionpi's wheel from this checkout"
rm -rf "$OUT/dist" "$OUT/stage"
"$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$OUT/dist" "$REPO"
WHEEL=$(ls "$OUT"/dist/potionpi-*-py3-none-any.whl)
VERSION=$(basename "$WHEEL" | sed -E 's/^potionpi-([^-]+)-.*/\1/')
echo "   $(basename "$WHEEL")"
STAGE="$OUT/stage/potionpi-image"
mkdir -p "$STAGE"
cp -a "$OUT/dist" "$HERE/files" "$HERE/boot" "$HERE/customize.sh" "$STAGE/"
echo "$VERSION" >"$STAGE/VERSION"
# pip inside the root trusts what this machine trusts (its own CA bundle, e.g. a proxy's)
cp "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$STAGE/ca-certificates.crt"

# --- 3. the root ---------------------------------------------------------------------
step root "Debian 12 arm64 (mmdebstrap), then potionpi inside it (image/customize.sh)"
ROOT="$OUT/root"
if [ -n "${IMAGE_REUSE_ROOT:-}" ] && [ -d "$ROOT/opt/potionpi" ]; then
    # for work on the later steps: the root of the last build (IMAGE_KEEP_ROOT=1) as it is
    echo "   IMAGE_REUSE_ROOT: the root of the last build, unchanged"
else
rm -rf "$ROOT"
mkdir -p "$CACHE/apt" "$CACHE/wheels"
packages=$(grep -v -e '^#' -e '^$' "$HERE/packages.txt" | paste -sd, -)
# mmdebstrap keeps the .debs (download/empty skipped) so they can be synced out to the cache;
# the hooks' "$1" is mmdebstrap's (the root), not this script's
# INITRD=No: the kernel's package makes no initrd (dpkg's trigger would make it again);
# customize.sh makes it once, at the end, of the modules initrd_modules.py names (Debian's
# MODULES=most is some 1,300 modules: tens of thousands of emulated processes here).
# shellcheck disable=SC2016
INITRD=No nice -n "$NICE" mmdebstrap --mode=root --variant=minbase --architectures=arm64 \
    --components=main,non-free-firmware --include="$packages" \
    --aptopt='Acquire::Retries "3"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --skip=download/empty --skip=essential/unlink \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
    --setup-hook="sync-in $CACHE/apt /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives $CACHE/apt" \
    --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
    --customize-hook='mkdir -p "$1"/root/.cache/potionpi-wheels' \
    --customize-hook="sync-in $CACHE/wheels /root/.cache/potionpi-wheels" \
    --customize-hook="copy-in $STAGE /tmp" \
    --customize-hook="\"$PYTHON\" \"$HERE/initrd_modules.py\" \"\$1\"" \
    --customize-hook='chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 /bin/bash /tmp/potionpi-image/customize.sh' \
    --customize-hook="sync-out /root/.cache/potionpi-wheels $CACHE/wheels" \
    --customize-hook='rm -rf "$1"/root/.cache' \
    bookworm "$ROOT" \
    "deb $MIRROR bookworm main non-free-firmware" \
    "deb $MIRROR bookworm-updates main non-free-firmware" \
    "deb $SECURITY bookworm-security main non-free-firmware"
fi

# --- 4. the filesystems ----------------------------------------------------------------
step filesystems "the FAT boot partition (mtools) and the ext4 root (mkfs.ext4 -d), no mounts"
FS="$OUT/fs"
rm -rf "$FS"
mkdir -p "$FS"
rm -f "$FS/boot.vfat"
mkfs.vfat -C -F 32 -n RASPIFIRM "$FS/boot.vfat" $((BOOT_MB * 1024)) >/dev/null
mcopy -s -i "$FS/boot.vfat" "$ROOT/boot/firmware/"* ::
# the root without the FAT's contents (it is mounted over /boot/firmware)
mv "$ROOT/boot/firmware" "$FS/boot-files"
mkdir -m 755 "$ROOT/boot/firmware"
used_mb=$(du -sm --apparent-size "$ROOT" | cut -f1)
root_mb=$((used_mb + used_mb / 5 + 200))          # room for the first boot; it grows to the card
mkfs.ext4 -q -L RASPIROOT -d "$ROOT" -E root_owner=0:0 -m 2 \
    "$FS/root.ext4" "${root_mb}M"
rmdir "$ROOT/boot/firmware"
mv "$FS/boot-files" "$ROOT/boot/firmware"

# --- 5. the card image -------------------------------------------------------------
step image "one MBR card image: FAT at 4 MiB, the root after it"
IMG="$OUT/potionpi-$VERSION-arm64.img"
boot_start=8192                                    # sectors: 4 MiB, as Raspberry Pi OS
boot_sectors=$((BOOT_MB * 2048))
root_start=$((boot_start + boot_sectors))
root_sectors=$(($(stat -c %s "$FS/root.ext4") / 512))
rm -f "$IMG"
truncate -s $(((root_start + root_sectors) * 512)) "$IMG"
sfdisk --quiet "$IMG" <<EOF
label: dos
unit: sectors

start=$boot_start, size=$boot_sectors, type=c, bootable
start=$root_start, size=$root_sectors, type=83
EOF
dd if="$FS/boot.vfat" of="$IMG" bs=1M seek=$((boot_start * 512)) oflag=seek_bytes conv=notrunc,sparse status=none
dd if="$FS/root.ext4" of="$IMG" bs=1M seek=$((root_start * 512)) oflag=seek_bytes conv=notrunc,sparse status=none
rm -rf "$FS"

# --- 6. the release archive: the wheel and every wheel it needs on the Pi ---------------
step release "potionpi-$VERSION-bookworm-arm64.tar.gz (the update the settings page takes)"
RELEASE="$OUT/potionpi-$VERSION-bookworm-arm64.tar.gz"
rel="$OUT/stage/potionpi-$VERSION"
rm -rf "$rel"
mkdir -p "$rel"
cp "$ROOT/opt/potionpi/wheels/"*.whl "$rel/"
(cd "$rel" && sha256sum ./*.whl >SHA256SUMS)
printf 'potionpi %s for Debian 12 (bookworm) on arm64 Raspberry Pis: the potionpi wheel and\nevery wheel it runs on. Install it from the settings page of the table (Software).\n' \
    "$VERSION" >"$rel/RELEASE.txt"
tar -C "$OUT/stage" -czf "$RELEASE" "potionpi-$VERSION"
rm -rf "$OUT/stage"

step finish ""
kernel=$(basename "$(find "$ROOT/boot" -maxdepth 1 -name "vmlinuz-*" | sort | tail -1)")
if [ -z "${IMAGE_KEEP_ROOT:-}" ]; then
    rm -rf "$ROOT"                                 # 1.5 GB; IMAGE_KEEP_ROOT=1 keeps it to look at
fi
total=$(( $(date +%s) - STARTED ))
printf '%-12s %5d s\n' total "$total" >>"$OUT/build-times.txt"
size_mb=$(( $(stat -c %s "$IMG") / 1048576 ))
{
    echo "image       $IMG"
    echo "size        $size_mb MiB ($(du -m "$IMG" | cut -f1) MiB on disk, sparse)"
    echo "release     $RELEASE ($(du -k "$RELEASE" | cut -f1) KiB)"
    echo "potionpi    $VERSION"
    echo "kernel      $kernel"
    # what its wheels were chosen for: image-test's updates need this checkout's dependencies
    echo "pyproject   $(sha256sum "$REPO/pyproject.toml" | cut -d' ' -f1)"
} | tee "$OUT/build-info.txt"
cat "$OUT/build-times.txt"
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    chown -R "$SUDO_USER:" "$OUT"                  # `make image` ran it through sudo
fi
