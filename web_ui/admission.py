"""The table's own screens are never locked out (issue 22, docs/security.md).

*The table's own*: the Pi itself (loopback: its own screen, scripts there), a tablet
that entered the PIN (its cookie, or a request with the PIN), a phone holding a seat
(web_ui/seats.py). Everyone else is a stranger, however many addresses they have.

* **Live streams.** Of the ``max_streams`` slots, ``streams_reserved`` are kept for the
  table's own: strangers' streams stop at ``max_streams - streams_reserved`` (before, 64
  strangers' streams from 16 addresses locked out the tablet, a seat phone and the Pi's
  own screen).
* **Expensive downloads** (the history as CSV, the statistics, BG Stats files, the export,
  the log): one at a time per address; for all strangers together at most
  ``downloads_at_once`` at a time and at most a ``downloads_share`` of the time (after one
  that took t seconds the next waits t × (1 / share − 1)); beyond that 429 with
  ``Retry-After`` at once, before any work, so taps keep the CPU during a flood
  (bench/bench_flood.py: one CSV of a long history holds Python's GIL for a quarter of a
  second). The table's own devices wait for nobody but themselves.

The connection caps of the server (web_ui/server.py) take the same view: the addresses
of the table's own devices are remembered (``TableContext.remember_unlocked``) and keep
the connection reserve.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import cast
import threading
import time

from flask import Flask, Response, g, request

from . import auth, ctx
from .errors import ApiError

#: the routes whose answer is built from the whole history (seconds on a Pi at 10,000 games)
EXPENSIVE = frozenset({
    "records.history", "records.history_csv", "records.history_bgstats", "records.game_bgstats",
    "records.stats", "records.players", "records.session_log", "owner.download_export", "owner.download_log",
})
LOCAL = frozenset({"127.0.0.1", "::1"})


def own_device() -> bool:
    """True when this request comes from the table's own: the Pi itself, an unlocked
    tablet (or the PIN), a phone holding a seat. Asks nothing that counts a PIN guess."""
    address = auth.client_address()
    if address in LOCAL or g.get("table_own") or ctx().trusted(address):
        return True
    if request.headers.get(auth.PIN_HEADER) is not None:
        return False                  # the PIN is checked by the route, and counted there
    return auth.unlocked()


class Downloads:
    """Who is downloading what now: per address, and strangers in all (monotonic clock)."""

    def __init__(self, at_once: int, share: float = 0.25,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.at_once = at_once
        self.share = share
        self._clock = clock
        self._lock = threading.Lock()
        self._running: dict[str, float] = {}      # address -> when its download began
        self._strangers = 0
        self._next = 0.0                          # when a stranger's next download may begin

    def begin(self, address: str, own: bool) -> None:
        with self._lock:
            now = self._clock()
            if address in self._running:
                raise ApiError(429, "a download from this device is still running; wait for it, "
                                    "then ask again", headers={"Retry-After": "2"})
            if not own and (self._strangers >= self.at_once or now < self._next):
                wait = max(1, math.ceil(self._next - now))
                raise ApiError(429, "the table is busy with other downloads; try again in a few seconds "
                                    "(the tablet and the phones at the table are served first)",
                               headers={"Retry-After": str(wait)})
            self._running[address] = now
            self._strangers += not own

    def end(self, address: str, own: bool) -> None:
        with self._lock:
            began = self._running.pop(address, None)
            if began is not None and not own:
                self._strangers -= 1
                now = self._clock()
                self._next = max(self._next, now + (now - began) * (1 / self.share - 1))


def register(app: Flask) -> None:
    settings = app.extensions["potionpi"].settings
    downloads = Downloads(int(settings["downloads_at_once"]), float(settings["downloads_share"]))
    app.extensions["potionpi"].extras["downloads"] = downloads

    @app.before_request
    def limit_downloads() -> None:
        if request.endpoint not in EXPENSIVE:
            return
        address, own = auth.client_address(), own_device()
        downloads.begin(address, own)
        g.download = (address, own)

    @app.after_request
    def end_with_the_body(response: Response) -> Response:
        taken = g.pop("download", None)
        if taken is None:
            return response
        if not response.is_streamed:          # built already: the work is done
            downloads.end(*taken)
            return response
        done = threading.Event()              # a streamed body: held until it is sent (or cut)

        def end() -> None:
            if not done.is_set():
                done.set()
                downloads.end(*taken)

        def body(parts: Iterable[bytes]) -> Iterator[bytes]:
            try:
                yield from parts
            finally:
                end()
        # typed as bytes: werkzeug encodes any str item after this wrapper passes it on
        response.response = body(cast("Iterable[bytes]", response.response))
        response.call_on_close(end)
        return response

    @app.teardown_request
    def end_on_failure(_exc: BaseException | None) -> None:
        taken = g.pop("download", None)       # no answer was made: free it now
        if taken is not None:
            downloads.end(*taken)


def stream_refusal(client: str, mine: int, total: int, strangers: int, own: bool) -> str | None:
    """Why a new stream from ``client`` (holding ``mine``) is refused, or None."""
    settings = ctx().settings
    most = int(settings["max_streams"])
    reserved = min(int(settings["streams_reserved"]), most // 2)    # strangers get half at least
    if mine >= int(settings["max_streams_per_client"]):
        return f"this device already has {mine} live screens open; close one and reload"
    if total >= most:
        return "too many live screens are open on this table; close one and reload"
    if not own and strangers >= most - reserved:
        return ("too many live screens from other devices are open on this table; the rest are kept "
                "for the tablet and the players' phones")
    return None

