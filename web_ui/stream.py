"""GET /api/v1/stream: the table as Server-Sent Events.

Each message is ``id: <version>`` + ``data: <session JSON>``; device notices
("turn gently") come as ``event: notice`` without an id. A new or reconnecting
client always gets the current session first, whatever its ``Last-Event-ID``:
versions restart with every new game, so an old id cannot prove the client is
up to date, and one extra message is cheap.

Under waitress each open stream holds one worker thread, and the server adds a
thread for every open stream (server.py), so streams never take the threads taps
need. A stream's thread sleeps until the table hands its subscription a change, a
notice, or the keep-alive is due (every ``keepalive_seconds``): an idle table costs
no CPU. A closed tablet is noticed at the latest at the next keep-alive.
Each table change wakes each stream once; the session is encoded once for all.
"""
from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Generator

from flask import Blueprint, Response, request

from controller.contracts import Notice, Session
from controller.table import Subscription, Told

from . import admission, ctx
from .errors import ApiError

bp = Blueprint("stream", __name__)


#: one encoder for every version, made once and without the check for cycles (a session
#: is a tree of plain data built for this encoding): a quarter less time than json.dumps
_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


def session_json(session: Session) -> str:
    return _ENCODE(session)


def session_message(session: Session, data: str | None = None) -> str:
    data = session_json(session) if data is None else data
    return f"id: {session['version']}\ndata: {data}\n\n"


class MessageCache:
    """Each version is encoded once, however many tablets watch: (game, version) ->
    (its JSON, its stream message). The tap that made the version answers with the same
    JSON (web_ui/api.py), so it is not encoded again while the streams send it.

    One per app, because game ids and versions repeat across tables (and tests).
    """

    def __init__(self, size: int = 8):
        self._size = size
        self._messages: dict[tuple[Any, int], tuple[str, str]] = {}
        self._lock = threading.Lock()

    def _get(self, session: Session) -> tuple[str, str]:
        key = (session.get("id"), session["version"])
        # The table encodes each new version before it wakes the streams (on_publish, set
        # up by create_app), so 64 woken streams find it here without queueing for the lock
        # (a dict read is atomic); a miss encodes once under the lock.
        texts = self._messages.get(key)
        if texts is not None:
            return texts
        with self._lock:
            texts = self._messages.get(key)
            if texts is None:
                data = session_json(session)
                texts = self._messages[key] = (data, session_message(session, data))
                while len(self._messages) > self._size:
                    self._messages.pop(next(iter(self._messages)))
        return texts

    def message(self, session: Session) -> str:
        """The SSE message of this version."""
        return self._get(session)[1]

    def json(self, session: Session) -> str:
        """This version as JSON (what ``jsonify`` would send, already encoded)."""
        return self._get(session)[0]


def notice_message(notice: Notice) -> str:
    return f"event: notice\ndata: {json.dumps(notice, separators=(',', ':'))}\n\n"


class StreamBody:
    """The response body: an iterator whose ``close()`` always frees the subscription.

    A plain generator would not run its ``finally`` when closed before its first step,
    leaking the stream slot; the server calls ``close()`` in every case.
    """

    def __init__(self, events: Generator[str, None, None], release: Callable[[], None]):
        self._events = events
        self._release = release
        self._closed = False

    def __iter__(self) -> "StreamBody":
        return self

    def __next__(self) -> str:
        return next(self._events)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._events.close()
            finally:
                self._release()


@bp.get("/api/v1/stream")
def stream() -> Response:
    c = ctx()
    cache: MessageCache = c.extras["messages"]
    return live_response(c.table.subscribe, cache.message)


def live_response(subscribe: Callable[[], Subscription], encode: Callable[[Session], str]) -> Response:
    """An SSE response following one subscription (the public table, or one seat's:
    web_ui/seats.py); ``encode`` turns each session into its message."""
    c = ctx()
    if c.shutdown.is_set():
        raise ApiError(503, "the table is shutting down; reload in a moment", headers={"Retry-After": "10"})
    client = request.remote_addr or "?"
    # waitress tells whether the socket is gone; other servers notice at the next write.
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    own = admission.own_device()         # the table's own screens have slots kept for them
    subscription = subscribe()
    refused = c.open_stream(client, subscription, gone, own)
    if refused:
        subscription.close()
        raise ApiError(503, refused, headers={"Retry-After": "10"})
    settings = c.settings
    keepalive = float(settings["keepalive_seconds"])

    def events() -> Generator[str, None, None]:
        # "retry" sets the browser's reconnect delay; the comment gets the headers out now.
        yield f"retry: {int(settings['reconnect_ms'])}\n: potionpi live table\n\n"
        last_write = time.monotonic()
        # Sleeps until a change, a notice or the next keep-alive (no polling); ends on
        # shutdown (which closes the subscription), when the table closes, or when the
        # client is gone (seen here or as an error at the next write).
        while not subscription.ended and not gone():
            idle = time.monotonic() - last_write
            item = subscription.get(timeout=max(0.0, keepalive - idle))
            if item is None:
                if time.monotonic() - last_write >= keepalive:
                    yield ": keep-alive\n\n"
                    last_write = time.monotonic()
                continue
            # Under waitress this write waits while the client has not read what was sent
            # (outbuf_high_watermark, server.py); meanwhile newer sessions replace each other
            # in the subscription, so a slow tablet gets the newest, never a backlog.
            if isinstance(item, Told):
                yield notice_message(item.notice)
            else:
                yield encode(item.session)
            last_write = time.monotonic()

    def release() -> None:
        subscription.close()
        c.close_stream(client, subscription)

    response = Response(StreamBody(events(), release), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"     # nginx and friends: do not buffer
    return response
