"""One phone per seat (issue 22): the first device to use a seat's link claims the seat;
after that the link opens nothing on another device. Moving a seat to another phone is
the table's doing, the whole table is told, and the old phone is told too. A seat's short
code, typed at /join, opens its link on a phone without a camera."""
from __future__ import annotations

import re

from controller.store import Store
from controller.table import Table
from web_ui import create_app

from .helpers import AUTH, PIN, SECRET, Phone, start_game
from .sse import SSEClient
from .test_stream import post


def elixir(client, players=("Ann", "Ben", "Cem")):
    response = client.post("/api/v1/session", json={"game": "elixir", "players": list(players), "seed": 4},
                           headers=AUTH)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def listed(client, headers=AUTH):
    response = client.get("/api/v1/seats", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["seats"]


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def test_the_first_phone_claims_the_seat_and_no_other_device_opens_it(app):
    tablet, ben, cem = app.test_client(), app.test_client(), app.test_client()
    elixir(tablet)
    token = listed(tablet)[1]["token"]
    assert ben.get(f"/api/v1/seat/{token}").status_code == 200          # Ben's phone: claimed
    for path in (f"/api/v1/seat/{token}", f"/api/v1/seat/{token}/stream"):
        response = cem.get(path)
        assert response.status_code == 403
        assert "Ben's seat is open on another phone" in response.get_json()["error"]
    response = cem.post(f"/api/v1/seat/{token}/actions", json={"action": {"type": "note", "pair": "x"}})
    assert response.status_code == 403
    page = cem.get(f"/seat/{token}")
    assert page.status_code == 403 and "Move Ben&#39;s seat" in page.get_data(as_text=True)
    assert ben.get(f"/seat/{token}").status_code == 200 and ben.get(f"/api/v1/seat/{token}").status_code == 200


def test_fetching_the_page_alone_claims_nothing(app):
    """A link preview (a messenger, a QR app) fetches the page and runs no script."""
    tablet, preview, phone = app.test_client(), app.test_client(), app.test_client()
    elixir(tablet)
    token = listed(tablet)[0]["token"]
    assert preview.get(f"/seat/{token}").status_code == 200
    assert phone.get(f"/api/v1/seat/{token}").status_code == 200          # the real phone
    assert preview.get(f"/api/v1/seat/{token}").status_code == 403


def test_the_phone_links_show_a_seats_code_only_until_it_is_claimed(app):
    tablet, ann = app.test_client(), app.test_client()
    elixir(tablet)
    first = listed(tablet)
    assert all(not s["claimed"] and s["token"] and s["qr_svg"] and re.fullmatch(r"[2-9A-Z]{6}", s["code"])
               for s in first)
    ann.get(f"/api/v1/seat/{first[0]['token']}")
    now = listed(tablet)
    assert now[0]["claimed"] and not {"token", "url", "qr_svg", "code"} & set(now[0])
    assert [s["token"] for s in now[1:]] == [s["token"] for s in first[1:]]     # the others unchanged


def test_moving_a_seat_is_the_tables_the_table_sees_it_and_the_old_phone_is_told(app, live):
    status, _ = post(live, "/api/v1/session", {"game": "elixir", "players": ["Ann", "Ben"], "seed": 4})
    assert status == 201
    tablet = Phone(live)
    seats = tablet.request("GET", "/api/v1/seats", headers=AUTH)[1]["seats"]
    old_phone, new_phone = Phone(live), Phone(live)
    old_stream = old_phone.open_seat(seats[1]["token"])
    public = SSEClient(live)
    try:
        old_stream.next_session()
        public.next_session()
        # a phone cannot move a seat; the table can (PIN or the unlocked tablet)
        assert old_phone.post(seats[1]["move"], {})[0] == 401
        status, moved = tablet.request("POST", seats[1]["move"], {}, headers=AUTH)
        assert status == 200 and not moved["claimed"] and moved["token"] != seats[1]["token"]
        told = public.next_event()
        assert told["event"] == "notice" and told["data"]["message"] == "Ben's seat moved to a new phone"
        while True:                                  # the old phone: told why, then the stream ends
            event = old_stream.next_event()
            if event["event"] == "notice" and event["data"]["kind"] == "revoked":
                break
        assert "moved to another phone" in event["data"]["message"]
        assert old_phone.get(f"/api/v1/seat/{seats[1]['token']}")[0] == 403
    finally:
        old_stream.close()
        public.close()
    status, body = new_phone.get(f"/api/v1/seat/{moved['token']}")
    assert status == 200 and body["seat"] == 1


def test_a_moved_seats_new_link_goes_to_the_first_phone_that_opens_it(app):
    tablet, old, new, late = app.test_client(), app.test_client(), app.test_client(), app.test_client()
    elixir(tablet)
    seat = listed(tablet)[2]
    assert old.get(f"/api/v1/seat/{seat['token']}").status_code == 200
    moved = tablet.post(seat["move"], headers=AUTH).get_json()
    response = old.get(f"/api/v1/seat/{seat['token']}")
    assert response.status_code == 403 and "the table moved the seat to another phone" in response.get_json()["error"]
    assert new.get(f"/api/v1/seat/{moved['token']}").status_code == 200
    assert late.get(f"/api/v1/seat/{moved['token']}").status_code == 403
    assert old.get(f"/api/v1/seat/{moved['token']}").status_code == 403


def test_a_seats_short_code_opens_its_link_at_join(app):
    tablet, phone = app.test_client(), app.test_client()
    elixir(tablet)
    seat = listed(tablet)[1]
    page = phone.get("/join").get_data(as_text=True)
    assert 'name="code"' in page
    typed = f"{seat['code'][:3].lower()} {seat['code'][3:]}"            # as a person types it
    response = phone.post("/join", data={"code": typed, "csrf": csrf_of(page)})
    assert response.status_code == 303 and response.headers["Location"] == f"/seat/{seat['token']}"
    assert phone.get(f"/api/v1/seat/{seat['token']}").status_code == 200
    # once claimed, the code opens nothing
    other = app.test_client()
    page = other.get("/join").get_data(as_text=True)
    response = other.post("/join", data={"code": seat["code"], "csrf": csrf_of(page)})
    assert response.status_code == 404 and "not the code of a free seat" in response.get_data(as_text=True)


def test_wrong_codes_are_limited_per_device(app):
    tablet, guest = app.test_client(), app.test_client()
    elixir(tablet)
    token = csrf_of(guest.get("/join").get_data(as_text=True))
    statuses = [guest.post("/join", data={"code": f"ZZZZ{n:02d}", "csrf": token}).status_code for n in range(7)]
    assert statuses == [404] * 5 + [429] * 2
    right = listed(tablet)[0]["code"]
    response = guest.post("/join", data={"code": right, "csrf": token})
    assert response.status_code == 429 and "Retry-After" in response.headers


def test_phones_keep_their_seats_across_a_restart(tmp_path):
    settings = {"seats_file": str(tmp_path / "seats.json")}
    table = Table(Store(tmp_path / "t.sqlite3"))
    app = create_app(table=table, pin=PIN, secret_key=SECRET, settings=settings)
    tablet, ann = app.test_client(), app.test_client()
    elixir(tablet)
    token = listed(tablet)[0]["token"]
    assert ann.get(f"/api/v1/seat/{token}").status_code == 200
    restarted = create_app(table=table, pin=PIN, secret_key=SECRET, settings=settings)
    again, thief = restarted.test_client(), restarted.test_client()
    again.set_cookie("potionpi", ann.get_cookie("potionpi").value)
    assert again.get(f"/api/v1/seat/{token}").status_code == 200
    assert thief.get(f"/api/v1/seat/{token}").status_code == 403
    assert ann.get_cookie("potionpi").value not in (tmp_path / "seats.json").read_text()


def test_a_new_game_frees_every_seat(app):
    tablet, ann, ben = app.test_client(), app.test_client(), app.test_client()
    elixir(tablet)
    ann.get(f"/api/v1/seat/{listed(tablet)[0]['token']}")
    start_game(tablet)
    fresh = listed(tablet)
    assert not fresh[0]["claimed"]
    assert ben.get(f"/api/v1/seat/{fresh[0]['token']}").status_code == 200
