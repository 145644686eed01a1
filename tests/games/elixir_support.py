"""Shared helpers of the Elixir tests: a game started with a die we control, arranged
positions, every action any seat may take, a quick random player and the counts that
must never change (gold, ingredients, brew cards)."""
from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from controller import records
from controller.games.base import clone
from controller.games.elixir.engine import Elixir

GAME = Elixir()
T = GAME.t
NAMES = ["Ann", "Ben", "Cem", "Dan"]


def start(n: int = 2, seed: int = 1, first: int = 0) -> dict[str, Any]:
    """A game with a physical die whose opening roll is done: ``first`` rolled a 6,
    everyone else a 1. Tests then choose every roll with ``value``."""
    state = GAME.setup(NAMES[:n], seed=seed, options={"dice": "physical"})
    for s in range(n):
        state = act(state, {"type": "roll", "seat": s, "value": 6 if s == first else 1})
    return state


def act(state: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    new, _effects = GAME.apply(state, action)
    return new


def do(state: dict[str, Any], kind: str, **fields: Any) -> dict[str, Any]:
    return act(state, {"type": kind, **fields})


def told(state: dict[str, Any]) -> str:
    """What the last action did, as the game log and the tablet's line say it."""
    return records.join(records.told("elixir", state.get("told"), state["players"]))


def arrange(state: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of ``state`` with top-level keys replaced (a position set up for a test)."""
    new = clone({k: v for k, v in state.items() if k not in ("rng", "secret_rng", "undo")})
    new.update({"rng": state["rng"], "secret_rng": state["secret_rng"], "undo": []})
    new.update(changes)
    return new


def wizard(state: dict[str, Any], seat: int, **changes: Any) -> dict[str, Any]:
    """A copy of ``state`` where wizard ``seat`` has the given fields (racks, brews, place...)."""
    new = arrange(state)
    new["wizards"][seat].update(clone(changes))
    return new


def top_unknown(state: dict[str, Any], uid: str) -> dict[str, Any]:
    """A copy of ``state`` with Unknown ``uid`` on top of the Unknowns stack."""
    rest = [u for u in state["unknowns"] if u != uid]
    return arrange(state, unknowns=[uid, *rest])


def in_use(state: dict[str, Any], seat: int, brew: str, chip: int = 1) -> dict[str, Any]:
    """``seat`` drank ``brew`` earlier and its chip stands on ``chip`` (taken from the stack)."""
    new = arrange(state)
    stack = list(new["stack"])
    stack.remove(brew)
    new["stack"] = stack
    new["wizards"][seat]["in_use"].append({"brew": brew, "chip": chip})
    return new


def give_brews(state: dict[str, Any], seat: int, *brews: str) -> dict[str, Any]:
    """``seat`` holds ``brews`` (taken from the stack, so nothing is created)."""
    new = arrange(state)
    stack = list(new["stack"])
    for b in brews:
        stack.remove(b)
    new["stack"] = stack
    new["wizards"][seat]["brews"] = [*new["wizards"][seat]["brews"], *brews]
    return new


def give_ingredients(state: dict[str, Any], seat: int, where: str, counts: dict[str, int]) -> dict[str, Any]:
    """``seat`` gets ``counts`` into ``where`` ("carried" or "racks"), taken from the shops."""
    new = arrange(state)
    for k, n in counts.items():
        assert new["shops"][k] >= n
        new["shops"][k] -= n
        new["wizards"][seat][where][k] = new["wizards"][seat][where].get(k, 0) + n
    new["shops"] = {k: n for k, n in new["shops"].items() if n}
    return new


# --- the invariants ----------------------------------------------------------------------
def gold_total(state: dict[str, Any]) -> int:
    return int(state["supply"] + sum(state["gold"]))


def ingredient_count(state: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter(state["shops"])
    c.update(state["dead_end"]["ingredients"])
    for w in state["wizards"]:
        c.update(w["carried"])
        c.update(w["racks"])
        if w["table"] is not None:
            c.update(w["table"]["gems"])
            c.update([w["table"]["herb"], w["table"]["special"]])
    return +c


def brew_count(state: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter(state["stack"])
    c.update(b["brew"] for b in state["dead_end"]["brews"])
    for w in state["wizards"]:
        c.update(w["brews"])
        c.update(u["brew"] for u in w["in_use"])
        if w["fatal"]:
            c.update([w["fatal"]])
    return c


def check_invariants(state: dict[str, Any]) -> None:
    n = len(state["players"])
    copies = T.copies[n]
    assert gold_total(state) == T.gold_in_game[n]
    assert all(g >= 0 for g in state["gold"]) and state["supply"] >= 0
    assert ingredient_count(state) == Counter({i: copies for i in T.ingredients})
    assert brew_count(state) == Counter({b: copies for b in T.brews})
    assert sorted(state["unknowns"] + [h for w in state["wizards"] for h in w["hired"]]
                  + ([state["pending"]["unknown"]] if state["pending"] and state["pending"].get("for") == "hired"
                     else [])
                  + ([state["pending"]["unknown"]] if state["pending"] and state["pending"].get("for") == "attack"
                     else [])
                  + ([state["pending"]["unknown"]] if state["pending"] and state["pending"]["kind"] == "offer"
                     else [])) == sorted(T.unknowns)
    plain = {k: v for k, v in state.items() if k != "undo"}   # undo holds earlier states, checked before
    assert json.loads(json.dumps(plain)) == plain


# --- every action and a quick random player ---------------------------------------------------
def all_actions(state: dict[str, Any]) -> list[dict[str, Any]]:
    """What anyone may do now: the public actions and each seat's secret ones (as the union
    of ``seat_actions`` would give, with one call of ``legal_actions``)."""
    out = GAME.legal_actions(state)
    for seat in range(len(state["players"])):
        out += GAME.secret_actions(state, seat)
    return out


def lacks(state: dict[str, Any], seat: int) -> str | None:
    """The shop a wizard still needs for an experiment (a sensible player's next stop)."""
    w = state["wizards"][seat]
    have = Counter(w["racks"]) + Counter(w["carried"])
    for group in ("gem", "herb", "special"):
        if not any(have[i] for i in T.ingredients if T.ingredients[i].group == group):
            return str(T.groups[group]["shop"])
    return None


def spare(state: dict[str, Any], seat: int, brew: str) -> bool:
    """A brew card a wizard can do without: not an elixir part, or a second copy of one."""
    return brew not in T.elixir_parts or state["wizards"][seat]["brews"].count(brew) > 1


def wanted(state: dict[str, Any], a: dict[str, Any]) -> bool:
    """Deals and moves a sensible wizard takes: they keep the elixir parts moving round
    the table (without them two wizards may hoard the parts the other needs)."""
    kind = a["type"]
    if kind == "accept" and "brew" in a:                  # Clotilda: sell something spare
        return spare(state, a["seat"], a["brew"])
    if kind == "give" and "brew" in a:                    # Phil: give up something spare
        return spare(state, a["seat"], a["brew"])
    if kind == "drink":
        return a["brew"] in ("thieves_fluid", "lucky_liqueur", "antidote")
    return kind in ("accept", "play_unknown", "steal", "take", "deposit", "roll", "loot", "pay_healer")


def worth_brewing(state: dict[str, Any], a: dict[str, Any]) -> bool:
    """An experiment whose formula the wizard has not learnt, or that makes a part he lacks."""
    w = state["wizards"][a["seat"]]
    if "herb" not in a:
        return True
    learnt = w["seen"].get(f"{a['herb']}+{a['special']}")
    return learnt is None or (learnt in T.elixir_parts and learnt not in w["brews"])


def choose(rng: random.Random, state: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A random but purposeful choice: shop for what is missing, fill the racks, brew, take
    the deals that keep brew cards moving; one time in five anything at all (undo rarely)."""
    if rng.random() < 0.2:
        pool = [a for a in actions if a["type"] != "undo"] or actions
        if rng.random() < 0.05:
            pool = actions
        return rng.choice(pool)
    good = [a for a in actions if wanted(state, a)]
    if good and rng.random() < 0.7:
        return rng.choice(good)
    turn = state["turn"]
    mine = [a for a in actions if a.get("seat") == turn] if state["pending"] is None else actions
    by_type: dict[str, list[dict[str, Any]]] = {}
    for a in mine:
        by_type.setdefault(a["type"], []).append(a)
    if state["pending"] is not None or state["step"] == "opening":
        pool = [a for a in actions if a["type"] != "undo"]
        return rng.choice(pool)
    w = state["wizards"][turn]
    if state["step"] == "move":
        if "pay_healer" in by_type:
            return by_type["pay_healer"][0]
        want = "lab" if w["carried"] else (lacks(state, turn) or rng.choice(["lab", "street", "dead_end", "street"]))
        for a in by_type.get("move", []):
            if a["to"] == want:
                return a
        return rng.choice(by_type.get("move", mine))
    if "buy" in by_type and rng.random() < 0.8:
        return rng.choice(by_type["buy"])
    if "brew" in by_type:
        return rng.choice([a for a in by_type["brew"] if worth_brewing(state, a)] or by_type["brew"])
    return by_type["end_turn"][0] if "end_turn" in by_type else rng.choice(mine)


def play(state: dict[str, Any], rng: random.Random, limit: int = 6000, check: bool = True) -> dict[str, Any]:
    """Play until somebody wins (or ``limit`` actions), checking the invariants each step."""
    for _ in range(limit):
        if GAME.outcome(state) is not None:
            break
        actions = all_actions(state)
        assert actions, f"nobody can act: {GAME.prompt(state)}"
        state = act(state, choose(rng, state, actions))
        if check:
            check_invariants(state)
    return state
