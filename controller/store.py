"""SQLite event log: games and their actions. The log is the source of truth.

WAL mode with ``synchronous=FULL``: an action is on disk before ``append`` returns,
so a power cut after a tablet was told about version N can never lose version N.
Only the Table writes (under its lock); the connection is shared across threads.

Written bytes per action (an SD card wears by them; docs/performance.md): the actions
table is ``WITHOUT ROWID`` (one b-tree, not a table plus its primary-key index) and a
new database uses 1 KiB pages, so one ~100-byte action writes ~1.9 KB of WAL, not 8.4.

Snapshots: now and then the table stores the whole state of the running game
(``snapshot``), so a restart replays only the actions after the newest one. A snapshot
is a cache, never the truth: it is written in the same transaction as its action,
keyed by the code version that wrote it, and ignored when that differs.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from . import __version__

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
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    version   INTEGER NOT NULL,            -- the state after this action
    code      TEXT    NOT NULL,            -- the potionpi version that wrote it
    state     TEXT    NOT NULL,            -- JSON
    PRIMARY KEY (game_id, version)
) WITHOUT ROWID;
"""

#: a new database's page size: one action then dirties one small page, not a 4 KiB one
PAGE_SIZE = 1024
#: snapshots kept per game (the newest; older ones are deleted as new ones come)
SNAPSHOTS_KEPT = 2


class Store:
    """The game log. All methods are safe to call from any thread."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")     # only takes on a new, empty file
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._migrate()

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
               outcome: dict[str, Any] | None = None, snapshot: dict[str, Any] | None = None) -> None:
        """Log one applied action (and the outcome, if it ended the game) in one transaction;
        with ``snapshot``, the whole state after it too (see the module's docstring)."""
        now = time.time()
        state = None if snapshot is None else json.dumps(snapshot, separators=(",", ":"))
        with self._lock, self._tx():
            self._db.execute(
                "INSERT INTO actions (game_id, version, action, source, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, version, json.dumps(action), source, now))
            if state is not None:
                self._db.execute("INSERT OR REPLACE INTO snapshots (game_id, version, code, state) "
                                 "VALUES (?, ?, ?, ?)", (game_id, version, __version__, state))
                self._db.execute(
                    "DELETE FROM snapshots WHERE game_id = ? AND version NOT IN (SELECT version "
                    "FROM snapshots WHERE game_id = ? ORDER BY version DESC LIMIT ?)",
                    (game_id, game_id, SNAPSHOTS_KEPT))
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

    def actions(self, game_id: int, after: int = 0) -> list[dict[str, Any]]:
        """The game's actions in order (only those producing versions above ``after``)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT version, action, source, at FROM actions WHERE game_id = ? AND version > ? "
                "ORDER BY version", (game_id, after)).fetchall()
        return [{"version": r["version"], "action": json.loads(r["action"]),
                 "source": r["source"], "at": r["at"]} for r in rows]

    def latest_snapshot(self, game_id: int) -> tuple[int, dict[str, Any]] | None:
        """(version, state) of the game's newest snapshot this code wrote, if any."""
        with self._lock:
            row = self._db.execute(
                "SELECT version, state FROM snapshots WHERE game_id = ? AND code = ? "
                "ORDER BY version DESC LIMIT 1", (game_id, __version__)).fetchone()
        if row is None:
            return None
        try:
            return row["version"], json.loads(row["state"])
        except ValueError:          # unreadable: the log still has everything
            return None

    def iter_games(self, batch: int = 100) -> Iterator[dict[str, Any]]:
        """Every game, oldest first, a batch at a time (constant memory however many)."""
        last = 0
        while True:
            with self._lock:
                rows = self._db.execute("SELECT * FROM games WHERE id > ? ORDER BY id LIMIT ?",
                                        (last, batch)).fetchall()
            if not rows:
                return
            for row in rows:
                yield self._game(row)
            last = rows[-1]["id"]

    def iter_actions(self, game_id: int, batch: int = 500) -> Iterator[dict[str, Any]]:
        """A game's actions in order, a batch at a time (constant memory however long)."""
        after = 0
        while True:
            with self._lock:
                rows = self._db.execute(
                    "SELECT version, action, source, at FROM actions WHERE game_id = ? AND version > ? "
                    "ORDER BY version LIMIT ?", (game_id, after, batch)).fetchall()
            if not rows:
                return
            for r in rows:
                yield {"version": r["version"], "action": json.loads(r["action"]),
                       "source": r["source"], "at": r["at"]}
            after = rows[-1]["version"]

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
    def _migrate(self) -> None:
        """A database from before ``WITHOUT ROWID`` gets its actions table rebuilt once
        (same rows, one b-tree: half the pages written per action)."""
        row = self._db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'actions'"
                               ).fetchone()
        if row is None or "WITHOUT ROWID" in row["sql"].upper():
            return
        with self._lock, self._tx():
            self._db.execute(SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS actions"):
                                    SCHEMA.index("CREATE TABLE IF NOT EXISTS snapshots")]
                             .replace("IF NOT EXISTS actions", "actions_new"))
            self._db.execute("INSERT INTO actions_new (game_id, version, action, source, at) "
                             "SELECT game_id, version, action, source, at FROM actions")
            self._db.execute("DROP TABLE actions")
            self._db.execute("ALTER TABLE actions_new RENAME TO actions")

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
