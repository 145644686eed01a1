"""The owner's pages: /join (put more phones on the table) and /settings (PIN: the log and
the games to download, the Pico's firmware). Plain server-rendered pages, no script."""
from __future__ import annotations

import hmac
import time
from typing import Any, Iterator
from urllib.parse import urlsplit

from flask import Blueprint, Response, jsonify, render_template, request, session

from controller import __version__
from controller.service import discovery, logs

from . import auth, ctx
from .errors import ApiError
from .secure import phone_url

bp = Blueprint("owner", __name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def _service() -> dict[str, Any]:
    """What the daemon put in for these pages (tests without a daemon: nothing)."""
    return ctx().extras.get("service", {})


def join_url() -> str:
    """The address other phones should open: the one this screen used, unless that is the
    Pi's own loopback (the Pi's screen): then the Pi's address on the network."""
    here = urlsplit(request.host_url)
    if here.hostname not in LOOPBACK:
        return phone_url(request.host_url)       # from the https tablet: the phones' http
    urls = _service().get("urls") or discovery.table_urls("0.0.0.0", here.port or 80)
    return urls[0]


@bp.get("/join")
def join() -> tuple[str, int, dict[str, str]]:
    url = join_url()
    return (render_template("join.html", url=url, qr=discovery.svg_qr(url)), 200,
            {"Cache-Control": "no-store"})


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
