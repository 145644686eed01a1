"""Storage faults (issue 15 item 9, and item 3's files): a full card, a read-only database.

A full card is made the way SQLite sees one: ``PRAGMA max_page_count`` at the current
size, so the next write that needs a page fails with SQLITE_FULL ("database or disk is
full"), exactly the error a full SD card gives. Read-only is ``PRAGMA query_only`` (the
tests run as root, where file permissions do not stop a write). Empty, corrupt and
damaged files: tests/test_damaged.py.
"""
from __future__ import annotations

from tests.web.helpers import AUTH, start_game


def drop(client):
    session = client.get("/api/v1/session").get_json()
    action = session["legal_actions"][0]
    return client.post("/api/v1/session/actions", headers=AUTH,
                       json={"action": action, "version": session["version"], "game_id": session["id"]})


def test_a_full_card_is_said_refused_cleanly_reported_and_recovered_from(client, store, proof_line):
    start_game(client)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")       # the card is full now
    refused = []
    for _ in range(200):
        before = client.get("/api/v1/session").get_json()
        response = drop(client)
        if response.status_code == 200:
            continue
        refused.append(response)
        assert response.status_code == 507
        assert response.get_json()["error"].startswith("the SD card is full: nothing was saved or changed")
        after = client.get("/api/v1/session").get_json()
        assert (after["version"], after["state"]) == (before["version"], before["state"])
        if len(refused) == 5:
            break
    assert len(refused) == 5, "the full card was never noticed"
    health = client.get("/healthz").get_json()
    assert health["status"] == "degraded" and health["storage"].startswith("the SD card is full")
    store._db.execute("PRAGMA max_page_count = 1073741823")     # space returns
    assert drop(client).status_code == 200
    health = client.get("/healthz").get_json()
    assert health["status"] == "ok" and health["storage"] is None
    proof_line("storage: card full", 6, 0, "507 with a sentence, /healthz degraded, recovered")


def test_a_read_only_database_is_refused_cleanly_and_recovered_from(client, store, proof_line):
    start_game(client)
    store._db.execute("PRAGMA query_only = ON")
    before = client.get("/api/v1/session").get_json()
    response = drop(client)
    assert response.status_code == 503
    assert "is read-only: nothing was saved or changed" in response.get_json()["error"]
    assert client.get("/api/v1/session").get_json()["version"] == before["version"]
    assert client.get("/healthz").get_json()["status"] == "degraded"
    # a new game is refused the same way, and the running one stays
    new = client.post("/api/v1/session", headers=AUTH, json={"game": "mirakel-mix", "players": ["X", "Y"]})
    assert new.status_code == 503
    assert client.get("/api/v1/session").get_json()["id"] == before["id"]
    store._db.execute("PRAGMA query_only = OFF")
    assert drop(client).status_code == 200
    assert client.get("/healthz").get_json()["status"] == "ok"
    proof_line("storage: read-only", 3, 0)
