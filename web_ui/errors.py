"""Errors for people: every API error is ``{"error": "<sentence>"}``, never a traceback."""
from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from controller.games import InvalidAction, Refusal
from controller.store import StoreWriteError
from controller.table import NoGame, VersionConflict

log = logging.getLogger(__name__)

# Werkzeug's default descriptions talk to developers; these talk to a player or a script.
SENTENCES = {
    400: "the request could not be understood; send a JSON object",
    404: "there is nothing at this address",
    405: "this address does not take that kind of request",
    413: "the request is too large",
    500: "something went wrong inside the table; the daemon's log has the details",
}


NO_GAME = "no game is running; start one with POST /api/v1/session"


class ApiError(Exception):
    """Raised by views: becomes ``status`` with ``{"error": message, **extra}``."""

    def __init__(self, status: int, message: str, *, extra: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra or {}
        self.headers = headers or {}


def no_game() -> ApiError:
    """404, saying why when the last game could not be resumed."""
    damaged = current_app.extensions["potionpi"].table.damaged     # auth imports this module: no ctx()
    return ApiError(404, NO_GAME if damaged is None else f"{NO_GAME} ({damaged['message']})",
                    extra={} if damaged is None else {"damaged": damaged})


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz"


def _json(status: int, message: str, extra: dict[str, Any] | None = None,
          headers: dict[str, str] | None = None) -> Response:
    response = jsonify({"error": message, **(extra or {})})
    response.status_code = status
    response.headers.update(headers or {})
    response.headers["Cache-Control"] = "no-store"
    return response


def register(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> Response:
        return _json(exc.status, exc.message, exc.extra, exc.headers)

    # What the table refuses, mapped once for every route (the engines know no HTTP).
    @app.errorhandler(Refusal)
    def refusal(exc: Refusal) -> Response:
        # not an action of this game at all: 400; a real one the rules refuse now: 422
        return _json(400 if isinstance(exc, InvalidAction) else 422, str(exc))

    @app.errorhandler(NoGame)
    def no_game_running(exc: NoGame) -> Response:
        error = no_game()
        return _json(error.status, error.message, error.extra)

    @app.errorhandler(VersionConflict)
    def version_conflict(exc: VersionConflict) -> Response:
        # the session as the caller sees it, to redraw from (Table.act's ``seat``)
        return _json(409, str(exc), {"session": exc.session})

    @app.errorhandler(StoreWriteError)
    def store_write_error(exc: StoreWriteError) -> Response:
        # 507 Insufficient Storage when the card is full; nothing was changed either way
        log.error("%s", exc)
        return _json(507 if exc.full else 503, str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        code = exc.code or 500
        sentence = SENTENCES.get(code, (exc.name or "error").lower())
        if _wants_json():
            allowed = getattr(exc, "valid_methods", None)      # only a 405 has them
            headers = {"Allow": ", ".join(allowed)} if allowed else None
            return _json(code, sentence, headers=headers)
        return render_template("error.html", code=code, sentence=sentence), code

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> ResponseReturnValue:
        log.exception("unexpected error on %s %s", request.method, request.path)
        if _wants_json():
            return _json(500, SENTENCES[500])
        return render_template("error.html", code=500, sentence=SENTENCES[500]), 500
