"""The production WSGI server: waitress, sized for live streams.

How waitress treats the SSE stream (waitress 3.x, checked in its source):

* Every chunk the app yields is handed to the channel with ``write_soon``; with
  ``send_bytes = 1`` (the default since waitress 2, and deprecated as a knob) the
  channel flushes as soon as anything is buffered, so each event leaves at once.
  A response without Content-Length is sent chunked, one chunk per event.
* Each request runs in one worker thread from start to end, so every open stream
  holds a thread for as long as the tablet is connected. With the default of 4
  threads, four tablets would leave no thread for a tap. We default to 32: room
  for 16+ tablets/phones/scoreboards watching (``max_streams`` = threads - 8 caps
  streams, the rest answer with 503) plus 8 threads that always remain for taps,
  page loads and the static files a tablet fetches in parallel. Idle threads cost
  little memory on a Pi.
* ``channel_timeout`` only closes connections with no request running, so it does
  not cut streams; our keep-alive comments (every 10 s) keep proxies and browsers
  from treating a quiet stream as dead.
* A gone client is only noticed if waitress keeps reading the socket while the
  stream runs: ``channel_request_lookahead=1`` makes it do so, and the stream
  loop polls ``waitress.client_disconnected`` every ``stream_poll_seconds``.
  Without it a closed tablet held its thread until the connection timed out.
* ``close()`` first tells every stream to finish (the app's shutdown event), then
  stops the worker threads and closes all sockets so ``run()`` returns.
"""
from __future__ import annotations

import logging

from waitress import create_server
from waitress.wasyncore import close_all

log = logging.getLogger(__name__)

DEFAULT_THREADS = 32


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
            # Clients on the table's Wi-Fi talk to us directly, never through a proxy.
            trusted_proxy=None,
            clear_untrusted_proxy_headers=True,
        )
        self.host = host
        self.port = int(self._server.effective_port)
        self._closed = False

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
            extension.shutdown.set()             # streams end within stream_poll_seconds
        self._server.task_dispatcher.shutdown(timeout=5)
        close_all(self._server._map)             # the listener and every open connection


def make_server(app, host: str = "127.0.0.1", port: int = 8080, threads: int = DEFAULT_THREADS) -> Server:
    """The object the daemon runs: ``.run()``, ``.close()``, ``.port``."""
    if threads < 4:
        raise ValueError("the web server needs at least 4 threads")
    extension = getattr(app, "extensions", {}).get("potionpi")
    if extension is not None:
        extension.shutdown.clear()           # the app may be served again after a close()
        # Leave 8 threads (or half, for small pools) for taps and pages.
        extension.settings["max_streams"] = min(extension.settings["max_streams"],
                                                max(1, threads - min(8, threads // 2)))
    return Server(app, host, port, threads)
