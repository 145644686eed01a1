"""A game that has ended, for the tablet: its steps one page at a time (what the table saw
after each action, with the log's words) and its running score over the whole game.
Read from the store like the rest of the history; reading needs no PIN. A game still being
played is refused (409) with a sentence: controller/replays.py says why.
"""
from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from controller import records

from . import ctx
from .errors import ApiError

# controller/replays.py is imported by the first replay asked for, not at start

bp = Blueprint("replays", __name__)


def _number(key: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(key, str(default))
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ApiError(400, f'"{key}" must be a whole number from {low} to {high}')
    return int(raw)


@bp.get("/api/v1/history/<int:game_no>/replay")
def replay(game_no: int) -> Response:
    """Steps ``from`` (default 0: the set-up) on, ``limit`` of them (default 25, at most 100)."""
    from controller import replays
    start = _number("from", 0, 0, 10**9)
    limit = _number("limit", replays.PAGE, 1, replays.PAGE_MOST)
    book = ctx().extras.setdefault("log_book", records.LogBook())      # the game log's own book
    try:
        return jsonify(replays.page(ctx().table.store, book, game_no, start, limit))
    except replays.NotReplayable as exc:
        raise ApiError(exc.status, str(exc)) from None


@bp.get("/api/v1/history/<int:game_no>/scores")
def scores(game_no: int) -> Response:
    """Every score line of the game as it changed from the set-up to the end."""
    from controller import replays
    book = ctx().extras.setdefault("score_book", replays.ScoreBook())
    try:
        return jsonify(book.over_the_game(ctx().table.store, game_no))
    except replays.NotReplayable as exc:
        raise ApiError(exc.status, str(exc)) from None
