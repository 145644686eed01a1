"""Zaubercocktail over HTTP: lay-downs the deck cannot hold together are refused at the
reveal with a sentence naming the kind (422), and nothing changes; an entry itself is
never refused for what the others entered (that would tell their hidden counts)."""
from __future__ import annotations

from tests.web.helpers import AUTH, act


def test_lay_downs_beyond_the_deck_are_a_422_at_the_reveal_that_names_the_rule(client):
    response = client.post("/api/v1/session", json={"game": "zaubercocktail", "players": ["A", "B", "C", "D", "E"],
                                                    "seed": 1}, headers=AUTH)
    assert response.status_code == 201
    act(client, {"type": "reveal"})
    for seat in (0, 1, 2):
        act(client, {"type": "drop_out", "seat": seat})
    for seat in (0, 1, 2, 3, 4):
        ok = act(client, {"type": "lay_down", "seat": seat, "cards": {"blue_schlums": 6}, "black": {}})
        assert ok.status_code == 200, ok.get_json()        # 30 of 27: each entry alone is fine
    before = client.get("/api/v1/session").get_json()["version"]
    refused = act(client, {"type": "reveal_entries"})
    assert refused.status_code == 422
    assert refused.get_json()["error"].startswith("The lay-downs together use more than the game's 27 Blue "
                                                  "Schlums cards")
    assert client.get("/api/v1/session").get_json()["version"] == before
    # E counts again and lays three: 27, that can exist
    assert act(client, {"type": "lay_down", "seat": 4, "cards": {"blue_schlums": 3}, "black": {}}).status_code == 200
    assert act(client, {"type": "reveal_entries"}).status_code == 200
