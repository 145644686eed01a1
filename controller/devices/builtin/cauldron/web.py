"""The simulated cauldron's routes (docs/api.md): turn its grip, let a drop fall.

A table with simulated devices (``--sim``) has no hand at a real grip: the panel of
``static/sim.js`` (served at ``/devices/cauldron/sim.js``, placed by a game that has a
cauldron) sends these. A real cauldron's table answers 404: turn it by hand.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Blueprint, Response, request

from web_ui import auth, ctx
from web_ui.api import json_object, session_response, whole_number
from web_ui.errors import ApiError

if TYPE_CHECKING:
    from ...sim_cauldron import SimulatedCauldron

bp = Blueprint("cauldron_sim", __name__)


def simulated_cauldron() -> SimulatedCauldron:
    c = ctx()
    cauldron = c.devices.get("cauldron") if c.simulated and c.devices is not None else None
    if cauldron is not None:
        from ...sim_cauldron import SimulatedCauldron    # a real table never loads the mock pins
        if isinstance(cauldron, SimulatedCauldron):
            return cauldron
    raise ApiError(404, "this table has a real cauldron; turn it by hand")


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
