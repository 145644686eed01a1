"""E) and G): the Unknowns met on the street or hired, robbery and the dead-end street.

Built on :class:`ElixirRules` (rules.py) and its helpers (``who``, ``say``, ``pay``, ``to_healer``, ``take_brew``, ``roll_die``...).
"""
from __future__ import annotations

from typing import Any

from ...contracts import Action, Effect, State
from .. import counts as C
from ..base import IllegalAction
from .rules import ElixirRules

# Unknowns whose attack is an ambush on a wizard: lucky liqueur on the victim counts
# two less against them (Kitti and Peter strike at a laboratory, not at the wizard).
AMBUSHES = frozenset({"fergus", "helga", "norman", "phil", "black_jack", "nick"})


class UnknownRules(ElixirRules):
    def back_under(self, state: State, uid: str) -> None:
        """The card goes back to the bottom of the Unknowns stack."""
        state["unknowns"] = [*state["unknowns"], uid]

    def draw_unknown(self, state: State, seat: int) -> None:
        """Step 6: the top card, read aloud (the tablet shows and speaks ``unknown``)."""
        uid, rest = state["unknowns"][0], state["unknowns"][1:]
        state["unknowns"] = rest
        state["draws"] += 1
        u = self.t.unknowns[uid]
        state["unknown"] = {"id": uid, "seat": seat, "result": None}
        self.say(state, "meets", seat=seat, unknown=u.name, text=u.text)
        if u.kind == "attack":
            if self.active(state, seat, "dizziness"):
                self.back_under(state, uid)
                state["unknown"]["result"] = "slid back"
                self.say(state, "protected", seat=seat, unknown=u.name)
                return
            state["pending"] = {"kind": "roll", "for": "attack", "seat": seat, "unknown": uid}
        else:
            state["pending"] = {"kind": "offer", "seat": seat, "unknown": uid}

    def clamp(self, value: int) -> int:
        """A roll changed by lucky liqueur still reads as a face of the die (7 or 8 is a 6)."""
        return max(1, min(self.t.sides, value))

    def resolve_unknown_roll(self, state: State, pending: dict[str, Any], value: int) -> None:
        uid = pending["unknown"]
        u = self.t.unknowns[uid]
        seat = pending["seat"]
        if pending["for"] == "attack":
            victim = seat
            counts = value - (self.t.lucky_bonus if self.active(state, victim, "lucky_liqueur") else 0)
        else:
            victim = pending["target"]
            counts = value + (self.t.lucky_bonus if self.active(state, seat, "lucky_liqueur") else 0)
            if uid in AMBUSHES and self.active(state, victim, "lucky_liqueur"):
                counts -= self.t.lucky_bonus
        hit = self.clamp(counts) in u.hits
        self.log_roll(state, seat, value, u.name, counts, "hit" if hit else "miss")
        self.back_under(state, uid)
        if state["unknown"] is not None and state["unknown"]["id"] == uid and pending["for"] == "attack":
            state["unknown"] = {**state["unknown"], "result": "hit" if hit else "miss"}
        if not hit:
            self.say(state, "unknown_fails" if counts == value else "unknown_fails_counts", seat=seat,
                     unknown=u.name, value=value, counts=counts)
            return
        self.say(state, "unknown_strikes" if counts == value else "unknown_strikes_counts", seat=seat,
                 unknown=u.name, value=value, counts=counts)
        getattr(self, f"_hit_{uid}")(state, seat, victim)

    # --- the attackers met on the street -----------------------------------------------
    def _hit_fergus(self, state: State, seat: int, victim: int) -> None:
        self.to_healer(state, victim, "ambushed", unknown=self.t.unknowns["fergus"].name)
        self._must_give(state, victim, "ingredients", 1, "fergus")

    def _hit_helga(self, state: State, seat: int, victim: int) -> None:
        self.to_healer(state, victim, "cursed", unknown=self.t.unknowns["helga"].name)

    def _hit_norman(self, state: State, seat: int, victim: int) -> None:
        self.say(state, "robbed", seat=victim, unknown=self.t.unknowns["norman"].name)
        self._must_give(state, victim, "ingredients", 2, "norman")

    def _hit_phil(self, state: State, seat: int, victim: int) -> None:
        self.say(state, "robbed_of_a_brew", seat=victim, unknown=self.t.unknowns["phil"].name)
        self._must_give(state, victim, "brew", 1, "phil")

    def _must_give(self, state: State, victim: int, what: str, count: int, uid: str) -> None:
        """The victim chooses what goes into the dead-end street (all of it if he has no more)."""
        w = state["wizards"][victim]
        have = C.total(w["carried"]) if what == "ingredients" else len(w["brews"])
        count = min(count, have)
        if count == 0:
            self.say(state, "nothing_to_take", seat=victim, unknown=self.t.unknowns[uid].name)
            return
        if what == "ingredients" and len(w["carried"]) == 1 and count == have:
            self._give_ingredients(state, victim, dict(w["carried"]))   # no choice to make
            return
        state["pending"] = {"kind": "give", "seat": victim, "what": what, "count": count, "unknown": uid}

    def _give_ingredients(self, state: State, victim: int, ings: dict[str, int]) -> None:
        w = state["wizards"][victim]
        w["carried"] = C.sub(w["carried"], ings)
        dead = state["dead_end"]
        dead["ingredients"] = C.add(dead["ingredients"], ings)
        self.say(state, "to_dead_end", seat=victim, ingredients=C.words(ings, self.ing_names))

    def _do_give(self, state: State, action: Action) -> list[Effect]:
        seat = action["seat"]
        pending = state["pending"]
        if pending is None or pending["kind"] != "give":
            raise IllegalAction("nothing has to go into the dead-end street now")
        if seat != pending["seat"]:
            raise IllegalAction(f"{self.who(state, pending['seat'])} chooses what goes into the dead-end street")
        w = state["wizards"][seat]
        if pending["what"] == "ingredients":
            ings = action["ingredients"]
            if C.total(ings) != pending["count"]:
                raise IllegalAction(f"{pending['count']} of the ingredients you are carrying go into the dead-end street")
            if not C.contains(w["carried"], ings):
                raise IllegalAction("only ingredients you are carrying go into the dead-end street")
            state["pending"] = None
            self._give_ingredients(state, seat, ings)
            return []
        brew = action["brew"]
        if brew == "any" and w["brews"]:     # no phone at hand: the table picks one blind
            rng = self._secret_rng(state)
            brew = rng.choice(sorted(w["brews"]))
            self._store_secret_rng(state, rng)
        if brew is None:
            raise self.invalid(state, "give", "brew")
        if brew not in w["brews"]:
            raise IllegalAction("put one of the brew cards you own in the dead-end street")
        hand = list(w["brews"])
        hand.remove(brew)
        w["brews"] = hand
        state["dead_end"]["brews"] = [*state["dead_end"]["brews"], {"brew": brew, "from": seat, "round": state["round"]}]
        state["pending"] = None
        self.tell(state, seat, f"you put your {self.t.brews[brew].name} in the dead-end street")
        self.say(state, "brew_to_dead_end", seat=seat)
        return []

    # --- the hired Unknowns ------------------------------------------------------------------
    def _do_play_unknown(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "plays a hired Unknown")
        uid, target = action["unknown"], action["target"]
        w = state["wizards"][seat]
        if uid not in w["hired"]:
            raise IllegalAction(f"{self.who(state, seat)} has not hired {self.t.unknowns[uid].name}")
        if target == seat:
            raise IllegalAction(f"{self.t.unknowns[uid].name} works against another wizard")
        v = state["wizards"][target]
        vname = self.who(state, target)
        if uid == "black_jack" and v["place"] != "street":
            raise IllegalAction(f"Black Jack can only ambush on the street, and {vname} is not on the street")
        if uid == "nick":
            if v["place"] in ("lab",):
                raise IllegalAction(f"Nick steals anywhere except in a laboratory, and {vname} is in the laboratory")
            if not v["brews"]:
                raise IllegalAction(f"{vname} has no brew card for Nick to steal")
        if uid == "kitti" and not any(g in v["racks"] for g in self.t.gems):
            raise IllegalAction(f"{vname} has no gemstones in the racks (the lab table is out of reach)")
        w["hired"] = [h for h in w["hired"] if h != uid]
        state["pending"] = {"kind": "roll", "for": "hired", "seat": seat, "unknown": uid, "target": target}
        self.say(state, "sends", seat=seat, unknown=self.t.unknowns[uid].name, victim=vname)
        return []

    def _hit_black_jack(self, state: State, seat: int, victim: int) -> None:
        self.to_healer(state, victim, "ambushed", unknown=self.t.unknowns["black_jack"].name)
        if state["wizards"][victim]["carried"]:
            state["pending"] = {"kind": "loot", "seat": seat, "from": victim, "source": "carried", "count": 1,
                                "unknown": "black_jack"}

    def _hit_kitti(self, state: State, seat: int, victim: int) -> None:
        gems = {g: n for g, n in state["wizards"][victim]["racks"].items() if g in self.t.gems}
        self.say(state, "kitti", seat=victim, unknown=self.t.unknowns["kitti"].name)
        state["pending"] = {"kind": "loot", "seat": seat, "from": victim, "source": "racks",
                            "count": min(2, C.total(gems)), "unknown": "kitti"}

    def _hit_nick(self, state: State, seat: int, victim: int) -> None:
        self.say(state, "nick", seat=seat, victim=self.who(state, victim), unknown=self.t.unknowns["nick"].name)
        self.steal_blind(state, thief=seat, victim=victim, hirer=seat)

    def _hit_peter(self, state: State, seat: int, victim: int) -> None:
        v = state["wizards"][victim]
        lost = {k: n for k, n in v["racks"].items() if self.t.ingredients[k].group in ("herb", "special")}
        v["racks"] = C.sub(v["racks"], lost)
        self.to_shops(state, lost)
        self.say(state, "rats", seat=victim, ingredients=C.words(lost, self.ing_names))
        if v["place"] == "lab":
            self.to_healer(state, victim, "plague_in_lab")

    def _do_loot(self, state: State, action: Action) -> list[Effect]:
        seat = action["seat"]
        pending = state["pending"]
        if pending is None or pending["kind"] != "loot":
            raise IllegalAction("there is no loot to take now")
        if seat != pending["seat"]:
            raise IllegalAction(f"{self.who(state, pending['seat'])} chooses the loot")
        ings, to_lab = action["ingredients"], action["to_lab"]
        v = state["wizards"][pending["from"]]
        vname = self.who(state, pending["from"])
        if C.total(ings) != pending["count"]:
            raise IllegalAction(f"{self.t.unknowns[pending['unknown']].name} brings you {pending['count']}")
        if pending["source"] == "carried":
            if not C.contains(v["carried"], ings):
                raise IllegalAction(f"you receive one of the ingredients {vname} was carrying")
            v["carried"] = C.sub(v["carried"], ings)
        else:
            if any(k not in self.t.gems for k in ings) or not C.contains(v["racks"], ings):
                raise IllegalAction(f"Kitti takes gemstones from the racks of {vname}'s laboratory")
            v["racks"] = C.sub(v["racks"], ings)
        w = state["wizards"][seat]
        if to_lab:
            w["racks"] = C.add(w["racks"], ings)
        else:
            w["carried"] = C.add(w["carried"], ings)
        state["pending"] = None
        self.say(state, "looted_to_lab" if to_lab else "looted", seat=seat,
                 ingredients=C.words(ings, self.ing_names), victim=vname)
        return []

    # --- the offers ---------------------------------------------------------------------------
    def _offer(self, state: State, action: Action) -> tuple[int, str]:
        seat: int = action["seat"]
        pending = state["pending"]
        if pending is None or pending["kind"] != "offer":
            raise IllegalAction("no Unknown is making an offer now")
        if seat != pending["seat"]:
            raise IllegalAction(f"the offer is made to {self.who(state, pending['seat'])}")
        return seat, str(pending["unknown"])

    def _do_decline(self, state: State, action: Action) -> list[Effect]:
        seat, uid = self._offer(state, action)
        state["pending"] = None
        self.back_under(state, uid)
        state["unknown"] = {**state["unknown"], "result": "declined"}
        self.say(state, "declined", seat=seat, unknown=self.t.unknowns[uid].name)
        return []

    def _do_accept(self, state: State, action: Action) -> list[Effect]:
        seat, uid = self._offer(state, action)
        u = self.t.unknowns[uid]
        w = state["wizards"][seat]
        name = self.who(state, seat)
        if u.kind == "hire":
            self.pay(state, seat, u.price, f"hiring {u.name}")
            w["hired"] = [*w["hired"], uid]
            self.say(state, "hired", seat=seat, unknown=u.name, gold=u.price)
        elif uid == "marco":
            if not state["stack"]:
                raise IllegalAction("the stack of brew cards is empty: Marco has nothing to sell")
            self.pay(state, seat, u.price, "Marco's brew")
            card, state["stack"] = state["stack"][0], state["stack"][1:]
            self.back_under(state, uid)
            self.say(state, "marco", seat=seat, unknown=u.name, gold=u.price)
            state["pending"] = None
            state["unknown"] = {**state["unknown"], "result": "accepted"}
            self.take_brew(state, seat, card, "bought from Marco")
            return []
        elif uid == "clotilda":
            brew = action["brew"]
            if brew is None:
                raise self.invalid(state, "accept", "brew")
            if brew not in w["brews"]:
                raise IllegalAction(f"{name} can sell Clotilda only a brew card of his own")
            hand = list(w["brews"])
            hand.remove(brew)
            w["brews"] = hand
            state["stack"] = [brew, *state["stack"]]
            got = self.gain_gold(state, seat, u.pays)
            self.back_under(state, uid)
            self.tell(state, seat, f"you sold your {self.t.brews[brew].name} to Clotilda")
            self.say(state, "clotilda", seat=seat, unknown=u.name, gold=got)
        elif uid == "fool":
            ings = action["ingredients"]
            if not ings or not C.contains(w["carried"], ings):
                raise IllegalAction("the fool buys ingredients you are carrying")
            w["carried"] = C.sub(w["carried"], ings)
            self.to_shops(state, ings)
            got = self.gain_gold(state, seat, u.pays * C.total(ings))
            self.back_under(state, uid)
            self.say(state, "fool", seat=seat, unknown=u.name, ingredients=C.words(ings, self.ing_names), gold=got)
        elif uid == "simeon":
            ings = action["ingredients"]
            groups = {self.t.ingredients[k].group for k in ings}
            if C.total(ings) != u.count or len(groups) != 1 or not groups <= {"herb", "special"}:
                raise IllegalAction(f"Simeon sells {u.count} herb cards or {u.count} special products")
            if not C.contains(state["shops"], ings):
                raise IllegalAction("the shop does not have those left")
            self.pay(state, seat, u.price, "Simeon's offer")
            state["shops"] = C.sub(state["shops"], ings)
            w["carried"] = C.add(w["carried"], ings)
            self.back_under(state, uid)
            self.say(state, "simeon", seat=seat, unknown=u.name, ingredients=C.words(ings, self.ing_names),
                     gold=u.price)
        state["pending"] = None
        state["unknown"] = {**state["unknown"], "result": "accepted"}
        return []
