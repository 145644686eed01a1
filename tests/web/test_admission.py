"""Expensive downloads are limited per address and for strangers in all, so a flood of
them cannot slow the table down; the table's own devices are served first
(web_ui/admission.py, issue 22)."""
from __future__ import annotations

import re

from .helpers import AUTH, PIN, start_game


class Clock:
    now = 1000.0

    def __call__(self) -> float:
        return self.now


def addr(n: int) -> dict:
    return {"REMOTE_ADDR": f"192.168.1.{n}"}


def held_export(client, n: int):
    """An export being sent, not yet read to the end (a slow phone)."""
    response = client.get("/settings/export", headers=AUTH, environ_base=addr(n))
    assert response.status_code == 200 and response.is_streamed
    return response


def test_one_download_at_a_time_per_address_and_a_share_of_the_time_for_all_strangers(app, client):
    clock = app.extensions["potionpi"].extras["downloads"]._clock = Clock()
    start_game(client)
    first = held_export(client, 10)
    again = client.get("/api/v1/history.csv", environ_base=addr(10))
    assert again.status_code == 429 and "still running" in again.get_json()["error"]
    assert again.headers["Retry-After"] == "2"
    busy = client.get("/api/v1/stats", environ_base=addr(11))
    assert busy.status_code == 429 and "busy with other downloads" in busy.get_json()["error"]
    assert client.get("/api/v1/session", environ_base=addr(11)).status_code == 200     # a tap: not one
    clock.now += 10
    first.get_data()                       # it took 10 s: strangers wait 30 s (a quarter of the time)
    wait = client.get("/api/v1/stats", environ_base=addr(11))
    assert wait.status_code == 429 and wait.headers["Retry-After"] == "30"
    clock.now += 30
    assert client.get("/api/v1/stats", environ_base=addr(11)).status_code == 200


def test_a_download_cut_off_frees_its_slot(app, client):
    app.extensions["potionpi"].extras["downloads"]._clock = Clock()
    start_game(client)
    held_export(client, 10).close()
    assert client.get("/api/v1/history.csv", environ_base=addr(10)).status_code == 200


def test_the_tables_own_devices_download_whatever_strangers_hold(app, client):
    app.extensions["potionpi"].extras["downloads"]._clock = Clock()
    start_game(client)
    tablet = app.test_client()
    html = tablet.get("/", environ_base=addr(20)).get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
    assert tablet.post("/api/v1/login", json={"pin": PIN}, headers={"X-CSRF-Token": token},
                       environ_base=addr(20)).status_code == 200
    held = held_export(client, 30)
    assert client.get("/api/v1/stats", environ_base=addr(32)).status_code == 429      # a stranger waits
    assert tablet.get("/api/v1/history.csv", environ_base=addr(20)).status_code == 200
    assert client.get("/api/v1/stats", environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 200
    held.close()
