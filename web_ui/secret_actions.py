"""The table's PIN never reaches a seat's secrets (docs/security.md, threat model).

Every player knows the table PIN, so whatever the PIN route (``POST
/api/v1/session/actions``, the tablet's cookie too) can do, every player can do. An action
a game declares secret (``Game.is_secret``: a hand card, a secret goal, a pencil note)
comes only from that seat's own phone. The refusal is decided before the engine sees the
action, from the action and public facts alone (the seat's name, whether a phone holds
it), so its status and sentence never depend on what is hidden.
"""
from __future__ import annotations

from controller.contracts import Action, State
from controller.games import Game

from . import ctx
from .errors import ApiError


def from_the_table(engine: Game, state: State, action: Action) -> None:
    """``Table.act``'s permit for the PIN route: 403 for a secret action, unless the game
    lets the tablet enter it for a seat no phone holds (``secrets_at_the_tablet``)."""
    if not engine.is_secret(state, action):
        return
    seat = engine.seat_of(state, action)      # not a seat at all: 400, as the engine says it
    name = state["players"][seat]
    if engine.secrets_at_the_tablet:
        session = ctx().table.session()
        if session is not None and seat not in ctx().claims.claimed(session["id"]):
            return
        raise ApiError(403, f"{name}'s seat is on {name}'s own phone: {name} enters it there "
                            "(the tablet does it only for a seat no phone has opened)")
    raise ApiError(403, f"only {name}'s own phone can do that: it names {name}'s hidden cards, "
                        f"which the table's PIN never reaches. {name} opens the seat from Phone links")
