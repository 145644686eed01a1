"""Who may change the table: the PIN, the tablet's session cookie, CSRF, rate limits.

Watching is open. Changing needs either

* the ``X-Table-Pin`` header (API clients, scripts), or
* the session cookie a tablet gets by entering the PIN once, *plus* the
  ``X-CSRF-Token`` header copied from the page's ``<meta name="csrf-token">``
  (a page on another site can neither read that token nor set the header).

Wrong PINs are limited twice (docs/security.md has the figures):

* per client address: after ``attempts`` wrong ones within ``window`` seconds every
  PIN attempt from that address gets 429 until the window has passed;
* table-wide (:class:`PinBudget`): an attacker with many addresses gets
  ``free`` wrong PINs in all, then every PIN attempt from anywhere waits, twice as
  long after each further wrong one, up to ``longest_wait``. The count drains by one
  per ``longest_wait`` and is kept in the data dir, so a restart does not reset it.

A tablet that already holds the cookie is never asked for the PIN, so an attack
on the PIN does not lock the players out of their game.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import json
import logging
import math
import os
import secrets
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, TypeVar, cast

from flask import Flask, Request, current_app, request, session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface

from itsdangerous import BadSignature, URLSafeTimedSerializer

from controller.clock import boot_id

from .errors import ApiError

log = logging.getLogger(__name__)

PIN_HEADER = "X-Table-Pin"
CSRF_HEADER = "X-CSRF-Token"


class PinBudget:
    """The table-wide allowance of wrong PINs, whatever address they come from.

    ``level`` counts wrong PINs and drains by one every ``longest_wait`` seconds. While
    it is at most ``free`` nothing waits; each wrong PIN above that closes the PIN check
    for everyone for 1, 2, 4 ... seconds, at most ``longest_wait``. During the wait every
    attempt gets 429 *without being checked*, so guessing faster learns nothing. In the
    long run at most 3600 / ``longest_wait`` wrong PINs an hour get checked.

    Timed on the monotonic clock (controller/clock.py): a wall clock set back an hour
    neither makes a 1 s wait last an hour nor ends one early. Kept in ``path`` with the
    boot's id, so a restart does not hand out a new allowance: in the same boot the times
    carry on exactly; after a reboot (time in between unknown) the count is kept undrained
    and a wait still running starts again in full from the restart. A right PIN empties
    the count (whoever typed it knows the PIN anyway).
    """

    def __init__(self, *, free: int = 10, longest_wait: float = 600.0, path: Path | None = None,
                 clock: Callable[[], float] = time.monotonic, boot: Callable[[], str] = boot_id):
        self.free = free
        self.longest_wait = longest_wait
        self.path = path
        self._clock = clock
        self._boot = boot
        self.level = 0.0
        self.updated = clock()
        self.closed_until = 0.0
        self._load()

    @property
    def _most(self) -> float:
        """The level that gives the longest wait; capped there, it drains in bounded time."""
        return self.free + math.ceil(math.log2(self.longest_wait)) + 1

    def wait(self) -> float:
        """Seconds until a PIN may be checked again (0: now)."""
        return max(0.0, self.closed_until - self._clock())

    def failed(self) -> None:
        """Count one wrong PIN and close the check for the next wait."""
        now = self._drain()
        self.level += 1
        over = self.level - self.free
        if over > 0:
            wait = min(self.longest_wait, 2.0 ** (round(over) - 1))
            self.closed_until = max(self.closed_until, now + wait)
        self.level = min(self.level, self._most)
        self._save()

    def succeeded(self) -> None:
        if self.level or self.closed_until:
            self.level, self.closed_until = 0.0, 0.0
            self.updated = self._clock()
            self._save()

    def _drain(self) -> float:
        now = self._clock()
        elapsed = max(0.0, now - self.updated)
        self.level = max(0.0, self.level - elapsed / self.longest_wait)
        self.updated = now
        return now

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        now = self._clock()
        try:
            data = json.loads(self.path.read_text())
            level, updated, closed = (float(data["level"]), float(data["updated"]),
                                      float(data["closed_until"]))
            boot = data.get("boot")
        except (OSError, ValueError, KeyError, TypeError):
            # unreadable: assume the worst rather than hand out a fresh allowance
            log.warning("%s is unreadable; the PIN check starts closed for %s s",
                        self.path, self.longest_wait)
            level, updated, closed, boot = self._most, now, now + self.longest_wait, self._boot()
        if not (math.isfinite(level) and math.isfinite(updated) and math.isfinite(closed)):
            return
        if boot != self._boot():
            # another boot (or a file from before the monotonic clock): the time since is
            # unknown. Keep the count as it was; a wait still running starts again in full.
            left = max(0.0, closed - updated)
            updated, closed = now, (now + left if left > 0 else 0.0)
        self.level, self.updated = min(max(0.0, level), self._most), min(updated, now)
        self.closed_until = min(closed, now + self.longest_wait)

    def _save(self) -> None:
        if self.path is None:
            return
        # every caller has just set "updated" to now, so closed_until - updated is the
        # wait still to run (what a reboot starts again); both on this boot's clock
        data = {"boot": self._boot(), "level": self.level, "updated": self.updated,
                "closed_until": self.closed_until}
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(data))
            os.replace(tmp, self.path)
        except OSError as exc:       # a full card must not turn a wrong PIN into a 500
            log.warning("could not keep the PIN budget in %s: %s", self.path, exc)


class Attempts:
    """Wrong tries per client address: after ``attempts`` within ``window`` seconds (on the
    monotonic clock) that address waits until the oldest is ``window`` old. Bounded memory."""

    def __init__(self, attempts: int = 5, window: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.attempts = attempts
        self.window = window
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}

    def wait(self, address: str) -> int:
        """Whole seconds this address must wait before its next try (0: it may try now)."""
        now = self._clock()
        recent = self._recent(address, now)
        if len(recent) >= self.attempts:
            return max(1, math.ceil(recent[0] + self.window - now))
        return 0

    def failed(self, address: str) -> int:
        """Count one wrong try; how many are left in the window."""
        now = self._clock()
        recent = self._recent(address, now)
        recent.append(now)
        self._failures[address] = recent
        return self.attempts - len(recent)

    def clear(self) -> None:
        self._failures.clear()

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


class PinGate:
    """Checks PINs in constant time and counts wrong attempts per client address."""

    def __init__(self, pin: str, *, attempts: int = 5, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, budget: PinBudget | None = None):
        self.pin = pin
        self.budget = budget if budget is not None else PinBudget()
        self.tries = Attempts(attempts, window, clock)
        self._lock = threading.Lock()

    def check(self, address: str, attempt: str) -> None:
        """Return if ``attempt`` is the PIN; raise ApiError 401 or 429 otherwise."""
        with self._lock:
            wait = self.tries.wait(address)
            if wait:
                raise ApiError(429, f"too many wrong PINs from this device; wait {wait} seconds "
                                    "and try again", headers={"Retry-After": str(wait)})
            table_wait = self.budget.wait()
            if table_wait > 0:
                wait = max(1, math.ceil(table_wait))
                raise ApiError(429, "too many wrong PINs at this table; every PIN entry waits "
                                    f"{wait} seconds (a tablet that is already unlocked plays on)",
                               headers={"Retry-After": str(wait)})
            if hmac.compare_digest(attempt.encode("utf-8", "surrogatepass"),
                                   self.pin.encode("utf-8", "surrogatepass")):
                self.budget.succeeded()
                return
            left = self.tries.failed(address)
            self.budget.failed()
        hint = f" ({left} tries left this minute)" if left > 0 else ""
        raise ApiError(401, f"that is not the table PIN{hint}")

    def change(self, pin: str) -> None:
        """A new PIN; every tablet must enter it again (cookies carry the old fingerprint)."""
        with self._lock:
            self.pin = pin

    def fingerprint(self, secret: str | bytes | None) -> str:
        """Keyed hash of the PIN (see :func:`pin_fingerprint`)."""
        assert secret is not None, "create_app always sets the secret key"
        key = secret.encode() if isinstance(secret, str) else secret
        return hmac.new(key, self.pin.encode(), hashlib.sha256).hexdigest()[:32]


class TabletKeys:
    """The unlocked tablets: one random key per PIN entry, carried in the signed cookie.

    The cookie alone is not enough: its key must still be on this list, so *Lock* on a
    tablet (logout) revokes that cookie everywhere, even a copy. Only hashes are kept (in
    ``path``, so tablets stay unlocked across a restart); the oldest beyond ``limit`` go.
    """

    def __init__(self, path: Path | None = None, limit: int = 64):
        self.path = path
        self.limit = limit
        self._lock = threading.Lock()
        self._hashes: list[str] = []
        if path is not None and path.exists():
            try:
                loaded = json.loads(path.read_text())
                self._hashes = [h for h in loaded if isinstance(h, str)][-limit:]
            except (OSError, ValueError, TypeError):
                log.warning("%s is unreadable; every tablet enters the PIN again", path)

    @staticmethod
    def _hash(key: str) -> str:
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

    def issue(self) -> str:
        key = secrets.token_urlsafe(24)
        with self._lock:
            self._hashes = [*self._hashes, self._hash(key)][-self.limit:]
            self._save()
        return key

    def valid(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        wanted = self._hash(key)
        with self._lock:
            return any(hmac.compare_digest(wanted, h) for h in self._hashes)

    def revoke(self, key: object) -> None:
        if not isinstance(key, str):
            return
        wanted = self._hash(key)
        with self._lock:
            self._hashes = [h for h in self._hashes if h != wanted]
            self._save()

    def revoke_all(self) -> int:
        """Lock every tablet (a new PIN); how many were unlocked."""
        with self._lock:
            count, self._hashes = len(self._hashes), []
            self._save()
        return count

    def _save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(self._hashes))
            os.replace(tmp, self.path)
        except OSError as exc:      # a full card: the tablet stays unlocked until a restart
            log.warning("could not keep the unlocked tablets in %s: %s", self.path, exc)


class TableCookies(SecureCookieSessionInterface):
    """Flask's signed session cookie, without its wall-clock expiry.

    Flask refuses a cookie whose signature time is older than the session lifetime *or
    in the future*, by the Pi's wall clock: a clock set back five minutes locked every
    tablet unlocked in those five minutes. What the cookie grants is decided on the server
    instead (the tablet's key in :class:`TabletKeys`, a phone's seat claim), and ends by
    explicit revocation: *Lock*, a PIN change, a seat moved to another phone. The browser
    still drops the cookie after ``session_days`` by its own clock.
    """

    def __init__(self) -> None:
        self._signer: tuple[tuple[str | bytes, ...], URLSafeTimedSerializer] | None = None

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        """Flask's signer, built once for the app's keys (Flask built a new one for every
        request, ~7% of the CPU of a tap's request)."""
        if not app.secret_key:
            return None
        keys = (*(app.config["SECRET_KEY_FALLBACKS"] or ()), app.secret_key)
        made = self._signer
        if made is None or made[0] != keys:
            signer = super().get_signing_serializer(app)
            assert signer is not None
            made = self._signer = (keys, signer)
        return made[1]

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if not app.secret_key:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:                     # a script, a phone before its first page: no signer
            return self.session_class()
        signer = self.get_signing_serializer(app)
        assert signer is not None
        try:
            return self.session_class(signer.loads(value))
        except BadSignature:
            return self.session_class()


def _gate() -> PinGate:
    return current_app.extensions["potionpi"].gate


def pin_fingerprint() -> str:
    """Keyed hash of the PIN stored in the cookie; a PIN change locks every tablet again.

    Keyed with the secret key because the cookie is signed, not encrypted, and a bare
    hash of a 4-digit PIN could be reversed by trying all 10 000.
    """
    return _gate().fingerprint(current_app.secret_key)


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
    return (isinstance(stored, str) and hmac.compare_digest(stored, pin_fingerprint())
            and current_app.extensions["potionpi"].tablets.valid(session.get("tablet")))


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
        _remember()
        return "pin"
    if unlocked():
        check_csrf()
        _remember()
        return "cookie"
    raise ApiError(401, f"changing the table needs the table PIN (send it in the {PIN_HEADER} "
                        "header, or enter it on the tablet)")


View = TypeVar("View", bound=Callable[..., Any])


def table_required(view: View) -> View:
    """Decorator for every view that changes the table."""
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        check_table()
        return view(*args, **kwargs)
    return cast(View, wrapped)      # wraps() keeps the view's name; its arguments are the same


def log_in(attempt: str) -> None:
    """Unlock this browser with the PIN (the request must carry the page's CSRF token)."""
    check_csrf()
    _gate().check(client_address(), attempt)
    grant()


def grant() -> None:
    """This browser gave the right PIN: a signed cookie with a fresh tablet key."""
    session.permanent = True
    session["table"] = pin_fingerprint()
    session["tablet"] = current_app.extensions["potionpi"].tablets.issue()
    _remember()


def _remember() -> None:
    """This address holds the PIN: the server keeps connections in reserve for it."""
    current_app.extensions["potionpi"].remember_unlocked(client_address())


def log_out() -> None:
    """Lock this tablet: its key is revoked, so a copy of the cookie is worthless too."""
    check_csrf()
    current_app.extensions["potionpi"].tablets.revoke(session.get("tablet"))
    session.pop("table", None)
    session.pop("tablet", None)
