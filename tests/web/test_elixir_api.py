"""Elixir through the API alone: a whole game to a winner, every public session free of
secrets, and bad set-ups and actions answered with a 4xx and a sentence."""
from __future__ import annotations

import json
import pathlib
import random
import sys

from .helpers import AUTH, act

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "games"))
from elixir_support import GAME, all_actions, choose  # noqa: E402
from test_elixir_secrets import perturb  # noqa: E402


def start(client, seed=0, players=("Ann", "Ben"), options=None):
    body = {"game": "elixir", "players": list(players), "seed": seed, "options": options or {"dice": "physical"}}
    response = client.post("/api/v1/session", json=body, headers=AUTH)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_a_whole_game_through_the_api_alone_with_no_secret_in_any_public_session(app, client, table):
    session = start(client)
    # each wizard's secret actions (a drink, the card Phil takes) come from his own phone
    tokens = [s["token"] for s in client.get("/api/v1/seats", headers=AUTH).get_json()["seats"]]
    phones = [app.test_client() for _ in tokens]
    rng = random.Random(0)
    checked = 0
    while session["outcome"] is None:
        state = table._state                      # what the phones' private streams would carry
        action = choose(rng, state, all_actions(state))
        if GAME.is_secret(state, action):
            seat = action["seat"]
            response = phones[seat].post(f"/api/v1/seat/{tokens[seat]}/actions",
                                         json={"action": action, "version": session["version"]})
            assert response.status_code == 200, (action, response.get_json())
            session = client.get("/api/v1/session").get_json()
        else:
            response = act(client, action, version=session["version"])
            assert response.status_code == 200, (action, response.get_json())
            session = response.get_json()
        if session["version"] % 10 == 0:          # the same position with every secret changed
            other = GAME.view(perturb(table._state, rng))
            assert json.dumps(session["state"], sort_keys=True) == json.dumps(other, sort_keys=True)
            checked += 1
        assert session["version"] < 20_000
    assert checked >= 10
    winner = session["outcome"]["winners"][0]
    assert session["outcome"]["reason"] == "elixir_of_life"
    assert session["outcome"]["winner_names"] == [["Ann", "Ben"][winner]]
    assert {"elixir_1", "elixir_2", "elixir_3"} <= set(table._state["wizards"][winner]["brews"])
    assert act(client, {"type": "end_turn", "seat": 0}).status_code == 422      # the game is over


def test_bad_set_up_and_bad_actions_get_a_4xx_with_a_sentence(client, table):
    response = client.post("/api/v1/session", json={"game": "elixir", "players": ["Ann", "Ben"],
                                                    "options": {"dice": "loaded"}}, headers=AUTH)
    assert response.status_code == 422 and 'option "dice"' in response.get_json()["error"]
    response = client.post("/api/v1/session", json={"game": "elixir", "players": ["Ann"]}, headers=AUTH)
    assert response.status_code == 422 and "2 to 4" in response.get_json()["error"]
    session = start(client)
    response = act(client, {"type": "roll", "seat": 0, "value": 9})
    assert response.status_code == 400 and "1 to 6" in response.get_json()["error"]
    response = act(client, {"type": "move", "seat": 0, "to": "lab"})
    assert response.status_code == 422 and "roll" in response.get_json()["error"]
    assert client.get("/api/v1/session").get_json()["version"] == session["version"]   # nothing changed
