"""A Pi Pico you can run without a Pico: the firmware's own logic behind a pseudo-terminal.

``SimPico`` loads firmware/floor.py, link.py, motion.py and homing.py (the very
files that go onto the Pico), puts a simulated stepper and home sensor under them
and talks through a real pty, so the host opens it with pyserial exactly like
/dev/ttyACM0. Its port is a stable symlink that survives simulated unplugs, as a
udev name would. Faults can be injected while it runs: drop or corrupt frames,
add noise and delay, go silent, unplug and replug, reset, jam or stall the motor,
remove the home mark, jam the floor (``jam()``: the pulses go on, the disc stays).
"""
from __future__ import annotations

import functools
import importlib.resources
import importlib.util
import os
import random
import select
import shutil
import sys
import tempfile
import threading
import time
import tty
import types
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypedDict

from .. import firmware as firmware_package
from ..firmware import floorproto as P

FIRMWARE_LOGIC = ("settings", "motion", "homing", "markwatch", "floor", "link")


def find_firmware_dir() -> Path:
    """The installed firmware (the package ``controller.firmware``), or $POTIONPI_FIRMWARE_DIR."""
    env = os.environ.get("POTIONPI_FIRMWARE_DIR")
    # potionpi installs its firmware as a plain folder of files (a regular package,
    # never zipped), so the package's resource root is a real directory mpremote can read.
    path = Path(env) if env else Path(str(importlib.resources.files(firmware_package)))
    if not (path / "floor.py").is_file():
        raise FileNotFoundError(
            f"firmware directory not found at {path}; reinstall potionpi or set "
            "POTIONPI_FIRMWARE_DIR to a folder holding the firmware's .py files")
    return path


@functools.lru_cache(maxsize=None)
def load_firmware_logic(firmware_dir: str | None = None) -> types.SimpleNamespace:
    """Import the firmware's pure modules on CPython without leaving bare names behind.

    On the Pico the modules import each other by bare name (``import floorproto``);
    here those names point at our modules only while the files execute.
    """
    directory = Path(firmware_dir) if firmware_dir else find_firmware_dir()
    names = FIRMWARE_LOGIC + ("floorproto",)
    saved = {name: sys.modules.get(name) for name in names}
    ns = types.SimpleNamespace(floorproto=P, directory=directory)
    try:
        sys.modules["floorproto"] = P
        for name in FIRMWARE_LOGIC:
            path = directory / f"{name}.py"
            spec = importlib.util.spec_from_file_location(f"potionpi_firmware.{name}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load the firmware module {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            setattr(ns, name, module)
    finally:
        for name, before in saved.items():
            if before is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = before
    return ns


class PhysicalFloor:
    """The wooden disc: where it really is, and where its home magnet sits."""

    def __init__(self, steps_per_rev: int, home_offset: int = 0, home_width: int = 3,
                 start: int = 0):
        self.steps_per_rev = steps_per_rev
        self.home_offset = home_offset
        self.home_width = home_width
        self.steps = start            # unwrapped, positive = clockwise
        self.magnet = True            # False: the home mark fell off
        self.jammed = False           # True: pulses go out, the disc does not turn (a jam)
        self.stall_signal = False     # True: the driver's DIAG output is raised
        self.pulses = 0               # every step pulse the motor was given, across boots
        # called once per pulse (the sim's thread): a test judges whether it was asked for
        self.on_pulse: Callable[[], None] | None = None

    def pulse(self, forward: bool) -> None:
        """One step pulse reaches the motor (a jammed disc stays put)."""
        self.pulses += 1
        if not self.jammed:
            self.steps += 1 if forward else -1
        if self.on_pulse is not None:
            self.on_pulse()

    def home_active(self) -> bool:
        return self.magnet and (self.steps - self.home_offset) % self.steps_per_rev < self.home_width

    def angle_steps(self) -> int:
        """Steps clockwise from the home mark, 0 .. steps_per_rev-1."""
        return (self.steps - self.home_offset) % self.steps_per_rev


class SimStepper:
    """The stepper port of firmware/floor.py, making steps on time like the PIO does."""

    FIFO_DEPTH = 8

    def __init__(self, physical: PhysicalFloor, clock: Callable[[], float] = time.monotonic):
        self.physical = physical
        self.clock = clock
        self.fifo: deque[int] = deque()
        self.next_due = 0.0
        self.forward = True
        self.enabled = False
        self.pulses = 0
        self.frozen = False           # True: nothing takes the pulses (a hung PIO)
        self._counted = 0             # pulses since count_from_zero()
        self._edges: deque[int] = deque()   # the sensor's edges, as the Pico's interrupt notes them
        self._armed = False           # homing: end the pulses on the mark's edge
        self._stopped = False

    def update(self) -> None:
        now = self.clock()
        while self.fifo and now >= self.next_due and not self._stopped:
            if self.frozen:
                return
            interval = self.fifo.popleft()
            before = self.physical.home_active()
            self.physical.pulse(self.forward)      # jammed: the pulse goes out, the disc stays
            self.pulses += 1
            self._counted += 1
            self.next_due += interval / 1e6
            after = self.physical.home_active()
            if after != before:
                # the sensor's edge: the Pico's hard interrupt notes it, and stops the PIO
                self._edges.append(self._counted * 2 + (1 if after else 0))
                if after and self._armed:
                    self._armed = False
                    self._stopped = True

    def room(self) -> int:
        return self.FIFO_DEPTH - len(self.fifo)

    def queue(self, interval_us: int) -> None:
        if not self.fifo:
            self.next_due = max(self.next_due, self.clock())
        self.fifo.append(interval_us)

    def in_flight(self) -> int:
        return len(self.fifo)

    def busy(self) -> bool:
        return bool(self.fifo)

    def abort(self) -> int:
        dropped = len(self.fifo)
        self.fifo.clear()
        self._stopped = False
        return dropped

    def count_from_zero(self) -> None:
        self._counted = 0

    def next_edge(self) -> int:
        return self._edges.popleft() if self._edges else -1

    def stop_at_mark(self, on: bool) -> None:
        self._stopped = False
        self._armed = on

    def stopped_at_mark(self) -> bool:
        return self._stopped

    def set_direction(self, forward: bool) -> None:
        self.forward = forward

    def enable(self, on: bool) -> None:
        self.enabled = on

    def home_active(self) -> bool:
        return self.physical.home_active()

    def stall_active(self) -> bool:
        return self.physical.stall_signal


@dataclass
class Faults:
    """What goes wrong on the wire. Rates are chances per frame, per direction."""

    drop: float = 0.0        # the frame vanishes
    drop_byte: float = 0.0   # one byte of the frame vanishes
    corrupt: float = 0.0     # one bit of the frame flips
    noise: float = 0.0       # random garbage bytes appear on the line before the frame
    delay_s: float = 0.0     # every reply arrives this much later
    silent: bool = False     # the firmware hangs: reads nothing, says nothing
    seed: int = 1


class FrameMangler:
    """Applies drop/corrupt/noise to the frames of one direction of the byte stream."""

    def __init__(self, faults: Faults, rng: random.Random):
        self.faults = faults
        self.rng = rng
        self._partial = bytearray()
        self.dropped = self.corrupted = self.bytes_dropped = 0

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        for b in data:
            if b != 0:
                self._partial.append(b)
                continue
            if self._partial:
                out += self._mangle(bytes(self._partial))
                self._partial = bytearray()
            out.append(0)
        return bytes(out)

    def _mangle(self, body: bytes) -> bytes:
        f, rng = self.faults, self.rng
        noise = b""
        if f.noise and rng.random() < f.noise:
            # Garbage on the line between two frames; the frame's own delimiter ends it.
            noise = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 12))) + b"\x00"
        if f.drop and rng.random() < f.drop:
            self.dropped += 1
            return noise
        if f.drop_byte and rng.random() < f.drop_byte:
            self.bytes_dropped += 1
            i = rng.randrange(len(body))
            body = body[:i] + body[i + 1:]
        if f.corrupt and rng.random() < f.corrupt:
            self.corrupted += 1
            flipped = bytearray(body)
            i = rng.randrange(len(flipped))
            flipped[i] ^= 1 << rng.randrange(8)
            body = bytes(flipped)
        return noise + body


class SimPico:
    """The simulated Pico. ``port`` is the path to open; ``close()`` ends it."""

    def __init__(self, *, steps_per_rev: int = 3200, faults: Faults | None = None,
                 protocol: int = P.PROTOCOL_VERSION, firmware_version: str | None = None,
                 home_offset: int = 0, start: int | None = None, directory: str | None = None):
        self.fw = load_firmware_logic()
        self.faults = faults or Faults()
        self.protocol = protocol
        self.firmware_version = firmware_version or self.fw.settings.FIRMWARE_VERSION + "-sim"
        rng = random.Random(self.faults.seed)
        self.physical = PhysicalFloor(steps_per_rev, home_offset=home_offset,
                                      start=rng.randrange(steps_per_rev) if start is None else start)
        self._rng = rng
        self._inbound = FrameMangler(self.faults, random.Random(self.faults.seed + 1))
        self._outbound = FrameMangler(self.faults, random.Random(self.faults.seed + 2))
        self._dir = Path(directory or tempfile.mkdtemp(prefix="potionpi-pico-"))
        self.port = str(self._dir / "ttyPICO")
        self.journal: list[tuple[int, int, bytes]] = []   # (boot, type, payload) of every command run
        self.boots = 0
        self.homings = 0
        self.last_write_at = 0.0            # monotonic time the host was last sent anything
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._pending: deque[tuple[float, bytes]] = deque()
        self._closed = False
        self._boot()
        self._plug()
        self._thread = threading.Thread(target=self._run, name="sim-pico", daemon=True)
        self._thread.start()

    # --- fault controls ---------------------------------------------------------
    def go_silent(self) -> None:
        self.faults.silent = True

    def resume(self) -> None:
        self.faults.silent = False

    def jam(self, on: bool = True) -> None:
        """The floor sticks: the pulses go out, the disc does not turn (the Pico's jam
        watch reports it as fault ``jam`` once a move should pass the home mark)."""
        self.physical.jammed = on

    def bump(self, steps: int) -> None:
        """The disc is knocked ``steps`` on (clockwise positive) behind the motor's back, as a
        hand or a tree caught under the board would; the home sensor sees what passes."""
        with self._lock:
            one = 1 if steps > 0 else -1
            for _ in range(abs(steps)):
                before = self.physical.home_active()
                self.physical.steps += one
                after = self.physical.home_active()
                if after != before:
                    self.stepper._edges.append(self.stepper._counted * 2 + (1 if after else 0))

    def freeze_pulses(self, on: bool = True) -> None:
        """Nothing takes the step pulses (a hung PIO): the move overruns its time."""
        self.stepper.frozen = on

    def unplug(self, power_loss: bool = True) -> None:
        """Pull the USB cable. With ``power_loss`` the Pico loses power and forgets everything;
        without (the Pico powered from the motor supply) it runs on and finishes its move."""
        with self._lock:
            self._unplug_fds()
            if power_loss:
                self.stepper.abort()
                self.stepper.enable(False)
                self._powered = False

    def replug(self) -> None:
        with self._lock:
            if not self._powered:
                self._boot()
            self._plug()

    def reset(self) -> None:
        """The Pico reboots (watchdog, brown-out) while the cable stays in."""
        with self._lock:
            self.stepper.abort()
            self._boot()

    def close(self) -> None:
        self._closed = True
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=2)
        with self._lock:
            self._unplug_fds()
        shutil.rmtree(self._dir, ignore_errors=True)

    # --- what tests look at -------------------------------------------------------
    def floor_ants(self, steps_per_ant: int) -> float:
        """Where the disc really is, in ants clockwise from the home mark."""
        return self.physical.angle_steps() / steps_per_ant

    def executed(self, mtype: int) -> list[bytes]:
        return [payload for _, t, payload in self.journal if t == mtype]

    @property
    def wire_faults(self) -> dict[str, int]:
        both = (self._inbound, self._outbound)
        return {"dropped": sum(m.dropped for m in both), "corrupted": sum(m.corrupted for m in both),
                "bytes_dropped": sum(m.bytes_dropped for m in both)}

    # --- inside -------------------------------------------------------------------
    def _boot(self) -> None:
        self.boots += 1
        boot = self.boots
        self.stepper = SimStepper(self.physical)
        s = self.fw.settings
        self.floor = self.fw.floor.Floor(
            self.stepper, lambda: int(time.monotonic() * 1000), steps_per_rev=s.STEPS_PER_REV,
            top_speed=s.TOP_SPEED, acceleration=s.ACCELERATION, home_speed=s.HOME_SPEED,
            max_move=s.MAX_MOVE)
        self.link = self.fw.link.Link(self.floor, self._rng.randrange(65536),
                                      self.firmware_version, protocol=self.protocol)

        def journal(mtype: int, payload: bytes) -> None:
            self.journal.append((boot, mtype, payload))
            if mtype == P.HOME:
                self.homings += 1
        self.link.on_execute = journal
        self._powered = True

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        link = str(self._dir / f"ttyPICO.{master}")
        os.symlink(os.ttyname(slave), link)
        os.replace(link, self.port)
        self._master, self._slave = master, slave

    def _unplug_fds(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self._pending.clear()
        try:
            os.unlink(self.port)
        except FileNotFoundError:
            pass

    def _run(self) -> None:
        while not self._closed:
            with self._lock:
                master = self._master
                if master is None and self._powered and not self.faults.silent:
                    # no cable, but powered: the firmware's loop goes on, the move finishes
                    self.floor.service()
                    self.stepper.update()
                    self.floor.service()
            if master is None:
                time.sleep(0.0005)
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.0005)
            except (OSError, ValueError):
                continue
            with self._lock:
                if master != self._master:
                    continue
                try:
                    self._step(master, bool(ready))
                except OSError:
                    pass     # host end closed under us; keep running until replug

    def _step(self, master: int, readable: bool) -> None:
        data = b""
        if readable:
            try:
                data = os.read(master, 4096)
            except BlockingIOError:
                data = b""
        if self.faults.silent:
            return
        out = bytearray()
        if data:
            for reply in self.link.feed(self._inbound.feed(data)):
                out += reply
        self.floor.service()
        self.stepper.update()
        self.floor.service()
        event = self.link.event()
        if event:
            out += event
        if out:
            self._pending.append((time.monotonic() + self.faults.delay_s, bytes(out)))
        now = time.monotonic()
        while self._pending and self._pending[0][0] <= now:
            os.write(master, self._outbound.feed(self._pending.popleft()[1]))
            self.last_write_at = time.monotonic()


class FaultSettings(TypedDict, total=False):
    """Faults as a plain dict (a config section or a test's literal); see Faults."""

    drop: float
    drop_byte: float
    corrupt: float
    noise: float
    delay_s: float
    silent: bool
    seed: int


def start_sim_pico(faults: Faults | FaultSettings | None = None, *, steps_per_rev: int = 3200,
                   start: int | None = None) -> tuple[str, SimPico]:
    """A simulated Pico for `potionpi run --sim-mcu`: (port path, handle with close()).

    Pass ``steps_per_rev=ants_around * steps_per_ant`` so the simulated disc matches
    the config; ``faults`` is a Faults or a dict of its fields.
    """
    if isinstance(faults, dict):
        faults = Faults(**faults)
    # Just short of the home mark, so the first homing (the first turn's) takes a moment, not a turn.
    if start is None:
        start = steps_per_rev - max(1, steps_per_rev // 64)
    sim = SimPico(faults=faults, steps_per_rev=steps_per_rev, start=start)
    return sim.port, sim
