"""The table's HTTPS listener: TLS inside waitress's own event loop.

Waitress has no TLS (its authors point to a reverse proxy). On a Pi Zero 2 W a second web
server (nginx, Caddy) is another service to install, configure and keep in memory, and a
TLS-terminating proxy in this process would hand waitress connections from 127.0.0.1: the
per-address caps, the reserve for the PIN'd tablet and the client address the PIN
attempts are counted by would all need passing on and trusting. So the HTTPS port is one
more listener of the same waitress server (web_ui/server.py), in the same loop, with the
same worker threads, limits and open-connection count, and the real client address:

* each connection is a ``GuardedChannel`` whose bytes go through an ``ssl.SSLObject`` over
  two memory BIOs (how asyncio does TLS). The loop feeds what the socket received into
  it and hands the plaintext to waitress; whatever writes (the loop, or a worker thread
  under waitress's outbuf lock) encrypts through it;
* OpenSSL's objects are not safe to use from two threads at once: a per-connection lock
  holds every use, never while calling into waitress;
* a write counts as sent only once its ciphertext is on the socket (``_owed``), so
  waitress's back-pressure (``outbuf_high_watermark``) and "close when flushed" work on
  what really left, and a sleeping tablet's backlog stays bounded as on plain HTTP;
* a handshake must be done within ``idle_seconds`` (it is not activity), so a connection
  that never finishes one goes like any silent connection.

The answer's scheme is https (``wsgi.url_scheme``, from the listener's own adjustments).
"""
from __future__ import annotations

import logging
import ssl
import threading
import time
import socket
from typing import TYPE_CHECKING, Any

from waitress.adjustments import Adjustments
from waitress import wasyncore

from .server import GuardedChannel

if TYPE_CHECKING:
    from .server import Server

log = logging.getLogger(__name__)

READ = 64 * 1024


class TLSChannel(GuardedChannel):
    """An HTTP channel whose bytes are TLS on the wire."""

    ssl_context: ssl.SSLContext

    def __init__(self, server: Any, sock: socket.socket, addr: Any, adj: Adjustments,
                 map: dict[int, Any] | None = None):
        # re-entrant: a send that finds the socket gone closes the channel, which takes it again
        self._tls_lock = threading.RLock()
        self._in = ssl.MemoryBIO()
        self._out = ssl.MemoryBIO()
        self._tls = server.ssl_context.wrap_bio(self._in, self._out, server_side=True)
        self._handshaken = False
        self._raw = b""               # ciphertext the socket has not taken yet
        self._owed = 0                # plaintext bytes encrypted into _raw, not yet reported sent
        super().__init__(server, sock, addr, adj, map=map)

    # --- the wire -------------------------------------------------------------------
    def _drain(self) -> None:
        """Move what OpenSSL wrote into the outgoing buffer (lock held)."""
        pending = self._out.read()
        if pending:
            self._raw += pending

    def _push(self, do_close: bool = True) -> bool:
        """Send buffered ciphertext; True when none is left (lock held)."""
        while self._raw:
            sent = wasyncore.dispatcher.send(self, self._raw, do_close=do_close)
            if not sent:
                return False
            self._raw = self._raw[sent:]
        return True

    def handle_read(self) -> None:
        try:
            raw = wasyncore.dispatcher.recv(self, READ)
        except OSError:
            self.handle_close()
            return
        if not raw:                   # the tablet went (recv already closed the socket)
            self.connected = False
            return
        plain = []
        try:
            with self._tls_lock:
                self._in.write(raw)
                if not self._handshaken:
                    try:
                        self._tls.do_handshake()
                        self._handshaken = True
                    except ssl.SSLWantReadError:
                        pass
                while self._handshaken:
                    try:
                        chunk = self._tls.read(READ)
                    except ssl.SSLWantReadError:
                        break
                    if not chunk:
                        break
                    plain.append(chunk)
                self._drain()
                self._push()
        except ssl.SSLZeroReturnError:          # the tablet said goodbye (close_notify)
            self.handle_close()
            return
        except (ssl.SSLError, OSError) as exc:  # not TLS, or a browser that does not trust us
            log.debug("TLS connection from %s ended: %s", self.addr[0] if self.addr else "?", exc)
            self.handle_close()
            return
        if plain:
            self.last_activity = time.time()
            self.received(b"".join(plain))

    def writable(self) -> bool:
        return bool(self._raw) or super().writable()

    def handle_write(self) -> None:
        with self._tls_lock:
            try:
                self._push()
            except OSError:
                self.will_close = True
        super().handle_write()        # waitress's own writes go through send() below, after it

    def send(self, data: bytes | memoryview, do_close: bool = True) -> int:
        """Encrypt ``data``; report it sent once its ciphertext is on the socket. Waitress
        offers the same bytes again until then (and only more after them)."""
        with self._tls_lock:
            if self._owed:
                if not self._push(do_close):
                    return 0
                sent, self._owed = self._owed, 0
                return sent
            if not self._handshaken or self._raw and not self._push(do_close):
                return 0
            try:
                self._tls.write(bytes(data))
            except ssl.SSLError:
                self.will_close = True
                return 0
            self._drain()
            if self._push(do_close):
                return len(data)
            self._owed = len(data)
            return 0

    def handle_close(self) -> None:
        with self._tls_lock:
            self._raw = b""
            self._owed = 0
        super().handle_close()


def listen_https(server: "Server", host: str, port: int, context: ssl.SSLContext) -> Any:
    """Serve HTTPS on ``host:port`` from ``server``'s own loop and threads; returns the
    listener (``.effective_port``). Call before ``server.run()``."""
    plain = server._server
    adj = Adjustments(**{**server.settings, "host": host, "port": port, "url_scheme": "https"})
    adj.socket_options = [*adj.socket_options, *server.extra_socket_options]
    listener_class = type("TableTLSServer", (type(plain),), {"channel_class": TLSChannel,
                                                             "ssl_context": context})
    before = set(plain._map)
    try:
        listener = listener_class(server.app, plain._map, True, None, dispatcher=plain.task_dispatcher,
                                  adj=adj, sockinfo=adj.listen[0])
    except OSError:
        # the port is taken or not ours (below 1024): what it made so far leaves the loop
        for fd in set(plain._map) - before:
            stray = plain._map.get(fd)        # closing one may take another (a trigger's pair)
            if stray is not None:
                stray.close()
        raise
    # one count of open connections across both ports: the per-address caps and the
    # reserve for the PIN'd tablet cover the tablet however it came
    listener.active_channels = plain.active_channels
    return listener


def https_url(host: str, port: int) -> str:
    return f"https://{host}/" if port == 443 else f"https://{host}:{port}/"


__all__ = ["listen_https", "https_url", "TLSChannel"]
