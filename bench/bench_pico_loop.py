"""The forest-floor firmware's main-loop pass on the genuine MicroPython, emulated RP2040.

Boots tests/emulator's rig with a main.py that builds the real firmware parts
(hal.PioStepper, floor.Floor) from the .mpy files `potionpi firmware flash` makes,
homes on the rotor model and makes a move, timing every `floor.service()` pass with
`time.ticks_us()` in *emulated* time (rp2040js runs the CPU at its nominal 125 MHz
clock in emulated time, so these are the chip's own figures, not the host's). Prints
figures; asserts nothing. Compare the worst pass with the watchdog's 350 ms and with
the step FIFO's 8 steps (10 ms at 800 steps/s). Needs node (skips and says so without).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.emulator.rig import PicoRig, node_missing_reason  # noqa: E402

MAIN = b"""
import time, hal, settings as S
from floor import Floor
st = hal.PioStepper()
f = Floor(st, time.ticks_ms, time.ticks_diff, steps_per_rev=400, top_speed=2000,
          acceleration=8000, home_speed=1000, max_move=800)

def timed(label):
    times = []
    t0 = time.ticks_us()
    while f.state in (1, 2):
        t = time.ticks_us()
        f.service()
        times.append(time.ticks_diff(time.ticks_us(), t))
    total = time.ticks_diff(time.ticks_us(), t0)
    times.sort()
    print('RESULT', label, len(times), times[len(times) // 2], times[len(times) * 99 // 100],
          times[-1], total, f.position(), f.fault)

f.home(); timed('homing')
f.move_to(300); timed('move')
print('END')
"""


def main() -> int:
    reason = node_missing_reason()
    if reason:
        print(f"skipped: {reason}")
        return 0
    import serial

    with PicoRig(extra_files={"main.py": MAIN}) as rig:
        rig.rotor(steps_per_rev=400, position=137, mark=0, width=4)
        ser = serial.Serial(rig.port, 115200, timeout=0.2)
        out = b""
        deadline = time.monotonic() + 120
        while b"END" not in out and time.monotonic() < deadline:
            out += ser.read(4096)
        ser.close()
        steps = rig.state()["steps"]
    print("firmware loop on MicroPython 1.28, emulated RP2040 (times in emulated us)")
    for line in out.decode(errors="replace").splitlines():
        if line.startswith("RESULT"):
            _, label, n, median, p99, worst, total, position, fault = line.split()
            print(f"  {label:7s} {n:>5s} passes  median {median:>5s} us  p99 {p99:>5s} us  "
                  f"worst {worst:>6s} us  total {int(total) / 1000:.0f} ms  "
                  f"(position {position}, fault {fault})")
    print(f"  STEP edges on GP2: {steps} (263 homing from 137 past the mark + 300 move)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
