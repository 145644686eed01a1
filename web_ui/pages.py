"""The tablet page: server-rendered shell, then small ES modules keep it live."""
from __future__ import annotations

import gzip

from flask import Blueprint, Response, render_template, request

from . import assets, auth, ctx
from .api import offered_games
from .floor_api import floor_report
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
        # the Pico's firmware against ours and the forest floor's state, in the page: a
        # reload asks for nothing but the page and the stream
        "firmware": firmware_state(host_with_pico_only=True),
        "floor": floor_report(),
    }
    if boot["unlocked"]:
        c.remember_unlocked(auth.client_address())
    html = render_template("table.html", boot=boot, csrf=auth.csrf_token(),
                           simulated=c.simulated, unlocked=boot["unlocked"],
                           preloads=assets.preload_tags(boot["session"]["game"] if boot["session"] else None))
    return compressed(html, {"Cache-Control": "no-store"})


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
