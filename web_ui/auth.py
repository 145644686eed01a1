"""Who may change the table: the PIN, the tablet's session cookie, CSRF, rate limits.

Watching is open. Changing needs either

* the ``X-Table-Pin`` header (API clients, scripts), or
* the session cookie a tablet gets by entering the PIN once, *plus* the
  ``X-CSRF-Token`` header copied from the page's ``<meta name="csrf-token">``
  (a page on another site can neither read that token nor set the header).

Wrong PINs are counted per client address; after ``attempts`` wrong ones within
``window`` seconds every PIN attempt from that address gets 429 until the window
has passed, so a 4-digit PIN cannot be guessed by brute force.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import math
import secrets
import threading
import time
from collections import deque
from typing import Callable

from flask import current_app, request, session

from .errors import ApiError

PIN_HEADER = "X-Table-Pin"
CSRF_HEADER = "X-CSRF-Token"


class PinGate:
    """Checks PINs in constant time and counts wrong attempts per client address."""

    def __init__(self, pin: str, *, attempts: int = 5, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self.pin = pin
        self.attempts = attempts
        self.window = window
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def check(self, address: str, attempt: str) -> None:
        """Return if ``attempt`` is the PIN; raise ApiError 401 or 429 otherwise."""
        with self._lock:
            now = self._clock()
            recent = self._recent(address, now)
            if len(recent) >= self.attempts:
                wait = max(1, math.ceil(recent[0] + self.window - now))
                raise ApiError(429, f"too many wrong PINs from this device; wait {wait} seconds "
                                    "and try again", headers={"Retry-After": str(wait)})
            if hmac.compare_digest(attempt.encode(), self.pin.encode()):
                return
            recent.append(now)
            self._failures[address] = recent
            left = self.attempts - len(recent)
        hint = f" ({left} tries left this minute)" if left > 0 else ""
        raise ApiError(401, f"that is not the table PIN{hint}")

    def _recent(self, address: str, now: float) -> deque[float]:
        recent = self._failures.get(address, deque())
        while recent and recent[0] <= now - self.window:
            recent.popleft()
        if not recent:
            self._failures.pop(address, None)
        if len(self._failures) > 1024:          # forget idle addresses; bounded memory
            for addr in [a for a, d in self._failures.items() if not d or d[-1] <= now - self.window]:
                del self._failures[addr]
        return recent

    def change(self, pin: str) -> None:
        """A new PIN; every tablet must enter it again (cookies carry the old fingerprint)."""
        with self._lock:
            self.pin = pin


def _gate() -> PinGate:
    return current_app.extensions["potionpi"].gate


def pin_fingerprint() -> str:
    """Keyed hash of the PIN stored in the cookie; a PIN change locks every tablet again.

    Keyed with the secret key because the cookie is signed, not encrypted, and a bare
    hash of a 4-digit PIN could be reversed by trying all 10 000.
    """
    secret = current_app.secret_key
    assert secret is not None, "create_app always sets the secret key"
    key = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(key, _gate().pin.encode(), hashlib.sha256).hexdigest()[:32]


def csrf_token() -> str:
    """The session's CSRF token (created on first use); the page puts it in a meta tag."""
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def unlocked() -> bool:
    """True when this browser entered the PIN (and the PIN has not changed since)."""
    stored = session.get("table")
    return isinstance(stored, str) and hmac.compare_digest(stored, pin_fingerprint())


def check_csrf() -> None:
    sent = request.headers.get(CSRF_HEADER, "")
    expected = session.get("csrf", "")
    if not sent or not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise ApiError(403, "this page is out of date; reload it and try again")


def client_address() -> str:
    return request.remote_addr or "unknown"


def check_table() -> str:
    """Raise unless this request may change the table; returns how it was allowed."""
    attempt = request.headers.get(PIN_HEADER)
    if attempt is not None:
        _gate().check(client_address(), attempt.strip())
        return "pin"
    if unlocked():
        check_csrf()
        return "cookie"
    raise ApiError(401, f"changing the table needs the table PIN (send it in the {PIN_HEADER} "
                        "header, or enter it on the tablet)")


def table_required(view):
    """Decorator for every view that changes the table."""
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        check_table()
        return view(*args, **kwargs)
    return wrapped


def log_in(attempt: str) -> None:
    """Unlock this browser with the PIN (the request must carry the page's CSRF token)."""
    check_csrf()
    _gate().check(client_address(), attempt)
    session.permanent = True
    session["table"] = pin_fingerprint()


def log_out() -> None:
    check_csrf()
    session.pop("table", None)
