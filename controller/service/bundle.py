"""What `potionpi export` writes and the settings page downloads: every game and its log."""
from __future__ import annotations

from typing import Any

from .. import __version__
from ..store import Store


def export_games(store: Store) -> dict[str, Any]:
    """Every game (newest first) with its whole action log, as JSON-ready data."""
    games = store.history(limit=1_000_000)
    for game in games:
        game["actions"] = store.actions(game["id"])
    return {"potionpi": __version__, "games": games}
