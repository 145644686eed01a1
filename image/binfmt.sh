#!/bin/bash
# Make this (x86-64) machine run arm64 programs through qemu-user, for the image's root:
# binfmt_misc mounted, and Debian's qemu-aarch64 entry registered with the C flag
# (credentials: setuid programs such as sudo keep their rights inside the root) and F
# (the interpreter is opened now, so it works inside the chroot too).
set -euo pipefail

MISC=/proc/sys/fs/binfmt_misc
LINE_FILE=/usr/lib/binfmt.d/qemu-aarch64.conf       # from qemu-user-static

if [ "$(uname -m)" = aarch64 ]; then
    echo "   this machine is arm64 itself: no emulation needed"
    exit 0
fi
if [ ! -f "$LINE_FILE" ]; then
    echo "binfmt: $LINE_FILE is missing: sudo apt-get install qemu-user-static" >&2
    exit 1
fi
if [ ! -e "$MISC/register" ]; then
    mount -t binfmt_misc binfmt_misc "$MISC"
fi
entry="$MISC/qemu-aarch64"
if [ -e "$entry" ] && grep -q '^flags: .*C' "$entry" && grep -q '^enabled' "$entry"; then
    echo "   qemu-aarch64 is registered ($(grep '^flags:' "$entry"))"
    exit 0
fi
if [ -e "$entry" ]; then
    echo -1 >"$entry"                  # registered without C (Debian's default): again, with it
fi
# Debian's line ends in its flags (e.g. :OPF); C implies O
line=$(grep -v '^#' "$LINE_FILE" | head -1)
flags=${line##*:}
case "$flags" in *C*) ;; *) line="${line%:*}:${flags}C" ;; esac
echo "$line" >"$MISC/register"
echo "   registered qemu-aarch64 ($(grep '^flags:' "$entry"))"
