"""State snapshots in the store: a restart replays only the actions after the newest one,
and ends where the full replay of the log ends (every game, random legal play)."""
from __future__ import annotations

import json
import random
import sqlite3

import pytest

from controller import games
from controller import table as table_module
from controller.store import Store
from controller.table import SNAPSHOT_EVERY, SNAPSHOT_LATEST, Table

PLAYERS = {"mirakel-mix": ["Ann", "Ben", "Cas"], "zaubercocktail": ["A", "B", "C", "D", "E"],
           "zauberwald": ["Ann", "Ben"]}


def play(table: Table, rng: random.Random, actions: int) -> None:
    """Random legal actions (a listed one each time) until ``actions`` or the game ends."""
    for _ in range(actions):
        session = table.session()
        if session["outcome"] is not None:
            return
        choices = [a for a in session["legal_actions"] if a["type"] != "undo"] or session["legal_actions"]
        if rng.random() < 0.1 and any(a["type"] == "undo" for a in session["legal_actions"]):
            table.act({"type": "undo"})
        else:
            table.act(rng.choice(choices))


def full_replay(store: Store, game_id: int):
    row = next(g for g in store.history(1000) if g["id"] == game_id)
    engine = games.load(row["game"])
    state = engine.setup(row["players"], row["seed"], row["options"])
    for entry in store.actions(game_id):
        state, _ = engine.apply(state, entry["action"])
    return state


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_resume_from_a_snapshot_equals_the_full_replay(tmp_path, game, monkeypatch):
    # snapshots often, so even a short game has several (at every kind of moment)
    monkeypatch.setattr(table_module, "SNAPSHOT_EVERY", 7)
    monkeypatch.setattr(table_module, "SNAPSHOT_LATEST", 30)
    store = Store(tmp_path / "t.sqlite3")
    table = Table(store)
    table.start(game, PLAYERS[game], seed=11)
    play(table, random.Random(5), 250)
    before = table.session()
    game_id = before["id"]
    snapshot = store.latest_snapshot(game_id)
    assert snapshot is not None
    again = Table(store)
    assert again.resume() == before
    assert again._state == full_replay(store, game_id) == table._state
    assert len(store.actions(game_id, after=snapshot[0])) < 30      # only the tail was replayed
    assert json.loads(json.dumps(snapshot[1])) == snapshot[1]
    store.close()


def test_a_long_game_is_resumed_from_its_newest_snapshot(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    table = Table(store)
    table.start("zaubercocktail", PLAYERS["zaubercocktail"], seed=3)
    table.act({"type": "reveal"})
    for i in range(1000):          # a round of "false trader" taps and take-backs
        table.act({"type": "false_trader", "seat": i % 5} if i % 3 else {"type": "undo"}
                  if table.session()["can_undo"] else {"type": "false_trader", "seat": 0})
    version, _state = store.latest_snapshot(table.session()["id"])
    assert table.version - version <= SNAPSHOT_LATEST
    again = Table(store)
    assert again.resume() == table.session()
    assert again._state == full_replay(store, table.session()["id"])
    store.close()


def test_a_snapshot_from_another_potionpi_version_is_ignored(tmp_path, monkeypatch):
    store = Store(tmp_path / "t.sqlite3")
    table = Table(store)
    table.start("mirakel-mix", PLAYERS["mirakel-mix"], seed=2)
    play(table, random.Random(1), SNAPSHOT_LATEST + 10)
    session = table.session()
    assert store.latest_snapshot(session["id"]) is not None
    store._db.execute("UPDATE snapshots SET code = '0.0.0-old', state = '{\"broken\": 1}'")
    assert store.latest_snapshot(session["id"]) is None
    assert Table(store).resume() == session        # the full log replayed instead
    store.close()


def test_a_database_from_before_without_rowid_keeps_every_action(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, players TEXT NOT NULL,
            options TEXT NOT NULL, seed INTEGER NOT NULL, started REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'playing', finished REAL, outcome TEXT);
        CREATE TABLE actions (game_id INTEGER NOT NULL REFERENCES games(id), version INTEGER NOT NULL,
            action TEXT NOT NULL, source TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (game_id, version));
        INSERT INTO games (game, players, options, seed, started) VALUES ('zaubercocktail', '["A","B","C","D"]', '{}', 4, 0);
        INSERT INTO actions VALUES (1, 1, '{"type": "reveal"}', 'player', 0);
        INSERT INTO actions VALUES (1, 2, '{"type": "false_trader", "seat": 2}', 'player', 0);
    """)
    db.commit()
    db.close()
    store = Store(path)
    sql = store._db.execute("SELECT sql FROM sqlite_master WHERE name = 'actions'").fetchone()[0]
    assert "WITHOUT ROWID" in sql
    assert [a["action"]["type"] for a in store.actions(1)] == ["reveal", "false_trader"]
    session = Table(store).resume()
    assert session["version"] == 2
    store.close()
