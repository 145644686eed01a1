"""The secure table's cost beside plain HTTP (docs/https.md): one server, both ports.

The table runs in this process on simulated devices with its HTTPS listener (web_ui/tls.py,
a certificate from controller/service/certs.py); the client runs in a separate process so
it does not share this one's GIL. Prints, for http and https: a new connection with one
GET /healthz (the handshake included), a GET /healthz on a kept-alive connection, the
tablet page (/, gzip'd) on a kept-alive connection, and how long `potionpi tls` takes to
make the CA and the certificate, and what this process's RSS grew by with the HTTPS
listener and 8 open TLS connections. Median and 95th percentile. No thresholds.
"""
from __future__ import annotations

import http.client
import multiprocessing as mp
import ssl
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

NEW = 60         # fresh connections per kind
KEPT = 300       # requests on one kept-alive connection


def client(port: int, https_port: int, cafile: str, results) -> None:
    context = ssl.create_default_context(cafile=cafile)

    def connection(secure: bool):
        if secure:
            return http.client.HTTPSConnection("localhost", https_port, context=context, timeout=30)
        return http.client.HTTPConnection("localhost", port, timeout=30)

    out = {}
    for secure in (False, True):
        kind = "https" if secure else "http"
        times = []
        for _ in range(NEW):
            start = time.perf_counter()
            conn = connection(secure)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            times.append(time.perf_counter() - start)
            conn.close()
        out[f"{kind} new connection + /healthz"] = times
        for path, name in (("/healthz", "/healthz kept alive"), ("/", "the page (gzip) kept alive")):
            conn = connection(secure)
            times = []
            for _ in range(KEPT):
                start = time.perf_counter()
                conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
                conn.getresponse().read()
                times.append(time.perf_counter() - start)
            conn.close()
            out[f"{kind} {name}"] = times
    results.put(out)


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[int(len(values) * 0.95) - 1]
    return f"median {statistics.median(values) * 1000:6.2f} ms   p95 {p95 * 1000:6.2f} ms"


def main() -> None:
    from controller.service import certs
    from controller.store import Store
    from controller.table import Table
    from tests.web.helpers import PIN, SECRET, sim_hub
    from web_ui import create_app
    from web_ui.server import make_server
    from web_ui.tls import listen_https

    data = Path(tempfile.mkdtemp())
    start = time.perf_counter()
    certs.make(data)
    made = time.perf_counter() - start
    store = Store(data / "bench.sqlite3")
    table = Table(store)
    hub = sim_hub(table)
    table.start("mix-it", ["Ann", "Ben"], seed=1)
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET)
    server = make_server(app, "127.0.0.1", 0, threads=8)
    before = rss_kib()
    tls = listen_https(server, "127.0.0.1", 0, certs.server_context(data))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    trusted = ssl.create_default_context(cafile=str(certs.folder(data) / certs.CA_CERT))
    held = []
    for _ in range(8):
        conn = http.client.HTTPSConnection("localhost", tls.effective_port, context=trusted, timeout=30)
        conn.request("GET", "/healthz")
        conn.getresponse().read()
        held.append(conn)
    grew = rss_kib() - before
    for conn in held:
        conn.close()
    results: mp.Queue = mp.Queue()
    proc = mp.Process(target=client, args=(server.port, tls.effective_port,
                                           str(certs.folder(data) / certs.CA_CERT), results))
    proc.start()
    out = results.get(timeout=600)
    proc.join()
    print(f"potionpi tls (CA + certificate, ECDSA P-256): {made * 1000:.0f} ms")
    print(f"RSS with the HTTPS listener and 8 TLS connections (client side in this process too): +{grew} KiB")
    for name, times in out.items():
        print(f"{name:<40} {ms(times)}")
    server.close()
    thread.join(5)
    hub.close()
    store.close()


if __name__ == "__main__":
    main()
