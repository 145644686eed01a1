"""Shared by the secret-leak tests: no seat's secret may show where it does not belong,
nor in what the table is told (the game log, the "what just happened" line, read aloud)."""
from __future__ import annotations

import json
from typing import Any, Iterable

from controller.games import Game
from controller.table import build_session


def dump(value: Any) -> str:
    """The JSON text a client would receive (compact, as the API and the stream send it)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


def assert_no_secrets(where: Any, secrets: Iterable[Any], *, what: str = "the public session") -> None:
    """Fail if the JSON dump of ``where`` contains any secret's JSON dump (a card id is
    checked with its quotes, so "goal-1" never matches inside "goal-12")."""
    text = dump(where)
    for secret in secrets:
        assert dump(secret) not in text, f"{what} carries a secret: {dump(secret)}"


def assert_seat_keeps_its_secrets(public: Any, other_seats: Iterable[Any], secrets: Iterable[Any]) -> None:
    """A seat's secrets are in neither the public session nor any other seat's session."""
    secrets = list(secrets)
    assert_no_secrets(public, secrets)
    for other in other_seats:
        assert_no_secrets(other, secrets, what=f"seat {other.get('seat')}'s session")


def public_session(game: Game, state: dict[str, Any]) -> dict[str, Any]:
    """The public session exactly as Table builds it for GET /api/v1/session and the stream
    (``told`` included: the words the game log and the tablet's line say; and the running
    score, compared with the rest)."""
    session = dict(build_session(game, state, game_id=1, game=game.id, version=1, players=state["players"]))
    assert session["scores"] is not None and session["scores"]["lines"]
    return session


def assert_told_no_secret(game: Game, first: tuple[dict[str, Any], dict[str, Any]],
                          second: tuple[dict[str, Any], dict[str, Any]]) -> bool:
    """``first`` and ``second`` are (state, action) pairs that differ only in what is hidden
    (a twin game with the hands dealt otherwise, or an action choosing another secret card).
    If the public sessions after them differ in nothing but what the table was told, the
    words told a secret: fail. True when they are the same; False when the rules revealed
    something (the public table itself differs), so the words may too."""
    after = [public_session(game, game.apply(state, action)[0]) for state, action in (first, second)]
    told = [a.pop("told") for a in after]
    if dump(after[0]) != dump(after[1]):
        return False
    assert told[0] == told[1], f"the table is told a secret: {told[0]} / {told[1]}"
    return True
