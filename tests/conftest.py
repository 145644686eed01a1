"""Shared fixtures: a tiny counting game for table tests, temp stores."""
from __future__ import annotations

import pytest

from controller.games.base import Game, IllegalAction
from controller.store import Store


class TallyGame(Game):
    """A minimal engine for exercising the table: add 1..3 until the tally reaches 10."""

    id = "tally"
    name = "Tally"
    min_players, max_players = 1, 4

    def setup(self, players, seed, options=None):
        self.check_players(players)
        return {"tally": 0, "turn": 0, "players": len(players)}

    def legal_actions(self, state):
        return [{"type": "add", "n": n} for n in (1, 2, 3) if state["tally"] + n <= 10]

    def apply(self, state, action):
        if action.get("type") != "add" or action.get("n") not in (1, 2, 3):
            raise IllegalAction("you may add 1, 2 or 3")
        if state["tally"] + action["n"] > 10:
            raise IllegalAction("the tally may not pass 10")
        new = dict(state, tally=state["tally"] + action["n"], turn=(state["turn"] + 1) % state["players"])
        return new, [{"device": "counter", "op": "show", "value": new["tally"]}]

    def view(self, state, seat=None):
        return {"tally": state["tally"], "active": state["turn"]}

    def outcome(self, state):
        return {"winners": [(state["turn"] - 1) % state["players"]]} if state["tally"] == 10 else None


def load_tally(game_id):
    if game_id != "tally":
        raise KeyError(game_id)
    return TallyGame()


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "potionpi.sqlite3")
    yield s
    s.close()
