"""Zaubercocktail lay-downs: checking an entry, scoring it, and finding the best one.

Plain functions over the game's rules data (the plug-in's ``data.toml``),
usable by the engine and, later, straight from the web layer (live points while a player
taps +/−, and the lay-down helper on a player's private screen).

A lay-down is written the way a player enters it::

    cards = {"white_berries": 2}            # natural cards per kind
    black = {"white_berries": 1}            # Black Somethings, each given to a kind

and scores, per kind laid, ``n × (n + k)`` where n counts the Black Somethings too.

What is not a lay-down at all (a count that is not a whole number, an ingredient the
game does not have) raises ``InvalidAction``; what the rules forbid raises
``IllegalAction`` naming the rule.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product
from typing import Any

from ..base import Counts, IllegalAction, InvalidAction, Refusal, Whole, load_data
from ..fields import read

Data = dict[str, Any]
Kind = dict[str, Any]
Set = dict[str, Any]
Option = tuple[int, int, int]      # (natural, black, points) of one kind's set
Part = tuple[str, Option]          # a kind and its set


@lru_cache(maxsize=1)
def default_data() -> Data:
    return load_data(__package__ or "controller.games.zaubercocktail")


def _data(data: Data | None) -> Data:
    return data if data is not None else default_data()


def kinds(data: Data | None = None) -> dict[str, Kind]:
    """Ingredient kinds by id, in the data file's order."""
    return {kind["id"]: kind for kind in _data(data)["kinds"]}


def set_points(n: int, k: int) -> int:
    """Points for a set of n cards of a kind with scale k."""
    return n * (n + k)


def single_card_value(kind: Kind) -> int:
    """What one card of a kind is worth in a tie-break draw: its scale at n = 1."""
    return set_points(1, kind["k"])


def points_table(data: Data | None = None) -> dict[str, list[int]]:
    """Per kind, the points for 0, 1, … most cards (below two cards a set scores nothing)."""
    data = _data(data)
    least = data["scoring"]["min_per_kind"]
    return {kid: [set_points(n, kind["k"]) if n >= least else 0 for n in range(kind["most"] + 1)]
            for kid, kind in kinds(data).items()}


def counts_field(data: Data | None = None, unit: str = "cards") -> Counts:
    """A {kind: count} table of a lay-down or a hand (zero counts dropped, left out: none)."""
    return Counts(tuple(kinds(data)), default={}, unit=unit)


def _counts(table: Any, data: Data, key: str, unit: str = "cards") -> dict[str, int]:
    counts: dict[str, int] = read({key: table}, {key: counts_field(data, unit)}, {}, InvalidAction)[key]
    return counts


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def read_counts(cards: object, black: object = None, data: Data | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """A lay-down's natural cards and Black Somethings per kind (zero counts dropped),
    or InvalidAction if it is not a lay-down at all. Checks no rule."""
    data = _data(data)
    return (_counts(cards, data, "cards"),
            _counts(black, data, "black", data["black_something"]["name"] + "s"))


def check_lay_down(cards: object, black: object = None, data: Data | None = None) -> list[Set]:
    """The sets of a lay-down, in data order, or IllegalAction naming the broken rule.

    An empty lay-down (nothing at all) is allowed: that player laid nothing and counts
    as lowest.
    """
    data = _data(data)
    known = kinds(data)
    rules = data["scoring"]
    joker = data["black_something"]
    natural, jokers = read_counts(cards, black, data)

    for kid in jokers:
        if kid not in natural:
            raise IllegalAction(
                f"A {joker['name']} may never be laid down alone: lay at least one real "
                f"{known[kid]['name']} card with it, or take the {joker['name']} back")
    laid = [kid for kid in known if kid in natural]
    if len(laid) > rules["max_kinds"]:
        raise IllegalAction(
            f"You may lay down at most {rules['max_kinds']} different kinds of ingredient, "
            f"not {len(laid)} ({_names([known[k]['name'] for k in laid])})")
    sets = []
    for kid in laid:
        kind = known[kid]
        n = natural[kid] + jokers.get(kid, 0)
        if n < rules["min_per_kind"]:
            raise IllegalAction(
                f"Every kind you lay down needs at least {rules['min_per_kind']} cards: "
                f"{kind['name']} has only {n}")
        if n > kind["most"]:
            raise IllegalAction(
                f"At most {kind['most']} {kind['name']} cards count in one set, not {n}")
        if natural[kid] > kind["cards"]:
            raise IllegalAction(f"There are only {kind['cards']} {kind['name']} cards in the game")
        sets.append({"kind": kid, "name": kind["name"], "natural": natural[kid],
                     "black": jokers.get(kid, 0), "n": n, "points": set_points(n, kind["k"])})
    if sum(s["black"] for s in sets) > joker["cards"]:
        raise IllegalAction(f"There are only {joker['cards']} {joker['name']}s in the game")
    return sets


def score(sets: list[Set]) -> dict[str, int]:
    """Total points and cards played for checked sets."""
    return {"points": sum(s["points"] for s in sets), "cards_played": sum(s["n"] for s in sets)}


def preview(cards: object, black: object = None, data: Data | None = None) -> dict[str, Any]:
    """What a lay-down screen shows while a player taps +/−.

    Never raises for a rule break (the screen shows it instead): ``refusal`` is the
    rule in words, ``points`` the total if the entry is legal, and ``one_more`` per kind
    what one more card of that kind (natural or Black Something) would add — ``adds`` is
    None when it would break a rule (``blocked`` says which).
    """
    data = _data(data)
    known = kinds(data)
    rules = data["scoring"]
    try:
        sets = check_lay_down(cards, black, data)
        refusal = None
    except Refusal as exc:
        sets, refusal = [], exc.rule
    try:
        natural, jokers = read_counts(cards, black, data)
    except InvalidAction:
        natural, jokers = {}, {}
    laid = {kid for kid in known if natural.get(kid) or jokers.get(kid)}
    one_more = {}
    for kid, kind in known.items():
        n = natural.get(kid, 0) + jokers.get(kid, 0)
        now = set_points(n, kind["k"]) if n >= rules["min_per_kind"] else 0
        nxt = set_points(n + 1, kind["k"]) if n + 1 >= rules["min_per_kind"] else 0
        blocked = None
        if n + 1 > kind["most"]:
            blocked = f"at most {kind['most']} {kind['name']} cards count in one set"
        elif kid not in laid and len(laid) >= rules["max_kinds"]:
            blocked = f"at most {rules['max_kinds']} different kinds"
        one_more[kid] = {"n": n, "points": now,
                         "points_next": None if blocked else nxt,
                         "adds": None if blocked else nxt - now, "blocked": blocked}
    total = score(sets)
    return {"ok": refusal is None, "refusal": refusal, "sets": sets,
            "points": total["points"] if refusal is None else None,
            "cards_played": total["cards_played"] if refusal is None else None,
            "one_more": one_more}


# --- the lay-down helper ------------------------------------------------------

def check_hand(hand: Any, black: Any = 0, data: Data | None = None) -> tuple[dict[str, int], int]:
    """A whole hand as entered on the helper screen, checked against the box contents."""
    data = _data(data)
    known = kinds(data)
    joker = data["black_something"]
    natural = _counts(hand, data, "hand")
    for kid, n in natural.items():
        if n > known[kid]["cards"]:
            raise IllegalAction(f"There are only {known[kid]['cards']} {known[kid]['name']} cards in the game")
    jokers: int = read({"black": black}, {"black": Whole(0, hint=f"how many {joker['name']}s are in the hand",
                                                           default=0)}, {}, InvalidAction)["black"]
    if jokers > joker["cards"]:
        raise IllegalAction(f"There are only {joker['cards']} {joker['name']}s in the game")
    return natural, jokers


def _options(natural: dict[str, int], jokers: int, data: Data) -> dict[str, list[Option]]:
    """Per kind, the undominated sets: (natural, black, points), every count of jokers.

    More cards always score more, so a set uses as many natural cards as fit; a joker
    only ever replaces a missing card, never a natural one the hand holds.
    """
    least = data["scoring"]["min_per_kind"]
    out: dict[str, list[Option]] = {}
    for kid, kind in kinds(data).items():
        have = natural.get(kid, 0)
        if not have:
            continue
        opts: list[Option] = []
        for b in range(0, min(jokers, kind["most"] - 1) + 1):
            nat = min(have, kind["most"] - b)
            if nat < min(have, kind["most"]):
                break  # jokers would push out natural cards: never better
            if nat + b >= least:
                opts.append((nat, b, set_points(nat + b, kind["k"])))
        if opts:
            out[kid] = opts
    return out


def _lay_down(parts: list[Part], natural: dict[str, int], jokers: int, data: Data) -> dict[str, Any]:
    known = kinds(data)
    sets = [{"kind": kid, "name": known[kid]["name"], "natural": nat, "black": b,
             "n": nat + b, "points": pts} for kid, (nat, b, pts) in parts]
    used_black = sum(s["black"] for s in sets)
    kept = dict(natural)
    for s in sets:
        kept[s["kind"]] -= s["natural"]
    return {"cards": {s["kind"]: s["natural"] for s in sets},
            "black": {s["kind"]: s["black"] for s in sets if s["black"]},
            "sets": sets, **score(sets),
            "kept": {kid: n for kid, n in kept.items() if n}, "kept_black": jokers - used_black}


def best_lay_downs(hand: Any, black: Any = 0, data: Data | None = None) -> dict[str, Any]:
    """The highest-scoring legal lay-down of a whole hand, and the runner-up.

    ``hand`` is {kind: natural cards held}, ``black`` the Black Somethings held. Ties on
    points go to more cards played (the rulebook's first tie-break), then to fewer Black
    Somethings used (they are worth keeping). The runner-up is the best lay-down using a
    different choice of kinds, so it is a real alternative. Either is None when the hand
    has nothing legal to lay. Each lay-down carries ``cards`` and ``black`` in the form of
    a ``lay_down`` action, its ``sets``, ``points``, ``cards_played`` and what is ``kept``.
    """
    data = _data(data)
    natural, jokers = check_hand(hand, black, data)
    options = _options(natural, jokers, data)
    order = {kid: i for i, kid in enumerate(kinds(data))}
    best: dict[frozenset[str], tuple[tuple[int, int, int], list[Part]]] = {}  # best per choice of kinds

    def offer(parts: list[Part]) -> None:
        pts = sum(p[1][2] for p in parts)
        n = sum(p[1][0] + p[1][1] for p in parts)
        b = sum(p[1][1] for p in parts)
        key = (pts, n, -b)
        choice = frozenset(p[0] for p in parts)
        if choice not in best or key > best[choice][0]:
            best[choice] = (key, parts)

    for kid, single in options.items():
        for opt in single:
            offer([(kid, opt)])
    for size in range(2, data["scoring"]["max_kinds"] + 1):
        for choice in combinations(options, size):
            for opts in product(*(options[kid] for kid in choice)):
                if sum(o[1] for o in opts) <= jokers:
                    offer(list(zip(choice, opts)))

    def rank(item: tuple[frozenset[str], tuple[tuple[int, int, int], list[Part]]]) -> tuple[Any, ...]:
        choice, (key, _) = item
        return (key, [-order[k] for k in sorted(choice, key=order.__getitem__)])

    ranked = sorted(best.items(), key=rank, reverse=True)
    result = [_lay_down(sorted(parts, key=lambda p: order[p[0]]), natural, jokers, data)
              for _, (_, parts) in ranked[:2]]
    return {"best": result[0] if result else None,
            "runner_up": result[1] if len(result) > 1 else None}
