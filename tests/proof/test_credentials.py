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
