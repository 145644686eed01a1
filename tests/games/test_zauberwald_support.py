"""Shared helpers for the Zauberwald tests (no tests here): lay out known cards, play rounds."""
from __future__ import annotations

from controller.games.zauberwald import Zauberwald

GAME = Zauberwald()
TOTAL = 72


def recipe(number: int) -> dict[str, int]:
    return dict(next(r["ingredients"] for r in GAME.recipes if r["number"] == number))


def table(cards: list[list[int]], first: int = 0, names=None, seed: int = 1):
    """A game with the physical cards given by recipe number, entered by hand."""
    names = names or ["Julie", "Linus", "Mia", "Noah"][:len(cards)]
    state = GAME.setup(names, seed=seed, options={"cards": "physical", "first": first})
    for seat, numbers in enumerate(cards):
        for slot, number in enumerate(numbers):
            state, _ = GAME.apply(state, {"type": "enter_card", "seat": seat, "slot": slot,
                                          "ingredients": recipe(number)})
    return state


def count_all(state) -> int:
    """forest + the basket waiting for a penalty choice + cards."""
    n = sum(state["forest"].values())
    for cards in state["cards"]:
        for card in cards:
            if card is not None:
                n += sum(card["on_card"].values())
    pending = state["round"] and state["round"]["pending"]
    if pending:
        for part in pending["placed"]:
            n += sum(part.values())
        n += sum(pending["free"].values()) + sum(pending["wrong"].values())
    return n


def arrange(state, seat: int, potions: int = 0, on_card: dict[str, int] | None = None):
    """Test set-up: give ``seat`` finished potions and ingredients on its current card,
    taking them from the forest so the 72 stay 72."""
    state = GAME.fork(state)
    cards = state["cards"][seat]
    for i in range(potions):
        cards[i]["finished"] = True
    if on_card:
        card = cards[potions]
        for colour, n in on_card.items():
            assert state["forest"][colour] >= n
            state["forest"][colour] -= n
            card["on_card"][colour] = card["on_card"].get(colour, 0) + n
    assert count_all(state) == TOTAL
    return state


def act(state, action):
    state, effects = GAME.apply(state, action)
    assert count_all(state) == TOTAL
    return state, effects


def start_search(state, tile: int, direction: str = "clockwise"):
    m = state["master"]
    state, _ = act(state, {"type": "choose_tile", "seat": m, "tile": tile})
    state, effects = act(state, {"type": "turn", "seat": m, "direction": direction})
    state, _ = act(state, {"type": "floor_turned"})
    return state, effects


def play_round(state, tile: int, baskets: dict[int, dict[str, int]] | None = None,
               direction: str = "clockwise", count: int | None = None):
    """One whole round; seats missing from ``baskets`` bring an empty basket."""
    baskets = baskets or {}
    m = state["master"]
    state, _ = start_search(state, tile, direction)
    state, _ = act(state, {"type": "end_search", "seat": m, "count": tile if count is None else count})
    while state["phase"] == "check":
        seat = state["round"]["to_check"][0]
        state, _ = act(state, {"type": "basket", "seat": seat, "ingredients": baskets.get(seat, {})})
    return state


def quiet_rounds(state):
    """Use up every magic tile with empty baskets (nothing on the cards changes)."""
    while state["phase"] != "over":
        m = state["master"]
        state = play_round(state, state["tiles"][m][0])
    return state
