"""H) brewing and I) drinking: experiments from the racks, the formula seen by the brewer
alone, the brew card searched for, potions drunk with their red chips, thieves' fluid.

Built on :class:`ElixirRules` (rules.py) and its helpers.
"""
from __future__ import annotations

from ...contracts import Action, Effect, State
from .. import counts as C
from ..base import IllegalAction
from .rules import ElixirRules
from .tables import pair_key


class BrewRules(ElixirRules):
    # --- H) brewing ---------------------------------------------------------------------
    def _do_brew(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "carries out an experiment")
        gems, herb, special = action["gems"], action["herb"], action["special"]
        self._stage(state, 7, "an experiment")
        w = state["wizards"][seat]
        if w["brewed_round"] == state["round"]:
            raise IllegalAction("per round a wizard may carry out only one experiment")
        if not C.contains(w["racks"], gems):
            raise IllegalAction("a potion is brewed only with ingredients in the racks of one's own laboratory, "
                                "not with those one carries")
        table = w["table"]
        again = table is not None
        if table is None:
            if herb is None or special is None or not gems:
                raise IllegalAction("an experiment needs one or more gemstones, a herb and a special product")
            need = C.add(gems, {herb: 1, special: 1})
            if not C.contains(w["racks"], need):
                raise IllegalAction("a potion is brewed only with ingredients in the racks of one's own laboratory, "
                                    "not with those one carries")
            w["racks"] = C.sub(w["racks"], need)
            w["table"] = {"gems": gems, "herb": herb, "special": special, "doubtful": False}
        else:
            if (herb is not None and herb != table["herb"]) or (special is not None and special != table["special"]):
                raise IllegalAction("a doubtful experiment is rolled again with the same herb and special product; "
                                    "only gemstones may be added")
            w["racks"] = C.sub(w["racks"], gems)
            table["gems"] = C.add(table["gems"], gems)
        w["brewed_round"] = state["round"]
        table = w["table"]
        self.say(state, "experiment_again" if again else "experiment", seat=seat, gems=C.words(table["gems"], self.ing_names),
                 herb=self.ing_names[table["herb"]], special=self.ing_names[table["special"]],
                 value=self.gem_value(table["gems"]))
        state["pending"] = {"kind": "roll", "for": "brew", "seat": seat}
        return []

    def gem_value(self, gems: dict[str, int]) -> int:
        return sum(self.t.ingredients[g].value * n for g, n in gems.items())

    def resolve_brew(self, state: State, seat: int, value: int) -> None:
        w = state["wizards"][seat]
        table = w["table"]
        lucky = self.t.lucky_bonus if self.active(state, seat, "lucky_liqueur") else 0
        score = value + self.gem_value(table["gems"]) + lucky
        used = C.add(table["gems"], {table["herb"]: 1, table["special"]: 1})
        if score <= self.t.fail_at_most:
            self.log_roll(state, seat, value, "experiment", score, "failed")
            self.to_shops(state, used)
            w["table"] = None
            self.say(state, "experiment_failed", seat=seat, value=value, score=score)
        elif score <= self.t.doubtful_at_most:
            self.log_roll(state, seat, value, "experiment", score, "doubtful")
            table["doubtful"] = True
            self.say(state, "experiment_doubtful", seat=seat, value=value, score=score)
        else:
            self.log_roll(state, seat, value, "experiment", score, "success")
            pair = pair_key(table["herb"], table["special"])
            brew = state["formulas"][pair]
            w["seen"] = {**w["seen"], pair: brew}
            self.to_shops(state, used)
            w["table"] = None
            self.tell(state, seat, f"the formula for {self.ing_names[table['herb']]} + "
                                   f"{self.ing_names[table['special']]} is {self.t.brews[brew].name}")
            rng = self._secret_rng(state)     # the stack is shuffled before each search
            stack = list(state["stack"])
            rng.shuffle(stack)
            self._store_secret_rng(state, rng)
            if brew in stack:
                stack.remove(brew)
                state["stack"] = stack
                self.say(state, "experiment_succeeded", seat=seat, value=value, score=score)
                self.take_brew(state, seat, brew, "brewed")
            else:
                state["stack"] = stack
                self.say(state, "experiment_no_card", seat=seat, value=value, score=score)
                self.tell(state, seat, f"no {self.t.brews[brew].name} card was left in the stack")

    # --- I) drinking --------------------------------------------------------------------
    def _do_drink(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "drinks a potion")
        brew = action["brew"]
        self._stage(state, 8, "using a potion")
        w = state["wizards"][seat]
        if brew not in w["brews"]:
            raise IllegalAction(f"{self.who(state, seat)} has no unused {self.t.brews[brew].name}")
        card = self.t.brews[brew]
        if card.elixir:
            raise IllegalAction("the elixir of life cards cannot be drunk: they only count towards victory")
        if card.rounds == 0:
            raise IllegalAction("the fatal brew is best not drunk yourself: it works only when it is stolen")
        hand = list(w["brews"])
        hand.remove(brew)
        w["brews"] = hand
        w["in_use"] = [*w["in_use"], {"brew": brew, "chip": 0}]
        self.say(state, "drink", seat=seat, brew=card.name, rounds=card.rounds)
        return []

    def _do_steal(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "steals with thieves' fluid")
        victim = action["target"]
        if state["step"] != "arrived":
            raise IllegalAction("thieves' fluid steals after you have moved your own wizard")
        if not self.active(state, seat, "thieves_fluid"):
            raise IllegalAction("only a wizard under thieves' fluid steals brew cards")
        w, v = state["wizards"][seat], state["wizards"][victim]
        if victim == seat:
            raise IllegalAction("thieves' fluid steals from another wizard")
        if w["stole_round"] == state["round"]:
            raise IllegalAction("thieves' fluid steals once in each round")
        if v["place"] != w["place"] or w["place"] == "lab":
            raise IllegalAction(f"thieves' fluid steals from a wizard on the same space, and "
                                f"{self.who(state, victim)} is elsewhere")
        if not v["brews"]:
            raise IllegalAction(f"{self.who(state, victim)} has no unused brew card")
        w["stole_round"] = state["round"]
        self.say(state, "steal", seat=seat, victim=self.who(state, victim))
        self.steal_blind(state, thief=seat, victim=victim, hirer=seat)
        return []
