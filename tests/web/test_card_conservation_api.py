"""Zaubercocktail over HTTP: a lay-down the deck cannot hold is refused with a sentence
naming the count (422), and nothing changes."""
from __future__ import annotations

from tests.web.helpers import AUTH, act


def test_a_lay_down_beyond_the_deck_is_a_422_that_names_the_rule(client):
    response = client.post("/api/v1/session", json={"game": "zaubercocktail", "players": ["A", "B", "C", "D", "E"],
                                                    "seed": 1}, headers=AUTH)
    assert response.status_code == 201
    act(client, {"type": "reveal"})
    for seat in (0, 1, 2):
        act(client, {"type": "drop_out", "seat": seat})
    for seat in (0, 1, 2, 3):
        ok = act(client, {"type": "lay_down", "seat": seat, "cards": {"blue_schlums": 6}, "black": {}})
        assert ok.status_code == 200, ok.get_json()
    before = client.get("/api/v1/session").get_json()["version"]
    refused = act(client, {"type": "lay_down", "seat": 4, "cards": {"blue_schlums": 7}, "black": {}})
    assert refused.status_code == 422
    assert refused.get_json()["error"].startswith("The game has only 27 Blue Schlums cards")
    assert client.get("/api/v1/session").get_json()["version"] == before
    # three are left: that lay-down can exist
    assert act(client, {"type": "lay_down", "seat": 4, "cards": {"blue_schlums": 3}, "black": {}}).status_code == 200
