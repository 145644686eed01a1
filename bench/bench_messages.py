"""Does the live message grow with the game? Each game played 5,000 actions on.

Random play from everything the table and every seat may do (each game's own test player
where it has one), now and then an undo, and when the game is over an undo to keep going
(a game that cannot be undone any more starts again: counted). The public stream message
(``build_session`` + ``session_message``, what every tablet gets per version) is measured
around action 10 and around action 5,000: the median of the 21 messages around each, and
their ratio. Target: within 1.2x (issue 26); no thresholds, figures.

    python bench/bench_messages.py [--actions 5000] [--game GAME]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "games"))
from bench.report import row  # noqa: E402
from controller.games import Refusal, load  # noqa: E402
from controller.table import build_session  # noqa: E402
from web_ui.stream import session_message  # noqa: E402

PLAYERS = {"mirakel-mix": 4, "zaubercocktail": 5, "zauberwald": 4, "elixir": 3, "mix-it": 4}
OPTIONS = {"zaubercocktail": {"deck": "physical"}}     # the next card is chosen: never the bolt too soon
NAMES = ["Ann", "Ben", "Cas", "Dee", "Eve", "Fay", "Gus"]
TARGET = 1.2
UNDO_SHARE = 0.05


def candidates(game, state) -> list[dict]:
    seats = range(len(state["players"]))
    actions = game.legal_actions(state) + [a for s in seats for a in game.seat_actions(state, s)]
    if game.id == "zaubercocktail":
        cards = [a for a in actions if a.get("card")]
        if len(cards) > 1:                 # the Magic Bolt last: a bolt cannot be undone
            actions = [a for a in actions if a.get("card") != "magic_bolt"]
    return actions


def choose(game, state, rng: random.Random) -> dict | None:
    actions = candidates(game, state)
    undo = [a for a in actions if a["type"] == "undo"]
    if game.outcome(state) is not None:
        return undo[0] if undo else None
    if undo and rng.random() < UNDO_SHARE:
        return undo[0]
    if game.id == "mix-it":
        import mix_it_support
        return mix_it_support.choose(state, rng)
    if game.id == "elixir":
        import elixir_support
        return elixir_support.choose(rng, state, [a for a in elixir_support.all_actions(state) if a["type"] != "undo"])
    rest = [a for a in actions if a["type"] != "undo"]
    return rng.choice(rest or actions) if (rest or actions) else None


def play(game_id: str, actions: int, seed: int = 1) -> tuple[dict[int, int], int]:
    """Message bytes at each version of interest, and how many times the game started again."""
    game = load(game_id)
    names = NAMES[:PLAYERS[game_id]]
    state = game.setup(names, seed, dict(OPTIONS.get(game_id, {})))
    rng = random.Random(seed)
    wanted = set(range(0, 21)) | set(range(actions - 20, actions + 1))
    restarts = version = refused = 0
    sizes = {0: len(session_message(build_session(game, state, game_id=1, game=game_id, version=0,
                                                  players=names)).encode())}
    while version < actions:
        action = choose(game, state, rng)
        if action is None:
            restarts += 1
            state = game.setup(names, seed + restarts, dict(OPTIONS.get(game_id, {})))
            continue
        try:
            state, _ = game.apply(state, action)
        except Refusal:                    # a listed action that needs more (a phone fills it in)
            refused += 1
            if refused > 10 * actions:
                raise SystemExit(f"{game_id}: random play is stuck at version {version}")
            continue
        version += 1
        if version in wanted:
            session = build_session(game, state, game_id=1, game=game_id, version=version, players=names)
            sizes[version] = len(session_message(session).encode())
    return sizes, restarts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=5000)
    parser.add_argument("--game", choices=sorted(PLAYERS), action="append")
    args = parser.parse_args()
    for game_id in args.game or sorted(PLAYERS):
        sizes, restarts = play(game_id, args.actions)
        early = statistics.median(sizes[v] for v in range(0, 21))
        late = statistics.median(sizes[v] for v in range(args.actions - 20, args.actions + 1))
        peak = max(sizes[v] for v in range(args.actions - 20, args.actions + 1))
        ratio = late / early
        row(f"message at action {args.actions:,}, {game_id}", f"{late:,.0f} B", f"{early:,.0f} B at action 10",
            ratio, f"<= {TARGET}x", ratio <= TARGET,
            note=f"medians of 21; largest late one {peak:,} B" + (f"; started again {restarts}x" if restarts else ""))


if __name__ == "__main__":
    main()
