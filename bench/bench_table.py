"""The daemon beside a fair baseline: start-up, idle memory and CPU, drop -> 16 streams.

The baseline is bench/bare_app.py: a bare Flask app served by potionpi's own waitress
server (the same settings, guards and per-stream threads), whose drop makes one message
of the same size as potionpi's session (measured first), encoded once and handed to every
stream through a ``SimpleQueue``. Both run as subprocesses pinned to core 0 (``taskset``),
the SSE clients in one process on the other core; rounds alternate between the two, so a
busy moment of the shared machine hits both. Medians, with the range over the rounds.

* start-up: from ``exec`` until ``GET /healthz`` (bare: ``GET /``) answers, on a database
  that already exists and at the same address (as on a Pi after its first evening); idle
  RSS and PSS half a second later (both are flat from the first 200 on); the CPU time the
  start took (all threads), beside its wall time. Each round starts potionpi, the bare
  app and the bare app reading one button with gpiozero (``bare_app.py --gpio``: how much
  of the difference is gpiozero's), the one that goes first rotating; the rows give the
  load average over the rounds;
* idle CPU: the server's CPU time (all threads, /proc schedstat) over ``--idle`` seconds
  with no stream and with 16 open streams;
* drop -> 16 streams: from sending the drop (potionpi: ``POST /api/v1/sim/cauldron/drop``,
  the simulated beam as a real one) until each stream has the new version; p50, p95 and the
  first-to-last spread per drop, with the database on tmpfs (the disk left out) and on
  the disk, where one fsync per action (``synchronous=FULL``, kept) is part of it: the
  disk's own fsync time is measured beside it on the same folder; and the server's CPU
  time per drop on tmpfs (all its threads, the new games between drops left out): the
  drop's work itself, which a busy machine's waits do not stretch.

    python bench/bench_table.py [--runs 5] [--drops 50] [--rounds 4] [--idle 5] [--root CHECKOUT] [--real]
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
from bench.report import compiled, load_average, row, spread  # noqa: E402

PIN = "2468"
STREAMS = 16
# Every event's "id:" line follows a newline (the chunk-size line's CRLF, or the previous
# line). A literal "\n" first lets the regex engine jump to it: "(?:^|\n)" made it try every
# byte, ~50 us per 5 KB session in the one client process, which counted towards the
# later streams' arrival times (16 streams: ~0.8 ms) and so grew with the message size.
ID_RE = re.compile(rb"\nid: ?(\d+)\n")
GAME = {"game": "mirakel-mix", "players": ["Ann", "Ben", "Cas", "Dee"], "seed": 1}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pinned(cmd: list[str]) -> list[str]:
    return ["taskset", "-c", "0", *cmd] if shutil.which("taskset") and (os.cpu_count() or 1) > 1 else cmd


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
                time.sleep(0.005)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def post(self, path: str, body: dict | None = None) -> dict:
        req = urllib.request.Request(self.url(path), data=json.dumps(body or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **self.headers})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())

    def new_game(self) -> None:
        """potionpi: a new Mirakel Mix (its phase takes drops); the bare app always does."""

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


class Potionpi(Server):
    def __init__(self, data_dir: Path, root: Path, port: int | None = None, sim: bool = True):
        port = port or free_port()
        env = dict(os.environ, POTIONPI_PIN=PIN, PYTHONPATH=str(root))
        super().__init__("potionpi", [sys.executable, "-m", "controller.cli", "run", *(["--sim"] if sim else []),
                                      "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)],
                         port, "/healthz", "/api/v1/stream", "/api/v1/sim/cauldron/drop", {"X-Table-Pin": PIN},
                         env, cwd=root)

    def new_game(self) -> None:
        self.post("/api/v1/session", GAME)


class Bare(Server):
    def __init__(self, message_bytes: int, gpio: str | None = None):
        port = free_port()
        super().__init__("bare+gpiozero" if gpio else "bare",
                         [sys.executable, str(ROOT / "bench" / "bare_app.py"), str(port), str(message_bytes),
                          *([f"--gpio={gpio}"] if gpio else [])], port, "/", "/stream", "/drop", {})


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in KiB from smaps_rollup."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        fields[key] = int(value.split()[0])
    return fields["Rss"], fields["Pss"]


def cpu_seconds(pid: int) -> float:
    """CPU time of every thread of ``pid`` (nanosecond schedstat, not 10 ms ticks)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass                               # a thread that just ended
    return total / 1e9


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
        self.proc = ctx.Process(target=client_process,
                                args=(server.port, server.stream_path, n, self.ready, self.results, self.stop))

    def __enter__(self) -> "Clients":
        self.proc.start()
        self.ready.wait(30)
        time.sleep(0.5)                    # every stream has its first message
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


def drops_to_streams(server: Server, drops: int) -> dict[str, float]:
    """p50/p95 (ms) of drop -> each of the streams, the median first-to-last spread, misses,
    and the server's CPU time per drop (all its threads: the drop's request, the table's
    work, the 16 streams' writes; the new games between them left out)."""
    server.new_game()
    with Clients(server, STREAMS) as c:
        sent = []
        cpu0, new_games = cpu_seconds(server.pid), 0.0
        for _ in range(drops):
            t0 = time.perf_counter()
            session = server.post(server.drop_path)["session"]
            sent.append((session["version"], t0))
            if session["state"].get("phase") != "fill_bowls":
                before = cpu_seconds(server.pid)        # a new game is not a drop's work
                server.new_game()
                new_games += cpu_seconds(server.pid) - before
            time.sleep(0.02)
        time.sleep(0.5)
        cpu_ms = (cpu_seconds(server.pid) - cpu0 - new_games) / drops * 1000
        seen = c.finish()
    # A new game starts the versions again, so an id comes back: a version a stream never
    # got (coalesced: a stream that is behind gets the newest) must not be matched to the
    # same id of a later game, seconds later. Each drop's event comes before that.
    horizon, later = [float("inf")] * len(sent), {}
    for k in range(len(sent) - 1, -1, -1):
        eid, t0 = sent[k]
        horizon[k] = later.get(eid, float("inf"))
        later[eid] = t0
    lat, per_drop = [], {}
    for client in range(STREAMS):
        events = [(eid, t) for cl, eid, t in seen if cl == client]
        j = 0
        for k, (eid, t0) in enumerate(sent):     # each drop to the next event with its id
            i = j
            while i < len(events) and not (events[i][0] == eid and events[i][1] >= t0):
                i += 1
            if i < len(events) and events[i][1] < horizon[k]:
                ms = (events[i][1] - t0) * 1000
                lat.append(ms)
                per_drop.setdefault(k, []).append(ms)
                j = i + 1
    spreads = [max(v) - min(v) for v in per_drop.values() if len(v) == STREAMS]
    return {"p50": pct(lat, 0.5), "p95": pct(lat, 0.95), "spread": statistics.median(spreads) if spreads else 0,
            "missed": STREAMS * drops - len(lat), "cpu": cpu_ms}


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def idle_cpu(server: Server, seconds: float) -> tuple[float, float]:
    """ms of CPU per minute with no stream, then with 16 open streams."""
    time.sleep(1.0)
    cpu0 = cpu_seconds(server.pid)
    time.sleep(seconds)
    quiet = (cpu_seconds(server.pid) - cpu0) / seconds * 60_000
    with Clients(server, STREAMS):
        time.sleep(0.5)
        cpu0 = cpu_seconds(server.pid)
        time.sleep(seconds)
        streams = (cpu_seconds(server.pid) - cpu0) / seconds * 60_000
    return quiet, streams


def fsync_ms(folder: Path, n: int = 60) -> float:
    """Median of writing 2 KiB (one action's WAL frames) and fsync-ing it, in ``folder``."""
    path = folder / "fsync-probe"
    times = []
    with open(path, "wb") as f:
        for _ in range(n):
            t0 = time.perf_counter()
            f.write(b"x" * 2048)
            f.flush()
            os.fsync(f.fileno())
            times.append((time.perf_counter() - t0) * 1000)
    path.unlink()
    return statistics.median(times)


def session_bytes(root: Path, data_dir: Path, port: int) -> int:
    """The size of potionpi's Mirakel Mix session as its stream sends it (the bare app's)."""
    server = Potionpi(data_dir, root, port)
    try:
        server.start()
        server.new_game()
        with urllib.request.urlopen(server.url("/api/v1/session"), timeout=10) as r:
            return len(r.read())
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="start-ups of each (default 5)")
    parser.add_argument("--drops", type=int, default=50, help="drops per latency run (default 50)")
    parser.add_argument("--rounds", type=int, default=4, help="latency runs of each on tmpfs, alternating (default 4)")
    parser.add_argument("--idle", type=float, default=5.0, help="idle CPU window in seconds (default 5)")
    parser.add_argument("--real", action="store_true",
                        help="on a Pi (its service stopped): the start-ups and memory of `potionpi run` on the "
                             "table's own pins and config, beside the bare app reading a real pin; the drops "
                             "stay simulated")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="potionpi checkout to measure (e.g. an older one, for before/after)")
    args = parser.parse_args()
    root = args.root.resolve()
    compiled(ROOT)                 # as installed on a Pi: no compiling at start (another checkout: as it is)
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory() as disk_name, tempfile.TemporaryDirectory(dir=shm) as shm_name:
        disk, tmpfs = Path(disk_name), Path(shm_name)
        # a Pi's table keeps its address from one start to the next: the start-ups find the
        # database, and the console's QR code drawn for that address, left by the first one
        port = free_port()
        size = session_bytes(root, disk, port)
        print(f"potionpi ({root}) beside bench/bare_app.py with {size}-byte messages; both on core 0, "
              f"clients on core 1; load {load_average()}")
        kinds = ("potionpi", "bare", "bare+gpiozero")
        starts: dict[str, list[float]] = {kind: [] for kind in kinds}
        start_cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
        memory: dict[str, list[tuple[int, int]]] = {kind: [] for kind in kinds}
        loads: dict[str, list[float]] = {"start": [], "drops": []}
        for n in range(args.runs):
            three = [Potionpi(disk, root, port, sim=not args.real), Bare(size),
                     Bare(size, gpio="real" if args.real else "mock")]
            for server in three[n % 3:] + three[:n % 3]:          # none always goes first
                loads["start"].append(os.getloadavg()[0])
                try:
                    starts[server.name].append(server.start())
                    start_cpu[server.name].append(cpu_seconds(server.pid))
                    time.sleep(0.5)
                    memory[server.name].append(memory_kib(server.pid))
                finally:
                    server.stop()
        cpu: dict[str, tuple[float, float]] = {}
        latency: dict[str, list[dict[str, float]]] = {"potionpi": [], "bare": [], "disk": []}
        for n in range(args.rounds):
            pair = (Potionpi(tmpfs, root), Bare(size))
            for server in pair if n % 2 == 0 else pair[::-1]:
                loads["drops"].append(os.getloadavg()[0])
                try:
                    server.start()
                    if server.name not in cpu:
                        server.new_game()
                        cpu[server.name] = idle_cpu(server, args.idle)
                    latency[server.name].append(drops_to_streams(server, args.drops))
                finally:
                    server.stop()
        server = Potionpi(disk, root)
        try:
            server.start()
            latency["disk"].append(drops_to_streams(server, args.drops))
        finally:
            server.stop()
        fsync = fsync_ms(disk)

    med = statistics.median
    start_load = f"load {spread(loads['start'], '{:.1f}')} on {os.cpu_count()} cores"
    rounds = list(zip(starts["potionpi"], starts["bare"]))
    ratio = med(starts["potionpi"]) / med(starts["bare"])
    row("start-up: exec -> first 200", spread(starts["potionpi"], "{:.2f}") + " s",
        spread(starts["bare"], "{:.2f}") + " s", ratio, "<= 1.2x", ratio <= 1.2,
        note=f"{args.runs} rounds, per-round ratios " + spread([p / b for p, b in rounds]) + f"x; {start_load}")
    ours, base = start_cpu["potionpi"], start_cpu["bare"]
    row("start-up CPU time, exec -> first 200", spread([c * 1000 for c in ours], "{:.0f}") + " ms",
        spread([c * 1000 for c in base], "{:.0f}") + " ms", med(ours) / med(base),
        note="the work itself: on a busy machine the wall time above is mostly waiting for a core; "
             "per-round " + spread([p / b for p, b in zip(ours, base)]) + "x")
    rss = [m[0] / 1024 for m in memory["potionpi"]]
    base_rss = [m[0] / 1024 for m in memory["bare"]]
    ratio = med(rss) / med(base_rss)
    row("idle RSS", spread(rss, "{:.1f}") + " MiB", spread(base_rss, "{:.1f}") + " MiB", ratio, "<= 1.15x",
        ratio <= 1.15, note=f"PSS {med(m[1] for m in memory['potionpi']) / 1024:.1f} vs "
                            f"{med(m[1] for m in memory['bare']) / 1024:.1f} MiB; {start_load}")
    gpio_rss = [m[0] / 1024 for m in memory["bare+gpiozero"]]
    gpio_cpu = start_cpu["bare+gpiozero"]
    row("idle RSS beside the bare app with gpiozero", spread(rss, "{:.1f}") + " MiB",
        spread(gpio_rss, "{:.1f}") + " MiB", med(rss) / med(gpio_rss),
        note=f"the bare app reading one button with gpiozero: gpiozero's own share "
             f"{med(gpio_rss) - med(base_rss):.1f} MiB of the {med(rss) - med(base_rss):.1f} MiB above the bare app")
    row("start-up CPU time beside the bare app with gpiozero", spread([c * 1000 for c in ours], "{:.0f}") + " ms",
        spread([c * 1000 for c in gpio_cpu], "{:.0f}") + " ms", med(ours) / med(gpio_cpu),
        note=f"gpiozero's own share {(med(gpio_cpu) - med(base)) * 1000:.0f} ms of the "
             f"{(med(ours) - med(base)) * 1000:.0f} ms above the bare app")
    for k, label in ((0, "no stream"), (1, f"{STREAMS} streams")):
        ours, base = cpu["potionpi"][k], cpu["bare"][k]
        row(f"idle CPU, {label}", f"{ours:.1f} ms/min", f"{base:.1f} ms/min", ours / base if base else None,
            note=f"{args.idle:.0f} s window")
    for key, target, limit in (("p50", "<= 1.3x", 1.3), ("p95", "<= 2x", 2.0)):
        ours = [r[key] for r in latency["potionpi"]]
        base = [r[key] for r in latency["bare"]]
        ratio = med(ours) / med(base)
        row(f"drop -> {STREAMS} streams {key}, DB on tmpfs", spread(ours) + " ms", spread(base) + " ms", ratio,
            target, ratio <= limit,
            note=(f"per-round {spread([o / b for o, b in zip(ours, base)])}x; " if len(ours) > 1 else "")
            + f"load {spread(loads['drops'], '{:.1f}')}")
    ours = [r["cpu"] for r in latency["potionpi"]]
    base = [r["cpu"] for r in latency["bare"]]
    row(f"drop -> {STREAMS} streams, the server's CPU time per drop, DB on tmpfs", spread(ours) + " ms",
        spread(base) + " ms", med(ours) / med(base),
        note="all its threads: the request, the table's work, the streams' writes; the work itself, "
             f"which a busy machine does not stretch; load {spread(loads['drops'], '{:.1f}')}")
    row(f"drop -> {STREAMS} streams, first-to-last spread", spread([r["spread"] for r in latency["potionpi"]]) + " ms",
        spread([r["spread"] for r in latency["bare"]]) + " ms",
        med(r["spread"] for r in latency["potionpi"]) / max(1e-9, med(r["spread"] for r in latency["bare"])))
    disk_run = latency["disk"][0]
    row(f"drop -> {STREAMS} streams p50 / p95, DB on disk",
        f"{disk_run['p50']:.2f} / {disk_run['p95']:.2f} ms", f"tmpfs {med(r['p50'] for r in latency['potionpi']):.2f} ms",
        None, note=f"the disk's fsync alone {fsync:.2f} ms = {fsync / disk_run['p50'] * 100:.0f}% of the p50")
    missed = sum(r["missed"] for runs in latency.values() for r in runs)
    if missed:
        print(f"  ({missed} versions never reached a stream: coalesced or refused)")


if __name__ == "__main__":
    main()
