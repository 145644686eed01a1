"""Any phone opened any seat (issue 22): a seat link worked on any number of devices, and the
Phone-links modal showed every seat's QR code to whoever held the tablet, so a player could
scan a neighbour's code and read their hand. Now the first phone to open a link holds the
seat; every other device gets nothing, and the tablet stops showing the seat's codes."""
from __future__ import annotations

from tests.web.helpers import AUTH


def test_a_seat_link_opens_on_its_first_phone_only(app, client, proof_line):
    client.post("/api/v1/session", json={"game": "mix-it", "players": ["Ann", "Ben", "Cem"]}, headers=AUTH)
    seats = client.get("/api/v1/seats", headers=AUTH).get_json()["seats"]
    owners = [app.test_client() for _ in seats]
    for phone, seat in zip(owners, seats):
        assert phone.get(f"/api/v1/seat/{seat['token']}").status_code == 200
    opened, tried = [], 0
    for seat in seats:
        for other in [app.test_client() for _ in range(3)] + [client]:      # new phones, and the tablet
            for method, path in (("GET", "/seat/{}"), ("GET", "/api/v1/seat/{}"), ("GET", "/api/v1/seat/{}/stream"),
                                 ("POST", "/api/v1/seat/{}/actions")):
                response = other.open(path.format(seat["token"]), method=method,
                                      json={"action": {"type": "claim"}} if method == "POST" else None)
                tried += 1
                if response.status_code < 400:
                    opened.append((seat["name"], path))
                response.close()
    shown = [s for s in client.get("/api/v1/seats", headers=AUTH).get_json()["seats"] if "token" in s]
    proof_line("a seat link on another device", tried + len(seats), len(opened) + len(shown),
               "3 seats held by their phones; 3 other phones and the tablet tried the page, the session, the "
               "stream and an action; the tablet showed no held seat's code (any link opened anywhere before)")
    assert opened == [] and shown == []
