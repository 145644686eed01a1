"""The table of issue 16: potionpi beside a bare Flask + waitress app, measured the same way.

Both run as subprocesses pinned to one core (``taskset``, if there is a second core the
clients run on the other). Medians. No thresholds: figures and ratios to the bare app.

* start to first 200 — from ``exec`` until ``GET /healthz`` (bare: ``GET /``) answers;
* idle RSS / USS — after start-up, from /proc/<pid>/smaps_rollup;
* idle CPU — CPU ticks used in ``--seconds`` (default 60) with 2 open streams;
* drop -> client p50/p99 at 1/16/64 clients — from sending the drop (potionpi: the
  simulated cauldron's ``POST /api/v1/sim/cauldron/drop``; bare: ``POST /drop``) until
  each client's SSE stream has the new version (clients spread over 127.0.0.x
  addresses, as tablets on the Wi-Fi have their own);
* daemon CPU per drop — the server's CPU ticks over the 16-client run / drops.

The bare app (bench/bare_app.py) is waitress's defaults but ``threads`` (72: each SSE
stream holds a thread). OctoPrint is measured if ``octoprint`` is on the PATH.

    python bench/bench_table.py [--seconds 60] [--drops 60] [--runs 3] [--root CHECKOUT]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PIN = "2468"
# Every event's "id:" line follows a newline (the chunk-size line's CRLF, or the previous
# line). A literal "\n" first lets the regex engine jump to it: "(?:^|\n)" made it try every
# byte, ~50 us per 5 KB session in the one client process, which counted towards the
# later streams' arrival times (16 streams: ~0.8 ms) and so grew with the message size.
ID_RE = re.compile(rb"\nid: ?(\d+)\n")
CLIENTS = (1, 16, 64)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cmd: list[str]) -> list[str]:
    return ["taskset", "-c", "0", *cmd] if shutil.which("taskset") and os.cpu_count() and os.cpu_count() > 1 else cmd


class Server:
    """One server under test as a subprocess."""

    def __init__(self, name: str, cmd: list[str], port: int, ready_path: str, stream_path: str,
                 drop_path: str, headers: dict[str, str], env: dict[str, str] | None = None,
                 cwd: Path = ROOT):
        self.name, self.cmd, self.port, self.cwd = name, cmd, port, cwd
        self.ready_path, self.stream_path, self.drop_path = ready_path, stream_path, drop_path
        self.headers, self.env = headers, env
        self.proc: subprocess.Popen | None = None

    def start(self) -> float:
        """Start; seconds until the first 200."""
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(pinned(self.cmd), env=self.env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, cwd=self.cwd)
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"{self.name} exited at start-up")
            try:
                with urllib.request.urlopen(self.url(self.ready_path), timeout=5) as r:
                    if r.status == 200:
                        return time.perf_counter() - t0
            except OSError:
                time.sleep(0.01)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def post(self, path: str, body: dict | None = None) -> dict:
        req = urllib.request.Request(self.url(path), data=json.dumps(body or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **self.headers})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, USS) in KiB from smaps_rollup."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        fields[key] = int(value.split()[0])
    return fields["Rss"], fields["Private_Clean"] + fields["Private_Dirty"]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- SSE clients in their own process (no GIL shared with the bench) ---------------------
def client_process(port: int, path: str, n: int, ready, results, stop) -> None:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, set(range(1, os.cpu_count() or 2)))
    sel = selectors.DefaultSelector()
    buffers = {}
    for i in range(n):
        # four streams per address: a tablet's own limit; 127.0.0.x are all this machine
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
                chunk = key.fileobj.recv(1 << 20)
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


class Clients:
    def __init__(self, server: Server, n: int):
        ctx = mp.get_context("fork")
        self.ready, self.stop, self.results = ctx.Event(), ctx.Event(), ctx.Queue()
        self.n = n
        self.proc = ctx.Process(target=client_process,
                                args=(server.port, server.stream_path, n, self.ready, self.results, self.stop))

    def __enter__(self) -> "Clients":
        self.proc.start()
        self.ready.wait(30)
        time.sleep(0.5)
        return self

    def finish(self) -> list:
        self.stop.set()
        seen = self.results.get(timeout=60)
        self.proc.join(10)
        return seen

    def __exit__(self, *exc) -> None:
        if self.proc.is_alive():
            self.stop.set()
            self.proc.join(10)


def latencies(server: Server, clients: int, drops: int, new_game) -> tuple[list[float], float]:
    """Latencies (ms) of ``drops`` drops to ``clients`` streams; server CPU s per drop."""
    time.sleep(1.0)              # the last run's clients have hung up and the server saw it
    new_game()
    with Clients(server, clients) as c:
        sent = []
        cpu0 = cpu_seconds(server.pid)
        for _ in range(drops):
            t0 = time.perf_counter()
            session = server.post(server.drop_path)["session"]
            sent.append((session["version"], t0))
            if session["state"].get("phase") != "fill_bowls":
                new_game()
            time.sleep(0.02)
        time.sleep(0.5)
        cpu = (cpu_seconds(server.pid) - cpu0) / drops
        seen = c.finish()
    lat = []
    for client in range(clients):
        events = [(eid, t) for cl, eid, t in seen if cl == client]
        j = 0
        for eid, t0 in sent:
            while j < len(events) and not (events[j][0] == eid and events[j][1] >= t0):
                j += 1
            if j < len(events):
                lat.append((events[j][1] - t0) * 1000)
                j += 1
    return lat, cpu


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def measure(make, runs: int, seconds: float, drops: int) -> dict:
    out: dict = {"start": [], "rss": [], "uss": []}
    for _ in range(runs):
        server = make()
        try:
            out["start"].append(server.start())
            time.sleep(2.0)
            rss, uss = memory_kib(server.pid)
            out["rss"].append(rss)
            out["uss"].append(uss)
        finally:
            server.stop()
    server = make()
    try:
        server.start()
        new_game = getattr(server, "new_game", lambda: None)
        new_game()
        with Clients(server, 2):
            time.sleep(1.0)
            cpu0 = cpu_seconds(server.pid)
            time.sleep(seconds)
            out["idle_cpu"] = cpu_seconds(server.pid) - cpu0
        for n in CLIENTS:
            lat, cpu = latencies(server, n, drops, new_game)
            out[f"p50_{n}"], out[f"p99_{n}"] = pct(lat, 0.5), pct(lat, 0.99)
            out[f"missed_{n}"] = n * drops - len(lat)
            if n == 16:
                out["cpu_per_drop"] = cpu
    finally:
        server.stop()
    return out


def potionpi(data_dir: str, root: Path = ROOT):
    def make() -> Server:
        port = free_port()
        env = dict(os.environ, POTIONPI_PIN=PIN, PYTHONPATH=str(root))
        server = Server("potionpi", [sys.executable, "-m", "controller.cli", "run", "--sim", "--host",
                                     "127.0.0.1", "--port", str(port), "--data-dir", tempfile.mkdtemp(dir=data_dir)],
                        port, "/healthz", "/api/v1/stream", "/api/v1/sim/cauldron/drop", {"X-Table-Pin": PIN}, env,
                        cwd=root)
        server.new_game = lambda: server.post(  # type: ignore[attr-defined]
            "/api/v1/session", {"game": "mirakel-mix", "players": ["Ann", "Ben", "Cas", "Dee"], "seed": 1})
        return server
    return make


def bare():
    def make() -> Server:
        port = free_port()
        return Server("bare", [sys.executable, str(ROOT / "bench" / "bare_app.py"), str(port), "72"],
                      port, "/", "/stream", "/drop", {})
    return make


def row(label: str, ours: str, base: str, ratio: float | None) -> None:
    r = "" if ratio is None else f"{ratio:5.2f}x"
    print(f"| {label:<34} | {ours:>18} | {base:>18} | {r:>7} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="idle CPU window (default 60)")
    parser.add_argument("--drops", type=int, default=60, help="drops per latency run (default 60)")
    parser.add_argument("--runs", type=int, default=3, help="start-ups measured (default 3)")
    parser.add_argument("--data-root", default=None,
                        help="where potionpi's database goes (e.g. /dev/shm: leave the disk's fsync out)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="potionpi checkout to measure (e.g. an older one, for before/after)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.data_root) as tmp:
        ours = measure(potionpi(tmp, args.root.resolve()), args.runs, args.seconds, args.drops)
    base = measure(bare(), args.runs, args.seconds, args.drops)
    med = statistics.median
    print(f"potionpi ({args.root.resolve()}) vs a bare Flask + waitress app, pinned to one core; medians "
          f"(idle window {args.seconds:.0f} s, {args.drops} drops per run; "
          f"database in {args.data_root or tempfile.gettempdir()})")
    print("| measure                            |           potionpi |         bare Flask |   ratio |")
    print("|---|---|---|---|")
    row("start to first 200", f"{med(ours['start']):.2f} s", f"{med(base['start']):.2f} s",
        med(ours["start"]) / med(base["start"]))
    row("idle RSS / USS", f"{med(ours['rss']) / 1024:.0f} / {med(ours['uss']) / 1024:.0f} MiB",
        f"{med(base['rss']) / 1024:.0f} / {med(base['uss']) / 1024:.0f} MiB", med(ours["rss"]) / med(base["rss"]))
    row(f"idle CPU, {args.seconds:.0f} s, 2 streams", f"{ours['idle_cpu']:.2f} s", f"{base['idle_cpu']:.2f} s", None)
    for n in CLIENTS:
        missed = f" ({ours[f'missed_{n}']} missed)" if ours[f"missed_{n}"] else ""
        row(f"drop -> client p50 / p99, {n} cl.", f"{ours[f'p50_{n}']:.1f} / {ours[f'p99_{n}']:.1f} ms{missed}",
            f"{base[f'p50_{n}']:.1f} / {base[f'p99_{n}']:.1f} ms", ours[f"p50_{n}"] / base[f"p50_{n}"])
    row("daemon CPU per drop (16 clients)", f"{ours['cpu_per_drop'] * 1000:.1f} ms",
        f"{base['cpu_per_drop'] * 1000:.1f} ms", ours["cpu_per_drop"] / max(base["cpu_per_drop"], 1e-9))
    if shutil.which("octoprint") is None:
        print("(OctoPrint is not installed here: its column is left out)")


if __name__ == "__main__":
    main()
