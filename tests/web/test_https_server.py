"""The HTTPS listener (web_ui/tls.py): TLS in waitress's own loop, beside plain HTTP.

A client that trusts the table CA (made by controller/service/certs.py) talks to it as a
tablet would: pages, the live stream, a body far bigger than the socket takes at once
(to a reader that waits first), a stream that is never read, handshakes that never
finish, a client that is not TLS at all, and the per-address caps counted over both ports.
"""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import socket
import ssl
import threading
import time

import pytest
from flask import Response

from controller.service import certs
from web_ui import create_app
from web_ui.server import OUTBUF_HIGH_WATERMARK, make_server
from web_ui.tls import listen_https

from .conftest import FAST_STREAM
from .helpers import PIN, SECRET
from .sse import SSEClient
from .test_stream_limits import wait_for

BIG = os.urandom(3 * 1024 * 1024)          # ~48 times the socket's 64 KiB send buffer


@pytest.fixture(scope="module")
def tls_dir(tmp_path_factory):
    data = tmp_path_factory.mktemp("tls-data")
    certs.make(data)
    return data


@pytest.fixture
def trusted(tls_dir) -> ssl.SSLContext:
    """What a tablet that installed the table CA trusts."""
    return ssl.create_default_context(cafile=str(certs.folder(tls_dir) / certs.CA_CERT))


class Both:
    """A table served on a plain and an HTTPS port by one server."""

    def __init__(self, app, tls_dir, limits=None):
        self.app = app
        self.server = make_server(app, "127.0.0.1", 0, threads=6, limits=limits)
        self.tls = listen_https(self.server, "127.0.0.1", 0, certs.server_context(tls_dir))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        self.port, self.https_port = self.server.port, self.tls.effective_port
        self.url = f"https://localhost:{self.https_port}"

    def close(self):
        self.server.close()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "the server did not stop"

    def channels(self):
        return [c for c in list(self.server._server.active_channels.values())]


@pytest.fixture
def both(table, hub, tls_dir):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET, settings=dict(FAST_STREAM))

    @app.get("/test/big")
    def big():                        # far more than one TLS record or one socket buffer
        return Response(BIG, mimetype="application/octet-stream")

    @app.get("/test/chunks")
    def chunks():                     # a streamed answer, sent chunk by chunk
        return Response((BIG[i:i + 1000] for i in range(0, 200_000, 1000)), mimetype="application/octet-stream")

    @app.get("/test/scheme")
    def scheme():
        from flask import request
        return {"scheme": request.scheme, "remote": request.remote_addr}

    served = Both(app, tls_dir)
    yield served
    served.close()


def get(both, path: str, context, host: str = "localhost", **headers):
    conn = http.client.HTTPSConnection(host, both.https_port, context=context, timeout=30)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_pages_come_over_https_with_the_scheme_and_the_real_address(both, trusted):
    status, _, body = get(both, "/healthz", trusted)
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, headers, page = get(both, "/", trusted)
    assert status == 200 and b'<link rel="manifest"' in page
    assert "Content-Security-Policy" in headers
    # the app sees https and the tablet's own address, not a proxy's
    raw = socket.create_connection(("127.0.0.1", both.https_port), source_address=("127.0.0.2", 0))
    with trusted.wrap_socket(raw, server_hostname="localhost") as tls:
        tls.sendall(b"GET /test/scheme HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := tls.recv(65536):
            answer += chunk
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"scheme": "https", "remote": "127.0.0.2"}
    # the certificate is the table's, for the names a tablet uses
    assert get(both, "/healthz", trusted, host="127.0.0.1")[0] == 200


def test_plain_http_is_served_beside_it(both):
    conn = http.client.HTTPConnection("127.0.0.1", both.port, timeout=30)
    conn.request("GET", "/test/scheme")
    assert json.loads(conn.getresponse().read())["scheme"] == "http"
    conn.close()


def test_a_big_answer_arrives_whole_even_to_a_reader_that_waits(both, trusted):
    raw = socket.create_connection(("127.0.0.1", both.https_port))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
    with trusted.wrap_socket(raw, server_hostname="localhost") as tls:
        tls.sendall(b"GET /test/big HTTP/1.1\r\nHost: localhost\r\n\r\n")
        # the server fills the socket and must keep the rest until the tablet reads
        assert wait_for(lambda: any(getattr(c, "_owed", 0) or getattr(c, "_raw", b"") for c in both.channels()))
        answer = b""
        while len(answer) < len(BIG) + 200 or b"\r\n\r\n" not in answer:
            chunk = tls.recv(65536)
            assert chunk, "the connection closed early"
            answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            if len(body) >= len(BIG):
                break
    assert hashlib.sha256(body[:len(BIG)]).digest() == hashlib.sha256(BIG).digest()
    # then the same connection answers again (keep-alive through TLS)
    status, _, body = get(both, "/test/chunks", trusted)
    assert status == 200 and body == BIG[:200_000]


def test_the_live_stream_runs_over_https(both, trusted, table):
    session = table.start("zaubercocktail", ["Ann", "Ben", "Cem", "Dana"], seed=3)
    stream = SSEClient(both.url, context=trusted)
    try:
        assert stream.status == 200 and stream.header("Content-Type").startswith("text/event-stream")
        assert stream.next_event()["data"] == session
        table.act({"type": "reveal"})
        assert stream.next_session()["data"]["version"] == session["version"] + 1
        stream.wait_for_comment("keep-alive")          # and its keep-alives get through
    finally:
        stream.conn.close()


def test_a_stream_never_read_over_https_holds_no_backlog(both, trusted, table):
    table.start("zaubercocktail", [f"P{i}" for i in range(7)], seed=3)
    table.act({"type": "reveal"})
    raw = socket.create_connection(("127.0.0.1", both.https_port))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    tls = trusted.wrap_socket(raw, server_hostname="localhost")
    tls.sendall(b"GET /api/v1/stream HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
    context = both.app.extensions["potionpi"]
    assert wait_for(lambda: context.streams == 1)
    try:
        for i in range(600):
            table.act({"type": "false_trader", "seat": i % 7} if i % 2 == 0 else {"type": "undo"})
            time.sleep(0.002)
        channel = next(c for c in both.channels() if hasattr(c, "_owed") and c.requests)
        size = len(json.dumps(table.session()))
        # waitress keeps at most its watermark and one session; TLS at most one chunk more
        assert channel.total_outbufs_len <= OUTBUF_HIGH_WATERMARK + 2 * size
        assert len(channel._raw) <= 2 * 64 * 1024
    finally:
        tls.close()


def test_a_handshake_that_never_finishes_is_closed_like_any_silent_connection(table, hub, tls_dir):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET, settings=dict(FAST_STREAM))
    served = Both(app, tls_dir, limits={"idle_seconds": 1})
    try:
        silent = socket.create_connection(("127.0.0.1", served.https_port))
        half = socket.create_connection(("127.0.0.1", served.https_port))
        half.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")     # a ClientHello's first bytes
        for sock in (silent, half):
            sock.settimeout(30)
            assert sock.recv(1024) == b"", "the server should have closed it"
            sock.close()
    finally:
        served.close()


def test_what_is_not_tls_or_does_not_trust_us_is_closed_and_the_server_goes_on(both, trusted):
    plain = socket.create_connection(("127.0.0.1", both.https_port))
    plain.settimeout(30)
    plain.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    while plain.recv(1024):                         # an alert, perhaps, then closed
        pass
    plain.close()
    stranger = ssl.create_default_context()           # the public roots only
    with pytest.raises(ssl.SSLCertVerificationError):
        get(both, "/", stranger)
    assert get(both, "/healthz", trusted)[0] == 200


def test_one_device_is_capped_over_both_ports_together(table, hub, tls_dir, trusted):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET, settings=dict(FAST_STREAM))
    served = Both(app, tls_dir, limits={"per_client": 3})
    held = []
    try:
        for _ in range(2):
            raw = socket.create_connection(("127.0.0.1", served.https_port), source_address=("127.0.0.3", 0))
            held.append(trusted.wrap_socket(raw, server_hostname="localhost"))
        held.append(socket.create_connection(("127.0.0.1", served.port), source_address=("127.0.0.3", 0)))
        assert wait_for(lambda: sum(1 for c in served.channels() if c.addr[0] == "127.0.0.3") == 3)
        extra = socket.create_connection(("127.0.0.1", served.port), source_address=("127.0.0.3", 0))
        extra.settimeout(30)
        assert extra.recv(1024) == b"", "a fourth connection from the same device is refused"
        extra.close()
    finally:
        for sock in held:
            sock.close()
        served.close()


def test_a_port_it_cannot_have_is_said_and_leaves_nothing_behind(table, hub, tls_dir):
    app = create_app(table=table, devices=hub, pin=PIN, secret_key=SECRET)
    server = make_server(app, "127.0.0.1", 0, threads=4)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    before = dict(server._server._map)
    try:
        with pytest.raises(OSError):
            listen_https(server, "127.0.0.1", taken.getsockname()[1], certs.server_context(tls_dir))
        assert server._server._map == before
    finally:
        taken.close()
        server.close()
