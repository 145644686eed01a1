"""No 5xx for any request, over real sockets to the real waitress server (issue 22).

tests/proof/test_fuzz.py fuzzes bodies through Flask's test client, which never sends what
a guest's program can: a Host with a 64-letter label (500 on every page: the error page's
``url_for`` failed on IDNA "label too long"), ``%00`` in a path (500: "embedded null byte"
in web_ui/assets.py), bad percent-encodings, odd methods, broken chunking. Before: 42 of
508 requests answered 500 and 378 tracebacks were logged, about 11 KB each, so 150
requests rotated all four log files away. Here hypothesis builds raw requests from such
pieces and sends them to the server on a socket: every answer must be below 500, and a
client's mistake is at most one log line, never a traceback; the log grows by a bounded
amount however many bad requests come.
"""
from __future__ import annotations

import logging
import os
import socket
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.service import logs
from web_ui.server import make_server

from tests.web.helpers import PIN, start_game

CASES = int(os.environ.get("PROOF_RAW_CASES", "400"))
LABEL = "a" * 64

HOSTS = [b"127.0.0.1", b"localhost", (LABEL + ".example").encode(), (LABEL + "." + LABEL).encode(),
         b"x" * 300, b"127.0.0.1\x00evil", b"\xff\xfe", b"", b"rebind.evil.example", b"[::1]",
         b"[::1", b"127.0.0.1:99999", b"127.0.0.1:-1", b"..", b"a..b", b"\xc3\xa4.example", b"-x-.example"]
PATHS = [b"/", b"/api/v1/session", b"/healthz", b"/join", b"/settings", b"/settings/log",
         b"/static/%00", b"/static/js/app.js%00", b"/static/js/%00app.js", b"/games/elixir/%00tablet.js",
         b"/games/%00/tablet.js", b"/seat/%00", b"/api/v1/seat/%00/stream", b"/api/v1/seat/%ff%fe",
         b"/%ZZ", b"/api/v1/%", b"/static/%C0%AFetc/passwd", b"/static/..%2f..%2fetc%2fpasswd",
         b"/api/v1/history?limit=%00", b"/api/v1/history?limit=" + b"9" * 400, b"/\xff\xfe",
         b"/" + b"a" * 8000, b"*", b"http://127.0.0.1/api/v1/session", b"//healthz", b"/api/v1/seats/%00/move",
         b"/api/v1/history/99999999999999999999999.bgsplay", b"/static/js/app.js?v=%ff"]
METHODS = [b"GET", b"POST", b"HEAD", b"PUT", b"DELETE", b"OPTIONS", b"TRACE", b"PROPFIND", b"get",
           b"G\x00ET", b"CONNECT", b"BREW", b"X" * 100]
EXTRA = [b"", b"Cookie: potionpi=%%%\xff\r\n", b"Cookie: " + b"a=b; " * 600 + b"\r\n",
         b"X-Table-Pin: " + PIN.encode() + b"\r\n", b"X-Table-Pin: \x00\xff\r\n", b"Content-Type: application/json\r\n",
         b"Accept-Encoding: gzip\r\n", b"X-CSRF-Token: \xff\r\n", b"Last-Event-ID: \x00\r\n",
         b"Origin: http://evil.example\r\n", b"Bad Header Without Colon\r\n", b" folded: line\r\n",
         b"X: " + b"y" * 9000 + b"\r\n", b"Host: second.example\r\n"]


def framings(body: bytes) -> list[bytes]:
    """The same body as a length, broken lengths, chunks, broken chunks, or nothing."""
    return [b"Content-Length: %d\r\n\r\n" % len(body) + body,
            b"Content-Length: -1\r\n\r\n" + body,
            b"Content-Length: abc\r\n\r\n" + body,
            b"Content-Length: 99999999999999999999\r\n\r\n" + body,
            b"Transfer-Encoding: chunked\r\n\r\n%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n",
            b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + body + b"\r\n0\r\n\r\n",
            b"Transfer-Encoding: chunked\r\n\r\n-5\r\n" + body,
            b"Transfer-Encoding: chunked\r\n\r\n5;ext=" + b"e" * 300 + b"\r\nhello\r\n0\r\n\r\n",
            b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            b"\r\n"]


def send(port: int, raw: bytes) -> int | None:
    """Send ``raw``, read the answer; its status, or None when the server just closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        try:
            sock.sendall(raw)                    # no shutdown: waitress takes a half-closed
        except OSError:                          # socket for a gone client and answers nothing
            pass                                 # the server may close a request it refused
        answer = b""
        try:
            while len(answer) < 64:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    if not answer.startswith(b"HTTP/"):
        return None
    return int(answer.split(b" ", 2)[1])


@pytest.fixture
def served(app, tmp_path):
    handler = logs.open_log_file(tmp_path)
    app.extensions["potionpi"].extras["service"] = {"data_dir": tmp_path, "firmware": None, "urls": []}
    server = make_server(app, "127.0.0.1", 0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server, tmp_path / logs.LOG_FILE
    server.close()
    thread.join(timeout=10)
    logs.close_log_file(handler)


def test_raw_requests_never_get_a_5xx_nor_a_traceback(client, served, caplog, proof_line):
    server, log_file = served
    start_game(client)
    answers: list[tuple[bytes, int | None]] = []

    @settings(max_examples=CASES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(method=st.sampled_from(METHODS), path=st.sampled_from(PATHS), host=st.sampled_from(HOSTS),
           extra=st.lists(st.sampled_from(EXTRA), max_size=3), body=st.sampled_from([b"", b"{}", b'{"a":\x00}']),
           framing=st.integers(0, 10), version=st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/9.9", b""]))
    def one(method, path, host, extra, body, framing, version):
        head = method + b" " + path + (b" " + version if version else b"") + b"\r\n"
        head += (b"Host: " + host + b"\r\n") + b"".join(extra) + b"Connection: close\r\n"
        raw = head + framings(body)[framing]
        answers.append((raw[:120], send(server.port, raw)))

    with caplog.at_level(logging.INFO):
        one()
    five = [(raw, status) for raw, status in answers if status is not None and status >= 500]
    tracebacks = [r for r in caplog.records if r.exc_info]
    size = log_file.stat().st_size if log_file.exists() else 0
    proof_line("raw requests to the real server", len(answers), len(five) + len(tracebacks),
               f"long Host labels, NUL bytes, bad percent-encodings, odd methods, broken chunking: "
               f"{len(five)} answered 5xx, {len(tracebacks)} tracebacks, the log grew {size} bytes "
               "(42 of 508 answered 500 and 378 tracebacks before)")
    assert five == [], five[:5]
    assert tracebacks == [], tracebacks[0].getMessage()


def test_a_flood_of_bad_requests_cannot_wipe_the_log(client, served, proof_line):
    """150 requests used to rotate every log file away; now the log's share for clients'
    mistakes is bounded, whatever they send."""
    server, log_file = served
    logging.getLogger("potionpi.test").warning("the owner's line from before the flood")
    bad = b"GET /static/%00 HTTP/1.1\r\nHost: " + (LABEL + ".example").encode() + b"\r\nConnection: close\r\n\r\n"
    for n in range(1500):
        raw = bad if n % 2 else b"GET /api/v1/seat/%00 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        status = send(server.port, raw)
        assert status is not None and status < 500
    kept = b"".join(p.read_bytes() for p in log_file.parent.glob(logs.LOG_FILE + "*"))
    assert b"the owner's line from before the flood" in kept
    grown = len(kept)
    proof_line("a flood of bad requests against the log", 1500, 0,
               f"the log grew {grown} bytes in all, the owner's earlier line kept (150 requests rotated "
               "every log file away before)")
    assert grown < logs.MAX_BYTES
