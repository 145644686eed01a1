"""Elixir engine: random whole games to a winner, with the secret-leak check (prints figures).

Per action: apply(), the public legal_actions(), view() and one private_view(); per game:
actions and rounds to a winner. Every 25 actions the public view is compared with the
view of the same position with every secret changed: any difference is a leak.
Run: .venv/bin/python bench/bench_elixir.py [games]   (make bench runs every bench/bench_*.py)
"""
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "games"))

from elixir_support import GAME, NAMES, all_actions, choose  # noqa: E402
from test_elixir_secrets import perturb  # noqa: E402


def main(games: int = 20) -> None:
    timing = {"apply": 0.0, "legal_actions": 0.0, "view": 0.0, "private_view": 0.0}
    actions, lengths, rounds, leaks, checks = 0, [], [], 0, 0
    start = time.perf_counter()
    for k in range(games):
        rng = random.Random(k * 7919)
        state = GAME.setup(NAMES[:2 + k % 3], seed=k, options={"dice": "physical" if k % 2 else "digital"})
        n = 0
        while GAME.outcome(state) is None:
            t = time.perf_counter()
            GAME.legal_actions(state)
            timing["legal_actions"] += time.perf_counter() - t
            action = choose(rng, state, all_actions(state))
            t = time.perf_counter()
            state, _ = GAME.apply(state, action)
            timing["apply"] += time.perf_counter() - t
            t = time.perf_counter()
            public = json.dumps(GAME.view(state), sort_keys=True)
            timing["view"] += time.perf_counter() - t
            t = time.perf_counter()
            GAME.private_view(state, n % len(state["players"]))
            timing["private_view"] += time.perf_counter() - t
            if n % 25 == 0:
                checks += 1
                leaks += public != json.dumps(GAME.view(perturb(state, rng)), sort_keys=True)
            n += 1
        actions += n
        lengths.append(n)
        rounds.append(state["round"])
    total = time.perf_counter() - start
    print(f"{games} random games to a winner, {actions} actions in {total:.1f} s; "
          f"{leaks} leaks in {checks} secret-swap checks")
    print(f"  actions per game: median {statistics.median(lengths):.0f}, max {max(lengths)}; "
          f"rounds: median {statistics.median(rounds):.0f}, max {max(rounds)}")
    for name, seconds in timing.items():
        print(f"  {name}(): {seconds / actions * 1e6:.0f} µs per call")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
