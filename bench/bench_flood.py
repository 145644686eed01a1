"""Tablet taps while strangers flood the table with expensive downloads (issue 22).

The issue measured: heavy downloads (history CSV, statistics, BG Stats, the history at
``limit=1000``) from 24 addresses slowed tablet taps to a median of 391 ms, max 699 ms
(2-5 ms quiet). web_ui/admission.py lets each address run one download at a time and all
strangers together one at a time, a quarter of the time at most; the rest get 429 at once,
before any work.

The table runs in its own process (waitress, the real app, a history of ``--games``
finished games); the downloaders run in another process, 24 threads from 24 loopback
addresses; the taps come from this one, from the tablet's address, and their latency is
measured on the monotonic clock. Three phases: quiet, the flood with the limit set high
enough to let every download run (as before), the flood with the limit. No thresholds.

    python bench/bench_flood.py [--games 3000] [--seconds 15]
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PIN = "4711"
DOWNLOADS = ["/api/v1/history.csv", "/api/v1/stats", "/api/v1/history.bgsplay", "/api/v1/history?limit=1000"]
STRANGERS = 24


def make_history(path: Path, games: int) -> None:
    """``games`` finished Mirakel Mix games, as rows (what the downloads read)."""
    from controller.store import Store

    store = Store(path)
    outcome = {"winners": [0], "reason": "left_the_cave", "message": "P left the cave first", "turns": 31,
               "ranking": [{"seat": 0, "place": 1, "score": 0}, {"seat": 1, "place": 2, "score": 3},
                           {"seat": 2, "place": 3, "score": 5}], "winner_names": ["P"]}
    now = time.time()
    with store._lock:
        store._db.execute("BEGIN")
        store._db.executemany(
            "INSERT INTO games (game, players, options, seed, started, status, finished, outcome) "
            "VALUES (?, ?, ?, ?, ?, 'done', ?, ?)",
            [("mirakel-mix", json.dumps([f"P{i % 17}", f"Q{i % 13}", f"R{i % 7}"]), "{}", i,
              now - 3600 * i, now - 3600 * i + 1500, json.dumps(outcome)) for i in range(games)])
        store._db.execute("COMMIT")
    store.close()


def serve(data: str, port: int, limited: int) -> None:
    """The table process: the real app on waitress, on ``port``."""
    from controller.store import Store
    from controller.table import Table
    from web_ui import create_app
    from web_ui.server import make_server

    table = Table(Store(Path(data) / "t.sqlite3"))
    table.resume()
    app = create_app(table=table, pin=PIN, secret_key="bench-secret-key-0123456789abcdef",
                     settings={} if limited else {"downloads_at_once": 10_000, "downloads_share": 1.0})
    server = make_server(app, "127.0.0.1", port, threads=32)
    print("ready", flush=True)
    server.run()


def flood(port: int, seconds: float, counts) -> None:
    """The strangers' process: 24 addresses, each downloading one thing after another."""
    stop = time.monotonic() + seconds
    tally = {"served": 0, "refused": 0}
    lock = threading.Lock()

    def one(n: int) -> None:
        source = f"127.0.3.{n + 1}"
        while time.monotonic() < stop:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
            try:
                conn.request("GET", DOWNLOADS[n % len(DOWNLOADS)])
                response = conn.getresponse()
                response.read()
                with lock:
                    tally["served" if response.status == 200 else "refused"] += 1
                if response.status == 429:
                    time.sleep(0.05)          # a client that is told to wait, and does a little
            except OSError:
                pass
            finally:
                conn.close()
    threads = [threading.Thread(target=one, args=(n,)) for n in range(STRANGERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts.put(tally)


def taps(port: int, seconds: float) -> list[float]:
    """Tablet taps (a read and an action each, as the tablet sends them), in ms."""
    took = []
    stop = time.monotonic() + seconds
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=("127.0.0.20", 0))
    headers = {"X-Table-Pin": PIN, "Content-Type": "application/json"}
    while time.monotonic() < stop:
        conn.request("GET", "/api/v1/session")
        session = json.loads(conn.getresponse().read())
        if session.get("outcome") or "legal_actions" not in session:
            conn.request("POST", "/api/v1/session", json.dumps({"game": "mirakel-mix", "players": ["Ann", "Ben"]}),
                         headers)
            conn.getresponse().read()
            continue
        body = json.dumps({"action": session["legal_actions"][0], "version": session["version"]})
        t0 = time.monotonic()
        conn.request("POST", "/api/v1/session/actions", body, headers)
        conn.getresponse().read()
        took.append((time.monotonic() - t0) * 1000)
        time.sleep(0.05)                      # a person taps a few times a second
    conn.close()
    return took


def phase(data: str, limited: bool, seconds: float, flooded: bool) -> tuple[list[float], dict]:
    from tests.e2e.daemon_proc import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", data, str(port), str(int(limited))],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/v1/session", json.dumps({"game": "mirakel-mix", "players": ["Ann", "Ben"]}),
                     {"X-Table-Pin": PIN, "Content-Type": "application/json"})
        conn.getresponse().read()
        conn.close()
        counts: mp.Queue = mp.Queue()
        downloader = mp.Process(target=flood, args=(port, seconds, counts)) if flooded else None
        if downloader is not None:
            downloader.start()
            time.sleep(1.0)                   # the flood is on before the first tap
        took = taps(port, seconds - 1.5 if flooded else seconds)
        tally = {}
        if downloader is not None:
            tally = counts.get(timeout=300)
            downloader.join()
        return took, tally
    finally:
        proc.terminate()
        proc.wait(30)


def line(name: str, took: list[float], tally: dict) -> str:
    q = statistics.quantiles(took, n=20) if len(took) >= 20 else [max(took)] * 19
    extra = f"  downloads: {tally['served']} served, {tally['refused']} told to wait (429)" if tally else ""
    return (f"{name:<44} taps {len(took):>4}  p50 {statistics.median(took):7.1f} ms  p95 {q[18]:7.1f} ms  "
            f"max {max(took):7.1f} ms{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), int(args.serve[2]))
        return
    with tempfile.TemporaryDirectory() as data:
        make_history(Path(data) / "t.sqlite3", args.games)
        print(f"tablet taps, {args.games} games in the history, {STRANGERS} strangers downloading "
              f"{', '.join(DOWNLOADS)} (os.cpu_count() = {os.cpu_count()})")
        quiet, _ = phase(data, True, args.seconds, flooded=False)
        print(line("quiet", quiet, {}))
        before, tally = phase(data, False, args.seconds, flooded=True)
        print(line("flood, every download runs (as before)", before, tally))
        after, tally = phase(data, True, args.seconds, flooded=True)
        print(line("flood, limited (web_ui/admission.py)", after, tally))


if __name__ == "__main__":
    main()
