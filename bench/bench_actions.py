"""Per-action cost and message size early and late in a long game (issue 16: O(1)).

For each long scenario prints the median ``apply`` time and the size of the public
session message around action 10 and around action 1,000, and their ratio (the goal is
within 2x). Engine and view only: no store, no fsync (bench_store.py has those).

    python bench/bench_actions.py
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from controller.games import load  # noqa: E402

N = 1000


def mirakel_faults(i, state, game):
    return {"type": "sensor_fault", "message": "the beam is blocked" if i % 2 else f"encoder glitch {i}"}


def cocktail_taps(i, state, game):
    if i == 0:
        return {"type": "reveal"}
    return {"type": "false_trader", "seat": i % 7} if i % 5 else {"type": "undo"}


def mirakel_play(rng):
    def pick(i, state, game):
        legal = game.legal_actions(state)
        return rng.choice([a for a in legal if a["type"] != "undo"] or legal)
    return pick


SCENARIOS = [
    ("Mirakel Mix: 1,000 sensor faults", "mirakel-mix", ["A", "B", "C"], mirakel_faults),
    ("Zaubercocktail: a round of 1,000 taps", "zaubercocktail", ["A", "B", "C", "D", "E", "F", "G"], cocktail_taps),
    ("Mirakel Mix: random legal play", "mirakel-mix", ["A", "B", "C", "D"], mirakel_play(random.Random(3))),
]


def run(game_id, players, next_action):
    game = load(game_id)
    state = game.setup(players, 1, {})
    times, sizes = {}, {}
    for i in range(N):
        if game.outcome(state) is not None:
            break
        action = next_action(i, state, game)
        t0 = time.perf_counter()
        state, _ = game.apply(state, action)
        times[i] = time.perf_counter() - t0
        if i < 20 or i >= N - 20:
            sizes[i] = len(json.dumps(game.view(state), separators=(",", ":")))
    return times, sizes


def main() -> None:
    print(f"{'scenario':<40} {'apply ms @10':>12} {'@last':>8} {'ratio':>6}   {'message B @10':>13} {'@last':>8} {'ratio':>6}")
    for label, game_id, players, next_action in SCENARIOS:
        times, sizes = run(game_id, players, next_action)
        last = max(times)
        early = statistics.median(times[i] for i in range(5, 16)) * 1000
        late = statistics.median(times[i] for i in range(max(0, last - 10), last + 1)) * 1000
        s_early = statistics.median(sizes[i] for i in range(5, 16))
        s_late = statistics.median(v for k, v in sizes.items() if k > last - 11)
        print(f"{label:<40} {early:12.3f} {late:8.3f} {late / early:5.2f}x   {s_early:13.0f} {s_late:8.0f} "
              f"{s_late / s_early:5.2f}x   (to action {last + 1})")


if __name__ == "__main__":
    main()
