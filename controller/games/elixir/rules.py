"""Elixir's core rules: set-up, the order of a turn, gold, shops, laboratories, the die.

The engine does not model the street map: a turn records where the wizard stopped
(``places`` in data.toml) and the players move the figure on the real board.

A turn (``state["step"]``)::

    opening  every wizard rolls; the highest begins (a tie rolls again)
    move     steps 1-2 happened on their own (red chips forward, a gold piece);
             step 3: pay_healer (if cursed), then move (where the figure stopped)
    arrived  steps 4-8: buy / deposit / take / the Unknown drawn on the street /
             brew / drink, then end_turn
    over     a wizard holds the three different parts of the elixir of life

A decision the turn waits for is ``state["pending"]``: a roll (an Unknown's attack,
a hired Unknown, an experiment), an Unknown's offer, the victim's choice of what goes
into the dead-end street, the hirer's choice of loot.

Secrets: the formula cards (``formulas``), the brew stack (``stack``), each wizard's
brew cards, learnt formulas, notes and secret log. ``view`` never reads them;
``private_view`` gives a wizard his own. The public RNG (``rng``: the die, the
Unknowns) and the secret RNG (``secret_rng``: formulas, the brew stack, blind draws)
are separate, so games differing only in secrets roll the same dice.
"""
from __future__ import annotations

import random
from typing import Any

from ...contracts import Action, Effect, State
from .. import counts as C
from ..base import (SEAT, Choice, Counts, Fields, Flag, Game, IllegalAction, InvalidAction, ListOf, Outcome,
                    Text, Whole, new_rng_state, rng_from, rng_store)
from .tables import Tables

NOTE_LENGTH = 40          # a pencil note on one square of the formula table
STAGE_AT = {"jeweller": 4, "special_supplies": 4, "herbalist": 4, "lab": 5, "street": 6, "dead_end": 6}
MOVE_PLACES = ("jeweller", "special_supplies", "herbalist", "lab", "street", "dead_end")


class ElixirRules(Game):
    """Set-up, the turn, shops, laboratories, brewing and drinking (the Unknowns: unknowns.py)."""

    # Taps a player may take back: where the figure stopped (unless on the street: an
    # Unknown was drawn), purchases, the racks, deals, choices, an experiment set out
    # before its roll, the end of a turn.
    undoable = frozenset({"pay_healer", "move", "buy", "deposit", "take", "accept", "decline", "give",
                          "loot", "play_unknown", "brew", "end_turn"})
    # Facts: a die was rolled (nobody re-rolls by undo), a brew card turned face up,
    # a card stolen blind. Drawing an Unknown or a brew card is one too (see below).
    undo_barrier = frozenset({"roll", "drink", "steal"})
    undo_keeps = ("notes",)        # a wizard's own notes survive an undo of the table
    nothing_to_undo = "there is nothing to take back: a die was rolled or a card was revealed since"
    legal_actions_complete = False  # drinking and the brew-card choices are secret: see seat_actions
    options = {"dice": Choice(("digital", "physical"), "who rolls: the tablet, or the players with their own "
                                                       "die (they tap the number rolled)", default="digital")}

    def __init__(self, data: dict[str, Any] | None = None):
        super().__init__(data)
        self.t = Tables(self.data)
        self.ing_names = {i.id: i.name for i in self.t.ingredients.values()}

    def fields(self) -> dict[str, Fields]:
        """Every action's fields (the Unknowns' and brewing's too: one table for the game)."""
        t = self.t
        ings = Counts(tuple(t.ingredients), default={})
        brew = Choice(tuple(t.brews), "a brew card")
        hired = tuple(u.id for u in t.unknowns.values() if u.kind == "hire")
        return {
            "roll": {"seat": SEAT, "value": Whole(1, t.sides, "the number rolled on your die", default=None)},
            "pay_healer": {"seat": SEAT}, "deposit": {"seat": SEAT}, "end_turn": {"seat": SEAT},
            "move": {"seat": SEAT, "to": Choice((*MOVE_PLACES, "healer"), "where the wizard stopped")},
            "buy": {"seat": SEAT, "ingredient": Choice(tuple(t.ingredients)),
                    "count": Whole(1, hint="how many to buy", default=1),
                    "free": Flag("true: the free ingredient of the solution to dizziness", default=False)},
            "take": {"seat": SEAT, "ingredients": ings,
                     "brews": ListOf(Whole(0), "the places (0, 1, ...) of the brew cards taken from the "
                                               "dead-end street", default=[], distinct=True)},
            "note": {"seat": SEAT, "pair": Choice(tuple(t.pairs), "a herb and a special product"),
                     "text": Text(NOTE_LENGTH, 'the note ("" rubs it out)', default="")},
            "brew": {"seat": SEAT, "gems": Counts(tuple(t.gems), default={}, noun="gemstone"),
                     "herb": Choice(tuple(t.herbs), default=None), "special": Choice(tuple(t.specials), default=None)},
            "drink": {"seat": SEAT, "brew": brew},
            "steal": {"seat": SEAT, "target": SEAT},
            "give": {"seat": SEAT, "ingredients": ings,
                     "brew": Choice((*t.brews, "any"), 'the brew card you put in the dead-end street, or "any" '
                                                       "for one picked at random", default=None)},
            "play_unknown": {"seat": SEAT, "unknown": Choice(hired, "a hired Unknown"), "target": SEAT},
            "loot": {"seat": SEAT, "ingredients": Counts(tuple(t.ingredients)),
                     "to_lab": Flag("true: straight into your laboratory; false: you carry it", default=True)},
            "decline": {"seat": SEAT},
            "accept": {"seat": SEAT, "ingredients": ings,
                       "brew": Choice(tuple(t.brews), "the brew card you sell to Clotilda", default=None)},
        }

    # --- set-up -----------------------------------------------------------------------
    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        self.check_players(players)
        options = self.read_options(options, players)
        dice = options["dice"]
        n = len(players)
        copies = self.t.copies[n]
        gold_total = self.t.gold_in_game[n]
        state: State = {
            "game": self.id, "players": list(players), "options": options,
            "rng": new_rng_state(seed), "secret_rng": new_rng_state(seed ^ 0x5EC2E7),
            "round": 1, "turn": None, "first": None, "step": "opening", "stage": 0,
            "opening": {"rolling": list(range(n)), "rolls": [None] * n},
            "supply": gold_total - n * self.t.start_gold,
            "gold": [self.t.start_gold] * n,
            "shops": {i: copies for i in self.t.ingredients},
            "wizards": [self._new_wizard() for _ in range(n)],
            "notes": [{} for _ in range(n)],
            "unknowns": list(self.t.unknowns),
            "dead_end": {"ingredients": {}, "brews": []},
            "pending": None, "unknown": None,
            "die": {"mode": dice, "last": None, "rolls": 0},
            "winner": None, "draws": 0, "undo": [],
        }
        rng = rng_from(state)
        rng.shuffle(state["unknowns"])
        rng_store(state, rng)
        self.deal_secrets(state, copies)
        return state

    @staticmethod
    def _new_wizard() -> dict[str, Any]:
        return {"place": "lab", "at_healer": False, "carried": {}, "racks": {}, "table": None,
                "brews": [], "in_use": [], "hired": [], "fatal": None, "brewed_round": 0,
                "stole_round": 0, "free_round": 0, "seen": {}, "secret_log": []}

    def deal_secrets(self, state: State, copies: int) -> None:
        """Shuffle the formula cards onto the nine pairs and the brew stack (secret RNG)."""
        rng = self._secret_rng(state)
        brews = list(self.t.brews)
        rng.shuffle(brews)
        state["formulas"] = dict(zip(self.t.pairs, brews))
        stack = [b for b in self.t.brews for _ in range(copies)]
        rng.shuffle(stack)
        state["stack"] = stack
        self._store_secret_rng(state, rng)

    @staticmethod
    def _secret_rng(state: State) -> random.Random:
        return rng_from({"rng": state["secret_rng"]})

    @staticmethod
    def _store_secret_rng(state: State, rng: random.Random) -> None:
        holder: State = {}
        rng_store(holder, rng)
        state["secret_rng"] = holder["rng"]

    # Keys whose values are always replaced, never changed in place: states share them
    # (a fork copies only the wizards and the small tables).
    shared_keys = Game.shared_keys | {"secret_rng", "unknowns", "stack", "formulas", "notes", "die", "opening"}

    # --- the undo policy --------------------------------------------------------------
    def undo_barrier_reached(self, before: State, after: State, kind: str) -> bool:
        """A roll, a card turned up, and anything that drew a card: an Unknown (stopping on
        the street), a brew card (Marco, a blind pick in the dead-end street)."""
        return kind in self.undo_barrier or after["draws"] != before["draws"]

    # --- small rule helpers -------------------------------------------------------------
    def who(self, state: State, seat: int) -> str:
        return str(state["players"][seat])

    def active(self, state: State, seat: int, brew: str) -> bool:
        """True while ``brew``'s effect works for ``seat`` (its red chip has moved at least once)."""
        return any(u["brew"] == brew and u["chip"] >= 1 for u in state["wizards"][seat]["in_use"])

    def say(self, state: State, event: str, **fields: Any) -> None:
        """Tell the whole table (the game log, the tablet's "what just happened" line): the
        words are the ``[events]`` of log.toml. Never a secret: a brew card's face, a formula."""
        self.announce(state, event, **fields)

    def tell(self, state: State, seat: int, text: str) -> None:
        """A line only ``seat`` sees (their phone)."""
        w = state["wizards"][seat]
        w["secret_log"] = [*w["secret_log"][-29:], text]

    def _turn(self, state: State, action: Action, what: str) -> int:
        seat: int = action["seat"]
        if state["step"] == "opening":
            raise IllegalAction("first every wizard rolls the die: the highest number begins")
        if seat != state["turn"]:
            raise IllegalAction(f"it is {self.who(state, state['turn'])}'s turn: only the wizard "
                                f"whose turn it is {what}")
        if state["pending"] is not None:
            raise IllegalAction(f"first {self.pending_words(state)}")
        return seat

    def _stage(self, state: State, step: int, what: str) -> None:
        """Refuse a step of the turn once a later one was taken (the order of a turn)."""
        if state["step"] != "arrived":
            raise IllegalAction(f"move your wizard first (step 3): {what} comes after")
        if state["stage"] > step:
            raise IllegalAction(f"{what} is step {step} of a turn, and this turn is at step {state['stage']} already")
        state["stage"] = step

    def to_healer(self, state: State, seat: int, why: str, **fields: Any) -> None:
        """Cursed or struck down: placed at the healer at once (``why``: the event told)."""
        w = state["wizards"][seat]
        w["place"] = "healer"
        w["at_healer"] = True
        self.say(state, why, seat=seat, **fields)

    def gain_gold(self, state: State, seat: int, amount: int) -> int:
        """Gold from the supply: what is left if it runs short (nothing can be claimed later)."""
        got = max(0, min(amount, state["supply"]))
        state["supply"] -= got
        state["gold"][seat] += got
        return got

    def pay(self, state: State, seat: int, amount: int, what: str) -> None:
        if state["gold"][seat] < amount:
            raise IllegalAction(f"{what} costs {amount} gold and {self.who(state, seat)} has only "
                                f"{state['gold'][seat]}; gold cannot be borrowed from another player")
        state["gold"][seat] -= amount
        state["supply"] += amount

    def to_shops(self, state: State, counts: dict[str, int]) -> None:
        state["shops"] = C.add(state["shops"], counts)

    def take_brew(self, state: State, seat: int, brew: str, how: str) -> None:
        """A brew card into ``seat``'s hand (face down); the game ends if it completes the elixir."""
        w = state["wizards"][seat]
        w["brews"] = [*w["brews"], brew]
        state["draws"] += 1
        self.tell(state, seat, f"{how}: {self.t.brews[brew].name}")
        self.check_win(state, seat)

    def check_win(self, state: State, seat: int) -> None:
        if all(p in state["wizards"][seat]["brews"] for p in self.t.elixir_parts):
            state["winner"] = seat
            state["step"] = "over"
            state["pending"] = None
            self.say(state, "wins", seat=seat)

    def roll_die(self, state: State, action: Action) -> int:
        """The die: the tablet's own (seeded, logged) or the number a player tapped."""
        value: int | None = action["value"]
        if state["options"]["dice"] == "digital":
            if value is not None:
                raise InvalidAction('this table uses the tablet\'s die: send {"type": "roll"} without a "value"')
            rng = rng_from(state)
            rolled = rng.randint(1, self.t.sides)
            rng_store(state, rng)
            return rolled
        if value is None:
            raise self.invalid(state, "roll", "value")
        return value

    def log_roll(self, state: State, seat: int, value: int, purpose: str, modified: int, result: str) -> None:
        die = state["die"]
        # the round and turn it was rolled in: the tablet shows a roll only while it counts
        state["die"] = {"mode": die["mode"], "rolls": die["rolls"] + 1,
                        "last": {"seat": seat, "value": value, "for": purpose, "counts": modified,
                                 "result": result, "n": die["rolls"] + 1,
                                 "round": state["round"], "turn": state["turn"]}}

    # the Unknowns (unknowns.py)
    def draw_unknown(self, state: State, seat: int) -> None:
        raise NotImplementedError

    def resolve_unknown_roll(self, state: State, pending: dict[str, Any], value: int) -> None:
        raise NotImplementedError

    # brewing (brewing.py)
    def resolve_brew(self, state: State, seat: int, value: int) -> None:
        raise NotImplementedError

    # --- the turn -----------------------------------------------------------------------
    def begin_turn(self, state: State, seat: int) -> None:
        """Steps 1 and 2: every red chip moves on (a spent brew goes back on the stack),
        then a gold piece (3 with the antidote) from the supply."""
        state["turn"], state["step"], state["stage"] = seat, "move", 3
        w = state["wizards"][seat]
        running = []
        for use in w["in_use"]:
            chip = use["chip"] + 1
            brew = self.t.brews[use["brew"]]
            if chip > brew.rounds:
                state["stack"] = [use["brew"], *state["stack"]]
                self.say(state, "brew_ran_out", seat=seat, brew=brew.name)
            else:
                running.append({"brew": use["brew"], "chip": chip})
        w["in_use"] = running
        income = self.t.antidote_income if self.active(state, seat, "antidote") else self.t.income
        got = self.gain_gold(state, seat, income)
        if got < income:
            self.say(state, "supply_used_up" if not got else "supply_short", seat=seat, got=got)

    def _do_roll(self, state: State, action: Action) -> list[Effect]:
        seat = action["seat"]
        if state["step"] == "opening":
            return self._opening_roll(state, seat, action)
        pending = state["pending"]
        if pending is None or pending["kind"] != "roll":
            raise IllegalAction("nothing waits for the die now")
        if seat != pending["seat"]:
            raise IllegalAction(f"{self.who(state, pending['seat'])} rolls the die now")
        value = self.roll_die(state, action)
        state["pending"] = None
        if pending["for"] == "brew":
            self.resolve_brew(state, seat, value)
        else:
            self.resolve_unknown_roll(state, pending, value)
        return []

    def _opening_roll(self, state: State, seat: int, action: Action) -> list[Effect]:
        op = state["opening"]
        if seat not in op["rolling"] or op["rolls"][seat] is not None:
            waiting = [self.who(state, s) for s in op["rolling"] if op["rolls"][s] is None]
            raise IllegalAction("to find who begins, " + " and ".join(waiting) + " still roll")
        value = self.roll_die(state, action)
        rolls = list(op["rolls"])
        rolls[seat] = value
        self.log_roll(state, seat, value, "who begins", value, "")
        self.say(state, "opening_roll", seat=seat, value=value)
        op = state["opening"] = {"rolling": op["rolling"], "rolls": rolls}
        if any(rolls[s] is None for s in op["rolling"]):
            return []
        best = max(rolls[s] for s in op["rolling"])
        top = [s for s in op["rolling"] if rolls[s] == best]
        if len(top) > 1:
            self.say(state, "opening_tie", who=" and ".join(self.who(state, s) for s in top), value=best)
            state["opening"] = {"rolling": top, "rolls": [None] * len(rolls)}
            return []
        state["first"] = top[0]
        self.say(state, "begins", seat=top[0], value=best)
        self.begin_turn(state, top[0])
        return []

    def _do_pay_healer(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "pays the healer")
        w = state["wizards"][seat]
        if state["step"] != "move" or not w["at_healer"]:
            raise IllegalAction(f"{self.who(state, seat)} is not waiting at the healer")
        self.pay(state, seat, self.t.healer_fee, "healing")
        w["at_healer"] = False
        self.say(state, "healed", seat=seat, gold=self.t.healer_fee)
        if w["fatal"] is not None:   # the fatal brew goes back once its victim is healed
            state["stack"] = [w["fatal"], *state["stack"]]
            w["fatal"] = None
            self.say(state, "fatal_back")
        return []

    def _do_move(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "moves")
        to = action["to"]
        if state["step"] != "move":
            raise IllegalAction("as soon as a wizard stops somewhere he may not be moved again this turn")
        w = state["wizards"][seat]
        if w["at_healer"]:
            if to != "healer":
                raise IllegalAction(f"{self.who(state, seat)} must pay {self.t.healer_fee} gold pieces to the "
                                    "healer before moving; a wizard who does not pay cannot leave")
        elif to == "healer":
            raise IllegalAction("the healer may only be entered by a wizard after he has been cursed")
        w["place"] = to
        # the step of the turn the place starts at: 4 shop, 5 laboratory, 6 street, 7 (experiment) else
        state["step"], state["stage"] = "arrived", STAGE_AT.get(to, 7)
        self.say(state, "stays_at_healer" if to == "healer" else "stops_at", seat=seat, place=to)
        if to == "street":
            self.draw_unknown(state, seat)
        return []

    def _do_buy(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "buys")
        ing, n, free = action["ingredient"], action["count"], action["free"]
        self._stage(state, 4, "buying ingredients")
        w = state["wizards"][seat]
        shop = self.t.shop_of(ing)
        if w["place"] != shop:
            raise IllegalAction(f"{self.ing_names[ing]} is sold at the {self.t.places[shop]['name'].lower()}; "
                                "a wizard buys in the shop where he ended his move")
        if state["shops"].get(ing, 0) < n:
            raise IllegalAction(f"the shop has only {state['shops'].get(ing, 0)} {self.ing_names[ing]} left")
        if free:
            if not self.active(state, seat, "dizziness"):
                raise IllegalAction("only the solution to dizziness gives a free ingredient")
            if w["free_round"] == state["round"] or n != 1:
                raise IllegalAction("the solution to dizziness gives one free ingredient in each round")
            w["free_round"] = state["round"]
        else:
            self.pay(state, seat, n * self.t.ingredients[ing].price, f"{n} {self.ing_names[ing]}")
        state["shops"] = C.sub(state["shops"], {ing: n})
        w["carried"] = C.add(w["carried"], {ing: n})
        self.say(state, "free" if free else "bought", seat=seat, count=n, ingredient=self.ing_names[ing],
                 gold=0 if free else n * self.t.ingredients[ing].price)
        return []

    def _do_deposit(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "fills his racks")
        self._stage(state, 5, "placing ingredients in the racks")
        w = state["wizards"][seat]
        if w["place"] != "lab":
            raise IllegalAction("ingredients are placed in the racks only by a wizard who ends his turn in his own laboratory")
        if not w["carried"]:
            raise IllegalAction(f"{self.who(state, seat)} carries no ingredients")
        self.say(state, "racks", seat=seat, ingredients=C.words(w["carried"], self.ing_names))
        w["racks"] = C.add(w["racks"], w["carried"])
        w["carried"] = {}
        return []

    def _do_take(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "takes from the dead-end street")
        ings, picks = action["ingredients"], action["brews"]
        self._stage(state, 6, "taking from the dead-end street")
        w = state["wizards"][seat]
        if w["place"] != "dead_end":
            raise IllegalAction("only a wizard who arrives in the dead-end side street takes what lies there")
        dead = state["dead_end"]
        if not C.contains(dead["ingredients"], ings):
            raise IllegalAction(f"the dead-end street holds {C.words(dead['ingredients'], self.ing_names)}")
        if any(i >= len(dead["brews"]) for i in picks):
            raise IllegalAction(f"the dead-end street holds {len(dead['brews'])} brew cards")
        if not ings and not picks:
            raise IllegalAction("take one, several or all of the products lying there")
        dead["ingredients"] = C.sub(dead["ingredients"], ings)
        w["carried"] = C.add(w["carried"], ings)
        taken = [dead["brews"][i] for i in sorted(picks)]
        dead["brews"] = [b for i, b in enumerate(dead["brews"]) if i not in picks]
        bits = [C.words(ings, self.ing_names)] if ings else []
        if taken:
            bits.append(f"{len(taken)} brew card{'s' if len(taken) > 1 else ''}")
        self.say(state, "took", seat=seat, what=" and ".join(bits))
        for card in taken:
            if state["step"] != "over":
                self.take_brew(state, seat, card["brew"], "from the dead-end street")
        return []

    def steal_blind(self, state: State, thief: int, victim: int, hirer: int) -> None:
        """Take a random face-down card from ``victim``; the fatal brew strikes the hirer."""
        rng = self._secret_rng(state)
        hand = list(state["wizards"][victim]["brews"])
        card = hand.pop(rng.randrange(len(hand)))
        self._store_secret_rng(state, rng)
        state["wizards"][victim]["brews"] = hand
        self.tell(state, victim, f"{self.t.brews[card].name} was stolen from you")
        if card == "fatal_brew":
            state["wizards"][hirer]["fatal"] = card
            self.to_healer(state, hirer, "fatal_struck")
            return
        self.take_brew(state, thief, card, f"stolen from {self.who(state, victim)}")

    def _do_end_turn(self, state: State, action: Action) -> list[Effect]:
        seat = self._turn(state, action, "ends the turn")
        if state["step"] != "arrived":
            raise IllegalAction("move your wizard first (step 3), even if only to stay where he is")
        n = len(state["players"])
        nxt = (seat + 1) % n
        if nxt == state["first"]:
            state["round"] += 1
        state["unknown"] = None
        self.begin_turn(state, nxt)
        return []

    def _do_note(self, state: State, action: Action) -> list[Effect]:
        """A wizard's own pencil note on his formula table (his phone only): free text."""
        seat, pair, text = action["seat"], action["pair"], action["text"]
        notes = [dict(n) for n in state["notes"]]
        if text.strip():
            notes[seat][pair] = text.strip()
        else:
            notes[seat].pop(pair, None)
        state["notes"] = notes
        return []

    def outcome(self, state: State) -> Outcome | None:
        w = state["winner"]
        if w is None:
            return None
        # one winner; nobody else is ranked by the rules, so the others share second place
        # (score 1 = holds the elixir of life, 0 = not): the end screen and the records say so
        return Outcome(winners=(w,), reason="elixir_of_life",
                       message=f"{self.who(state, w)} holds the three parts of the elixir of life",
                       ranking=Outcome.rank([1 if s == w else 0 for s in range(len(state["players"]))]),
                       details={"round": state["round"]})

    def pending_words(self, state: State) -> str:
        """What the table waits for, in a sentence."""
        p = state["pending"]
        if p is None:
            return ""
        who = self.who(state, p["seat"])
        if p["kind"] == "roll":
            what = {"brew": "for the experiment", "attack": f"against {self.t.unknowns[p.get('unknown', 'helga')].name}",
                    "hired": f"for {self.t.unknowns[p.get('unknown', 'nick')].name}"}[p["for"]]
            return f"{who} rolls the die {what}"
        if p["kind"] == "offer":
            return f"{who} answers {self.t.unknowns[p['unknown']].name}"
        if p["kind"] == "give":
            thing = "brew card" if p["what"] == "brew" else "ingredient"
            return (f"{who} chooses {p['count']} {thing}{'s' if p['count'] > 1 else ''} "
                    "to place in the dead-end street")
        return f"{who} chooses what {self.t.unknowns[p['unknown']].name} brings"
