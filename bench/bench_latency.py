"""Latency from a mock-pin beam edge to the drop arriving at SSE clients.

The daemon runs in this process on simulated devices (gpiozero MockFactory pins);
the SSE clients run in a separate process (one selector, raw sockets) so they do not
compete for this process's GIL. Both sides read CLOCK_MONOTONIC, so times compare.
Baseline: a bare Flask SSE echo on waitress's defaults, measured the same way in the same
run (bench/bench_table.py has the whole table of issue 16).
Prints median and 99th percentile for 1 and 16 clients. No thresholds.
"""
from __future__ import annotations

import multiprocessing as mp
import queue
import re
import selectors
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DROPS = 120
# Every event's "id:" line follows a newline; a literal "\n" first lets the regex engine
# jump to it ("(?:^|\n)" tried every byte: ~50 us per 5 KB message, counted against the
# later streams' arrival times).
ID_RE = re.compile(rb"\nid: ?(\d+)\n")


def client_process(port: int, path: str, n: int, ready, results, stop) -> None:
    """Open ``n`` SSE streams; record (client, event id, arrival time) for every event."""
    sel = selectors.DefaultSelector()
    buffers = {}
    for i in range(n):
        # four streams per address, as a table allows one device (127.0.0.x: all this machine)
        s = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.0.{2 + i // 4}", 0))
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, i)
        buffers[i] = b""
    seen = []
    ready.set()
    while not stop.is_set():
        for key, _ in sel.select(timeout=0.2):
            now = time.perf_counter()
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            buf = buffers[key.data] + chunk
            last_end = 0
            for m in ID_RE.finditer(buf):
                seen.append((key.data, int(m.group(1)), now))
                last_end = m.end()
            buffers[key.data] = buf[max(last_end, len(buf) - 64):]
    results.put(seen)


def measure(port: int, path: str, clients: int, trigger) -> list[float]:
    """Run ``trigger()`` DROPS times; it returns (event id, t0). Latencies in ms."""
    ctx = mp.get_context("fork")
    ready, stop, results = ctx.Event(), ctx.Event(), ctx.Queue()
    proc = ctx.Process(target=client_process, args=(port, path, clients, ready, results, stop))
    proc.start()
    ready.wait(10)
    time.sleep(0.5)                       # let every stream receive its first event
    sent = []                             # (event id, t0) in order; ids repeat across games
    for _ in range(DROPS):
        sent.append(trigger())
        time.sleep(0.01)
    time.sleep(0.5)
    stop.set()
    seen = results.get(timeout=30)
    proc.join(10)
    lat = []
    for client in range(clients):
        events = [(eid, t) for c, eid, t in seen if c == client]
        j = 0
        for eid, t0 in sent:              # match each drop to the next event with its id
            while j < len(events) and not (events[j][0] == eid and events[j][1] >= t0):
                j += 1
            if j < len(events):
                lat.append((events[j][1] - t0) * 1000)
                j += 1
    missing = clients * DROPS - len(lat)
    if missing:
        print(f"    ({missing} of {clients * DROPS} events not received)")
    return lat


def report(label: str, lat: list[float]) -> None:
    lat = sorted(lat)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"  {label:<44} median {statistics.median(lat):6.2f} ms   p99 {p99:6.2f} ms   (n={len(lat)})")


# --- potionpi: beam edge on a mock pin → drop action → table → SSE -------------------
def potionpi_runs() -> dict[int, list[float]]:
    from controller.config import Config
    from controller.daemon import Daemon

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        d = Daemon(Config.defaults(), sim=True, data_dir=tmp, say=lambda *_: None)
        port = d.start("127.0.0.1", 0)
        sim = d.devices.cauldron
        table = d.table

        def trigger():
            s = table.session()
            if s is None or s["state"]["phase"] != "fill_bowls":
                table.start("mirakel-mix", ["Ann", "Ben", "Cas", "Dee"], seed=len(out) + 1)
            target = table.version + 1
            t0 = time.perf_counter()
            sim.drop()                    # drives the beam mock pin: dark edge, then light edge
            assert table.version == target
            return target, t0

        try:
            for clients in (1, 16):
                table.start("mirakel-mix", ["Ann", "Ben", "Cas", "Dee"], seed=99)
                out[clients] = measure(port, "/api/v1/stream", clients, trigger)
        finally:
            d.close()
    return out


# --- baseline: a bare Flask SSE echo on waitress --------------------------------------
def baseline_runs() -> dict[int, list[float]]:
    from flask import Flask, Response
    from waitress import create_server
    from waitress.wasyncore import close_all

    app = Flask("echo")
    subscribers: list[queue.Queue] = []
    lock = threading.Lock()
    counter = [0]

    @app.get("/stream")
    def stream():
        q: queue.Queue = queue.Queue()
        with lock:
            subscribers.append(q)

        def gen():
            yield f"id: {counter[0]}\ndata: hello\n\n"
            while True:
                try:
                    n = q.get(timeout=1)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if n is None:
                    return
                yield f"id: {n}\ndata: {{\"drop\": \"red\"}}\n\n"
        return Response(gen(), mimetype="text/event-stream")

    # an honest baseline: waitress's defaults, not potionpi's make_server (only threads
    # raised: each stream holds one)
    server = create_server(app, host="127.0.0.1", port=0, threads=32)
    threading.Thread(target=server.run, daemon=True).start()

    def trigger():
        counter[0] += 1
        t0 = time.perf_counter()
        with lock:
            for q in subscribers:
                q.put(counter[0])
        return counter[0], t0

    out = {}
    try:
        for clients in (1, 16):
            out[clients] = measure(int(server.effective_port), "/stream", clients, trigger)
            with lock:
                for q in subscribers:
                    q.put(None)
                subscribers.clear()
    finally:
        server.task_dispatcher.shutdown(timeout=5)
        close_all(server._map)
    return out


def main() -> None:
    print(f"beam edge → drop at SSE clients ({DROPS} drops per run)")
    base = baseline_runs()
    ours = potionpi_runs()
    for clients in (1, 16):
        report(f"bare Flask SSE echo, {clients:>2} client(s)", base[clients])
        report(f"potionpi mock beam → tablet, {clients:>2} client(s)", ours[clients])


if __name__ == "__main__":
    main()
