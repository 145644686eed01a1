"""Im großen Zauberwald engine: how fast random whole games play, undos included (prints figures)."""
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.games.zauberwald import Zauberwald  # noqa: E402


def main(games: int = 40) -> None:
    game = Zauberwald()
    actions = undos = 0
    apply_time = 0.0
    start = time.perf_counter()
    for i in range(games):
        rng = random.Random(i)
        state = game.setup(["Ann", "Ben", "Cem", "Dan"][:2 + i % 3], seed=i)
        while game.outcome(state) is None:
            action = rng.choice(game.legal_actions(state))
            t = time.perf_counter()
            state, _ = game.apply(state, action)
            apply_time += time.perf_counter() - t
            actions += 1
            undos += action["type"] == "undo"
    total = time.perf_counter() - start
    print(f"{games} random games, {actions} actions ({undos} of them undo) in {total:.2f} s")
    print(f"  apply(): {apply_time / actions * 1e6:.0f} µs per action")
    print(f"  whole loop incl. legal_actions(): {actions / total:.0f} actions/s")


if __name__ == "__main__":
    main()
