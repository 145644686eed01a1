"""The tablet's web side: JSON API, live stream (SSE) and pages, as one Flask app.

The daemon builds the table, the devices and the PIN, then calls::

    app = create_app(table=table, devices=hub, pin="4711", secret_key=key, settings={...})

and serves it with :func:`web_ui.server.make_server`. Nothing here touches game state
directly: every change goes through ``table.act`` / ``table.start``.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable

from flask import Flask, current_app
from flask.json.provider import DefaultJSONProvider

from controller import games
from controller.config import SCHEMA

from .auth import PinBudget, PinGate, TableCookies, TabletKeys
from .hosts import TableNames
from .routing import LazyRule
from .seat_claims import SeatClaims

if TYPE_CHECKING:
    from controller.devices.hub import DeviceHub
    from controller.table import Table

TRUSTED_ADDRESSES = 32          # how many unlocked devices the server remembers
TRUSTED_SECONDS = 24 * 3600     # ... and for how long after their last unlocked request

DEFAULT_SETTINGS: dict[str, Any] = {
    # The [web] keys the app reads (keep-alive of idle streams, worker threads): the
    # daemon passes the config's; an app built without them gets the same defaults.
    **{key: SCHEMA["web"][key].default for key in ("keepalive_seconds", "threads")},
    # Live streams (tablets, phones, scoreboards) beyond these are refused with 503: in
    # all, and from one client address (so one device cannot take every slot).
    "max_streams": 64,
    "max_streams_per_client": 4,
    # ... of which these are kept for the table's own devices (the Pi itself, unlocked
    # tablets, phones holding a seat): strangers' streams stop short of them
    "streams_reserved": 16,
    # expensive downloads (history CSV, statistics, BG Stats, export, log) running at once
    # for all devices that are not the table's own, and the share of the time they may
    # take together; each address has one at a time (web_ui/admission.py)
    "downloads_at_once": 1,
    "downloads_share": 0.25,
    # Wrong PIN attempts per client address before 429, and the window they count in.
    "pin_attempts": 5,
    "pin_window_seconds": 60.0,
    # Table-wide: wrong PINs from anywhere before every PIN entry waits (1, 2, 4 ... s),
    # the longest wait, and the file that keeps the count across restarts (None: memory).
    "pin_free_failures": 10,
    "pin_longest_wait_seconds": 600.0,
    "pin_budget_file": None,
    # the unlocked tablets' keys (hashed), so Lock revokes a cookie; None: memory only
    "tablets_file": None,
    # which phone holds which seat (device keys, hashed), kept across restarts; None: memory
    "seats_file": None,
    # names the table answers to besides its hostname, <hostname>.local, its addresses and
    # localhost (a list, or one string of names separated by spaces); any other Host: 421
    "names": (),
    # How long a tablet stays unlocked after entering the PIN once.
    "session_days": 90,
    # Milliseconds an EventSource waits before reconnecting (sent as "retry:").
    "reconnect_ms": 2000,
}


MAX_JSON_DEPTH = 32      # no request of ours nests deeper than 5; 980 deep once cost a 500


class JSONRefused(ValueError):
    """Well-formed JSON that no client of ours sends (too deep, a broken character)."""


class RequestJSON(DefaultJSONProvider):
    """Flask's JSON, refusing what no client sends: deep nesting and lone surrogates.

    Both used to pass the parser and fail later (a RecursionError, a string SQLite or
    UTF-8 cannot store) as a 500; a ValueError here is a 400 with a sentence.
    """

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        try:
            value = super().loads(s, **kwargs)
        except RecursionError:
            raise JSONRefused("the JSON is nested too deeply") from None
        stack = [(value, 1)]
        while stack:
            item, depth = stack.pop()
            if isinstance(item, str):
                if not item.isascii():
                    try:
                        item.encode("utf-8")
                    except UnicodeEncodeError:
                        raise JSONRefused("the JSON has a broken character (a lone surrogate)") from None
                continue
            if depth > MAX_JSON_DEPTH and isinstance(item, (dict, list)):
                raise JSONRefused("the JSON is nested too deeply")
            if isinstance(item, dict):
                stack.extend((k, depth + 1) for k in item)
                stack.extend((v, depth + 1) for v in item.values())
            elif isinstance(item, list):
                stack.extend((v, depth + 1) for v in item)
        return value


@dataclass
class TableContext:
    """What the blueprints need, kept in ``app.extensions["potionpi"]``."""

    table: Table
    devices: DeviceHub | None
    gate: PinGate
    settings: dict[str, Any]
    tablets: TabletKeys = field(default_factory=TabletKeys)
    claims: SeatClaims = field(default_factory=SeatClaims)
    names: TableNames = field(default_factory=TableNames)
    shutdown: threading.Event = field(default_factory=threading.Event)
    extras: dict[str, Any] = field(default_factory=dict)   # per-app caches (stream messages)
    # client address -> {subscription: its gone() check}
    _streams: dict[str, dict[Any, Callable[[], bool]]] = field(default_factory=dict)
    _streams_lock: threading.Lock = field(default_factory=threading.Lock)
    _own_streams: set[Any] = field(default_factory=set)     # of the table's own devices
    # addresses that unlocked the table lately (cookie or PIN) -> when; the server keeps
    # its connection reserve for them (server.py)
    _unlocked_at: dict[str, float] = field(default_factory=dict)

    def remember_unlocked(self, address: str) -> None:
        now = time.monotonic()            # a wall clock set back must not keep or drop it
        self._unlocked_at[address] = now
        if len(self._unlocked_at) > TRUSTED_ADDRESSES:       # bounded: forget the oldest
            for old in sorted(self._unlocked_at, key=self._unlocked_at.__getitem__)[:-TRUSTED_ADDRESSES]:
                self._unlocked_at.pop(old, None)

    def trusted(self, address: str) -> bool:
        """True if ``address`` unlocked the table within the last day (the PIN'd tablet)."""
        when = self._unlocked_at.get(address)
        return when is not None and time.monotonic() - when < TRUSTED_SECONDS
    #: told the number of open streams whenever it changes (the server sizes its pool)
    on_streams: Callable[[int], None] | None = None
    #: (host, port) the server listens on, once one serves the app (links use it)
    listening: tuple[str, int] | None = None

    def change_pin(self, pin: str) -> dict[str, int]:
        """A new table PIN, at once: every tablet is locked and every seat link revoked, as
        docs/api.md and docs/seats.md promise; every screen is told. Returns how many."""
        if pin == self.gate.pin:
            return {"tablets": 0, "seats": 0}
        self.gate.change(pin)
        tablets = self.tablets.revoke_all()
        seats = self.claims.clear()
        self.table.notice({"kind": "pin", "message": "the table PIN was changed: every tablet enters "
                                                     "the new PIN, every phone scans its seat's new code"})
        return {"tablets": tablets, "seats": seats}

    @property
    def simulated(self) -> bool:
        return bool(getattr(self.devices, "simulated", False))

    def open_stream(self, client: str, subscription: Any, gone: Callable[[], bool],
                    own: bool = False) -> str | None:
        """Count a new live stream from ``client``; the reason in a sentence if refused.
        ``gone()`` says when its socket closed: a reloading tablet's old streams are
        ended here, not left holding its slots until their next keep-alive. ``own``: the
        table's own device, which the slots kept in reserve are for (web_ui/admission.py)."""
        from .admission import stream_refusal
        with self._streams_lock:
            for mine in self._streams.values():
                for old, old_gone in list(mine.items()):
                    if old_gone():
                        old.close()          # its thread wakes, ends and calls close_stream
                        del mine[old]
                        self._own_streams.discard(old)
            mine = self._streams.setdefault(client, {})
            refused = stream_refusal(client, len(mine), self.streams, self.streams - len(self._own_streams), own)
            if refused:
                return refused
            mine[subscription] = gone
            if own:
                self._own_streams.add(subscription)
            self._told()
            return None

    def close_stream(self, client: str, subscription: Any) -> None:
        with self._streams_lock:
            mine = self._streams.get(client, {})
            mine.pop(subscription, None)
            self._own_streams.discard(subscription)
            if not mine:
                self._streams.pop(client, None)
            self._told()

    def stop_streams(self) -> None:
        """Shut down: every open stream ends now (their threads return to the server)."""
        self.shutdown.set()
        with self._streams_lock:
            subscriptions = [s for mine in self._streams.values() for s in mine]
        for subscription in subscriptions:
            subscription.close()

    @property
    def streams(self) -> int:
        return sum(len(mine) for mine in self._streams.values())

    def _told(self) -> None:
        if self.on_streams is not None:
            self.on_streams(self.streams)


def ctx() -> TableContext:
    return current_app.extensions["potionpi"]


def create_app(*, table: Table, devices: DeviceHub | None = None, pin: str, secret_key: str | bytes,
               settings: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app around a running ``Table`` (and a ``DeviceHub``, if any)."""
    merged = dict(DEFAULT_SETTINGS)
    merged.update({k: v for k, v in (settings or {}).items() if v is not None})
    if not pin:
        raise ValueError("the table needs a PIN")

    # /static is served by web_ui/assets.py (gzip, content hashes, caching headers)
    app = Flask(__name__, static_folder=None)
    app.url_rule_class = LazyRule      # url_for's builders made when first used (start-up)
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
    app.session_interface = TableCookies()     # no wall-clock expiry (web_ui/auth.py)
    app.json = RequestJSON(app)
    app.json.sort_keys = False
    app.json.compact = True
    app.extensions["potionpi"] = TableContext(
        table=table, devices=devices,
        gate=PinGate(str(pin), attempts=int(merged["pin_attempts"]),
                     window=float(merged["pin_window_seconds"]),
                     budget=PinBudget(free=int(merged["pin_free_failures"]),
                                      longest_wait=float(merged["pin_longest_wait_seconds"]),
                                      path=Path(budget_file) if (budget_file := merged["pin_budget_file"])
                                      else None)),
        tablets=TabletKeys(Path(merged["tablets_file"]) if merged["tablets_file"] else None),
        claims=SeatClaims(Path(merged["seats_file"]) if merged["seats_file"] else None),
        names=TableNames(merged["names"].split() if isinstance(merged["names"], str) else merged["names"]),
        settings=merged)

    from . import (admission, api, assets, errors, floor_api, headers, hosts, owner, pages, plugins,
                   records_api, replay_api, seats, secure, stream, update_page)
    hosts.register(app)        # first: a name that is not the table's gets nothing else
    admission.register(app)    # then: expensive downloads, one at a time per address
    # each version's stream message is encoded once, in the acting thread, before any
    # stream wakes (web_ui/stream.py)
    messages = app.extensions["potionpi"].extras["messages"] = stream.MessageCache()
    if hasattr(table, "on_publish"):
        table.on_publish(messages.message)
    app.add_url_rule("/static/<path:filename>", "static",
                     lambda filename: assets.serve(assets.STATIC, filename))
    app.jinja_env.globals.update(static_url=assets.static_url, import_map_tag=assets.import_map_tag)
    app.register_blueprint(api.bp)
    app.register_blueprint(records_api.bp)
    app.register_blueprint(replay_api.bp)      # a game that has ended, step by step
    app.register_blueprint(floor_api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(owner.bp)   # /join, /settings
    app.register_blueprint(update_page.bp)   # /settings/update: a newer potionpi from a file
    app.register_blueprint(secure.bp)  # /secure (the table's CA for the tablet), /sw.js
    app.register_blueprint(plugins.bp)
    app.register_blueprint(seats.bp)
    # each game's own routes (e.g. a player's phone page), found by looking, never named
    for plugin in games.plugins().values():
        blueprint = plugin.load_blueprint()
        if blueprint is not None:
            app.register_blueprint(blueprint)
    errors.register(app)
    headers.register(app)
    return app


__all__ = ["create_app", "ctx", "TableContext", "DEFAULT_SETTINGS"]
