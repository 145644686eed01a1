"""The owner's pages: /join (put more phones on the table) and /settings (PIN: the log and
the games to download, the Pico's firmware). Plain server-rendered pages, no script."""
from __future__ import annotations

import hmac
import math
import threading
import time
from typing import Any, Iterator

from flask import Blueprint, Response, jsonify, redirect, render_template, request, session

from controller import __version__
from controller.service import discovery, logs

from . import auth, ctx, seats
from .errors import ApiError
from .hosts import table_url

bp = Blueprint("owner", __name__)


def _service() -> dict[str, Any]:
    """What the daemon put in for these pages (tests without a daemon: nothing)."""
    return ctx().extras.get("service", {})


def join_url() -> str:
    """The address other phones should open: the table's own name this screen used, unless
    that is the Pi's own loopback (the Pi's screen): then the Pi's address on the network.
    Never the request's Host as sent (web_ui/hosts.py)."""
    return table_url("/")


def _join_page(message: str = "", status: int = 200, code: str = "") -> tuple[str, int, dict[str, str]]:
    url = join_url()
    return (render_template("join.html", url=url, url_parts=url_parts(url), qr=discovery.svg_qr(url),
                            csrf=auth.csrf_token(), message=message, code=code),
            status, {"Cache-Control": "no-store"})


def url_parts(url: str) -> list[str]:
    """``url`` in the pieces a line may break between ("http://", the name, ":8080", "/"),
    so a narrow phone wraps it between its parts, never inside a number or a name."""
    scheme, sep, rest = url.partition("://")
    parts, piece, bracket = ([scheme + sep] if sep else []), "", False
    for ch in rest if sep else url:
        if ch in ":/" and piece and not bracket:
            parts.append(piece)
            piece = ""
        bracket = (bracket or ch == "[") and ch != "]"
        piece += ch
    return [*parts, piece] if piece else parts


@bp.get("/join")
def join() -> tuple[str, int, dict[str, str]]:
    return _join_page()


@bp.post("/join")
def join_with_code() -> Any:
    """A seat's short code, for a phone without a camera: opens that seat's link (the
    phone's first request there claims the seat). Wrong codes are limited like PINs."""
    sent = request.form.get("csrf", "")
    expected = session.get("csrf", "")
    if not sent or not expected or not hmac.compare_digest(sent, expected):
        return _join_page("This page was out of date; type the code again.", 403)
    code = request.form.get("code", "")[:32]
    guards = ctx().extras.setdefault("code_guards", CodeGuards())
    address = auth.client_address()
    wait = guards.wait(address)
    if wait:
        page, status, headers = _join_page(f"Too many wrong codes; wait {wait} seconds and try again.", 429, code)
        return page, status, {**headers, "Retry-After": str(wait)}
    token = seats.code_holder(code) if code.strip() else None
    if token is None:
        guards.failed(address)
        return _join_page("That is not the code of a free seat at this table. Check the code on the "
                          "tablet's Phone links (a seat already on a phone shows none).", 404, code)
    return redirect(seats.seat_path(token), code=303)


class CodeGuards:
    """Wrong seat codes: 5 a minute per address, and table-wide after 20 each one makes every
    code entry wait (1, 2, 4 … s, at most a minute). A code is 6 of 31 letters and digits
    and lives only until its seat is claimed; the QR code needs no typing at all."""

    def __init__(self) -> None:
        self.tries = auth.Attempts(5, 60.0)
        self.budget = auth.PinBudget(free=20, longest_wait=60.0)
        self._lock = threading.Lock()

    def wait(self, address: str) -> int:
        with self._lock:
            return max(self.tries.wait(address), math.ceil(self.budget.wait()))

    def failed(self, address: str) -> None:
        with self._lock:
            self.tries.failed(address)
            self.budget.failed()


def firmware_state(*, host_with_pico_only: bool = False) -> dict[str, Any]:
    """This potionpi's firmware, the Pico's, and whether the Pico's is older.
    ``host_with_pico_only``: this potionpi's version only once a Pico has answered (the
    tablet page shows it only then; reading it loads the firmware tools)."""
    watch = _service().get("firmware")
    if watch is None:
        return {"host": None, "pico": None, "older": False}
    host = watch.host if watch.pico is not None or not host_with_pico_only else None
    return {"host": host, "pico": watch.pico, "older": watch.older}


@bp.get("/api/v1/firmware")
def firmware() -> Response:
    """The forest-floor firmware this potionpi brings, what the Pico runs, and whether the
    Pico's is older (then `potionpi update` flashes it)."""
    return jsonify(firmware_state())


def _owner_allowed() -> bool:
    attempt = request.headers.get(auth.PIN_HEADER)
    if attempt is not None:                      # scripts: the PIN header
        auth._gate().check(auth.client_address(), attempt.strip())
        return True
    return auth.unlocked()


def _locked_page(message: str = "", status: int = 401) -> tuple[str, int, dict[str, str]]:
    return (render_template("settings.html", unlocked=False, message=message,
                            csrf=auth.csrf_token()), status, {"Cache-Control": "no-store"})


@bp.get("/settings")
def settings() -> tuple[str, int, dict[str, str]]:
    if not _owner_allowed():
        return _locked_page(status=200)
    data_dir = _service().get("data_dir")
    has_log = data_dir is not None and (data_dir / logs.LOG_FILE).exists()
    return (render_template("settings.html", unlocked=True, version=__version__,
                            firmware=firmware_state(), has_log=has_log, simulated=ctx().simulated),
            200, {"Cache-Control": "no-store"})


@bp.post("/settings")
def unlock() -> Any:
    """The PIN form: same rules as the tablet's (rate-limited, CSRF token in the form)."""
    sent = request.form.get("csrf", "")
    expected = session.get("csrf", "")
    if not sent or not expected or not hmac.compare_digest(sent, expected):
        return _locked_page("This page was out of date; enter the PIN again.", 403)
    try:
        auth._gate().check(auth.client_address(), request.form.get("pin", "").strip())
    except ApiError as exc:
        page, _, headers = _locked_page(exc.message[:1].upper() + exc.message[1:] + ".", exc.status)
        return page, exc.status, {**headers, **exc.headers}
    auth.grant()
    return settings()


def _download(body: bytes | Iterator[bytes], name: str, mimetype: str) -> Response:
    return Response(body, mimetype=mimetype, headers={
        "Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})


@bp.get("/settings/log")
def download_log() -> Any:
    if not _owner_allowed():
        return _locked_page("Enter the table PIN to download the log.")
    data_dir = _service().get("data_dir")
    body = logs.last_log(data_dir) if data_dir else b""
    if not body:
        return render_template("error.html", code=404,
                               sentence="this table has written no log yet"), 404
    stamp = time.strftime("%Y%m%d-%H%M")
    return _download(body, f"potionpi-{stamp}.log", "text/plain")


@bp.get("/settings/export")
def download_export() -> Any:
    if not _owner_allowed():
        return _locked_page("Enter the table PIN to download the games.")
    from controller.service.bundle import iter_export      # only when asked for

    # streamed, a game at a time: a long history never sits in memory whole
    pieces = (piece.encode() for piece in iter_export(ctx().table.store, withhold_running=True))
    stamp = time.strftime("%Y%m%d-%H%M")
    return _download(pieces, f"potionpi-games-{stamp}.json", "application/json")
