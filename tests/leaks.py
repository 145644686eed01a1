"""Shared by the secret-leak tests: no seat's secret may show where it does not belong."""
from __future__ import annotations

import json
from typing import Any, Iterable


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
