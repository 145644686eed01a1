"""The table's records for the tablet: the running game's log in words, past games,
per-player statistics, remembered names and each game's rules quick reference.
All read from the store (they survive restarts); reading needs no PIN, like watching.
"""
from __future__ import annotations

from typing import Callable, Iterator

from flask import Blueprint, Response, jsonify, request

from controller import games, records
from controller.games.base import load_data

from . import ctx
from .errors import ApiError

bp = Blueprint("records", __name__)

# The BG Stats file and the statistics (controller/bgstats.py, controller/stats.py) are
# imported by their first download, not by every daemon at start (docs/performance.md).


def _book() -> records.LogBook:
    """One per app (its table and store): replays each game once, then only news."""
    return ctx().extras.setdefault("log_book", records.LogBook())


def _limit(default: int, most: int) -> int:
    raw = request.args.get("limit", str(default))
    if not raw.isdigit() or not 1 <= int(raw) <= most:
        raise ApiError(400, f'"limit" must be a whole number from 1 to {most}')
    return int(raw)


def _rows(limit: int) -> list[dict]:
    return ctx().table.store.history(limit)


def _every_game(*, newest_first: bool = False,
                statuses: tuple[str, ...] | None = None) -> Callable[[], Iterator[dict]]:
    """The whole history, read from the store a batch at a time each time it is called
    (a download streams it: memory stays flat however many games were played)."""
    store = ctx().table.store
    return lambda: store.iter_games(newest_first=newest_first, statuses=statuses)


@bp.get("/api/v1/session/log")
def session_log() -> Response:
    """The running game's actions in words, newest first (``limit``, default 200), undo marked."""
    session = ctx().table.session()
    if session is None:
        raise ApiError(404, "no game is running, so there is no log")
    store = ctx().table.store
    game = next((g for g in store.history(5) if g["id"] == session["id"]), None)
    if game is None:
        raise ApiError(404, "this game is not in the table's history")
    entries = _book().entries(game, store.actions(game["id"]))
    limit = _limit(200, 10_000)           # the newest; a long game has thousands
    return jsonify({"game": game["id"], "version": session["version"], "total": len(entries),
                    "entries": entries[:limit]})


@bp.get("/api/v1/history")
def history() -> Response:
    """Past games, newest first: players, winners, ranking, minutes played."""
    return jsonify({"games": records.past_games(_rows(_limit(50, 1000)))})


@bp.get("/api/v1/history.csv")
def history_csv() -> Response:
    """Every game as CSV (one line per player), to keep or open in a spreadsheet."""
    rows = _every_game(newest_first=True)()
    return Response(records.history_csv(rows), mimetype="text/csv",
                    headers={"Content-Disposition": 'attachment; filename="potionpi-history.csv"'})


def _bgsplay(pieces: Iterator[str], name: str) -> Response:
    return Response(pieces, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/api/v1/history.bgsplay")
def history_bgstats() -> Response:
    """Every finished game as a BG Stats play file (controller/bgstats.py)."""
    from controller import bgstats
    try:
        return _bgsplay(bgstats.play_file(_every_game(statuses=bgstats.FINISHED)), bgstats.filename())
    except bgstats.ExportError as exc:
        raise ApiError(exc.status, str(exc)) from None


@bp.get("/api/v1/history/<int:game_no>.bgsplay")
def game_bgstats(game_no: int) -> Response:
    """One finished game as a BG Stats play file; a running game is refused (409)."""
    from controller import bgstats
    row = ctx().table.store.game(game_no)
    try:
        pieces = bgstats.one_game(row, game_no)
    except LookupError as exc:
        raise ApiError(404, str(exc)) from None
    except bgstats.ExportError as exc:
        raise ApiError(exc.status, str(exc)) from None
    assert row is not None                # one_game refused an unknown game
    return _bgsplay(pieces, bgstats.filename(game_no, row["game"]))


@bp.get("/api/v1/stats")
def stats() -> Response:
    """The players' statistics from the finished games, in one pass over the history
    (controller/stats.py): per player and game, per player, head-to-head, and each game's
    wins and scores over time."""
    from controller import bgstats
    from controller.stats import table_stats
    return jsonify(table_stats(_every_game(statuses=bgstats.FINISHED)()))


@bp.get("/api/v1/players")
def players() -> Response:
    """Names from past games, most recent first, for the start form."""
    return jsonify({"players": records.known_players(_rows(200))})


@bp.get("/api/v1/games/<game_id>/quickref")
def quickref(game_id: str) -> Response:
    """A game's turn summary and scoring in a few lines (its plug-in's quickref.toml)."""
    plugin = games.plugins().get(game_id)
    if plugin is None:
        raise ApiError(404, f'there is no game "{game_id}"')
    try:
        data = load_data(plugin.package, "quickref.toml")
    except FileNotFoundError:
        raise ApiError(404, f"{plugin.name} has no quick reference yet") from None
    return jsonify({"game": game_id, "name": plugin.name,
                    "turn": list(data.get("turn", [])), "scoring": list(data.get("scoring", []))})
