"""Latency from a mock-pin beam edge to the drop arriving at SSE clients.

The daemon runs in this process on simulated devices (gpiozero MockFactory pins);
the SSE clients run in a separate process (one selector, raw sockets) so they do not
compete for this process's GIL. Both sides read CLOCK_MONOTONIC, so times compare.
Baseline: a bare Flask SSE echo on potionpi's own server (web_ui/server.py) sending
messages of the same size as potionpi's session, each encoded once and handed to every
stream through a ``SimpleQueue``, measured the same way in the same run
(bench/bench_table.py has the daemons as subprocesses, with HTTP in the path).
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

DROPS = 80
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
def potionpi_runs() -> tuple[dict[int, list[float]], int]:
    """Latencies per client count, and the size of a session's stream message."""
    from controller.config import Config
    from controller.daemon import Daemon
    from web_ui.stream import session_message

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
            size = len(session_message(table.session()).encode())
        finally:
            d.close()
    return out, size


# --- baseline: a bare Flask SSE echo on potionpi's server, same-size messages ---------
def baseline_runs(message_bytes: int) -> dict[int, list[float]]:
    from flask import Flask, Response

    from web_ui.server import make_server

    app = Flask("echo")
    subscribers: list[queue.SimpleQueue] = []
    lock = threading.Lock()
    counter = [0]
    pad = "x" * max(0, message_bytes - 40)

    def message(n: int) -> str:
        return f'id: {n}\ndata: {{"version": {n}, "pad": "{pad}"}}\n\n'

    @app.get("/stream")
    def stream():
        q: queue.SimpleQueue = queue.SimpleQueue()
        with lock:
            subscribers.append(q)

        def gen():
            yield message(counter[0])
            while True:
                try:
                    text = q.get(timeout=1)
                except queue.Empty:
                    yield ": keep-alive\n\n"
                    continue
                if text is None:
                    return
                yield text
        return Response(gen(), mimetype="text/event-stream")

    server = make_server(app, "127.0.0.1", 0, threads=32)
    threading.Thread(target=server.run, daemon=True).start()

    def trigger():
        counter[0] += 1
        t0 = time.perf_counter()
        text = message(counter[0])             # one encoding, for every stream
        with lock:
            for q in subscribers:
                q.put(text)
        return counter[0], t0

    out = {}
    try:
        for clients in (1, 16):
            out[clients] = measure(server.port, "/stream", clients, trigger)
            with lock:
                for q in subscribers:
                    q.put(None)
                subscribers.clear()
    finally:
        server.close()
    return out


def main() -> None:
    print(f"beam edge → drop at SSE clients ({DROPS} drops per run)")
    ours, size = potionpi_runs()
    base = baseline_runs(size)
    for clients in (1, 16):
        report(f"bare Flask SSE echo, {size} B, {clients:>2} client(s)", base[clients])
        report(f"potionpi mock beam → tablet, {clients:>2} client(s)", ours[clients])


if __name__ == "__main__":
    main()
