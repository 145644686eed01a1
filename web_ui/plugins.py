"""Each plug-in's tablet files: ``/games/<game id>/<file>`` from a game's ``static/`` folder,
``/devices/<name>/<file>`` from a device plug-in's (the forest floor's ``floor.js``).

The tablet page loads ``/games/<id>/tablet.js`` (which exports ``render(root, session,
ctx)``) and ``/games/<id>/tablet.css``; a game's other modules sit beside them and are
imported relatively. The shared helpers stay under ``/static/js/``.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort

from controller import games
from controller.config import DEVICES

from . import assets

bp = Blueprint("games", __name__)


@bp.get("/games/<game_id>/<path:filename>")
def asset(game_id: str, filename: str) -> Response:
    """One file of a game's tablet, gzip'd and cached like ``/static`` (web_ui/assets.py)."""
    plugin = games.plugins().get(game_id)
    if plugin is None:
        abort(404)
    folder = plugin.static_dir()
    if not folder.is_dir():
        abort(404)
    # any name that leaves the folder ("..", absolute paths) is a 404
    return assets.serve(folder, filename)


@bp.get("/devices/<name>/<path:filename>")
def device_asset(name: str, filename: str) -> Response:
    """One file of a device plug-in's tablet module, served as a game's are."""
    device = DEVICES.get(name)
    folder = device.folder / "static" if device is not None else None
    if folder is None or not folder.is_dir():
        abort(404)
    return assets.serve(folder, filename)
