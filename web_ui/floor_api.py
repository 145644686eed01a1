"""The forest floor's own routes: live status, the safety stop, homing (docs/zauberwald-tablet.md).

* ``GET /api/v1/floor`` — open to watchers, polled by the tablet a few times a second
  while the floor moves: ``{"floor": status | null, "turn": {...} | null}``.
* ``POST /api/v1/floor/stop`` — halts the floor at once. **No PIN**: a safety stop must
  work from any tablet at the table, locked or not. It is still CSRF-safe: a cookie client
  must send the page's ``X-CSRF-Token`` (a page on another site can neither read it nor
  set the header), a script sends ``X-Table-Pin``.
* ``POST /api/v1/floor/home`` — finds the home mark; needs the table PIN like any change.

The turns themselves are never started here: only the game's ``turn`` action (after the
tablet's countdown) makes the floor move, through the table's effects.
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, jsonify, request
from flask.blueprints import BlueprintSetupState

from . import auth, ctx
from .errors import ApiError

if TYPE_CHECKING:
    from controller.devices.forest_floor import ForestFloor

    from . import TableContext

bp = Blueprint("floor_api", __name__)

NO_FLOOR = ("there is no forest-floor motor on this table: turn the floor by hand "
            "and tap done on the tablet")
BUSY = "the forest floor is still turning; stop it first"


class TurnWatch:
    """Remembers where the floor stood when its latest turn began, so every tablet (even one
    opened mid-turn) can say how far it got and how much is left to turn by hand."""

    def __init__(self, ants_around: int):
        self.ants_around = ants_around
        self.turn: dict[str, Any] | None = None
        self._active = False
        self._lock = threading.Lock()

    def __call__(self, status: dict[str, Any]) -> None:     # from the floor's motion thread
        move = status.get("last_move") or {}
        with self._lock:
            if move.get("result") != "moving":
                self._active = False
                return
            if self._active:
                return
            self._active = True
            # a homing or a calibration nudge moves the floor: the old start means nothing now
            self.turn = ({"start": float(status["position"]), "ants": int(move["ants"]),
                          "direction": move["direction"]} if "ants" in move else None)

    def progress(self, position: float) -> dict[str, Any] | None:
        with self._lock:
            turn = dict(self.turn) if self.turn else None
        if turn is None:
            return None
        n = self.ants_around
        moved = (position - turn["start"]) if turn["direction"] == "clockwise" else (turn["start"] - position)
        moved %= n
        if moved > n - 0.5:           # a hair behind the start (rounding), not a whole lap ahead
            moved = 0.0
        moved = min(moved, float(turn["ants"]))
        turn.update(travelled=round(moved, 2), remaining=round(turn["ants"] - moved, 2))
        return turn


@bp.record_once
def _watch_the_floor(setup_state: BlueprintSetupState) -> None:
    floor = _floor_of(setup_state.app.extensions["potionpi"])
    if floor is not None:
        watch = TurnWatch(floor.ants_around)
        floor.on_change(watch)
        setup_state.app.extensions["potionpi"].extras["turn_watch"] = watch


def _floor_of(context: TableContext) -> ForestFloor | None:
    return getattr(context.devices, "forest_floor", None) if context.devices is not None else None


def _floor() -> ForestFloor:
    floor = _floor_of(ctx())
    if floor is None:
        raise ApiError(404, NO_FLOOR)
    return floor


def _report(floor: ForestFloor) -> dict[str, Any]:
    status = floor.status()
    watch = ctx().extras.get("turn_watch")
    return {"floor": status, "turn": watch.progress(status["position"]) if watch else None}


def floor_report() -> dict[str, Any]:
    """What ``GET /api/v1/floor`` answers (the tablet page carries it too, so a reload
    draws the floor without asking)."""
    floor = _floor_of(ctx())
    if floor is None:           # not an error: the tablet then asks for turns by hand
        return {"floor": None, "turn": None, "message": NO_FLOOR}
    return _report(floor)


@bp.get("/api/v1/floor")
def floor_status() -> tuple[Response, int, dict[str, str]]:
    return jsonify(floor_report()), 200, {"Cache-Control": "no-store"}


@bp.post("/api/v1/floor/stop")
def floor_stop() -> Response:
    if request.headers.get(auth.PIN_HEADER) is not None:
        auth.check_table()          # a script: its PIN must be right
    else:
        auth.check_csrf()           # a tablet: locked or not, but really this page
    floor = _floor()
    floor.stop()
    return jsonify(_report(floor))


@bp.post("/api/v1/floor/home")
@auth.table_required
def floor_home() -> Response:
    floor = _floor()
    if floor.state in ("moving", "homing"):
        raise ApiError(409, BUSY)
    if ctx().table.is_legal({"type": "floor_turned"}):
        # the game waits for a turn of the floor: homing now would be taken for it
        raise ApiError(409, "the game is waiting for this turn of the floor: finish it by hand and "
                            "tap done, then home the floor")
    try:
        floor.home()
    except RuntimeError as exc:         # FloorBusy: a move began meanwhile
        raise ApiError(409, str(exc) or BUSY) from None
    return jsonify(_report(floor))
