"""Issue 15 item 6: a player's link (no PIN) cannot grow the undo list without end.

1,500 Zaubercocktail phone entries once doubled the daemon's memory and made the next
start take 123 s: every entry is undoable and the undo list kept them all. The engine
core keeps at most ``undo_depth`` (256) steps back, so memory and the restart's state
stay the same size however many entries a phone sends. (Restart *time* is replay of the
log: bench/bench_proof.py prints it; the store's snapshots make it independent of history.)
"""
from __future__ import annotations

import pickle

from controller.games.zaubercocktail.engine import Zaubercocktail
from controller.store import Store
from controller.table import Table

from .test_zaubercocktail_api import API, link, start, to_laying

ENTRIES = ({"faran_leaf": 3}, {"greenwurz": 2}, {"troll_hair": 2, "lead_earth": 2})


def send(client, token, n):
    for i in range(n):
        response = client.post(f"{API}/send", json={"token": token, "cards": ENTRIES[i % 3]})
        assert response.status_code == 200, response.get_json()


def size(state) -> int:
    return len(pickle.dumps(state))       # shared snapshots are counted once, as in memory


def test_1500_phone_entries_keep_the_undo_list_memory_and_restart_bounded(client, table, store, tmp_path):
    start(client)
    to_laying(client)
    token = link(client, 1)["token"]
    send(client, token, 300)
    after_300 = size(table._state)
    send(client, token, 1200)
    assert table.version >= 1500
    assert len(table._state["undo"]) == Zaubercocktail.undo_depth == 256
    assert size(table._state) <= after_300 * 1.05
    # a restart replays the log to the same state, with the same bounded undo list
    again = Table(Store(tmp_path / "table.sqlite3"))
    session = again.resume()
    assert session is not None and session["version"] == table.version
    assert len(again._state["undo"]) == 256
    assert again._state == table._state
    # and the undo still works, step by step, up to its depth
    undone = client.post("/api/v1/session/actions", json={"action": {"type": "undo"}},
                         headers={"X-Table-Pin": "4711"})
    assert undone.status_code == 200
