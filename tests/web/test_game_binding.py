"""Issue 15 item 4: a tap from an old game never lands in the new one.

Versions restart at 0 with every game, so a tablet still showing game #1 at version 2
and a new game #2 that has reached version 2 look alike by version alone; the request's
``game_id`` tells them apart.
"""
from __future__ import annotations

from .helpers import AUTH, start_game


def drop(session):
    return next(a for a in session["legal_actions"] if a["type"] == "drop")


def advance(client, session, steps):
    for _ in range(steps):
        response = client.post("/api/v1/session/actions", headers=AUTH, json={
            "action": drop(session), "version": session["version"], "game_id": session["id"]})
        assert response.status_code == 200, response.get_json()
        session = response.get_json()
    return session


def test_a_tap_meant_for_the_old_game_is_409_and_changes_nothing(client):
    old = advance(client, start_game(client, seed=1), 2)
    new = advance(client, start_game(client, players=("Cem", "Dana"), seed=2), 2)
    assert (old["version"], new["version"]) == (2, 2) and old["id"] != new["id"]
    stale = client.post("/api/v1/session/actions", headers=AUTH, json={
        "action": drop(old), "version": old["version"], "game_id": old["id"]})
    assert stale.status_code == 409
    body = stale.get_json()
    assert body["error"] == (f"that was meant for game #{old['id']}, but game #{new['id']} "
                             "(mirakel-mix) is on the table now; look again and retry")
    assert body["session"]["id"] == new["id"]               # the client sees what is there now
    now = client.get("/api/v1/session").get_json()
    assert (now["id"], now["version"], now["state"]) == (new["id"], 2, new["state"])


def test_the_running_game_id_is_accepted(client):
    session = advance(client, start_game(client), 3)
    assert session["version"] == 3


def test_game_id_must_be_a_whole_number(client):
    session = start_game(client)
    response = client.post("/api/v1/session/actions", headers=AUTH, json={
        "action": drop(session), "game_id": "1"})
    assert response.status_code == 400
    assert '"game_id" must be a whole number' in response.get_json()["error"]
    assert client.get("/api/v1/session").get_json()["version"] == 0


def test_the_tablet_page_sends_the_game_id_with_every_tap():
    from pathlib import Path
    app_js = (Path(__file__).parents[2] / "web_ui/static/js/app.js").read_text()
    assert "version: current?.version, game_id: current?.id" in app_js
