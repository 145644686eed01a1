"""The tablet page: server-rendered shell, then small ES modules keep it live."""
from __future__ import annotations

import gzip

from typing import Any

from flask import Blueprint, Response, render_template, request

from controller import devices

from . import assets, auth, ctx
from .api import offered_games
from .owner import firmware_state

bp = Blueprint("pages", __name__)

#: gzip level for the page: its ~23 KB of HTML and boot data shrink ~4x in well under a
#: millisecond on a Pi; a higher level saves a few hundred bytes for twice the time
PAGE_GZIP_LEVEL = 6


@bp.get("/")
def table_page() -> Response:
    c = ctx()
    boot = {
        "session": c.table.session(),
        "games": offered_games(),
        "simulated": c.simulated,
        "unlocked": auth.unlocked(),
        "keepalive_seconds": c.settings["keepalive_seconds"],
        "damaged": c.table.damaged,          # the last game could not be resumed: say so
        # the Pico's firmware against ours and the devices' state (the forest floor's), in
        # the page: a reload asks for nothing but the page and the stream
        "firmware": firmware_state(host_with_pico_only=True),
        "devices": device_states(),
    }
    if boot["unlocked"]:
        c.remember_unlocked(auth.client_address())
    game = boot["session"]["game"] if boot["session"] else None
    html = render_template("table.html", boot=boot, csrf=auth.csrf_token(),
                           simulated=c.simulated, unlocked=boot["unlocked"], game=game,
                           preloads=assets.preload_tags(game))
    return compressed(html, {"Cache-Control": "no-store"})


def device_states() -> dict[str, Any]:
    """Each device plug-in's ``page_state`` by name (the game's module reads ``ctx.devices``)."""
    out = {}
    for name, plugin in devices.plugins().items():
        state = plugin.page_state()
        if state is not None:
            out[name] = state
    return out


def compressed(html: str, headers: dict[str, str]) -> Response:
    """An HTML answer, gzip'd when the browser accepts it (the page is sent afresh on
    every load: it carries the session and a CSRF token, so it is never cached)."""
    data = html.encode()
    response = Response(data, mimetype="text/html", headers=headers)
    response.headers["Vary"] = "Accept-Encoding"
    if "gzip" in request.headers.get("Accept-Encoding", "") and len(data) >= assets.MIN_GZIP:
        response.set_data(gzip.compress(data, compresslevel=PAGE_GZIP_LEVEL, mtime=0))
        response.headers["Content-Encoding"] = "gzip"
    return response
