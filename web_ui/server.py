"""The production WSGI server: waitress, sized for live streams.

How waitress treats the SSE stream (waitress 3.x, checked in its source):

* Every chunk the app yields is handed to the channel with ``write_soon``; with
  ``send_bytes = 1`` (the default since waitress 2, and deprecated as a knob) the
  channel flushes as soon as anything is buffered, so each event leaves at once.
  A response without Content-Length is sent chunked, one chunk per event.
* Each request runs in one worker thread from start to end, so every open stream
  holds a thread for as long as the tablet is connected. So that streams never
  take the threads taps and pages need, the pool grows by one thread for every
  open stream and shrinks when it closes (``set_thread_count``): ``threads`` (32)
  always remain for taps, pages and the static files a tablet fetches in
  parallel. Streams are capped by the app (``max_streams``, 64 in all, 4 per
  client address), not by the pool. A waiting stream thread sleeps on its
  subscription (no polling), so idle threads cost no CPU and ~100 KB each.
* A tablet that stops reading (asleep, out of Wi-Fi) must not make the server
  buffer every message for it: ``outbuf_high_watermark`` (64 KiB) makes a
  stream's write wait while that much is unsent; meanwhile newer versions
  replace each other in its subscription, so it holds at most one pending
  session plus what waitress already buffered (never spooled to disk:
  ``outbuf_overflow`` is larger) and a fixed 64 KiB kernel send buffer.
* ``channel_timeout`` only closes connections with no request running, so it does
  not cut streams; our keep-alive comments (every 10 s) keep proxies and browsers
  from treating a quiet stream as dead.
* A gone client is seen at the latest at the next keep-alive: waitress keeps
  reading the socket while the stream runs (``channel_request_lookahead=1``), so
  ``waitress.client_disconnected`` turns true and the next write fails.
* ``close()`` first tells every stream to finish (the app's shutdown event), then
  stops the worker threads and closes all sockets so ``run()`` returns.

Holding connections open (issue 15: 200 silent sockets locked every tablet out):

* ``GuardedServer`` accepts every connection and closes at once the ones over the
  limits: ``per_client`` open connections per address (a browser opens 6 at most, plus
  its live stream), and, once ``open_limit`` connections are open, any from an address
  that has not unlocked the table lately. The ``reserve`` above ``open_limit`` is kept
  for the PIN'd tablet (the app remembers which addresses used the cookie or the PIN).
  The Pi itself (127.0.0.1, ::1: a screen on the Pi, scripts) is not capped.
  Waitress's own ``connection_limit`` (open_limit + reserve) stops accepting altogether.
* Silent connections go fast: one with nothing running and no byte for ``idle_seconds``
  is closed (waitress's ``channel_timeout``), and so is one that takes longer than
  ``request_seconds`` to send a whole request, however it trickles (slowloris). Checked
  every second (``cleanup_interval``). A running request (a live stream) is never cut.
"""
from __future__ import annotations

import logging
import socket
import time
from typing import TYPE_CHECKING, Callable

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.task import ErrorTask, ThreadedTaskDispatcher
from waitress.utilities import BadRequest
from waitress.server import TcpWSGIServer
from waitress.wasyncore import close_all

from controller.config import SCHEMA

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

DEFAULT_THREADS: int = SCHEMA["web"]["threads"].default
DEFAULT_PORT: int = SCHEMA["web"]["port"].default
OUTBUF_HIGH_WATERMARK = 64 * 1024
SEND_BUFFER = 64 * 1024

#: connection limits (see the module docstring); the tests pass smaller ones
LIMITS = {"per_client": 16, "open_limit": 100, "reserve": 20,
          "idle_seconds": 15, "request_seconds": 10}


#: the Pi's own addresses; the caps are for devices on the Wi-Fi
LOCAL = frozenset({"127.0.0.1", "::1"})


class ClientMistake(ErrorTask):
    """waitress's own answer to a request it could not parse, never a 5xx: a transfer
    coding it does not know (``gzip, chunked``) is the client's mistake, said as a 400."""

    def execute(self) -> None:
        if not hasattr(self.request, "path"):
            # a first line it could not read: waitress names the path when the client goes
            # away meanwhile, and had none (an AttributeError in its worker, a traceback)
            self.request.path = "(an unreadable request)"
        error = self.request.error
        if error.code >= 500:
            self.request.error = BadRequest(f"{error.body} (the request cannot be read as it was sent)")
        super().execute()


class GuardedChannel(HTTPChannel):
    """Remembers when the request now arriving began, so a trickle cannot last for ever.

    Every time is on the monotonic clock: waitress stamps ``last_activity`` with the wall
    clock, which a Pi sets back or forward by hours when it finds a time server (an hour
    back, and no idle socket would be closed for an hour). Its stamps land here instead.
    """

    request_started: float | None = None
    active_at: float = 0.0
    error_task_class = ClientMistake

    @property
    def last_activity(self) -> float:
        return self.active_at

    @last_activity.setter
    def last_activity(self, _wall: float) -> None:
        self.active_at = time.monotonic()

    def received(self, data: bytes) -> bool:
        before = self.request
        result = super().received(data)
        if self.request is None:
            self.request_started = None
        elif self.request is not before or self.request_started is None:
            self.request_started = time.monotonic()
        return result


class GuardedServer(TcpWSGIServer):
    """waitress's TCP server with per-client caps, a reserve and a request deadline."""

    channel_class = GuardedChannel
    limits: dict[str, int] = LIMITS
    trusted: Callable[[str], bool] = staticmethod(lambda address: False)
    refused = 0

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
        except OSError:
            return
        if accepted is None:
            return
        conn, addr = accepted
        host = addr[0] if isinstance(addr, tuple) else str(addr)
        channels = list(self.active_channels.values())
        mine = sum(1 for c in channels if isinstance(c.addr, tuple) and c.addr[0] == host)
        local = host in LOCAL          # the Pi itself (its own screen, scripts): never a guest
        if (mine >= self.limits["per_client"] and not local) or (
                len(channels) >= self.limits["open_limit"] and not (local or self.trusted(host))):
            self.refused += 1
            if self.refused in (1, 10, 100) or self.refused % 1000 == 0:
                log.warning("refused %d connection(s) over the limits (the latest from %s)",
                            self.refused, host)
            conn.close()
            return
        try:
            self.set_socket_options(conn)
        except OSError:
            conn.close()
            return
        self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)

    _next_cleanup = 0.0

    def readable(self) -> bool:
        # waitress runs maintenance() when the wall clock passes its next clean-up time;
        # set back an hour, that is an hour away. Run it on the monotonic clock instead.
        now = time.monotonic()
        if now >= self._next_cleanup:
            self._next_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        self.next_channel_cleanup = float("inf")      # waitress's own check never fires
        return super().readable()

    def maintenance(self, now: float) -> None:
        """Close idle channels (``idle_seconds``) and requests that take too long to arrive
        (``request_seconds``); ``now`` is the monotonic clock (see ``readable``)."""
        idle = now - self.adj.channel_timeout
        cutoff = now - self.limits["request_seconds"]
        for channel in list(self.active_channels.values()):
            if channel.requests:
                continue                          # a running request (a stream) is never cut
            started = getattr(channel, "request_started", None)
            if channel.last_activity < idle or (started is not None and started < cutoff):
                channel.will_close = True


class Server:
    """A waitress server bound to ``host``/``port`` (0 picks a free port)."""

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = DEFAULT_PORT, threads: int = DEFAULT_THREADS,
                 limits: dict[str, int] | None = None):
        self.app = app
        self.limits = {**LIMITS, **(limits or {})}
        extension = getattr(app, "extensions", {}).get("potionpi")
        server_class = type("TableServer", (GuardedServer,), {
            "limits": self.limits,
            "trusted": staticmethod(extension.trusted if extension is not None else lambda a: False)})
        # kept for another listener of the same server (the HTTPS port, web_ui/tls.py)
        self.settings = dict(
            host=host, port=port, threads=threads,
            ident="potionpi",
            channel_timeout=self.limits["idle_seconds"],
            cleanup_interval=1,
            connection_limit=self.limits["open_limit"] + self.limits["reserve"],
            # Keep reading while a request runs, so a tablet that closed its stream is
            # seen at once (waitress.client_disconnected) instead of holding its thread.
            channel_request_lookahead=1,
            # The event loop's select() timeout in whole seconds: waitress casts it to
            # int, so anything below 1 becomes 0, a busy loop that never sleeps.
            asyncore_loop_timeout=1,
            # A stream to a client that does not read waits once this much is unsent.
            outbuf_high_watermark=OUTBUF_HIGH_WATERMARK,

            # Clients on the table's Wi-Fi talk to us directly, never through a proxy.
            trusted_proxy=None,
            clear_untrusted_proxy_headers=True,
        )
        adj = Adjustments(**self.settings)
        # Set on every accepted socket: a fixed 64 KiB send buffer instead of Linux's
        # autotuning (up to 4 MiB), so a sleeping tablet's backlog of old versions stays
        # small in the kernel too. Plenty for Wi-Fi and the page's files.
        self.extra_socket_options = [(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)]
        adj.socket_options = [*adj.socket_options, *self.extra_socket_options]
        dispatcher = ThreadedTaskDispatcher()
        dispatcher.set_thread_count(adj.threads)
        # create_server() always builds a plain TcpWSGIServer; ours is built the same way
        # for the first address the host resolves to (the daemon listens on one).
        self._server = server_class(app, {}, True, None, dispatcher=dispatcher, adj=adj,
                                    sockinfo=adj.listen[0])
        self.host = host
        self.port = int(self._server.effective_port)
        self._closed = False
        self._threads = threads
        extension = getattr(app, "extensions", {}).get("potionpi")
        if extension is not None:
            extension.on_streams = self._streams_changed
            extension.listening = (host, self.port)      # the links the table hands out

    def _streams_changed(self, streams: int) -> None:
        """A stream opened or closed: keep ``threads`` free for taps and pages."""
        if not self._closed:
            self._server.task_dispatcher.set_thread_count(self._threads + streams)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def run(self) -> None:
        """Serve until ``close()`` is called (from another thread or a signal handler)."""
        try:
            self._server.run()
        except OSError:
            if not self._closed:      # select() on a socket closed under it during shutdown
                raise

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        extension = getattr(self.app, "extensions", {}).get("potionpi")
        if extension is not None:
            extension.stop_streams()             # every stream's thread returns now
        self._server.task_dispatcher.shutdown(timeout=5)
        close_all(self._server._map)             # the listener and every open connection


def make_server(app: Flask, host: str = "127.0.0.1", port: int = DEFAULT_PORT, threads: int = DEFAULT_THREADS,
                limits: dict[str, int] | None = None) -> Server:
    """The object the daemon runs: ``.run()``, ``.close()``, ``.port``."""
    if threads < 4:
        raise ValueError("the web server needs at least 4 threads")
    extension = getattr(app, "extensions", {}).get("potionpi")
    if extension is not None:
        extension.shutdown.clear()           # the app may be served again after a close()
    return Server(app, host, port, threads, limits)
