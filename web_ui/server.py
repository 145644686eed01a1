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
"""
from __future__ import annotations

import logging
import socket

from waitress import create_server
from waitress.wasyncore import close_all

log = logging.getLogger(__name__)

DEFAULT_THREADS = 32
OUTBUF_HIGH_WATERMARK = 64 * 1024
SEND_BUFFER = 64 * 1024


class Server:
    """A waitress server bound to ``host``/``port`` (0 picks a free port)."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 8080, threads: int = DEFAULT_THREADS):
        self.app = app
        self._server = create_server(
            app, host=host, port=port, threads=threads,
            ident="potionpi",
            channel_timeout=120,
            connection_limit=200,
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
        # Set on every accepted socket (not a create_server keyword): a fixed 64 KiB send
        # buffer instead of Linux's autotuning (up to 4 MiB), so a sleeping tablet's backlog
        # of old versions stays small in the kernel too. Plenty for Wi-Fi and the page's files.
        self._server.adj.socket_options = [*self._server.adj.socket_options,
                                           (socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)]
        self.host = host
        self.port = int(self._server.effective_port)
        self._closed = False
        self._threads = threads
        extension = getattr(app, "extensions", {}).get("potionpi")
        if extension is not None:
            extension.on_streams = self._streams_changed

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


def make_server(app, host: str = "127.0.0.1", port: int = 8080, threads: int = DEFAULT_THREADS) -> Server:
    """The object the daemon runs: ``.run()``, ``.close()``, ``.port``."""
    if threads < 4:
        raise ValueError("the web server needs at least 4 threads")
    extension = getattr(app, "extensions", {}).get("potionpi")
    if extension is not None:
        extension.shutdown.clear()           # the app may be served again after a close()
    return Server(app, host, port, threads)
