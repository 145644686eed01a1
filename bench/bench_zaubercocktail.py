"""What one Zaubercocktail action costs once a round has a long undo history.

A round keeps every tap since the recipe card was revealed, so it can be undone. The
engine core keeps the earlier states themselves as undo snapshots (they are never
changed once returned, so sharing them is safe): an action costs the same after 300
"Stop!" taps as after one. The engine before the core deep-copied the whole state,
growing undo stack included, on every action — quadratic over a round. For comparison
this prints the cost of that deep copy rebuilt on the same states (the old engine itself,
run from git, took 125–150 ms per action after 300 taps on the machine this was written on).

    python bench/bench_zaubercocktail.py
"""
from __future__ import annotations

import copy
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.contracts import State  # noqa: E402
from controller.games.zaubercocktail.engine import Zaubercocktail  # noqa: E402

TAPS = 300
PLAYERS = ["Arne", "Babs", "Chris", "Doro", "Erni"]


def after_taps(game: Zaubercocktail, taps: int) -> list[State]:
    """A round just revealed, then ``taps`` false-trader taps round the table: every state."""
    state = game.setup(PLAYERS, seed=1, options={"deck": "physical"})
    state, _ = game.apply(state, {"type": "reveal", "card": "recipe_4"})
    states = [state]
    for i in range(taps):
        state, _ = game.apply(state, {"type": "false_trader", "seat": i % len(PLAYERS)})
        states.append(state)
    return states


def ms_per_action(game: Zaubercocktail, state: State, repeat: int = 200) -> list[float]:
    times = []
    for i in range(repeat):
        action = {"type": "false_trader", "seat": i % len(PLAYERS)}
        start = time.perf_counter()
        game.apply(state, action)
        times.append((time.perf_counter() - start) * 1000)
    return times


def old_copy_ms(states: list[State], repeat: int = 20) -> float:
    """What the old engine copied per action: the whole state, its undo stack of one
    private snapshot per earlier tap included, and one more snapshot."""
    def snapshot(state: State) -> State:
        return {k: copy.deepcopy(v) for k, v in state.items() if k not in ("rng", "history", "undo")}

    old_state = dict(states[-1], undo=[snapshot(s) for s in states[:-1]])
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        copy.deepcopy(old_state)
        snapshot(states[-1])
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    game = Zaubercocktail()
    fresh = ms_per_action(game, after_taps(game, 1)[-1])
    states = after_taps(game, TAPS)
    long = states[-1]
    late = ms_per_action(game, long)
    print(f"Zaubercocktail action after 1 tap:     median {statistics.median(fresh):.3f} ms, "
          f"max {max(fresh):.3f} ms")
    print(f"Zaubercocktail action after {TAPS} taps:  median {statistics.median(late):.3f} ms, "
          f"max {max(late):.3f} ms  (undo keeps the last {len(long['undo'])} steps)")
    # what still grows is the round's own list of false traders (300 entries), not undo
    print(f"for comparison, the old engine's per-action deepcopy after {TAPS} taps: "
          f"{old_copy_ms(states):.3f} ms")


if __name__ == "__main__":
    main()
