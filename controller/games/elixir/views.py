"""What the table sees, what each wizard's phone sees, and the actions on offer.

``view`` (the tablet, the public stream) never reads a secret: not the formula cards,
not the brew stack, not a brew card in anyone's hand or in the dead-end street, not a
learnt formula, a note or a secret log line. ``private_view`` gives one wizard his own.
"""
from __future__ import annotations

import itertools
from typing import Any

from ...contracts import Action, State
from .. import counts as C
from ..base import Score, Scores
from .rules import ElixirRules


class ViewRules(ElixirRules):
    # --- the public table ----------------------------------------------------------------
    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        """The public view, whoever asks: a seat's secrets are in ``private_view``."""
        t = self.t
        players = []
        for s, w in enumerate(state["wizards"]):
            players.append({
                "seat": s, "name": state["players"][s], "gold": state["gold"][s],
                "place": w["place"], "place_name": t.places[w["place"]]["name"], "at_healer": w["at_healer"],
                "carried": dict(w["carried"]), "racks": dict(w["racks"]),
                "table": None if w["table"] is None else {k: (dict(v) if isinstance(v, dict) else v)
                                                          for k, v in w["table"].items()},
                "brew_cards": len(w["brews"]),
                "in_use": [{"brew": u["brew"], "name": t.brews[u["brew"]].name, "chip": u["chip"],
                            "effect": t.brews[u["brew"]].effect,
                            "rounds": t.brews[u["brew"]].rounds, "active": u["chip"] >= 1} for u in w["in_use"]],
                "hired": [{"id": h, "name": t.unknowns[h].name} for h in w["hired"]],
                "fatal": w["fatal"] is not None,
                "range": t.super_soda_range if self.active(state, s, "super_soda") else t.range,
                "brewed_this_round": w["brewed_round"] == state["round"],
            })
        unknown = None
        if state["unknown"] is not None:
            u = t.unknowns[state["unknown"]["id"]]
            unknown = {"id": u.id, "name": u.name, "kind": u.kind, "text": u.text, "hits": list(u.hits),
                       "price": u.price, "seat": state["unknown"]["seat"], "result": state["unknown"]["result"]}
        pending = None
        if state["pending"] is not None:
            pending = {k: v for k, v in state["pending"].items()}
            pending["words"] = self.pending_words(state)
        seen_by: dict[str, list[int]] = {p: [] for p in t.pairs}
        for s, w in enumerate(state["wizards"]):
            for p in w["seen"]:     # who looked at which formula card is seen by all; what it says is not
                seen_by[p].append(s)
        return {
            "game": self.id, "round": state["round"], "turn": state["turn"], "first": state["first"],
            "step": state["step"], "stage": state["stage"],
            "dice": state["options"]["dice"], "die": state["die"]["last"], "rolls": state["die"]["rolls"],
            "opening": {"rolling": list(state["opening"]["rolling"]), "rolls": list(state["opening"]["rolls"])},
            "supply": state["supply"], "players": players,
            "shops": [{"id": i.id, "name": i.name, "group": i.group, "price": i.price, "value": i.value,
                       "letter": i.letter, "stock": state["shops"].get(i.id, 0), "shop": t.shop_of(i.id)}
                      for i in t.ingredients.values()],
            "places": [{"id": p, "name": v["name"]} for p, v in t.places.items()],
            "formulas": [{"pair": p, "herb": p.split("+")[0], "special": p.split("+")[1], "seen_by": seen_by[p]}
                         for p in t.pairs],
            "stack": len(state["stack"]), "unknowns_left": len(state["unknowns"]),
            "unknown": unknown, "pending": pending,
            "dead_end": {"ingredients": dict(state["dead_end"]["ingredients"]),
                         "brews": [{"from": b["from"], "round": b["round"]} for b in state["dead_end"]["brews"]]},
            "winner": state["winner"],
        }

    def scores(self, state: State) -> Scores:
        """The parts of the elixir of life (brew cards lie face down: the table knows only the
        winner's three, once shown), gold and how many brew cards each wizard holds."""
        seats = range(len(state["players"]))
        parts = len(self.t.elixir_parts)
        return Scores(lines=(
            Score("elixir_parts", "Parts of the elixir of life",
                  tuple(parts if s == state["winner"] else None for s in seats),
                  note=f"The first to hold all {parts} different parts wins. Brew cards lie face down: "
                       "the table sees the parts only when a wizard shows them."),
            Score("gold", "Gold", tuple(state["gold"])),
            Score("brew_cards", "Brew cards", tuple(len(state["wizards"][s]["brews"]) for s in seats),
                  better="neither", note="How many each wizard holds, face down: more is not ahead."),
        ))

    def prompt(self, state: State) -> str:
        if state["step"] == "over":
            return f"{self.who(state, state['winner'])} brewed the elixir of life!"
        if state["step"] == "opening":
            waiting = [self.who(state, s) for s in state["opening"]["rolling"] if state["opening"]["rolls"][s] is None]
            return "Who begins? " + ", ".join(waiting) + " roll the die"
        if state["pending"] is not None:
            return self.pending_words(state)[:1].upper() + self.pending_words(state)[1:]
        who = self.who(state, state["turn"])
        if state["step"] == "move":
            w = state["wizards"][state["turn"]]
            if w["at_healer"]:
                return f"{who} is at the healer: pay {self.t.healer_fee} gold to move, or stay"
            return f"{who}: move up to {self.view_range(state)} spaces, then tap where you stopped"
        if state["stage"] == 8 or state["wizards"][state["turn"]]["brewed_round"] == state["round"]:
            return f"{who}: drink a potion (on the phone) or end the turn"
        return f"{who}: buy, fill the racks, brew, drink — then end the turn"

    def view_range(self, state: State) -> int:
        return self.t.super_soda_range if self.active(state, state["turn"], "super_soda") else self.t.range

    # --- one wizard's phone -----------------------------------------------------------------
    def private_view(self, state: State, seat: int) -> dict[str, Any]:
        """``seat``'s secrets: brew cards, the formula table (learnt + own notes), secret news."""
        t = self.t
        w = state["wizards"][seat]
        notes = state["notes"][seat]
        return {
            "seat": seat,
            "brews": [{"id": b, "name": t.brews[b].name, "effect": t.brews[b].effect,
                       "drinkable": t.brews[b].rounds > 0} for b in w["brews"]],
            "formula_table": [{"pair": p, "herb": p.split("+")[0], "special": p.split("+")[1],
                               "learnt": w["seen"].get(p), "note": notes.get(p),
                               "learnt_name": t.brews[w["seen"][p]].name if p in w["seen"] else None}
                              for p in t.pairs],
            "elixir_parts": [p for p in t.elixir_parts if p in w["brews"]],
            "hired": [{"id": h, "name": t.unknowns[h].name, "text": t.unknowns[h].text} for h in w["hired"]],
            "news": list(w["secret_log"][-12:]),
        }

    # --- the actions on offer -------------------------------------------------------------------
    def actions(self, state: State) -> list[Action]:
        """The public actions: a sample where there are many (purchases of one, a few
        experiments); nothing that names a secret brew card (``seat_actions`` has those)."""
        out: list[Action] = []
        step, pending = state["step"], state["pending"]
        physical = state["options"]["dice"] == "physical"

        def rolls(seat: int) -> list[Action]:
            if physical:
                return [{"type": "roll", "seat": seat, "value": v} for v in range(1, self.t.sides + 1)]
            return [{"type": "roll", "seat": seat}]

        if step == "over":
            return out
        if step == "opening":
            op = state["opening"]
            for s in op["rolling"]:
                if op["rolls"][s] is None:
                    out += rolls(s)
            return out
        turn = state["turn"]
        w = state["wizards"][turn]
        if pending is not None:
            ps = pending["seat"]
            if pending["kind"] == "roll":
                out += rolls(ps)
            elif pending["kind"] == "offer":
                out += self._offer_actions(state, ps, pending["unknown"])
                out.append({"type": "decline", "seat": ps})
            elif pending["kind"] == "give" and pending["what"] == "brew":
                out.append({"type": "give", "seat": ps, "brew": "any"})    # names no card
            elif pending["kind"] == "give" and pending["what"] == "ingredients":
                out += [{"type": "give", "seat": ps, "ingredients": c}
                        for c in self._choices(state["wizards"][ps]["carried"], pending["count"])]
            elif pending["kind"] == "loot":
                v = state["wizards"][pending["from"]]
                pool = v["carried"] if pending["source"] == "carried" else \
                    {g: n for g, n in v["racks"].items() if g in self.t.gems}
                out += [{"type": "loot", "seat": ps, "ingredients": c, "to_lab": lab}
                        for c in self._choices(pool, pending["count"]) for lab in (True, False)]
        elif step == "move":
            if w["at_healer"]:
                if state["gold"][turn] >= self.t.healer_fee:
                    out.append({"type": "pay_healer", "seat": turn})
                out.append({"type": "move", "seat": turn, "to": "healer"})
            else:
                out += [{"type": "move", "seat": turn, "to": p} for p in self.t.places if p != "healer"]
            out += self._hired_plays(state, turn)
        else:
            out += self._arrived_actions(state, turn)
            out += self._hired_plays(state, turn)
            out.append({"type": "end_turn", "seat": turn})
        return [a for a in out if self.is_legal(state, a)]

    def seat_actions(self, state: State, seat: int) -> list[Action]:
        """What ``seat`` may do now, secrets included: drinking, which brew card goes to the
        dead-end street or to Clotilda, and writing notes on his formula table."""
        own = [a for a in self.legal_actions(state) if a.get("seat") == seat] + self.secret_actions(state, seat)
        if state["step"] != "over":
            # a pencil note on his own formula table, any time (its pair and text are the phone's)
            own.append({"type": "note", "seat": seat})
        return own

    def secret_actions(self, state: State, seat: int) -> list[Action]:
        """The actions of ``seat`` that name one of its brew cards (never in ``legal_actions``)."""
        w = state["wizards"][seat]
        secret: list[Action] = []
        pending = state["pending"]
        may_drink = (state["turn"] == seat and state["step"] == "arrived" and pending is None
                     and state["stage"] <= 8)
        for brew in sorted(set(w["brews"])):
            if may_drink and self.t.brews[brew].rounds > 0:
                secret.append({"type": "drink", "seat": seat, "brew": brew})
            if pending is not None and pending["seat"] == seat:
                if pending["kind"] == "give" and pending["what"] == "brew":
                    secret.append({"type": "give", "seat": seat, "brew": brew})
                if pending["kind"] == "offer" and pending["unknown"] == "clotilda":
                    secret.append({"type": "accept", "seat": seat, "brew": brew})
        return [a for a in secret if a["type"] == "drink" or self.is_legal(state, a)]

    def _choices(self, pool: dict[str, int], count: int) -> list[dict[str, int]]:
        out: list[dict[str, int]] = []
        for combo in itertools.combinations_with_replacement(sorted(pool), count):
            pick: dict[str, int] = {}
            for k in combo:
                pick[k] = pick.get(k, 0) + 1
            if C.contains(pool, pick) and pick not in out:
                out.append(pick)
        return out

    def _offer_actions(self, state: State, seat: int, uid: str) -> list[Action]:
        w = state["wizards"][seat]
        if uid == "fool":
            return [{"type": "accept", "seat": seat, "ingredients": {k: 1}} for k in w["carried"]] + \
                ([{"type": "accept", "seat": seat, "ingredients": dict(w["carried"])}] if len(w["carried"]) > 1 else [])
        if uid == "simeon":
            out: list[Action] = []
            for group in (self.t.herbs, self.t.specials):
                stock = {k: state["shops"].get(k, 0) for k in group if state["shops"].get(k, 0)}
                out += [{"type": "accept", "seat": seat, "ingredients": c}
                        for c in self._choices(stock, self.t.unknowns["simeon"].count)]
            return out
        if uid == "clotilda":
            return []      # which brew card is sold is a secret: seat_actions
        return [{"type": "accept", "seat": seat}]

    def _hired_plays(self, state: State, seat: int) -> list[Action]:
        return [{"type": "play_unknown", "seat": seat, "unknown": h, "target": v}
                for h in sorted(set(state["wizards"][seat]["hired"]))
                for v in range(len(state["players"])) if v != seat]

    def _arrived_actions(self, state: State, seat: int) -> list[Action]:
        w = state["wizards"][seat]
        out: list[Action] = []
        shop = self.t.places[w["place"]].get("shop")
        free = self.active(state, seat, "dizziness") and w["free_round"] != state["round"]
        if shop is not None:     # the candidates worth asking is_legal about
            for i in self.t.ingredients.values():
                if i.group == shop and state["shops"].get(i.id, 0):
                    if state["gold"][seat] >= i.price:
                        out.append({"type": "buy", "seat": seat, "ingredient": i.id})
                    if free:
                        out.append({"type": "buy", "seat": seat, "ingredient": i.id, "free": True})
        if w["place"] == "lab":
            out.append({"type": "deposit", "seat": seat})
        if w["place"] == "dead_end":
            dead = state["dead_end"]
            out += [{"type": "take", "seat": seat, "ingredients": {k: 1}} for k in dead["ingredients"]]
            out += [{"type": "take", "seat": seat, "brews": [i]} for i in range(len(dead["brews"]))]
            if dead["ingredients"] or dead["brews"]:
                out.append({"type": "take", "seat": seat, "ingredients": dict(dead["ingredients"]),
                            "brews": list(range(len(dead["brews"])))})
        if w["brewed_round"] != state["round"]:
            out += self._brew_actions(state, seat)
        if self.active(state, seat, "thieves_fluid"):
            out += [{"type": "steal", "seat": seat, "target": v} for v in range(len(state["players"])) if v != seat]
        return out

    def _brew_actions(self, state: State, seat: int) -> list[Action]:
        """A sample of experiments: each (herb, special) pair in the racks with all the
        gemstones, and with the most valuable single one; a doubtful one rolled again."""
        w = state["wizards"][seat]
        racks = w["racks"]
        gems = {g: n for g, n in racks.items() if g in self.t.gems}
        if w["table"] is not None:
            out: list[Action] = [{"type": "brew", "seat": seat, "gems": {}}]
            if gems:
                out.append({"type": "brew", "seat": seat, "gems": gems})
            return out
        if not gems:
            return []
        best = max(gems, key=lambda g: self.t.ingredients[g].value)
        out = []
        for h in self.t.herbs:
            for s in self.t.specials:
                if racks.get(h) and racks.get(s):
                    out.append({"type": "brew", "seat": seat, "gems": gems, "herb": h, "special": s})
                    if gems != {best: 1}:
                        out.append({"type": "brew", "seat": seat, "gems": {best: 1}, "herb": h, "special": s})
        return out
