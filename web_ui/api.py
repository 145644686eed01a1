"""The JSON API under /api/v1 and GET /healthz (contract: docs/api.md)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from flask import Blueprint, Response, current_app, jsonify, request

from controller import __version__, games
from controller.contracts import Session
from controller.games import InvalidAction, Whole
from controller.games.fields import read
from controller.table import NoGame

from . import JSONRefused, auth, ctx, secret_actions
from .errors import ApiError

if TYPE_CHECKING:
    from controller.devices.sim_cauldron import SimulatedCauldron

bp = Blueprint("api", __name__)

# --- reading the request -------------------------------------------------------------
def json_object() -> dict[str, Any]:
    """The request body as a JSON object, or 400 saying what is wrong with it."""
    try:
        data = current_app.json.loads(request.get_data(cache=True) or b"null")
    except JSONRefused as exc:
        raise ApiError(400, f"the request body was refused: {exc}") from None
    except ValueError:                      # not JSON at all (or not UTF-8)
        data = None
    if data is None:
        raise ApiError(400, "the request body must be JSON")
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def whole_number(data: dict[str, Any], key: str, *, low: int | None = None,
                 high: int | None = None) -> int | None:
    """``data[key]``, a whole number within the bounds, or None if left out (400 if not)."""
    number: int | None = read(data, {key: Whole(low, high, default=None)}, {}, InvalidAction)[key]
    return number


# --- health and games ------------------------------------------------------------------
@bp.get("/healthz")
def healthz() -> Response:
    c = ctx()
    devices = c.devices.status() if c.devices is not None else {}
    session = c.table.session()
    problem = c.table.store.problem             # e.g. the SD card is full
    return jsonify({"status": "ok" if problem is None else "degraded", "storage": problem,
                    # which potionpi answers: an update's health check waits for the new one
                    "version": __version__,
                    "devices": devices, "simulated": c.simulated,
                    "game": None if session is None else {"id": session["id"], "game": session["game"],
                                                          "version": session["version"]},
                    "streams": c.streams,
                    # a game that could not be resumed at start-up (closed as damaged), or null
                    "damaged": c.table.damaged})


def offered_games() -> list[dict[str, Any]]:
    """The games this build runs: id, name, player counts and the set-up toggles of the
    start screen (``settings_legend``; ``toggles``: option, value, label, hint). Read from
    the plug-ins, so no engine is imported to list them."""
    return [plugin.info() for plugin in games.plugins().values()]


@bp.get("/api/v1/games")
def list_games() -> Response:
    return jsonify(offered_games())


# --- the session (the running game) --------------------------------------------------
def session_response(session: Session | None, wrap: bool = False) -> Response:
    """``jsonify(session)`` (``{"session": ...}`` when ``wrap``), from the JSON the live
    streams send: a tap's answer is not encoded again while the streams are sending it."""
    data = "null" if session is None else ctx().extras["messages"].json(session)
    return current_app.response_class(f'{{"session":{data}}}\n' if wrap else f"{data}\n",
                                      mimetype="application/json")


@bp.get("/api/v1/session")
def get_session() -> Response:
    session = ctx().table.session()
    if session is None:
        raise NoGame()          # 404, saying why when the last game could not be resumed (errors.py)
    return session_response(session)


@bp.post("/api/v1/session")
@auth.table_required
def start_session() -> tuple[Response, int]:
    data = json_object()
    game_id = data.get("game")
    offered = games.available()
    if not isinstance(game_id, str) or not game_id:
        raise ApiError(400, f'"game" must name a game, e.g. "{offered[0] if offered else "mirakel-mix"}"')
    if game_id not in offered:
        raise ApiError(400, f'there is no game "{game_id}" here; this table runs: {", ".join(offered)}')
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise ApiError(400, '"players" must be a list of names, e.g. ["Ann", "Ben"]')
    players = [p.strip() for p in players]
    seed = whole_number(data, "seed", low=0, high=2**63 - 1)
    options = data.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise ApiError(400, '"options" must be a JSON object')
    # BadSetup (422, web_ui/errors.py): e.g. five players for a 2-4 player game
    session = ctx().table.start(game_id, players, seed, options)
    return jsonify(session), 201


@bp.post("/api/v1/session/actions")
@auth.table_required
def post_action() -> Response:
    data = json_object()
    action = data.get("action")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ApiError(400, '"action" must be an object with a "type", e.g. {"type": "empty_bowl", "bowl": 0}')
    version = whole_number(data, "version", low=0, high=2**63 - 1)
    game_id = whole_number(data, "game_id", low=0, high=2**63 - 1)
    # refusals map to HTTP in web_ui/errors.py: InvalidAction 400, IllegalAction 422, NoGame
    # 404, VersionConflict 409 with the current session; a seat's secret actions come from
    # its phone only (web_ui/secret_actions.py)
    session = ctx().table.act(action, version=version, game_id=game_id, source="player",
                              permit=secret_actions.from_the_table)
    return session_response(session)


# --- the tablet's PIN --------------------------------------------------------------------
@bp.post("/api/v1/login")
def login() -> Response:
    data = json_object()
    pin = data.get("pin")
    if not isinstance(pin, str):
        raise ApiError(400, '"pin" must be the PIN as text, e.g. "4711"')
    auth.log_in(pin.strip())
    return jsonify({"unlocked": True})


@bp.post("/api/v1/logout")
def logout() -> Response:
    auth.log_out()
    return jsonify({"unlocked": False})


# --- the simulated cauldron --------------------------------------------------------------
def simulated_cauldron() -> SimulatedCauldron:
    c = ctx()
    if not c.simulated or c.devices is None:
        raise ApiError(404, "this table has a real cauldron; turn it by hand")
    return cast("SimulatedCauldron", c.devices.cauldron)     # a simulated table's is


@bp.post("/api/v1/sim/cauldron/turn")
def sim_turn() -> Response:
    cauldron = simulated_cauldron()
    auth.check_table()
    data = json_object()
    detents = whole_number(data, "detents", low=-1000, high=1000)
    if detents is None:
        raise ApiError(400, '"detents" must say how far to turn, e.g. {"detents": 6} '
                            '(negative turns back, which mixes)')
    try:
        cauldron.turn(detents)
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    return session_response(ctx().table.session(), wrap=True)


@bp.post("/api/v1/sim/cauldron/drop")
def sim_drop() -> Response:
    cauldron = simulated_cauldron()
    auth.check_table()
    data = json_object() if request.get_data() else {}
    # "color": what a tablet loaded before the spelling was settled still sends
    key = "colour" if "colour" in data or "color" not in data else "color"
    colour = data.get(key)
    if colour is not None and (not isinstance(colour, str) or not colour):
        raise ApiError(400, f'"{key}" must be a colour name such as "red", or left out for a random drop')
    try:
        cauldron.drop(colour)
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    return session_response(ctx().table.session(), wrap=True)
