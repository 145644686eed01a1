"""The PIN, the tablet's cookie, CSRF and the rate limit on PIN attempts."""
from __future__ import annotations

import re

import pytest

from web_ui.auth import PinGate
from web_ui.errors import ApiError

from .helpers import AUTH, PIN, start_game

ACTION = {"action": {"type": "drop", "colour": "red"}}


def page_token(client) -> str:
    html = client.get("/").get_data(as_text=True)
    match = re.search(r'<meta name="csrf-token" content="([^"]+)">', html)
    assert match, "the page carries its CSRF token"
    return match.group(1)


def log_in(client, pin=PIN, token=None):
    token = page_token(client) if token is None else token
    return client.post("/api/v1/login", json={"pin": pin}, headers={"X-CSRF-Token": token})


# --- watching is open ----------------------------------------------------------------------
def test_watching_needs_no_pin(client):
    start_game(client)
    assert client.get("/").status_code == 200
    assert client.get("/api/v1/session").status_code == 200
    assert client.get("/api/v1/games").status_code == 200
    assert client.get("/healthz").status_code == 200


# --- the tablet: PIN once, then the cookie with CSRF ---------------------------------------------
def test_tablet_enters_the_pin_once_then_plays_with_its_cookie(client):
    start_game(client)
    token = page_token(client)
    assert client.post("/api/v1/session/actions", json=ACTION,
                       headers={"X-CSRF-Token": token}).status_code == 401
    response = log_in(client, token=token)
    assert response.status_code == 200 and response.get_json() == {"unlocked": True}
    response = client.post("/api/v1/session/actions", json=ACTION, headers={"X-CSRF-Token": token})
    assert response.status_code == 200
    assert response.get_json()["version"] == 1
    assert 'data-unlocked="yes"' in client.get("/").get_data(as_text=True)


def test_cookie_is_http_only_and_same_site_strict(client):
    response = log_in(client)
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "Expires=" in cookie             # kept across browser restarts: asked once


def test_cookie_posts_without_or_with_a_wrong_csrf_token_are_refused(client):
    start_game(client)
    token = page_token(client)
    log_in(client, token=token)
    for headers in ({}, {"X-CSRF-Token": "forged"}, {"X-CSRF-Token": token[:-1]}):
        response = client.post("/api/v1/session/actions", json=ACTION, headers=headers)
        assert response.status_code == 403
        assert "reload" in response.get_json()["error"]
    assert client.get("/api/v1/session").get_json()["version"] == 0


def test_login_itself_needs_the_page_token(client):
    page_token(client)
    response = client.post("/api/v1/login", json={"pin": PIN})
    assert response.status_code == 403
    assert 'data-unlocked="no"' in client.get("/").get_data(as_text=True)


def test_wrong_pin_on_the_pad_is_401_with_a_sentence(client):
    response = log_in(client, pin="0000")
    assert response.status_code == 401
    assert "not the table PIN" in response.get_json()["error"]


def test_login_with_a_malformed_pin_is_400(client):
    token = page_token(client)
    response = client.post("/api/v1/login", json={"pin": 4711}, headers={"X-CSRF-Token": token})
    assert response.status_code == 400


def test_lock_ends_the_cookie_rights(client):
    start_game(client)
    token = page_token(client)
    log_in(client, token=token)
    assert client.post("/api/v1/logout", json={}, headers={"X-CSRF-Token": token}).status_code == 200
    response = client.post("/api/v1/session/actions", json=ACTION, headers={"X-CSRF-Token": token})
    assert response.status_code == 401


def test_a_changed_pin_locks_every_tablet_again(client, app):
    start_game(client)
    token = page_token(client)
    log_in(client, token=token)
    app.extensions["potionpi"].change_pin("9876")
    response = client.post("/api/v1/session/actions", json=ACTION, headers={"X-CSRF-Token": token})
    assert response.status_code == 401


def test_the_pin_header_needs_no_csrf_token(client):
    """API clients (curl, scripts) send X-Table-Pin; no browser can add that header cross-site."""
    start_game(client)
    assert client.post("/api/v1/session/actions", json=ACTION, headers=AUTH).status_code == 200


def test_a_cookie_never_reveals_the_pin(client):
    response = log_in(client)
    assert PIN not in response.headers["Set-Cookie"]


# --- rate limit ---------------------------------------------------------------------------------------
def test_five_wrong_pins_then_429_even_for_the_right_one(client):
    start_game(client)
    for left in (4, 3, 2, 1):
        response = client.post("/api/v1/session/actions", json=ACTION, headers={"X-Table-Pin": "1111"})
        assert response.status_code == 401
        assert f"{left} tries left" in response.get_json()["error"]
    assert client.post("/api/v1/session/actions", json=ACTION,
                       headers={"X-Table-Pin": "1111"}).status_code == 401
    for pin in ("1111", PIN):
        response = client.post("/api/v1/session/actions", json=ACTION, headers={"X-Table-Pin": pin})
        assert response.status_code == 429
        assert "wait" in response.get_json()["error"]
        assert int(response.headers["Retry-After"]) >= 1
    # the tablet's PIN pad counts against the same limit
    assert log_in(client).status_code == 429
    assert client.get("/api/v1/session").get_json()["version"] == 0


def test_the_limit_is_per_client_address(client):
    start_game(client)
    for _ in range(5):
        client.post("/api/v1/session/actions", json=ACTION, headers={"X-Table-Pin": "1111"},
                    environ_base={"REMOTE_ADDR": "10.0.0.66"})
    blocked = client.post("/api/v1/session/actions", json=ACTION, headers=AUTH,
                          environ_base={"REMOTE_ADDR": "10.0.0.66"})
    assert blocked.status_code == 429
    other = client.post("/api/v1/session/actions", json=ACTION, headers=AUTH,
                        environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert other.status_code == 200


def test_right_pins_are_not_counted(client):
    start_game(client)
    session = client.get("/api/v1/session").get_json()
    for _ in range(8):
        drop = next(a for a in session["legal_actions"] if a["type"] == "drop")
        response = client.post("/api/v1/session/actions", json={"action": drop}, headers=AUTH)
        assert response.status_code == 200
        session = response.get_json()


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_limit_lifts_when_the_minute_has_passed():
    clock = FakeClock()
    gate = PinGate("4711", attempts=5, window=60.0, clock=clock)
    for _ in range(5):
        with pytest.raises(ApiError) as wrong:
            gate.check("10.0.0.9", "0000")
        assert wrong.value.status == 401
    with pytest.raises(ApiError) as limited:
        gate.check("10.0.0.9", "4711")
    assert limited.value.status == 429
    assert limited.value.headers["Retry-After"] == "60"
    clock.now += 30
    with pytest.raises(ApiError) as still:
        gate.check("10.0.0.9", "4711")
    assert still.value.headers["Retry-After"] == "30"
    clock.now += 30
    gate.check("10.0.0.9", "4711")        # accepted: no exception
