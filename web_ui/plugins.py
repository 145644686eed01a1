"""Each game plug-in's tablet files: ``/games/<game id>/<file>`` from its ``static/`` folder.

The tablet page loads ``/games/<id>/tablet.js`` (which exports ``render(root, session,
ctx)``) and ``/games/<id>/tablet.css``; a game's other modules sit beside them and are
imported relatively. The shared helpers stay under ``/static/js/``.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, send_from_directory

from controller import games

bp = Blueprint("games", __name__)


@bp.get("/games/<game_id>/<path:filename>")
def asset(game_id: str, filename: str) -> Response:
    """One file of a game's tablet, with the same caching as ``/static``."""
    plugin = games.plugins().get(game_id)
    if plugin is None:
        abort(404)
    folder = plugin.static_dir()
    if not folder.is_dir():
        abort(404)
    # send_from_directory refuses any name that leaves the folder ("..", absolute paths): 404
    return send_from_directory(str(folder), filename,
                               max_age=current_app.get_send_file_max_age(filename))
