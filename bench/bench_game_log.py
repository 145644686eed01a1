"""The game log in words (controller/records.py): what the table's "Game log" tab costs.

Plays a whole game of each game by random legal actions into a real SQLite store, then
measures (figures only, no thresholds):
- first read: the whole game replayed through its engine to know who acted;
- read again: nothing new to replay (the LogBook keeps each game's state, so a refresh
  after one more action replays only that one);
- history, stats and the CSV of all games.

Run: .venv/bin/python bench/bench_game_log.py  (make bench runs every bench/bench_*.py)
"""
from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller import records, stats  # noqa: E402
from controller.store import Store  # noqa: E402
from controller.table import Table  # noqa: E402

GAMES = [("mirakel-mix", ["Ann", "Ben", "Cy", "Di"]),
         ("zaubercocktail", ["Ann", "Ben", "Cy", "Di", "Eve", "Finn", "Gus"]),
         ("zauberwald", ["Ann", "Ben", "Cy", "Di"])]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.sqlite3")
        table = Table(store)
        rng = random.Random(1)
        for game, players in GAMES:
            session = table.start(game, players, seed=7)
            while session["outcome"] is None and session["version"] < 3000:
                legal = [a for a in session["legal_actions"] + [a for s in range(len(players))
                                                                 for a in table.session(s)["private"]["legal_actions"]]
                         if a["type"] != "undo"]
                session = table.act(rng.choice(legal))
            row = store.history(1)[0]
            actions = store.actions(row["id"])
            book = records.LogBook()
            t0 = time.perf_counter()
            entries = book.entries(row, actions)
            first = time.perf_counter() - t0
            # the panel refreshing with nothing new: nothing is replayed
            t0 = time.perf_counter()
            book.entries(row, actions)
            again = time.perf_counter() - t0
            print(f"{game:<15} {len(actions):5d} actions  first read {ms(first)}  "
                  f"({first / max(1, len(actions)) * 1e6:6.1f} µs/action)  read again {ms(again)}  "
                  f"{len(entries)} entries")
        rows = store.history(1000)
        for name, call in (("history", lambda: records.past_games(rows)),
                           ("stats", lambda: stats.table_stats(reversed(rows))),
                           ("csv", lambda: records.history_csv(rows))):
            t0 = time.perf_counter()
            for _ in range(100):
                call()
            print(f"{name:<15} {len(rows)} games  {ms((time.perf_counter() - t0) / 100)} per call")
        store.close()


if __name__ == "__main__":
    main()
