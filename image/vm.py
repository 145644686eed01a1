"""The built SD-card image, looked at and booted from outside: its partitions read with
mtools and debugfs (no mounts), a copy booted with ``qemu-system-aarch64 -M virt`` on the
image's own kernel and initrd, reached over forwarded ports (the page, SSH, mDNS).

Used by image/test_image.py (`make image-test`); not part of potionpi itself.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SECTOR = 512


@dataclass
class Partition:
    start: int       # bytes
    size: int


def partitions(image: Path) -> list[Partition]:
    table = json.loads(subprocess.run(["sfdisk", "--json", str(image)], check=True,
                                      capture_output=True, text=True).stdout)
    return [Partition(p["start"] * SECTOR, p["size"] * SECTOR) for p in table["partitiontable"]["partitions"]]


class Card:
    """A card image file: its FAT partition through mtools, its root through debugfs."""

    def __init__(self, image: Path):
        self.image = image
        self.boot, self.root = partitions(image)[:2]

    @property
    def fat(self) -> str:
        return f"{self.image}@@{self.boot.start}"

    def fat_files(self, folder: str = "") -> list[str]:
        out = subprocess.run(["mdir", "-b", "-i", self.fat, f"::{folder}"], check=True,
                             capture_output=True, text=True).stdout
        return [line.rsplit("/", 1)[-1] for line in out.splitlines() if line.strip()]

    def read_fat(self, name: str) -> str:
        return subprocess.run(["mtype", "-i", self.fat, f"::{name}"], check=True,
                              capture_output=True, text=True).stdout

    def write_fat(self, name: str, text: str, scratch: Path) -> None:
        path = scratch / Path(name).name
        path.write_text(text)
        subprocess.run(["mcopy", "-o", "-i", self.fat, str(path), f"::{name}"], check=True)

    def copy_out(self, name: str, target: Path) -> Path:
        subprocess.run(["mcopy", "-o", "-i", self.fat, f"::{name}", str(target)], check=True)
        return target

    def root_image(self, target: Path) -> Path:
        """The root partition as its own file (sparse), for debugfs."""
        subprocess.run(["dd", f"if={self.image}", f"of={target}", "bs=1M", "iflag=skip_bytes,count_bytes",
                        f"skip={self.root.start}", f"count={self.root.size}", "conv=sparse",
                        "status=none"], check=True)
        return target


def debugfs(root_image: Path, command: str) -> str:
    done = subprocess.run(["debugfs", "-R", command, str(root_image)], capture_output=True, text=True)
    return done.stdout


def exists(root_image: Path, path: str) -> bool:
    done = subprocess.run(["debugfs", "-R", f"stat {path}", str(root_image)], capture_output=True,
                          text=True)
    return "File not found" not in done.stderr and "Inode:" in done.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(port: int, path: str, headers: dict[str, str] | None = None,
             timeout: float = 20) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def http_send(port: int, method: str, path: str, body: bytes, headers: dict[str, str],
              timeout: float = 120) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def multipart(field_name: str, filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = "potionpi-image-test-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field_name}\"; "
            f"filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


@dataclass
class Machine:
    """One booted copy of the card."""
    card: Path
    workdir: Path
    page_guest_port: int = 8080
    memory_mb: int = 512
    cpus: int = 2
    nice: int = 10
    page: int = field(default_factory=free_port)
    ssh_port: int = field(default_factory=free_port)
    key: Path | None = None
    user: str = "maker"
    proc: subprocess.Popen | None = None
    started: float = 0.0

    @property
    def console(self) -> Path:
        return self.workdir / "console.log"

    @property
    def monitor(self) -> Path:
        return self.workdir / "monitor.sock"

    def boot_files(self) -> tuple[Path, Path, str]:
        """The image's own kernel, initrd and cmdline.txt (consoles swapped for virt's)."""
        card = Card(self.card)
        names = card.fat_files()
        kernel = sorted(n for n in names if n.startswith("vmlinuz-"))[-1]
        initrd = sorted(n for n in names if n.startswith("initrd.img-"))[-1]
        k = card.copy_out(kernel, self.workdir / kernel)
        i = card.copy_out(initrd, self.workdir / initrd)
        words = [w for w in card.read_fat("cmdline.txt").split() if not w.startswith("console=")]
        return k, i, " ".join(["console=ttyAMA0,115200", *words])

    def start(self) -> None:
        kernel, initrd, cmdline = self.boot_files()
        self.cmdline = cmdline
        forwards = (f"hostfwd=tcp:127.0.0.1:{self.page}-:{self.page_guest_port},"
                    f"hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22")
        cmd = ["nice", "-n", str(self.nice), "qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72",
               "-smp", str(self.cpus), "-m", str(self.memory_mb), "-accel", "tcg,thread=multi",
               "-kernel", str(kernel), "-initrd", str(initrd), "-append", cmdline,
               "-drive", f"if=none,file={self.card},format=raw,id=card,cache=unsafe",
               "-device", "virtio-blk-pci,drive=card",
               "-netdev", f"user,id=net,{forwards}", "-device", "virtio-net-pci,netdev=net",
               "-device", "virtio-rng-pci",
               # a screen, so tty1 is a framebuffer console as on a Pi with HDMI
               "-device", "virtio-gpu-pci,xres=1920,yres=1080", "-display", "none",
               "-serial", f"file:{self.console}",
               "-monitor", f"unix:{self.monitor},server,nowait"]
        (self.workdir / "qemu.cmd").write_text(shlex.join(cmd) + "\n")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_for_page(self, deadline_s: float = 1200) -> float:
        """Seconds from now until /healthz answers 200 on the forwarded port."""
        start = time.monotonic()
        while time.monotonic() - start < deadline_s:
            if not self.alive():
                raise AssertionError(f"QEMU stopped: {self.proc.stderr.read().decode()[-500:]}"
                                     f"\nconsole:\n{self.tail()}")
            try:
                status, _ = http_get(self.page, "/healthz", timeout=5)
                if status == 200:
                    return time.monotonic() - start
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(2)
        raise AssertionError(f"no page after {deadline_s:.0f} s; console:\n{self.tail()}")

    def wait_down(self, deadline_s: float = 300) -> None:
        start = time.monotonic()
        while time.monotonic() - start < deadline_s:
            try:
                http_get(self.page, "/healthz", timeout=3)
            except (OSError, http.client.HTTPException):
                return
            time.sleep(1)
        raise AssertionError("the page still answers after the reboot was asked for")

    def tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.console.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no console output)"

    def python(self, script: str, timeout: float = 120) -> str:
        """Run ``script`` with the guest's own Python 3 (Debian's), over SSH."""
        return self.ssh("python3 -", stdin=script, timeout=timeout)

    def ssh(self, command: str, *, check: bool = True, timeout: float = 300,
            stdin: str | None = None) -> str:
        assert self.key is not None
        cmd = ["ssh", "-i", str(self.key), "-p", str(self.ssh_port), "-o", "BatchMode=yes",
               "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
               "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=20", f"{self.user}@127.0.0.1", command]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=stdin)
        if check and done.returncode:
            raise AssertionError(f"ssh {command!r}: exit {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def wait_for_ssh(self, deadline_s: float = 600) -> None:
        start = time.monotonic()
        last = ""
        while time.monotonic() - start < deadline_s:
            try:
                if self.ssh("true", check=False, timeout=60) == "" and \
                        self.ssh("echo up", check=False, timeout=60).strip() == "up":
                    return
            except subprocess.TimeoutExpired as exc:
                last = str(exc)
            time.sleep(3)
        raise AssertionError(f"no SSH after {deadline_s:.0f} s ({last}); console:\n{self.tail()}")

    def screen_text(self) -> str:
        """What the first console (tty1, the Pi's HDMI screen) shows, as text: the glyphs
        outside ASCII (the QR code's blocks) as dots."""
        return self.ssh("sudo cat /dev/vcs1 | LC_ALL=C tr -c ' -~' '.'")

    def host_keys(self) -> str:
        done = subprocess.run(["ssh-keyscan", "-p", str(self.ssh_port), "-T", "30", "127.0.0.1"],
                              capture_output=True, text=True, timeout=120)
        return "\n".join(sorted(l for l in done.stdout.splitlines() if not l.startswith("#")))

    def monitor_command(self, command: str) -> str:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(self.monitor))
            s.settimeout(30)
            s.sendall(command.encode() + b"\n")
            time.sleep(2)
            try:
                return s.recv(65536).decode(errors="replace")
            except socket.timeout:
                return ""

    def screenshot(self, target: Path) -> Path | None:
        """The Pi's screen (the virtio GPU) as a PNG, for a person to look at."""
        ppm = target.with_suffix(".ppm")
        self.monitor_command(f"screendump {ppm}")
        for _ in range(20):
            if ppm.exists() and ppm.stat().st_size > 0:
                break
            time.sleep(0.5)
        if not ppm.exists():
            return None
        ppm_to_png(ppm, target)
        ppm.unlink()
        return target

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.alive():
            try:
                self.monitor_command("quit")
            except OSError:
                pass
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def ppm_to_png(ppm: Path, png: Path) -> None:
    """QEMU's screendump (binary PPM) as a PNG (zlib and struct: no imaging library)."""
    import struct
    import zlib
    data = ppm.read_bytes()
    fields = data.split(maxsplit=4)                  # P6, width, height, maxval, pixels
    assert fields[0] == b"P6", "not a binary PPM"
    width, height = int(fields[1]), int(fields[2])
    pixels = fields[4][:width * height * 3]
    rows = b"".join(b"\0" + pixels[y * width * 3:(y + 1) * width * 3] for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def mdns_query(port: int, name: str, qtype: int = 12, timeout: float = 10) -> list[str]:
    """A one-shot (legacy unicast, RFC 6762 5.1) mDNS query to ``127.0.0.1:port``; the
    names in the answer's records, lowercase. 12 = PTR. (Run inside the guest: QEMU's
    user network carries no multicast, and its UDP forward to port 5353 loses avahi's
    answers.)"""
    qid = os.getpid() & 0xFFFF
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split(".")) + b"\0"
    packet = qid.to_bytes(2, "big") + b"\0\0\0\1\0\0\0\0\0\0" + labels + qtype.to_bytes(2, "big") + b"\0\1"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(packet, ("127.0.0.1", port))
        data, _ = s.recvfrom(9000)
    return [n.lower() for n in _names(data)]


def _names(data: bytes) -> list[str]:
    """Every domain name in a DNS message (question, answers and their PTR/SRV targets)."""
    def read(pos: int, depth: int = 0) -> tuple[str, int]:
        parts, jumped, end = [], False, pos
        while depth < 20:
            length = data[pos]
            if length == 0:
                pos += 1
                break
            if length & 0xC0 == 0xC0:
                pointer = ((length & 0x3F) << 8) | data[pos + 1]
                if not jumped:
                    end = pos + 2
                jumped = True
                pos = pointer
                depth += 1
                continue
            parts.append(data[pos + 1:pos + 1 + length].decode(errors="replace"))
            pos += 1 + length
        return ".".join(parts), (end if jumped else pos)

    qd, an, ns, ar = (int.from_bytes(data[i:i + 2], "big") for i in (4, 6, 8, 10))
    pos, names = 12, []
    for _ in range(qd):
        n, pos = read(pos)
        names.append(n)
        pos += 4
    for _ in range(an + ns + ar):
        n, pos = read(pos)
        names.append(n)
        rtype = int.from_bytes(data[pos:pos + 2], "big")
        rdlen = int.from_bytes(data[pos + 8:pos + 10], "big")
        rdata = pos + 10
        if rtype == 12:                 # PTR: its target
            names.append(read(rdata)[0])
        elif rtype == 33:               # SRV: port, then the host
            names.append(f"port={int.from_bytes(data[rdata + 4:rdata + 6], 'big')}")
            names.append(read(rdata + 6)[0])
        pos = rdata + rdlen
    return names


def wait_until(what: str, check, deadline_s: float = 600, every: float = 3.0):
    """Poll ``check()`` until it returns something true; that value."""
    start = time.monotonic()
    last = None
    while time.monotonic() - start < deadline_s:
        try:
            last = check()
        except (OSError, AssertionError, ValueError, http.client.HTTPException,
                subprocess.TimeoutExpired) as exc:
            last = exc
        else:
            if last:
                return last
        time.sleep(every)
    raise AssertionError(f"{what}: not within {deadline_s:.0f} s (last: {last!r})")


def grep(pattern: str, text: str) -> str | None:
    found = re.search(pattern, text, re.M)
    return found.group(0) if found else None
