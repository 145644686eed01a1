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
import os
import sqlite3
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Iterator, Literal

from . import __version__
from .ack import Acked, AckWriter, lost as ack_lost, read as read_ack
from .clock import Stamp, elapsed

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
    damage    TEXT,                        -- why a damaged game could not be resumed
    boot      TEXT,                        -- the boot it started in, and the monotonic
    mono      REAL                         -- clock then: its length never trusts the wall
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
-- the game to resume at start-up, found without reading every game: a partial index
-- holds at most the one or two rows not yet closed (no write per action touches it)
CREATE INDEX IF NOT EXISTS games_running ON games(id) WHERE status IN ('playing', 'finished');
"""

#: a new database's page size: one action then dirties one small page, not a 4 KiB one
PAGE_SIZE = 1024
#: snapshots kept per game (the newest; older ones are deleted as new ones come)
SNAPSHOTS_KEPT = 2
#: beside the database: what the store last acknowledged (controller/ack.py)
ACK_SUFFIX = ".ack"


class StoreError(Exception):
    """The database cannot be used; the message names the file and what to do."""


class StoreWriteError(StoreError):
    """A change could not be saved; nothing changed. ``full`` when the card has no room."""

    def __init__(self, message: str, full: bool = False):
        super().__init__(message)
        self.full = full


def write_problem(path: Path, exc: Exception) -> StoreWriteError:
    """The sentence for a failed write, in the words of the person at the table."""
    text = str(exc).lower()
    if "full" in text or getattr(exc, "errno", None) == 28:
        return StoreWriteError("the SD card is full: nothing was saved or changed. Free some space "
                               f"on the Pi and try again (the game is in {path})", full=True)
    if "readonly" in text or "read-only" in text:
        return StoreWriteError(f"the game database {path} is read-only: nothing was saved or changed")
    return StoreWriteError(f"the game database {path} could not be written ({exc}): "
                           "nothing was saved or changed")


class DamagedRow(ValueError):
    """One logged action cannot be read back; ``version`` says which."""

    def __init__(self, version: int, message: str):
        super().__init__(message)
        self.version = version


class Store:
    """The game log. All methods are safe to call from any thread.

    ``lost`` is set at start-up when the database holds less than the store had
    acknowledged (controller/ack.py): ``{"id", "game", "reason"}``, else None.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.problem: str | None = None         # the last failed write, until one succeeds
        self.lost: dict[str, Any] | None = None
        self._ack: AckWriter | None = None
        self._acked_meta: tuple[int, str, tuple[str, ...]] | None = None
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
            self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")     # only takes on a new, empty file
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._migrate()
            if str(path) != ":memory:":
                self._check_acknowledged(self.path.with_name(self.path.name + ACK_SUFFIX))
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot use the game database ({exc}). "
                             "`potionpi doctor` explains what is wrong") from None
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the game database "
                             f"({exc.strerror or exc})") from None

    def _check_acknowledged(self, ack_path: Path) -> None:
        """Compare the database with what the store last acknowledged (``lost``), then keep
        acknowledging. A database that holds less keeps its record as it is, so every start
        (and ``potionpi doctor``) says so until a new game or ``potionpi repair``."""
        try:
            acked = read_ack(ack_path)
        except (OSError, ValueError) as exc:
            import logging
            logging.getLogger(__name__).warning("%s is unreadable (%s); what the database holds is "
                                                "not checked this time", ack_path, exc)
            acked = None
        newest = self._db.execute("SELECT MAX(id) FROM games").fetchone()[0]
        if acked is not None:
            version = None
            if newest is not None and newest >= acked.game:
                row = self._db.execute("SELECT MAX(version) FROM actions WHERE game_id = ?",
                                       (acked.game,)).fetchone()
                exists = self._db.execute("SELECT 1 FROM games WHERE id = ?", (acked.game,)).fetchone()
                version = (row[0] or 0) if exists else 0
            reason = ack_lost(acked, newest, version)
            if reason is not None:
                self.lost = {"id": acked.game, "game": acked.name or None, "reason": reason}
        self._ack = AckWriter(ack_path)
        if self.lost is None:
            self._note_newest()

    def _note_newest(self) -> None:
        """Acknowledge what the database holds now (a first start, an accepted loss)."""
        row = self._db.execute("SELECT id, game, players FROM games ORDER BY id DESC LIMIT 1").fetchone()
        if self._ack is None:
            return
        if row is None:
            self._ack.note(Acked(0, 0))             # nothing played yet: nothing to lose
            return
        version = self._db.execute("SELECT MAX(version) FROM actions WHERE game_id = ?",
                                   (row["id"],)).fetchone()[0] or 0
        self._acked_meta = (row["id"], row["game"], tuple(json.loads(row["players"])))
        self._ack.note(Acked(row["id"], version, row["game"], self._acked_meta[2]))

    def _acknowledge(self, game_id: int, version: int) -> None:
        """After a commit (under the lock): the record says this game is at ``version``."""
        if self._ack is None:
            return
        if self._acked_meta is None or self._acked_meta[0] != game_id:
            row = self._db.execute("SELECT game, players FROM games WHERE id = ?", (game_id,)).fetchone()
            self._acked_meta = (game_id, row["game"], tuple(json.loads(row["players"]))) if row else \
                (game_id, "", ())
        self._ack.note(Acked(game_id, version, self._acked_meta[1], self._acked_meta[2]))

    def accept_loss(self) -> None:
        """The owner accepts what the database holds (``potionpi repair``, a restored copy)."""
        with self._lock:
            self.lost = None
            self._note_newest()
        if self._ack is not None:
            self._ack.flush()

    def _migrate(self) -> None:
        """Changes since the first release (CREATE TABLE IF NOT EXISTS keeps old tables): the
        ``damage`` column, and a database from before ``WITHOUT ROWID`` gets its actions
        table rebuilt once (same rows, one b-tree: half the pages written per action)."""
        columns = {row["name"] for row in self._db.execute("PRAGMA table_info(games)")}
        if "damage" not in columns:
            self._db.execute("ALTER TABLE games ADD COLUMN damage TEXT")
        for name, kind in (("boot", "TEXT"), ("mono", "REAL")):
            if name not in columns:
                self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")
        row = self._db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'actions'"
                               ).fetchone()
        if row is None or "WITHOUT ROWID" in row["sql"].upper():
            return
        with self._lock, self._write():
            self._db.execute(SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS actions"):
                                    SCHEMA.index("CREATE TABLE IF NOT EXISTS snapshots")]
                             .replace("IF NOT EXISTS actions", "actions_new"))
            self._db.execute("INSERT INTO actions_new (game_id, version, action, source, at) "
                             "SELECT game_id, version, action, source, at FROM actions")
            self._db.execute("DROP TABLE actions")
            self._db.execute("ALTER TABLE actions_new RENAME TO actions")

    # --- writing --------------------------------------------------------------
    def _end(self, where: str, params: tuple[Any, ...], now: float) -> None:
        """Date the end of the games ``where`` picks (in the caller's transaction): ended
        now, by the wall clock; begun as long before that as they lasted on the monotonic
        clock (controller/clock.py). A clock set right mid-game dates the whole game right,
        and none lasts less than nothing."""
        rows = self._db.execute(f"SELECT id, started, boot, mono FROM games WHERE {where}", params).fetchall()
        for row in rows:
            stamp = Stamp(row["boot"], row["mono"]) if row["boot"] is not None and row["mono"] is not None \
                else None
            took = elapsed(stamp, row["started"], now)
            self._db.execute("UPDATE games SET finished = ?, started = ? WHERE id = ?", (now, now - took, row["id"]))

    def new_game(self, game: str, players: list[str], seed: int, options: dict[str, Any]) -> int:
        """Start a game; any game still running is closed as replaced (it stays in history)."""
        now = time.time()
        stamp = Stamp.now()
        with self._lock, self._write():
            self._end("status = 'playing'", (), now)
            self._db.execute("UPDATE games SET status = 'replaced' WHERE status = 'playing'")
            # A finished game shown on the table is simply superseded; it keeps its outcome.
            self._db.execute("UPDATE games SET status = 'done' WHERE status = 'finished'")
            cur = self._db.execute(
                "INSERT INTO games (game, players, options, seed, started, boot, mono) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game, json.dumps(players), json.dumps(options), seed, now, stamp.boot, stamp.mono))
            assert cur.lastrowid is not None     # an INSERT always has one
        self.lost = None                         # the players moved on: a new game is the newest
        with self._lock:
            self._acked_meta = (cur.lastrowid, game, tuple(players))
            self._acknowledge(cur.lastrowid, 0)
        return cur.lastrowid

    def append(self, game_id: int, version: int, action: dict[str, Any], source: str,
               outcome: dict[str, Any] | None = None, snapshot: dict[str, Any] | None = None) -> None:
        """Log one applied action (and the outcome, if it ended the game) in one transaction;
        with ``snapshot``, the whole state after it too (see the module's docstring)."""
        now = time.time()
        state = None if snapshot is None else json.dumps(snapshot, separators=(",", ":"))
        committed = False
        with self._lock, self._write():
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
                self._end("id = ?", (game_id,), now)
                self._db.execute("UPDATE games SET status = 'finished', outcome = ? WHERE id = ?",
                                 (json.dumps(outcome), game_id))
            else:
                # an undo took back the action that ended the game: it is played on
                self._db.execute(
                    "UPDATE games SET status = 'playing', finished = NULL, outcome = NULL "
                    "WHERE id = ? AND status = 'finished'", (game_id,))
            committed = True
        if committed:
            with self._lock:
                self._acknowledge(game_id, version)

    def close_damaged(self, game_id: int, reason: str) -> None:
        """Close a game that can no longer be resumed; it stays in the history with ``reason``."""
        with self._lock, self._write():
            self._end("id = ? AND finished IS NULL", (game_id,), time.time())
            self._db.execute("UPDATE games SET status = 'damaged', damage = ? WHERE id = ?", (reason, game_id))

    def cut(self, game_id: int, from_version: int) -> int:
        """Drop the actions from ``from_version`` on and reopen the game (``potionpi repair``);
        returns how many actions were dropped. Any other running game is closed as replaced."""
        with self._lock, self._write():
            dropped = self._db.execute("DELETE FROM actions WHERE game_id = ? AND version >= ?",
                                       (game_id, from_version)).rowcount
            # a snapshot of a state the cut took away would resume the game past the cut
            self._db.execute("DELETE FROM snapshots WHERE game_id = ? AND version >= ?",
                             (game_id, from_version))
            self._end("status = 'playing' AND id != ?", (game_id,), time.time())
            self._db.execute("UPDATE games SET status = 'replaced' "
                             "WHERE status IN ('playing', 'finished') AND id != ?", (game_id,))
            self._db.execute("UPDATE games SET status = 'playing', finished = NULL, outcome = NULL, "
                             "damage = NULL WHERE id = ?", (game_id,))
        with self._lock:                         # the record follows the cut at once
            self.lost = None
            self._note_newest()
        if self._ack is not None:
            self._ack.flush()
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

    def actions(self, game_id: int, after: int = 0) -> list[dict[str, Any]]:
        """The game's actions in order (only those producing versions above ``after``)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT version, action, source, at FROM actions WHERE game_id = ? AND version > ? "
                "ORDER BY version", (game_id, after)).fetchall()
        entries = []
        for r in rows:
            try:
                action = json.loads(r["action"])
            except ValueError as exc:
                raise DamagedRow(r["version"], f"action {r['version']} is not JSON ({exc})") from None
            entries.append({"version": r["version"], "action": action, "source": r["source"], "at": r["at"]})
        return entries

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

    def iter_games(self, batch: int = 100, newest_first: bool = False,
                   statuses: tuple[str, ...] | None = None) -> Iterator[dict[str, Any]]:
        """Every game (only those with one of ``statuses``, if given), oldest (or newest)
        first, a batch at a time: constant memory however many games."""
        where = "" if statuses is None else f" AND status IN ({', '.join('?' * len(statuses))})"
        last, query = ((2**63 - 1, f"SELECT * FROM games WHERE id < ?{where} ORDER BY id DESC LIMIT ?")
                       if newest_first else (0, f"SELECT * FROM games WHERE id > ?{where} ORDER BY id LIMIT ?"))
        while True:
            with self._lock:
                rows = self._db.execute(query, (last, *(statuses or ()), batch)).fetchall()
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

    def iter_action_json(self, game_id: int, batch: int = 500) -> Iterator[list[str]]:
        """A game's log entries as JSON text, a batch at a time: each
        ``{"version": .., "action": .., "source": .., "at": ..}`` with the action spliced
        in as it was stored, never decoded and encoded again (that was most of an
        export's time). An action that is not JSON (a row changed by hand; SQLite's
        ``json_valid`` says) comes as ``"action": null`` with its text in ``"unreadable"``,
        so the export stays JSON."""
        after = 0
        sources: dict[str, str] = {}          # "sensor" -> '"sensor"': a handful of kinds
        while True:
            with self._lock:
                cursor = self._db.cursor()
                cursor.row_factory = None       # plain tuples: a Row per action costs more than the rest
                rows = cursor.execute(
                    "SELECT version, action, json_valid(action), source, at FROM actions "
                    "WHERE game_id = ? AND version > ? ORDER BY version LIMIT ?", (game_id, after, batch)).fetchall()
            if not rows:
                return
            lines = []
            for version, action, ok, source, at in rows:
                quoted = sources.get(source)
                if quoted is None:
                    quoted = sources.setdefault(source, json.dumps(source))
                if not ok:
                    action = 'null, "unreadable": ' + json.dumps(action)
                lines.append(f'{{"version": {version}, "action": {action}, "source": {quoted}, "at": {at!r}}}')
            yield lines
            after = rows[-1][0]

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """Newest games first, with their outcomes."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM games ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [self._game(r) for r in rows]

    def close(self) -> None:
        if self._ack is not None:
            self._ack.close()                    # what was acknowledged is on disk first
            self._ack = None
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]

    # --- internals ------------------------------------------------------------
    def _write(self) -> "_Transaction":
        return _Transaction(self)

    @staticmethod
    def _game(row: sqlite3.Row) -> dict[str, Any]:
        return {"id": row["id"], "game": row["game"], "players": json.loads(row["players"]),
                "options": json.loads(row["options"]), "seed": row["seed"],
                "status": row["status"], "started": row["started"], "finished": row["finished"],
                "outcome": json.loads(row["outcome"]) if row["outcome"] else None,
                "damage": row["damage"]}


def backup_file(source: Path, dest: Path) -> dict[str, int]:
    """``potionpi backup``: a consistent copy of the database at ``source``, its WAL
    included, with SQLite's online backup API (safe while the daemon writes: the copy is
    one moment of the log). ``dest`` is one self-contained file (no -wal beside it),
    checked and fsynced. Returns what it holds: {"games", "actions"}."""
    if not source.exists():
        raise StoreError(f"no games yet: {source} does not exist")
    if dest.exists():
        raise StoreError(f"{dest} already exists; name another file (or remove it first)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(source)
    try:
        target = sqlite3.connect(dest)
        try:
            src.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")     # one file, whole
            check = target.execute("PRAGMA integrity_check").fetchone()[0]
            games = target.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            actions = target.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
        finally:
            target.close()
    except sqlite3.Error as exc:
        dest.unlink(missing_ok=True)
        raise StoreError(f"{source}: the backup failed ({exc}); `potionpi doctor` explains what is wrong") from None
    finally:
        src.close()
    if check != "ok":
        dest.unlink(missing_ok=True)
        raise StoreError(f"{source}: the copy fails SQLite's check ({check}); `potionpi doctor` explains")
    fd = os.open(dest, os.O_RDONLY)
    try:
        os.fsync(fd)                                  # on the card before we say it is done
    finally:
        os.close(fd)
    return {"games": games, "actions": actions}


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error (never a half-written change).

    A write SQLite refuses (card full, read-only, I/O error) becomes StoreWriteError with a
    sentence, kept in ``store.problem`` until a later write succeeds (GET /healthz shows it).
    """

    def __init__(self, store: "Store"):
        self.store = store
        self.db = store._db

    def __enter__(self) -> sqlite3.Connection:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except (sqlite3.Error, OSError) as exc:
            raise self._failed(exc) from None
        return self.db

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> Literal[False]:
        if exc_type:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass                               # SQLite may have rolled back already
            if isinstance(exc, (sqlite3.Error, OSError)):
                raise self._failed(exc) from None
            return False
        try:
            self.db.execute("COMMIT")
        except (sqlite3.Error, OSError) as commit_error:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise self._failed(commit_error) from None
        self.store.problem = None
        return False

    def _failed(self, exc: Exception) -> StoreWriteError:
        error = write_problem(self.store.path, exc)
        self.store.problem = str(error)
        return error
