"""Mirakel Mix: how long the coach takes to answer, and how long a log replay takes.

Run from the repo root: `.venv/bin/python bench/bench_coach.py [--tables 150]` (or `make bench`).
Figures are for this machine; the target is a coach answer under 200 ms on 2 cores.
Every coach call starts from a cold cache (the worst case a tablet ever sees).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from controller.games.mirakel_mix import coach as mirakel_coach  # noqa: E402
from controller.games.mirakel_mix.engine import MirakelMix  # noqa: E402

GAME = MirakelMix()


def random_table(rng: random.Random, phase: str) -> dict[str, Any]:
    """A 4-player table in ``phase`` with a random lab (each flask 0-3 disks)."""
    s = GAME.setup(["A", "B", "C", "D"], rng.randrange(10**6), {"fill": "random", "coach": True})
    for i in range(4):
        s, _ = GAME.apply(s, {"type": "place_apprentice", "space": f"S{i + 1}"})
    for f in GAME.flasks:
        for i in rng.sample(range(4), rng.randrange(0, 4)):
            seat = rng.randrange(1, 4)
            if s["disks"][seat]:
                s["lab"][f][i] = seat
                s["disks"][seat] -= 1
    if phase == "place_disk":
        s, _ = GAME.apply(s, {"type": "empty_bowl", "bowl": rng.randrange(3)})
        colours = [c for c, n in s["cauldron"].items() for _ in range(n)]
        s, _ = GAME.apply(s, {"type": "drop", "colour": rng.choice(colours)})
    return s


def time_coach(phase: str, n: int = 150) -> list[float]:
    rng = random.Random(phase)
    times: list[float] = []
    for _ in range(n):
        s = random_table(rng, phase)
        if s["phase"] != phase:
            continue
        # a cold cache per table, as a new game's first advice finds it (clear_cache went
        # as dead code: the engine never needs it; the caches are the lru_caches themselves)
        mirakel_coach._placements.cache_clear()
        mirakel_coach._chance.cache_clear()
        t = time.perf_counter()
        mirakel_coach.advise(GAME, s)
        times.append((time.perf_counter() - t) * 1000)
    return times


def replay_time(actions: int = 200) -> tuple[int, float]:
    rng = random.Random(1)
    s = GAME.setup(["A", "B", "C", "D"], 1, {})
    log: list[dict[str, Any]] = []
    while len(log) < actions and GAME.outcome(s) is None:
        legal = [a for a in GAME.legal_actions(s) if a["type"] != "undo"]
        a = rng.choice(legal)
        log.append(a)
        s, _ = GAME.apply(s, a)
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        r = GAME.setup(["A", "B", "C", "D"], 1, {})
        for a in log:
            r, _ = GAME.apply(r, a)
        best = min(best, time.perf_counter() - t)
    return len(log), best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=150, help="random tables per phase (default 150)")
    args = parser.parse_args()
    print(f"cpus: {os.cpu_count()}  python {sys.version.split()[0]}")
    for phase in ("choose_bowl", "place_disk"):
        t = time_coach(phase, args.tables)
        print(f"coach {phase:11s}: {len(t)} tables, median {statistics.median(t):6.1f} ms, "
              f"p95 {sorted(t)[int(len(t) * 0.95) - 1]:6.1f} ms, max {max(t):6.1f} ms (cold cache)")
    n, ms = replay_time()
    print(f"engine replay: {n} actions in {ms:.1f} ms ({ms / n * 1000:.0f} us per action)")


if __name__ == "__main__":
    main()
