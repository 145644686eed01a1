"""Mix It through the API alone: the table starts it and confirms each MONSTER!, every
player acts from their seat link; a whole game to a winner, no secret where it does not
belong, and the live streams checked the same way."""
from __future__ import annotations

import json
import random
import urllib.request

import pytest

from tests.games.mix_it_support import choose
from tests.leaks import assert_seat_keeps_its_secrets

from .helpers import AUTH, Phone, act
from .sse import SSEClient
from .test_stream import post

PLAYERS = ["Ann", "Ben", "Cem"]


def secrets(seat_session):
    mine = seat_session["private"]
    return [c["id"] for c in mine["hand"]] + ([mine["goal"]["id"]] if mine["goal"] and not mine["claimed"] else [])


@pytest.mark.parametrize("variant", ["classic", "express"])
def test_a_whole_game_through_the_api_alone(client, table, variant):
    response = client.post("/api/v1/session", json={"game": "mix-it", "players": PLAYERS, "seed": 36,
                                                    "options": {"variant": variant}}, headers=AUTH)
    assert response.status_code == 201
    tokens = [s["token"] for s in client.get("/api/v1/seats", headers=AUTH).get_json()["seats"]]
    rng = random.Random(36)
    for _ in range(600):
        public = client.get("/api/v1/session").get_json()
        if public["outcome"]:
            break
        seats = [client.get(f"/api/v1/seat/{t}").get_json() for t in tokens]
        for seat, mine in enumerate(seats):
            assert mine["private"]["legal_actions"] == [a for a in mine["private"]["legal_actions"]
                                                        if a.get("seat") == seat]
            assert_seat_keeps_its_secrets(public, [s for s in seats if s["seat"] != seat], secrets(mine))
        action = choose(table._state, rng)           # what a player decides; the API carries it
        if "seat" in action and action["type"] != "move" or action["type"] == "claim":
            body = {k: v for k, v in action.items() if k != "seat"}
            response = client.post(f"/api/v1/seat/{tokens[action['seat']]}/actions",
                                   json={"action": body, "version": public["version"]})
            assert response.status_code == 200, response.get_json()
            assert response.get_json()["seat"] == action["seat"]
        else:                                         # moves and confirms are the table's too
            response = act(client, action, public["version"])
            assert response.status_code == 200, response.get_json()
    outcome = client.get("/api/v1/session").get_json()["outcome"]
    assert outcome is not None and outcome["winner_names"]
    if variant == "classic":
        assert outcome["reason"] == "three_cookies" and max(outcome["cookies"]) >= 3
    else:                                             # Express: the first monster built wins
        assert outcome["reason"] == "built_goal" and all(outcome["cookies"][w] == 1 for w in outcome["winners"])


def test_a_phone_cannot_confirm_its_own_monster_nor_act_for_another(client):
    client.post("/api/v1/session", json={"game": "mix-it", "players": PLAYERS, "seed": 1}, headers=AUTH)
    tokens = [s["token"] for s in client.get("/api/v1/seats", headers=AUTH).get_json()["seats"]]
    url = f"/api/v1/seat/{tokens[1]}/actions"
    response = client.post(url, json={"action": {"type": "change_goal"}})
    assert response.status_code == 422 and "it is Ann's turn, not Ben's" in response.get_json()["error"]
    response = client.post(f"/api/v1/seat/{tokens[0]}/actions", json={"action": {"type": "change_goal", "seat": 2}})
    assert response.status_code == 403
    response = client.post(url, json={"action": {"type": "confirm"}})
    assert response.status_code == 422 and "nobody has shouted" in response.get_json()["error"]
    response = client.post(url, json={"action": {"type": "claim"}})
    assert response.status_code == 422 and "not on the table" in response.get_json()["error"]
    response = client.post(f"/api/v1/seat/{tokens[0]}/actions", json={"action": {"type": "change_goal"}})
    assert response.status_code == 200 and response.get_json()["state"]["players"][0]["changed_goal"]


def test_the_live_streams_keep_every_seat_s_secrets(live, table):
    status, session = post(live, "/api/v1/session", {"game": "mix-it", "players": PLAYERS[:2], "seed": 16})
    assert status == 201
    request = urllib.request.Request(live + "/api/v1/seats", headers=AUTH)
    with urllib.request.urlopen(request, timeout=30) as response:
        tokens = [s["token"] for s in json.loads(response.read())["seats"]]
    phones = [Phone(live) for _ in tokens]
    streams = [SSEClient(live)] + [phone.open_seat(t) for phone, t in zip(phones, tokens)]
    rng = random.Random(16)
    try:
        for _ in range(12):
            version = table.version
            got = [s.next_session(lambda x: x["version"] >= version)["data"] for s in streams]
            public, seats = got[0], got[1:]
            assert "private" not in public and [s["seat"] for s in seats] == [0, 1]
            for seat, mine in enumerate(seats):
                assert mine["private"] == table.session(seat)["private"]
                assert_seat_keeps_its_secrets(public, [seats[1 - seat]], secrets(mine))
            action = choose(table._state, rng)
            if action["type"] == "confirm":
                status, _ = post(live, "/api/v1/session/actions", {"action": action})
            else:
                body = {k: v for k, v in action.items() if k != "seat"}
                status, _ = phones[action["seat"]].post(f"/api/v1/seat/{tokens[action['seat']]}/actions",
                                                        {"action": body})
            assert status == 200
    finally:
        for s in streams:
            s.close()
