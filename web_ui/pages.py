"""The tablet page: server-rendered shell, then small ES modules keep it live."""
from __future__ import annotations

from flask import Blueprint, render_template

from . import assets, auth, ctx
from .api import offered_games
from .owner import firmware_state

bp = Blueprint("pages", __name__)


@bp.get("/")
def table_page() -> tuple[str, int, dict[str, str]]:
    c = ctx()
    boot = {
        "session": c.table.session(),
        "games": offered_games(),
        "simulated": c.simulated,
        "unlocked": auth.unlocked(),
        "keepalive_seconds": c.settings["keepalive_seconds"],
        "damaged": c.table.damaged,          # the last game could not be resumed: say so
        # the Pico's firmware against ours, in the page: a reload asks for nothing more
        "firmware": firmware_state(),
    }
    if boot["unlocked"]:
        c.remember_unlocked(auth.client_address())
    response = render_template("table.html", boot=boot, csrf=auth.csrf_token(),
                               simulated=c.simulated, unlocked=boot["unlocked"],
                               preloads=assets.preload_tags(boot["session"]["game"] if boot["session"] else None))
    return response, 200, {"Cache-Control": "no-store"}
