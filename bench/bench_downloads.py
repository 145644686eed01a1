"""What a long history costs the daemon: every download at 1,000 and 10,000 stored games.

A store is filled with finished Mirakel Mix games (150 drops each, the outcome as the
engine writes it), then ``potionpi run --sim`` serves it and each download is fetched
whole and thrown away (as a tablet saving the file does): the CSV, the BG Stats file,
the statistics and the settings page's export. Figures, no thresholds:

* the daemon's RSS after each download against its RSS before the first (the fair
  baseline: the same daemon, idle); its peak (VmHWM) over all of them;
* ``potionpi export`` to a file: seconds, and its CPU time;
* finding the game to resume at start-up (``running_game_id``) on a new connection, with
  the index and without it (``NOT INDEXED``: what every start paid before).

The filled databases are kept in ``~/.cache/potionpi-bench`` for the next run (filled
again when this file's ``fill`` or controller/store.py changes).

    python bench/bench_downloads.py [--games 1000 10000] [--actions 150]
"""
from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.report import compiled, row  # noqa: E402
from controller.daemon import DB_FILE  # noqa: E402
from controller.store import Store  # noqa: E402
from tests.e2e.daemon_proc import PIN, DaemonProcess  # noqa: E402

DOWNLOADS = ("/api/v1/history.csv", "/api/v1/history.bgsplay", "/api/v1/stats", "/settings/export")
PLAYERS = ["Ann", "Ben", "Cas", "Dee"]
OUTCOME = {"winners": [2], "winner_names": ["Cas"], "reason": "left_the_cave",
           "message": "Cas's apprentice left the cave first", "turns": 31,
           "ranking": [{"seat": 2, "place": 1, "score": 0}, {"seat": 0, "place": 2, "score": 3},
                       {"seat": 1, "place": 3, "score": 5}, {"seat": 3, "place": 4, "score": 8}]}
DROP = {"type": "drop", "colour": "red", "bowl": 2}
RSS_TARGET_MIB = 5.0
EXPORT_TARGET_S = 5.0
#: filled databases kept between runs (``stored``): ~120 MiB for both sizes
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "potionpi-bench"


def fill(path: Path, games: int, actions: int) -> None:
    """``games`` finished games of ``actions`` drops each."""
    store = Store(path)
    db = store._db
    db.execute("BEGIN")
    drop = json.dumps(DROP)
    for g in range(games):
        started = 1.7e9 + g * 3600
        cur = db.execute("INSERT INTO games (game, players, options, seed, started, status, finished, outcome) "
                         "VALUES ('mirakel-mix', ?, '{}', ?, ?, 'done', ?, ?)",
                         (json.dumps(PLAYERS[:2 + g % 3] + [f"Guest {g % 30}"]), g, started, started + 1800,
                          json.dumps(OUTCOME)))
        db.executemany("INSERT INTO actions VALUES (?, ?, ?, 'sensor', ?)",
                       [(cur.lastrowid, v, drop, started + v) for v in range(1, actions + 1)])
    db.execute("COMMIT")
    store.close()


def stored(path: Path, games: int, actions: int) -> str:
    """The filled database at ``path``: a copy of the one kept from an earlier run of the
    same fill and the same store code (filling 10,000 games takes 20 s of a busy machine,
    copying it half a second), else filled now and kept in ``CACHE`` for the next run."""
    key = hashlib.sha256(inspect.getsource(fill).encode() + (ROOT / "controller" / "store.py").read_bytes()
                         + f"{games}x{actions}".encode()).hexdigest()[:16]
    kept = CACHE / f"downloads-{games}x{actions}-{key}.sqlite3"
    if kept.is_file():
        shutil.copyfile(kept, path)
        return "copied from the last run"
    fill(path, games, actions)
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        for old in CACHE.glob(f"downloads-{games}x{actions}-*.sqlite3"):
            old.unlink()                       # an older store's: never asked for again
        shutil.copyfile(path, kept.with_suffix(".tmp"))
        os.replace(kept.with_suffix(".tmp"), kept)
    except OSError:
        pass                                   # no cache: the next run fills it again
    return "filled"


def rss_mib(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MiB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def fetch(url: str) -> int:
    req = urllib.request.Request(url, headers={"X-Table-Pin": PIN})
    size = 0
    with urllib.request.urlopen(req, timeout=300) as r:
        while chunk := r.read(1 << 16):
            size += len(chunk)
    return size


def resume_lookup_ms(path: Path, indexed: bool) -> float:
    db = sqlite3.connect(path)
    query = ("SELECT id FROM games {} WHERE status IN ('playing', 'finished') ORDER BY id DESC LIMIT 1"
             .format("" if indexed else "NOT INDEXED"))
    t0 = time.perf_counter()
    db.execute(query).fetchone()
    took = (time.perf_counter() - t0) * 1000
    db.close()
    return took


def measure(games: int, actions: int, tmp: Path) -> None:
    data = tmp / f"g{games}"
    data.mkdir()
    t0 = time.perf_counter()
    how = stored(data / DB_FILE, games, actions)
    print(f"{games} games x {actions} actions stored ({how}) in {time.perf_counter() - t0:.1f} s "
          f"({(data / DB_FILE).stat().st_size / 2**20:.0f} MiB)", flush=True)
    # alternating, medians of 5 (the first query on a fresh file pays for reading its pages)
    pairs = [(resume_lookup_ms(data / DB_FILE, True), resume_lookup_ms(data / DB_FILE, False)) for _ in range(5)]
    with_index, without = (statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs))
    row(f"find the game to resume, {games:,} games", f"{with_index:.2f} ms", f"{without:.2f} ms without the index",
        with_index / max(without, 1e-6))
    d = DaemonProcess(data).start(timeout=120)
    try:
        time.sleep(1.0)
        fetch(d.url + "/api/v1/stats")      # the first read of each kind warms caches: the figure is what stays
        before, _ = rss_mib(d.proc.pid)
        worst = 0.0
        for path in DOWNLOADS:
            t0 = time.perf_counter()
            size = fetch(d.url + path)
            took = time.perf_counter() - t0
            after, peak = rss_mib(d.proc.pid)
            grew = after - before
            worst = max(worst, grew)
            row(f"daemon RSS after {path}, {games:,} games", f"+{grew:.1f} MiB", f"{before:.1f} MiB before", None,
                f"<= +{RSS_TARGET_MIB:.0f} MiB", grew <= RSS_TARGET_MIB,
                note=f"{size / 2**20:.1f} MiB in {took:.1f} s; peak so far {peak:.1f} MiB")
    finally:
        d.terminate()
    out = tmp / "export.json"
    t0, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "controller.cli", "export", "--data-dir", str(data), "-o", str(out)],
                   cwd=ROOT, check=True, env=dict(os.environ, POTIONPI_PIN=PIN))
    took, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    row(f"potionpi export, {games:,} games x {actions}", f"{took:.1f} s", "", None, f"< {EXPORT_TARGET_S:.0f} s",
        took < EXPORT_TARGET_S, note=f"{out.stat().st_size / 2**20:.0f} MiB written; {cpu:.1f} s of CPU: "
                                      "on a busy machine the rest is waiting for a core")
    out.unlink()
    (data / DB_FILE).unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--actions", type=int, default=150)
    args = parser.parse_args()
    compiled(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        for games in args.games:
            measure(games, args.actions, Path(tmp))


if __name__ == "__main__":
    main()
