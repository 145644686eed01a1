"""Im großen Zauberwald: the master magician's tile, the turning forest, the baskets.

The forest's ingredients lie loose on the forest floor, so nobody (and no
sensor) knows where each one sits: turning the floor carries all of them round
together, and an ingredient put back goes "back into the enchanted forest at
random". The engine therefore tracks *how many* of each colour are in the
forest, on each recipe card and in a basket being checked, plus the floor's
turn in ants; the tablet shows the floor's position, never ingredient places.

Round flow (``state["phase"]``)::

    cards    (only with options {"cards": "physical"}) enter_card until all are in
    choose   master: choose_tile
    turn     master: turn (direction), or choose_tile again to change his mind
    turning  the floor: floor_turned (sensor) / floor_turned manual (master taps done)
    search   master: end_search (count); a player whose basket can finish his third potion: stop
    check    basket for each seat in turn, master first; "stop!" puts a caller first
    penalty  the player just checked: return_ingredients (which correct ones go back)
    over     outcome() tells who won

Seats are in clockwise order round the table; the master passes to the left.

Undo (the core's policy, see ``Zauberwald.undoable``): entries on the tablet can be taken
back one by one until a fact: the floor sent turning or reporting its turn, a "stop!"
call, or the check of a round complete. An undo therefore never crosses a turn of the floor.
"""
from __future__ import annotations

import itertools
from typing import Any

from ...contracts import Action, Effect, State
from .. import counts as C
from ..base import (SEAT, BadSetup, Choice, Counts, Fields, Flag, Game, IllegalAction, InvalidAction, Outcome,
                    Placing, Score, Scores, Seat, Whole, new_rng_state, rng_from, rng_store)
from ..fields import read

CLOCKWISE, COUNTER_CLOCKWISE = "clockwise", "counter_clockwise"
DIRECTIONS = (CLOCKWISE, COUNTER_CLOCKWISE)
ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _and(names: list[str]) -> str:
    """["Ann", "Ben", "Cem"] → "Ann, Ben and Cem"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _or(names: list[str]) -> str:
    """["Ann", "Ben", "Cem"] → "Ann, Ben or Cem"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


class Zauberwald(Game):
    # The undo policy. Entries on the tablet a player may take back: a printed recipe card
    # typed in, the magic tile chosen (until the floor turns), "end your search!" with its
    # count, and the baskets and penalty choices of a check until the check is complete.
    undoable = frozenset({"enter_card", "choose_tile", "end_search", "basket", "return_ingredients"})
    # Facts nothing before can be undone across: the floor was sent turning (an undo never
    # turns it back), the floor reported its turn, a player called "stop!". A completed
    # check is a fact too, but the core cannot tell it by the action's type alone: see apply.
    undo_barrier = frozenset({"turn", "floor_turned", "stop"})
    nothing_to_undo = ('there is nothing to take back: the floor has turned, "stop!" was called '
                       "or the check is complete since the last entry")
    # Baskets and printed recipe cards are far too many to list: legal_actions offers a
    # handful of each, is_legal decides.
    legal_actions_complete = False
    options = {"cards": Choice(("dealt", "physical"), "who deals the recipe cards: the tablet, or the players "
                                                      "(each enters their three printed cards)", default="dealt"),
               "first": Seat("the youngest player, who starts", default=0)}

    def __init__(self, data: dict[str, Any] | None = None):
        super().__init__(data)
        d = self.data
        self.colours: list[str] = [c["id"] for c in d["colours"]]
        self.supply: dict[str, int] = {c["id"]: int(c["count"]) for c in d["colours"]}
        self.ants_around: int = int(d["ants_around"])
        self.recipe_size: int = int(d["recipe_size"])
        self.cards_per_player: int = int(d["cards_per_player"])
        self.magic_tiles: list[int] = sorted(int(t) for t in d["magic_tiles"])
        self.recipes: list[dict[str, Any]] = [
            {"number": int(r["number"]), "ingredients": {c: int(n) for c, n in r["ingredients"].items() if n}}
            for r in d["recipes"]]
        # A broken data file should fail loudly at start-up, naming the card.
        if not self.magic_tiles or min(self.magic_tiles) < 1:
            raise ValueError("Zauberwald data.toml: magic_tiles must be whole numbers of at least 1")
        for r in self.recipes:
            what = f"recipe card {r['number']} in the Zauberwald data.toml"
            try:
                self._check_recipe(read(r, {"ingredients": Counts(self.colours)}, {}, InvalidAction)["ingredients"],
                                   what)
            except InvalidAction as exc:
                raise ValueError(f"{what}: {exc}") from None
            except IllegalAction as exc:
                raise ValueError(str(exc)) from None

    def fields(self) -> dict[str, Fields]:
        colours = Counts(self.colours)
        n = self.cards_per_player
        return {
            "enter_card": {"seat": SEAT, "slot": Whole(0, n - 1, f"each player lays out {n} recipe cards, "
                                                              "left to right"),
                           "ingredients": colours},
            "choose_tile": {"seat": SEAT, "tile": Choice(sorted(set(self.magic_tiles)), "the number on a magic tile")},
            "turn": {"seat": SEAT, "direction": Choice(DIRECTIONS, "the forest floor turns one way or the other")},
            "floor_turned": {"manual": Flag("true when the master turned the floor by hand", default=False)},
            "end_search": {"seat": SEAT, "count": Whole(0, hint="how many ingredients are in the master "
                                                                "magician's basket")},
            "stop": {"seat": SEAT},
            "basket": {"seat": SEAT, "ingredients": colours},
            "return_ingredients": {"seat": SEAT, "ingredients": colours},
        }

    # --- set-up ---------------------------------------------------------------
    def setup(self, players: list[str], seed: int, options: dict[str, Any] | None = None) -> State:
        self.check_players(players)
        options = self.read_options(options, players)      # a typo never starts a game silently
        cards_mode, first = options["cards"], options["first"]
        n = len(players)
        if cards_mode == "dealt" and len(self.recipes) < n * self.cards_per_player:
            raise BadSetup(f"there are only {len(self.recipes)} recipe cards for {n} players")
        state: State = {
            "game": self.id,
            "players": list(players),
            "options": options,
            "rng": new_rng_state(seed),
            "phase": "cards",
            "master": first,
            "round": None,
            "round_number": 0,
            "tiles": [list(self.magic_tiles) for _ in players],
            "used_tiles": [[] for _ in players],
            "cards": [[None] * self.cards_per_player for _ in players],
            "forest": dict(self.supply),
            "floor": {"position": 0, "ants_around": self.ants_around},
            "last_round": None,
            "result": None,
            "undo": [],
        }
        if cards_mode == "dealt":
            rng = rng_from(state)
            deck = list(range(len(self.recipes)))
            rng.shuffle(deck)
            rng_store(state, rng)
            for seat in range(n):
                for slot in range(self.cards_per_player):
                    recipe = self.recipes[deck.pop()]
                    state["cards"][seat][slot] = self._new_card(recipe["ingredients"], recipe["number"])
            self._start_round(state)
        return state

    def _new_card(self, ingredients: dict[str, int], number: int | None) -> dict[str, Any]:
        return {"number": number, "recipe": dict(ingredients), "on_card": {}, "finished": False}

    def _check_recipe(self, ingredients: dict[str, int], what: str) -> None:
        if C.total(ingredients) != self.recipe_size:
            raise IllegalAction(f"{what}: every recipe needs exactly {self.recipe_size} ingredients, "
                                f"not {C.total(ingredients)}")

    # --- the contract -----------------------------------------------------------
    def undo_barrier_reached(self, before: State, after: State, kind: str) -> bool:
        """True when the action of type ``kind`` that led from ``before`` to ``after`` is a
        fact: a barrier by its type, or the end of a check."""
        if kind in self.undo_barrier:
            return True
        checking = ("check", "penalty")
        return before["phase"] in checking and after["phase"] not in checking

    def actions(self, state: State) -> list[Action]:
        """Every legal action except baskets and printed recipe cards, of which a handful
        is offered (``legal_actions_complete`` is False: ``is_legal`` decides)."""
        phase = state["phase"]
        m = state["master"]
        out: list[Action] = []
        if phase == "cards":
            used = {self._recipe_key(card["recipe"]) for cards in state["cards"] for card in cards if card}
            for seat, cards in enumerate(state["cards"]):
                for slot, card in enumerate(cards):
                    if card is None:
                        out += [{"type": "enter_card", "seat": seat, "slot": slot,
                                 "ingredients": dict(r["ingredients"])}
                                for r in self.recipes if self._recipe_key(r["ingredients"]) not in used]
        elif phase in ("choose", "turn"):
            chosen = state["round"]["tile"]
            for tile in sorted(set(state["tiles"][m])):
                out.append({"type": "choose_tile", "seat": m, "tile": tile})
            if phase == "turn":
                out += [{"type": "turn", "seat": m, "direction": d} for d in DIRECTIONS]
                if chosen not in state["tiles"][m]:
                    out.append({"type": "choose_tile", "seat": m, "tile": chosen})
        elif phase == "turning":
            out += [{"type": "floor_turned"}, {"type": "floor_turned", "manual": True}]
        elif phase == "search":
            tile = state["round"]["tile"]
            out += [{"type": "end_search", "seat": m, "count": n} for n in self._allowed_counts(state, m, tile)]
            out += [{"type": "stop", "seat": s} for s in range(len(state["players"])) if self._may_stop(state, s)]
        elif phase == "check":
            seat = state["round"]["to_check"][0]
            out += [{"type": "basket", "seat": seat, "ingredients": b} for b in self._sample_baskets(state, seat)]
            out += [{"type": "stop", "seat": s} for s in state["round"]["to_check"] if self._stop_open(state, s)]
        elif phase == "penalty":
            pending = state["round"]["pending"]
            for choice in self._penalty_choices(pending):
                out.append({"type": "return_ingredients", "seat": pending["seat"], "ingredients": choice})
        return out

    def view(self, state: State, seat: int | None = None) -> dict[str, Any]:
        """Everything in this game lies face up, so every seat sees the same."""
        rnd = state["round"]
        players = []
        for s, name in enumerate(state["players"]):
            cards: list[dict[str, Any] | None] = []
            for card in state["cards"][s]:
                if card is None:
                    cards.append(None)
                    continue
                cards.append({"number": card["number"], "recipe": dict(card["recipe"]),
                              "on_card": dict(card["on_card"]), "finished": card["finished"],
                              "missing": {} if card["finished"] else C.sub(card["recipe"], card["on_card"])})
            current = self._current_card(state, s)
            players.append({"seat": s, "name": name, "tiles": list(state["tiles"][s]),
                            "used_tiles": list(state["used_tiles"][s]),
                            "potions": self._potions(state, s), "current_card": current,
                            "cards": cards, "may_stop": self._stop_open(state, s)})
        out: dict[str, Any] = {
            "game": self.id, "phase": state["phase"], "master": state["master"],
            "round_number": state["round_number"], "players": players,
            "forest": {c: state["forest"].get(c, 0) for c in self.colours},
            "colours": [{"id": c["id"], "letter": c["letter"], "hex": c.get("hex")} for c in self.data["colours"]],
            "floor": dict(state["floor"]), "last_round": state["last_round"], "result": state["result"],
            "round": None,
        }
        if rnd is not None:
            r = {k: rnd[k] for k in ("tile", "direction", "ants", "count", "ended_by", "stoppers", "to_check",
                                     "results")}
            if state["phase"] == "search":
                r["end_search_counts"] = self._allowed_counts(state, state["master"], rnd["tile"])
            if rnd["pending"] is not None:
                p = rnd["pending"]
                r["pending"] = {"seat": p["seat"], "basket": p["basket"], "count": p["count"],
                                "choose_from": C.merge(p["placed"]), "wrong": p["wrong"],
                                "shortfall": p["shortfall"]}
            else:
                r["pending"] = None
            out["round"] = r
        return out

    def outcome(self, state: State) -> Outcome | None:
        """Built from ``state["result"]`` (kept JSON-plain in the state)."""
        result = state["result"]
        if result is None:
            return None
        names = state["players"]
        winners = tuple(result["winners"])
        potions = result["scores"]["potions"]
        on_card = result["scores"]["ingredients_on_card"]
        who = _and([names[s] for s in winners])
        if result["ended_by"] == "stop":
            message = f'{who} called "stop!" with all three magic potions cooked'
        else:
            best = potions[winners[0]]
            verb = "share the win" if len(winners) > 1 else "wins"
            message = f"Every magic tile has been used: {who} {verb} with {_plural(best, 'magic potion')}"
            if any(potions[s] == best for s in range(len(names)) if s not in winners) or len(winners) > 1:
                message += f" and {_plural(on_card[winners[0]], 'ingredient')} on the recipe card"
        # the ranking: the winners, then most potions, then most ingredients on the card
        keys = [(s in winners, potions[s], on_card[s]) for s in range(len(names))]
        ranking: list[Placing] = []
        for i, s in enumerate(sorted(range(len(names)), key=lambda s: keys[s], reverse=True)):
            tied = ranking and keys[ranking[-1].seat] == keys[s]
            ranking.append(Placing(s, ranking[-1].place if tied else i + 1,
                                   {"potions": potions[s], "ingredients_on_card": on_card[s]}))
        return Outcome(winners=winners, reason=result["ended_by"], message=message, ranking=tuple(ranking),
                       details={"ended_by": result["ended_by"], "scores": result["scores"]})

    def prompt(self, state: State) -> str:
        """What the table does next (the tablet's top line)."""
        phase, names, rnd = state["phase"], state["players"], state["round"]
        master = names[state["master"]]
        if phase == "cards":
            seat, slot = next((seat, slot) for seat, cards in enumerate(state["cards"])
                              for slot, card in enumerate(cards) if card is None)
            return f"Enter {names[seat]}'s {ORDINAL[slot]} recipe card"
        if phase == "choose":
            done = self.cooked_all(state)
            if done:     # the table keeps hearing what ends the game from here
                who = _and([names[d] for d in done])
                return (f"{master}, master magician: pick a magic tile ({who} "
                        f"{'has' if len(done) == 1 else 'have'} all three potions: {self._what_ends_it(state)})")
            return f"{master}, master magician: pick a magic tile"
        if phase == "turn":
            return f"{master}, master magician: which way does the floor turn?"
        if phase == "turning":
            way = "clockwise" if rnd["direction"] == CLOCKWISE else "counter-clockwise"
            return f"The forest floor turns {_plural(rnd['ants'], 'ant')} {way}; then everyone searches"
        if phase == "search":
            return f"Search! {master} collects {_plural(rnd['tile'], 'ingredient')}"
        if phase == "check":
            return f"Check {names[rnd['to_check'][0]]}'s basket"
        if phase == "penalty":
            return f"{names[rnd['pending']['seat']]}: choose what goes back to the forest"
        winners = state["result"]["winners"]
        return f"Game over: {_and([names[s] for s in winners])} {'win' if len(winners) > 1 else 'wins'}!"

    def undo_label(self, state: State) -> str | None:
        """What an undo would take back, in the table's words ("Linus's basket")."""
        stack = state.get("undo") or []
        if not stack:
            return None
        kind, before = stack[-1]["action"], stack[-1]["state"]
        names = state["players"]
        if kind == "enter_card":
            for seat, (was, now) in enumerate(zip(before["cards"], state["cards"])):
                for slot in range(len(now)):
                    if was[slot] is None and now[slot] is not None:
                        return f"{names[seat]}'s {ORDINAL[slot]} recipe card"
        if kind == "choose_tile":
            return f"{names[before['master']]}'s magic tile {state['round']['tile']}"
        if kind == "end_search":
            return f"{names[before['master']]}'s \u201cend your search!\u201d"
        if kind == "basket":
            return f"{names[before['round']['to_check'][0]]}'s basket"
        if kind == "return_ingredients":
            return f"{names[before['round']['pending']['seat']]}'s choice of what goes back"
        return str(kind)

    # --- actions: the shape of each field is checked first (InvalidAction), then the rules
    def _do_enter_card(self, state: State, action: Action) -> list[Effect]:
        seat, slot, ingredients = action["seat"], action["slot"], action["ingredients"]
        self._phase(state, ("cards",), "recipe cards are entered before the first magic tile is chosen")
        if state["cards"][seat][slot] is not None:
            raise IllegalAction(f"{state['players'][seat]}'s {ORDINAL[slot]} card is already entered")
        self._check_recipe(ingredients, "this recipe card")
        key = self._recipe_key(ingredients)
        for other_seat, cards in enumerate(state["cards"]):
            for other_slot, card in enumerate(cards):
                if card is not None and self._recipe_key(card["recipe"]) == key:
                    raise IllegalAction(f"every recipe card is different, and this one is already entered as "
                                        f"{state['players'][other_seat]}'s {ORDINAL[other_slot]} card")
        number = next((r["number"] for r in self.recipes if self._recipe_key(r["ingredients"]) == key), None)
        state["cards"][seat][slot] = self._new_card(ingredients, number)
        if all(card is not None for cards in state["cards"] for card in cards):
            self._start_round(state)
        return []

    def _do_choose_tile(self, state: State, action: Action) -> list[Effect]:
        seat, tile = action["seat"], action["tile"]
        self._phase(state, ("choose", "turn"), "the master magician chooses a magic tile before the floor turns")
        m = self._master(state, seat, "chooses the magic tile")
        rnd = state["round"]
        hand = state["tiles"][m]
        if rnd["tile"] is not None:  # changing his mind before turning: the tile goes back
            hand.append(rnd["tile"])
            hand.sort()
            rnd["tile"] = None
        if tile not in hand:
            left = ", ".join(str(t) for t in hand)
            raise IllegalAction(f"used magic tiles leave the game: {state['players'][m]} has only {left} left")
        hand.remove(tile)
        rnd["tile"] = tile
        state["phase"] = "turn"
        return []

    def _do_turn(self, state: State, action: Action) -> list[Effect]:
        seat, direction = action["seat"], action["direction"]
        self._phase(state, ("turn",), "the master magician chooses a magic tile first, then turns the floor")
        m = self._master(state, seat, "turns the forest floor")
        rnd = state["round"]
        rnd["direction"] = direction
        rnd["ants"] = rnd["tile"]
        state["used_tiles"][m].append(rnd["tile"])
        state["phase"] = "turning"
        return [{"device": "forest_floor", "op": "rotate", "ants": rnd["ants"], "direction": direction}]

    def _do_floor_turned(self, state: State, action: Action) -> list[Effect]:
        manual = action["manual"]
        self._phase(state, ("turning",), "the forest floor has not been told to turn")
        rnd = state["round"]
        step = rnd["ants"] if rnd["direction"] == CLOCKWISE else -rnd["ants"]
        state["floor"]["position"] = (state["floor"]["position"] + step) % self.ants_around
        rnd["turned_by_hand"] = manual
        state["phase"] = "search"
        return []

    def _do_end_search(self, state: State, action: Action) -> list[Effect]:
        seat, count = action["seat"], action["count"]
        self._phase(state, ("search",), "the search can only be ended while everyone is searching")
        m = self._master(state, seat, 'calls "end your search!"')
        rnd = state["round"]
        allowed = self._allowed_counts(state, m, rnd["tile"])
        if count not in allowed:
            if len(allowed) == 1:
                raise IllegalAction(f'the master magician may only call "end your search!" with exactly '
                                    f'{rnd["tile"]} ingredients in his basket')
            why = (f"he needs only {_plural(allowed[0], 'more ingredient')} for his last potion" if allowed[0]
                   else "he has cooked all three potions")
            raise IllegalAction(f'the master magician may only call "end your search!" with '
                                f'{allowed[0]} to {allowed[-1]} ingredients in his basket: {why}')
        rnd["count"] = count
        rnd["ended_by"] = "master"
        self._begin_check(state, first=None)
        return []

    def _do_stop(self, state: State, action: Action) -> list[Effect]:
        seat = action["seat"]
        self._phase(state, ("search", "check"),
                    '"stop!" is called during the search, or before your basket is checked')
        rnd = state["round"]
        if seat in rnd["stoppers"]:
            raise IllegalAction(f'{state["players"][seat]} has called "stop!" already')
        if state["phase"] == "check" and seat not in rnd["to_check"]:
            raise IllegalAction(f'{state["players"][seat]}\'s basket has been checked already: '
                                f'"stop!" comes before that')
        why_not = self._why_no_stop(state, seat)
        if why_not is not None:
            raise IllegalAction(why_not)
        if state["phase"] == "search":
            rnd["ended_by"] = "stop"
            self._begin_check(state, first=seat)
        else:  # the master ended the search, but this basket was not checked yet
            rnd["to_check"].remove(seat)
            rnd["to_check"].insert(0, seat)
        rnd["stoppers"].append(seat)
        return []

    def _do_basket(self, state: State, action: Action) -> list[Effect]:
        seat, basket = action["seat"], action["ingredients"]
        self._phase(state, ("check",), "baskets are checked after the search has ended")
        rnd = state["round"]
        expected = rnd["to_check"][0]
        if seat != expected:
            who = "the master magician's" if expected == state["master"] else f"{state['players'][expected]}'s"
            raise IllegalAction(f"baskets are checked one after the other, {who} basket comes next")
        rakeable = C.sub(state["forest"], rnd["back"])
        short = [c for c in basket if basket[c] > rakeable.get(c, 0)]
        if short:
            c = short[0]
            raise IllegalAction(f"only {rakeable.get(c, 0)} {c} ingredients were left in the forest "
                                f"to collect, not {basket[c]}")
        limit = self._basket_limit(state, seat)
        if limit is not None and C.total(basket) > limit:
            raise IllegalAction(f"the master magician ended the search with {limit} ingredients in his basket, "
                                f"and nobody collects once the search has ended")
        state["forest"] = C.sub(state["forest"], basket)
        self._check_basket(state, seat, basket)
        return []

    def _do_return_ingredients(self, state: State, action: Action) -> list[Effect]:
        seat, choice = action["seat"], action["ingredients"]
        self._phase(state, ("penalty",), "there is no penalty to pay right now")
        pending = state["round"]["pending"]
        if seat != pending["seat"]:
            raise IllegalAction(f"{state['players'][pending['seat']]} is choosing which ingredients go back")
        if C.total(choice) != pending["count"]:
            raise IllegalAction(f"as a penalty exactly {pending['count']} correctly collected "
                                f"ingredient{'s' if pending['count'] != 1 else ''} go back to the forest")
        if not C.contains(C.merge(pending["placed"]), choice):
            raise IllegalAction("only ingredients you have just correctly collected this round can go back")
        self._settle(state, pending, choice)
        return []

    # --- rules helpers --------------------------------------------------------------
    @staticmethod
    def _recipe_key(ingredients: dict[str, int]) -> str:
        return ",".join(f"{c}:{n}" for c, n in sorted(ingredients.items()) if n)

    @staticmethod
    def _master(state: State, seat: int, what: str) -> int:
        m: int = state["master"]
        if seat != m:
            raise IllegalAction(f"only the master magician ({state['players'][m]}) {what}")
        return m

    @staticmethod
    def _phase(state: State, phases: tuple[str, ...], rule: str) -> None:
        if state["phase"] not in phases:
            raise IllegalAction(rule)

    def _potions(self, state: State, seat: int) -> int:
        return sum(1 for card in state["cards"][seat] if card and card["finished"])

    def _on_card(self, state: State, seat: int) -> int:
        """Ingredients on the recipe card the seat collects for (the tie-break in potions)."""
        k = self._current_card(state, seat)
        return C.total(state["cards"][seat][k]["on_card"]) if k is not None else 0

    def scores(self, state: State) -> Scores:
        """Magic potions cooked, and the ingredients on the card being collected (the
        tie-break), as the end counts them."""
        seats = range(len(state["players"]))
        return Scores(lines=(
            Score("potions", "Magic potions", tuple(self._potions(state, s) for s in seats),
                  note='Three potions and a "stop!" win; when every magic tile is used, the most potions.'),
            Score("on_card", "Ingredients on the recipe card", tuple(self._on_card(state, s) for s in seats),
                  note="The card being collected: it breaks a tie in potions."),
        ))

    def _current_card(self, state: State, seat: int) -> int | None:
        """Index of the leftmost unfinished card: the only one a player collects for."""
        for i, card in enumerate(state["cards"][seat]):
            if card is not None and not card["finished"]:
                return i
        return None

    def _still_needed(self, state: State, seat: int) -> int:
        return sum(C.total(C.sub(c["recipe"], c["on_card"])) for c in state["cards"][seat] if not c["finished"])

    def _allowed_counts(self, state: State, m: int, tile: int) -> list[int]:
        """Basket sizes with which the master may end the search (rulebook's special case included)."""
        need = self._still_needed(state, m)
        if need < tile:  # he does not need that many more for his last potion
            return list(range(need, tile + 1))
        return [tile]

    def _stop_open(self, state: State, seat: int) -> bool:
        """May this seat call "stop!" right now?"""
        if state["phase"] == "search":
            return self._may_stop(state, seat)
        if state["phase"] == "check":
            rnd = state["round"]
            return seat in rnd["to_check"] and seat not in rnd["stoppers"] and self._may_stop(state, seat)
        return False

    def _may_stop(self, state: State, seat: int) -> bool:
        return self._why_no_stop(state, seat) is None

    def _why_no_stop(self, state: State, seat: int) -> str | None:
        """Why ``seat`` cannot call "stop!" now (in the table's words), or None if it can.

        "Stop!" is called with the basket that finishes the third magic potion, and a
        player may collect for the next recipe card once the current one is complete (and
        so on, DEFAULTS.md), so one search can finish the second and the third potion.
        Nobody knows what is in a basket until it is checked: the call is open to every
        player for whom some basket the forest can still give would finish the third
        potion. Whether this basket does is the check's to say ("stop!" right or wrong)."""
        name = state["players"][seat]
        open_cards = [card for card in state["cards"][seat] if card is not None and not card["finished"]]
        if not open_cards:
            return (f'{name} has cooked all three magic potions already: "stop!" is called with the '
                    f"basket that finishes the third magic potion")
        rule = 'only a player whose basket can finish his third magic potion can call "stop!"'
        need = C.merge([C.sub(card["recipe"], card["on_card"]) for card in open_cards])
        rakeable = C.sub(state["forest"], state["round"]["back"])
        short = [c for c in self.colours if need.get(c, 0) > rakeable.get(c, 0)]
        if short:
            c = short[0]
            return (f"{rule}: {name} still needs {need[c]} {c} for it, and only {rakeable.get(c, 0)} "
                    f"{'is' if rakeable.get(c, 0) == 1 else 'are'} left in the forest to collect")
        limit = self._basket_limit(state, seat)
        if limit is not None and C.total(need) > limit:
            return (f"{rule}: {name} still needs {_plural(C.total(need), 'ingredient')} for it, and the "
                    f"master magician's basket holds only {limit} this round")
        return None

    def _basket_limit(self, state: State, seat: int) -> int | None:
        rnd = state["round"]
        if seat != state["master"]:
            return None
        limit: int = rnd["count"] if rnd["ended_by"] == "master" else rnd["tile"]
        return limit

    def _start_round(self, state: State) -> None:
        state["round_number"] += 1
        state["phase"] = "choose"
        state["round"] = {"tile": None, "direction": None, "ants": None, "turned_by_hand": False,
                          "count": None, "ended_by": None, "stoppers": [], "to_check": [],
                          "back": {}, "results": [], "pending": None}

    def _begin_check(self, state: State, first: int | None) -> None:
        n, m = len(state["players"]), state["master"]
        order = [(m + i) % n for i in range(n)]  # master first, then clockwise
        if first is not None:
            order.remove(first)
            order.insert(0, first)
        state["round"]["to_check"] = order
        state["phase"] = "check"

    # --- checking one basket ---------------------------------------------------------
    def _allocate(self, state: State, seat: int, basket: dict[str, int]) -> dict[str, Any]:
        """Lay the basket onto the cards by the rule in DEFAULTS.md (before any penalty)."""
        cards = state["cards"][seat]
        placed: list[dict[str, int]] = [{} for _ in cards]
        rest = dict(basket)
        k = self._current_card(state, seat)
        stuck = None  # first card that this basket leaves incomplete
        while k is not None and k < len(cards):
            need = C.sub(cards[k]["recipe"], cards[k]["on_card"])
            take = C.common(rest, need)
            placed[k] = take
            rest = C.sub(rest, take)
            if take != need:
                stuck = k
                break
            k += 1
        later_need: dict[str, int] = {}
        if stuck is not None:
            for card in cards[stuck + 1:]:
                later_need = C.add(later_need, card["recipe"])
        free = C.common(rest, later_need)
        wrong = C.sub(rest, free)
        return {"placed": placed, "free": free, "wrong": wrong}

    def _check_basket(self, state: State, seat: int, basket: dict[str, int]) -> None:
        rnd = state["round"]
        alloc = self._allocate(state, seat, basket)
        shortfall = 0
        if seat == state["master"] and (rnd["ended_by"] == "master" or seat in rnd["stoppers"]):
            expected = min(rnd["tile"], self._still_needed(state, seat))
            shortfall = max(0, expected - C.total(basket))
        pool = alloc["placed"]
        pool_total = sum(C.total(p) for p in pool)
        owed = min(C.total(alloc["wrong"]) + shortfall, pool_total)
        pending = {"seat": seat, "basket": basket, "placed": pool, "free": alloc["free"],
                   "wrong": alloc["wrong"], "shortfall": shortfall, "count": owed}
        choices = self._penalty_choices(pending)
        if owed == 0:
            self._settle(state, pending, {})
        elif len(choices) == 1:
            self._settle(state, pending, choices[0])
        else:
            rnd["pending"] = pending
            state["phase"] = "penalty"

    def _penalty_choices(self, pending: dict[str, Any]) -> list[dict[str, int]]:
        """Every distinct set of ``count`` correct ingredients the player could send back."""
        pool = C.merge(pending["placed"])
        colours = [c for c in self.colours if pool.get(c)]
        out = []
        for combo in itertools.combinations_with_replacement(colours, pending["count"]):
            choice: dict[str, int] = {}
            for c in combo:
                choice[c] = choice.get(c, 0) + 1
            if C.contains(pool, choice):
                out.append(choice)
        return out

    def _settle(self, state: State, pending: dict[str, Any], penalty: dict[str, int]) -> None:
        """Pay the penalty, lay the rest on the cards, finish potions, put the rest back."""
        rnd = state["round"]
        seat = pending["seat"]
        cards = state["cards"][seat]
        order = self.colours
        placed = [dict(p) for p in pending["placed"]]
        # A penalty ingredient leaves the latest card first: that never breaks an earlier card.
        owed = dict(penalty)
        for k in reversed(range(len(placed))):
            take = C.common(owed, placed[k])
            placed[k] = C.sub(placed[k], take)
            owed = C.sub(owed, take)
        back_free: dict[str, int] = dict(pending["free"])
        finished: list[int] = []
        current = self._current_card(state, seat)
        k = len(cards) if current is None else current
        while k < len(cards):
            card = cards[k]
            laid = C.add(card["on_card"], placed[k])
            if laid == card["recipe"]:
                card["on_card"] = {}
                card["finished"] = True
                finished.append(k)
                self._to_forest(state, card["recipe"])
                k += 1
                continue
            card["on_card"] = laid
            for j in range(k + 1, len(cards)):  # the earlier card is not complete
                back_free = C.add(back_free, placed[j])
                placed[j] = {}
            break
        self._to_forest(state, pending["wrong"])
        self._to_forest(state, back_free)
        self._to_forest(state, penalty)
        notes = []
        name = state["players"][seat]
        for k, p in enumerate(placed):
            if p and k not in finished:
                notes.append(f"{C.words(p, order)} laid on the {ORDINAL[k]} recipe card")
        for k in finished:
            notes.append(f"the {ORDINAL[k]} magic potion is finished: its ingredients go back to the forest "
                         f"and the card is turned over")
        if back_free:
            notes.append(f"{C.words(back_free, order)} back to the forest without penalty: they are for a "
                         f"later recipe card, but the earlier card is not complete")
        if pending["wrong"]:
            notes.append(f"{C.words(pending['wrong'], order)} wrong: not needed on any of {name}'s open "
                         f"recipe cards, back to the forest")
        if pending["shortfall"]:
            notes.append(f"the master magician collected {pending['shortfall']} fewer than his magic tile says")
        if penalty:
            reasons = []
            if pending["wrong"]:
                reasons.append(f"{C.total(pending['wrong'])} wrong")
            if pending["shortfall"]:
                reasons.append(f"{pending['shortfall']} missing")
            notes.append(f"penalty for {' and '.join(reasons)}: {C.words(penalty, order)} collected correctly "
                         f"this round back to the forest")
        elif pending["wrong"] or pending["shortfall"]:
            notes.append("no penalty: nothing was correctly collected this round")
        result = {"seat": seat, "basket": pending["basket"], "placed": placed, "finished": finished,
                  "free": back_free, "wrong": pending["wrong"], "shortfall": pending["shortfall"],
                  "penalty": penalty, "notes": notes}
        rnd["results"].append(result)
        rnd["pending"] = None
        rnd["to_check"].pop(0)
        self._announce_check(state, result)
        if seat in rnd["stoppers"]:
            right = self._potions(state, seat) == self.cards_per_player and not pending["wrong"]
            result["stop"] = "right" if right else "wrong"
            if right:
                notes.append(f'"stop!" was right: {name} has cooked all three magic potions')
                self.announce(state, "stop_right", seat=seat)
                self._finish(state, "stop", [seat])
                return
            notes.append(f'"stop!" was wrong: {name} has not cooked three magic potions, the game goes on')
            self.announce(state, "stop_wrong", seat=seat)
        elif finished and self._potions(state, seat) == self.cards_per_player:
            # no "stop!" with it: the game goes on (docs/rules/zauberwald.md, "Choices made")
            self.announce(state, "third_potion", seat=seat, end=self._what_ends_it(state))
        state["phase"] = "check"
        if not rnd["to_check"]:
            self._end_round(state)

    def _announce_check(self, state: State, result: dict[str, Any]) -> None:
        """What one basket's check did, for the table's story (the same as its notes)."""
        seat, order = result["seat"], self.colours
        for k, p in enumerate(result["placed"]):
            if p and k not in result["finished"]:
                self.announce(state, "laid_on_card", seat=seat, ingredients=C.words(p, order), card=ORDINAL[k])
        for k in result["finished"]:
            self.announce(state, "potion_finished", seat=seat, potion=ORDINAL[k])
        if result["free"]:
            self.announce(state, "back_without_penalty", seat=seat, ingredients=C.words(result["free"], order))
        if result["wrong"]:
            self.announce(state, "wrong", seat=seat, ingredients=C.words(result["wrong"], order))
        if result["shortfall"]:
            self.announce(state, "shortfall", seat=seat, missing=result["shortfall"])
        if result["penalty"]:
            self.announce(state, "penalty", seat=seat, ingredients=C.words(result["penalty"], order))

    def cooked_all(self, state: State) -> list[int]:
        """The seats whose three magic potions are all cooked."""
        return [s for s in range(len(state["players"])) if self._potions(state, s) == self.cards_per_player]

    def _what_ends_it(self, state: State) -> str:
        """What still ends the game once somebody has cooked all three potions without
        "stop!" (docs/rules/zauberwald.md, "Choices made"): the last magic tile, or another
        player's right "stop!"."""
        done = set(self.cooked_all(state))
        others = [state["players"][s] for s in range(len(state["players"])) if s not in done]
        stop = f", unless {_or(others)} calls a right “stop!” first" if others else ""
        rounds = sum(len(hand) for hand in state["tiles"])
        if not rounds:
            return f"this is the last round: the game ends when its baskets are checked{stop}"
        return f"the game ends when every magic tile is used ({_plural(rounds, 'round')} to go){stop}"

    def _to_forest(self, state: State, counts: dict[str, int]) -> None:
        state["forest"] = C.add(state["forest"], counts)
        state["round"]["back"] = C.add(state["round"]["back"], counts)

    def _end_round(self, state: State) -> None:
        rnd = state["round"]
        state["last_round"] = {"round_number": state["round_number"], "master": state["master"],
                               "tile": rnd["tile"], "direction": rnd["direction"],
                               "ended_by": rnd["ended_by"], "stoppers": rnd["stoppers"],
                               "results": rnd["results"]}
        if all(not hand for hand in state["tiles"]):
            self._finish(state, "tiles", None)
            self.announce(state, "tiles_used", who=_and([state["players"][s] for s in state["result"]["winners"]]),
                          win="win" if len(state["result"]["winners"]) > 1 else "wins")
            return
        state["master"] = (state["master"] + 1) % len(state["players"])
        self._start_round(state)
        self.announce(state, "next_master", seat=state["master"], round=state["round_number"])

    def _finish(self, state: State, ended_by: str, winners: list[int] | None) -> None:
        n = len(state["players"])
        potions = [self._potions(state, s) for s in range(n)]
        on_card = [self._on_card(state, s) for s in range(n)]
        if winners is None:  # most potions, then most ingredients on the recipe card, else shared
            best = max(potions)
            winners = [s for s in range(n) if potions[s] == best]
            if len(winners) > 1:
                most = max(on_card[s] for s in winners)
                winners = [s for s in winners if on_card[s] == most]
        state["phase"] = "over"
        state["result"] = {"winners": winners, "ended_by": ended_by,
                           "scores": {"potions": potions, "ingredients_on_card": on_card}}

    def _sample_baskets(self, state: State, seat: int) -> list[dict[str, int]]:
        """A handful of lawful baskets for ``legal_actions`` (any lawful basket is accepted)."""
        rnd = state["round"]
        rakeable = C.sub(state["forest"], rnd["back"])
        limit = self._basket_limit(state, seat)
        out: list[dict[str, int]] = [{}]

        def trim(b: dict[str, int]) -> dict[str, int]:
            if limit is None:
                return b
            kept: dict[str, int] = {}
            for c in self.colours:
                n = min(b.get(c, 0), limit - C.total(kept))
                if n > 0:
                    kept[c] = n
            return kept

        k = self._current_card(state, seat)
        if k is not None:
            card = state["cards"][seat][k]
            out.append(trim(C.common(C.sub(card["recipe"], card["on_card"]), rakeable)))
        for c in self.colours:
            if rakeable.get(c):
                out.append({c: 1} if limit is None or limit >= 1 else {})
        if limit:
            filled: dict[str, int] = {}
            for c in self.colours:
                n = min(rakeable.get(c, 0), limit - C.total(filled))
                if n > 0:
                    filled[c] = n
            out.append(filled)
        unique: list[dict[str, int]] = []
        for b in out:
            if b not in unique:
                unique.append(b)
        return unique
