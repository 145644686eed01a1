"""Seats: each player's own phone, for every game (docs/seats.md).

* ``GET  /api/v1/seats`` — table only (PIN): every seat with its link and QR code.
* ``GET  /seat/<token>`` — the seat's phone page (the game's ``static/phone.js``).
* ``GET  /api/v1/seat/<token>`` — the seat's session: public session + ``private``.
* ``GET  /api/v1/seat/<token>/stream`` — the same, live (SSE), one message per version.
* ``POST /api/v1/seat/<token>/actions`` — act as that seat and no other.

A seat link carries a token signed with the app's secret key, bound to the game (its id
in the store) and the seat, and salted with the table PIN's fingerprint: a new game or a
new PIN revokes every link. A token is a capability for one seat only: its stream carries
the public session and that seat's secrets (``Game.private_view``), never another seat's,
and its actions are sent with ``"seat"`` set to that seat.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import segno
from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, url_for
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from controller import games
from controller.contracts import Action, SeatSession, Session, State
from controller.games import Game

from . import auth, ctx
from .api import json_object, whole_number
from .errors import ApiError
from .secure import phone_url
from .stream import live_response, notice_message

bp = Blueprint("seats", __name__)

TOKEN_SALT = "potionpi.seat"
# A game night is long, but a link from last week's game should not keep working.
TOKEN_MAX_AGE = 24 * 3600
NOT_A_LINK = "this is not a valid player link; scan the QR code on the tablet again"


# --- tokens ------------------------------------------------------------------------------
def _serializer() -> URLSafeTimedSerializer:
    # The PIN's fingerprint is part of the salt: a new PIN makes every earlier link fail
    # its signature, and the token itself carries nothing about the PIN.
    key = current_app.secret_key
    if key is None:
        raise RuntimeError("the app has no secret key to sign seat links with")
    return URLSafeTimedSerializer(key, salt=f"{TOKEN_SALT}.{auth.pin_fingerprint()}")


def make_token(game: int, seat: int) -> str:
    """A seat's token: signed, bound to the game's id and the seat."""
    return _serializer().dumps({"g": game, "s": seat})


@dataclass(frozen=True)
class Holder:
    """Who a valid token belongs to: a seat of the running game."""

    session: Session
    seat: int

    @property
    def name(self) -> str:
        return self.session["players"][self.seat]


def running(game: str | None = None) -> Session:
    """The running game's public session (of ``game``, if given), or 404."""
    session = ctx().table.session()
    if game is not None and (session is None or session["game"] != game):
        name = games.plugins()[game].name if game in games.plugins() else game
        raise ApiError(404, f"no {name} game is running at this table")
    if session is None:
        raise ApiError(404, "no game is running at this table")
    return session


def check_token(token: Any, game: str | None = None) -> Holder:
    """The seat a token speaks for, or 401 (none), 403 (forged, expired, PIN changed),
    404 (no game / not ``game``) or 409 (a link of an earlier game)."""
    if not isinstance(token, str) or not token:
        raise ApiError(401, "this needs your private player link (scan the QR code on the tablet)")
    try:
        payload = _serializer().loads(token, max_age=TOKEN_MAX_AGE)
    except SignatureExpired:
        raise ApiError(403, "this player link has expired; ask the tablet for a new QR code") from None
    except BadSignature:
        raise ApiError(403, NOT_A_LINK) from None
    if not isinstance(payload, dict) or not all(isinstance(payload.get(k), int) for k in ("g", "s")):
        raise ApiError(403, NOT_A_LINK)
    session = running(game)
    if session["id"] != payload["g"]:
        raise ApiError(409, "this player link belongs to an earlier game; scan the new QR code on the tablet")
    if not 0 <= payload["s"] < len(session["players"]):
        raise ApiError(403, NOT_A_LINK)
    return Holder(session, payload["s"])


def seat_link(session: Session, seat: int) -> dict[str, Any]:
    """One seat's link as token, URL and QR code (SVG, drawn here: no CDN)."""
    token = make_token(session["id"], seat)
    plugin = games.plugins().get(session["game"])
    endpoint = plugin.phone_page if plugin is not None and plugin.phone_page else "seats.seat_page"
    url = phone_url(url_for(endpoint, token=token, _external=True))   # a phone: plain http
    qr = segno.make(url, error="m")
    return {"seat": seat, "name": session["players"][seat], "token": token, "url": url,
            "qr_svg": qr.svg_data_uri(scale=6, border=2, dark="#000", light="#fff")}


def seat_session(seat: int) -> SeatSession:
    """The running game as ``seat`` sees it (404 if the game went away meanwhile)."""
    session = ctx().table.session(seat)
    if session is None:
        raise ApiError(404, "no game is running at this table")
    return session  # type: ignore[return-value]   # with a seat, Table.session is a SeatSession


# --- routes ------------------------------------------------------------------------------
@bp.get("/api/v1/seats")
@auth.table_required
def list_seats() -> Response:
    """Every seat's link and QR code, for the tablet to show (table only)."""
    session = running()
    return jsonify({"id": session["id"], "game": session["game"],
                    "seats": [seat_link(session, s) for s in range(len(session["players"]))]})


@bp.get("/seat/<token>")
def seat_page(token: str):
    """A seat's phone page: its player's name, then the game's phone.js draws the rest."""
    try:
        holder = check_token(token)
    except ApiError as exc:
        return render_template("error.html", code=exc.status, sentence=exc.message), exc.status, \
            {"Cache-Control": "no-store"}
    game = holder.session["game"]
    plugin = games.plugins()[game]
    if plugin.phone_page:
        return redirect(url_for(plugin.phone_page, token=token))
    boot = {"token": token, "seat": holder.seat, "name": holder.name, "game": game,
            "game_name": plugin.name, "phone": plugin.has_phone()}
    return render_template("seat.html", boot=boot), 200, {
        "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


@bp.get("/api/v1/seat/<token>")
def get_seat_session(token: str) -> Response:
    holder = check_token(token)
    return jsonify(seat_session(holder.seat))


@bp.get("/api/v1/seat/<token>/stream")
def seat_stream(token: str) -> Response:
    """The seat's session, live: public session + that seat's ``private``, nobody else's."""
    holder = check_token(token)
    table = ctx().table
    game_id = holder.session["id"]

    def encode(session: Session) -> str:
        if session["id"] != game_id:
            # a new game revoked this link: say so once, the phone stops following
            return notice_message({"kind": "revoked",
                                   "message": "a new game has started; scan the new QR code on the tablet"})
        data = json.dumps(session, separators=(",", ":"))
        return f"id: {session['version']}\ndata: {data}\n\n"

    return live_response(lambda: table.subscribe(holder.seat), encode)


@bp.post("/api/v1/seat/<token>/actions")
def seat_action(token: str) -> Response:
    """Act as the token's seat: ``"seat"`` is set from the token (another seat: 403) and
    only what that seat may do is taken (``Game.seat_actions``); a table action is 403."""
    holder = check_token(token)
    data = json_object()
    action = data.get("action")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ApiError(400, '"action" must be an object with a "type", e.g. {"type": "claim"}')
    if "seat" in action and action["seat"] != holder.seat:
        raise ApiError(403, f"this is {holder.name}'s link: it acts for {holder.name} only")
    action = {**action, "seat": holder.seat}
    version = whole_number(data, "version", low=0, high=2**63 - 1)

    def permit(engine: Game, state: State, act: Action) -> None:
        if act["type"] in {a.get("type") for a in engine.seat_actions(state, holder.seat)}:
            return
        engine.apply(state, act)       # a refusal names the rule (400/422) ...
        raise ApiError(403, "only the table can do that, not a player's phone")   # ... else: not a seat's

    # refusals map to HTTP in web_ui/errors.py; a 409 carries this seat's own session
    ctx().table.act(action, version=version, source="phone", permit=permit, seat=holder.seat)
    return jsonify(seat_session(holder.seat))

