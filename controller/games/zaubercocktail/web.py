"""Zaubercocktail's extras: live lay-down preview, the lay-down helper and per-player phone links.

* ``POST /api/v1/zaubercocktail/preview`` — points of a lay-down being entered (pure, open).
* ``GET  /api/v1/zaubercocktail/cards`` — the recipe cards' faces (for the physical deck).
* ``GET  /api/v1/zaubercocktail/history`` — the earlier rounds of the running game.
* ``GET  /api/v1/zaubercocktail/lay-downs/<seat>`` — a sample of the lay-downs a player may
  enter now, which the lay-down screen asks for when it opens (public facts only).
* ``POST /api/v1/zaubercocktail/link`` — table only: a player's private link, as URL and QR.
* ``GET  /zc/hand/<token>`` — the player's private page (phone): enter the hand, get advice.
* ``POST /api/v1/zaubercocktail/helper`` — best lay-down and runner-up of a hand.
* ``POST /api/v1/zaubercocktail/send`` — the phone lays down that player's entry (one seat only).

A player's link is the general seat link (web_ui/seats.py, docs/seats.md): a token
signed with the app's secret key, bound to the game (its id in the store), the seat and
the table PIN (a new PIN revokes every link); ``/seat/<token>`` opens this page. It is a capability for exactly two things: asking the helper (pure arithmetic on the hand
the phone sends) and entering *that seat's* hidden lay-down. It never reads another
player's data, and never acts for the table.

The phone page loads its script and styles from the plug-in's own ``static/`` folder,
which the web side serves at ``/games/zaubercocktail/<file>``.

The engine and the lay-down arithmetic are imported by the routes that use them: every
blueprint is registered when the daemon starts, but a table without a Zaubercocktail
game never needs them.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template

from controller.contracts import SeatSession, State
from controller.games import Game
from controller.games.base import Refusal
from web_ui import auth, ctx, seats
from web_ui.api import json_object, whole_number
from web_ui.errors import ApiError

from . import PLUGIN

bp = Blueprint("zaubercocktail_api", __name__, template_folder="templates")

GAME = PLUGIN.id
API = f"/api/v1/{GAME}"
ASSETS = f"/games/{GAME}"       # the plug-in's static/ folder, as the web side serves it
TOKEN_SALT = seats.TOKEN_SALT


# --- tokens: the general seat links (web_ui/seats.py) -------------------------------------
Holder = seats.Holder


def check_token(token: Any, *, claim: bool = True) -> Holder:
    """The seat a token speaks for on this device, or 401 (none), 403 (forged, PIN changed,
    another phone holds the seat), 404 (not a Zaubercocktail game), 409 (other game).
    The first device to use it claims the seat (docs/seats.md)."""
    return seats.check_token(token, GAME, claim=claim)


# --- routes ------------------------------------------------------------------------------
@bp.post(f"{API}/preview")
def preview() -> Response:
    """Live points while a lay-down is entered; reveals nothing, so needs no PIN."""
    from . import laydown

    data = json_object()
    return jsonify(laydown.preview(data.get("cards"), data.get("black")))     # never refuses: it says why


@bp.get(f"{API}/cards")
def recipe_cards() -> Response:
    """Every card of the recipe deck, face up (the cards are public; their order is not)."""
    from .engine import Zaubercocktail

    return jsonify(Zaubercocktail().recipe_cards())


@bp.get(f"{API}/history")
def history() -> Response:
    """The earlier rounds of the running game (the per-version message carries only the
    last one, so it does not grow with the game)."""
    from .engine import Zaubercocktail

    rounds = ctx().table.inspect(lambda engine, state: engine.history(state)
                                 if isinstance(engine, Zaubercocktail) else None)
    if rounds is None:
        raise ApiError(404, "no Zaubercocktail game is running")
    return jsonify(rounds)


@bp.get(f"{API}/lay-downs/<int:seat>")
def lay_downs(seat: int) -> Response:
    """A sample of the lay-downs ``seat`` may enter now (empty when it may not): laying
    nothing and every single set surely left. Open like any reading: it is shaped only by
    public facts (how many have entered), never by a hidden entry. The lay-down screen
    asks for it when it opens, so the live message does not carry it every version."""
    from .engine import Zaubercocktail

    def read(engine: Game, state: State) -> dict[str, Any] | None:
        if not isinstance(engine, Zaubercocktail):
            return None
        if seat >= len(state["players"]):
            raise ApiError(404, f"there is no seat {seat} at this table (0 to {len(state['players']) - 1})")
        sample = engine.lay_downs(state, seat)
        return {"seat": seat, "may_enter": bool(sample), "lay_downs": sample}

    answer = ctx().table.inspect(read)
    if answer is None:
        raise ApiError(404, "no Zaubercocktail game is running")
    return jsonify(answer)


@bp.post(f"{API}/link")
@auth.table_required
def player_link() -> Response:
    """The table hands out a player's private link (and QR code); only an unlocked tablet may."""
    data = json_object()
    session = seats.running(GAME)
    seat = whole_number(data, "seat", low=0, high=len(session["players"]) - 1)
    if seat is None:
        raise ApiError(400, '"seat" must say whose link, e.g. {"seat": 0}')
    return jsonify(seats.seat_link(session, seat))


@bp.get("/zc/hand/<token>")
def hand_page(token: str) -> tuple[str, int, dict[str, str]]:
    """A player's private helper page (their phone). No table data on it but their name."""
    try:
        holder = check_token(token, claim=False)      # its script's first request claims
    except ApiError as exc:
        return render_template("error.html", code=exc.status, sentence=exc.message), exc.status, \
            {"Cache-Control": "no-store"}
    from . import laydown

    boot = {"token": token, "seat": holder.seat, "name": holder.name,
            "kinds": [{"id": k["id"], "name": k["name"], "cards": k["cards"], "most": k["most"]}
                      for k in laydown.kinds().values()],
            "black_something": laydown.default_data()["black_something"]}
    return render_template("zaubercocktail_hand.html", boot=boot, assets=ASSETS), 200, {
        "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _hand_holder(data: dict[str, Any]) -> Holder | None:
    """Token holders (phones) or the unlocked table (the tablet's hidden helper)."""
    if "token" in data:
        return check_token(data["token"])
    auth.check_table()
    return None


@bp.post(f"{API}/helper")
def helper() -> Response:
    """The best legal lay-down of a whole hand, and the runner-up (stateless)."""
    data = json_object()
    _hand_holder(data)
    from . import laydown

    hand, black = data.get("hand"), data.get("black", 0)
    try:
        return jsonify(laydown.best_lay_downs(hand, black))
    except Refusal as exc:                  # a hand is not an action: any refusal is a bad request
        raise ApiError(400, str(exc)) from None


@bp.post(f"{API}/send")
def send_lay_down() -> Response:
    """A phone enters its own player's lay-down: exactly one lay_down action, for that seat."""
    data = json_object()
    holder = check_token(data.get("token"))
    action = {"type": "lay_down", "seat": holder.seat,
              "cards": data.get("cards"), "black": data.get("black")}
    ctx().table.act(action, source="phone")       # malformed counts 400, the rules 422 (errors.py)
    mine = _seat_session(holder.seat)["private"]
    # Only this seat's own entry comes back: the phone confirms what it sent.
    return jsonify({"seat": holder.seat, "name": holder.name, "entry": mine["entry"]})


def _seat_session(seat: int) -> SeatSession:
    """The running game as ``seat`` sees it (404 if the game went away meanwhile)."""
    try:
        return seats.seat_session(seat)
    except ApiError:
        raise ApiError(404, "no Zaubercocktail game is running at this table") from None


@bp.post(f"{API}/me")
def my_status() -> Response:
    """What the holder's phone may know: may they enter now, and have they entered."""
    data = json_object()
    holder = check_token(data.get("token"))
    session = _seat_session(holder.seat)
    view, mine = session["state"], session["private"]
    return jsonify({"seat": holder.seat, "name": holder.name, "phase": view["phase"],
                    "may_enter": mine["may_enter"],
                    "entered": view["players"][holder.seat]["entered"],
                    "entry": mine["entry"]})
