"""Streams under load: tablets that stop reading, one device opening many streams,
more streams than the server has threads for taps. Sizes, not timings (see bench/)."""
from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from web_ui import create_app
from web_ui.server import OUTBUF_HIGH_WATERMARK, make_server

from .conftest import FAST_STREAM
from .helpers import AUTH, PIN, SECRET
from .sse import SSEClient


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def open_stream(port: int, source: str = "127.0.0.1") -> socket.socket:
    """A stream that is asked for and then never read (a tablet gone to sleep)."""
    s = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)   # a tablet's window
    s.sendall(b"GET /api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    return s


def healthz(base: str) -> dict:
    with urllib.request.urlopen(base + "/healthz", timeout=30) as response:
        return json.loads(response.read())


def serve(app, threads: int = 4):
    server = make_server(app, "127.0.0.1", 0, threads=threads)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    return server, thread


def wait_for(predicate, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.slow
def test_24_streams_that_never_read_hold_no_backlog_over_1500_actions(table, hub):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET,
                     settings=dict(FAST_STREAM, keepalive_seconds=30, max_streams_per_client=24))
    server, thread = serve(app)
    context = app.extensions["potionpi"]
    sockets = []
    try:
        session = table.start("zaubercocktail", [f"P{i}" for i in range(7)], seed=3)
        table.act({"type": "reveal"})
        sockets = [open_stream(server.port) for _ in range(24)]
        assert wait_for(lambda: context.streams == 24)
        size = len(json.dumps(table.session()))

        def step(i: int) -> None:
            table.act({"type": "false_trader", "seat": i % 7} if i % 2 == 0 else {"type": "undo"})
            time.sleep(0.002)      # paced like taps: every stream gets every version to send

        for i in range(100):
            step(i)
        before = rss_bytes()
        for i in range(100, 1500):
            step(i)
        grown = rss_bytes() - before
        buffered = sum(ch.total_outbufs_len for ch in list(server._server.active_channels.values()))
        # without coalescing: 24 streams x 1,500 sessions of ~size bytes wait in the server
        assert 24 * 1500 * size > 100 * 2**20
        # with it: at most one high watermark plus one session per stream
        assert buffered <= 24 * (OUTBUF_HIGH_WATERMARK + size)
        assert grown < 10 * 2**20, f"RSS grew {grown / 2**20:.1f} MiB"
        assert session["id"] == table.session()["id"]
        # a tablet that wakes up and reads gets the newest version
        sockets[0].setblocking(True)
        sockets[0].settimeout(30)
        seen = b""
        wanted = f"id: {table.version}\n".encode()
        while wanted not in seen:
            chunk = sockets[0].recv(1 << 16)
            assert chunk, "the stream ended"
            seen = seen[-200:] + chunk
    finally:
        for s in sockets:
            s.close()
        server.close()
        thread.join(timeout=10)


def test_one_device_cannot_take_every_stream_slot(table, hub):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET,
                     settings=dict(FAST_STREAM, max_streams=6, max_streams_per_client=4))
    server, thread = serve(app)
    base = f"http://127.0.0.1:{server.port}"
    mine = [SSEClient(base) for _ in range(4)]
    try:
        for sse in mine:
            sse.wait_for_comment("potionpi live table")
        fifth = SSEClient(base)
        assert fifth.status == 503
        assert "this device already has 4 live screens" in json.loads(fifth.response.read())["error"]
        fifth.close()
        # another tablet on the table's Wi-Fi still gets its stream
        other = open_stream(server.port, source="127.0.0.2")
        other.settimeout(30)
        assert b"200 OK" in other.recv(4096)
        assert wait_for(lambda: healthz(base)["streams"] == 5)
        other.close()
    finally:
        for sse in mine:
            sse.close()
        server.close()
        thread.join(timeout=10)


def test_streams_beyond_the_thread_pool_leave_threads_for_taps(table, hub):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET,
                     settings=dict(FAST_STREAM, max_streams_per_client=12))
    server, thread = serve(app, threads=4)
    base = f"http://127.0.0.1:{server.port}"
    tablets = [SSEClient(base) for _ in range(10)]        # more streams than the 4 threads
    try:
        for sse in tablets:
            sse.wait_for_comment("potionpi live table")
        request = urllib.request.Request(
            base + "/api/v1/session", method="POST", headers={"Content-Type": "application/json", **AUTH},
            data=json.dumps({"game": "mirakel-mix", "players": ["Ann", "Ben"], "seed": 1}).encode())
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 201
        for sse in tablets:
            assert sse.next_session()["data"]["players"] == ["Ann", "Ben"]
    finally:
        for sse in tablets:
            sse.close()
        server.close()
        thread.join(timeout=10)
    assert thread.is_alive() is False


def test_a_reloading_tablet_gets_its_slots_back_at_once(table, hub):
    # a long keep-alive: the old streams' threads would only notice at the next one
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET,
                     settings=dict(FAST_STREAM, keepalive_seconds=60, max_streams_per_client=4))
    server, thread = serve(app)
    base = f"http://127.0.0.1:{server.port}"
    try:
        for _reload in range(3):
            tablets = [SSEClient(base) for _ in range(4)]
            assert [t.status for t in tablets] == [200] * 4
            for t in tablets:
                t.wait_for_comment("potionpi live table")
                t.close()
            time.sleep(0.2)              # the server's loop sees the closed sockets
    finally:
        server.close()
        thread.join(timeout=10)
