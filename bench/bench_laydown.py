"""How long the Zaubercocktail lay-down helper takes (target: under 50 ms per hand).

Prints the median and worst time over typical hands (dealt at random from the real deck,
10–20 cards) and over worst-case hands (every kind at its set maximum plus all Black
Somethings, the largest search the helper can face).
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.games.zaubercocktail.laydown import best_lay_downs, default_data, kinds  # noqa: E402

TARGET_MS = 50.0


def deck(data):
    cards = [kid for kid, kind in kinds(data).items() for _ in range(kind["cards"])]
    return cards + [data["black_something"]["id"]] * data["black_something"]["cards"]


def hand_of(cards, data):
    joker = data["black_something"]["id"]
    hand = {}
    for card in cards:
        if card != joker:
            hand[card] = hand.get(card, 0) + 1
    return hand, cards.count(joker)


def time_ms(hand, black, data, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        best_lay_downs(hand, black, data)
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def main():
    data = default_data()
    best_lay_downs({}, 0, data)  # load and warm up
    rng = random.Random(2001)
    full = deck(data)
    typical = [time_ms(*hand_of(rng.sample(full, rng.randint(10, 20)), data), data) for _ in range(500)]
    worst_hand = {kid: min(kind["cards"], kind["most"]) for kid, kind in kinds(data).items()}
    worst = [time_ms(worst_hand, data["black_something"]["cards"], data) for _ in range(50)]
    print(f"lay-down helper, typical hands (10-20 cards, n={len(typical)}): "
          f"median {statistics.median(typical):.3f} ms, max {max(typical):.3f} ms")
    print(f"lay-down helper, worst hand (every kind at its maximum + all Black Somethings, n={len(worst)}): "
          f"median {statistics.median(worst):.3f} ms, max {max(worst):.3f} ms")
    verdict = "OK" if max(max(typical), max(worst)) < TARGET_MS else "TOO SLOW"
    print(f"target under {TARGET_MS:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()
