"""What the store costs an SD card, what a restart and an export cost.

* bytes written per action (the WAL, and everything the process wrote incl. checkpoints,
  from /proc/self/io) and fsyncs per action, for the old layout (rowid table + index,
  4 KiB pages) and the current one (WITHOUT ROWID, 1 KiB pages); and what a game night
  (5 games x 300 actions) writes;
* append latency p50/p99 (synchronous=FULL: one fsync per action, kept: every
  acknowledged action is on disk);
* restart: resume of a Zaubercocktail round of 300 taps and of a 2,000-action game, with
  snapshots vs the full replay;
* export: peak Python memory (tracemalloc) and time of writing the export for 1,000
  generated games (bench_downloads.py has the daemon's side and 10,000 games).

    python bench/bench_store.py [--games 1000]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller import table as table_module  # noqa: E402
from controller.service.bundle import write_export  # noqa: E402
from controller.store import Store  # noqa: E402
from controller.table import Table  # noqa: E402

ACTION = {"type": "drop", "colour": "red", "bowl": 2}
OLD_ACTIONS = """CREATE TABLE actions (game_id INTEGER NOT NULL REFERENCES games(id), version INTEGER NOT NULL,
    action TEXT NOT NULL, source TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (game_id, version))"""


def written_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    return 0


def old_layout(path: Path) -> None:
    """The layout before issue 16: 4 KiB pages, a rowid actions table with its index."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size=4096")
    db.executescript("""CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, players TEXT NOT NULL,
        options TEXT NOT NULL, seed INTEGER NOT NULL, started REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'playing', finished REAL, outcome TEXT);""" + OLD_ACTIONS + ";")
    db.commit()
    db.close()


def appends(path: Path, n: int, migrate: bool) -> dict[str, float]:
    store = Store(path)
    if not migrate:       # measure the old layout as it was: undo the migration
        store._db.executescript("DROP TABLE actions;" + OLD_ACTIONS + ";")
    store._db.execute("PRAGMA wal_autocheckpoint=0")
    game = store.new_game("mirakel-mix", ["Ann", "Ben"], 1, {})
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = Path(str(path) + "-wal")
    times = []
    io0 = written_bytes()
    for v in range(1, n + 1):
        t0 = time.perf_counter()
        store.append(game, v, ACTION, "sensor")
        times.append(time.perf_counter() - t0)
    wal_bytes = wal.stat().st_size
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")     # what the checkpoint adds
    total = written_bytes() - io0
    store.close()
    times.sort()
    return {"wal": wal_bytes / n, "total": total / n, "p50": statistics.median(times) * 1000,
            "p99": times[int(n * 0.99)] * 1000}


def resume_seconds(store_dir: Path, taps: int, snapshots: bool) -> tuple[float, int]:
    if not snapshots:
        table_module.SNAPSHOT_EVERY = table_module.SNAPSHOT_LATEST = 10 ** 9
    store = Store(store_dir / f"r{taps}{snapshots}.sqlite3")
    table = Table(store)
    table.start("zaubercocktail", ["A", "B", "C", "D", "E", "F", "G"], seed=3)
    table.act({"type": "reveal"})
    per_action = []
    for i in range(taps):
        t0 = time.perf_counter()
        table.act({"type": "false_trader", "seat": i % 7})
        per_action.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    Table(store).resume()
    took = time.perf_counter() - t0
    store.close()
    table_module.SNAPSHOT_EVERY, table_module.SNAPSHOT_LATEST = 100, 400
    return took, statistics.median(per_action[-20:]) * 1000


def export_peak(games: int, tmp: Path) -> tuple[float, float]:
    store = Store(tmp / f"e{games}.sqlite3")
    db = store._db
    db.execute("BEGIN")
    for g in range(games):
        cur = db.execute("INSERT INTO games (game, players, options, seed, started, status, outcome) "
                         "VALUES ('mirakel-mix', ?, '{}', ?, ?, 'done', ?)",
                         (json.dumps(["Ann", "Ben", "Cas", "Dee"]), g, g, json.dumps({"winners": [0]})))
        db.executemany("INSERT INTO actions VALUES (?, ?, ?, 'sensor', ?)",
                       [(cur.lastrowid, v, json.dumps(ACTION), g) for v in range(1, 151)])
    db.execute("COMMIT")

    class Discard(io.TextIOBase):
        size = 0

        def write(self, text: str) -> int:
            self.size += len(text)
            return len(text)
    out = Discard()
    tracemalloc.start()
    t0 = time.perf_counter()
    write_export(store, out)
    took = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    store.close()
    return peak / 2**20, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="*", default=[1000])
    parser.add_argument("--actions", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        old_layout(tmp / "old.sqlite3")
        before = appends(tmp / "old.sqlite3", args.actions, migrate=False)
        after = appends(tmp / "new.sqlite3", args.actions, migrate=True)
        print(f"store: {args.actions} appends of a {len(json.dumps(ACTION))}-byte action, synchronous=FULL "
              "(1 fsync per action)")
        for label, r in (("before (rowid + index, 4 KiB pages)", before), ("now (WITHOUT ROWID, 1 KiB pages)", after)):
            night = r["total"] * 5 * 300 / 2**20
            print(f"  {label:<38} WAL {r['wal']:6.0f} B/action, written {r['total']:6.0f} B/action "
                  f"incl. checkpoint; game night (5 x 300 actions) {night:4.1f} MiB; "
                  f"append p50 {r['p50']:.2f} ms p99 {r['p99']:.2f} ms")
        for taps in (300, 2000):
            full, per = resume_seconds(tmp, taps, snapshots=False)
            snap, per2 = resume_seconds(tmp, taps, snapshots=True)
            print(f"restart after a Zaubercocktail round of {taps} false-trader taps: "
                  f"full replay {full * 1000:.0f} ms, from snapshot {snap * 1000:.0f} ms; "
                  f"per action at the end {per2:.2f} ms")
        for games in args.games:
            peak, took = export_peak(games, tmp)
            print(f"export of {games} games x 150 actions: peak Python memory {peak:.1f} MiB, {took:.1f} s")


if __name__ == "__main__":
    main()
