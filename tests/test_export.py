"""`potionpi export` streams: the document is written a game and a batch of actions at a
time, so its memory does not grow with the number of games (a Pi has 512 MB); each action
is the JSON text the store kept, spliced in."""
from __future__ import annotations

import io
import json
import tracemalloc

from controller.cli import main
from controller.service.bundle import write_export
from controller.daemon import DB_FILE
from controller.store import Store


def fill(store: Store, games: int, actions: int = 40) -> None:
    """``games`` finished games of ``actions`` drops each, written in one transaction."""
    db = store._db
    db.execute("BEGIN")
    for g in range(games):
        cur = db.execute("INSERT INTO games (game, players, options, seed, started, status, outcome) "
                         "VALUES ('mirakel-mix', ?, '{}', ?, ?, 'done', ?)",
                         (json.dumps(["Ann", "Ben"]), g, g, json.dumps({"winners": [0]})))
        db.executemany("INSERT INTO actions VALUES (?, ?, ?, 'sensor', ?)",
                       [(cur.lastrowid, v, json.dumps({"type": "drop", "colour": "red"}), g)
                        for v in range(1, actions + 1)])
    db.execute("COMMIT")


class Recorder(io.StringIO):
    """Keeps what was written and the size of the largest single write."""

    largest = 0
    writes = 0

    def write(self, text: str) -> int:
        self.largest = max(self.largest, len(text))
        self.writes += 1
        return super().write(text)


def test_export_writes_every_game_and_action_as_it_reads_them(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    fill(store, 250)
    out = Recorder()
    write_export(store, out)
    document = json.loads(out.getvalue())
    assert len(document["games"]) == 250
    assert all(len(g["actions"]) == 40 for g in document["games"])
    assert document["games"][0]["actions"][0]["action"] == {"type": "drop", "colour": "red"}
    assert document["games"][-1]["outcome"] == {"winners": [0]}
    # incremental: never more than one game's head or one batch of actions in a single write
    assert out.largest < 500 * 100
    assert out.writes >= 250 * 3
    store.close()


def test_the_export_is_what_decoding_every_action_would_give(tmp_path):
    """The spliced text is the same document, field for field, as decoding each action."""
    store = Store(tmp_path / "t.sqlite3")
    fill(store, 3, actions=1200)        # more actions than one batch
    out = io.StringIO()
    write_export(store, out)
    document = json.loads(out.getvalue())
    for game in document["games"]:
        assert game["actions"] == list(store.iter_actions(game["id"]))
        assert {k: v for k, v in game.items() if k != "actions"} == store.game(game["id"])
    store.close()


def test_an_action_that_is_not_json_stays_in_the_export_as_text(tmp_path):
    """A row changed by hand never makes the document unreadable or stops the export."""
    store = Store(tmp_path / "t.sqlite3")
    fill(store, 2, actions=3)
    store._db.execute("UPDATE actions SET action = '{\"type\": \"dro' WHERE game_id = 1 AND version = 2")
    out = io.StringIO()
    write_export(store, out)
    first = json.loads(out.getvalue())["games"][-1]
    assert first["id"] == 1
    assert first["actions"][1]["action"] is None
    assert first["actions"][1]["unreadable"] == '{"type": "dro'
    assert first["actions"][2]["action"] == {"type": "drop", "colour": "red"}
    store.close()


def peak_export_bytes(store: Store) -> int:
    class Discard(io.TextIOBase):
        def write(self, text: str) -> int:
            return len(text)
    tracemalloc.start()
    try:
        write_export(store, Discard())
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_export_memory_does_not_grow_with_the_number_of_games(tmp_path):
    small, large = Store(tmp_path / "small.sqlite3"), Store(tmp_path / "large.sqlite3")
    fill(small, 100)
    fill(large, 1000)            # 10x the games and actions
    assert peak_export_bytes(large) < 2 * peak_export_bytes(small) + 256 * 1024
    small.close()
    large.close()


def test_export_command_writes_the_file(tmp_path, capsys):
    store = Store(tmp_path / DB_FILE)
    fill(store, 3, actions=2)
    store.close()
    target = tmp_path / "games.json"
    assert main(["export", "--data-dir", str(tmp_path), "-o", str(target)]) == 0
    assert [len(g["actions"]) for g in json.loads(target.read_text())["games"]] == [2, 2, 2]
    assert main(["export", "--data-dir", str(tmp_path)]) == 0
    assert len(json.loads(capsys.readouterr().out)["games"]) == 3
