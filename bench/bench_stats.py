"""The players' statistics and the replay (controller/stats.py, controller/replays.py): what
the Players tab and a replayed game cost. Figures only, no thresholds.

- statistics: a real SQLite store filled with 1,000 and 10,000 finished games of every game
  (bench_bgstats' outcomes, 8 players taking turns three at a time), then GET /api/v1/stats
  through the app and ``table_stats`` alone: time (median of 5), peak Python memory while
  answering (tracemalloc) and the answer's size; the baseline is reading the history alone.
- replay: a whole game of each kind played by the quick players into a store, then the
  first page (25 steps), the last page (replayed from the set-up) and the score over the game.

Run: .venv/bin/python bench/bench_stats.py [--runs 5]  (make bench runs every bench/bench_*.py)
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_bgstats import fill  # noqa: E402
from bench.report import row  # noqa: E402
from controller import bgstats, games, records, replays  # noqa: E402
from controller.stats import table_stats  # noqa: E402
from controller.store import Store  # noqa: E402
from controller.table import Table  # noqa: E402

RUNS = 5


def median_ms(call, runs: int | None = None) -> float:
    times = []
    for _ in range(runs or RUNS):
        t = time.perf_counter()
        call()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def peak_mib(call) -> float:
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def bench_stats(games_played: int) -> None:
    from tests.web.helpers import PIN, SECRET
    from web_ui import create_app
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.sqlite3")
        fill(store, games_played)
        client = create_app(table=Table(store), pin=PIN, secret_key=SECRET).test_client()
        rows = lambda: store.iter_games(statuses=bgstats.FINISHED)     # noqa: E731
        read = median_ms(lambda: sum(1 for _ in rows()))
        alone = median_ms(lambda: table_stats(rows()))
        answer = client.get("/api/v1/stats")
        assert answer.status_code == 200
        route = median_ms(lambda: client.get("/api/v1/stats").get_data())
        peak = peak_mib(lambda: client.get("/api/v1/stats").get_data())
        size = len(answer.get_data())
        body = answer.get_json()
        print(f"{games_played:6,d} games: history read {read:7.1f} ms, table_stats {alone:7.1f} ms, "
              f"GET /api/v1/stats {route:7.1f} ms, peak {peak:5.1f} MiB, answer {size / 1024:5.1f} KiB "
              f"({len(body['overall'])} players, {len(body['head_to_head'])} pairs)")
        row(f"GET /api/v1/stats, {games_played:,} games", f"{route:.0f} ms", f"{read:.0f} ms reading the history alone",
            route / read if read else None, note=f"median of {RUNS}; peak {peak:.1f} MiB; answer {size / 1024:.1f} KiB")
        store.close()


def bench_replay() -> None:
    from tests.players import OPTIONS, PLAYERS, choose
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.sqlite3")
        table = Table(store)
        for game_id in PLAYERS:
            engine, rng = games.load(game_id), random.Random(1)
            game_no = table.start(game_id, PLAYERS[game_id], seed=1, options=OPTIONS.get(game_id, {}))["id"]
            while table.session()["outcome"] is None:
                table.act(choose(game_id, engine, table.inspect(lambda _e, s: s), rng))
            total = table.version + 1
            book = records.LogBook()
            first = median_ms(lambda: replays.page(store, book, game_no, 0, replays.PAGE), 3)
            last = median_ms(lambda: replays.page(store, book, game_no, total - replays.PAGE, replays.PAGE), 3)
            size = len(json.dumps(replays.page(store, book, game_no, 0, replays.PAGE)))
            over = median_ms(lambda: replays.ScoreBook().over_the_game(store, game_no), 3)
            print(f"{game_id:<15} {total:5d} steps: first page {first:7.1f} ms ({size / 1024:5.0f} KiB), "
                  f"last page {last:7.1f} ms, score over the game {over:7.1f} ms (then kept)")
            row(f"replay {game_id}, last page of {total} steps", f"{last:.0f} ms", f"{first:.0f} ms the first page",
                last / first if first else None, note=f"25 steps, {size / 1024:.0f} KiB a page; score over the game {over:.0f} ms")
        store.close()


def main() -> None:
    global RUNS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS, help=f"each figure the median of this many (default {RUNS})")
    RUNS = parser.parse_args().runs
    for n in (1_000, 10_000):
        bench_stats(n)
    bench_replay()


if __name__ == "__main__":
    main()
