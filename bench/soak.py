"""A long soak by hand: the daemon for hours with tablets watching and a game being played.

Starts ``potionpi run --sim``, opens ``--streams`` SSE streams (read, as tablets do, plus
``--sleepers`` that never read), plays Mirakel Mix drops from the simulated cauldron every
``--every`` seconds (a new game when one fills up) and prints RSS, USS and CPU time of
the daemon every ``--sample`` seconds. Flat RSS and CPU growing with the actions only are
what a Pi needs for a game night. Not part of ``make bench`` (it runs for hours):

    python bench/soak.py --hours 3 [--streams 8] [--sleepers 4] [--every 2] [--sample 60]
"""
from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.bench_table import cpu_seconds, memory_kib  # noqa: E402
from tests.e2e.daemon_proc import DaemonProcess  # noqa: E402


def reader(port: int, source: str, stop: threading.Event) -> None:
    s = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    s.sendall(b"GET /api/v1/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    s.settimeout(1.0)
    while not stop.is_set():
        try:
            if not s.recv(1 << 16):
                return
        except socket.timeout:
            pass
    s.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--sleepers", type=int, default=4)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between drops")
    parser.add_argument("--sample", type=float, default=60.0, help="seconds between samples")
    args = parser.parse_args()
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as tmp:
        d = DaemonProcess(Path(tmp)).start(timeout=60)
        sleepers = []
        try:
            d.request("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["A", "B", "C", "D"]})
            for i in range(args.streams):
                threading.Thread(target=reader, args=(d.port, f"127.0.0.{2 + i // 4}", stop), daemon=True).start()
            for i in range(args.sleepers):
                s = socket.create_connection(("127.0.0.1", d.port), source_address=(f"127.0.1.{2 + i // 4}", 0))
                s.sendall(b"GET /api/v1/stream HTTP/1.1\r\nHost: x\r\n\r\n")
                sleepers.append(s)
            t0 = next_sample = time.monotonic()
            actions = 0
            print("minutes  actions  RSS MiB  USS MiB  CPU s")
            while time.monotonic() - t0 < args.hours * 3600:
                status, body = d.request("POST", "/api/v1/sim/cauldron/drop", {})
                actions += 1
                if status != 200 or body["session"]["state"]["phase"] != "fill_bowls":
                    d.request("POST", "/api/v1/session", {"game": "mirakel-mix", "players": ["A", "B", "C", "D"]})
                if time.monotonic() >= next_sample:
                    rss, uss = memory_kib(d.proc.pid)
                    print(f"{(time.monotonic() - t0) / 60:7.1f}  {actions:7d}  {rss / 1024:7.1f}  {uss / 1024:7.1f}  "
                          f"{cpu_seconds(d.proc.pid):5.1f}", flush=True)
                    next_sample += args.sample
                time.sleep(args.every)
        finally:
            stop.set()
            for s in sleepers:
                s.close()
            d.terminate()


if __name__ == "__main__":
    main()
