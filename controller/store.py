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
    status    TEXT    NOT NULL DEFAULT 'playing',  -- playing | finished | done | replaced | damaged
    finished  REAL,                        -- when it finished or was replaced
    outcome   TEXT,                        -- JSON outcome of a finished game
    damage    TEXT                         -- why a damaged game could not be resumed
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


class StoreError(Exception):
    """The database cannot be used; the message names the file and what to do."""


class DamagedRow(ValueError):
    """One logged action cannot be read back; ``version`` says which."""

    def __init__(self, version: int, message: str):
        super().__init__(message)
        self.version = version


class Store:
    """The game log. All methods are safe to call from any thread."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # SQLite takes a zero-length file for a new, empty database. Here it means a
            # log that was cut off (a full card, a copy gone wrong): starting "empty" would
            # hide the loss, so refuse and say what to do.
            if self.path.exists() and self.path.stat().st_size == 0:
                raise StoreError(f"{self.path} is empty (0 bytes): the game history in it is lost. "
                                 "Restore a copy, or run `potionpi repair` to move it aside and "
                                 "start with an empty history")
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._migrate()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot use the game database ({exc}). "
                             "`potionpi doctor` explains what is wrong") from None
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the game database "
                             f"({exc.strerror or exc})") from None

    def _migrate(self) -> None:
        """Columns added since the first release (CREATE TABLE IF NOT EXISTS keeps old tables)."""
        columns = {row["name"] for row in self._db.execute("PRAGMA table_info(games)")}
        if "damage" not in columns:
            self._db.execute("ALTER TABLE games ADD COLUMN damage TEXT")

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

    def close_damaged(self, game_id: int, reason: str) -> None:
        """Close a game that can no longer be resumed; it stays in the history with ``reason``."""
        with self._lock, self._tx():
            self._db.execute("UPDATE games SET status = 'damaged', finished = ?, damage = ? "
                             "WHERE id = ?", (time.time(), reason, game_id))

    def cut(self, game_id: int, from_version: int) -> int:
        """Drop the actions from ``from_version`` on and reopen the game (``potionpi repair``);
        returns how many actions were dropped. Any other running game is closed as replaced."""
        with self._lock, self._tx():
            dropped = self._db.execute("DELETE FROM actions WHERE game_id = ? AND version >= ?",
                                       (game_id, from_version)).rowcount
            self._db.execute("UPDATE games SET status = 'replaced', finished = ? "
                             "WHERE status IN ('playing', 'finished') AND id != ?", (time.time(), game_id))
            self._db.execute("UPDATE games SET status = 'playing', finished = NULL, outcome = NULL, "
                             "damage = NULL WHERE id = ?", (game_id,))
        return dropped

    def backup(self, dest: Path) -> None:
        """A consistent copy of the whole database (the WAL included) in ``dest``."""
        with self._lock:
            target = sqlite3.connect(dest)
            try:
                self._db.backup(target)
            finally:
                target.close()

    def game(self, game_id: int) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return self._game(row) if row else None

    # --- reading --------------------------------------------------------------
    def running_game_id(self) -> int | None:
        """The id of the game to resume, read without decoding the row (it may be damaged)."""
        with self._lock:
            row = self._db.execute("SELECT id FROM games WHERE status IN ('playing', 'finished') "
                                   "ORDER BY id DESC LIMIT 1").fetchone()
        return row["id"] if row else None

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
        entries = []
        for r in rows:
            try:
                action = json.loads(r["action"])
            except ValueError as exc:
                raise DamagedRow(r["version"], f"action {r['version']} is not JSON ({exc})") from None
            entries.append({"version": r["version"], "action": action, "source": r["source"], "at": r["at"]})
        return entries

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
                "outcome": json.loads(row["outcome"]) if row["outcome"] else None,
                "damage": row["damage"]}


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
