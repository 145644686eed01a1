"""The downloads stream from SQLite: the CSV, the BG Stats file, the statistics and the
export take the same memory whatever the number of games (a Pi Zero 2 W has 512 MB; a
family's history grows for years). Measured with tracemalloc while the response is read
and thrown away, as a tablet saving the file does."""
from __future__ import annotations

import json
import tracemalloc

import pytest

from controller.store import Store
from controller.table import Table
from web_ui import create_app

from .helpers import AUTH, PIN, SECRET

DOWNLOADS = ["/api/v1/history.csv", "/api/v1/history.bgsplay", "/api/v1/stats", "/settings/export"]
OUTCOME = {"winners": [1], "winner_names": ["Ben"], "reason": "left_the_cave",
           "ranking": [{"seat": 1, "place": 1, "score": 0}, {"seat": 0, "place": 2, "score": 4},
                       {"seat": 2, "place": 3, "score": 7}]}


def filled(path, games: int, actions: int = 30) -> Store:
    """``games`` finished Mirakel Mix games of ``actions`` drops each, in one transaction."""
    store = Store(path)
    db = store._db
    db.execute("BEGIN")
    for g in range(games):
        cur = db.execute("INSERT INTO games (game, players, options, seed, started, status, finished, outcome) "
                         "VALUES ('mirakel-mix', ?, '{}', ?, ?, 'done', ?, ?)",
                         (json.dumps(["Ann", "Ben", f"Guest {g % 40}"]), g, 1.7e9 + g * 3600,
                          1.7e9 + g * 3600 + 1500, json.dumps(OUTCOME)))
        db.executemany("INSERT INTO actions VALUES (?, ?, ?, 'sensor', ?)",
                       [(cur.lastrowid, v, json.dumps({"type": "drop", "colour": "red"}), 1.7e9 + g)
                        for v in range(1, actions + 1)])
    db.execute("COMMIT")
    return store


def peak_bytes(client, url: str) -> tuple[int, int]:
    """(peak Python memory while the download is made and read, bytes downloaded)."""
    tracemalloc.start()
    try:
        response = client.get(url, headers=AUTH, buffered=False)
        assert response.status_code == 200, response.get_data(as_text=True)[:200]
        size = sum(len(chunk) for chunk in response.response)
        response.close()
        return tracemalloc.get_traced_memory()[1], size
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("url", DOWNLOADS)
def test_a_download_takes_the_same_memory_for_ten_times_the_games(tmp_path, url):
    peaks, sizes = [], []
    for games in (100, 1000):
        store = filled(tmp_path / f"{games}.sqlite3", games)
        client = create_app(table=Table(store), pin=PIN, secret_key=SECRET).test_client()
        peak_bytes(client, url)                      # the first call imports and caches
        peak, size = peak_bytes(client, url)
        peaks.append(peak)
        sizes.append(size)
        store.close()
    assert sizes[1] > 5 * sizes[0] or url == "/api/v1/stats"      # the file did grow
    assert peaks[1] < 1.5 * peaks[0] + 128 * 1024, f"{url}: {peaks[0]} B for 100 games, {peaks[1]} B for 1000"


def test_the_streamed_files_are_whole(tmp_path):
    """Every game is in the CSV (a line per player) and in the BG Stats file (a play each)."""
    store = filled(tmp_path / "t.sqlite3", 1200)
    client = create_app(table=Table(store), pin=PIN, secret_key=SECRET).test_client()
    lines = client.get("/api/v1/history.csv").get_data(as_text=True).splitlines()
    assert len(lines) == 1 + 1200 * 3 and lines[1].startswith("1200,Mirakel Mix,")
    document = json.loads(client.get("/api/v1/history.bgsplay").get_data())
    assert len(document["plays"]) == 1200 and len(document["players"]) == 42
    assert [p["comments"] for p in document["plays"][:2]] == ["PotionPi game #1", "PotionPi game #2"]
    stats = client.get("/api/v1/stats").get_json()["players"]
    assert {r["player"]: r["plays"] for r in stats}["Ben"] == 1200
    store.close()
