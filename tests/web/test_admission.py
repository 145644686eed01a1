"""Expensive downloads are limited per address, so a flood of them cannot slow the table
down; the table's own devices are served first (web_ui/admission.py, issue 22)."""
from __future__ import annotations

import re

from .helpers import AUTH, PIN, start_game


def addr(n: int) -> dict:
    return {"REMOTE_ADDR": f"192.168.1.{n}"}


def held_export(client, n: int):
    """An export being sent, not yet read to the end (a slow phone)."""
    response = client.get("/settings/export", headers=AUTH, environ_base=addr(n))
    assert response.status_code == 200 and response.is_streamed
    return response


def test_one_download_at_a_time_per_address_and_a_few_for_all_strangers(app, client):
    start_game(client)
    first = held_export(client, 10)
    again = client.get("/api/v1/history.csv", environ_base=addr(10))
    assert again.status_code == 429 and "still running" in again.get_json()["error"]
    assert again.headers["Retry-After"] == "2"
    second = held_export(client, 11)
    busy = client.get("/api/v1/stats", environ_base=addr(12))
    assert busy.status_code == 429 and "busy with other downloads" in busy.get_json()["error"]
    # a tap is never held up by downloads: it is not one
    assert client.get("/api/v1/session", environ_base=addr(12)).status_code == 200
    first.get_data()                       # the slow phone reads to the end: its slot is free
    assert client.get("/api/v1/stats", environ_base=addr(12)).status_code == 200
    second.close()                          # a download cut off frees its slot too
    assert client.get("/api/v1/history.csv", environ_base=addr(11)).status_code == 200


def test_the_tables_own_devices_download_whatever_strangers_hold(app, client):
    start_game(client)
    tablet = app.test_client()
    html = tablet.get("/", environ_base=addr(20)).get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
    assert tablet.post("/api/v1/login", json={"pin": PIN}, headers={"X-CSRF-Token": token},
                       environ_base=addr(20)).status_code == 200
    held = [held_export(client, 30), held_export(client, 31)]
    assert client.get("/api/v1/stats", environ_base=addr(32)).status_code == 429      # a stranger waits
    assert tablet.get("/api/v1/history.csv", environ_base=addr(20)).status_code == 200
    assert client.get("/api/v1/stats", environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 200
    for response in held:
        response.close()
