"""The rig itself, on a tiny main.py: pulls, driven inputs, a hung CPU and the watchdog.

These prove that what test_pico_emulated.py's jam, watchdog and boot tests need from the rig
works, so a failure there points at the firmware, not at the rig.
"""
from __future__ import annotations

import pytest

from .rig import WALL_NET_S, PicoRig, node_missing_reason

pytestmark = [
    pytest.mark.slow,
    # one worker boots the emulated chips one after another: each boot wants a whole core
    pytest.mark.xdist_group("emulator"),
    pytest.mark.skipif(node_missing_reason() is not None, reason=str(node_missing_reason())),
    pytest.mark.timeout(WALL_NET_S),    # a net only: the waits below count the chip's own time
]

MAIN = b"""
import machine, sys, time
from machine import Pin
up = Pin(22, Pin.IN, Pin.PULL_UP)
down = Pin(21, Pin.IN, Pin.PULL_DOWN)
driven = Pin(20, Pin.IN, Pin.PULL_UP)
print('cause', machine.reset_cause(), 'pins', up.value(), down.value())
wdt = machine.WDT(timeout=400)
n = 0
while True:
    wdt.feed()
    time.sleep_ms(5)
    n += 1
    if n % 40 == 0:
        print('alive', driven.value())
"""


def read_until(rig, ser, marker: bytes, emulated_s: float = 10.0) -> bytes:
    """What the chip printed until ``marker``, given ``emulated_s`` of its own time."""
    seen = bytearray()

    def found() -> bool:
        seen.extend(ser.read(4096))
        return marker in seen
    rig.until(found, emulated_s, f"{marker!r} from the chip (so far {bytes(seen[-300:])!r})")
    return bytes(seen)


def test_pulls_inputs_hang_and_watchdog_reset():
    import serial

    with PicoRig(files=[], extra_files={"main.py": MAIN}) as rig:
        ser = serial.Serial(rig.port, 115200, timeout=0.05)
        try:
            out = read_until(rig, ser, b"alive 1")
            assert b"cause 1 pins 1 0" in out        # power-on; pull-up reads 1, pull-down 0
            rig.set_pin(20, 0)                        # something outside pulls GP20 low
            read_until(rig, ser, b"alive 0")
            assert rig.state()["watchdog_enabled"]

            rig.hang()                                # the CPU stops; the watchdog does not
            st = rig.wait_emulated(1.0)
            assert st["resets"] == ["watchdog"] and not st["hung"]
            read_until(rig, ser, b"cause 3 pins 1 0")      # WDT_RESET, and the pulls again

            rig.reset()                               # a power cycle
            read_until(rig, ser, b"cause 1 pins 1 0")
            assert rig.state()["resets"] == ["watchdog", "host"]
        finally:
            ser.close()
