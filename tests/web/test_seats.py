"""Seats for every game: a link and QR code per seat (table only), the seat's phone page,
its own session and stream (public + its private part, nobody else's), acting only as
itself; links die with a new game or a new PIN."""
from __future__ import annotations

import json
import re
import urllib.request

import pytest

from controller.games import available, plugin
from tests.leaks import assert_seat_keeps_its_secrets

from .helpers import AUTH, Phone, act, start_game
from .sse import SSEClient
from .test_stream import post, start

ZC = ["Arne", "Babs", "Chris", "Doro", "Erni"]


def start_zc(client, seed=3):
    response = client.post("/api/v1/session", json={"game": "zaubercocktail", "players": ZC, "seed": seed},
                           headers=AUTH)
    assert response.status_code == 201
    return response.get_json()


def seats(client, headers=AUTH):
    response = client.get("/api/v1/seats", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["seats"]


def zc_laying(client):
    """Zaubercocktail at the lay-down: three stopped trading, the round ends."""
    act(client, {"type": "reveal"})
    for seat in (3, 0, 1):
        act(client, {"type": "drop_out", "seat": seat})


def test_seats_need_the_pin_and_list_every_seat_with_a_link_and_qr_code(client):
    start_game(client, players=("Ann", "Ben", "Cem"))
    response = client.get("/api/v1/seats")
    assert response.status_code == 401 and "PIN" in response.get_json()["error"]
    listed = seats(client)
    assert [s["name"] for s in listed] == ["Ann", "Ben", "Cem"]
    assert len({s["token"] for s in listed}) == 3
    for s in listed:
        assert s["url"].endswith(f"/seat/{s['token']}")
        assert s["qr_svg"].startswith("data:image/svg+xml")


def test_no_game_no_seats(client):
    response = client.get("/api/v1/seats", headers=AUTH)
    assert response.status_code == 404 and "no game" in response.get_json()["error"]


def test_the_seat_page_names_its_player_only_and_loads_nothing_from_outside(client):
    start_game(client, players=("Ann", "Ben"))
    token = seats(client)[1]["token"]
    response = client.get(f"/seat/{token}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "Ben" in page and "Ann" not in page
    assert not re.search(r'(src|href)="https?://', page)
    for asset in re.findall(r'(?:src|href)="(/[^"]+)"', page):
        assert client.get(asset).status_code == 200, asset
    assert client.get("/seat/not-a-token").status_code == 403


def test_a_zaubercocktail_seat_link_opens_its_lay_down_helper(client):
    start_zc(client)
    first = seats(client)[0]
    assert first["url"].endswith(f"/zc/hand/{first['token']}")
    response = client.get(f"/seat/{first['token']}")
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/zc/hand/{first['token']}")


def test_a_seat_session_is_the_public_one_plus_its_own_private_part(client):
    start_zc(client)
    zc_laying(client)
    links = seats(client)
    act(client, {"type": "lay_down", "seat": 0, "cards": {"greenwurz": 3}, "black": {}})
    public = client.get("/api/v1/session").get_json()
    mine = client.get(f"/api/v1/seat/{links[0]['token']}").get_json()
    assert mine["seat"] == 0
    assert {k: v for k, v in mine.items() if k not in ("seat", "private")} == public
    assert mine["private"]["entry"]["cards"] == {"greenwurz": 3}
    others = [client.get(f"/api/v1/seat/{s['token']}").get_json() for s in links[1:]]
    assert all(o["private"]["entry"] is None for o in others)
    assert_seat_keeps_its_secrets(public, others, [mine["private"]["entry"]])


def test_a_seat_acts_only_as_itself(client):
    start_zc(client)
    zc_laying(client)
    token = seats(client)[2]["token"]
    url = f"/api/v1/seat/{token}/actions"
    lay = {"type": "lay_down", "cards": {"greenwurz": 3}, "black": {}}
    response = client.post(url, json={"action": {**lay, "seat": 4}})
    assert response.status_code == 403 and "Chris" in response.get_json()["error"]
    response = client.post(url, json={"action": {"type": "lay_down", "cards": {"greenwurz": 1}, "black": {}}})
    assert response.status_code == 422                       # the rules' words, from the engine
    response = client.post(url, json={"action": lay})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["private"]["entry"]["cards"] == {"greenwurz": 3}
    assert client.get("/api/v1/session").get_json()["state"]["players"][2]["entered"]
    assert client.post(url, json={"action": "lay"}).status_code == 400
    for seat in (0, 1, 3, 4):
        act(client, {"type": "lay_down", "seat": seat, "cards": {}, "black": {}})
    # the engine would take it now, but revealing is the table's, not a phone's
    response = client.post(url, json={"action": {"type": "reveal_entries"}})
    assert response.status_code == 403 and "only the table" in response.get_json()["error"]


def test_an_elixir_wizard_writes_a_note_from_his_phone_and_only_he_sees_it(client):
    response = client.post("/api/v1/session", json={"game": "elixir", "players": ["Ann", "Ben"], "seed": 4},
                           headers=AUTH)
    assert response.status_code == 201
    ann, ben = seats(client)
    note = {"type": "note", "pair": "mandrake+bat_wing", "text": "smells of luck"}
    response = client.post(f"/api/v1/seat/{ann['token']}/actions", json={"action": note})
    assert response.status_code == 200, response.get_json()
    mine = {f["pair"]: f["note"] for f in response.get_json()["private"]["formula_table"]}
    assert mine["mandrake+bat_wing"] == "smells of luck"
    assert "smells of luck" not in client.get("/api/v1/session").get_data(as_text=True)
    assert "smells of luck" not in client.get(f"/api/v1/seat/{ben['token']}").get_data(as_text=True)
    bad = client.post(f"/api/v1/seat/{ann['token']}/actions", json={"action": {**note, "pair": "gold+gold"}})
    assert bad.status_code == 400 and "herb and a special product" in bad.get_json()["error"]


def test_a_new_game_and_a_new_pin_revoke_every_seat_link(client, app):
    start_game(client)
    old = seats(client)[0]["token"]
    assert client.get(f"/api/v1/seat/{old}").status_code == 200
    start_game(client, seed=8)
    response = client.get(f"/api/v1/seat/{old}")
    assert response.status_code == 409 and "earlier game" in response.get_json()["error"]
    fresh = seats(client)[0]["token"]
    app.extensions["potionpi"].change_pin("2468")
    for token in (fresh, old):
        assert client.get(f"/api/v1/seat/{token}").status_code == 403
        assert client.get(f"/seat/{token}").status_code == 403
    newest = seats(client, headers={"X-Table-Pin": "2468"})[0]["token"]
    assert client.get(f"/api/v1/seat/{newest}").status_code == 200


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seat_stream_carries_its_private_part_and_nobody_elses(live, seat):
    status, _ = post(live, "/api/v1/session", {"game": "zaubercocktail", "players": ZC[:4], "seed": 3})
    assert status == 201
    request = urllib.request.Request(live + "/api/v1/seats", headers=AUTH)
    with urllib.request.urlopen(request, timeout=30) as response:
        links = json.loads(response.read())["seats"]
    post(live, "/api/v1/session/actions", {"action": {"type": "reveal"}})
    for s in (0, 1, 2):
        post(live, "/api/v1/session/actions", {"action": {"type": "drop_out", "seat": s}})
    phone, theirs_phone = Phone(live), Phone(live)
    mine, other = phone.open_seat(links[seat]["token"]), theirs_phone.open_seat(links[1 - seat]["token"])
    public = SSEClient(live)
    try:
        mine.next_session()
        status, answer = phone.post(f"/api/v1/seat/{links[seat]['token']}/actions",
                                    {"action": {"type": "lay_down", "cards": {"greenwurz": 3}, "black": {}}})
        assert status == 200, answer
        got = mine.next_session(lambda s: s["private"]["entry"] is not None)["data"]
        assert got["seat"] == seat and got["private"]["entry"]["cards"] == {"greenwurz": 3}
        theirs = other.next_session(lambda s: s["state"]["players"][seat]["entered"])["data"]
        seen = public.next_session(lambda s: s["state"]["players"][seat]["entered"])["data"]
        assert theirs["private"]["entry"] is None and "private" not in seen
        assert_seat_keeps_its_secrets(seen, [theirs], [got["private"]["entry"]])
        # a new game: the seat's stream says its link is revoked, and ends
        start(live)
        event = mine.next_event()
        assert event["event"] == "notice" and event["data"]["kind"] == "revoked"
    finally:
        for client in (mine, other, public):
            client.close()


@pytest.mark.parametrize("game", available())
def test_every_game_has_seats_a_phone_page_and_a_seat_session(client, game):
    names = ["Ann", "Ben", "Cem", "Dana", "Eli", "Fay", "Gus"][:plugin(game).min_players]
    response = client.post("/api/v1/session", json={"game": game, "players": names, "seed": 2}, headers=AUTH)
    assert response.status_code == 201, response.get_json()
    listed = seats(client)
    assert [s["name"] for s in listed] == names
    for s in listed:
        page = client.get(f"/seat/{s['token']}")
        assert page.status_code in (200, 302)           # 302: the game's own phone page
        mine = client.get(f"/api/v1/seat/{s['token']}").get_json()
        assert mine["seat"] == s["seat"] and isinstance(mine["private"]["legal_actions"], list)
        assert "private" not in client.get("/api/v1/session").get_json()


def test_the_games_with_secrets_say_so_for_the_tablets_phone_links(client):
    games = client.get("/api/v1/games").get_json()
    assert {g["id"] for g in games if g["phones"]} == {"mix-it", "elixir", "zaubercocktail"}


def test_a_phone_acting_on_an_old_version_gets_409_with_its_own_session(client):
    """The 409 a phone gets carries that seat's session (its private part), so it can redraw
    from it; never the public session alone, never another seat's."""
    start_zc(client)
    zc_laying(client)
    arne, babs = seats(client)[0], seats(client)[1]
    stale = client.get(f"/api/v1/seat/{arne['token']}").get_json()["version"] - 1
    response = client.post(f"/api/v1/seat/{arne['token']}/actions",
                           json={"action": {"type": "lay_down", "cards": {}}, "version": stale})
    assert response.status_code == 409 and "look again and retry" in response.get_json()["error"]
    session = response.get_json()["session"]
    assert session["seat"] == 0 and session == client.get(f"/api/v1/seat/{arne['token']}").get_json()
    assert session != client.get(f"/api/v1/seat/{babs['token']}").get_json()
