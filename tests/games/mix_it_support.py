"""Shared by the Mix It tests: the engine, a table arranged card by card, random play."""
from __future__ import annotations

import random
from typing import Any

from controller.games.mix_it.engine import MixIt

GAME = MixIt()
SPECIES = [s["id"] for s in GAME.data["species"]]
PARTS = ("eyes", "mouth", "feet")
TOTAL = 55


def card(species: str, part: str, star: bool = False) -> str:
    return f"{species}-{part}-{'star' if star else 'plain'}"


def goal_for(eyes: str, mouth: str, feet: str) -> str:
    return next(g for g, d in GAME.goals.items() if (d["eyes"], d["mouth"], d["feet"]) == (eyes, mouth, feet))


def arrange(players=("Ann", "Ben", "Cem"), *, monsters=None, hands=None, goals=None, turn=0,
            deck_top=(), deck_size=None, variant="classic", seed=1) -> dict[str, Any]:
    """A table laid out card by card: ``monsters`` = [{part: [cards bottom→top]}, ...],
    ``hands`` and ``goals`` per seat; every other part card is in the deck (``deck_top``
    last, so drawn first; ``deck_size`` keeps only that many), every other goal in the pile."""
    state = GAME.setup(list(players), seed, {"variant": variant})
    n = len(players)
    if monsters is not None:
        state["monsters"] = [{p: list(m.get(p, [])) for p in PARTS} for m in monsters]
    if hands is not None:
        state["hands"] = [list(h) for h in hands]
    if monsters is None:                    # the dealt starters, unless a hand holds one
        held = {c for h in state["hands"] for c in h}
        state["monsters"] = [{p: [c for c in m[p] if c not in held] for p in PARTS} for m in state["monsters"]]
    if goals is not None:
        state["goals"] = list(goals)
    used = {c for m in state["monsters"] for p in PARTS for c in m[p]} | {c for h in state["hands"] for c in h}
    rest = [c for c in GAME.cards if c not in used and c not in deck_top]
    state["deck"] = rest + list(deck_top)
    if deck_size is not None:
        extra = state["deck"][:len(state["deck"]) - deck_size]
        state["deck"] = state["deck"][len(state["deck"]) - deck_size:]
        for c in extra:                     # buried under Monster 1's own slots: 55 kept
            state["monsters"][0][GAME.cards[c]["part"]].insert(0, c)
    state["goal_pile"] = [g for g in GAME.goals if g not in state["goals"]]
    state["turn"] = turn
    state["showing"] = [None] * n
    GAME.settle(state, "arrange")
    return state


def act(state, **action):
    return GAME.apply(state, action)[0]


def count(state) -> int:
    return sum(GAME.accounted(state).values())


def every_action(state) -> list[dict[str, Any]]:
    """Every action someone may take now: the table's and every seat's (de-duplicated)."""
    out, seen = [], set()
    for a in GAME.legal_actions(state) + [a for s in range(len(state["players"])) for a in GAME.seat_actions(state, s)]:
        key = repr(sorted(a.items()))
        if key not in seen:
            seen.add(key)
            out.append(a)
    return out


def choose(state, rng: random.Random) -> dict[str, Any]:
    """A quick player: shout and confirm at once, build your own goal when one action
    does it, else anything legal (so random games end in a few dozen turns)."""
    actions = every_action(state)
    for kind in ("claim", "confirm"):
        found = [a for a in actions if a["type"] == kind]
        if found:
            return rng.choice(found)
    turn = state["turn"]
    mine = [a for a in actions if a["type"] in ("place", "move") and a.get("seat") == turn]
    good = [a for a in mine if builds(state, a, turn)]
    if good and rng.random() < 0.9:
        return rng.choice(good)
    plain = [a for a in actions if a["type"] != "undo"] or actions
    return rng.choice(plain)


def builds(state, action, seat) -> bool:
    """True if this place or move makes ``seat``'s goal show (the monsters only, so
    much quicker than ``apply``)."""
    monsters = [{p: list(m[p]) for p in PARTS} for m in state["monsters"]]
    m, kind = action["monster"], action["type"]
    if kind == "place":
        card = action.get("card") or state["deck"][-1]
        monsters[m][GAME.cards[card]["part"]].append(card)
    else:
        monsters[1 - m][action["part"]].append(monsters[m][action["part"]].pop())
    return GAME.shows({"monsters": monsters}, state["goals"][seat]) is not None
