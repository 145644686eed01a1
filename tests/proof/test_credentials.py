"""Credential attacks: brute force from many addresses, copied and forged cookies,
cross-site writes, framing (issue 15 items 1 and 7)."""
from __future__ import annotations

import re

from flask.sessions import SecureCookieSessionInterface

from controller.store import Store
from controller.table import Table
from tests.web.helpers import PIN, SECRET, start_game
from tests.web.test_pin_budget import Clock, addresses, attack, table_app
from web_ui import create_app

ACTION = {"action": {"type": "drop", "colour": "red"}}


def page_token(client) -> str:
    html = client.get("/").get_data(as_text=True)
    return re.search(r'<meta name="csrf-token" content="([^"]+)">', html).group(1)


def unlocked_tablet(app):
    tablet = app.test_client()
    token = page_token(tablet)
    assert tablet.post("/api/v1/login", json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 200
    return tablet, token


def cookie_of(client) -> str:
    return client.get_cookie("potionpi").value


def test_brute_force_from_thousands_of_addresses_gets_the_documented_budget(tmp_path, proof_line):
    clock = Clock()
    app = table_app(tmp_path, clock)
    client = app.test_client()
    start_game(client)
    source = addresses()
    checked, refused = attack(client, clock, 3600, source)
    assert checked <= 26
    proof_line("many-address PIN brute force (1 h)", checked + refused, 0,
               f"{checked} PINs checked in the hour (budget 26, then 6/h), {refused} refused with 429")


def test_lock_revokes_the_cookie_even_a_copy_of_it(app, proof_line):
    start_game(app.test_client())
    tablet, token = unlocked_tablet(app)
    copied = cookie_of(tablet)
    thief = app.test_client()
    thief.set_cookie("potionpi", copied)
    assert thief.post("/api/v1/session/actions", json=ACTION, headers={"X-CSRF-Token": token}).status_code == 200
    assert tablet.post("/api/v1/logout", json={}, headers={"X-CSRF-Token": token}).status_code == 200
    response = thief.post("/api/v1/session/actions", json=ACTION, headers={"X-CSRF-Token": token})
    assert response.status_code == 401                      # the copy died with the lock
    assert 'data-unlocked="no"' in thief.get("/").get_data(as_text=True)
    proof_line("copied cookie after Lock", 1, 0)


def test_unlocked_tablets_stay_unlocked_across_a_restart(tmp_path):
    settings = {"tablets_file": str(tmp_path / "tablets.json")}
    table = Table(Store(tmp_path / "t.sqlite3"))
    app = create_app(table=table, pin=PIN, secret_key=SECRET, settings=settings)
    tablet, token = unlocked_tablet(app)
    start_game(tablet)
    restarted = create_app(table=table, pin=PIN, secret_key=SECRET, settings=settings)
    again = restarted.test_client()
    again.set_cookie("potionpi", cookie_of(tablet))
    assert again.post("/api/v1/session/actions", json=ACTION, headers={"X-CSRF-Token": token}).status_code == 200
    assert str(tablet.get_cookie("potionpi").value) not in (tmp_path / "tablets.json").read_text()


def test_a_forged_cookie_is_refused(app, proof_line):
    start_game(app.test_client())
    forged_app = create_app(table=app.extensions["potionpi"].table, pin=PIN, secret_key="guessed-key")
    serializer = SecureCookieSessionInterface().get_signing_serializer(forged_app)
    token = "t" * 20
    forged = []
    for claims in ({"table": "x" * 32, "tablet": "y", "csrf": token},      # wrong key, any claims
                   {"csrf": token}):
        thief = app.test_client()
        thief.set_cookie("potionpi", serializer.dumps(claims))
        response = thief.post("/api/v1/session/actions", json=ACTION, headers={"X-CSRF-Token": token})
        forged.append(response.status_code)
    assert forged == [401, 401]
    assert app.test_client().get("/api/v1/session").get_json()["version"] == 0
    proof_line("forged cookies", len(forged), 0)


def test_a_page_on_another_site_cannot_write_or_frame_the_table(app, proof_line):
    start_game(app.test_client())
    tablet, _token = unlocked_tablet(app)
    # a cross-site form or fetch rides on the cookie at most (SameSite=Strict stops even
    # that in a browser) and can neither read nor send the page's token
    response = tablet.post("/api/v1/session/actions", json=ACTION,
                           headers={"Origin": "http://evil.example", "Referer": "http://evil.example/"})
    assert response.status_code == 403
    assert tablet.get("/api/v1/session").get_json()["version"] == 0
    for path in ("/", "/api/v1/session", "/healthz", "/static/js/app.js", "/no/such/page"):
        headers = tablet.get(path).headers
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] in ("same-origin", "no-referrer")
    proof_line("cross-site writes and framing", 6, 0)


def test_a_page_that_points_its_own_name_at_the_table_gets_nothing(app, client, proof_line):
    """DNS rebinding (issue 22): with ``Host: rebind.evil.example`` the session, log,
    history, /healthz and /join answered 200, and a PIN guess with that Host was checked,
    so a web page a guest opened could spend the table's PIN budget."""
    start_game(client)
    evil = {"Host": "rebind.evil.example:8080"}
    paths = ["/", "/api/v1/session", "/api/v1/session/log", "/api/v1/history", "/healthz", "/join",
             "/api/v1/stream", "/settings", "/static/js/app.js"]
    served = [p for p in paths if client.get(p, headers=evil).status_code != 421]
    budget = app.extensions["potionpi"].gate.budget
    guesses = [client.post("/api/v1/session/actions", json=ACTION, headers={**evil, "X-Table-Pin": f"{n:04d}"})
               for n in range(20)]
    served += [r.status_code for r in guesses if r.status_code != 421]
    assert budget.level == 0 and budget.wait() == 0            # no guess was even checked
    assert client.get("/api/v1/session").status_code == 200    # the table's own name: served
    proof_line("DNS rebinding (a foreign Host)", len(paths) + len(guesses), len(served),
               "421 for every page, stream and PIN guess; the PIN budget untouched (all served before)")
    assert served == []
