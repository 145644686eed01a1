"""Seats: each player's own phone, for every game (docs/seats.md).

* ``GET  /api/v1/seats`` — table only (PIN): every seat, and for a seat no phone holds
  yet its link, QR code and short code.
* ``POST /api/v1/seats/<seat>/move`` — table only: free a seat for another phone.
* ``GET  /seat/<token>`` — the seat's phone page (the game's ``static/phone.js``).
* ``GET  /api/v1/seat/<token>`` — the seat's session: public session + ``private``.
* ``GET  /api/v1/seat/<token>/stream`` — the same, live (SSE), one message per version.
* ``POST /api/v1/seat/<token>/actions`` — act as that seat and no other.

A seat link carries a token signed with the app's secret key, bound to the game (its id
in the store), the seat and the seat's link generation, and salted with the table PIN's
fingerprint: a new game, a new PIN or moving the seat revokes it. The first device to use
a link claims the seat (web_ui/seat_claims.py): after that the link works on that device
only. A token is a capability for one seat only: its stream carries the public session
and that seat's secrets (``Game.private_view``), never another seat's, and its actions
are sent with ``"seat"`` set to that seat. No time is in the token: a wall clock that
jumps can neither expire nor extend a link.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from dataclasses import dataclass
from typing import Any, Callable, cast

from flask import Blueprint, Response, current_app, g, jsonify, redirect, render_template, session, url_for
from flask.typing import ResponseReturnValue
from itsdangerous import BadSignature, URLSafeSerializer

from controller import games
from controller.contracts import Action, RevokedNotice, SeatSession, Session, State
from controller.games import Game
from controller.table import Subscription, Told

from . import auth, ctx
from .api import json_object, whole_number
from .errors import ApiError
from .hosts import table_url
from .stream import live_response, notice_message

log = logging.getLogger(__name__)

bp = Blueprint("seats", __name__)

TOKEN_SALT = "potionpi.seat"
NOT_A_LINK = "this is not a valid player link; scan the QR code on the tablet again"
#: a seat's short code, typed at /join by a phone without a camera: no 0/O, 1/I/L
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6


# --- tokens ------------------------------------------------------------------------------
def _serializer() -> URLSafeSerializer:
    # The PIN's fingerprint is part of the salt: a new PIN makes every earlier link fail
    # its signature, and the token itself carries nothing about the PIN.
    key = current_app.secret_key
    if key is None:
        raise RuntimeError("the app has no secret key to sign seat links with")
    return URLSafeSerializer(key, salt=f"{TOKEN_SALT}.{auth.pin_fingerprint()}")


def make_token(game: int, seat: int, gen: int = 0) -> str:
    """A seat's token: signed, bound to the game's id, the seat and its link generation."""
    return _serializer().dumps({"g": game, "s": seat, "n": gen})


def short_code(game: int, seat: int, gen: int) -> str:
    """The seat's link as six letters and digits to type at /join (revoked with the link)."""
    key = current_app.secret_key
    assert key is not None
    raw = key.encode() if isinstance(key, str) else key
    digest = hmac.new(raw, f"{TOKEN_SALT}.code|{game}|{seat}|{gen}|{auth.pin_fingerprint()}".encode(),
                      hashlib.sha256).digest()
    number = int.from_bytes(digest[:8], "big")
    letters = []
    for _ in range(CODE_LENGTH):
        number, i = divmod(number, len(CODE_ALPHABET))
        letters.append(CODE_ALPHABET[i])
    return "".join(letters)


def normal_code(text: str) -> str:
    """A typed code as the table writes it: capitals, without spaces or dashes."""
    return "".join(text.upper().split()).replace("-", "")


@dataclass(frozen=True)
class Holder:
    """Who a valid token belongs to: a seat of the running game."""

    session: Session
    seat: int
    gen: int = 0

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


def taken(name: str) -> str:
    return (f"{name}'s seat is open on another phone, and only that phone can open it. "
            f"To move it to this one, ask the table: Phone links, then Move {name}'s seat")


def moved(name: str) -> str:
    return (f"this link is no longer {name}'s: the table moved the seat to another phone. "
            "Scan the new code on the tablet")


def device_key() -> str:
    """This browser's device key (made on first use; kept in its session cookie)."""
    key = session.get("device")
    if not isinstance(key, str) or len(key) < 16:
        key = session["device"] = secrets.token_urlsafe(24)
        session.permanent = True
    return key


def check_token(token: Any, game: str | None = None, *, claim: bool = True) -> Holder:
    """The seat a token speaks for on this device, or 401 (none), 403 (forged, PIN
    changed, the seat moved, another phone holds it), 404 (no game / not ``game``) or
    409 (a link of an earlier game).

    With ``claim`` a free seat becomes this device's (and the table is told); without it
    (the page itself, which a link preview may fetch) a free seat is only looked at."""
    if not isinstance(token, str) or not token:
        raise ApiError(401, "this needs your private player link (scan the QR code on the tablet)")
    try:
        payload = _serializer().loads(token)
    except BadSignature:
        raise ApiError(403, NOT_A_LINK) from None
    if not isinstance(payload, dict) or not all(isinstance(payload.get(k), int) for k in ("g", "s")) \
            or not isinstance(payload.get("n", 0), int):
        raise ApiError(403, NOT_A_LINK)
    session_now = running(game)
    if session_now["id"] != payload["g"]:
        raise ApiError(409, "this player link belongs to an earlier game; scan the new QR code on the tablet")
    seat, gen = payload["s"], payload.get("n", 0)
    if not 0 <= seat < len(session_now["players"]):
        raise ApiError(403, NOT_A_LINK)
    c = ctx()
    holder = Holder(session_now, seat, gen)
    if not claim:
        current = c.claims.seat(holder.session["id"], seat)
        if current.gen != gen:
            raise ApiError(403, moved(holder.name))
        if current.claimed and not c.claims.holds(holder.session["id"], seat, gen, session.get("device")):
            raise ApiError(403, taken(holder.name))
        g.table_own = current.claimed
        return holder
    result = c.claims.claim(holder.session["id"], seat, gen, device_key())
    if result == "stale":
        raise ApiError(403, moved(holder.name))
    if result == "other":
        raise ApiError(403, taken(holder.name))
    if result == "claimed":
        log.info("seat %d (%s) of game %d is on a phone now", seat, holder.name, holder.session["id"])
        c.table.notice({"kind": "seat", "message": f"{holder.name}'s seat is on a phone now"})
    c.remember_unlocked(auth.client_address())      # the table's own device: never locked out
    g.table_own = True
    return holder


def seat_path(token: str) -> str:
    """The path a seat's link opens: the game's own phone page, or the general one."""
    session = ctx().table.session()
    plugin = games.plugins().get(session["game"]) if session is not None else None
    endpoint = plugin.phone_page if plugin is not None and plugin.phone_page else "seats.seat_page"
    return url_for(endpoint, token=token)


def seat_link(session: Session, seat: int) -> dict[str, Any]:
    """One seat for the tablet: name and whether a phone holds it; while none does, its
    link as token, URL, QR code (SVG, drawn here: no CDN) and short code."""
    current = ctx().claims.seat(session["id"], seat)
    entry: dict[str, Any] = {"seat": seat, "name": session["players"][seat], "claimed": current.claimed,
                             "move": url_for("seats.move_seat", seat=seat)}
    if current.claimed:
        return entry
    token = make_token(session["id"], seat, current.gen)
    url = table_url(seat_path(token))     # the table's own address, never the request's Host
    import segno         # only when a seat's link is shown: not in an idle daemon

    qr = segno.make(url, error="m")
    return {**entry, "token": token, "url": url, "code": short_code(session["id"], seat, current.gen),
            "qr_svg": qr.svg_data_uri(scale=6, border=2, dark="#000", light="#fff")}


def seat_session(seat: int) -> SeatSession:
    """The running game as ``seat`` sees it (404 if the game went away meanwhile)."""
    session = ctx().table.session(seat)
    if session is None:
        raise ApiError(404, "no game is running at this table")
    return session  # type: ignore[return-value]   # with a seat, Table.session is a SeatSession


def code_holder(code: str) -> str | None:
    """The token of the running game's free seat whose short code this is, or None."""
    session = ctx().table.session()
    if session is None:
        return None
    wanted = normal_code(code)
    found = None
    for seat in range(len(session["players"])):
        current = ctx().claims.seat(session["id"], seat)
        if not current.claimed and hmac.compare_digest(short_code(session["id"], seat, current.gen), wanted):
            found = make_token(session["id"], seat, current.gen)
    return found


class SeatFollow:
    """A seat's live subscription that ends, with a notice saying why, once its link no
    longer holds on this device (the seat moved to another phone, the PIN changed)."""

    def __init__(self, subscription: Any, why_not: Callable[[], str | None]):
        self._sub = subscription
        self._why_not = why_not
        self._done = False

    @property
    def ended(self) -> bool:
        return self._done or self._sub.ended

    def get(self, timeout: float) -> Any:
        if self._done:
            return None
        item = self._sub.get(timeout)
        why = self._why_not()
        if why is not None:
            self._done = True
            return Told({"kind": "revoked", "message": why})
        return item

    def close(self) -> None:
        self._sub.close()


# --- routes ------------------------------------------------------------------------------
@bp.get("/api/v1/seats")
@auth.table_required
def list_seats() -> Response:
    """Every seat, with its link, QR code and short code while no phone holds it (table only)."""
    session = running()
    return jsonify({"id": session["id"], "game": session["game"],
                    "seats": [seat_link(session, s) for s in range(len(session["players"]))]})


@bp.post("/api/v1/seats/<int:seat>/move")
@auth.table_required
def move_seat(seat: int) -> Response:
    """Free a seat for another phone (the table's doing, and the table sees it): the old
    link and code die, the phone that held it is told, the answer has the new link."""
    session = running()
    if not 0 <= seat < len(session["players"]):
        raise ApiError(404, f"there is no seat {seat + 1} at this table")
    name = session["players"][seat]
    c = ctx()
    was = c.claims.seat(session["id"], seat)
    c.claims.move(session["id"], seat)
    message = f"{name}'s seat moved to a new phone" if was.claimed else f"{name}'s seat has a new link"
    log.info("seat %d (%s) of game %d: %s (asked from %s)", seat, name, session["id"], message,
             auth.client_address())
    # every screen hears it; the seat's old phone ends its stream with a notice (SeatFollow)
    c.table.notice({"kind": "seat", "message": message})
    return jsonify(seat_link(session, seat))


@bp.get("/seat/<token>")
def seat_page(token: str) -> ResponseReturnValue:
    """A seat's phone page: its player's name, then the game's phone.js draws the rest
    (its first request claims the seat: a link preview that only fetches the page does not)."""
    try:
        holder = check_token(token, claim=False)
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


def still_held(holder: Holder) -> Callable[[], str | None]:
    """For a seat's stream: why its link no longer holds on this device, or None. Runs in
    the stream's thread (no request there), so it keeps what it needs."""
    c, device, secret = ctx(), session.get("device"), current_app.secret_key
    fingerprint = c.gate.fingerprint(secret)
    game, seat, gen = holder.session["id"], holder.seat, holder.gen

    def why_not() -> str | None:
        if c.gate.fingerprint(secret) != fingerprint:
            return "the table PIN was changed: every phone link is new. Scan your seat's new code on the tablet"
        if not c.claims.holds(game, seat, gen, device):
            return (f"{holder.name}'s seat moved to another phone: the table did it. "
                    "If that was not you, tell the table")
        return None
    return why_not


@bp.get("/api/v1/seat/<token>/stream")
def seat_stream(token: str) -> Response:
    """The seat's session, live: public session + that seat's ``private``, nobody else's."""
    holder = check_token(token)
    table = ctx().table
    game_id = holder.session["id"]
    join = url_for("owner.join")          # (the stream runs outside the request's context)
    why_not = still_held(holder)

    def encode(session: Session) -> str:
        if session["id"] != game_id:
            # a new game revoked this link: say so once (and which game, and where to join
            # it), the phone stops following
            plugin = games.plugins().get(session["game"])
            revoked: RevokedNotice = {"kind": "revoked",
                                      "message": "a new game has started; scan the new QR code on the tablet",
                                      "game_name": plugin.name if plugin is not None else session["game"],
                                      "join": join}
            return notice_message(revoked)
        data = json.dumps(session, separators=(",", ":"))
        return f"id: {session['version']}\ndata: {data}\n\n"

    # live_response reads only get/ended/close, which SeatFollow has as a Subscription does
    return live_response(lambda: cast(Subscription, SeatFollow(table.subscribe(holder.seat), why_not)), encode)


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
