"""The BG Stats export (controller/bgstats.py): what "Download all games (BG Stats)" costs
as the history grows. A real SQLite store is filled with finished games of every game
(outcomes shaped as each engine writes them), then it measures (figures only, no
thresholds) reading the history, writing the play file of all games (streamed from the
store in two passes) and of one, and the file's size.

Run: .venv/bin/python bench/bench_bgstats.py  (make bench runs every bench/bench_*.py)
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller import bgstats  # noqa: E402
from controller.store import Store  # noqa: E402

PLAYERS = ["Ann", "Ben", "Cem", "Dora", "Eli", "Finn", "Gus", "Hana"]
OUTCOMES = {
    "mirakel-mix": {"winners": [1], "ranking": [{"seat": 1, "place": 1, "score": 0},
                                                {"seat": 0, "place": 2, "score": 8},
                                                {"seat": 2, "place": 3, "score": 9}]},
    "mix-it": {"winners": [0], "cookies": [3, 1, 0],
               "ranking": [{"seat": 0, "place": 1, "score": 3}, {"seat": 1, "place": 2, "score": 1},
                           {"seat": 2, "place": 3, "score": 0}]},
    "zaubercocktail": {"winners": [2], "scores": [3, 4, 11],
                       "ranking": [{"seat": 2, "place": 1, "score": 11}, {"seat": 1, "place": 2, "score": 4},
                                   {"seat": 0, "place": 3, "score": 3}]},
    "zauberwald": {"winners": [0], "ranking": [
        {"seat": 0, "place": 1, "score": {"potions": 3, "ingredients_on_card": 2}},
        {"seat": 1, "place": 2, "score": {"potions": 1, "ingredients_on_card": 5}},
        {"seat": 2, "place": 3, "score": {"potions": 0, "ingredients_on_card": 1}}]},
    "elixir": {"winners": [1], "ranking": []},
}


def fill(store: Store, games: int) -> None:
    db = store._db
    db.execute("BEGIN")
    kinds = list(OUTCOMES)
    for g in range(games):
        game = kinds[g % len(kinds)]
        players = [PLAYERS[(g + i) % len(PLAYERS)] for i in range(3)]
        db.execute("INSERT INTO games (game, players, options, seed, started, finished, status, outcome) "
                   "VALUES (?, ?, '{}', ?, ?, ?, 'done', ?)",
                   (game, json.dumps(players), g, 1.7e9 + g * 3600, 1.7e9 + g * 3600 + 1500,
                    json.dumps(OUTCOMES[game])))
    db.execute("COMMIT")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def main() -> None:
    for games in (100, 1000, 5000):
        with tempfile.TemporaryDirectory() as folder:
            store = Store(Path(folder) / "bench.sqlite3")
            fill(store, games)
            t = time.perf_counter()
            sum(1 for _ in store.iter_games(statuses=bgstats.FINISHED))
            read = time.perf_counter() - t
            t = time.perf_counter()
            size = sum(len(piece.encode()) for piece in
                       bgstats.play_file(lambda: store.iter_games(statuses=bgstats.FINISHED)))
            every = time.perf_counter() - t
            t = time.perf_counter()
            "".join(bgstats.one_game(store.game(games // 2), games // 2))
            one = time.perf_counter() - t
            print(f"{games:5d} finished games: history read {ms(read)}, all-games file {ms(every)} "
                  f"({size / 1024:7.0f} KiB, streamed: two reads of the history), one game {ms(one)}")
            store.close()


if __name__ == "__main__":
    main()
