"""GET /api/v1/stream: the table as Server-Sent Events.

Each message is ``id: <version>`` + ``data: <session JSON>``; device notices
("turn gently") come as ``event: notice`` without an id. A new or reconnecting
client always gets the current session first, whatever its ``Last-Event-ID``:
versions restart with every new game, so an old id cannot prove the client is
up to date, and one extra message is cheap.

Under waitress each open stream holds one worker thread (see server.py). The loop
wakes every ``stream_poll_seconds`` to notice a gone client or a shutdown, so a
closed tablet frees its thread within about a second instead of at the next write.
"""
from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Generator, cast

from flask import Blueprint, Response, request

from controller.contracts import Notice, Session

from . import ctx
from .errors import ApiError

bp = Blueprint("stream", __name__)


def session_message(session: Session) -> str:
    data = json.dumps(session, separators=(",", ":"))
    return f"id: {session['version']}\ndata: {data}\n\n"


class MessageCache:
    """Each version is encoded once, however many tablets watch: (game, version) -> message.

    One per app, because game ids and versions repeat across tables (and tests).
    """

    def __init__(self, size: int = 8):
        self._size = size
        self._messages: dict[tuple[Any, int], str] = {}
        self._lock = threading.Lock()

    def message(self, session: Session) -> str:
        key = (session.get("id"), session["version"])
        with self._lock:
            cached = self._messages.get(key)
        if cached is not None:
            return cached
        text = session_message(session)
        with self._lock:
            self._messages[key] = text
            while len(self._messages) > self._size:
                self._messages.pop(next(iter(self._messages)))
        return text


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

    def __iter__(self):
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
def stream():
    c = ctx()
    cache = c.extras.setdefault("messages", MessageCache())
    return live_response(lambda: c.table.subscribe(), cache.message)


def live_response(subscribe: Callable[[], Any], encode: Callable[[Session], str]) -> Response:
    """An SSE response following one subscription (the public table, or one seat's:
    web_ui/seats.py); ``encode`` turns each session into its message."""
    c = ctx()
    if not c.open_stream():
        raise ApiError(503, "too many live screens are open on this table; close one and reload",
                       headers={"Retry-After": "10"})
    settings = c.settings
    keepalive = float(settings["keepalive_seconds"])
    poll = float(settings["stream_poll_seconds"])
    shutdown = c.shutdown
    # waitress tells whether the socket is gone; other servers notice at the next write.
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    try:
        subscription = subscribe()
    except BaseException:
        c.close_stream()
        raise

    def events() -> Generator[str, None, None]:
        # "retry" sets the browser's reconnect delay; the comment gets the headers out now.
        yield f"retry: {int(settings['reconnect_ms'])}\n: potionpi live table\n\n"
        last_write = time.monotonic()
        # Ends on shutdown, when the client is gone, or when the table closes its subscribers.
        while not shutdown.is_set() and not gone() and not getattr(subscription, "ended", False):
            idle = time.monotonic() - last_write
            item = subscription.get(timeout=max(0.0, min(poll, keepalive - idle)))
            if item is None:
                if time.monotonic() - last_write >= keepalive:
                    yield ": keep-alive\n\n"
                    last_write = time.monotonic()
                continue
            if set(item) == {"notice"}:
                yield notice_message(cast(dict[str, Notice], item)["notice"])
            else:
                yield encode(cast(Session, item))
            last_write = time.monotonic()

    def release() -> None:
        subscription.close()
        c.close_stream()

    response = Response(StreamBody(events(), release), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"     # nginx and friends: do not buffer
    return response
