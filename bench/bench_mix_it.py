"""Mix It with five phones: what one action costs the table (apply, the public session and
every seat's session, as JSON for the streams) over random whole games (prints figures)."""
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.games.mix_it.engine import MixIt  # noqa: E402

PLAYERS = ["Ann", "Ben", "Cem", "Dana", "Eli"]


def pick(game, state, rng):
    actions = game.legal_actions(state) + [a for s in range(len(state["players"]))
                                           for a in game.seat_actions(state, s)]
    for kind in ("claim", "confirm"):
        found = [a for a in actions if a["type"] == kind]
        if found:
            return rng.choice(found)
    return rng.choice([a for a in actions if a["type"] != "undo"])


def main(games: int = 20) -> None:
    game = MixIt()
    actions, apply_t, public_t, seats_t, public_bytes, seat_bytes = 0, 0.0, 0.0, 0.0, 0, 0
    start = time.perf_counter()
    for i in range(games):
        rng = random.Random(i)
        state = game.setup(PLAYERS, seed=i)
        for _ in range(400):                      # random play rarely builds goals: cap each game
            if game.outcome(state) is not None:
                break
            action = pick(game, state, rng)
            t0 = time.perf_counter()
            state, _ = game.apply(state, action)
            t1 = time.perf_counter()
            public = {"state": game.view(state), "legal_actions": game.legal_actions(state)}
            text = json.dumps(public, separators=(",", ":"))
            t2 = time.perf_counter()
            for seat in range(len(PLAYERS)):
                private = {**game.private_view(state, seat), "legal_actions": game.seat_actions(state, seat)}
                seat_text = json.dumps({**public, "seat": seat, "private": private}, separators=(",", ":"))
            t3 = time.perf_counter()
            apply_t, public_t, seats_t = apply_t + t1 - t0, public_t + t2 - t1, seats_t + t3 - t2
            public_bytes, seat_bytes = public_bytes + len(text), seat_bytes + len(seat_text)
            actions += 1
    total = time.perf_counter() - start
    print(f"{games} games x 5 players, {actions} actions in {total:.2f} s")
    print(f"  apply():                        {apply_t / actions * 1e6:.0f} µs per action")
    print(f"  public session + JSON:          {public_t / actions * 1e6:.0f} µs per action "
          f"({public_bytes / actions / 1024:.1f} KiB)")
    print(f"  five seat sessions + JSON:      {seats_t / actions * 1e6:.0f} µs per action "
          f"({seat_bytes / actions / 1024:.1f} KiB each)")


if __name__ == "__main__":
    main()
