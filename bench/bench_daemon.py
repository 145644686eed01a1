"""Start-up time of `potionpi run --sim` until /healthz answers, and idle resident memory.

Prints figures; no thresholds. Run with `make bench`.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.e2e.daemon_proc import DaemonProcess  # noqa: E402

RUNS = 5


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def main() -> None:
    startups, rss_idle, rss_game = [], [], []
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            d = DaemonProcess(Path(tmp)).start(timeout=60)
            startups.append(time.perf_counter() - t0)
            time.sleep(1.0)
            rss_idle.append(rss_kib(d.proc.pid))
            d.request("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["A", "B", "C", "D"], "seed": 1})
            for _ in range(12):
                d.request("POST", "/api/v1/sim/cauldron/drop", {})
            time.sleep(0.5)
            rss_game.append(rss_kib(d.proc.pid))
            d.terminate()
    print(f"startup until /healthz answers: median {statistics.median(startups)*1000:.0f} ms, "
          f"min {min(startups)*1000:.0f} ms, max {max(startups)*1000:.0f} ms ({RUNS} runs)")
    print(f"resident memory idle (no game): median {statistics.median(rss_idle)/1024:.1f} MiB")
    print(f"resident memory with a 4-player Mirakel Mix game after set-up: "
          f"median {statistics.median(rss_game)/1024:.1f} MiB")


if __name__ == "__main__":
    main()
