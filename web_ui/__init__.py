"""The tablet's web side: JSON API, live stream (SSE) and pages, as one Flask app.

The daemon builds the table, the devices and the PIN, then calls::

    app = create_app(table=table, devices=hub, pin="4711", secret_key=key, settings={...})

and serves it with :func:`web_ui.server.make_server`. Nothing here touches game state
directly: every change goes through ``table.act`` / ``table.start``.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from flask import Flask, current_app
from flask.json.provider import DefaultJSONProvider

from controller import games

from .auth import PinGate

if TYPE_CHECKING:
    from controller.devices.hub import DeviceHub
    from controller.table import Table

DEFAULT_SETTINGS: dict[str, Any] = {
    # Keep-alive comment on idle streams; must stay well under any proxy/client timeout (15 s).
    "keepalive_seconds": 10.0,
    # How often a waiting stream wakes to notice a gone client or a shutdown.
    "stream_poll_seconds": 1.0,
    # Worker threads of the production server; each open stream holds one.
    "threads": 32,
    # Streams beyond this are refused (503) so taps and pages always find a free thread.
    "max_streams": None,            # None: threads - 8
    # Wrong PIN attempts per client address before 429, and the window they count in.
    "pin_attempts": 5,
    "pin_window_seconds": 60.0,
    # How long a tablet stays unlocked after entering the PIN once.
    "session_days": 90,
    # Milliseconds an EventSource waits before reconnecting (sent as "retry:").
    "reconnect_ms": 2000,
}


@dataclass
class TableContext:
    """What the blueprints need, kept in ``app.extensions["potionpi"]``."""

    table: Table
    devices: DeviceHub | None
    gate: PinGate
    settings: dict[str, Any]
    shutdown: threading.Event = field(default_factory=threading.Event)
    extras: dict[str, Any] = field(default_factory=dict)   # per-app caches (stream messages)
    _streams: int = 0
    _streams_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def simulated(self) -> bool:
        return bool(getattr(self.devices, "simulated", False))

    def open_stream(self) -> bool:
        """Count a new live stream; False when the server has no thread to spare for it."""
        with self._streams_lock:
            if self._streams >= self.settings["max_streams"]:
                return False
            self._streams += 1
            return True

    def close_stream(self) -> None:
        with self._streams_lock:
            self._streams -= 1

    @property
    def streams(self) -> int:
        return self._streams


def ctx() -> TableContext:
    return current_app.extensions["potionpi"]


def create_app(*, table: Table, devices: DeviceHub | None = None, pin: str, secret_key: str | bytes,
               settings: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app around a running ``Table`` (and a ``DeviceHub``, if any)."""
    merged = dict(DEFAULT_SETTINGS)
    merged.update({k: v for k, v in (settings or {}).items() if v is not None})
    if merged["max_streams"] is None:
        merged["max_streams"] = max(1, int(merged["threads"]) - 8)
    if not pin:
        raise ValueError("the table needs a PIN")

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key,
        SESSION_COOKIE_NAME="potionpi",
        SESSION_COOKIE_HTTPONLY=True,
        # Strict: a page on another site can never ride on the tablet's cookie.
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(days=int(merged["session_days"])),
        JSON_SORT_KEYS=False,
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False
        app.json.compact = True
    app.extensions["potionpi"] = TableContext(
        table=table, devices=devices,
        gate=PinGate(str(pin), attempts=int(merged["pin_attempts"]),
                     window=float(merged["pin_window_seconds"])),
        settings=merged)

    from . import api, errors, floor_api, pages, plugins, records_api, stream
    app.register_blueprint(api.bp)
    app.register_blueprint(records_api.bp)
    app.register_blueprint(floor_api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(plugins.bp)
    # each game's own routes (e.g. a player's phone page), found by looking, never named
    for plugin in games.plugins().values():
        blueprint = plugin.load_blueprint()
        if blueprint is not None:
            app.register_blueprint(blueprint)
    errors.register(app)
    return app


__all__ = ["create_app", "ctx", "TableContext", "DEFAULT_SETTINGS"]
