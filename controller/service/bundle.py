"""What `potionpi export` writes and the settings page downloads: every game and its log."""
from __future__ import annotations

from typing import Any

from .. import __version__
from ..store import Store


WITHHELD = ("the game is still being played, and its log can hold what a player must not "
            "see yet (hidden cards, secret recipes): it comes once the game is over")


def export_games(store: Store, *, withhold_running: bool = False) -> dict[str, Any]:
    """Every game (newest first) with its whole action log, as JSON-ready data.

    ``withhold_running``: leave out the log of a game still being played (the tablet's
    download: whoever knows the table PIN may take it, players included).
    """
    games = store.history(limit=1_000_000)
    for game in games:
        if withhold_running and game["status"] == "playing":
            game["actions"] = None
            game["actions_withheld"] = WITHHELD
        else:
            game["actions"] = store.actions(game["id"])
    return {"potionpi": __version__, "games": games}
