"""`potionpi doctor` and `potionpi repair`: what is wrong with the game database, and the fix.

The daemon itself never stops over one bad game: at start-up a game that no longer
replays is closed as *damaged* (``Table.resume``). These commands explain that on the
Pi and act on it: move a cut-off or corrupt file aside, close a game, or cut a damaged
game back to its last good action so it can be played on.
"""
from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path
from typing import TextIO

from .store import Store, StoreError
from .table import ReplayFailed, replay


def file_problem(path: Path) -> str | None:
    """Why the file cannot be opened as a database at all (None: it can, or it is absent)."""
    if not path.exists():
        return None
    if path.stat().st_size == 0:
        return f"{path} is empty (0 bytes): the game history in it is lost"
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            result = db.execute("PRAGMA quick_check").fetchone()[0]
            db.execute("SELECT id, status FROM games LIMIT 1").fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        return f"{path} is not a readable potionpi database ({exc})"
    if result != "ok":
        return f"{path} fails SQLite's check ({result})"
    return None


def doctor(path: Path, out: TextIO) -> int:
    """Print what is wrong and what to do; 0 when all is well, 1 when something is not."""
    if not path.exists():
        print(f"{path}: no database yet (the daemon creates it at its first start)", file=out)
        return 0
    problem = file_problem(path)
    if problem:
        print(f"problem: {problem}.", file=out)
        print("  fix: restore a copy of the file, or `potionpi repair` to move it aside "
              "(the daemon then starts with an empty history)", file=out)
        return 1
    store = Store(path)
    problems = 0
    try:
        if store.lost is not None:
            problems += 1
            print(f"problem: the database holds less than the table had saved: {store.lost['reason']}.",
                  file=out)
            print("  fix: restore the newest copy made with `potionpi backup` (stop potionpi, copy it over "
                  f"{path.name}, delete {path.name}-wal and -shm if there), or accept what is left: "
                  "`potionpi repair` (or start a new game on the tablet)", file=out)
        running = store.running_game_id()
        if running is not None:
            try:
                _row, _engine, _state, version = replay(store, running)
                print(f"game #{running} resumes at version {version}", file=out)
            except ReplayFailed as exc:
                problems += 1
                print(f"problem: game #{running} does not replay: {exc.reason}.", file=out)
                print("  at the next start it is closed as damaged (kept in the history); "
                      "`potionpi repair` does that now", file=out)
                _resume_hint(running, exc, out)
        # a batch at a time, only the damaged ones: constant memory at any number of games
        for game in store.iter_games(newest_first=True, statuses=("damaged",)):
            if game["status"] == "damaged":
                problems += 1
                print(f"damaged: game #{game['id']} ({game['game']}, "
                      f"{', '.join(game['players'])}): {game['damage']}", file=out)
                try:
                    replay(store, game["id"])
                    print(f"  it replays now: `potionpi repair --resume {game['id']}` reopens it",
                          file=out)
                except ReplayFailed as exc:
                    _resume_hint(game["id"], exc, out)
    finally:
        store.close()
    if not problems:
        print(f"{path}: ok", file=out)
    return 1 if problems else 0


def _resume_hint(game_id: int, exc: ReplayFailed, out: TextIO) -> None:
    if exc.version:
        print(f"  `potionpi repair --resume {game_id}` drops action {exc.version} and every later "
              f"one, so the game goes on from version {exc.version - 1}", file=out)


def repair(path: Path, out: TextIO, resume: int | None = None) -> int:
    """Act on what ``doctor`` found; prints each step. 0 done, 1 nothing could be done."""
    problem = file_problem(path)
    if problem:
        aside = _move_aside(path, "broken")
        print(f"{problem}; moved it to {aside}. The daemon starts with an empty history.", file=out)
        return 0
    if not path.exists():
        print(f"{path}: no database yet; nothing to repair", file=out)
        return 0
    store = Store(path)
    try:
        if resume is not None:
            return _resume(store, path, resume, out)
        if store.lost is not None:
            lost = store.lost
            game = store.game(lost["id"])
            if game is not None and game["status"] != "damaged":
                store.close_damaged(lost["id"], lost["reason"])
            store.accept_loss()
            print(f"accepted what the database holds ({lost['reason']}); the table starts from it, "
                  "and no longer says it is damaged", file=out)
            return 0
        running = store.running_game_id()
        if running is None:
            print("no running game; nothing to repair (`potionpi doctor` lists damaged games)", file=out)
            return 0
        try:
            _row, _engine, _state, version = replay(store, running)
        except ReplayFailed as exc:
            store.close_damaged(running, exc.reason)
            print(f"closed game #{running} as damaged: {exc.reason}", file=out)
            _resume_hint(running, exc, out)
            return 0
        print(f"game #{running} replays to version {version}; nothing to repair", file=out)
        return 0
    finally:
        store.close()


def _resume(store: Store, path: Path, game_id: int, out: TextIO) -> int:
    game = store.game(game_id)
    if game is None:
        print(f"there is no game #{game_id} (`potionpi history` lists them)", file=out)
        return 1
    cut_at: int | None
    try:
        _row, _engine, _state, version = replay(store, game_id)
        cut_at = version + 1                              # it replays whole: drop nothing
    except ReplayFailed as exc:
        if not exc.version:
            print(f"game #{game_id} cannot be resumed at all: {exc.reason}", file=out)
            return 1
        cut_at = exc.version
    copy = path.with_name(f"{path.name}.before-repair-{time.strftime('%Y%m%d-%H%M%S')}")
    store.backup(copy)
    dropped = store.cut(game_id, cut_at)
    print(f"game #{game_id} is the running game again at version {cut_at - 1} "
          f"({dropped} action{'s' if dropped != 1 else ''} dropped; the database before the "
          f"repair is in {copy}). Restart the daemon to play on.", file=out)
    return 0


def _move_aside(path: Path, why: str) -> Path:
    aside = path.with_name(f"{path.name}.{why}-{time.strftime('%Y%m%d-%H%M%S')}")
    shutil.move(path, aside)
    for suffix in ("-wal", "-shm"):                       # SQLite's side files belong to it
        side = path.with_name(path.name + suffix)
        if side.exists():
            shutil.move(side, aside.with_name(aside.name + suffix))
    return aside


__all__ = ["doctor", "repair", "file_problem", "StoreError"]
