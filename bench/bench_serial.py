"""Command round trip to the simulated Pico over a real pseudo-terminal: median and p99.

Runs the firmware's own logic (firmware/*.py) behind a pty and the host's PicoLink
in front of it, exactly the path `potionpi run --sim-mcu` uses. Prints figures; it
asserts nothing. The pty adds far less than USB full-speed polling (1 ms frames)
does on a real Pico, so treat these as the software's share of the latency.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.firmware import floorproto as P  # noqa: E402
from controller.devices.pico_link import LinkTimings, PicoLink  # noqa: E402
from controller.devices.sim_pico import Faults, SimPico  # noqa: E402

COUNT = 2000


def percentile(sorted_ms, q):
    return sorted_ms[min(len(sorted_ms) - 1, int(len(sorted_ms) * q))]


def run(label, faults, pipelined):
    sim = SimPico(steps_per_rev=160, faults=faults)
    link = PicoLink(sim.port, timings=LinkTimings(heartbeat_s=10, lost_after_s=30)).start()
    try:
        deadline = time.monotonic() + 5
        while link.state != "connected" and time.monotonic() < deadline:
            time.sleep(0.005)
        for _ in range(50):                       # warm up
            link.request(P.PING)
        started = time.perf_counter()
        if pipelined:
            pendings = [link.submit(P.PING) for _ in range(COUNT)]
            for p in pendings:
                p.wait(30)
            rtts = []
        else:
            rtts = []
            for _ in range(COUNT):
                t0 = time.perf_counter()
                link.request(P.PING, timeout=30)
                rtts.append((time.perf_counter() - t0) * 1000)
        elapsed = time.perf_counter() - started
        line = f"{label:<44} {COUNT / elapsed:8.0f} cmd/s"
        if rtts:
            rtts.sort()
            line += (f"   median {statistics.median(rtts):6.3f} ms   p99 {percentile(rtts, 0.99):6.3f} ms"
                     f"   max {rtts[-1]:7.3f} ms")
        line += f"   retransmits {link.retransmits}"
        print(line)
    finally:
        link.close()
        sim.close()


def main():
    print(f"PING round trips over a pty to the simulated Pico, {COUNT} commands each")
    run("one at a time, clean wire", Faults(), pipelined=False)
    run("one at a time, 5 % frames dropped/corrupted", Faults(drop=0.025, corrupt=0.025), pipelined=False)
    run("pipelined (window 4), clean wire", Faults(), pipelined=True)
    run("pipelined (window 4), 5 % dropped/corrupted", Faults(drop=0.025, corrupt=0.025), pipelined=True)


if __name__ == "__main__":
    main()
