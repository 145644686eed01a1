"""SQLite event log: games and their actions. The log is the source of truth.

WAL mode with ``synchronous=FULL``: an action is on disk before ``append`` returns,
so a power cut after a tablet was told about version N can never lose version N.
Only the Table writes (under its lock); the connection is shared across threads.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id        INTEGER PRIMARY KEY,
    game      TEXT    NOT NULL,
    players   TEXT    NOT NULL,            -- JSON list of names, in seat order
    options   TEXT    NOT NULL,            -- JSON object
    seed      INTEGER NOT NULL,
    started   REAL    NOT NULL,
    status    TEXT    NOT NULL DEFAULT 'playing',  -- playing | finished | done | replaced
    finished  REAL,                        -- when it finished or was replaced
    outcome   TEXT                         -- JSON outcome of a finished game
);
CREATE TABLE IF NOT EXISTS actions (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    version   INTEGER NOT NULL,            -- the state version this action produced
    action    TEXT    NOT NULL,            -- JSON
    source    TEXT    NOT NULL,            -- "player" | "sensor" | ...
    at        REAL    NOT NULL,
    PRIMARY KEY (game_id, version)
);
"""


class Store:
    """The game log. All methods are safe to call from any thread."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    # --- writing --------------------------------------------------------------
    def new_game(self, game: str, players: list[str], seed: int, options: dict[str, Any]) -> int:
        """Start a game; any game still running is closed as replaced (it stays in history)."""
        now = time.time()
        with self._lock, self._tx():
            self._db.execute(
                "UPDATE games SET status = 'replaced', finished = ? WHERE status = 'playing'", (now,))
            # A finished game shown on the table is simply superseded; it keeps its outcome.
            self._db.execute("UPDATE games SET status = 'done' WHERE status = 'finished'")
            cur = self._db.execute(
                "INSERT INTO games (game, players, options, seed, started) VALUES (?, ?, ?, ?, ?)",
                (game, json.dumps(players), json.dumps(options), seed, now))
            assert cur.lastrowid is not None     # an INSERT always has one
            return cur.lastrowid

    def append(self, game_id: int, version: int, action: dict[str, Any], source: str,
               outcome: dict[str, Any] | None = None) -> None:
        """Log one applied action (and the outcome, if it ended the game) in one transaction."""
        now = time.time()
        with self._lock, self._tx():
            self._db.execute(
                "INSERT INTO actions (game_id, version, action, source, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, version, json.dumps(action), source, now))
            if outcome is not None:
                self._db.execute(
                    "UPDATE games SET status = 'finished', finished = ?, outcome = ? WHERE id = ?",
                                 (now, json.dumps(outcome), game_id))
            else:
                # an undo took back the action that ended the game: it is played on
                self._db.execute(
                    "UPDATE games SET status = 'playing', finished = NULL, outcome = NULL "
                    "WHERE id = ? AND status = 'finished'", (game_id,))

    # --- reading --------------------------------------------------------------
    def running_game(self) -> dict[str, Any] | None:
        """The game to resume at start-up: the newest one not replaced."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM games WHERE status IN ('playing', 'finished') "
                "ORDER BY id DESC LIMIT 1").fetchone()
        return self._game(row) if row else None

    def actions(self, game_id: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT version, action, source, at FROM actions WHERE game_id = ? ORDER BY version",
                (game_id,)).fetchall()
        return [{"version": r["version"], "action": json.loads(r["action"]),
                 "source": r["source"], "at": r["at"]} for r in rows]

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """Newest games first, with their outcomes."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM games ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [self._game(r) for r in rows]

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]

    # --- internals ------------------------------------------------------------
    def _tx(self):
        return _Transaction(self._db)

    @staticmethod
    def _game(row: sqlite3.Row) -> dict[str, Any]:
        return {"id": row["id"], "game": row["game"], "players": json.loads(row["players"]),
                "options": json.loads(row["options"]), "seed": row["seed"],
                "status": row["status"], "started": row["started"], "finished": row["finished"],
                "outcome": json.loads(row["outcome"]) if row["outcome"] else None}


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error (never a half-written change)."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type, exc, tb):
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        return False
